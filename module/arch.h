/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architecture-specific helpers, all of them.  x86_64 is the tested
 * architecture; elsewhere the module runs observe-only: it samples and
 * reports, but neither measures usefulness nor moves the window.
 */
#ifndef _AFA_ARCH_H
#define _AFA_ARCH_H

#include <linux/bitops.h>
#include <linux/pgtable.h>
#include <linux/ptrace.h>

#ifdef CONFIG_X86_64

#define AFA_ARCH_CAN_SAMPLE_ACCESS	1

/*
 * Mark a PTE not accessed, atomically against the hardware setting the
 * bit, as x86's ptep_test_and_clear_young() does (not exported).  No TLB
 * flush: the PTEs sampled were installed by fault-around an instant ago
 * and have not been accessed, so no TLB holds them yet; a stale entry
 * could only hide a later access, never invent one.
 */
static inline bool afa_arch_test_and_clear_young(pte_t *ptep)
{
	return test_and_clear_bit(_PAGE_BIT_ACCESSED,
				  (unsigned long *)&ptep->pte);
}

/*
 * Rewrite the window arguments of filemap_map_pages(vmf, start_pgoff,
 * end_pgoff) in the probe's entry handler: the second and third
 * arguments of the x86-64 calling convention.
 */
static inline bool afa_arch_set_window(struct pt_regs *regs, u64 start,
				       u64 end)
{
	regs->si = start;
	regs->dx = end;
	return true;
}

#else

#define AFA_ARCH_CAN_SAMPLE_ACCESS	0

static inline bool afa_arch_set_window(struct pt_regs *regs, u64 start,
				       u64 end)
{
	return false;
}

static inline bool afa_arch_test_and_clear_young(pte_t *ptep)
{
	return false;
}

#endif /* CONFIG_X86_64 */

#endif /* _AFA_ARCH_H */

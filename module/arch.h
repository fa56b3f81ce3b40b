/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architecture-specific helpers, all of them.
 *
 * afa_arch_set_window() is the actuator: it rewrites the window
 * arguments of filemap_map_pages(vmf, start_pgoff, end_pgoff) in the
 * probe's entry handler.  It is implemented where a register written
 * there was verified to reach the function, by exact fault counts at
 * every order (vm/guest/tests/15-actuator.sh, make vmtest, make
 * vmtest-arm64, make vmtest-ppc64le):
 *
 *	arch	 registers	probes verified on Debian's 6.12
 *	x86_64	 si, dx		kretprobe, kprobe, fprobe (all ftrace-based)
 *	arm64	 x1, x2		kretprobe, kprobe (breakpoints: no FPROBE
 *				and no kprobes on ftrace on arm64)
 *	ppc64	 r4, r5		kretprobe, kprobe, fprobe (all ftrace-based;
 *				ftrace_regs_caller restores r3-r10)
 *
 * Elsewhere it returns false and the module only observes.  From 6.14
 * an fprobe hands its handler ftrace_regs: afa_arch_set_window_fregs().
 * Accessed-bit sampling is x86_64 only.
 */
#ifndef _AFA_ARCH_H
#define _AFA_ARCH_H

#include <linux/bitops.h>
#include <linux/ftrace.h>
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

#if defined(CONFIG_ARM64)
/* AAPCS64: the second and third arguments are in x1 and x2. */
static inline bool afa_arch_set_window(struct pt_regs *regs, u64 start,
				       u64 end)
{
	regs->regs[1] = start;
	regs->regs[2] = end;
	return true;
}
#elif defined(CONFIG_PPC64)
/* Both 64-bit ELF ABIs: the arguments are in r3, r4, r5, ... */
static inline bool afa_arch_set_window(struct pt_regs *regs, u64 start,
				       u64 end)
{
	regs->gpr[4] = start;
	regs->gpr[5] = end;
	return true;
}
#else
static inline bool afa_arch_set_window(struct pt_regs *regs, u64 start,
				       u64 end)
{
	return false;
}
#endif

static inline bool afa_arch_test_and_clear_young(pte_t *ptep)
{
	return false;
}

#endif /* CONFIG_X86_64 */

#if defined(CONFIG_FPROBE) && defined(ftrace_regs_size)
/*
 * From 6.14 an fprobe's entry handler gets ftrace_regs, not pt_regs (the
 * abstract ftrace_regs, with ftrace_regs_size(), came before, into 6.12's
 * stable releases too; 6.1 has neither):
 * where they hold a pt_regs (x86, powerpc) ftrace_partial_regs() returns
 * that very pt_regs, and the write above is a write to the saved
 * registers; on arm64 they are their own struct, whose x0-x8 the ftrace
 * trampoline restores.  Verified by exact fault counts on Debian's 7.3
 * (x86_64, arm64) and 7.2 (ppc64le-64k) kernels.
 */
static inline bool afa_arch_set_window_fregs(struct ftrace_regs *fregs,
					     u64 start, u64 end)
{
#if defined(CONFIG_HAVE_FTRACE_REGS_HAVING_PT_REGS)
	return afa_arch_set_window(ftrace_partial_regs(fregs, NULL), start, end);
#elif defined(CONFIG_ARM64)
	arch_ftrace_regs(fregs)->regs[1] = start;
	arch_ftrace_regs(fregs)->regs[2] = end;
	return true;
#else
	return false;
#endif
}
#endif

#endif /* _AFA_ARCH_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architecture-specific helper, all of it: writing the window
 * arguments of filemap_map_pages() in the probe's entry handler.  x86_64
 * is the tested architecture; elsewhere the module observes only, and
 * says so at load (acting=0 in the stats).
 */
#ifndef _AFA_ARCH_H
#define _AFA_ARCH_H

#include <linux/ptrace.h>
#include <linux/types.h>

#ifdef CONFIG_X86_64

#define AFA_ARCH_CAN_SET_WINDOW	1

/*
 * Rewrite the window arguments of filemap_map_pages(vmf, start_pgoff,
 * end_pgoff) in the probe's entry handler: the second and third
 * arguments of the x86-64 calling convention.  The ftrace trampoline of
 * fprobe and of kprobes on ftrace reloads them from the saved registers.
 */
static inline bool afa_arch_set_window(struct pt_regs *regs, u64 start,
				       u64 end)
{
	regs->si = start;
	regs->dx = end;
	return true;
}

#else

#define AFA_ARCH_CAN_SET_WINDOW	0

static inline bool afa_arch_set_window(struct pt_regs *regs, u64 start,
				       u64 end)
{
	return false;
}

#endif /* CONFIG_X86_64 */

#endif /* _AFA_ARCH_H */

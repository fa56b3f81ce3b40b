/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architecture-specific helper, all of it: afa_arch_set_window(), the
 * actuator, rewrites the window arguments of filemap_map_pages(vmf,
 * start_pgoff, end_pgoff) in the probe's entry handler.  It is
 * implemented where a register written there was verified to reach the
 * function, by exact fault counts at every order (vm/guest/tests/
 * 15-actuator.sh; make vmtest, make vmtest-arm64, make vmtest-ppc64le):
 *
 *	arch	 registers	probes verified on Debian's 6.12
 *	x86_64	 si, dx		kretprobe, kprobe, fprobe (all ftrace-based)
 *	arm64	 x1, x2		kretprobe, kprobe (breakpoints: no FPROBE
 *				and no kprobes on ftrace on arm64)
 *	ppc64	 r4, r5		kretprobe, kprobe, fprobe (all ftrace-based;
 *				ftrace_regs_caller restores r3-r10)
 *
 * Elsewhere the module observes only, and says so at load (acting=0 in
 * the stats).
 */
#ifndef _AFA_ARCH_H
#define _AFA_ARCH_H

#include <linux/ptrace.h>
#include <linux/types.h>

#if defined(CONFIG_X86_64)

#define AFA_ARCH_CAN_SET_WINDOW	1

/* The second and third arguments of the x86-64 calling convention. */
static inline bool afa_arch_set_window(struct pt_regs *regs, u64 start,
				       u64 end)
{
	regs->si = start;
	regs->dx = end;
	return true;
}

#elif defined(CONFIG_ARM64)

#define AFA_ARCH_CAN_SET_WINDOW	1

/* AAPCS64: the second and third arguments are in x1 and x2. */
static inline bool afa_arch_set_window(struct pt_regs *regs, u64 start,
				       u64 end)
{
	regs->regs[1] = start;
	regs->regs[2] = end;
	return true;
}

#elif defined(CONFIG_PPC64)

#define AFA_ARCH_CAN_SET_WINDOW	1

/* Both 64-bit ELF ABIs: the arguments are in r3, r4, r5, ... */
static inline bool afa_arch_set_window(struct pt_regs *regs, u64 start,
				       u64 end)
{
	regs->gpr[4] = start;
	regs->gpr[5] = end;
	return true;
}

#else

#define AFA_ARCH_CAN_SET_WINDOW	0

static inline bool afa_arch_set_window(struct pt_regs *regs, u64 start,
				       u64 end)
{
	return false;
}

#endif

#endif /* _AFA_ARCH_H */

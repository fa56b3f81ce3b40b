// SPDX-License-Identifier: GPL-2.0
/*
 * The cheapest attachment to filemap_map_pages(): an ftrace direct call,
 * as BPF trampolines and samples/ftrace/ftrace-direct-too.c use.  The
 * function's fentry call site calls this file's trampoline itself: no
 * ftrace_ops list, no fprobe bookkeeping, no recursion lock between.
 * The trampoline saves the function's three argument registers in a
 * struct pt_regs on its stack, calls the probe's entry handler on it
 * (probe.c, which reads those three of the pt_regs an fprobe hands it),
 * and loads them back, with the window the handler wrote over the
 * second and third (arch.h).
 *
 * Where: x86-64 kernels built with CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
 * (Debian's 6.1, 6.12 and 7.x; the ops-based API, whose 6.1 names
 * compat.h maps), unless the direct_call parameter is 0 or the build
 * forces a kprobe.
 * A function has at most one direct call: while the module holds it, a
 * BPF fentry or fexit program on filemap_map_pages() cannot attach, and
 * while one holds it the module attaches by fprobe or kprobe and says so
 * (attach.c).  Unregistering returns once no task can be in the
 * trampoline: the ftrace_ops lives in module data, which ftrace treats
 * as dynamic and waits out with RCU tasks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/ftrace.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/stddef.h>
#include <linux/stringify.h>
#include "afa.h"
#include "compat.h"

#if AFA_HAVE_DIRECT

#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/nospec-branch.h>

/* Call depth tracking (retbleed) came in 6.2; 6.1 has nothing to count. */
#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT ""
#endif

/* Offsets in struct pt_regs of the argument registers, checked below. */
#define AFA_PT_DX	96
#define AFA_PT_SI	104
#define AFA_PT_DI	112
#define AFA_PT_SIZE	168

static_assert(offsetof(struct pt_regs, dx) == AFA_PT_DX);
static_assert(offsetof(struct pt_regs, si) == AFA_PT_SI);
static_assert(offsetof(struct pt_regs, di) == AFA_PT_DI);
static_assert(sizeof(struct pt_regs) == AFA_PT_SIZE);

/*
 * Called from filemap_map_pages()'s fentry site.  The kernel is built
 * with -mpreferred-stack-boundary=3: only 8-byte alignment is kept, and
 * that is all the frame needs (the frame pointer, then 168 bytes of
 * pt_regs); nothing in the handler asks for more.  Only the argument
 * registers carry anything at a function's first instruction, and
 * filemap_map_pages(vmf, start_pgoff, end_pgoff)
 * has three: those are saved, as a BPF trampoline saves the arguments
 * its function has (save_args() in arch/x86/net/bpf_jit_comp.c); the
 * other registers the handler may clobber as any callee, and the other
 * fields of the pt_regs are not written (the handler reads no more).
 */
asm("	.pushsection	.text, \"ax\", @progbits\n"
"	.type		afa_direct_tramp, @function\n"
"	.globl		afa_direct_tramp\n"
"afa_direct_tramp:\n"
	ASM_ENDBR
"	pushq	%rbp\n"
"	movq	%rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
"	subq	$" __stringify(AFA_PT_SIZE) ", %rsp\n"
"	movq	%rdi, " __stringify(AFA_PT_DI) "(%rsp)\n"
"	movq	%rsi, " __stringify(AFA_PT_SI) "(%rsp)\n"
"	movq	%rdx, " __stringify(AFA_PT_DX) "(%rsp)\n"
"	movq	%rsp, %rdi\n"
"	call	afa_direct_enter\n"
"	movq	" __stringify(AFA_PT_DI) "(%rsp), %rdi\n"
"	movq	" __stringify(AFA_PT_SI) "(%rsp), %rsi\n"
"	movq	" __stringify(AFA_PT_DX) "(%rsp), %rdx\n"
"	leave\n"
	ASM_RET
"	.size		afa_direct_tramp, .-afa_direct_tramp\n"
"	.popsection\n"
);

/*
 * The trampoline's C half.  An fprobe or kprobe handler runs with
 * preemption off (their recursion guards); here the handler turns it off
 * itself, for its per-CPU state.  No recursion guard: nothing the
 * handler calls maps pages.
 */
notrace void afa_direct_enter(struct pt_regs *regs)
{
	preempt_disable_notrace();
	afa_probe_map_enter(regs);
	preempt_enable_notrace();
}

static struct ftrace_ops afa_direct_ops;

/**
 * afa_direct_register() - attach the trampoline to filemap_map_pages()
 *
 * Return: 0; -EOPNOTSUPP where this kernel or build has no direct call
 * (nothing to log); else ftrace's error, -EBUSY when another direct call
 * (a BPF trampoline) holds the function.
 */
int afa_direct_register(void)
{
	unsigned long ip = (unsigned long)filemap_map_pages;
	int err;

	/* A fresh ops at every attachment, as the fprobe's (attach.c). */
	afa_direct_ops = (struct ftrace_ops){};
	err = ftrace_set_filter_ip(&afa_direct_ops, ip, 0, 0);
	if (err)
		return err;
	err = afa_register_ftrace_direct(&afa_direct_ops,
					 (unsigned long)afa_direct_tramp);
	if (err)
		ftrace_free_filter(&afa_direct_ops);
	return err;
}

/**
 * afa_direct_unregister() - detach; returns once no task is in it
 *
 * Return: 0, or ftrace's error (-ENODEV once ftrace has shut itself
 * down): the call site still calls the trampoline then.
 */
int afa_direct_unregister(void)
{
	return afa_unregister_ftrace_direct(&afa_direct_ops,
					    (unsigned long)afa_direct_tramp);
}

#else /* !AFA_HAVE_DIRECT */

int afa_direct_register(void)
{
	return -EOPNOTSUPP;
}

int afa_direct_unregister(void)
{
	return 0;
}

#endif /* AFA_HAVE_DIRECT */

// SPDX-License-Identifier: GPL-2.0
/*
 * Test only, never shipped: does afa_arch_set_window() (module/arch.h)
 * take effect under a given probe type on this architecture?  It probes
 * filemap_map_pages() like the module does, rewrites every window to
 * the one of order @order (module/window.c's geometry), and the guest
 * counts faults (vm/guest/tests/15-actuator.sh).
 *
 * type=kretprobe	entry handler of a kretprobe
 * type=kprobe		pre_handler of a kprobe at the function's entry (the
 *			module on 6.1, arm64 and from 6.14)
 * type=fprobe		entry handler of an fprobe (CONFIG_FPROBE, 6.5 to
 *			6.13: the module on 6.12 x86_64 and ppc64le where
 *			direct_call=0 or the direct call is taken)
 * type=direct		no rewrite: holds filemap_map_pages()'s one ftrace
 *			direct call with a trampoline that only returns, as
 *			a BPF fentry program would, so that the module must
 *			attach otherwise (x86-64, 6.6+)
 *
 * The kernel log says whether the kprobe is ftrace-based or a
 * breakpoint, and how many windows were rewritten.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fprobe.h>
#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/version.h>
#include "arch.h"
#include "compat.h"
#include "window.h"
#include "window.c"

static char *type = "kretprobe";
module_param(type, charp, 0444);
MODULE_PARM_DESC(type, "kretprobe, kprobe, fprobe or direct");
static unsigned int order = 4;
module_param(order, uint, 0444);
MODULE_PARM_DESC(order, "window order written over every call");

static atomic_long_t nr_set = ATOMIC_LONG_INIT(0);

/* The window of @order around the fault of @vmf. */
static void window_of(struct vm_fault *vmf, u64 *start, u64 *end)
{
	struct vm_area_struct *vma = vmf->vma;
	struct afa_fault_pos pos = {
		.pgoff = vmf->pgoff,
		.pte_off = pte_index(vmf->address),
		.vma_off = vmf->pgoff - vma->vm_pgoff,
		.vma_pages = vma_pages(vma),
		.ptrs_per_pte = PTRS_PER_PTE,
	};

	afa_window(&pos, order, start, end);
}

static void rewrite(struct pt_regs *regs)
{
	u64 start, end;

	window_of((struct vm_fault *)regs_get_kernel_argument(regs, 0), &start, &end);
	if (afa_arch_set_window(regs, start, end))
		atomic_long_inc(&nr_set);
}

static int kret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	rewrite(regs);
	return 0;
}

static int kret_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	return 0;
}

static int kp_pre(struct kprobe *p, struct pt_regs *regs)
{
	rewrite(regs);
	return 0;
}

static struct kretprobe krp = {
	.kp.symbol_name	= "filemap_map_pages",
	.entry_handler	= kret_entry,
	.handler	= kret_return,
	.maxactive	= 64,
};

static struct kprobe kp = {
	.symbol_name	= "filemap_map_pages",
	.pre_handler	= kp_pre,
};

/*
 * 6.5 to 6.13: the entry handler gets pt_regs.  From 6.14 it gets
 * ftrace_regs, and the module uses a kprobe there (module/compat.h):
 * type=fprobe then does not register.
 */
#if defined(CONFIG_FPROBE) && LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 14, 0)
#define AFA_TEST_FPROBE 1
static int fp_entry(struct fprobe *fp, unsigned long entry_ip,
		    unsigned long ret_ip, struct pt_regs *regs, void *data)
{
	rewrite(regs);
	return 0;
}
#endif

#ifdef AFA_TEST_FPROBE

static struct fprobe fp = {
	.entry_handler	= fp_entry,
};

static int fp_register(void)
{
	unsigned long ip = (unsigned long)filemap_map_pages;

	return register_fprobe_ips(&fp, &ip, 1);
}
#else
static int fp_register(void)
{
	return -EOPNOTSUPP;
}
#endif

#if AFA_HAVE_DIRECT
#define AFA_TEST_DIRECT 1
#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/nospec-branch.h>
#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT ""
#endif

void probetest_tramp(void);

asm(
"	.pushsection	.text, \"ax\", @progbits\n"
"	.type		probetest_tramp, @function\n"
"	.globl		probetest_tramp\n"
"probetest_tramp:\n"
	ASM_ENDBR
	CALL_DEPTH_ACCOUNT
	ASM_RET
"	.size		probetest_tramp, .-probetest_tramp\n"
"	.popsection\n"
);

static struct ftrace_ops direct_ops;

static int direct_register(void)
{
	int err = ftrace_set_filter_ip(&direct_ops,
				       (unsigned long)filemap_map_pages, 0, 0);

	return err ?: afa_register_ftrace_direct(&direct_ops,
						 (unsigned long)probetest_tramp);
}
#else
static int direct_register(void)
{
	return -EOPNOTSUPP;
}
#endif

static int __init probetest_init(void)
{
	int err;

	if (!strcmp(type, "kretprobe")) {
		err = register_kretprobe(&krp);
		if (!err)
			pr_info("kretprobe at %px, %s\n", krp.kp.addr,
				kprobe_ftrace(&krp.kp) ? "ftrace-based" : "breakpoint");
	} else if (!strcmp(type, "kprobe")) {
		err = register_kprobe(&kp);
		if (!err)
			pr_info("kprobe at %px, %s\n", kp.addr,
				kprobe_ftrace(&kp) ? "ftrace-based" : "breakpoint");
	} else if (!strcmp(type, "fprobe")) {
		err = fp_register();
		if (!err)
			pr_info("fprobe on filemap_map_pages, ftrace-based\n");
	} else if (!strcmp(type, "direct")) {
		err = direct_register();
		if (!err)
			pr_info("direct call on filemap_map_pages held\n");
	} else {
		err = -EINVAL;
	}
	if (err)
		pr_info("type=%s: cannot register: error %d\n", type, err);
	else
		pr_info("type=%s order=%u PTRS_PER_PTE=%lu PAGE_SIZE=%lu\n", type,
			order, (unsigned long)PTRS_PER_PTE, PAGE_SIZE);
	return err;
}

static void __exit probetest_exit(void)
{
	if (!strcmp(type, "kretprobe"))
		unregister_kretprobe(&krp);
	else if (!strcmp(type, "kprobe"))
		unregister_kprobe(&kp);
#ifdef AFA_TEST_FPROBE
	else if (!strcmp(type, "fprobe"))
		unregister_fprobe(&fp);
#endif
#ifdef AFA_TEST_DIRECT
	else if (!strcmp(type, "direct"))
		afa_unregister_ftrace_direct(&direct_ops,
					     (unsigned long)probetest_tramp);
#endif
	pr_info("type=%s order=%u: %ld windows rewritten\n", type, order,
		atomic_long_read(&nr_set));
}

module_init(probetest_init);
module_exit(probetest_exit);
MODULE_DESCRIPTION("autofaultaround test: the actuator under each probe type");
MODULE_LICENSE("GPL");

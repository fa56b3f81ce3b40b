// SPDX-License-Identifier: GPL-2.0
/*
 * The ->fault hook: filemap:mm_filemap_fault fires in filemap_fault(),
 * the ->fault of ext4, xfs and most filesystems, when a read fault was
 * not served by fault-around (a miss), and also for faults that never
 * tried it.  Its struct is not exported: for_each_kernel_tracepoint()
 * finds it by name.  A kernel without it (6.1) gets a kprobe on
 * filemap_fault() instead, and init says so.  tmpfs misses come from a
 * kprobe on shmem_fault(), which fires no filemap tracepoint.
 *
 * The count of ->fault calls also tells that fault-around was turned off
 * (kernel_window.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/tracepoint.h>
#include "afa.h"
#include "compat.h"

#if AFA_CHECK_TP_FILEMAP_FAULT
#include <trace/events/filemap.h>
/*
 * The tracepoint is found by name and its probe registered untyped
 * (tracepoint_probe_register()): a kernel that changes its arguments
 * must fail to build here, not call afa_tp_filemap_fault() with others.
 */
static_assert(__same_type(&trace_mm_filemap_fault,
			  void (*)(struct address_space *, pgoff_t)));
#endif

/*
 * Preemption off here too: a tracepoint's probes run so up to 6.12, but
 * newer PREEMPT_RT kernels run them under SRCU with migration off only,
 * where the fault handler of another task on this CPU could preempt
 * afa_probe_fault() between its look at this CPU's record and its count.
 */
static void afa_tp_filemap_fault(void *data, struct address_space *mapping,
				 pgoff_t index)
{
	preempt_disable_notrace();
	afa_probe_fault(mapping, index);
	preempt_enable_notrace();
}

/* A ->fault(vmf) function's entry: the same call, from a kprobe. */
static int afa_kp_fault(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_fault *vmf;

	vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	if (vmf->vma->vm_file)
		afa_probe_fault(vmf->vma->vm_file->f_mapping, vmf->pgoff);
	return 0;
}

/* Stand-in for mm_filemap_fault. */
static struct kprobe afa_filemap_fault_kp = {
	.symbol_name	= "filemap_fault",
	.pre_handler	= afa_kp_fault,
};

static struct kprobe afa_shmem_fault_kp = {
	.symbol_name	= "shmem_fault",
	.pre_handler	= afa_kp_fault,
};

static struct tracepoint *afa_filemap_fault_tp;
static bool afa_filemap_fault_kp_on;
static bool afa_shmem_fault_kp_on;

static void afa_tp_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "mm_filemap_fault"))
		afa_filemap_fault_tp = tp;
}

/**
 * afa_kprobe_register() - register a kprobe, again if it was before
 * @kp:	a kprobe by name, with a pre_handler
 *
 * register_kprobe() fills in the kprobe (its address among the rest) and
 * refuses one with both a name and an address: one attached again
 * after enabled=0 starts afresh from its name and handler.
 *
 * Return: register_kprobe()'s.
 */
int afa_kprobe_register(struct kprobe *kp)
{
	*kp = (struct kprobe){
		.symbol_name	= kp->symbol_name,
		.pre_handler	= kp->pre_handler,
	};
	return register_kprobe(kp);
}

/**
 * afa_tracepoints_init() - attach the ->fault hooks
 *
 * A missing hook is logged, never fatal: the module then counts no
 * misses (of tmpfs, or of any file) and, without the filemap one, cannot
 * tell that fault-around was turned off.  Attached again after
 * enabled=0, the hooks say so once a load.
 */
void afa_tracepoints_init(void)
{
	bool have_tp;
	int err;

	err = afa_kprobe_register(&afa_shmem_fault_kp);
	afa_shmem_fault_kp_on = !err;
	if (err)
		pr_info_once("no kprobe on shmem_fault (error %d): tmpfs misses count as hits\n",
			     err);
	for_each_kernel_tracepoint(afa_tp_find, NULL);
	have_tp = afa_filemap_fault_tp;
	if (have_tp) {
		err = tracepoint_probe_register(afa_filemap_fault_tp,
						afa_tp_filemap_fault, NULL);
		if (!err)
			return;
		pr_warn_once("cannot attach to tracepoint mm_filemap_fault (error %d)\n",
			     err);
		afa_filemap_fault_tp = NULL;
	}
	err = afa_kprobe_register(&afa_filemap_fault_kp);
	afa_filemap_fault_kp_on = !err;
	if (have_tp && !err)
		pr_info_once("->fault calls are counted by a kprobe on filemap_fault instead of the tracepoint\n");
	else if (have_tp)
		pr_warn_once("no kprobe on filemap_fault either (error %d): misses are not counted\n",
			     err);
	else if (!err)
		pr_info_once("no tracepoint mm_filemap_fault on this kernel: ->fault calls are counted by a kprobe on filemap_fault instead\n");
	else
		pr_info_once("no tracepoint mm_filemap_fault on this kernel, and no kprobe on filemap_fault (error %d): misses are not counted\n",
			     err);
}

void afa_tracepoints_exit(void)
{
	if (afa_filemap_fault_tp)
		tracepoint_probe_unregister(afa_filemap_fault_tp,
					    afa_tp_filemap_fault, NULL);
	if (afa_filemap_fault_kp_on)
		unregister_kprobe(&afa_filemap_fault_kp);
	if (afa_shmem_fault_kp_on)
		unregister_kprobe(&afa_shmem_fault_kp);
	afa_filemap_fault_tp = NULL;
	afa_filemap_fault_kp_on = false;
	afa_shmem_fault_kp_on = false;
	tracepoint_synchronize_unregister();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The probe on filemap_map_pages(), the ->map_pages of ext4, xfs, tmpfs
 * and most filesystems, called by do_fault_around() with the window to
 * map.  The entry handler sees the VMA and the window; the return handler
 * sees whether the faulting page was mapped (VM_FAULT_NOPAGE, a hit) or
 * the fault goes on to ->fault (a miss).
 *
 * Fault path: per-CPU counters only, no locks, no allocation.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/shmem_fs.h>
#include "afa.h"
#include "arch.h"
#include "stream.h"
#include "topology.h"
#include "window.h"

/* What the entry handler hands to the return handler. */
struct afa_call {
	struct vm_fault *vmf;	/* the fault, on the faulting task's stack */
	pgoff_t start;		/* first file page of the window */
	pgoff_t end;		/* last file page of the window */
	u32 gen;		/* generation of the stream's slot */
	u16 slot;		/* stream, or AFA_NO_STREAM */
	u8 class;		/* enum afa_class of the VMA */
};

/*
 * The actuator: the window of the stream's order (or its class's, for a
 * VMA not in the table yet), computed as do_fault_around() does, written
 * over the arguments.  Leaves the kernel's window when disabled, for a
 * class not enabled, or where the architecture cannot rewrite.
 */
static void afa_actuate(struct afa_call *call, struct pt_regs *regs, u8 order)
{
	struct vm_fault *vmf = call->vmf;
	struct vm_area_struct *vma = vmf->vma;
	struct afa_fault_pos pos = {
		.pgoff = vmf->pgoff,
		.pte_off = pte_index(vmf->address),
		.vma_off = vmf->pgoff - vma->vm_pgoff,
		.vma_pages = vma_pages(vma),
		.ptrs_per_pte = PTRS_PER_PTE,
	};
	u64 start, end;

	if (!READ_ONCE(afa_enabled) ||
	    !(READ_ONCE(afa_classes) & BIT(call->class)))
		return;
	afa_window(&pos, order, &start, &end);
	if (afa_arch_set_window(regs, start, end)) {
		call->start = start;
		call->end = end;
	}
}

static int afa_map_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct afa_call *call = (struct afa_call *)ri->data;
	struct vm_fault *vmf;
	struct vm_area_struct *vma;
	u8 order;

	vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	vma = vmf->vma;
	call->vmf = vmf;
	call->start = regs_get_kernel_argument(regs, 1);
	call->end = regs_get_kernel_argument(regs, 2);
	if (call->end - call->start + 1 > this_cpu_read(afa_count.max_window))
		this_cpu_write(afa_count.max_window,
			       call->end - call->start + 1);
	call->class = afa_classify(vma->vm_flags,
				   shmem_mapping(vma->vm_file->f_mapping));
	call->slot = afa_stream_lookup(vma, &order, &call->gen);
	if (call->slot == AFA_NO_STREAM) {
		afa_stream_note(vma, call->class);
		order = afa_class_order_get(afa_this_domain(), call->class);
	}
	afa_actuate(call, regs, order);
	return 0;
}

/* One fault in afa_sample_every is sampled, counted down per CPU. */
static bool afa_sample_due(void)
{
	u32 every = READ_ONCE(afa_sample_every);
	u32 left = this_cpu_read(afa_count.sample_countdown);

	if (left && left < every) {
		this_cpu_write(afa_count.sample_countdown, left - 1);
		return false;
	}
	this_cpu_write(afa_count.sample_countdown, every - 1);
	return true;
}

static int afa_map_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct afa_call *call = (struct afa_call *)ri->data;
	struct vm_fault *vmf = call->vmf;
	unsigned int nr_pages = call->end - call->start + 1;
	vm_fault_t ret = regs_return_value(regs);

	bool hit = ret & VM_FAULT_NOPAGE;

	this_cpu_inc(afa_count.class[call->class].faults);
	this_cpu_add(afa_count.class[call->class].window_pages, nr_pages);
	if (hit)
		this_cpu_inc(afa_count.class[call->class].hits);
	if (call->slot != AFA_NO_STREAM)
		afa_stream_count_fault(call->slot, hit);
	if (afa_tracepoint_saw_map(vmf->vma->vm_file->f_mapping, call->start))
		this_cpu_inc(afa_count.class[call->class].nonempty);
	if (nr_pages > 1 && afa_sample_due())
		afa_access_sample(vmf, call->start, nr_pages, call->class,
				  call->slot, call->gen);
	return 0;
}

static struct kretprobe afa_map_probe = {
	.kp.symbol_name	= "filemap_map_pages",
	.entry_handler	= afa_map_entry,
	.handler	= afa_map_return,
	.data_size	= sizeof(struct afa_call),
};

/**
 * afa_probe_init() - attach to filemap_map_pages()
 *
 * Return: 0, or the error of register_kretprobe(), which is logged.
 */
int afa_probe_init(void)
{
	int err;

	/* map_pages runs under RCU and does not sleep: one call per CPU. */
	afa_map_probe.maxactive = 4 * num_possible_cpus();
	err = register_kretprobe(&afa_map_probe);
	if (err)
		pr_err("cannot probe filemap_map_pages: error %d\n", err);
	return err;
}

void afa_probe_exit(void)
{
	unregister_kretprobe(&afa_map_probe);
}

/**
 * afa_probe_nmissed() - calls the probe could not follow
 *
 * Return: the kretprobe's missed count (no free instance, or recursion).
 */
unsigned long afa_probe_nmissed(void)
{
	return afa_map_probe.nmissed + afa_map_probe.kp.nmissed;
}

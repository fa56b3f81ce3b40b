// SPDX-License-Identifier: GPL-2.0
/*
 * The probe on filemap_map_pages(), the ->map_pages of ext4, xfs, tmpfs
 * and most filesystems, called by do_fault_around() with the window to
 * map.  It acts at the entry only: classify the VMA, find its stream, set
 * the window, count the call, and leave a record of the call on this CPU.
 * What happens next is learned from hooks that run after it on the same
 * CPU and match the record:
 *
 *  - mm_filemap_map_pages (tracepoints.c) fires inside the call once the
 *    window is mapped, when it mapped a page: the call was nonempty, and a
 *    window due for sampling is sampled there;
 *  - a ->fault hook (mm_filemap_fault or its kprobe stand-in, and the
 *    kprobe on shmem_fault here) fires when the faulting page was not
 *    mapped: a miss.  Hits are the calls that were not misses.
 *
 * Where fprobe is not usable (compat.h) the probe is a kretprobe whose
 * entry handler asks for the return probe only for a sampled call.
 *
 * Fault path: per-CPU counters only, no locks, no allocation.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fprobe.h>
#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/shmem_fs.h>
#include "afa.h"
#include "arch.h"
#include "compat.h"
#include "stream.h"
#include "topology.h"
#include "window.h"

/* Changes whenever the task leaves its CPU, hence before any migration. */
static unsigned long afa_nr_switches(struct task_struct *t)
{
	return t->nvcsw + t->nivcsw;
}

/*
 * The actuator: the window of the stream's order (or its class's, for a
 * VMA not in the table yet), computed as do_fault_around() does, written
 * over the arguments.  Leaves the kernel's window when disabled, for a
 * class not enabled, or where the architecture cannot rewrite.
 */
static void afa_actuate(struct afa_last_map *last, struct vm_fault *vmf,
			struct pt_regs *regs, u8 order)
{
	struct vm_area_struct *vma = vmf->vma;
	u64 start, end;

	if (!READ_ONCE(afa_enabled) ||
	    !(READ_ONCE(afa_classes) & BIT(last->class)))
		return;
	afa_window(&(struct afa_fault_pos){
			.pgoff = vmf->pgoff,
			.pte_off = pte_index(vmf->address),
			.vma_off = vmf->pgoff - vma->vm_pgoff,
			.vma_pages = vma_pages(vma),
			.ptrs_per_pte = PTRS_PER_PTE,
		   }, order, &start, &end);
	if (afa_arch_set_window(regs, start, end)) {
		last->start = start;
		last->nr_pages = end - start + 1;
	}
}

/* One window in afa_sample_every is sampled, counted down per CPU. */
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

/*
 * What the last call on this CPU found for its VMA.  The class depends on
 * the VMA's flags and file, the stream and the orders on the stream table
 * and the law, which the worker changes only before it starts a period:
 * a call on the same, unchanged VMA in the same period finds the same.
 * Sequential faults of one mapping skip classify, lookup and order read.
 */
struct afa_vma_state {
	struct vm_area_struct *vma;	/* identity, with the four below */
	struct mm_struct *mm;
	struct file *file;
	unsigned long vm_start;
	unsigned long vm_flags;
	unsigned long period;		/* afa_period_seq when found */
	u32 gen;			/* generation of the stream's slot */
	u16 slot;			/* stream, or AFA_NO_STREAM */
	u8 class;			/* enum afa_class */
	u8 order;			/* window order of stream or class */
};

static DEFINE_PER_CPU(struct afa_vma_state, afa_vma_state);

static bool afa_vma_state_valid(const struct afa_vma_state *st,
				struct vm_area_struct *vma,
				unsigned long period)
{
	return st->vma == vma && st->period == period &&
	       st->mm == vma->vm_mm && st->file == vma->vm_file &&
	       st->vm_start == vma->vm_start && st->vm_flags == vma->vm_flags;
}

/* Class, stream and order of @vma, found afresh. */
static void afa_vma_state_find(struct afa_vma_state *st,
			       struct vm_area_struct *vma,
			       unsigned long period)
{
	*st = (struct afa_vma_state){
		.vma = vma,
		.mm = vma->vm_mm,
		.file = vma->vm_file,
		.vm_start = vma->vm_start,
		.vm_flags = vma->vm_flags,
		.period = period,
		.class = afa_classify(vma->vm_flags,
				      shmem_mapping(vma->vm_file->f_mapping)),
	};
	st->slot = afa_stream_find(vma, st->class, &st->order, &st->gen);
	if (st->slot == AFA_NO_STREAM)
		st->order = afa_class_order_get(afa_this_domain(), st->class);
}

/* Class, stream and window of the call, into this CPU's record. */
static void afa_map_window(struct afa_last_map *last, struct vm_fault *vmf,
			   struct pt_regs *regs)
{
	struct afa_vma_state *st = this_cpu_ptr(&afa_vma_state);
	/* Pairs with the worker's release: the table is that period's. */
	unsigned long period = smp_load_acquire(&afa_period_seq);

	if (!afa_vma_state_valid(st, vmf->vma, period))
		afa_vma_state_find(st, vmf->vma, period);
	last->class = st->class;
	last->slot = st->slot;
	last->gen = st->gen;
	afa_actuate(last, vmf, regs, st->order);
}

/*
 * The entry half, all of the probe but the sample: set the window, count
 * the call and record it for the hooks that follow.  The fault and the
 * task's switch count matter only to a sample.
 */
static void afa_map_enter(struct pt_regs *regs)
{
	struct afa_last_map *last = this_cpu_ptr(&afa_count.last);
	unsigned int class, nr_pages;
	struct vm_fault *vmf;

	vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	last->task = current;
	last->mapping = vmf->vma->vm_file->f_mapping;
	last->pgoff = vmf->pgoff;
	last->start = regs_get_kernel_argument(regs, 1);
	nr_pages = regs_get_kernel_argument(regs, 2) - last->start + 1;
	if (nr_pages > this_cpu_read(afa_count.max_window))
		this_cpu_write(afa_count.max_window, nr_pages);
	last->nr_pages = nr_pages;
	afa_map_window(last, vmf, regs);

	class = last->class;
	nr_pages = last->nr_pages;
	this_cpu_inc(afa_count.class[class].faults);
	this_cpu_add(afa_count.class[class].window_pages, nr_pages);
	if (last->slot != AFA_NO_STREAM)
		afa_stream_count_fault(last->slot);
	last->sample = nr_pages > 1 && afa_sample_due();
	if (last->sample) {
		last->vmf = vmf;
		last->nr_switches = afa_nr_switches(current);
	}
}

/**
 * afa_probe_mapped() - a map_pages call on this CPU mapped its window
 * @mapping:	the file, from mm_filemap_map_pages
 * @start:	the first page of the window
 *
 * Called by the tracepoint inside filemap_map_pages(), after the PTEs are
 * installed and their lock dropped.  Counts the call nonempty, and takes
 * the sample it is due.  The record is this very call only while its task
 * has not left the CPU since the entry; a sample needs that, since it
 * reads the fault on the task's stack.
 */
void afa_probe_mapped(struct address_space *mapping, pgoff_t start)
{
	struct afa_last_map *last = this_cpu_ptr(&afa_count.last);

	if (last->task != current || last->mapping != mapping ||
	    last->start != start)
		return;
	this_cpu_inc(afa_count.class[last->class].nonempty);
	if (!last->sample || last->nr_switches != afa_nr_switches(current))
		return;
	last->sample = false;
	afa_access_sample(last->vmf, last->start, last->nr_pages, last->class,
			  last->slot, last->gen);
}

/**
 * afa_probe_fault() - a ->fault call on this CPU: the miss of a map_pages
 * @mapping:	the file
 * @pgoff:	the faulting page
 *
 * A read fault that map_pages did not serve goes on to ->fault on the
 * same task.  It is this CPU's last map_pages call's miss when the task,
 * file and page match; the record is consumed.  Anything else counts as
 * unmatched: ->fault without fault-around (write faults, fault-around
 * off), and misses whose task moved to another CPU in between, whose
 * calls then count as hits.
 */
void afa_probe_fault(struct address_space *mapping, pgoff_t pgoff)
{
	struct afa_last_map *last = this_cpu_ptr(&afa_count.last);

	if (last->task != current || last->mapping != mapping ||
	    last->pgoff != pgoff) {
		this_cpu_inc(afa_count.unmatched_faults);
		return;
	}
	last->task = NULL;
	this_cpu_inc(afa_count.class[last->class].misses);
	if (last->slot != AFA_NO_STREAM)
		afa_stream_count_miss(last->slot);
}

/* tmpfs misses: shmem_fault() fires no filemap tracepoint. */
static int afa_kp_shmem_fault(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_fault *vmf;

	vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	afa_probe_fault(vmf->vma->vm_file->f_mapping, vmf->pgoff);
	return 0;
}

static struct kprobe afa_shmem_fault_kp = {
	.symbol_name	= "shmem_fault",
	.pre_handler	= afa_kp_shmem_fault,
};

static bool afa_shmem_fault_hooked;

#if AFA_HAVE_FPROBE

static int afa_map_entry(struct fprobe *fp, unsigned long entry_ip,
			 unsigned long ret_ip, struct pt_regs *regs,
			 void *entry_data)
{
	afa_map_enter(regs);
	return 0;
}

/* Entry only: no return hook, no per-call instance. */
static struct fprobe afa_map_probe = {
	.entry_handler	= afa_map_entry,
};

/*
 * By address: filemap_map_pages() is exported.  A name filter would match
 * the name against every traceable function, some 0.2 s a load under
 * QEMU, ten times the rest of the module's start-up.
 */
static int afa_map_register(void)
{
	unsigned long ip = (unsigned long)filemap_map_pages;

	return register_fprobe_ips(&afa_map_probe, &ip, 1);
}

static void afa_map_unregister(void)
{
	unregister_fprobe(&afa_map_probe);
}

static unsigned long afa_map_nmissed(void)
{
	return afa_map_probe.nmissed;
}

#else /* !AFA_HAVE_FPROBE */

/* What a sampled call's entry hands to its return. */
struct afa_call {
	struct vm_fault *vmf;	/* the fault, on the faulting task's stack */
	pgoff_t start;		/* first file page of the window */
	u32 gen;		/* generation of the stream's slot */
	u16 slot;		/* stream, or AFA_NO_STREAM */
	u16 nr_pages;		/* window length in pages */
	u8 class;		/* enum afa_class of the VMA */
};

/* Return: 0 to sample at the return, 1 (no return probe) otherwise. */
static int afa_map_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct afa_last_map *last = this_cpu_ptr(&afa_count.last);
	struct afa_call *call = (struct afa_call *)ri->data;

	afa_map_enter(regs);
	if (!last->sample)
		return 1;
	last->sample = false;
	*call = (struct afa_call){
		.vmf = last->vmf,
		.start = last->start,
		.gen = last->gen,
		.slot = last->slot,
		.nr_pages = last->nr_pages,
		.class = last->class,
	};
	return 0;
}

static int afa_map_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct afa_call *call = (struct afa_call *)ri->data;

	afa_access_sample(call->vmf, call->start, call->nr_pages, call->class,
			  call->slot, call->gen);
	return 0;
}

static struct kretprobe afa_map_probe = {
	.kp.symbol_name	= "filemap_map_pages",
	.entry_handler	= afa_map_entry,
	.handler	= afa_map_return,
	.data_size	= sizeof(struct afa_call),
};

static int afa_map_register(void)
{
	/* map_pages runs under RCU and does not sleep: one call per CPU. */
	afa_map_probe.maxactive = 4 * num_possible_cpus();
	return register_kretprobe(&afa_map_probe);
}

static void afa_map_unregister(void)
{
	unregister_kretprobe(&afa_map_probe);
}

static unsigned long afa_map_nmissed(void)
{
	return afa_map_probe.nmissed + afa_map_probe.kp.nmissed;
}

#endif /* AFA_HAVE_FPROBE */

/**
 * afa_probe_init() - attach to filemap_map_pages() and shmem_fault()
 *
 * Without the shmem_fault kprobe tmpfs misses go unseen: logged, not
 * fatal.
 *
 * Return: 0, or the error of the filemap_map_pages probe, which is
 * logged.
 */
int afa_probe_init(void)
{
	int err;

	err = register_kprobe(&afa_shmem_fault_kp);
	afa_shmem_fault_hooked = !err;
	if (err)
		pr_info("no kprobe on shmem_fault (error %d): tmpfs misses count as hits\n",
			err);
	err = afa_map_register();
	if (err) {
		pr_err("cannot probe filemap_map_pages: error %d\n", err);
		if (afa_shmem_fault_hooked)
			unregister_kprobe(&afa_shmem_fault_kp);
	}
	return err;
}

void afa_probe_exit(void)
{
	afa_map_unregister();
	if (afa_shmem_fault_hooked)
		unregister_kprobe(&afa_shmem_fault_kp);
}

/**
 * afa_probe_nmissed() - calls the probe could not follow
 *
 * Return: the probe's missed count (recursion, or for a kretprobe no free
 * instance).
 */
unsigned long afa_probe_nmissed(void)
{
	return afa_map_nmissed();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Attach to the kernel's own tracepoints.  Their structs are not
 * exported: for_each_kernel_tracepoint() finds them by name.  A kernel
 * without one (6.1 has no filemap tracepoints) still runs the module:
 * init logs once which signal is missing and what stands in for it.  The
 * ->fault count, which tells that fault-around was turned off, then
 * comes from a kprobe on filemap_fault() instead.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/tracepoint.h>
#include "afa.h"

static void afa_tp_map_pages(void *data, struct address_space *mapping,
			     pgoff_t start, pgoff_t last)
{
	this_cpu_write(afa_count.tp_mapping, mapping);
	this_cpu_write(afa_count.tp_start, start);
}

static void afa_tp_filemap_fault(void *data, struct address_space *mapping,
				 pgoff_t index)
{
	this_cpu_inc(afa_count.filemap_faults);
}

static void afa_tp_user_fault(void *data, unsigned long address,
			      struct pt_regs *regs, unsigned long error_code)
{
	this_cpu_inc(afa_count.user_faults);
}

/* Stand-in for mm_filemap_fault: the same count, from a kprobe. */
static int afa_kp_filemap_fault(struct kprobe *kp, struct pt_regs *regs)
{
	this_cpu_inc(afa_count.filemap_faults);
	return 0;
}

static struct kprobe afa_filemap_fault_kp = {
	.symbol_name	= "filemap_fault",
	.pre_handler	= afa_kp_filemap_fault,
};

struct afa_tp {
	const char *name;	/* tracepoint name, without its system */
	void *probe;		/* our handler */
	const char *without;	/* what the figures lose without it */
	struct kprobe *stand_in; /* registered when the tracepoint is missing */
	struct tracepoint *tp;	/* found, and registered, when non-NULL */
};

static struct afa_tp afa_tps[] = {
	{ "mm_filemap_map_pages", afa_tp_map_pages,
	  "the nonempty figure (windows that mapped a page) stays 0" },
	{ "mm_filemap_fault", afa_tp_filemap_fault,
	  "->fault calls are counted by a kprobe on filemap_fault instead",
	  &afa_filemap_fault_kp },
	{ "page_fault_user", afa_tp_user_fault,
	  "all-user-fault counts are not available" },
};

/* Without the tracepoint, try its kprobe stand-in, and say which. */
static void afa_tp_missing(struct afa_tp *t)
{
	int err;

	if (!t->stand_in) {
		pr_info("no tracepoint %s on this kernel: %s\n", t->name,
			t->without);
		return;
	}
	err = register_kprobe(t->stand_in);
	if (!err) {
		pr_info("no tracepoint %s on this kernel: %s\n", t->name,
			t->without);
		return;
	}
	pr_info("no tracepoint %s on this kernel, and no kprobe on %s (error %d): its figure stays 0\n",
		t->name, t->stand_in->symbol_name, err);
	t->stand_in = NULL;
}

static void afa_tp_find(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(afa_tps); i++)
		if (!strcmp(tp->name, afa_tps[i].name))
			afa_tps[i].tp = tp;
}

/**
 * afa_tracepoints_init() - attach to every tracepoint the kernel has
 *
 * Missing or failing tracepoints are logged, never fatal: the probe on
 * filemap_map_pages carries the signals the controller needs.
 */
void afa_tracepoints_init(void)
{
	struct afa_tp *t;
	int err;

	for_each_kernel_tracepoint(afa_tp_find, NULL);
	for (t = afa_tps; t < afa_tps + ARRAY_SIZE(afa_tps); t++) {
		if (!t->tp) {
			afa_tp_missing(t);
			continue;
		}
		t->stand_in = NULL;
		err = tracepoint_probe_register(t->tp, t->probe, NULL);
		if (err) {
			pr_warn("cannot attach to tracepoint %s (error %d): %s\n",
				t->name, err, t->without);
			t->tp = NULL;
			continue;
		}
		pr_debug("attached to tracepoint %s\n", t->name);
	}
}

void afa_tracepoints_exit(void)
{
	struct afa_tp *t;

	for (t = afa_tps; t < afa_tps + ARRAY_SIZE(afa_tps); t++) {
		if (t->tp)
			tracepoint_probe_unregister(t->tp, t->probe, NULL);
		if (t->stand_in)
			unregister_kprobe(t->stand_in);
		t->tp = NULL;
	}
	tracepoint_synchronize_unregister();
}

/**
 * afa_tracepoint_saw_map() - did this CPU's last map_pages map anything?
 * @mapping:	the file of the call that is returning
 * @start:	the first page of its window
 *
 * mm_filemap_map_pages fires inside filemap_map_pages() only when at least
 * one folio was mapped.  Consumes the record, so each call counts once.
 *
 * Return: true when the tracepoint fired for this call on this CPU.
 */
bool afa_tracepoint_saw_map(struct address_space *mapping, pgoff_t start)
{
	if (this_cpu_read(afa_count.tp_mapping) != mapping ||
	    this_cpu_read(afa_count.tp_start) != start)
		return false;
	this_cpu_write(afa_count.tp_mapping, NULL);
	return true;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Attach to the kernel's own tracepoints.  Their structs are not
 * exported: for_each_kernel_tracepoint() finds them by name.  A kernel
 * without one (6.1 has no filemap tracepoints) still runs the module:
 * init logs once which signal is missing and what stands in for it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
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

struct afa_tp {
	const char *name;	/* tracepoint name, without its system */
	void *probe;		/* our handler */
	const char *without;	/* what the figures lose without it */
	struct tracepoint *tp;	/* found, and registered, when non-NULL */
};

static struct afa_tp afa_tps[] = {
	{ "mm_filemap_map_pages", afa_tp_map_pages,
	  "the nonempty figure (windows that mapped a page) stays 0" },
	{ "mm_filemap_fault", afa_tp_filemap_fault,
	  "->fault calls are not counted; misses come from map_pages only" },
	{ "page_fault_user", afa_tp_user_fault,
	  "all-user-fault counts are not available" },
};

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
			pr_info("no tracepoint %s on this kernel: %s\n",
				t->name, t->without);
			continue;
		}
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

// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's own window, fault_around_bytes, as the module sees it.
 * The variable is not exported, and its debugfs file cannot be read from
 * the kernel (kernel_read() needs ->read_iter, debugfs attributes have
 * ->read), so the module infers it from what it observes:
 *
 * - the largest window do_fault_around() asked for in a period is the
 *   kernel's window, unless every fault of the period was clamped by its
 *   VMA or page table: shown in the stats;
 * - MADV_RANDOM's ceiling (afa_class_params()) is the kernel's order as
 *   last proven by a window the contract check looked at (contract.c:
 *   the next order's window would have been larger), raised at once by
 *   any larger window asked for, never lowered by a period of clamped
 *   windows or while fault-around looks off: the rand states are pulled
 *   under it when it comes down (period.c);
 * - with fault_around_bytes at 4096 the administrator has turned
 *   fault-around off: do_fault_around() is not called, the probe sees no
 *   map_pages call while ->fault keeps being called (tracepoint
 *   filemap:mm_filemap_fault, ext4 and xfs).  The module never writes the
 *   knob, cannot act then, and says so.  Write faults reach ->fault too,
 *   so a program that alternates write faults and read faults can make
 *   it look off and on again period after period: the "off" line is
 *   logged at most once a minute (AFA_OFF_LOG_INTERVAL), and the "on
 *   again" line only after a logged "off", so that any user's faults get
 *   two lines a minute at most; the stats show the state of the moment.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/ratelimit.h>
#include <linux/sizes.h>
#include "afa.h"

/*
 * ->fault calls in a period without any map_pages call before the module
 * calls fault-around off: fewer could be faults on mappings without
 * ->map_pages.
 */
#define AFA_OFF_MIN_FAULTS	32

/* At most one "looks off" line in this long, with its "on again". */
#define AFA_OFF_LOG_INTERVAL	(60 * HZ)

/* Period worker only. */
static bool afa_fa_off;
static bool afa_fa_off_logged;		/* its "looks off" line was logged */
static DEFINE_RATELIMIT_STATE(afa_fa_off_ratelimit, AFA_OFF_LOG_INTERVAL, 1);
static unsigned long afa_fa_bytes;
/* MADV_RANDOM's ceiling: the kernel's order, 64 KiB until known. */
static u8 afa_fa_order = ilog2(SZ_64K >> PAGE_SHIFT);

/*
 * The largest window the kernel asked for in the fold, and the kernel's
 * order a window of the fold proved, plus one (0: none); both restart.
 * A store racing with a reset only loses one fold's value.
 */
static void afa_fold_windows(u32 *max_pages, u8 *order_seen)
{
	struct afa_cpu_count *cc;
	int cpu;

	*max_pages = 0;
	*order_seen = 0;
	for_each_possible_cpu(cpu) {
		cc = per_cpu_ptr(&afa_count, cpu);
		*max_pages = max(*max_pages, READ_ONCE(cc->max_window));
		*order_seen = max(*order_seen, READ_ONCE(cc->kernel_order));
		WRITE_ONCE(cc->max_window, 0);
		WRITE_ONCE(cc->kernel_order, 0);
	}
}

/* The ceiling: as proven, else raised by a larger window asked for. */
static bool afa_kernel_order_update(u32 max_pages, u8 seen)
{
	u8 old = afa_fa_order;

	if (seen)
		afa_fa_order = seen - 1;
	else if (max_pages > BIT(afa_fa_order))
		afa_fa_order = order_base_2(max_pages);
	return afa_fa_order < old;
}

/**
 * afa_kernel_window_check() - infer the kernel's window, log when it is off
 * @map_calls:		map_pages calls in the period, all classes
 * @filemap_faults:	->fault calls in the period (tracepoint)
 *
 * Return: true when MADV_RANDOM's ceiling came down.
 */
bool afa_kernel_window_check(u64 map_calls, u64 filemap_faults)
{
	u32 max_pages;
	bool fell;
	u8 seen;

	afa_fold_windows(&max_pages, &seen);
	fell = afa_kernel_order_update(max_pages, seen);

	if (map_calls) {
		afa_fa_bytes = (unsigned long)max_pages << PAGE_SHIFT;
		if (afa_fa_off_logged)
			pr_info("fault-around is on again (the kernel asked for windows up to %lu bytes)\n",
				afa_fa_bytes);
		afa_fa_off = false;
		afa_fa_off_logged = false;
		return fell;
	}
	if (filemap_faults < AFA_OFF_MIN_FAULTS || afa_fa_off)
		return fell;
	afa_fa_off = true;
	afa_fa_bytes = PAGE_SIZE;
	afa_fa_off_logged = __ratelimit(&afa_fa_off_ratelimit);
	if (afa_fa_off_logged)
		pr_info("fault-around looks off: %llu ->fault calls and no map_pages call in a period (fault_around_bytes at one page, %lu, or kernel.ftrace_enabled 0?); the module only observes until it is on again\n",
			filemap_faults, PAGE_SIZE);
	return fell;
}

/**
 * afa_class_params() - the law's parameters for one class
 * @class:	enum afa_class
 * @p:		the parameters in force
 * @tmp:	room for a copy
 *
 * A program's MADV_RANDOM is a ceiling: the rand class never gets a
 * window larger than the kernel's own (64 KiB until a fold has seen it;
 * kept while fault-around looks off).
 *
 * Return: @p, or @tmp holding @p with max_order lowered.
 */
const struct afa_ctl_params *afa_class_params(unsigned int class,
					      const struct afa_ctl_params *p,
					      struct afa_ctl_params *tmp)
{
	u32 order = afa_fa_order;

	if (class != AFA_CLASS_RAND || order >= p->max_order)
		return p;
	*tmp = *p;
	tmp->max_order = order;
	tmp->min_order = min(tmp->min_order, order);
	return tmp;
}

/**
 * afa_kernel_window_bytes() - the kernel's window as last inferred
 *
 * Return: bytes; PAGE_SIZE when fault-around looks off, 0 before any
 * evidence.
 */
unsigned long afa_kernel_window_bytes(void)
{
	return READ_ONCE(afa_fa_bytes);
}

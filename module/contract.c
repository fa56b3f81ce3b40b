// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel contract the actuator relies on, guarded.  Rewriting
 * filemap_map_pages(vmf, start_pgoff, end_pgoff)'s window is safe only
 * while (mm/filemap.c and mm/memory.c, 6.1, 6.12 and 7.3):
 *
 *  - its only caller is do_fault_around(), which computes the window as
 *    window.c does, around vmf->pgoff, inside the VMA and one PTE table;
 *  - it derives the PTE pointer linearly from start_pgoff and never maps
 *    past end_pgoff, and keys its PMD path off vmf->address.
 *
 * So: the actuator acts only on kernel releases whose contract was read
 * and tested (the list below); a sample of the calls (probe.c,
 * afa_contract_due()) checks that the kernel's own window is one
 * do_fault_around() can give, and every window written is checked by
 * afa_window_sane() first.  One mismatch in a fold stops all
 * rewriting until the module is reloaded, with one log line: the module
 * goes on observing.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>
#include <linux/utsname.h>
#include <linux/kernel.h>
#include "afa.h"
#include "window.h"

/*
 * Releases whose filemap_map_pages() and do_fault_around() were read and
 * whose window rewriting passes the VM suite: Debian 12's 6.1, 6.12
 * (Debian 12 and 13), and 7.3 (trixie-backports).  7.3 maps a large
 * folio whole where it lies in the VMA and the PTE table, whatever the
 * window says (from 6.18; the probe measures it, the span), and is
 * otherwise the same contract: do_fault_around() computes the window as
 * in 6.12, filemap_map_pages() clamps its end to the file and takes its
 * PTE pointer linearly from start_pgoff in the fault's PMD.  Releases in
 * between were not read.
 */
static const struct {
	unsigned int major, minor;	/* a release series: 6.1, 6.12 */
} afa_contract_known[] = {
	{ 6, 1 },
	{ 6, 12 },
	{ 7, 3 },
};

/* Set by the test_contract_mismatch and _unknown parameters (params.c). */
bool afa_contract_test;
bool afa_contract_unknown_test;

static bool afa_contract_broken;

/**
 * afa_contract_init() - is the running kernel's contract known?
 *
 * Return: true when the module may rewrite windows on this kernel; logs
 * one line when it may not.
 */
bool afa_contract_init(void)
{
	unsigned int i, major, minor;

	/* The running release is the one built for (vermagic). */
	if (!afa_contract_unknown_test &&
	    sscanf(init_utsname()->release, "%u.%u", &major, &minor) == 2)
		for (i = 0; i < ARRAY_SIZE(afa_contract_known); i++)
			if (major == afa_contract_known[i].major &&
			    minor == afa_contract_known[i].minor)
				return true;
	pr_info("kernel %s: the filemap_map_pages() window contract is known for 6.1, 6.12 and 7.3 only; observing, not setting windows\n",
		init_utsname()->release);
	return false;
}

/**
 * afa_kernel_window_ok() - could do_fault_around() have asked for this?
 * @pos:	the fault
 * @start:	first page of the kernel's window
 * @end:	last page of the kernel's window
 * @order_seen:	set to 1 + the kernel's window order where the window
 *		proves it, else 0
 *
 * Fault path.  The kernel's order is not known exactly (the window may be
 * clamped), so any order that gives the same window will do: its own
 * size rounded up first, the cheap case, then the others.  In the cheap
 * case the window also proves the kernel's order where the next order's
 * window would be larger: no order below its size rounded up can give
 * it, and every order above would have given the larger one.  (A window
 * clamped to the same pages at the next order proves nothing.)
 *
 * Return: true when some order's window is exactly [@start, @end].
 */
bool afa_kernel_window_ok(const struct afa_fault_pos *pos, u64 start,
			  u64 end, u8 *order_seen)
{
	/* Up to a whole page table: 2048 pages with 16 KiB pages (arm64). */
	unsigned int top = max_t(unsigned int, AFA_ORDER_MAX,
				 ilog2(pos->ptrs_per_pte));
	unsigned int order, guess;
	u64 s, e;

	*order_seen = 0;
	if (unlikely(READ_ONCE(afa_contract_test)) || start > end)
		return false;
	guess = order_base_2(end - start + 1);
	afa_window(pos, guess, &s, &e);
	if (s == start && e == end) {
		afa_window(pos, guess + 1, &s, &e);
		if (s != start || e != end)
			*order_seen = guess + 1;
		return true;
	}
	for (order = 0; order <= top; order++) {
		afa_window(pos, order, &s, &e);
		if (s == start && e == end)
			return true;
	}
	return false;
}

/**
 * afa_contract_fold() - stop rewriting after a contract mismatch
 * @mismatches:	kernel windows in the fold that no order explains
 *
 * Period worker.
 */
void afa_contract_fold(u32 mismatches)
{
	if (!mismatches || afa_contract_broken)
		return;
	afa_contract_broken = true;
	WRITE_ONCE(afa_limits.act, false);
	afa_steer_changed();
	pr_warn("%u kernel fault-around windows do not match do_fault_around() as this module knows it: observing, not setting windows, until reloaded\n",
		mismatches);
}

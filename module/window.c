// SPDX-License-Identifier: GPL-2.0
/*
 * The fault-around window of a given order, computed exactly as
 * do_fault_around() in mm/memory.c (6.12) does for the global
 * fault_around_pages, so that the actuator changes the size and nothing
 * else:
 *
 *	n        = 2^order
 *	from_pte = max(ALIGN_DOWN(pte_off, n), pte_off - min(pte_off, vma_off))
 *	to_pte   = min(from_pte + n, PTRS_PER_PTE,
 *		       pte_off + vma_pages - vma_off) - 1
 *	start    = pgoff + from_pte - pte_off
 *	end      = pgoff + to_pte - pte_off
 *
 * The window is aligned down to its size, clamped to the VMA, and never
 * leaves the page table of the fault; it always contains the fault.  The
 * window of order n - 1 lies inside that of order n, which lies inside
 * that of order n + 1: the evidence the law uses compares these nested
 * windows (afa_window_gap(), afa_window_buddy()).
 *
 * The module computes them inline (window.h: afa_windows() and its
 * questions); the per-order forms here are the reference KUnit checks
 * those against, and are linked into the tests only (kunit/Kbuild).
 */
#include "window.h"

/**
 * afa_window_gap() - what a trial at one order less leaves out
 * @pos:	the fault
 * @order:	the stream's order, at least 1
 * @gap_start:	first file page of the window of @order that the window of
 *		@order - 1 does not map
 * @gap_end:	last such page
 *
 * The two windows share an end unless the VMA's start cuts the smaller at
 * both; there is no gap then (afa_gap()).
 *
 * Return: false when the two windows are the same, or share no end (no
 * trial possible).
 */
bool afa_window_gap(const struct afa_fault_pos *pos, unsigned int order,
		    u64 *gap_start, u64 *gap_end)
{
	u64 start, end, half_start, half_end;

	if (!order)
		return false;
	afa_window(pos, order, &start, &end);
	afa_window(pos, order - 1, &half_start, &half_end);
	return afa_gap(start, end, half_start, half_end, gap_start, gap_end);
}

/**
 * afa_window_buddy() - a page the window of one order more would add
 * @pos:	the fault
 * @order:	the order applied to the fault
 * @pgoff:	the file page next to the window of @order, inside that of
 *		@order + 1
 *
 * If that page is mapped already, an earlier fault mapped the other half
 * of the larger window: at @order + 1, that fault had mapped this one's
 * page too, and this fault had not been taken.
 *
 * Return: false when the larger window is no larger (clamped).
 */
bool afa_window_buddy(const struct afa_fault_pos *pos, unsigned int order,
		      u64 *pgoff)
{
	u64 start, end, big_start, big_end;

	afa_window(pos, order, &start, &end);
	afa_window(pos, order + 1, &big_start, &big_end);
	return afa_buddy(start, end, big_start, big_end, pgoff);
}


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
 */
#include <linux/align.h>
#include <linux/minmax.h>
#include "window.h"

/**
 * afa_window() - first and last file page of the window of @order
 * @pos:	the fault
 * @order:	window order; 2^@order pages, capped at one page table
 * @start:	first file page of the window
 * @end:	last file page of the window
 */
void afa_window(const struct afa_fault_pos *pos, unsigned int order,
		u64 *start, u64 *end)
{
	u64 nr = order < 32 ? 1ULL << order : pos->ptrs_per_pte;
	u64 pte_off = pos->pte_off;
	u64 from_pte, to_pte;

	nr = min_t(u64, nr, pos->ptrs_per_pte);
	from_pte = max(ALIGN_DOWN(pte_off, nr),
		       pte_off - min(pte_off, pos->vma_off));
	to_pte = min3(from_pte + nr, (u64)pos->ptrs_per_pte,
		      pte_off + pos->vma_pages - pos->vma_off) - 1;
	*start = pos->pgoff + from_pte - pte_off;
	*end = pos->pgoff + to_pte - pte_off;
}

/* The gap between a window and the one of one order less inside it. */
static bool afa_gap(u64 start, u64 end, u64 half_start, u64 half_end,
		    u64 *gap_start, u64 *gap_end)
{
	if (half_end < end) {
		*gap_start = half_end + 1;
		*gap_end = end;
		return true;
	}
	if (start < half_start) {
		*gap_start = start;
		*gap_end = half_start - 1;
		return true;
	}
	return false;
}

/* The page next to a window inside the one of one order more. */
static bool afa_buddy(u64 start, u64 end, u64 big_start, u64 big_end,
		      u64 *pgoff)
{
	if (big_start < start) {
		*pgoff = start - 1;
		return true;
	}
	if (end < big_end) {
		*pgoff = end + 1;
		return true;
	}
	return false;
}

/**
 * afa_window_gap() - what a trial at one order less leaves out
 * @pos:	the fault
 * @order:	the stream's order, at least 1
 * @gap_start:	first file page of the window of @order that the window of
 *		@order - 1 does not map
 * @gap_end:	last such page
 *
 * The two windows share an end unless clamping cuts both; the gap is then
 * the part above the fault.
 *
 * Return: false when the two windows are the same (no trial possible).
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

/**
 * afa_windows() - the windows of @order - 1, @order and @order + 1, once
 * @pos:	the fault
 * @order:	the stream's order
 * @w:		the three windows; at order 0 the lowest is order 0's too
 *
 * The probe asks up to four questions of these windows a fault (growth
 * test, trial test, trial, actuation): computing each window once is
 * cheaper than letting each question compute its own two.
 */
void afa_windows(const struct afa_fault_pos *pos, unsigned int order,
		 struct afa_windows *w)
{
	unsigned int i;

	for (i = 0; i < 3; i++)
		afa_window(pos, max(order + i, 1U) - 1, &w->start[i],
			   &w->end[i]);
}

/**
 * afa_windows_gap() - afa_window_gap() at @w's middle order
 * @w:		from afa_windows()
 * @gap_start:	first file page the trial's window leaves out
 * @gap_end:	last such page
 *
 * Return: false when the trial's window is no smaller (order 0, or
 * clamped to the same).
 */
bool afa_windows_gap(const struct afa_windows *w, u64 *gap_start,
		     u64 *gap_end)
{
	return afa_gap(w->start[1], w->end[1], w->start[0], w->end[0],
		       gap_start, gap_end);
}

/**
 * afa_windows_buddy() - afa_window_buddy() at one of @w's orders
 * @w:		from afa_windows()
 * @lower:	0: the page the stream's window adds to the trial's;
 *		1: the page the window of one order more adds to it
 * @pgoff:	that page
 *
 * Return: false when the larger of the two windows is no larger.
 */
bool afa_windows_buddy(const struct afa_windows *w, unsigned int lower,
		       u64 *pgoff)
{
	return afa_buddy(w->start[lower], w->end[lower], w->start[lower + 1],
			 w->end[lower + 1], pgoff);
}

/**
 * afa_window_sane() - does a window keep do_fault_around()'s promises?
 * @pos:	the fault
 * @start:	first file page of the window
 * @end:	last file page of the window
 *
 * The window must contain the fault, lie inside the VMA and inside the
 * page table of the fault: filemap_map_pages() derives its PTE pointer
 * from @start and walks to @end in one table.
 *
 * Return: true when all three hold.
 */
bool afa_window_sane(const struct afa_fault_pos *pos, u64 start, u64 end)
{
	u64 vma_first = pos->pgoff - pos->vma_off;

	return start <= pos->pgoff && pos->pgoff <= end &&
	       start >= vma_first && end < vma_first + pos->vma_pages &&
	       pos->pgoff - start <= pos->pte_off &&
	       end - pos->pgoff < (u64)pos->ptrs_per_pte - pos->pte_off;
}

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

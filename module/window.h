/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault-around window geometry, as do_fault_around() computes it, for any
 * order (window.c has the equations).  Pure: page offsets in, page
 * offsets out.  What the probe computes at every fault is inline here;
 * window.c keeps the per-order reference forms that KUnit checks the
 * once-a-call ones against.
 */
#ifndef _AFA_WINDOW_H
#define _AFA_WINDOW_H

#include <linux/align.h>
#include <linux/minmax.h>
#include <linux/types.h>

/**
 * struct afa_fault_pos - where a fault is, in page units
 * @pgoff:		file page of the faulting address (vmf->pgoff)
 * @pte_off:		index of its PTE in the page table, pte_index(address)
 * @vma_off:		page offset of the fault within the VMA
 * @vma_pages:		length of the VMA in pages
 * @ptrs_per_pte:	entries per page table (PTRS_PER_PTE)
 */
struct afa_fault_pos {
	u64 pgoff;
	u32 pte_off;
	u64 vma_off;
	u64 vma_pages;
	u32 ptrs_per_pte;
};

/**
 * afa_window() - first and last file page of the window of @order
 * @pos:	the fault
 * @order:	window order; 2^@order pages, capped at one page table
 * @start:	first file page of the window
 * @end:	last file page of the window
 */
static inline void afa_window(const struct afa_fault_pos *pos,
			      unsigned int order, u64 *start, u64 *end)
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

bool afa_window_gap(const struct afa_fault_pos *pos, unsigned int order,
		    u64 *gap_start, u64 *gap_end);
bool afa_window_buddy(const struct afa_fault_pos *pos, unsigned int order,
		      u64 *pgoff);

/**
 * struct afa_windows - the windows of three neighbouring orders, one fault
 * @start:	first file page: [0] the stream's order - 1 (its trial's),
 *		[1] the stream's order, [2] one order more
 * @end:	last file page of each
 */
struct afa_windows {
	u64 start[3];
	u64 end[3];
};

/**
 * afa_windows() - the windows of @order - 1, @order and @order + 1, once
 * @pos:	the fault
 * @order:	the stream's order
 * @first:	the first of the three to compute, 0 to 2
 * @last:	the last, @first to 2; those outside are left as they were
 * @w:		the windows; at order 0 the lowest is order 0's too
 *
 * The probe asks up to four questions of these windows a fault (growth
 * test, trial test, trial, actuation): computing each window once is
 * cheaper than letting each question compute its own two, and computing
 * only those the fault asks about is cheaper still (a settled stream's
 * fault at its lowest order needs its own window alone).
 */
static inline void afa_windows(const struct afa_fault_pos *pos,
			       unsigned int order, unsigned int first,
			       unsigned int last, struct afa_windows *w)
{
	unsigned int i;

	for (i = first; i <= last; i++)
		afa_window(pos, max(order + i, 1U) - 1, &w->start[i],
			   &w->end[i]);
}

/*
 * The gap between a window and the one of one order less inside it, where
 * the two share an end.  A window the VMA's start slid up (the first 2^n
 * pages of a VMA not aligned in its page table: ELF segments) may cut the
 * smaller one at both ends: no single part is what the smaller leaves
 * out, so no trial is taken there, and a trial test there maps the whole
 * window (afa_half_far_mapped()).
 */
static inline bool afa_gap(u64 start, u64 end, u64 half_start,
			   u64 half_end, u64 *gap_start, u64 *gap_end)
{
	if (start < half_start && half_end < end)
		return false;
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
 * afa_windows_gap() - afa_window_gap() at @w's middle order
 * @w:		from afa_windows()
 * @gap_start:	first file page the trial's window leaves out
 * @gap_end:	last such page
 *
 * Return: false when the trial's window is no smaller (order 0, or
 * clamped to the same), or cut at both ends.
 */
static inline bool afa_windows_gap(const struct afa_windows *w,
				   u64 *gap_start, u64 *gap_end)
{
	return afa_gap(w->start[1], w->end[1], w->start[0], w->end[0],
		       gap_start, gap_end);
}

/* The page next to a window inside the one of one order more. */
static inline bool afa_buddy(u64 start, u64 end, u64 big_start,
			     u64 big_end, u64 *pgoff)
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
 * afa_windows_buddy() - afa_window_buddy() at one of @w's orders
 * @w:		from afa_windows()
 * @lower:	0: the page the stream's window adds to the trial's (the
 *		page below it where the VMA's start cuts it at both ends:
 *		the page a trial at the VMA's start mapped);
 *		1: the page the window of one order more adds to it
 * @pgoff:	that page
 *
 * Return: false when the larger of the two windows is no larger.
 */
static inline bool afa_windows_buddy(const struct afa_windows *w,
				     unsigned int lower, u64 *pgoff)
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
static inline bool afa_window_sane(const struct afa_fault_pos *pos,
				   u64 start, u64 end)
{
	u64 vma_first = pos->pgoff - pos->vma_off;

	return start <= pos->pgoff && pos->pgoff <= end &&
	       start >= vma_first && end < vma_first + pos->vma_pages &&
	       pos->pgoff - start <= pos->pte_off &&
	       end - pos->pgoff < (u64)pos->ptrs_per_pte - pos->pte_off;
}

#endif /* _AFA_WINDOW_H */

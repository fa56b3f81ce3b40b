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
 * leaves the page table of the fault; it always contains the fault.
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

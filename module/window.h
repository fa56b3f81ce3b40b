/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault-around window geometry, as do_fault_around() computes it, for any
 * order.  Pure: page offsets in, page offsets out.
 */
#ifndef _AFA_WINDOW_H
#define _AFA_WINDOW_H

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

void afa_window(const struct afa_fault_pos *pos, unsigned int order,
		u64 *start, u64 *end);
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

void afa_windows(const struct afa_fault_pos *pos, unsigned int order,
		 struct afa_windows *w);
bool afa_windows_gap(const struct afa_windows *w, u64 *gap_start,
		     u64 *gap_end);
bool afa_windows_buddy(const struct afa_windows *w, unsigned int lower,
		       u64 *pgoff);
bool afa_window_sane(const struct afa_fault_pos *pos, u64 start, u64 end);

#endif /* _AFA_WINDOW_H */

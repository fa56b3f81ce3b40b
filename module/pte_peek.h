/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe's lockless look at the page table of a fault (pte_peek.c):
 * the PMD is read once a call, then any PTE of that table through it.
 */
#ifndef _AFA_PTE_PEEK_H
#define _AFA_PTE_PEEK_H

#include <linux/pgtable.h>

struct vm_fault;

/**
 * struct afa_pte_table - the PTE table of one fault, as read once
 * @pmdval:	the PMD's value, read locklessly at the first question
 * @state:	AFA_PTE_UNREAD, then AFA_PTE_TABLE or AFA_PTE_NONE (no PTE
 *		table: none, huge, bad, or HIGHPTE)
 * @cow:	a private mapping: a dirty PTE is a write's anonymous copy
 */
struct afa_pte_table {
	pmd_t pmdval;
	u8 state;
	bool cow;
};

enum { AFA_PTE_UNREAD, AFA_PTE_TABLE, AFA_PTE_NONE };

bool afa_pte_mapped(struct afa_pte_table *t, struct vm_fault *vmf,
		    unsigned long addr);

#endif /* _AFA_PTE_PEEK_H */

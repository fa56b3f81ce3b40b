// SPDX-License-Identifier: GPL-2.0
/*
 * A lockless PTE read, the module's only look at page tables: is a page
 * next to the fault mapped already?  Probe.c asks it twice a fault: its
 * growth test about the page a window twice as large would add, its
 * trial test about the other half of the fault's own window.
 *
 * It mirrors __pte_offset_map() of mm/pgtable-generic.c (6.12), which a
 * module cannot call: read the PMD with pmdp_get_lockless(), once a call
 * for both questions, give up on none, huge or bad, then read each PTE
 * through that PMD value.  It
 * never locks, never writes, and reads only inside the page table of the
 * fault, which filemap_map_pages() is about to lock and fill anyway.
 *
 * Why the table cannot go away under it: the probe runs in an RCU read
 * side, twice over (do_fault_around()'s rcu_read_lock() from 6.5, and
 * preemption off in every attachment), and a PTE table that khugepaged
 * retracts while the fault holds only the VMA lock, or that PT_RECLAIM
 * (6.14+) frees, is freed after an RCU grace period (pte_free_defer(),
 * tlb_remove_table()); on 6.1, which has neither path, the fault holds
 * mmap_lock, which retraction takes for writing.  A lockdep kernel
 * checks the read side (RCU_LOCKDEP_WARN below).  A PMD that
 * changes after it was read (collapse, zap) only makes the answer stale:
 * it is a statistic, and the law tolerates noise.
 */
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/rcupdate.h>
#include "compat.h"
#include "pte_peek.h"

/* Read the PMD of @vmf's fault once, and keep what it says in @t. */
static void afa_pte_table_read(struct afa_pte_table *t, struct vm_fault *vmf)
{
	pmd_t pmdval;

	RCU_LOCKDEP_WARN(!rcu_read_lock_any_held(),
			 "autofaultaround: PTE table read outside an RCU read side");
	t->state = AFA_PTE_NONE;
	/* HIGHPTE tables need kmap_local(), which is not for this path. */
	if (IS_ENABLED(CONFIG_HIGHPTE) || !vmf->pmd)
		return;
	pmdval = pmdp_get_lockless(vmf->pmd);
	if (pmd_none(pmdval) || !pmd_present(pmdval) || pmd_leaf(pmdval) ||
	    pmd_bad(pmdval))
		return;
	t->pmdval = pmdval;
	t->cow = !(vmf->vma->vm_flags & VM_SHARED);
	t->state = AFA_PTE_TABLE;
}

/**
 * afa_pte_mapped() - is @addr mapped in the page table of @vmf's fault?
 * @t:		the fault's table, AFA_PTE_UNREAD before the call's first
 *		question: its PMD is read then, once for all of them
 * @vmf:	the fault in progress, from filemap_map_pages()'s arguments
 * @addr:	a user address in the same PMD as @vmf->address
 *
 * A private mapping's dirty PTE does not count: fault-around maps a
 * private file's pages clean and read-only, so a dirty one is the
 * anonymous copy a write fault made (COW), which no read window mapped
 * and no larger one would have saved (20-learning, "written ends").
 *
 * Return: true when its PTE is present, and clean in a private mapping;
 * false also when there is no PTE table yet, the PMD is huge, or @addr
 * lies in another table.
 */
bool afa_pte_mapped(struct afa_pte_table *t, struct vm_fault *vmf,
		    unsigned long addr)
{
	pte_t pte;

	if ((addr & PMD_MASK) != (vmf->address & PMD_MASK))
		return false;
	if (t->state == AFA_PTE_UNREAD)
		afa_pte_table_read(t, vmf);
	if (t->state != AFA_PTE_TABLE)
		return false;
	pte = ptep_get(pte_offset_kernel(&t->pmdval, addr));
	return pte_present(pte) && !(t->cow && pte_dirty(pte));
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Usefulness sampling: of the pages fault-around mapped, how many did the
 * program touch afterwards?
 *
 * x86 installs fault-around PTEs young.  On one fault in sample_every,
 * right after map_pages, the return handler walks that window only, marks
 * each page mapped around the fault not accessed, and queues a record on
 * a per-CPU ring.  A period later the worker walks the window again and
 * counts the pages whose accessed bit came back, as DAMON samples access.
 *
 * Safety: the record holds the mm with mmgrab(); the check takes the
 * address space with mmget_not_zero() and the mmap lock with a trylock,
 * finds the VMA again and compares it with the record, and never walks a
 * huge PMD.  The ring is single-producer (its CPU, in the probe) and
 * single-consumer (the period worker): head and tail are handed over with
 * release/acquire, no locks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/sched/mm.h>
#include "afa.h"
#include "arch.h"
#include "compat.h"
#include "control_law.h"
#include "stream.h"
#include "topology.h"

/*
 * Records per CPU.  A record waits half a period to be checked, so the
 * ring also caps the sampling rate: 32 records are at most 320 samples a
 * second per CPU at the default period, plenty for a ratio, in 3.6 KiB
 * per CPU.  A full ring skips samples (counted as dropped), never blocks.
 */
#define AFA_RING_SIZE	32

/*
 * Longest window sampled: the largest the law hands out (2^AFA_ORDER_MAX
 * pages, one page table on x86-64).  A compile-time bound, since
 * PTRS_PER_PTE is a variable on some architectures (ppc64).
 */
#define AFA_SAMPLE_MAX_PAGES	BIT(AFA_ORDER_MAX)

struct afa_sample_rec {
	struct mm_struct *mm;		/* mmgrab()bed until checked */
	struct file *file;		/* VMA identity, never dereferenced */
	unsigned long vm_start;		/* VMA identity */
	unsigned long addr;		/* address of the window's first page */
	unsigned long stamp;		/* jiffies when sampled */
	u16 nr_pages;			/* window length in pages */
	u16 domain;			/* domain of the faulting CPU */
	u16 slot;			/* stream, or AFA_NO_STREAM */
	u32 gen;			/* generation of the stream's slot */
	u8 class;			/* enum afa_class */
	DECLARE_BITMAP(cleared, AFA_SAMPLE_MAX_PAGES); /* pages we marked old */
};

struct afa_ring {
	unsigned int head;	/* next slot to fill; written by the probe */
	unsigned int tail;	/* next slot to check; written by the worker */
	struct afa_sample_rec rec[AFA_RING_SIZE];
};

static DEFINE_PER_CPU(struct afa_ring, afa_rings);

/* What a PTE-range callback needs. */
struct afa_walk {
	struct afa_sample_rec *rec;
	unsigned long skip;	/* the faulting page: about to be used */
	unsigned int mapped;	/* pages found mapped */
	unsigned int used;	/* cleared pages found accessed again */
};

static unsigned int afa_pte_index(struct afa_walk *w, unsigned long addr)
{
	return (addr - w->rec->addr) >> PAGE_SHIFT;
}

static int afa_clear_young_pte(pte_t *pte, unsigned long addr, void *data)
{
	struct afa_walk *w = data;

	if (addr == w->skip || !pte_present(ptep_get(pte)))
		return 0;
	w->mapped++;
	if (afa_arch_test_and_clear_young(pte))
		__set_bit(afa_pte_index(w, addr), w->rec->cleared);
	return 0;
}

static int afa_count_young_pte(pte_t *pte, unsigned long addr, void *data)
{
	struct afa_walk *w = data;
	pte_t val = ptep_get(pte);

	if (test_bit(afa_pte_index(w, addr), w->rec->cleared) &&
	    pte_present(val) && pte_young(val))
		w->used++;
	return 0;
}

/* apply_to_existing_page_range() must not meet a huge PMD or PUD. */
static bool afa_pte_table_present(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	p4d_t *p4d;
	pud_t *pud;
	pmd_t pmd;

	if (pgd_none(READ_ONCE(*pgd)) || pgd_bad(READ_ONCE(*pgd)))
		return false;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(READ_ONCE(*p4d)) || p4d_bad(READ_ONCE(*p4d)))
		return false;
	pud = pud_offset(p4d, addr);
	if (pud_none(READ_ONCE(*pud)) || pud_leaf(READ_ONCE(*pud)))
		return false;
	pmd = pmdp_get_lockless(pmd_offset(pud, addr));
	return !pmd_none(pmd) && !pmd_leaf(pmd) && !pmd_bad(pmd);
}

/**
 * afa_access_sample() - sample the window a map_pages call just mapped
 * @vmf:	the fault, still in progress
 * @start:	first file page of the window
 * @nr_pages:	window length; longer than AFA_SAMPLE_MAX_PAGES is not sampled
 * @class:	class of the VMA
 * @slot:	stream of the VMA, or AFA_NO_STREAM
 * @gen:	generation of the stream's slot
 *
 * Called from the probe's return handler, on this CPU, preemption off.
 * Walks this window's PTEs and nothing else.
 */
void afa_access_sample(struct vm_fault *vmf, unsigned long start,
		       unsigned int nr_pages, unsigned int class,
		       unsigned int slot, u32 gen)
{
	struct afa_ring *ring = this_cpu_ptr(&afa_rings);
	struct vm_area_struct *vma = vmf->vma;
	unsigned int head = ring->head;
	struct afa_sample_rec *rec;
	struct afa_walk w;

	if (!AFA_ARCH_CAN_SAMPLE_ACCESS || nr_pages > AFA_SAMPLE_MAX_PAGES)
		return;
	/* Pairs with the worker's release: the slot is free to reuse. */
	if (head - smp_load_acquire(&ring->tail) >= AFA_RING_SIZE) {
		this_cpu_inc(afa_count.class[class].sample_dropped);
		return;
	}
	rec = &ring->rec[head % AFA_RING_SIZE];
	rec->addr = vma->vm_start + ((start - vma->vm_pgoff) << PAGE_SHIFT);
	if (!afa_pte_table_present(vma->vm_mm, rec->addr))
		return;
	bitmap_zero(rec->cleared, AFA_SAMPLE_MAX_PAGES);
	w = (struct afa_walk){ .rec = rec, .skip = vmf->address & PAGE_MASK };
	if (apply_to_existing_page_range(vma->vm_mm, rec->addr,
					 nr_pages << PAGE_SHIFT,
					 afa_clear_young_pte, &w))
		return;

	rec->mm = vma->vm_mm;
	mmgrab(rec->mm);
	rec->file = vma->vm_file;
	rec->vm_start = vma->vm_start;
	rec->stamp = jiffies;
	rec->nr_pages = nr_pages;
	rec->domain = afa_this_domain();
	rec->class = class;
	rec->slot = slot;
	rec->gen = gen;
	this_cpu_inc(afa_count.class[class].sampled);
	this_cpu_add(afa_count.class[class].sample_mapped, w.mapped);
	/* Publish the filled record to the worker's acquire of head. */
	smp_store_release(&ring->head, head + 1);
}

/*
 * Count in *@used the pages of @rec accessed since they were sampled.
 * Return: false when the window could not be checked (the process exited
 * or unmapped it, or its mmap lock was busy): the sample is lost.
 */
static bool afa_check_rec(struct afa_sample_rec *rec, unsigned int *used)
{
	struct mm_struct *mm = rec->mm;
	unsigned long len = (unsigned long)rec->nr_pages << PAGE_SHIFT;
	struct afa_walk w = { .rec = rec };
	struct vm_area_struct *vma;
	bool checked = false;

	if (!mmget_not_zero(mm))
		return false;
	if (mmap_read_trylock(mm)) {
		vma = find_vma(mm, rec->addr);
		if (vma && vma->vm_start == rec->vm_start &&
		    vma->vm_file == rec->file && rec->addr + len <= vma->vm_end &&
		    afa_pte_table_present(mm, rec->addr))
			checked = !apply_to_existing_page_range(mm, rec->addr, len,
								afa_count_young_pte,
								&w);
		mmap_read_unlock(mm);
	}
	mmput(mm);
	*used = w.used;
	return checked;
}

/* Consume @cpu's ring; with @all, everything and unchecked (unload). */
static void afa_check_ring(int cpu, unsigned long min_age, bool all)
{
	struct afa_ring *ring = per_cpu_ptr(&afa_rings, cpu);
	/* Pairs with the probe's release: records up to head are filled. */
	unsigned int tail = ring->tail, head = smp_load_acquire(&ring->head);
	struct afa_sample_rec *rec;
	struct afa_class_fig *fig;
	unsigned int checked, used;

	for (; tail != head; tail++) {
		rec = &ring->rec[tail % AFA_RING_SIZE];
		if (!all && time_before(jiffies, rec->stamp + min_age))
			break;
		if (!all) {
			fig = afa_period_fig(rec->domain, rec->class);
			if (afa_check_rec(rec, &used)) {
				checked = bitmap_weight(rec->cleared,
							AFA_SAMPLE_MAX_PAGES);
				fig->checked += checked;
				fig->used += used;
				afa_stream_account(rec->slot, rec->gen,
						   checked, used);
			} else {
				fig->lost++;
			}
		}
		mmdrop(rec->mm);
		/* Hand the slot back only after the record is read. */
		smp_store_release(&ring->tail, tail + 1);
	}
}

/**
 * afa_access_check() - check the samples old enough to tell
 * @all:	drop every sample unchecked instead (module unload)
 *
 * Samples younger than half a period are left for the next one, so the
 * program has had time to touch its pages.  Called by the period worker
 * only, with the figures locked.
 */
void afa_access_check(bool all)
{
	unsigned long min_age = msecs_to_jiffies(READ_ONCE(afa_period_ms) / 2);
	int cpu;

	for_each_possible_cpu(cpu)
		afa_check_ring(cpu, min_age, all);
}

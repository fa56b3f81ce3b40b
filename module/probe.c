// SPDX-License-Identifier: GPL-2.0
/*
 * The probe on filemap_map_pages(), the ->map_pages of ext4, xfs, tmpfs
 * and most filesystems, called by do_fault_around() with the window to
 * map.  It acts at the entry only, in this order:
 *
 *  1. find the VMA's class and stream (a per-CPU cache of the last four
 *     VMAs skips the lookup for the faults of the mappings a program
 *     uses in turn), in the VMA's lane of its file (split.h);
 *  2. check, on a sample of calls, that the kernel's window is one
 *     do_fault_around() can give (contract.c);
 *  3. gather evidence for the law: does the page next to this window,
 *     inside the window of one order more, have a PTE already (then that
 *     larger window had served this fault)?  Does the other half of this
 *     window have one (then an earlier trial left this half out, and it
 *     was wanted)?  Is this fault due for a trial at one order less?
 *  4. move the VMA to its file's other lane if its own evidence
 *     contradicts its lane's;
 *  5. write the window of the stream's order (or the trial's, or the
 *     half of it not mapped yet) over the arguments, where the
 *     architecture can (arch.h).
 *
 * A settled stream's fault between its runs of tests, the one a sparse
 * reader at min_order makes at nearly every fault and a settled scan at
 * seven in eight, takes a fast path: step 1 through the CPU's last VMA
 * and the stamp the full handler left on it, the trials waiting (and
 * above min_order the other half of the window), step 5 and the
 * counting, without the rest's frame (afa_probe_fast(),
 * afa_fast_stamp()).
 *
 * Misses, for the hit ratio, come from the ->fault hooks that run after
 * it on the same CPU (tracepoints.c calls afa_probe_fault()).  The probe is
 * an ftrace direct call, an fprobe or a kprobe (attach.c); all three call
 * afa_probe_map_enter() with the same registers.
 *
 * Then, observing or not, it measures the pages the CPU's previous call
 * mapped, by its task's page counts (afa_span_note()).
 *
 * Fault path: per-CPU counters only, no locks, no allocation, no sleep;
 * two lockless PTE reads through one PMD read (pte_peek.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/shmem_fs.h>
#include "afa.h"
#include "arch.h"
#include "compat.h"
#include "split.h"
#include "stream.h"
#include "pte_peek.h"
#include "topology.h"
#include "window.h"

/*
 * The arguments the probe reads, and writes where the kernel's contract
 * is known (contract.c): filemap_map_pages(vmf, start_pgoff, end_pgoff),
 * and ->fault's vmf (tracepoints.c's kprobe on filemap_fault()), read
 * from the registers by position.  A kernel whose functions take other
 * arguments does not build the module: observing there would read a
 * wrong pointer.
 */
static_assert(__same_type(&filemap_map_pages,
			  vm_fault_t (*)(struct vm_fault *, pgoff_t, pgoff_t)));
static_assert(__same_type(&filemap_fault, vm_fault_t (*)(struct vm_fault *)));

/*
 * Evidence a CPU gathers before it asks for a fold: two batches of the
 * default min_samples, so that a fresh process's evidence reaches the
 * law within a few milliseconds while a long scan does not wake the
 * worker more than once a jiffy.
 */
#define AFA_KICK_EVIDENCE	(2 * AFA_MIN_SAMPLES_DEFAULT)

/*
 * VMAs a CPU keeps its lookups for: a program starting up faults in its
 * binary's text and data and in its libraries' in turn.
 */
#define AFA_NR_VMA_CACHE	4

/* VMAs of this CPU remembered in lane 1, for when the cache refills. */
#define AFA_NR_SPLIT_MEMO	4

/*
 * Trials of this CPU waiting to be counted, and the faults of its stream
 * a trial waits for its half to be wanted before it counts as not.  A
 * trial counts in `trials` only then, or at its hit, so that a batch does
 * not count trials whose hits are still to come: early in a process a
 * left-out half is wanted only some faults later.  A hit after the wait
 * still counts, alone (its trial counted already).
 */
#define AFA_NR_TRIALS		8
#define AFA_TRIAL_WAIT		32

/*
 * Steered calls of a CPU after which a trial still waiting counts, as
 * not wanted so far, whoever's faults came meanwhile, when the CPU next
 * starts or resolves a trial (afa_trials_note()): a trial whose process
 * exited, or whose stream faults no more on this CPU, would otherwise
 * wait for ever and keep the CPU's trials mixed.  Eight waits: a stream
 * that shares the CPU with seven others still has its trials judged by
 * its own faults.
 */
#define AFA_TRIAL_AGE		(AFA_NR_TRIALS * AFA_TRIAL_WAIT)

/*
 * afa_probe_cpu.trials_mm when the trials waiting are of several streams
 * or mms: a fault of any looks through them.  While they are of one
 * stream in one mm, the faults of others skip the look: those of the
 * next process, when the one that took them exited, and of its other
 * mappings (a short process's text takes trials at its start and then
 * faults no more; its reads of a data file would otherwise look through
 * them at every fault until they age).
 */
#define AFA_TRIALS_MIXED	((struct mm_struct *)1UL)

/* Owner of class evidence: a slot number past the table. */
#define AFA_CLASS_OWNER(class)	(AFA_NR_STREAMS + 1 + (class))

/*
 * Who a VMA is, for this CPU's records of it: the VMA's address with its
 * mm, file, start and the file's inode number and generation, so that a
 * freed and reused vm_area_struct is not taken for the one recorded.
 * The file's address alone does not tell: a struct file is freed to its
 * slab at once (SLAB_TYPESAFE_BY_RCU), and a program that maps files in
 * turn at one address gets the last one's VMA and file back.
 */
struct afa_vma_id {
	struct vm_area_struct *vma;
	struct mm_struct *mm;
	struct file *file;
	unsigned long vm_start;
	unsigned long ino;
	u32 generation;
};

/*
 * What this CPU found for a VMA.  The class depends on the VMA's flags
 * and file; the slot is checked at every fault by its generation, and a
 * VMA without one looks again when the table gains files (afa_table_gen);
 * the order is read afresh at every fault.
 */
struct afa_vma_cache {
	struct afa_vma_id id;		/* identity, with vm_flags */
	unsigned long vm_flags;
	unsigned long table_gen;	/* of the last lookup */
	const u32 *pub;			/* the slot's published word */
	struct afa_evidence *ev;	/* this CPU's counters of the slot */
	u32 pub_gen;			/* generation of the slot when found */
	u32 fast_pub;			/* published word of the fast path's */
	u32 fast_gen;			/* afa_steer_gen then; 0: no fast path */
	u16 slot;			/* stream, or AFA_NO_STREAM */
	u8 class;			/* enum afa_class */
	u8 lane;			/* lane of the VMA in its file */
	bool calibration;		/* cost.c's own mapping */
	bool judged;			/* the tally had a verdict */
	u8 held_order;			/* the lane's order of held's tests */
	struct afa_split_tally tally;	/* the VMA's outcomes, split.h */
	struct afa_evidence held;	/* evidence held back until judged */
};

/* What the fault path knows of the fault's stream, or of its class. */
struct afa_fault_stream {
	struct afa_vma_cache *c;	/* this CPU's entry for the VMA */
	struct afa_evidence *ev;	/* counters to count the fault in */
	u32 pub;			/* a stream's published word */
	u16 owner;			/* slot, or AFA_CLASS_OWNER() */
	u8 order;			/* window order to apply */
	bool rare;			/* its trials are rare */
	bool settled;			/* its tests are sampled */
	bool sampled;			/* this fault's growth test is the law's */
	bool slot;			/* a stream's, with the two below */
	bool known;			/* its evidence judges VMAs (split.h) */
	bool dense;			/* and is dense */
};

/* A trial waiting to be counted: its half left out, and whose it is. */
struct afa_trial {
	struct mm_struct *mm;		/* identity only */
	struct address_space *mapping;	/* identity only */
	struct afa_evidence *ev;	/* counters to count it in */
	u64 gap_start;			/* the half left out, file pages */
	u64 gap_end;
	unsigned long table_gen;	/* afa_table_gen then */
	u32 born;			/* the CPU's steered calls then */
	u32 gen;			/* the slot's generation then */
	u16 owner;			/* slot, or AFA_CLASS_OWNER() */
	u8 left;			/* faults of the owner to wait; 0: free */
};

/*
 * The last map_pages call of this CPU, for the ->fault hooks, and to
 * know a fault taken again (after ->fault dropped its locks).
 */
struct afa_last_map {
	struct task_struct *task;	/* identity only */
	struct address_space *mapping;
	pgoff_t pgoff;
	struct afa_evidence *ev;	/* counters the call was counted in */
	unsigned long table_gen;	/* afa_table_gen then; fast path: earlier */
	u32 gen;			/* their slot's generation then */
	u16 owner;			/* their slot, or AFA_CLASS_OWNER() */
	bool missed;			/* its miss was counted */
	u8 trial;			/* the trial it started, + 1; 0: none */
	u32 trial_born;			/* that trial's born */
};

/*
 * The last map_pages call of this CPU, for the span of pages it mapped:
 * its task's file and shmem page counts then (compat.h), to compare with
 * the task's next call on this CPU.
 */
struct afa_span_mark {
	struct task_struct *task;	/* identity only */
	struct mm_struct *mm;		/* identity only */
	u64 migrations;			/* the task's, then */
	long pages;			/* afa_mm_file_pages(), then */
	struct afa_evidence *ev;	/* counters the call was counted in */
	const u32 *pub;			/* their slot's word; NULL: a class's */
	unsigned long table_gen;	/* afa_table_gen then */
	u32 gen;			/* their slot's generation then */
};

/*
 * What a tested fault resolved for its own VMA, for the VMA's lane
 * verdicts (split.h): its growth test, its trial test, and the VMA's
 * trials counted at it (waited out, aged, pushed out of their slot).
 * A VMA's trials are those of its mm that count in its evidence; a
 * judged VMA's evidence is its stream's, and the trials of the stream's
 * other mappings counted at the same fault count there only.
 */
struct afa_fault_tally {
	struct mm_struct *mm;		/* identity only; NULL: none open */
	const struct afa_evidence *ev;
	u16 outcomes;
	u16 hits;
};

struct afa_probe_cpu {
	struct afa_vma_cache cache[AFA_NR_VMA_CACHE];
	unsigned int cache_next;	/* next entry to overwrite */
	unsigned int cache_last;	/* entry of the last call: looked at first */
	struct afa_last_map last;
	struct afa_span_mark span;
	unsigned int kick_credit;	/* evidence since the last kick */
	bool kick_useful;		/* some of it can move a stream */
	unsigned int rare_count;	/* due trials of rare-trial streams */
	unsigned int memo_next;		/* next memo to overwrite */
	u32 rand;			/* xorshift32 state of sample gaps */
	unsigned int settled_skip;	/* settled faults to skip, then a run */
	unsigned int settled_run;	/* settled faults left in this run */
	unsigned int contract_skip;	/* tested calls to pass unchecked */
	unsigned int trial_next;	/* next trial slot to take */
	unsigned int trials_waiting;	/* slots in use */
	struct mm_struct *trials_mm;	/* of every trial waiting, or MIXED */
	u16 trials_owner;		/* and their owner, unless MIXED */
	u32 calls;			/* steered calls, for trial ages */
	u8 trial_started;		/* by this call, + 1, for the record */
	struct afa_fault_tally tally;	/* of the tested fault being steered */
	struct afa_trial trial[AFA_NR_TRIALS];
	/* VMAs this CPU moved to lane 1: identities, never dereferenced */
	struct afa_vma_id memo[AFA_NR_SPLIT_MEMO];
};

static DEFINE_PER_CPU(struct afa_probe_cpu, afa_probe_cpu);

/**
 * afa_probe_reset() - forget what every CPU recorded
 *
 * Its VMAs, last call and trials, and seed its trial gaps (a zero
 * xorshift state stays zero): at attach, when no handler runs, so that a
 * probe attached again after enabled=0 judges nothing by calls from
 * before.
 */
void afa_probe_reset(void)
{
	struct afa_probe_cpu *pc;
	int cpu;

	for_each_possible_cpu(cpu) {
		pc = per_cpu_ptr(&afa_probe_cpu, cpu);
		memset(pc, 0, sizeof(*pc));
		pc->rand = 2654435761U * (cpu + 1);
	}
}

static struct afa_vma_id afa_vma_id(struct vm_area_struct *vma)
{
	const struct inode *inode = file_inode(vma->vm_file);

	return (struct afa_vma_id){
		.vma = vma,
		.mm = vma->vm_mm,
		.file = vma->vm_file,
		.vm_start = vma->vm_start,
		.ino = inode->i_ino,
		.generation = inode->i_generation,
	};
}

static bool afa_vma_id_eq(const struct afa_vma_id *a,
			  const struct afa_vma_id *b)
{
	return a->vma == b->vma && a->mm == b->mm && a->file == b->file &&
	       a->vm_start == b->vm_start && a->ino == b->ino &&
	       a->generation == b->generation;
}

/* Is @c this CPU's entry for @vma, as it is now? */
static inline bool afa_cache_holds(const struct afa_vma_cache *c,
				   struct vm_area_struct *vma)
{
	const struct afa_vma_id id = afa_vma_id(vma);

	return afa_vma_id_eq(&c->id, &id) && c->vm_flags == vma->vm_flags;
}

/* The lane this CPU last moved the VMA @id to: 1 if remembered, else 0. */
static u8 afa_memo_lane(struct afa_probe_cpu *pc, const struct afa_vma_id *id)
{
	unsigned int i;

	for (i = 0; i < AFA_NR_SPLIT_MEMO; i++)
		if (afa_vma_id_eq(&pc->memo[i], id))
			return 1;
	return 0;
}

/* Remember the VMA @id in lane @lane: in the memo for 1, out of it for 0. */
static void afa_memo_set(struct afa_probe_cpu *pc, const struct afa_vma_id *id,
			 u8 lane)
{
	unsigned int i;

	for (i = 0; i < AFA_NR_SPLIT_MEMO; i++)
		if (afa_vma_id_eq(&pc->memo[i], id))
			pc->memo[i].vma = NULL;
	if (!lane)
		return;
	pc->memo[pc->memo_next++ % AFA_NR_SPLIT_MEMO] = *id;
}

/*
 * Trials waiting on this CPU that count in @from (a VMA's evidence held
 * back until its verdict, afa_split_evidence()) count in @to from now
 * on; with @to NULL they are dropped, as that evidence is: the VMA went
 * to its file's other lane, or its cache entry goes to another VMA.
 */
static void afa_trials_move(struct afa_probe_cpu *pc,
			    const struct afa_evidence *from,
			    struct afa_evidence *to)
{
	struct afa_trial *t;
	unsigned int i;

	for (i = 0; i < AFA_NR_TRIALS && pc->trials_waiting; i++) {
		t = &pc->trial[i];
		if (!t->left || t->ev != from)
			continue;
		if (to) {
			t->ev = to;
			continue;
		}
		t->left = 0;
		pc->trials_waiting--;
	}
}

/* Find the cached VMA's stream in its lane, or note it for the worker. */
static void afa_cache_find(struct afa_vma_cache *c, struct vm_area_struct *vma)
{
	u32 pub = 0;

	c->slot = afa_stream_find(vma, c->class, c->lane, &pub);
	c->pub_gen = afa_pub_gen(pub);
	if (c->slot == AFA_NO_STREAM) {
		afa_stream_note(vma, c->class, c->lane);
		return;
	}
	c->pub = afa_stream_pub(c->slot);
	c->ev = afa_stream_evidence(c->slot);
}

static __always_inline void afa_cache_fill(struct afa_probe_cpu *pc,
					   struct afa_vma_cache *c,
					   struct vm_area_struct *vma,
					   const struct afa_vma_id *id,
					   unsigned long table_gen)
{
	u8 order;

	*c = (struct afa_vma_cache){
		.id = *id,
		.vm_flags = vma->vm_flags,
		.table_gen = table_gen,
		.class = afa_classify(vma->vm_flags,
				      shmem_mapping(vma->vm_file->f_mapping)),
		.calibration = afa_cost_mapping(vma->vm_file->f_mapping,
						&order),
	};
	if (c->calibration) {
		c->slot = AFA_NO_STREAM;
		return;
	}
	c->lane = afa_memo_lane(pc, id);
	afa_cache_find(c, vma);
}

/*
 * Fill @c again: its slot's generation may have come round since its
 * last look (AFA_PUB_GEN_PERIOD).  Out of line: it never runs in
 * practice, and afa_cache_fill() inlined twice would take
 * afa_fault_stream() out of the full handler, a call more at every
 * fault.
 */
static noinline __cold struct afa_vma_cache *
afa_cache_refill(struct afa_probe_cpu *pc, struct afa_vma_cache *c,
		 struct vm_area_struct *vma, const struct afa_vma_id *id,
		 unsigned long table_gen)
{
	afa_trials_move(pc, &c->held, NULL);
	afa_cache_fill(pc, c, vma, id, table_gen);
	return c;
}

/*
 * Does the evidence of @c's VMA wait in its entry (split.h)?  Its file
 * has two lanes (@pub, its lane's word), the lane's evidence judges, and
 * the VMA has no verdict yet.
 */
static bool afa_evidence_held(const struct afa_vma_cache *c, u32 pub)
{
	return afa_pub_split(pub) && afa_pub_known(pub) && !c->judged;
}

/*
 * The file of @c's VMA has a stream now: the trials its faults took in
 * their class, still waiting, are the stream's.  Left with the class,
 * they would count there as not wanted, and their halves' faults in the
 * stream as wanted with no trial (afa_trial_test()'s page-table look).
 */
static void afa_trials_adopt(struct afa_probe_cpu *pc,
			     struct afa_vma_cache *c,
			     struct vm_area_struct *vma)
{
	struct address_space *mapping = vma->vm_file->f_mapping;
	u16 class_owner = AFA_CLASS_OWNER(c->class);
	struct afa_evidence *ev;
	struct afa_trial *t;
	unsigned int i;
	u32 pub;

	if (c->slot == AFA_NO_STREAM || !pc->trials_waiting)
		return;
	/* where the stream's own faults of the VMA count */
	pub = READ_ONCE(*c->pub);
	ev = afa_evidence_held(c, pub) ? &c->held : c->ev;
	for (i = 0; i < AFA_NR_TRIALS; i++) {
		t = &pc->trial[i];
		if (!t->left || t->owner != class_owner ||
		    t->mm != vma->vm_mm || t->mapping != mapping)
			continue;
		t->owner = c->slot;
		t->gen = c->pub_gen;
		t->table_gen = c->table_gen;
		t->ev = ev;
		/* whose they are: known again at the next afa_trials_note() */
		pc->trials_mm = AFA_TRIALS_MIXED;
	}
}

/*
 * This CPU's entry for @vma: found, with its file looked up again if it
 * had no stream and the table gained files since (filled again if the
 * table changed so often since that a slot's generation may have come
 * round, AFA_PUB_GEN_PERIOD); else a new entry in place of the oldest.
 */
static struct afa_vma_cache *afa_cache_get(struct afa_probe_cpu *pc,
					   struct vm_area_struct *vma,
					   unsigned long table_gen)
{
	const struct afa_vma_id id = afa_vma_id(vma);
	struct afa_vma_cache *c;
	unsigned int i, n;

	for (n = 0; n < AFA_NR_VMA_CACHE; n++) {
		i = (pc->cache_last + n) % AFA_NR_VMA_CACHE;
		c = &pc->cache[i];
		if (!afa_vma_id_eq(&c->id, &id) || c->vm_flags != vma->vm_flags)
			continue;
		pc->cache_last = i;
		if (unlikely(!afa_table_gen_recent(table_gen, c->table_gen)))
			return afa_cache_refill(pc, c, vma, &id, table_gen);
		if (c->table_gen != table_gen) {
			c->table_gen = table_gen;
			if (c->slot == AFA_NO_STREAM && !c->calibration) {
				afa_cache_find(c, vma);
				afa_trials_adopt(pc, c, vma);
			}
		}
		return c;
	}
	pc->cache_last = pc->cache_next++ % AFA_NR_VMA_CACHE;
	c = &pc->cache[pc->cache_last];
	afa_trials_move(pc, &c->held, NULL);
	afa_cache_fill(pc, c, vma, &id, table_gen);
	return c;
}

/*
 * The order and the counters of the fault's stream, or of its class.
 * Return: false for cost.c's calibration mapping (order set, no evidence).
 */
static bool afa_fault_stream(struct afa_probe_cpu *pc, struct vm_fault *vmf,
			     struct afa_fault_stream *fs)
{
	/* Pairs with the worker's release: the table is that generation's. */
	unsigned long table_gen = smp_load_acquire(&afa_table_gen);
	struct afa_vma_cache *c = afa_cache_get(pc, vmf->vma, table_gen);
	u32 pub;

	fs->c = c;
	c->fast_gen = 0;	/* until afa_fast_stamp() */
	/* Calibration over, the file is a file of its class like any. */
	if (c->calibration && afa_cost_mapping(c->id.file->f_mapping, &fs->order))
		return false;
	if (c->slot != AFA_NO_STREAM) {
		pub = READ_ONCE(*c->pub);
		if (afa_pub_gen(pub) == c->pub_gen) {
			*fs = (struct afa_fault_stream){
				.c = c,
				.ev = c->ev,
				.pub = pub,
				.owner = c->slot,
				.order = afa_pub_order(pub),
				.rare = afa_pub_rare_trials(pub),
				.settled = afa_pub_settled(pub),
				.slot = true,
				.known = afa_pub_known(pub),
				.dense = afa_pub_dense(pub),
			};
			return true;
		}
		/*
		 * The slot went to another file: look again, count as the
		 * class; what the VMA held back or tallied for that stream
		 * is not evidence for another.
		 */
		afa_trials_move(pc, &c->held, NULL);
		c->held = (struct afa_evidence){};
		c->tally = (struct afa_split_tally){};
		c->judged = false;
		afa_cache_find(c, vmf->vma);
	}
	*fs = (struct afa_fault_stream){
		.c = c,
		.ev = this_cpu_ptr(&afa_count.class[c->class]),
		.owner = AFA_CLASS_OWNER(c->class),
		.order = afa_class_order_get(afa_this_domain(), c->class),
	};
	return true;
}

/*
 * The VMA's held evidence, its growth tests of @order only: those held
 * at an order the lane has left would count at its new one when they
 * join it.  Its trials are judged by their own half, whatever the order
 * (afa_trials_wait()).
 */
static struct afa_evidence *afa_held_at(struct afa_vma_cache *c, u8 order)
{
	if (c->held_order != order) {
		c->held.tested = 0;
		c->held.grow_hits = 0;
		c->held_order = order;
	}
	return &c->held;
}

/*
 * Where this fault's growth test and trials count: in the stream, or,
 * for a VMA not yet judged in a file with two lanes, held back with the
 * VMA, so that a mapping that belongs in the other lane does not teach
 * this one on its way there (split.h).
 */
static struct afa_evidence *afa_split_evidence(const struct afa_fault_stream *fs)
{
	if (fs->slot && afa_evidence_held(fs->c, fs->pub))
		return afa_held_at(fs->c, fs->order);
	return fs->ev;
}

/*
 * Is the stream that publishes in @pub still the one it was at generation
 * @gen, read at table generation @seen or later?  A slot taken over by
 * another file since (stream.c) would count another file's faults in the
 * new one's evidence: what was recorded for it (a trial, a miss, a span,
 * a VMA's held evidence) is dropped, and so is a record so old that the
 * slot's generation may have come round (afa_pub_gen_current()).  @pub
 * NULL: a class state, never taken over.
 */
static bool afa_pub_current(const u32 *pub, u32 gen, unsigned long seen)
{
	return !pub || afa_pub_gen_current(READ_ONCE(*pub), gen,
					   READ_ONCE(afa_table_gen), seen);
}

/*
 * Tally this fault's outcomes for the VMA, and move it to its file's
 * other lane when they contradict its lane's (split.h).  The next fault
 * of the VMA then applies and counts in the other lane's stream.  At the
 * first verdict the evidence held back joins the lane the VMA stays in,
 * or is dropped with the lane it leaves, and so do its trials waiting.
 */
static void afa_split_check(struct afa_probe_cpu *pc, struct vm_area_struct *vma,
			    const struct afa_fault_stream *fs,
			    unsigned int outcomes, unsigned int hits)
{
	struct afa_vma_cache *c = fs->c;
	enum afa_split_verdict v;

	afa_split_count(&c->tally, outcomes, hits);
	v = afa_split_judge(&c->tally, fs->known, fs->dense);
	if (v == AFA_SPLIT_WAIT)
		return;
	c->judged = true;
	afa_trials_move(pc, &c->held, v == AFA_SPLIT_STAY ? fs->ev : NULL);
	/*
	 * Not into a slot the fold gave another file since this call looked
	 * it up: one call's counts may cross a takeover, the held batches
	 * of a whole verdict would not be one call's.
	 */
	if (v == AFA_SPLIT_STAY &&
	    afa_pub_current(c->pub, afa_pub_gen(fs->pub), c->table_gen))
		afa_evidence_add(fs->ev, afa_held_at(c, fs->order));
	c->held = (struct afa_evidence){};
	if (v == AFA_SPLIT_STAY)
		return;
	c->lane ^= 1;
	afa_memo_set(pc, &c->id, c->lane);
	afa_cache_find(c, vma);
}

/*
 * Faults to skip before the next sampled one (a trial, a run of tests):
 * @every - 1 on average, drawn from [0, 2 * @every - 2], so that a
 * pattern of a fixed period (runs of a few faults) does not put the same
 * one of its faults in every sample.  xorshift32: cheap, per CPU, and
 * good enough to break a period.
 */
static u32 afa_sample_gap(struct afa_probe_cpu *pc, u32 every)
{
	pc->rand ^= pc->rand << 13;
	pc->rand ^= pc->rand >> 17;
	pc->rand ^= pc->rand << 5;
	return pc->rand % (2 * every - 1);
}

/*
 * Trials a stream whose trials are rare skips: one in 16 of the usual,
 * one fault in 64 at the default sample_every.
 */
#define AFA_RARE_TRIALS		16

/*
 * One fault in sample_every of each CPU goes on trial, on average; of a
 * stream whose trials are rare, one in AFA_RARE_TRIALS of those.  The
 * gaps between trials are drawn from [1, 2 * sample_every - 1]: with a
 * fixed gap, a pattern of that period (runs of a few faults) would put
 * the same one of its faults on trial every time.
 */
static bool afa_trial_due(struct afa_probe_cpu *pc, bool rare)
{
	u32 every = READ_ONCE(afa_sample_every);
	u32 left = this_cpu_read(afa_count.trial_countdown);

	if (left && left < 2 * every) {
		this_cpu_write(afa_count.trial_countdown, left - 1);
		return false;
	}
	this_cpu_write(afa_count.trial_countdown,
		       afa_sample_gap(pc, every));
	return !rare || !(++pc->rare_count % AFA_RARE_TRIALS);
}

/*
 * A settled stream (its law found its window right AFA_CTL_SETTLED_STEPS
 * batches in a row) takes its tests on one of its faults in
 * AFA_SETTLED_EVERY: the growth test, trials, the kernel-contract check
 * and the span measurement are half of what the probe costs a fault
 * (docs/benchmarks.md), and a fault of a stream whose window is right
 * tells little new.  Its other faults are looked at only for a trial's
 * half wanted, which is a single fault that a sample would mostly miss
 * (afa_act_settled()), and get the window.  The tested faults come in
 * runs of AFA_SETTLED_RUN in a row, a batch of evidence, so that what a
 * run measures is what consecutive faults show (a scan at order 0 finds
 * every other buddy mapped: g is 1/2 exactly in a run, and anything from
 * 0 to 1 in scattered faults), with gaps drawn at random between runs,
 * so that no pattern of a fixed period is always or never in a run.  A
 * sample's ratios are those of all the faults; what changes is the
 * cadence: a settled stream takes AFA_SETTLED_EVERY times as many faults
 * to a batch of evidence, until the first batch that wants a move
 * unsettles it and every fault is tested again (docs/control-law.md,
 * "Settled streams").  Verdicts on mappings (split.h) count only faults
 * of mappings tested at every fault: a verdict that a mapping is sparse
 * rests on its hits being few, which a sample cannot tell (two threads
 * reading a file at random on two CPUs had a CPU's view of their
 * mapping moved to a sparse lane so).  So a mapping is tested at every
 * fault until its first verdict (32 outcomes), and judged again only
 * while its stream learns: a mapping that behaves unlike its settled
 * lane is found at its first verdict, as a scan's file's first sparse
 * probe (20-learning), and one that changes later once its evidence
 * unsettles the lane.
 * 8: the tests then cost an eighth of what they did, and a settled
 * stream still takes a batch (8 faults) within 64 on average.
 */
#define AFA_SETTLED_EVERY	8
#define AFA_SETTLED_RUN		AFA_MIN_SAMPLES_DEFAULT
#define AFA_SETTLED_GAP		(AFA_SETTLED_RUN * (AFA_SETTLED_EVERY - 1))

/*
 * At min_order a settled stream has no trials, and its growth test is
 * the only evidence a run gathers: a sparse reader's, whose test finds
 * nothing, at every run.  Its runs come once in AFA_SETTLED_EVERY_MIN
 * faults instead: 64, a gap of 504 on average, the runs' cost an eighth
 * of what it is at one in eight (docs/benchmarks.md, "Rarer tests at
 * rest").  What the growth test would find first when such a reader
 * turns into a scan, a fault next to the one before, cuts a longer gap
 * to the usual one at once (afa_settled_skip()): a scan still unsettles
 * the stream within about 64 faults, and a stream that rests at
 * min_order with its faults next to each other (a page price, or
 * max_order) is tested as often as at any other order, no more.
 */
#define AFA_SETTLED_EVERY_MIN	64

/* The faults to skip before the next run, for a stream at @order. */
static u32 afa_settled_gap(struct afa_probe_cpu *pc, u8 order)
{
	u32 every = AFA_SETTLED_EVERY;

	if (order <= READ_ONCE(afa_limits.min_order))
		every = AFA_SETTLED_EVERY_MIN;
	return afa_sample_gap(pc, AFA_SETTLED_RUN * (every - 1));
}

/*
 * Is this fault on a page next to the one of this CPU's last call, in
 * the same file?  (Not the same page: that is a fault taken again.)  The
 * mapping is compared as a pointer: one freed and reused for another
 * file since can only start a run of tests early.
 */
static bool afa_fault_next(const struct afa_probe_cpu *pc,
			   const struct vm_fault *vmf)
{
	return pc->last.mapping == vmf->vma->vm_file->f_mapping &&
	       vmf->pgoff - pc->last.pgoff + 1 <= 2 &&
	       vmf->pgoff != pc->last.pgoff;
}

/*
 * A settled fault between runs of tests: one fewer to skip, and a gap
 * longer than the usual mean cut to it at a fault next to the last.
 */
static inline void afa_settled_skip(struct afa_probe_cpu *pc,
				    const struct vm_fault *vmf)
{
	if (pc->settled_skip > AFA_SETTLED_GAP && afa_fault_next(pc, vmf))
		pc->settled_skip = AFA_SETTLED_GAP;
	pc->settled_skip--;
}

/*
 * Is every fault of this mapping tested?  While its stream learns (and
 * for a class state), and until the mapping's first verdict.  Only such
 * faults count towards verdicts (split.h).
 */
static bool afa_tests_all(const struct afa_fault_stream *fs)
{
	return !fs->settled || !fs->c->judged;
}

/* Is this fault of a settled stream in a run of tested faults? */
static bool afa_settled_run(struct afa_probe_cpu *pc,
			    const struct afa_fault_stream *fs,
			    const struct vm_fault *vmf)
{
	if (pc->settled_run) {
		pc->settled_run--;
		return true;
	}
	if (pc->settled_skip) {
		afa_settled_skip(pc, vmf);
		return false;
	}
	/* this fault starts a run; the next run after a gap of the mean */
	pc->settled_run = AFA_SETTLED_RUN - 1;
	pc->settled_skip = afa_settled_gap(pc, fs->order);
	return true;
}

/*
 * Are this fault's tests due?  At every fault afa_tests_all() says so,
 * else in the settled stream's runs of tested faults only.  Of a settled
 * stream only the runs' growth tests count in the law's evidence
 * (@fs->sampled), also while a new mapping is tested at every fault for
 * its verdict: those are its first faults, and counted all they would
 * weigh the start of every process above the rest of it.  A random
 * reader's growth hits come late in its life (an early fault has few
 * neighbours mapped yet): counted so, its first 32 faults held g at a
 * third where its whole life's is 1/2, and its stream an order short of
 * its best for good (docs/benchmarks.md, "A sample of the whole life").
 */
static bool afa_tests_due(struct afa_probe_cpu *pc,
			  struct afa_fault_stream *fs,
			  const struct vm_fault *vmf)
{
	fs->sampled = !fs->settled || afa_settled_run(pc, fs, vmf);
	return fs->sampled || !fs->c->judged;
}

/*
 * Is this tested call's kernel window due for the contract check
 * (contract.c)?  One in AFA_CONTRACT_EVERY on average, the first call
 * after attach included, at random gaps (afa_sample_gap()), so that no
 * pattern of a fixed period hides its clamped windows from it.  A kernel
 * whose do_fault_around() computes windows otherwise gives other windows
 * at most calls, and one mismatch in a fold is enough; checking every
 * call cost about 80 instructions, a tenth of a tested call
 * (docs/benchmarks.md, "Where fresh-exec's time goes").
 */
#define AFA_CONTRACT_EVERY	8

static bool afa_contract_due(struct afa_probe_cpu *pc)
{
	if (pc->contract_skip) {
		pc->contract_skip--;
		return false;
	}
	pc->contract_skip = afa_sample_gap(pc, AFA_CONTRACT_EVERY);
	return true;
}

/*
 * Check the kernel's window against the contract; note the kernel's
 * order where the window proves it (kernel_window.c: MADV_RANDOM's
 * ceiling).
 */
static noinline void afa_contract_check(const struct afa_fault_pos *pos,
					u64 start, u64 end)
{
	u8 seen;

	if (!afa_kernel_window_ok(pos, start, end, &seen))
		this_cpu_inc(afa_count.contract_mismatch);
	else if (seen)
		this_cpu_write(afa_count.kernel_order, seen);
}

/*
 * One map_pages call the module steers: its fault, the windows of the
 * stream's order and its two neighbours, computed once, and the fault's
 * PTE table, read at most once, for every question the call asks.
 */
struct afa_call {
	struct vm_fault *vmf;
	struct afa_windows w;
	struct afa_pte_table table;
	bool half_mapped;	/* the other half of the window is, next to ours */
	bool half_only;		/* and at its far end: map our half alone */
};

/*
 * Set up a call: its PTE table is not read yet, and its windows are
 * computed as its questions need them (afa_windows()), so the rest is
 * left as it is, unset.  Its declarations are __uninitialized: where the
 * kernel zeroes stack variables (INIT_STACK_ALL_ZERO, as Debian's does)
 * its 80 bytes were cleared at every tested call, for nothing.
 */
static void afa_call_init(struct afa_call *c, struct vm_fault *vmf)
{
	c->vmf = vmf;
	c->table.state = AFA_PTE_UNREAD;
	c->half_mapped = false;
	c->half_only = false;
}

/* The user address of file page @pgoff, in the VMA of @vmf's fault. */
static unsigned long afa_page_addr(const struct vm_fault *vmf, u64 pgoff)
{
	return vmf->address + ((long)(pgoff - vmf->pgoff) << PAGE_SHIFT);
}

/*
 * An outcome (a test or trial counted, @outcome) or a hit counted in
 * @mm's evidence @ev: in the open tally too if they are its VMA's.
 */
static void afa_tally_add(struct afa_probe_cpu *pc, const struct mm_struct *mm,
			  const struct afa_evidence *ev, bool outcome, bool hit)
{
	if (mm != pc->tally.mm || ev != pc->tally.ev)
		return;
	pc->tally.outcomes += outcome;
	pc->tally.hits += hit;
}

/*
 * Would the window of @order + 1 have served this fault?  Its page next to
 * the window of @order is mapped already: an earlier fault mapped the
 * other half of that larger window.  The law's g counts it (@law) unless
 * the fault is in a half a trial left out, the trial's, not one the
 * window of @order takes (a trial at the start of a scan's window made
 * its batch 3/8 or 5/8 where the scan's own faults are 1/2, and held the
 * free step back, docs/control-law.md), or out of a settled stream's
 * sample (afa_tests_due()); the mapping's tally, which its lane's
 * verdict reads, counts it always.
 * Return: true when a hit counted in the law's g.
 */
static bool afa_growth_test(struct afa_probe_cpu *pc, struct afa_call *c,
			    struct afa_evidence *ev, bool law)
{
	u64 buddy;
	bool hit;

	if (!afa_windows_buddy(&c->w, 1, &buddy))
		return false;
	hit = afa_pte_mapped(&c->table, c->vmf, afa_page_addr(c->vmf, buddy));
	if (law) {
		ev->tested++;
		ev->grow_hits += hit;
	}
	afa_tally_add(pc, c->vmf->vma->vm_mm, ev, true, hit);
	return law && hit;
}

/* The same check by slot number (class states: AFA_NR_STREAMS and up). */
static bool afa_owner_current(u16 owner, u32 gen, unsigned long seen)
{
	return afa_pub_current(owner < AFA_NR_STREAMS ?
			       afa_stream_pub(owner) : NULL, gen, seen);
}

/*
 * Count a trial that waited in vain (aged, or pushed out) at another
 * owner's fault, if its stream is still its own, and mark its stream's
 * slot for the next fold (stream.h): the marks of the stream's own
 * faults may all have been taken.  A VMA's trial held back (split.h)
 * marks its slot too: a visit more, nothing counted.
 */
static void afa_trial_count(struct afa_probe_cpu *pc, const struct afa_trial *t)
{
	if (!afa_owner_current(t->owner, t->gen, t->table_gen))
		return;
	t->ev->trials++;
	afa_tally_add(pc, t->mm, t->ev, true, false);
	if (t->owner < AFA_NR_STREAMS)
		afa_stream_mark_slot(t->owner);
}

/*
 * Count the trials waiting on this CPU past their age, and note whose
 * the others are (AFA_TRIALS_MIXED): after a trial starts or waits.
 */
static void afa_trials_note(struct afa_probe_cpu *pc)
{
	struct afa_trial *t;
	unsigned int i;

	pc->trials_mm = NULL;
	for (i = 0; i < AFA_NR_TRIALS; i++) {
		t = &pc->trial[i];
		if (t->left && pc->calls - t->born > AFA_TRIAL_AGE) {
			t->left = 0;
			afa_trial_count(pc, t);
			pc->trials_waiting--;
		}
		if (!t->left)
			continue;
		if (!pc->trials_mm) {
			pc->trials_mm = t->mm;
			pc->trials_owner = t->owner;
		} else if (pc->trials_mm != t->mm ||
			   pc->trials_owner != t->owner) {
			/* and go on: the others' ages are still to count */
			pc->trials_mm = AFA_TRIALS_MIXED;
		}
	}
}

/* Can a trial waiting on this CPU be of @owner in @mm? */
static bool afa_trials_of(const struct afa_probe_cpu *pc,
			  const struct mm_struct *mm, u16 owner)
{
	return pc->trials_waiting &&
	       ((pc->trials_mm == mm && pc->trials_owner == owner) ||
		pc->trials_mm == AFA_TRIALS_MIXED);
}

/*
 * Count this CPU's waiting trials of @owner in @mm one fault closer to
 * counting as not wanted, and the one whose half holds @pgoff as wanted:
 * this fault is in the half it left out.  A trial is judged by its own
 * half, whatever the owner's order is now: dropping the trials still
 * waiting at a move dropped mostly the unwanted ones (a wanted half is
 * wanted soon), and took the trial ratio of a stream that moves often
 * far above its halves' (fresh-exec, 59-87% against 51%).
 * Return: true when a waiting trial's half held @pgoff.
 */
static bool afa_trials_wait(struct afa_probe_cpu *pc, struct mm_struct *mm,
			    u16 owner, pgoff_t pgoff)
{
	unsigned int i, waiting = pc->trials_waiting;
	/* @owner's generation: the fault's entry's, checked by its caller */
	u32 gen = owner < AFA_NR_STREAMS ? pc->cache[pc->cache_last].pub_gen : 0;
	unsigned long table_gen = READ_ONCE(afa_table_gen);
	bool found = false;
	struct afa_trial *t;

	for (i = 0; i < AFA_NR_TRIALS; i++) {
		t = &pc->trial[i];
		if (!t->left || t->owner != owner || t->mm != mm)
			continue;
		if (t->gen != gen ||
		    (owner < AFA_NR_STREAMS &&
		     !afa_table_gen_recent(table_gen, t->table_gen))) {
			t->left = 0;
			pc->trials_waiting--;
			continue;
		}
		if (!found && pgoff >= t->gap_start && pgoff <= t->gap_end) {
			found = true;
			t->ev->trial_hits++;
			afa_tally_add(pc, mm, t->ev, false, true);
			t->left = 1;
		}
		if (!--t->left) {
			t->ev->trials++;
			afa_tally_add(pc, mm, t->ev, true, false);
			pc->trials_waiting--;
		}
	}
	if (pc->trials_waiting != waiting)
		afa_trials_note(pc);
	return found;
}

/*
 * Is the far end of the other half of the stream's window mapped too, its
 * page next to the fault's half (@near) being mapped?  Then one window of
 * that half's order or more mapped it (windows are aligned), or the two
 * ends' own windows did, and the fault's own half is what the whole
 * window would map.  Where only its near part is mapped (smaller windows
 * before, pages not cached then, MADV_DONTNEED), the whole window maps
 * the rest now, as the kernel's would.  Where the VMA's start cuts the
 * fault's half at both ends (afa_gap()), the other half is two parts and
 * the whole window is mapped.  One more PTE read, in the table the first
 * one mapped.
 */
static bool afa_half_far_mapped(struct afa_call *c, u64 near)
{
	u64 gap_start, gap_end, far;

	if (!afa_windows_gap(&c->w, &gap_start, &gap_end))
		return false;
	far = near == gap_start ? gap_end : gap_start;
	return far == near ||
	       afa_pte_mapped(&c->table, c->vmf, afa_page_addr(c->vmf, far));
}

/*
 * Was this fault's page left out by a trial?  The other half of the
 * window of @order is mapped and this half is not: an earlier fault of
 * the window on trial mapped only its own half, and this page of the
 * half it left out is wanted now.  Judged by the page tables, a trial's
 * half counts whenever it is wanted in the life of the mapping, not only
 * by the next faults: program text, and random access over a whole
 * file, want a left-out half late.  (A half not cached when its window
 * was mapped counts too: it cost this fault all the same.)  A trial
 * still waiting on this CPU is judged by its own half instead
 * (afa_trials_wait()), and counts now.  At @min_order the stream takes
 * no trials: only those still waiting from above are looked for.  It
 * runs at every fault, of settled streams too: a wanted half is a single
 * fault, which a sample would mostly miss.  The look at the other half
 * is kept (@c->half_mapped), and where its far end is mapped too
 * (@c->half_only) the fault maps its own half only (afa_half_or_whole()).
 * Return: true when this fault is in a half left out (counted as wanted).
 */
static bool afa_trial_test(struct afa_probe_cpu *pc, struct afa_call *c,
			   u16 owner, u8 order, u8 min_order,
			   struct afa_evidence *ev)
{
	struct vm_fault *vmf = c->vmf;
	bool waited;
	u64 half;

	waited = afa_trials_of(pc, vmf->vma->vm_mm, owner) &&
		 afa_trials_wait(pc, vmf->vma->vm_mm, owner, vmf->pgoff);
	c->half_mapped = order > min_order &&
			 afa_windows_buddy(&c->w, 0, &half) &&
			 afa_pte_mapped(&c->table, vmf, afa_page_addr(vmf, half));
	c->half_only = c->half_mapped && afa_half_far_mapped(c, half);
	if (waited)
		return true;
	if (c->half_mapped) {
		ev->trial_hits++;
		afa_tally_add(pc, vmf->vma->vm_mm, ev, false, true);
	}
	return c->half_mapped;
}

/*
 * Which of the call's windows to map: the stream's (1), or, where the
 * other half of it is mapped already at both ends (a trial's half left
 * out, wanted now), the half of it that holds the fault (0).  The whole
 * window would map the same pages, and walk the other half's mapped ones
 * again: at order 9, 256 of them, one folio lookup and reference each,
 * which made a random reader's trials at max_order cost it 1.7%
 * (docs/benchmarks.md, "The half a trial left out").
 */
static unsigned int afa_half_or_whole(const struct afa_call *c)
{
	return c->half_only ? 0 : 1;
}

/*
 * Put this fault on trial at @order - 1: it waits, with the half left
 * out, to be counted.  A trial still waiting in the slot taken counts
 * now, as not wanted so far.  Not where that half is mapped already
 * (its page next to the trial's window): a fault inside a window an
 * earlier fault mapped in part (a trial's, or one whose pages were not
 * all cached yet) would leave out nothing, and count as not wanted.
 * Return: false where the window of @order - 1 is no smaller, or its
 * half left out is mapped.
 */
static bool afa_trial_start(struct afa_probe_cpu *pc, struct mm_struct *mm,
			    struct afa_call *c, u16 owner, u32 gen,
			    unsigned long seen, struct afa_evidence *ev)
{
	struct afa_trial *t = &pc->trial[pc->trial_next % AFA_NR_TRIALS];
	u64 gap_start, gap_end, next;

	if (!afa_windows_gap(&c->w, &gap_start, &gap_end))
		return false;
	if (afa_windows_buddy(&c->w, 0, &next) &&
	    afa_pte_mapped(&c->table, c->vmf, afa_page_addr(c->vmf, next)))
		return false;
	pc->trial_started = pc->trial_next % AFA_NR_TRIALS + 1;
	pc->trial_next++;
	if (t->left)
		afa_trial_count(pc, t);
	else
		pc->trials_waiting++;
	*t = (struct afa_trial){
		.mm = mm,
		.mapping = c->vmf->vma->vm_file->f_mapping,
		.ev = ev,
		.gap_start = gap_start,
		.gap_end = gap_end,
		.table_gen = seen,
		.born = pc->calls,
		.gen = gen,
		.owner = owner,
		.left = AFA_TRIAL_WAIT,
	};
	afa_trials_note(pc);
	return true;
}

/*
 * Write the window [@start, @end] over the arguments, if sane; the caller
 * checked that the module acts (afa_limits.act, and enabled unless it is
 * cost.c's calibration mapping).
 * Return: the pages of the window the kernel will map.
 */
static u32 afa_actuate(struct pt_regs *regs, const struct afa_fault_pos *pos,
		       u64 start, u64 end, u32 kernel_pages)
{
	if (!afa_window_sane(pos, start, end) ||
	    !afa_arch_set_window(regs, start, end))
		return kernel_pages;
	return end - start + 1;
}

/*
 * Every field stored, not a compound literal: that clears the record
 * first with a rep stos, at every call, fast path included.
 */
static void afa_note_map(struct afa_probe_cpu *pc, struct vm_fault *vmf,
			 struct afa_evidence *ev, u16 owner, u32 gen,
			 unsigned long seen)
{
	struct afa_last_map *last = &pc->last;

	last->task = current;
	last->mapping = vmf->vma->vm_file->f_mapping;
	last->pgoff = vmf->pgoff;
	last->ev = ev;
	last->table_gen = seen;
	last->gen = gen;
	last->owner = owner;
	last->missed = false;
	last->trial = pc->trial_started;
	last->trial_born = pc->calls;
	pc->trial_started = 0;
}

/*
 * What the last fault of this task on this CPU mapped, window and all
 * (on 6.18+ a large folio is mapped whole, and a PMD-sized one by
 * filemap_map_pmd() on every kernel): the growth of the task's mm's file
 * and shmem pages since, on this CPU.  Counted only when nothing can
 * have slipped past this CPU's view: the same task and mm, which did not
 * migrate in between, and a growth of one page to two PTE tables (the
 * window and a folio mapped by ->fault).  A thread of the same mm on
 * this CPU in between adds its pages: noise, which the ratio tolerates.
 * A call that is not measured (@ev NULL: a settled stream's unsampled
 * fault) still ends the measurement of the one before; a span whose
 * stream's slot went to another file since counts nowhere.
 */
static void afa_span_note(struct afa_probe_cpu *pc, struct mm_struct *mm,
			  struct afa_evidence *ev, const u32 *pub, u32 gen,
			  unsigned long seen)
{
	struct afa_span_mark *m = &pc->span;
	u64 migrations;
	long pages, grown;

	if (!ev && !m->task)
		return;
	migrations = current->se.nr_migrations;
	pages = afa_mm_file_pages(mm);
	grown = pages - m->pages;
	if (m->task == current && m->mm == mm && m->migrations == migrations &&
	    grown > 0 && grown <= 2 * PTRS_PER_PTE &&
	    afa_pub_current(m->pub, m->gen, m->table_gen)) {
		m->ev->spans++;
		m->ev->span_pages += grown;
	}
	if (!ev) {
		m->task = NULL;
		return;
	}
	/* field by field, as afa_note_map() */
	m->task = current;
	m->mm = mm;
	m->migrations = migrations;
	m->pages = pages;
	m->ev = ev;
	m->pub = pub;
	m->table_gen = seen;
	m->gen = gen;
}

/*
 * The same fault again, retried after ->fault dropped its locks for I/O
 * (with or without FAULT_FLAG_TRIED: a fault under the VMA lock retries
 * under mmap_lock without it), finds the pages its first call mapped
 * around its own uncached page: no trial left them out.
 */
static bool afa_fault_again(const struct afa_probe_cpu *pc,
			    const struct vm_fault *vmf)
{
	return pc->last.task == current &&
	       pc->last.mapping == vmf->vma->vm_file->f_mapping &&
	       pc->last.pgoff == vmf->pgoff;
}

/* Where the fault is, in the page units of window.h. */
static struct afa_fault_pos afa_fault_pos(const struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;

	return (struct afa_fault_pos){
		.pgoff = vmf->pgoff,
		.pte_off = pte_index(vmf->address),
		.vma_off = vmf->pgoff - vma->vm_pgoff,
		.vma_pages = vma_pages(vma),
		.ptrs_per_pte = PTRS_PER_PTE,
	};
}

/* afa_settled_window() above order 0: the window computed. */
static noinline u32
afa_settled_window_above(struct pt_regs *regs, struct vm_fault *vmf,
			 u8 order, u32 nr_pages)
{
	struct afa_fault_pos pos = afa_fault_pos(vmf);
	u64 start, end;

	afa_window(&pos, order, &start, &end);
	return afa_actuate(regs, &pos, start, end, nr_pages);
}

/*
 * Write the window of @order over the arguments; at order 0 the fault's
 * own page, which contains the fault and lies in the VMA and in the
 * fault's page table, as afa_window_sane() would find.  Inline, so that
 * the fast path's frame holds no afa_fault_pos at order 0 (the kernel
 * may zero every stack variable at its declaration).
 * Return: the pages of the window the kernel will map.
 */
static inline u32 afa_settled_window(struct pt_regs *regs,
				     struct vm_fault *vmf, u8 order,
				     u32 nr_pages)
{
	if (!order)
		return afa_arch_set_window(regs, vmf->pgoff, vmf->pgoff) ?
		       1 : nr_pages;
	return afa_settled_window_above(regs, vmf, order, nr_pages);
}

/*
 * A settled stream's fault at @min_order (afa_act_settled(), and the fast
 * path): only the trials waiting from above can be wanted; then its
 * window.
 */
static __always_inline u32
afa_act_at_min(struct afa_probe_cpu *pc, struct vm_fault *vmf,
	       struct pt_regs *regs, u16 owner, u8 order, u32 nr_pages)
{
	struct mm_struct *mm = vmf->vma->vm_mm;

	if (afa_trials_of(pc, mm, owner) && !afa_fault_again(pc, vmf))
		afa_trials_wait(pc, mm, owner, vmf->pgoff);
	return afa_settled_window(regs, vmf, order, nr_pages);
}

/*
 * afa_act_settled() above @min_order, and the fast path's, where the
 * trial test needs a call (its windows, its PTE table).  Not inlined:
 * the call's 80 bytes and the trial test's registers would then be the
 * fast path's frame at min_order too, where nothing reads them.
 */
static noinline u32
afa_act_settled_above(struct afa_probe_cpu *pc, struct vm_fault *vmf,
		      struct pt_regs *regs, u16 owner, u8 order,
		      struct afa_evidence *ev, u32 nr_pages)
{
	struct afa_fault_pos pos = afa_fault_pos(vmf);
	struct afa_call c __uninitialized;
	unsigned int apply;

	afa_call_init(&c, vmf);
	afa_windows(&pos, order, 0, 1, &c.w);
	if (!afa_fault_again(pc, vmf))
		afa_trial_test(pc, &c, owner, order,
			       READ_ONCE(afa_limits.min_order), ev);
	apply = afa_half_or_whole(&c);
	return afa_actuate(regs, &pos, c.w.start[apply], c.w.end[apply],
			   nr_pages);
}

/*
 * A settled stream's fault between its runs of tests: it is looked at
 * only for a trial's half wanted (afa_trial_test()), and gets the
 * stream's window.
 */
static u32 afa_act_settled(struct afa_probe_cpu *pc, struct vm_fault *vmf,
			   struct pt_regs *regs,
			   const struct afa_fault_stream *fs, u32 nr_pages)
{
	pc->calls++;
	if (fs->order > READ_ONCE(afa_limits.min_order))
		return afa_act_settled_above(pc, vmf, regs, fs->owner,
					     fs->order, fs->ev, nr_pages);
	return afa_act_at_min(pc, vmf, regs, fs->owner, fs->order, nr_pages);
}

/*
 * A settled stream's untested fault, steered: stamp its VMA's entry for
 * the fast path with the stream's published word and @gen, afa_steer_gen
 * read before the parameters that decided.  The fast path takes the
 * VMA's next faults while both are unchanged; any other call of the full
 * handler took the stamp off (afa_fault_stream()).
 */
static void afa_fast_stamp(const struct afa_fault_stream *fs, u32 gen)
{
	if (fs->slot) {
		fs->c->fast_pub = fs->pub;
		fs->c->fast_gen = gen;
	}
}

/*
 * Can this tested fault's evidence move its stream?  Not a settled
 * stream's at min_order whose tests found nothing the law counts (@hit:
 * a trial's half wanted, or a growth hit in its sample): the law can
 * move such a stream only up, on hits.  A CPU's 16 tested faults ask for
 * a fold only when some of them can (afa_learn_and_act()): a new
 * mapping's 32 tests of a sparse reader's file (its first verdict)
 * asked two folds of every process for nothing (docs/benchmarks.md,
 * "Rarer tests at rest"); their batches wait for the period's fold.
 */
static bool afa_kick_useful(const struct afa_fault_stream *fs, u8 order,
			    u8 min_order, bool hit)
{
	return !fs->settled || order > min_order || hit;
}

/*
 * Evidence and window of a fault the module steers, and tests.  Trials
 * and tests are taken at the stream's own order, which is then also the
 * order applied (or one less, on trial).
 */
static u32 afa_learn_and_act(struct afa_probe_cpu *pc, struct vm_fault *vmf,
			     struct pt_regs *regs,
			     const struct afa_fault_pos *pos,
			     const struct afa_fault_stream *fs, u32 nr_pages)
{
	bool again = afa_fault_again(pc, vmf);
	struct afa_evidence *ev = afa_split_evidence(fs);
	u8 max_order = fs->c->class == AFA_CLASS_RAND ?
		       READ_ONCE(afa_limits.rand_max_order) :
		       READ_ONCE(afa_limits.max_order);
	u8 min_order = READ_ONCE(afa_limits.min_order);
	u8 order = fs->order;
	struct afa_call c __uninitialized;
	bool grow_test = order < max_order;
	bool trial_fault, grow_hit = false;
	unsigned int apply;		/* c.w's window to map */

	afa_call_init(&c, vmf);
	pc->calls++;
	pc->tally = (struct afa_fault_tally){ .mm = vmf->vma->vm_mm, .ev = ev };
	afa_windows(pos, order, order > min_order ? 0 : 1, grow_test ? 2 : 1,
		    &c.w);
	trial_fault = !again && afa_trial_test(pc, &c, fs->owner, order,
					       min_order, ev);
	if (grow_test)
		grow_hit = afa_growth_test(pc, &c, ev,
					   !trial_fault && fs->sampled);
	apply = afa_half_or_whole(&c);
	/*
	 * Rare trials, but at max_order not before the VMA's first verdict:
	 * there trials are its only outcomes (split.h).  A trial only where
	 * the window of one order less is smaller (not clamped to the same).
	 */
	if (order > min_order &&
	    afa_trial_due(pc, fs->rare && (fs->c->judged || order < max_order)) &&
	    afa_trial_start(pc, vmf->vma->vm_mm, &c, fs->owner,
			    afa_pub_gen(fs->pub), fs->c->table_gen, ev))
		apply = 0;
	if (fs->slot && afa_tests_all(fs))
		afa_split_check(pc, vmf->vma, fs, pc->tally.outcomes,
				pc->tally.hits);
	pc->kick_useful |= afa_kick_useful(fs, order, min_order,
					   trial_fault || grow_hit);
	pc->tally.mm = NULL;
	if (++pc->kick_credit >= AFA_KICK_EVIDENCE) {
		if (pc->kick_useful)
			afa_period_kick();
		pc->kick_credit = 0;
		pc->kick_useful = false;
	}
	return afa_actuate(regs, pos, c.w.start[apply], c.w.end[apply],
			   nr_pages);
}

/* Wake the worker if idle; note the largest window the kernel asked. */
static void afa_probe_note_call(u32 nr_pages)
{
	afa_period_wake();
	if (nr_pages > this_cpu_read(afa_count.max_window))
		this_cpu_write(afa_count.max_window, nr_pages);
}

/*
 * Is this CPU between the runs of its settled streams' tests, with no
 * span to measure?  Then its next fault may take the fast path.
 */
static inline bool afa_probe_fast_due(const struct afa_probe_cpu *pc)
{
	return !pc->settled_run && pc->settled_skip && !pc->span.task;
}

/*
 * The fast path: a fault of the VMA of this CPU's last call, whose
 * stream is settled, between the runs of its tests (afa_tests_due()),
 * with no span to measure: what a sparse reader's stream makes of nearly
 * every fault once settled at order 0, and a settled scan of seven in
 * eight.  It does what the full handler does with such a call
 * (afa_act_settled(), whose afa_act_at_min() and afa_act_settled_above()
 * it shares; the counters, the record for the ->fault hooks) without
 * building the call's state, and without the full handler's frame,
 * which cost more than the rest (docs/benchmarks.md, "The settled path
 * at order 0").  The full handler's last call of the VMA stamped its
 * entry (afa_fast_stamp()): the stream's published word and the
 * parameters' generation stand for everything that call found, and the
 * VMA's identity is checked whole.  afa_probe_fast_due() first: the
 * cheap per-CPU half of the conditions, so that the other calls pay
 * three loads for it.
 * Return: false, having changed nothing, when the call is not such a
 * fault.
 */
static __always_inline bool afa_probe_fast(struct afa_probe_cpu *pc,
					   struct pt_regs *regs)
{
	struct vm_fault *vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	u32 nr_pages = regs_get_kernel_argument(regs, 2) -
		       regs_get_kernel_argument(regs, 1) + 1;
	struct afa_vma_cache *c = &pc->cache[pc->cache_last];
	struct afa_evidence *ev;
	unsigned long seen;
	u32 gen;
	u16 slot;
	u8 order;

	if (c->fast_gen != atomic_read(&afa_steer_gen) ||
	    c->fast_pub != READ_ONCE(*c->pub) || !afa_cache_holds(c, vmf->vma))
		return false;
	/* read before the stores below, which the compiler cannot tell apart */
	ev = c->ev;
	slot = c->slot;
	gen = c->pub_gen;
	/*
	 * Its entry's last look: no older than half a period, by the stamp
	 * (afa_period_table_grew()), whose word, checked above, holds the
	 * generation the entry found then.
	 */
	seen = c->table_gen;
	order = afa_pub_order(c->fast_pub);
	afa_probe_note_call(nr_pages);
	__this_cpu_inc(afa_count.fast_calls);
	afa_settled_skip(pc, vmf);
	pc->calls++;
	if (order > READ_ONCE(afa_limits.min_order))
		nr_pages = afa_act_settled_above(pc, vmf, regs, slot, order,
						 ev, nr_pages);
	else
		nr_pages = afa_act_at_min(pc, vmf, regs, slot, order,
					  nr_pages);
	ev->faults++;
	ev->pages += nr_pages;
	afa_stream_mark_slot(slot);
	afa_note_map(pc, vmf, ev, slot, gen, seen);
	return true;
}

/* The full handler: everything the probe does, see the top of the file. */
static noinline void afa_probe_map_call(struct afa_probe_cpu *pc,
					struct pt_regs *regs)
{
	struct vm_fault *vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	u64 start = regs_get_kernel_argument(regs, 1);
	u64 end = regs_get_kernel_argument(regs, 2);
	struct vm_area_struct *vma = vmf->vma;
	struct afa_fault_pos pos = afa_fault_pos(vmf);
	u32 nr_pages = end - start + 1;
	struct afa_fault_stream fs;
	bool steer, tests = true;
	u32 gen = atomic_read_acquire(&afa_steer_gen);

	afa_probe_note_call(nr_pages);
	if (!afa_fault_stream(pc, vmf, &fs)) {
		pc->span.task = NULL;
		afa_window(&pos, fs.order, &start, &end);
		if (READ_ONCE(afa_limits.act))
			afa_actuate(regs, &pos, start, end, nr_pages);
		return;
	}
	/* Observing only: count, learn nothing at a window not ours. */
	steer = READ_ONCE(afa_enabled) && READ_ONCE(afa_limits.act) &&
		(READ_ONCE(afa_classes) & BIT(fs.c->class));
	/* Observing, every call is tested, and a sample of them checked. */
	if (steer)
		tests = afa_tests_due(pc, &fs, vmf);
	if (tests && afa_contract_due(pc))
		afa_contract_check(&pos, start, end);
	afa_span_note(pc, vma->vm_mm, tests ? fs.ev : NULL,
		      fs.slot ? fs.c->pub : NULL, afa_pub_gen(fs.pub),
		      fs.c->table_gen);
	if (steer && tests)
		nr_pages = afa_learn_and_act(pc, vmf, regs, &pos, &fs,
					     nr_pages);
	else if (steer) {
		nr_pages = afa_act_settled(pc, vmf, regs, &fs, nr_pages);
		afa_fast_stamp(&fs, gen);
	}
	fs.ev->faults++;
	fs.ev->pages += nr_pages;
	if (fs.slot)
		afa_stream_mark_slot(fs.owner);
	afa_note_map(pc, vmf, fs.ev, fs.owner, afa_pub_gen(fs.pub),
		     fs.c->table_gen);
}

/*
 * The entry handler: the fast path, else the full one.  Preemption is
 * off: the fprobe's and kprobe's own, direct.c's own.  Not traced: it
 * runs from ftrace's own call sites, and its fast path is inline, so
 * that a sparse reader's fault pays no call for it.
 */
notrace void afa_probe_map_enter(struct pt_regs *regs)
{
	struct afa_probe_cpu *pc = this_cpu_ptr(&afa_probe_cpu);

	if (afa_probe_fast_due(pc) && afa_probe_fast(pc, regs))
		return;
	afa_probe_map_call(pc, regs);
}

/**
 * afa_probe_fast_calls() - calls that took the fast path, for stats
 *
 * Return: their sum over every CPU since load.
 */
u64 afa_probe_fast_calls(void)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(&afa_count, cpu)->fast_calls);
	return n;
}

/*
 * The trial @last's call started, if it still waits: dropped, uncounted.
 * Its call did not serve its fault, whose page was not cached (or not
 * up to date) and is read now: its half left out was most likely not
 * there to map either, and when the read drops the fault's locks the
 * fault is taken again, maps the whole window, and the half would count
 * as not wanted, with nothing tested.
 */
static void afa_trial_unstart(struct afa_probe_cpu *pc,
			      const struct afa_last_map *last)
{
	struct afa_trial *t;

	if (!last->trial)
		return;
	t = &pc->trial[last->trial - 1];
	if (!t->left || t->born != last->trial_born || t->owner != last->owner)
		return;
	t->left = 0;
	pc->trials_waiting--;
}

/**
 * afa_probe_fault() - a ->fault call on this CPU: the miss of a map_pages
 * @mapping:	the file
 * @pgoff:	the faulting page
 *
 * A read fault that map_pages did not serve goes on to ->fault on the
 * same task.  It is this CPU's last map_pages call's miss when the task,
 * file and page match, once a call (the record stays: a retry of the
 * fault finds it, afa_learn_and_act()), and the trial that call started
 * is dropped (afa_trial_unstart()).  ->fault without
 * fault-around (write faults, fault-around off) and misses whose task
 * moved to another CPU in between do not match: those calls count as
 * hits.  A miss whose stream's slot went to another file in between
 * counts nowhere (afa_owner_current()).
 */
void afa_probe_fault(struct address_space *mapping, pgoff_t pgoff)
{
	struct afa_probe_cpu *pc = this_cpu_ptr(&afa_probe_cpu);
	struct afa_last_map *last = &pc->last;

	this_cpu_inc(afa_count.filemap_faults);
	afa_period_wake();
	if (last->task != current || last->mapping != mapping ||
	    last->pgoff != pgoff || last->missed)
		return;
	last->missed = true;
	if (afa_owner_current(last->owner, last->gen, last->table_gen))
		last->ev->misses++;
	afa_trial_unstart(pc, last);
}

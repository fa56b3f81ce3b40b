// SPDX-License-Identifier: GPL-2.0
/*
 * The stream table.  A stream is one file in one class (the text of a
 * binary and its read-only data are two streams) with its own learned
 * window, so that every process mapping the file starts where the last
 * one left it, and two files of one class that want opposite windows (a
 * scan and a sparse probe) each get theirs.  Two mappings of one file
 * that want opposite windows get theirs too: the file then has a second
 * stream, its lane 1 (split.h).
 *
 * Who writes what: only the period worker writes the table, under the
 * statistics lock.  A slot's key is published under a seqcount, its
 * window order with its generation in one word (afa_pub_*()), which the
 * fault path reads without locks or writes.  The fault path counts
 * evidence per CPU per slot, and leaves files it does not find in a
 * small per-CPU candidate ring for the worker to add.
 *
 * Eviction: a slot is reused only when a new file's set is full, for the
 * way least recently faulted, and never for one faulted in the fold that
 * adds.  A file that went away keeps its slot until then: its key matches
 * no new file (inode number and generation), and learned state is kept
 * as long as there is room.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include "afa.h"
#include "split.h"
#include "stream.h"
#include "topology.h"
#include "trace.h"

/* Candidates per CPU: new files seen since the last fold, newest kept. */
#define AFA_NR_CANDS	4

/* A file the fault path saw but did not find, for the worker to add. */
struct afa_stream_cand {
	struct afa_stream_key key;
	u8 order;		/* the order the fault path applied: its class's */
	bool valid;
	u32 seq;		/* cand_next when noted */
};

struct afa_stream {
	seqcount_t seq;			/* guards key for the fault path */
	struct afa_stream_key key;	/* key.mapping == NULL: free slot */
	u32 pub;			/* generation and order, fault path */
	/* the rest belongs to the period worker */
	u32 gen;			/* bumped on reuse: stale caches miss */
	bool known;			/* has evidence at its order to judge by */
	bool dense;			/* and that evidence is dense */
	bool split;			/* its file has two lanes */
	unsigned long last_fault;	/* jiffies of the last fold with faults */
	struct afa_evidence seen;	/* per-CPU sums at the last fold */
	struct afa_evidence last;	/* what the last fold added */
	u64 nr_faults;			/* faults since the slot was taken */
	u64 nr_tested;			/* of those, growth-tested */
	struct afa_ctl_input pending;	/* evidence since the last step */
	struct afa_ctl_state ctl;	/* the law's state */
};

struct afa_stream_cpu {
	struct afa_evidence count[AFA_NR_STREAMS];
	seqcount_t cand_seq;			/* local CPU writes */
	unsigned int cand_next;			/* next slot to overwrite */
	struct afa_stream_cand cand[AFA_NR_CANDS];
	u32 cand_taken;		/* worker: candidates up to this seq done */
	u32 cand_done[AFA_NR_CANDS];	/* worker: seq of each one taken */
};

/*
 * Allocated at load: 9 KiB a CPU, nearly all the module's per-CPU
 * memory, more than the static per-CPU room the kernel keeps for modules
 * (PERCPU_MODULE_RESERVE, 8 KiB) leaves beside the rest.
 */
static struct afa_stream_cpu __percpu *afa_stream_cpu;
DEFINE_PER_CPU(unsigned long [AFA_MARK_WORDS], afa_stream_marked);
static struct afa_stream afa_streams[AFA_NR_STREAMS];
static u64 afa_stream_visits;		/* slots the folds summed */
/* Slots the last fold summed: their ->last is that fold's evidence. */
static DECLARE_BITMAP(afa_stream_summed, AFA_NR_STREAMS);
/* Slots this fold took: not a victim until the next (one reuse a fold). */
static DECLARE_BITMAP(afa_stream_taken, AFA_NR_STREAMS);

static unsigned int afa_stream_set(const struct afa_stream_key *key)
{
	unsigned long h = (unsigned long)key->mapping ^ key->ino ^
			  key->class ^ (unsigned long)key->lane << 8;

	return hash_long(h, ilog2(AFA_NR_STREAMS / AFA_STREAM_WAYS)) *
	       AFA_STREAM_WAYS;
}

static bool afa_key_eq(const struct afa_stream_key *a,
		       const struct afa_stream_key *b)
{
	return a->mapping == b->mapping && a->ino == b->ino &&
	       a->dev == b->dev && a->generation == b->generation &&
	       a->class == b->class && a->lane == b->lane;
}

static void afa_key_of(struct vm_area_struct *vma, unsigned int class,
		       unsigned int lane, struct afa_stream_key *key)
{
	struct inode *inode = file_inode(vma->vm_file);

	*key = (struct afa_stream_key){
		.mapping = vma->vm_file->f_mapping,
		.ino = inode->i_ino,
		.dev = inode->i_sb->s_dev,
		.generation = inode->i_generation,
		.class = class,
		.lane = lane,
	};
}

/**
 * afa_stream_find() - the stream of a VMA's file, from the fault path
 * @vma:	faulting VMA
 * @class:	its class
 * @lane:	the VMA's lane in its file (split.h)
 * @pub:	set to the slot's published word when found
 *
 * Lock-free: reads at most AFA_STREAM_WAYS keys under their seqcounts.
 * The caller keeps the answer while afa_stream_pub() still shows
 * the same generation.
 *
 * Return: the slot, or AFA_NO_STREAM.
 */
unsigned int afa_stream_find(struct vm_area_struct *vma, unsigned int class,
			     unsigned int lane, u32 *pub)
{
	struct afa_stream_key key;
	unsigned int set, i, seq;
	struct afa_stream *s;
	bool match;

	afa_key_of(vma, class, lane, &key);
	set = afa_stream_set(&key);
	for (i = set; i < set + AFA_STREAM_WAYS; i++) {
		s = &afa_streams[i];
		do {
			seq = read_seqcount_begin(&s->seq);
			match = afa_key_eq(&s->key, &key);
			*pub = READ_ONCE(s->pub);
		} while (read_seqcount_retry(&s->seq, seq));
		if (match)
			return i;
	}
	return AFA_NO_STREAM;
}

/**
 * afa_stream_pub() - where a slot publishes its generation and order
 * @slot:	from afa_stream_find(), not AFA_NO_STREAM
 *
 * The fault path keeps the address with its lookup and reads the word
 * with READ_ONCE() at every fault; see afa_pub_order() and afa_pub_gen().
 *
 * Return: the slot's published word, for reading only.
 */
const u32 *afa_stream_pub(unsigned int slot)
{
	return &afa_streams[slot].pub;
}

/**
 * afa_stream_evidence() - this CPU's evidence counters of a slot
 * @slot:	not AFA_NO_STREAM
 *
 * Fault path, preemption off.
 *
 * Return: the counters, to be bumped with plain increments.
 */
struct afa_evidence *afa_stream_evidence(unsigned int slot)
{
	return &this_cpu_ptr(afa_stream_cpu)->count[slot];
}

/**
 * afa_stream_note() - remember a file the table does not hold yet
 * @vma:	faulting VMA
 * @class:	its class
 * @lane:	the VMA's lane in its file
 *
 * Fault path, preemption off: overwrites the oldest of this CPU's
 * candidates; the worker adds them at the next fold, once.  A file noted
 * last on this CPU is not noted again while the worker has not taken it.
 */
void afa_stream_note(struct vm_area_struct *vma, unsigned int class,
		     unsigned int lane)
{
	struct afa_stream_cpu *sc = this_cpu_ptr(afa_stream_cpu);
	struct afa_stream_cand *c;
	struct afa_stream_key key;

	afa_key_of(vma, class, lane, &key);
	c = &sc->cand[sc->cand_next % AFA_NR_CANDS];
	if (c->valid && afa_key_eq(&c->key, &key) &&
	    (s32)(c->seq - READ_ONCE(sc->cand_taken)) > 0 &&
	    READ_ONCE(sc->cand_done[sc->cand_next % AFA_NR_CANDS]) != c->seq)
		return;
	write_seqcount_begin(&sc->cand_seq);
	c = &sc->cand[++sc->cand_next % AFA_NR_CANDS];
	c->seq = sc->cand_next;
	c->key = key;
	c->order = afa_class_order_get(afa_this_domain(), class);
	c->valid = true;
	write_seqcount_end(&sc->cand_seq);
	afa_period_kick();
}

/* Publish a slot's key, generation and order to the fault path. */
static void afa_stream_publish(struct afa_stream *s,
			       const struct afa_stream_key *key, u8 order)
{
	preempt_disable();
	write_seqcount_begin(&s->seq);
	s->key = *key;
	WRITE_ONCE(s->pub, afa_pub_make(s->gen, 0, order));
	write_seqcount_end(&s->seq);
	preempt_enable();
}

/*
 * Publish a stream's order and flags.  Rare trials (afa_ctl_rare_trials():
 * most trials wanted, and no step down pays): one in AFA_RARE_TRIALS of
 * the usual (probe.c) is then enough to notice a change; a scan pays
 * for about one trial in 64 faults instead of one in four.
 */
static void afa_stream_set_order(struct afa_stream *s, u8 order)
{
	u32 flags = afa_ctl_rare_trials(&s->ctl) ? AFA_PUB_RARE_TRIALS : 0;
	struct afa_ctl_params lim = {
		.min_order = READ_ONCE(afa_limits.min_order),
		.max_order = READ_ONCE(afa_limits.max_order),
	}, tmp;
	const struct afa_ctl_params *b;

	/*
	 * Until an order has both kinds of evidence, judge by the last's;
	 * at the bounds the law runs the stream's class with (MADV_RANDOM's
	 * ceiling), the kind the bound has none of is not waited for.
	 */
	b = afa_class_params(s->key.class, &lim, &tmp);
	if (afa_split_known(&s->ctl, b->min_order, b->max_order)) {
		s->known = true;
		s->dense = afa_split_dense(&s->ctl);
	}
	if (s->known)
		flags |= AFA_PUB_KNOWN;
	if (s->dense)
		flags |= AFA_PUB_DENSE;
	if (s->split)
		flags |= AFA_PUB_SPLIT;
	if (afa_ctl_settled(&s->ctl))
		flags |= AFA_PUB_SETTLED;

	WRITE_ONCE(s->pub, afa_pub_make(s->gen, flags, order));
}

static void afa_stream_id(const struct afa_stream *s, struct afa_stream_id *id)
{
	*id = (struct afa_stream_id){
		.slot = s - afa_streams,
		.dev = s->key.dev,
		.ino = s->key.ino,
		.lane = s->key.lane,
	};
}

/* Sum a slot's counters over every CPU. */
static void afa_stream_sum(unsigned int slot, struct afa_evidence *sum)
{
	const struct afa_evidence *c;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		c = &per_cpu_ptr(afa_stream_cpu, cpu)->count[slot];
		afa_evidence_add(sum, c);
	}
}

/* Run the law on the evidence waiting, once per batch. */
static void afa_stream_step(struct afa_stream *s,
			    const struct afa_ctl_params *p,
			    const struct afa_ctl_costs *c)
{
	struct afa_stream_id id;

	afa_stream_id(s, &id);
	afa_stream_set_order(s, afa_law_run(&s->ctl, &s->pending,
					    s->key.class, &id, p, c));
}

/* Take every CPU's marks: the slots to visit in this fold. */
static void afa_stream_take_marks(unsigned long *visit)
{
	unsigned long *marked;
	unsigned int w;
	int cpu;

	bitmap_zero(visit, AFA_NR_STREAMS);
	for_each_possible_cpu(cpu) {
		marked = per_cpu(afa_stream_marked, cpu);
		for (w = 0; w < AFA_MARK_WORDS; w++)
			if (READ_ONCE(marked[w]))
				visit[w] |= xchg(&marked[w], 0);
	}
}

/**
 * afa_stream_fold() - take in the marked streams' evidence, step their laws
 * @p:	the law's parameters for this fold
 * @c:	the costs the law steers by
 *
 * Only the slots some CPU marked since the last fold are summed, and only
 * those the last fold summed are cleared: a fold costs what the faults
 * since touched, not the table's size.  Counts are cumulative, so a bump
 * whose mark this fold took before the bump showed (a fault racing the
 * fold), or that has no mark of its own (the span of the task's previous
 * call, a miss right after its call), is not lost: the slot's next
 * marked fold takes it in.
 *
 * Return: the faults of all streams in this fold.
 */
u64 afa_stream_fold(const struct afa_ctl_params *p,
		    const struct afa_ctl_costs *c)
{
	DECLARE_BITMAP(visit, AFA_NR_STREAMS);
	struct afa_evidence now;
	struct afa_stream *s;
	unsigned int i;
	u64 faults = 0;

	afa_stream_take_marks(visit);
	/* No evidence this fold for the slots summed last and not marked. */
	bitmap_andnot(afa_stream_summed, afa_stream_summed, visit,
		      AFA_NR_STREAMS);
	for_each_set_bit(i, afa_stream_summed, AFA_NR_STREAMS)
		afa_streams[i].last = (struct afa_evidence){};
	bitmap_zero(afa_stream_summed, AFA_NR_STREAMS);
	for_each_set_bit(i, visit, AFA_NR_STREAMS) {
		s = &afa_streams[i];
		if (!s->key.mapping)
			continue;
		__set_bit(i, afa_stream_summed);
		afa_stream_visits++;
		afa_stream_sum(i, &now);
		afa_evidence_delta(&s->last, &now, &s->seen);
		s->seen = now;
		/*
		 * Trials that aged out, and hits after a trial's wait, may
		 * come in a fold without faults of the stream: they count.
		 */
		afa_evidence_to_input(&s->pending, &s->last);
		if (s->last.faults) {
			s->last_fault = jiffies;
			s->nr_faults += s->last.faults;
			s->nr_tested += s->last.tested;
			faults += s->last.faults;
		}
		afa_stream_step(s, p, c);
	}
	return faults;
}

static struct afa_stream *afa_stream_lookup(const struct afa_stream_key *key)
{
	unsigned int set = afa_stream_set(key), i;

	for (i = set; i < set + AFA_STREAM_WAYS; i++)
		if (afa_key_eq(&afa_streams[i].key, key))
			return &afa_streams[i];
	return NULL;
}

/*
 * A file with two lanes (a new lane 1, or a lane 0 whose lane 1 is in
 * the table): both lanes hold back the evidence of a mapping new to them
 * until its first verdict (split.h).
 */
static void afa_stream_mark_split(struct afa_stream *s)
{
	struct afa_stream_key key = s->key;
	struct afa_stream *sib;

	key.lane = !key.lane;
	sib = afa_stream_lookup(&key);
	if (!s->key.lane && !sib)
		return;
	s->split = true;
	afa_stream_set_order(s, s->ctl.order);
	if (sib && !sib->split) {
		sib->split = true;
		afa_stream_set_order(sib, sib->ctl.order);
	}
}

/*
 * A lane 1 leaves the table: its file has one lane again, and its lane
 * 0 stops holding back the evidence of new mappings (otherwise a lane 0
 * kept the flag for a split that no longer exists, and every short
 * process that ended before its first verdict taught it nothing).
 */
static void afa_stream_unmark_split(const struct afa_stream *s)
{
	struct afa_stream_key key = s->key;
	struct afa_stream *sib;

	if (!key.lane)
		return;
	key.lane = 0;
	sib = afa_stream_lookup(&key);
	if (sib && sib->split) {
		sib->split = false;
		afa_stream_set_order(sib, sib->ctl.order);
	}
}

/*
 * A free way of the set, else the least recently faulted, if not now:
 * not one faulted in the last fold, nor one this fold took.
 */
static struct afa_stream *afa_stream_victim(const struct afa_stream_key *key)
{
	unsigned int set = afa_stream_set(key), i;
	struct afa_stream *victim = NULL, *s;

	for (i = set; i < set + AFA_STREAM_WAYS; i++) {
		s = &afa_streams[i];
		if (!s->key.mapping)
			return s;
		if (s->last.faults || test_bit(i, afa_stream_taken))
			continue;
		if (!victim || time_before(s->last_fault, victim->last_fault))
			victim = s;
	}
	return victim;
}

static bool afa_stream_add(const struct afa_stream_cand *c,
			   const struct afa_ctl_params *p)
{
	struct afa_stream *s = afa_stream_victim(&c->key);
	struct afa_ctl_params tmp;
	struct afa_stream_id id;

	if (!s)
		return false;
	if (s->key.mapping) {
		afa_stream_id(s, &id);
		trace_afa_stream(s->key.class, &id, s->ctl.order, false);
		afa_stream_unmark_split(s);
	}
	__set_bit(s - afa_streams, afa_stream_taken);
	s->gen++;
	s->last = (struct afa_evidence){};
	s->pending = (struct afa_ctl_input){};
	s->last_fault = jiffies;
	s->nr_faults = 0;
	s->nr_tested = 0;
	s->known = false;
	s->dense = false;
	s->split = false;
	afa_ctl_init(&s->ctl, afa_class_params(c->key.class, p, &tmp),
		     c->order);
	afa_stream_publish(s, &c->key, s->ctl.order);
	/*
	 * The counters' baseline once the new generation is out: what a
	 * fault that checked the old one adds before this is the old file's
	 * and stays out of the new one's evidence.  Either way at most the
	 * faults in flight on other CPUs: an old one's adding after this
	 * counts here, a new one's before it is lost.
	 */
	afa_stream_sum(s - afa_streams, &s->seen);
	afa_stream_mark_split(s);
	afa_stream_id(s, &id);
	trace_afa_stream(s->key.class, &id, s->ctl.order, true);
	return true;
}

/*
 * Read another CPU's ring of candidates at once: read one by one, a
 * candidate noted between two reads into a slot read already, followed
 * by a newer one in a slot not read yet, would be passed over for good.
 */
static void afa_stream_read_cands(struct afa_stream_cpu *sc,
				  struct afa_stream_cand *ring)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&sc->cand_seq);
		memcpy(ring, sc->cand, sizeof(sc->cand));
	} while (read_seqcount_retry(&sc->cand_seq, seq));
}

/*
 * Add one CPU's candidates noted since the last fold took them.  A file
 * whose set is full of files faulted in this fold waits: it keeps its
 * class's window meanwhile, and it is looked at again at the next fold
 * if no newer candidate took its ring slot (cand_taken stays before it).
 * The others are taken once, also those noted after a waiting one
 * (cand_done): a candidate left in the ring and added again at every
 * fold would evict a live stream each time it found its file evicted,
 * and five files of one set in the rings would evict each other fold
 * after fold.
 */
static unsigned int afa_stream_add_cpu(struct afa_stream_cpu *sc,
				       const struct afa_ctl_params *p)
{
	u32 taken = sc->cand_taken, done = taken, wait = 0;
	struct afa_stream_cand ring[AFA_NR_CANDS], *c;
	unsigned int i, n = 0;
	bool waits = false;

	afa_stream_read_cands(sc, ring);
	for (i = 0; i < AFA_NR_CANDS; i++) {
		c = &ring[i];
		if (!c->valid || (s32)(c->seq - taken) <= 0 ||
		    c->seq == sc->cand_done[i])
			continue;
		if ((s32)(c->seq - done) > 0)
			done = c->seq;
		if (afa_stream_lookup(&c->key)) {
			WRITE_ONCE(sc->cand_done[i], c->seq);
			continue;
		}
		if (afa_stream_add(c, p)) {
			WRITE_ONCE(sc->cand_done[i], c->seq);
			n++;
			continue;
		}
		if (!waits || (s32)(c->seq - wait) < 0)
			wait = c->seq;
		waits = true;
	}
	WRITE_ONCE(sc->cand_taken, waits ? wait - 1 : done);
	return n;
}

/**
 * afa_stream_add_noted() - add the files the fault path noted
 * @p:	the law's parameters, for the order bounds
 *
 * Return: how many slots were taken (new, or reused).
 */
unsigned int afa_stream_add_noted(const struct afa_ctl_params *p)
{
	unsigned int n = 0;
	int cpu;

	bitmap_zero(afa_stream_taken, AFA_NR_STREAMS);
	for_each_possible_cpu(cpu)
		n += afa_stream_add_cpu(per_cpu_ptr(afa_stream_cpu, cpu), p);
	return n;
}

/**
 * afa_stream_rebound() - pull every stream inside new order bounds
 * @p:	the new parameters
 *
 * The bounds are its class's (afa_class_params(): MADV_RANDOM's ceiling
 * holds against a min_order above it).  A stream already inside keeps
 * what it learned.
 */
void afa_stream_rebound(const struct afa_ctl_params *p)
{
	const struct afa_ctl_params *b;
	struct afa_ctl_params tmp;
	struct afa_stream *s;
	unsigned int i;
	u8 order;

	for (i = 0; i < AFA_NR_STREAMS; i++) {
		s = &afa_streams[i];
		if (!s->key.mapping)
			continue;
		b = afa_class_params(s->key.class, p, &tmp);
		order = clamp_t(u8, s->ctl.order, b->min_order, b->max_order);
		if (order == s->ctl.order)
			continue;
		afa_ctl_init(&s->ctl, b, order);
		s->pending = (struct afa_ctl_input){};
		afa_stream_set_order(s, order);
	}
}

/** afa_stream_nr_visits() - slots the folds summed since load, for stats */
u64 afa_stream_nr_visits(void)
{
	return afa_stream_visits;
}

/** afa_stream_nr_used() - slots in use, for stats */
unsigned int afa_stream_nr_used(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < AFA_NR_STREAMS; i++)
		n += !!afa_streams[i].key.mapping;
	return n;
}

/*
 * KiB a fault of the stream maps, as measured since its order last moved
 * (probe.c's span); 0 while no fault at this order was measured.
 */
static u64 afa_stream_span_kib(const struct afa_ctl_input *in)
{
	if (!in->nr_spans)
		return 0;
	return div_u64((u64)in->nr_span_pages << PAGE_SHIFT >> 10, in->nr_spans);
}

/**
 * afa_stream_show() - the streams in use, one line each
 * @m:	the stats file; statistics lock held by the caller
 *
 * A stream is shown by device and inode, never by address.
 */
void afa_stream_show(struct seq_file *m)
{
	const struct afa_stream *s;
	unsigned int i;

	seq_printf(m, "# streams: %u of %u slots in use\n",
		   afa_stream_nr_used(), AFA_NR_STREAMS);
	seq_puts(m, "stream class        dev          ino lane order   window_kib  span_kib   faults grow% trial% idle_ms settled   tested split\n");
	for (i = 0; i < AFA_NR_STREAMS; i++) {
		s = &afa_streams[i];
		if (!s->key.mapping)
			continue;
		seq_printf(m, "%6u %-8s %4u:%-4u %12llu %4u %5u %12llu %9llu %8llu %5u %6u %7u %7u %8llu %5u\n",
			   i, afa_class_name(s->key.class),
			   MAJOR(s->key.dev), MINOR(s->key.dev), s->key.ino,
			   s->key.lane, s->ctl.order,
			   afa_order_to_bytes(s->ctl.order, PAGE_SHIFT) >> 10,
			   afa_stream_span_kib(&s->pending),
			   s->nr_faults,
			   afa_ctl_grow_permille(&s->ctl) / 10,
			   afa_ctl_trial_permille(&s->ctl) / 10,
			   jiffies_to_msecs(jiffies - s->last_fault),
			   afa_ctl_settled(&s->ctl), s->nr_tested, s->split);
	}
}

/**
 * afa_stream_init() - allocate the per-CPU counters, set up the seqcounts
 *
 * Return: 0, or -ENOMEM.
 */
int afa_stream_init(void)
{
	unsigned int i;
	int cpu;

	afa_stream_cpu = alloc_percpu(struct afa_stream_cpu);
	if (!afa_stream_cpu)
		return -ENOMEM;
	for (i = 0; i < AFA_NR_STREAMS; i++)
		seqcount_init(&afa_streams[i].seq);
	for_each_possible_cpu(cpu)
		seqcount_init(&per_cpu_ptr(afa_stream_cpu, cpu)->cand_seq);
	return 0;
}

/** afa_stream_exit() - free the per-CPU counters, once nothing counts */
void afa_stream_exit(void)
{
	free_percpu(afa_stream_cpu);
}

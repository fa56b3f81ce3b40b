// SPDX-License-Identifier: GPL-2.0
/*
 * The stream table.  A stream is one VMA (mm, start, file) with its own
 * learned window, so that two mappings of one class that want opposite
 * windows (a scan and a sparse probe) each get theirs.
 *
 * Concurrency: only the period worker writes the table, under the
 * figures lock; each slot's key and order are published under a
 * seqcount, which the fault path reads without locks or writes.  The
 * fault path counts per CPU per slot, and leaves streams it does not find
 * in a small per-CPU candidate ring for the worker to add.
 *
 * A slot whose VMA went away is not noticed at once: its key no longer
 * matches any fault, it goes idle and is evicted.  A new VMA with the same
 * mm, start and file is the same mapping and inherits the learned state;
 * any other reuse of a freed VMA or mm changes the key.  Samples carry
 * the slot's generation, so those taken before a slot was reused are
 * dropped.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include "account.h"
#include "afa.h"
#include "stream.h"
#include "topology.h"
#include "trace.h"

/* Candidates per CPU: new streams seen in one period, most recent kept. */
#define AFA_NR_CANDS	4

/*
 * Periods without a fault before a stream's slot is freed: 25 periods is
 * 5 s at the default period, longer than a program pauses between phases
 * of one scan, short enough to recycle the slots of exited programs.
 */
#define AFA_STREAM_IDLE_MAX	25

struct afa_stream_cpu {
	struct afa_stream_count count[AFA_NR_STREAMS];
	seqcount_t cand_seq;			/* local CPU writes */
	unsigned int cand_next;			/* next slot to overwrite */
	struct afa_stream_cand cand[AFA_NR_CANDS];
};

static DEFINE_PER_CPU(struct afa_stream_cpu, afa_stream_cpu);
static struct afa_stream afa_streams[AFA_NR_STREAMS];

static unsigned int afa_stream_set(const struct afa_stream_key *key)
{
	unsigned long h = (unsigned long)key->mm ^ (unsigned long)key->file ^
			  key->vm_start;

	return hash_long(h, ilog2(AFA_NR_STREAMS / AFA_STREAM_WAYS)) *
	       AFA_STREAM_WAYS;
}

static bool afa_key_eq(const struct afa_stream_key *a,
		       const struct afa_stream_key *b)
{
	return a->mm == b->mm && a->file == b->file &&
	       a->vm_start == b->vm_start;
}

static void afa_key_of(struct vm_area_struct *vma, struct afa_stream_key *key)
{
	key->mm = vma->vm_mm;
	key->file = vma->vm_file;
	key->vm_start = vma->vm_start;
}

/**
 * afa_stream_lookup() - the stream of a VMA, from the fault path
 * @vma:	faulting VMA
 * @order:	set to the stream's window order when found
 * @gen:	set to the slot's generation when found
 *
 * Lock-free: reads at most AFA_STREAM_WAYS slots under their seqcounts.
 *
 * Return: the slot, or AFA_NO_STREAM.
 */
unsigned int afa_stream_lookup(struct vm_area_struct *vma, u8 *order,
			       u32 *gen)
{
	struct afa_stream_key key;
	unsigned int set, i, seq;
	struct afa_stream *s;
	bool match;

	afa_key_of(vma, &key);
	set = afa_stream_set(&key);
	for (i = set; i < set + AFA_STREAM_WAYS; i++) {
		s = &afa_streams[i];
		do {
			seq = read_seqcount_begin(&s->seq);
			match = afa_key_eq(&s->key, &key);
			*order = s->order;
			*gen = s->gen;
		} while (read_seqcount_retry(&s->seq, seq));
		if (match)
			return i;
	}
	return AFA_NO_STREAM;
}

/**
 * afa_stream_count_fault() - count a fault of a stream, per CPU
 * @slot:	from afa_stream_lookup(), not AFA_NO_STREAM
 * @hit:	the faulting page was mapped by map_pages
 */
void afa_stream_count_fault(unsigned int slot, bool hit)
{
	this_cpu_inc(afa_stream_cpu.count[slot].faults);
	if (hit)
		this_cpu_inc(afa_stream_cpu.count[slot].hits);
}

/**
 * afa_stream_note() - remember a VMA the table does not hold yet
 * @vma:	faulting VMA
 * @class:	its class
 *
 * Fault path, preemption off: overwrites the oldest of this CPU's
 * candidates; the worker adds them at the end of the period.  A VMA that
 * faults again in the same period as its latest note is not noted again.
 */
void afa_stream_note(struct vm_area_struct *vma, unsigned int class)
{
	struct afa_stream_cpu *sc = this_cpu_ptr(&afa_stream_cpu);
	struct inode *inode = file_inode(vma->vm_file);
	unsigned long period = READ_ONCE(afa_period_seq);
	struct afa_stream_cand *c;

	c = &sc->cand[sc->cand_next % AFA_NR_CANDS];
	if (c->key.mm == vma->vm_mm && c->key.vm_start == vma->vm_start &&
	    c->key.file == vma->vm_file && c->period == period)
		return;
	write_seqcount_begin(&sc->cand_seq);
	c = &sc->cand[++sc->cand_next % AFA_NR_CANDS];
	afa_key_of(vma, &c->key);
	c->id.tgid = current->tgid;
	c->id.dev = inode->i_sb->s_dev;
	c->id.ino = inode->i_ino;
	c->period = period;
	c->class = class;
	c->domain = afa_this_domain();
	write_seqcount_end(&sc->cand_seq);
}

/**
 * afa_stream_slot() - a slot of the table, for the period worker
 * @slot:	0 .. AFA_NR_STREAMS - 1
 *
 * Return: the slot; its key.mm is NULL when free.
 */
struct afa_stream *afa_stream_slot(unsigned int slot)
{
	return &afa_streams[slot];
}

/* Publish a slot's key, generation and order to the fault path. */
static void afa_stream_publish(struct afa_stream *s,
			       const struct afa_stream_key *key, u8 order,
			       bool reuse)
{
	preempt_disable();
	write_seqcount_begin(&s->seq);
	s->key = *key;
	s->order = order;
	if (reuse)
		s->gen++;
	write_seqcount_end(&s->seq);
	preempt_enable();
}

/**
 * afa_stream_set_order() - change the window order a stream's faults get
 * @s:		a slot in use
 * @order:	new order
 */
void afa_stream_set_order(struct afa_stream *s, u8 order)
{
	afa_stream_publish(s, &s->key, order, false);
}

static void afa_stream_sum(unsigned int slot, u32 *faults, u32 *hits)
{
	const struct afa_stream_count *c;
	int cpu;

	*faults = 0;
	*hits = 0;
	for_each_possible_cpu(cpu) {
		c = &per_cpu_ptr(&afa_stream_cpu, cpu)->count[slot];
		*faults += READ_ONCE(c->faults);
		*hits += READ_ONCE(c->hits);
	}
}

/**
 * afa_stream_fold() - start the period of every stream in use
 *
 * Fault and hit counts since the last fold, modulo 2^32; usefulness is
 * added by afa_stream_account() as samples are checked.
 */
void afa_stream_fold(void)
{
	struct afa_stream *s;
	u32 faults, hits;
	unsigned int i;

	for (i = 0; i < AFA_NR_STREAMS; i++) {
		s = &afa_streams[i];
		if (!s->key.mm)
			continue;
		afa_stream_sum(i, &faults, &hits);
		s->period = (struct afa_stream_fig){
			.faults = faults - s->seen_faults,
			.hits = hits - s->seen_hits,
		};
		s->seen_faults = faults;
		s->seen_hits = hits;
		s->idle_periods = s->period.faults ? 0 : s->idle_periods + 1;
	}
}

/**
 * afa_stream_account() - credit a checked sample to its stream
 * @slot:	slot the sample was taken for, or AFA_NO_STREAM
 * @gen:	the slot's generation then; a reused slot ignores the sample
 * @checked:	pages checked
 * @used:	of those, pages used
 */
void afa_stream_account(unsigned int slot, u32 gen, u32 checked, u32 used)
{
	struct afa_stream *s;

	if (slot >= AFA_NR_STREAMS)
		return;
	s = &afa_streams[slot];
	if (!s->key.mm || s->gen != gen)
		return;
	s->period.checked += checked;
	s->period.used += used;
}

static bool afa_stream_known(const struct afa_stream_key *key)
{
	unsigned int set = afa_stream_set(key), i;

	for (i = set; i < set + AFA_STREAM_WAYS; i++)
		if (afa_key_eq(&afa_streams[i].key, key))
			return true;
	return false;
}

/* Free way of a set, else the longest idle one that is idle now. */
static struct afa_stream *afa_stream_victim(const struct afa_stream_key *key)
{
	unsigned int set = afa_stream_set(key), i;
	struct afa_stream *victim = NULL, *s;

	for (i = set; i < set + AFA_STREAM_WAYS; i++) {
		s = &afa_streams[i];
		if (!s->key.mm)
			return s;
		if (s->idle_periods &&
		    (!victim || s->idle_periods > victim->idle_periods))
			victim = s;
	}
	return victim;
}

static void afa_stream_add(const struct afa_stream_cand *c, u8 order)
{
	struct afa_stream *s = afa_stream_victim(&c->key);
	unsigned int slot;

	if (!s)
		return;
	slot = s - afa_streams;
	afa_stream_sum(slot, &s->seen_faults, &s->seen_hits);
	s->class = c->class;
	s->domain = c->domain;
	s->idle_periods = 0;
	s->period = (struct afa_stream_fig){};
	s->id = c->id;
	s->id.slot = slot;
	afa_ctl_init(&s->ctl, afa_ctl_params_now(), order);
	afa_stream_publish(s, &c->key, s->ctl.order, true);
	trace_afa_stream(s->class, s->domain, &s->id, s->order, true);
}

/* Read one candidate of another CPU consistently. */
static bool afa_stream_read_cand(struct afa_stream_cpu *sc, unsigned int i,
				 struct afa_stream_cand *c)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&sc->cand_seq);
		*c = sc->cand[i];
	} while (read_seqcount_retry(&sc->cand_seq, seq));
	return c->key.mm;
}

/**
 * afa_stream_add_noted() - add the streams the fault path noted
 * @period:		afa_period_seq of the period that just ended; notes
 *			from it and from the one before are taken
 * @initial_order:	the order a new stream of a class and domain starts at
 *
 * A stream whose set is full of streams active this period waits: it
 * keeps its class's window meanwhile.
 */
void afa_stream_add_noted(unsigned long period,
			  u8 (*initial_order)(unsigned int dom,
					      unsigned int class))
{
	struct afa_stream_cand c;
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		for (i = 0; i < AFA_NR_CANDS; i++) {
			if (!afa_stream_read_cand(per_cpu_ptr(&afa_stream_cpu, cpu),
						  i, &c) ||
			    period - c.period > 1 ||
			    afa_stream_known(&c.key))
				continue;
			afa_stream_add(&c, initial_order(c.domain, c.class));
		}
	}
}

/** afa_stream_evict_idle() - free the slots of streams idle for long */
void afa_stream_evict_idle(void)
{
	static const struct afa_stream_key none;
	struct afa_stream *s;
	unsigned int i;

	for (i = 0; i < AFA_NR_STREAMS; i++) {
		s = &afa_streams[i];
		if (!s->key.mm || s->idle_periods <= AFA_STREAM_IDLE_MAX)
			continue;
		trace_afa_stream(s->class, s->domain, &s->id, s->order, false);
		afa_stream_publish(s, &none, 0, true);
	}
}

/** afa_stream_nr_used() - slots in use, for stats */
unsigned int afa_stream_nr_used(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < AFA_NR_STREAMS; i++)
		n += !!afa_streams[i].key.mm;
	return n;
}

/**
 * afa_stream_show() - the streams in use, one line each
 * @m:	the stats file; figures lock held by the caller
 *
 * A stream is shown by process, device and inode, never by address.
 */
void afa_stream_show(struct seq_file *m)
{
	const struct afa_stream *s;
	unsigned int i;

	seq_printf(m, "# streams: %u of %u slots in use\n",
		   afa_stream_nr_used(), AFA_NR_STREAMS);
	seq_puts(m, "stream class    node core       pid      dev          ino order     KiB faults useful% idle\n");
	for (i = 0; i < AFA_NR_STREAMS; i++) {
		s = &afa_streams[i];
		if (!s->key.mm)
			continue;
		seq_printf(m, "%6u %-8s %4u %-6s %7d %4u:%-4u %12llu %5u %7llu %6u %5u.%u %4u\n",
			   i, afa_class_name(s->class),
			   afa_domain_node(s->domain),
			   afa_core_name(afa_domain_core(s->domain)), s->id.tgid,
			   MAJOR(s->id.dev), MINOR(s->id.dev), s->id.ino,
			   s->order, afa_order_to_bytes(s->order, PAGE_SHIFT) >> 10,
			   s->period.faults,
			   afa_ratio_permille(s->ctl.usefulness_avg) / 10,
			   afa_ratio_permille(s->ctl.usefulness_avg) % 10,
			   s->idle_periods);
	}
}

/** afa_stream_init() - set up the seqcounts of the table and candidates */
void afa_stream_init(void)
{
	unsigned int i;
	int cpu;

	for (i = 0; i < AFA_NR_STREAMS; i++)
		seqcount_init(&afa_streams[i].seq);
	for_each_possible_cpu(cpu)
		seqcount_init(&per_cpu_ptr(&afa_stream_cpu, cpu)->cand_seq);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streams: learned window state per file and class, in a bounded table
 * that the fault path reads without locks.  State outlives the processes
 * that map the file: every process that maps it starts from its window.
 */
#ifndef _AFA_STREAM_H
#define _AFA_STREAM_H

#include <linux/percpu.h>
#include <linux/seqlock.h>
#include <linux/types.h>
#include "account.h"
#include "control_law.h"

struct address_space;
struct seq_file;
struct vm_area_struct;

/*
 * 256 streams: the files that take read faults on a busy machine are the
 * binaries and libraries of the programs it runs (text and read-only data
 * are two classes, two streams) plus the files they scan; 4-way sets keep
 * a lookup to four slots.  docs/design.md gives the memory cost.
 */
#define AFA_NR_STREAMS		256
#define AFA_STREAM_WAYS		4
#define AFA_NO_STREAM		AFA_NR_STREAMS

/*
 * A stream is one file in one class, in one of its two lanes (split.h).
 * The file is named by its address_space and checked by device, inode
 * number and generation: an inode freed and its memory reused for
 * another file does not match, also where the filesystem keeps no
 * generation (squashfs, FAT, iso9660: 0) and another of its kind
 * mounted has a file of the same number.
 */
struct afa_stream_key {
	struct address_space *mapping;	/* identity only, never dereferenced */
	u64 ino;			/* inode number */
	dev_t dev;			/* device of its filesystem */
	u32 generation;			/* inode generation */
	u8 class;			/* enum afa_class */
	u8 lane;			/* 0: the file's window; 1: split off */
};

/* Who a stream is, for traces: no kernel address. */
struct afa_stream_id {
	int slot;		/* slot in the table; -1: a class state */
	u16 domain;		/* domain of a class state */
	dev_t dev;		/* device of the file */
	u64 ino;		/* inode number of the file */
	u8 lane;		/* lane of a stream */
};

/*
 * The published word of a slot: its generation, whether its law has
 * settled (afa_ctl_settled(): its growth evidence is sampled), whether
 * its trials are rare (afa_ctl_rare_trials(): most trials wanted, no
 * step down pays; trials then cost more than they tell), whether its
 * evidence judges mappings and is dense, whether its file has split
 * into two lanes (split.h), and its order (at most AFA_ORDER_MAX).
 * AFA_PUB_ORDER_BITS is the generation's shift: the order and the flags
 * below it.
 */
#define AFA_PUB_ORDER_BITS	9
#define AFA_PUB_ORDER_MASK	(BIT(AFA_PUB_ORDER_BITS - 5) - 1)
#define AFA_PUB_SPLIT		BIT(AFA_PUB_ORDER_BITS - 5)
#define AFA_PUB_KNOWN		BIT(AFA_PUB_ORDER_BITS - 4)
#define AFA_PUB_DENSE		BIT(AFA_PUB_ORDER_BITS - 3)
#define AFA_PUB_RARE_TRIALS	BIT(AFA_PUB_ORDER_BITS - 2)
#define AFA_PUB_SETTLED		BIT(AFA_PUB_ORDER_BITS - 1)

static inline u8 afa_pub_order(u32 pub)
{
	return pub & AFA_PUB_ORDER_MASK;
}

static inline bool afa_pub_rare_trials(u32 pub)
{
	return pub & AFA_PUB_RARE_TRIALS;
}

static_assert(AFA_ORDER_MAX <= AFA_PUB_ORDER_MASK);

static inline bool afa_pub_settled(u32 pub)
{
	return pub & AFA_PUB_SETTLED;
}

static inline bool afa_pub_split(u32 pub)
{
	return pub & AFA_PUB_SPLIT;
}

static inline bool afa_pub_known(u32 pub)
{
	return pub & AFA_PUB_KNOWN;
}

static inline bool afa_pub_dense(u32 pub)
{
	return pub & AFA_PUB_DENSE;
}

static inline u32 afa_pub_gen(u32 pub)
{
	return pub >> AFA_PUB_ORDER_BITS;
}

/* The word for a slot's @gen (its low bits), @flags (AFA_PUB_*), @order. */
static inline u32 afa_pub_make(u32 gen, u32 flags, u8 order)
{
	return gen << AFA_PUB_ORDER_BITS | flags | order;
}

/*
 * Slot reuses after which a generation reads the same again.  A slot is
 * taken at most once a fold, and a fold that takes any bumps
 * afa_table_gen after it published them (afa_stream_add_noted(), then
 * afa_period_table_grew()): a reader may see one takeover more than the
 * table generations that passed.
 */
#define AFA_PUB_GEN_PERIOD	BIT(32 - AFA_PUB_ORDER_BITS)

/**
 * afa_table_gen_recent() - does a slot generation read at @then still tell?
 * @now:	afa_table_gen now
 * @then:	afa_table_gen when the generation was read, or earlier
 *
 * Return: true while fewer than AFA_PUB_GEN_PERIOD - 1 table generations
 * passed: the slot was taken fewer than AFA_PUB_GEN_PERIOD times since,
 * the fold in flight included, and a matching generation means none.
 */
static inline bool afa_table_gen_recent(unsigned long now, unsigned long then)
{
	return now - then < AFA_PUB_GEN_PERIOD - 1;
}

/**
 * afa_pub_gen_current() - does a generation read earlier still name the file?
 * @pub:	the slot's published word now
 * @gen:	the slot's generation when it was read
 * @now:	afa_table_gen now
 * @then:	afa_table_gen when @gen was read, or earlier
 *
 * Return: true if the slot still holds the file it held at @gen, as far
 * as afa_table_gen_recent() lets a generation tell; false if it was
 * taken since, or too long ago to tell.
 */
static inline bool afa_pub_gen_current(u32 pub, u32 gen, unsigned long now,
				       unsigned long then)
{
	return afa_pub_gen(pub) == gen && afa_table_gen_recent(now, then);
}

/*
 * Per CPU, the slots whose counters moved since the worker last took
 * the marks: a fold visits only those (afa_stream_fold()).
 */
#define AFA_MARK_WORDS		BITS_TO_LONGS(AFA_NR_STREAMS)
DECLARE_PER_CPU(unsigned long [AFA_MARK_WORDS], afa_stream_marked);

/**
 * afa_stream_mark_slot() - note that a slot's counters on this CPU moved
 * @slot:	not AFA_NO_STREAM
 *
 * Fault path, preemption off, after the bumps.  One unlocked OR: racing
 * the worker's exchange it can set again marks the worker just took
 * (a visit too many), never lose its own.
 */
static inline void afa_stream_mark_slot(unsigned int slot)
{
	__this_cpu_or(afa_stream_marked[slot / BITS_PER_LONG],
		      BIT(slot % BITS_PER_LONG));
}

/* fault path */
unsigned int afa_stream_find(struct vm_area_struct *vma, unsigned int class,
			     unsigned int lane, u32 *pub);
const u32 *afa_stream_pub(unsigned int slot);
struct afa_evidence *afa_stream_evidence(unsigned int slot);
void afa_stream_note(struct vm_area_struct *vma, unsigned int class,
		     unsigned int lane);

/* period worker, statistics lock held */
u64 afa_stream_fold(const struct afa_ctl_params *p,
		    const struct afa_ctl_costs *c);
unsigned int afa_stream_add_noted(const struct afa_ctl_params *p);
void afa_stream_rebound(const struct afa_ctl_params *p);
unsigned int afa_stream_nr_used(void);
u64 afa_stream_nr_visits(void);
void afa_stream_show(struct seq_file *m);
int afa_stream_init(void);
void afa_stream_exit(void);

#endif /* _AFA_STREAM_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mapping streams: learned window state per VMA, in a bounded table that
 * the fault path reads without locks.
 */
#ifndef _AFA_STREAM_H
#define _AFA_STREAM_H

#include <linux/seqlock.h>
#include <linux/types.h>
#include "control_law.h"

struct file;
struct mm_struct;
struct seq_file;
struct vm_area_struct;

/*
 * 256 streams: the VMAs that take fault-around at once on a busy machine
 * are the text and data of a few dozen programs plus the files they scan;
 * 4-way sets keep lookup to four cache lines at most.  See
 * docs/design.md for the memory cost.
 */
#define AFA_NR_STREAMS		256
#define AFA_STREAM_WAYS		4
#define AFA_NO_STREAM		AFA_NR_STREAMS

/* A stream is one VMA: its mm, its start and its file. */
struct afa_stream_key {
	struct mm_struct *mm;	/* identity only, never dereferenced */
	struct file *file;	/* identity only, never dereferenced */
	unsigned long vm_start;
};

/* Who a stream is, for traces: no kernel address. */
struct afa_stream_id {
	int slot;		/* slot in the table; -1: a class's own state */
	pid_t tgid;		/* process that faulted it in first */
	dev_t dev;		/* device of the file */
	u64 ino;		/* inode number of the file */
};

/* One period of one stream, as the law reads it. */
struct afa_stream_fig {
	u32 faults;		/* map_pages calls */
	u32 hits;		/* of those, the faulting page was mapped */
	u32 checked;		/* sampled pages checked for use */
	u32 used;		/* of those, accessed since mapped */
};

struct afa_stream {
	seqcount_t seq;			/* guards key and order for readers */
	struct afa_stream_key key;	/* key.mm == NULL: free slot */
	u8 order;			/* window order the fault path applies */
	/* the rest belongs to the period worker */
	u8 class;			/* enum afa_class */
	u16 domain;			/* domain it was first seen in */
	u32 gen;			/* bumped on reuse: stale samples miss */
	u32 idle_periods;		/* periods without a fault */
	u32 seen_faults;		/* per-CPU fault sums at the last fold */
	u32 seen_hits;			/* per-CPU hit sums at the last fold */
	struct afa_stream_fig period;	/* the period being folded */
	struct afa_stream_id id;
	struct afa_ctl_state ctl;	/* the law's state for this stream */
};

/* Per-CPU fault-path counters of one stream slot (u32: deltas wrap). */
struct afa_stream_count {
	u32 faults;
	u32 hits;
};

/* A stream the fault path saw but did not find, for the worker to add. */
struct afa_stream_cand {
	struct afa_stream_key key;
	struct afa_stream_id id;
	unsigned long period;	/* afa_period_seq when noted */
	u8 class;
	u16 domain;
};

/* fault path */
unsigned int afa_stream_lookup(struct vm_area_struct *vma, u8 *order,
			       u32 *gen);
void afa_stream_count_fault(unsigned int slot, bool hit);
void afa_stream_note(struct vm_area_struct *vma, unsigned int class);

/* period worker, figures lock held */
void afa_stream_fold(void);
void afa_stream_account(unsigned int slot, u32 gen, u32 checked, u32 used);
void afa_stream_add_noted(unsigned long period,
			  u8 (*initial_order)(unsigned int dom,
					      unsigned int class));
void afa_stream_evict_idle(void);
struct afa_stream *afa_stream_slot(unsigned int slot);
void afa_stream_set_order(struct afa_stream *s, u8 order);
unsigned int afa_stream_nr_used(void);
void afa_stream_show(struct seq_file *m);

#endif /* _AFA_STREAM_H */

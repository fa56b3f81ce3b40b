/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Two lanes per file: when two mappings of one file want opposite
 * windows (a scan and a sparse probe of the same file, at once or one
 * process after another), each gets its own learned state.  A lane is a
 * stream of its own (stream.c keys by file, class and lane); a file that
 * never shows two behaviours has one lane and takes one slot.
 *
 * Every mapping starts in lane 0, the file's window.  The fault path
 * tallies, per mapping (probe.c's per-CPU VMA cache), the outcomes of its
 * growth tests and trials and how many of them hit: its density
 *
 *	d = hits / outcomes.
 *
 * A stream publishes whether its own evidence at its order is dense: a
 * quarter or more of its growth tests, or of its trials, hit.  After
 * AFA_SPLIT_OUTCOMES outcomes a mapping is judged against its lane:
 *
 *	d <  1/8  in a dense lane:	a sparse mapping, it changes lanes
 *	d >= 3/8  in a sparse lane:	a dense mapping, it changes lanes
 *
 * and its tally restarts.  The margins on either side of the lanes'
 * threshold of 1/4 keep a mapping that behaves like its lane where it
 * is.  A lane without evidence at its order yet judges nobody.  Until its
 * first verdict a mapping is tried at the usual rate even in a lane whose
 * trials are rare: at max_order, where there is no growth test, trials
 * are its only outcomes.
 *
 * Why these outcomes: a forward scan at any order finds about half its
 * growth tests hit (the window below is mapped, the one above is not yet)
 * and nearly all its trials; one page per 2 MiB finds none of either.
 * Eight outcomes are eight faults below max_order, where every fault has
 * a growth test: a process that makes a hundred faults is in its own
 * lane after the first few of them.
 */
#ifndef _AFA_SPLIT_H
#define _AFA_SPLIT_H

#include <linux/types.h>
#include "control_law.h"

#define AFA_SPLIT_OUTCOMES	8

/* The lanes' threshold, and the margins a mapping must pass to move. */
#define AFA_SPLIT_DENSE		(AFA_UNIT / 4)
#define AFA_SPLIT_SPARSE_8THS	1	/* d < 1/8: sparse */
#define AFA_SPLIT_DENSE_8THS	3	/* d >= 3/8: dense */

/* What a mapping's tally says. */
enum afa_split_verdict {
	AFA_SPLIT_WAIT,		/* too few outcomes yet */
	AFA_SPLIT_STAY,		/* judged: it belongs in its lane */
	AFA_SPLIT_MOVE,		/* judged: it belongs in the other lane */
};

/* One mapping's outcomes since it was last judged. */
struct afa_split_tally {
	u8 outcomes;
	u8 hits;
};

/**
 * afa_split_count() - add one fault's outcomes to a mapping's tally
 * @t:		the mapping's tally
 * @outcomes:	growth tests and trials this fault resolved
 * @hits:	of those, the hits
 *
 * A fault resolves at most one test and a few trials, and the tally is
 * judged at every fault: it stays far below U8_MAX.
 */
static inline void afa_split_count(struct afa_split_tally *t,
				   unsigned int outcomes, unsigned int hits)
{
	t->outcomes += outcomes;
	t->hits += hits;
}

/**
 * afa_split_judge() - does a mapping belong in the other lane?
 * @t:		its tally, restarted once judged
 * @known:	its lane has evidence at its order
 * @dense:	its lane's evidence is dense (afa_split_dense())
 *
 * Return: the verdict; a lane without evidence keeps every mapping.
 */
static inline enum afa_split_verdict
afa_split_judge(struct afa_split_tally *t, bool known, bool dense)
{
	bool move;

	if (t->outcomes < AFA_SPLIT_OUTCOMES)
		return AFA_SPLIT_WAIT;
	if (dense)
		move = t->hits * 8 < t->outcomes * AFA_SPLIT_SPARSE_8THS;
	else
		move = t->hits * 8 >= t->outcomes * AFA_SPLIT_DENSE_8THS;
	*t = (struct afa_split_tally){};
	return known && move ? AFA_SPLIT_MOVE : AFA_SPLIT_STAY;
}

/**
 * afa_split_known() - has a stream evidence at its order to judge by?
 * @st:	its law state
 */
static inline bool afa_split_known(const struct afa_ctl_state *st)
{
	return st->have_grow || st->have_trial;
}

/**
 * afa_split_dense() - is a stream's evidence at its order dense?
 * @st:	its law state
 *
 * Return: true when a quarter or more of its growth tests or of its
 * trials hit; false also without evidence.
 */
static inline bool afa_split_dense(const struct afa_ctl_state *st)
{
	return (st->have_grow && st->grow_avg >= AFA_SPLIT_DENSE) ||
	       (st->have_trial && st->trial_avg >= AFA_SPLIT_DENSE);
}

#endif /* _AFA_SPLIT_H */

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
 * quarter or more of its growth tests, or of its trials, hit.  A mapping
 * is judged against its lane after AFA_SPLIT_OUTCOMES outcomes, and again
 * each time its outcomes double, on all of them:
 *
 *	d <  1/64  in a dense lane:	a sparse mapping, it changes lanes
 *	d >= 3/8   in a sparse lane:	a dense mapping, it changes lanes
 *
 * and its tally restarts when it moves.  The margins on either side of
 * the lanes' threshold of 1/4, and verdicts on ever more outcomes, keep a
 * mapping that behaves like its lane where it is: one whose true density
 * is 1/10 (dense random access early in a process, before much of the
 * file is mapped) leaves a dense lane at its first verdict with a chance
 * of 3% (no hit in 32; with d < 1/16, where one hit in 32 was sparse
 * too, the chance was 16%), and less at every later one; the chance that
 * some verdict moves it shrinks as its evidence grows, instead of adding
 * up over fixed-size verdicts.  A lane judges nobody until it has
 * evidence at its order of both kinds the order has: growth tests below
 * max_order, trials above min_order (a mapping's density counts both).
 * At max_order, where there is no growth test and trials are a mapping's
 * only outcomes, it is tried at the usual rate until its first verdict
 * even in a lane whose trials are rare.  A mapping new to a file that
 * has two lanes holds its evidence back until its first verdict: it
 * joins the lane the mapping stays in, or is dropped with the lane it
 * leaves, so that mappings on their way to the other lane do not teach
 * this one.
 *
 * Why these outcomes: a forward scan at any order finds about half its
 * growth tests hit (the window below is mapped, the one above is not yet)
 * and nearly all its trials (d about 0.6); one page per 2 MiB finds none
 * of either (d = 0).  At min_order a scan has no trials, and its growth
 * tests hit exactly every other fault: d = 1/2 to one hit, which is why
 * a sparse lane lets go at 3/8, not at 1/2 (at 1/2, one outcome lost to
 * a fault not tested kept a new scan in the probes' lane at order 0,
 * whose evidence it then took up to order 3: 541 faults where 160 were
 * due, 20-learning on the -rt kernel).  Thirty-two outcomes are 32
 * faults below max_order, where every fault has a growth test: a process
 * that makes a few hundred faults is in its own lane after its first 32.
 * (With 16, one process in five of a dense random reader left the scans'
 * lane of its file for a sparse one and kept small windows: fresh-rand,
 * 44.6% over the best static order, against 15.1% without lanes.)
 *
 * One verdict comes sooner: in a sparse lane, a mapping none of whose
 * first AFA_SPLIT_QUIET outcomes hit is judged then, to stay (its next
 * verdict at twice that, the usual first's place).  A mapping of density
 * 3/8 shows 16 misses in a row with a chance of (5/8)^16, below 0.1%; a
 * scan at min_order, which hits every other fault, never does.  Every
 * fault is tested until a mapping's first verdict: a new sparse reader
 * of a settled file took 32 tested faults where 16 tell
 * (docs/benchmarks.md, "A stamp for the fast path, quieter first
 * verdicts"; 8 gained nothing measurable there).
 */
#ifndef _AFA_SPLIT_H
#define _AFA_SPLIT_H

#include <linux/bits.h>
#include <linux/minmax.h>
#include <linux/types.h>
#include "control_law.h"

#define AFA_SPLIT_OUTCOMES	32
#define AFA_SPLIT_QUIET		16	/* outcomes, none hit: a sparse lane's */

/* The lanes' threshold, and the margins a mapping must pass to move. */
#define AFA_SPLIT_DENSE		(AFA_UNIT / 4)
#define AFA_SPLIT_SPARSE_SHIFT	6	/* d < 1/64: sparse */
/* d >= 3/8: dense (AFA_SPLIT_DENSE_NUM / 2^AFA_SPLIT_DENSE_SHIFT) */
#define AFA_SPLIT_DENSE_NUM	3
#define AFA_SPLIT_DENSE_SHIFT	3

/* What a mapping's tally says. */
enum afa_split_verdict {
	AFA_SPLIT_WAIT,		/* too few outcomes yet */
	AFA_SPLIT_STAY,		/* judged: it belongs in its lane */
	AFA_SPLIT_MOVE,		/* judged: it belongs in the other lane */
};

/* One mapping's outcomes since it came to its lane. */
struct afa_split_tally {
	u16 outcomes;
	u16 hits;
	u16 next;	/* outcomes of the next verdict; 0: the first */
};

/**
 * afa_split_count() - add one fault's outcomes to a mapping's tally
 * @t:		the mapping's tally
 * @outcomes:	growth tests and trials this fault resolved
 * @hits:	of those, the hits
 *
 * A fault resolves at most one test and a few trials.  Past 2^14
 * outcomes both counts are halved, which keeps the ratio and the next
 * verdict's place.  Hits are at most the outcomes: a trial's half found
 * wanted in the page tables is a hit whose trial was counted apart, and
 * at max_order, where only trials are outcomes, such hits alone must
 * not wrap the count before the first verdict.
 */
static inline void afa_split_count(struct afa_split_tally *t,
				   unsigned int outcomes, unsigned int hits)
{
	t->outcomes += outcomes;
	t->hits = min_t(u32, t->hits + hits, t->outcomes);
	if (t->outcomes >= BIT(14)) {
		t->outcomes /= 2;
		t->hits /= 2;
		t->next /= 2;
	}
}

/*
 * Is this a mapping's first verdict, early: none of its first
 * AFA_SPLIT_QUIET outcomes hit, in a lane whose evidence is known and
 * sparse?
 */
static inline bool afa_split_quiet(const struct afa_split_tally *t,
				   bool known, bool dense)
{
	return !t->next && known && !dense && !t->hits &&
	       t->outcomes >= AFA_SPLIT_QUIET;
}

/**
 * afa_split_judge() - does a mapping belong in the other lane?
 * @t:		its tally; restarted when it moves
 * @known:	its lane has evidence at its order
 * @dense:	its lane's evidence is dense (afa_split_dense())
 *
 * Return: the verdict; a lane without evidence keeps every mapping (and
 * judges it again at its next doubling).
 */
static inline enum afa_split_verdict
afa_split_judge(struct afa_split_tally *t, bool known, bool dense)
{
	bool move;

	if (t->outcomes < max_t(u16, t->next, AFA_SPLIT_OUTCOMES) &&
	    !afa_split_quiet(t, known, dense))
		return AFA_SPLIT_WAIT;
	t->next = 2 * t->outcomes;
	if (dense)
		move = (u32)t->hits << AFA_SPLIT_SPARSE_SHIFT < t->outcomes;
	else
		move = (u32)t->hits << AFA_SPLIT_DENSE_SHIFT >=
		       AFA_SPLIT_DENSE_NUM * (u32)t->outcomes;
	if (!known || !move)
		return AFA_SPLIT_STAY;
	*t = (struct afa_split_tally){};
	return AFA_SPLIT_MOVE;
}

/**
 * afa_split_known() - has a stream evidence at its order to judge by?
 * @st:		its law state
 * @min_order:	the smallest window order: no trial at it
 * @max_order:	the largest: no growth test at it
 *
 * A mapping's density counts its growth tests and its trials together,
 * so its lane judges only with both kinds of evidence at its order, of
 * each kind the order can have.  With growth tests alone (a new order,
 * its first trials not yet counted) a lane whose tests hit one in eight
 * looked sparse to a mapping like it whose trials hit three in four:
 * the second exec of a binary left the first's lane at its first
 * verdict (vmtest-debug, 2026-12-04).
 */
static inline bool afa_split_known(const struct afa_ctl_state *st,
				   u32 min_order, u32 max_order)
{
	if (!st->have_grow && !st->have_trial)
		return false;
	return (st->have_grow || st->order >= max_order) &&
	       (st->have_trial || st->order <= min_order);
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

// SPDX-License-Identifier: GPL-2.0
/*
 * autofaultaround control law: a PI controller, with an optional D term,
 * that picks the fault-around window order n of one stream (a file in
 * one class; the window is N = 2^n pages) to minimise what faults cost,
 * from evidence that fault positions give.  docs/control-law.md derives
 * it and argues the defaults and the stability.
 *
 * The plant.  A fault costs F ns of its own and every page it maps P ns
 * (map, and unmap later; plus any price put on memory).  Work that takes
 * f faults at order n costs
 *
 *	T(n) = f * (F + N * P)
 *
 * Evidence, gathered on the fault path at order n:
 *
 *	g = grow_hits / faults	a window of order n + 1 had served the fault
 *				(its buddy block is mapped already)
 *	t = trial_hits / trials	of the faults given order n - 1 on trial, the
 *				half left out was wanted later (a fault in
 *				it found the other half mapped), at most 1
 *
 * so that order n + 1 takes f * (1 - g) faults, and order n - 1 takes
 * f * (1 + t): a trial fault is the first of its window, and a wanted
 * half costs one more.  The predicted relative savings of a step are
 *
 *	S+ = 1 - (1 - g) * (F + 2N * P) / (F + N * P)
 *	S- = 1 - (1 + t) * (F + N/2 * P) / (F + N * P)
 *
 * The pages a fault maps are not always N, and the probe measures them
 * per stream (M pages a fault at order n, afa_ctl_span()).  Where the
 * kernel maps more than the window (a large folio is mapped whole from
 * 6.18; a PMD-sized one by filemap_map_pmd() before), M >= 2N and each
 * N above becomes the pages that order maps at least, max(N, M),
 * max(2N, M) and max(N/2, M): a window below the folios' size costs what
 * the folio costs, and S- has no page saving to offer.  Where the window
 * maps only part of itself (its other pages are not cached, or lie past
 * the VMA: program text of many small files), M < N and each order maps
 * the same part of its window, N, 2N and N/2 times M/N.  M unknown (too
 * few measured faults) or N <= M < 2N (the window, and a little noise):
 * the windows' own N.
 *
 * and the law acts on the one that pays:
 *
 *	e_k = max(S+, free) if S+ > deadband, else -S- if S- > deadband,
 *	      else free, where free = 2 * deadband if S+ > 0 and g >= 1/2,
 *	      else 0
 *	P_k = kp * e_k
 *	I_k = clamp(I_{k-1} + ki * e_k, -1, 1)	(I_{k-1} = 0 if n moved)
 *	D_k = kd * (e_k - e_{k-1})		(D_k = 0 if n moved or e_{k-1} = 0)
 *	u_k = n_k + P_k + I_k + D_k
 *
 *	n_{k+1} = n_k		if |u_k - n_k| < 1/2 + hysteresis, else
 *	n_{k+1} = clamp(n_k + clamp(round(u_k - n_k), -max_step, max_step),
 *			min_order, max_order)
 *
 * k counts batches of evidence, not periods: a step is taken for every
 * min_samples faults (for g) or trials (for t) gathered at the current
 * order, however many one fold brings (afa_ctl_batch(); the caller stops
 * at a move, whose old evidence it drops), so
 * a stream converges after a bounded number of faults, however long or
 * short the processes that fault.  g and t are smoothed over the steps
 * at one order (weight 1/2^ewma_shift) and start afresh when n moves.
 * A batch speaks only for the sides it has evidence of.  Within the
 * deadband the order is right and the pending movement halves, unless
 * the batch has no evidence on the side it pushes to: then it is kept.
 * At min_order and max_order I may not push outwards (anti-windup).
 *
 * The third case is a free step: at g >= 1/2 the window of order n + 1
 * takes (1 - g) * 2N <= N pages for the work N pages a fault take now,
 * so it maps no page more and saves faults; its saving in time may be
 * within the deadband (F is small beside N * P at large N), but fewer
 * faults for no more pages is better at any price.  It is taken as an
 * error of twice the deadband: about 20 batches an order at the
 * defaults, which a g that only wanders above 1/2 in noisy batches
 * cannot sum to (every batch in the deadband halves I).
 *
 * The law rests where neither step saves more than the deadband and no
 * step is free.  That is the cost optimum, not a usefulness target: for
 * sequential access (g = 1/2, t = 1) S+ > 0 at every order, above the
 * deadband at small orders and free above them, so the window grows to
 * max_order; for sparse access (g = t = 0) S- > 0 at every order and it
 * shrinks to min_order.
 *
 * Fixed point: ratios, savings, gains and orders share AFA_UNIT (2^10 is
 * 1.0).  Savings are clamped to [-AFA_UNIT, AFA_UNIT], I to the same, P
 * and D saturate at AFA_TERM_MAX, so the output fits an s32 for any u32
 * gains and counts.  Costs are at most AFA_COST_NS_MAX (2^20), so every
 * product below stays under 2^62.  All types have fixed widths and
 * 64-bit divisions go through math64.h: the law is the same with 32-bit
 * longs.
 */
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include "control_law.h"

/* No term needs to move the order further than the whole order range. */
#define AFA_TERM_MAX		((AFA_ORDER_MAX + 1) * AFA_UNIT)

/* The controller state must stay this small: there is one per stream. */
#define AFA_CTL_STATE_BYTES	12

/* The defaults, for code that wants a copy to start from. */
const struct afa_ctl_params afa_ctl_params_default = AFA_CTL_PARAMS_DEFAULT;

/**
 * afa_ewma() - exponentially weighted moving average step
 * @avg:	previous average
 * @sample:	new measurement
 * @shift:	weight of @sample is 1/2^@shift, clamped to AFA_EWMA_SHIFT_MAX
 *
 * The step is rounded away from zero, in 64 bits: no u32 input overflows,
 * the new average never passes the sample, and a constant input is
 * reached exactly.
 *
 * Return: the new average, always between @avg and @sample.
 */
u32 afa_ewma(u32 avg, u32 sample, u32 shift)
{
	u64 div;

	shift = min(shift, AFA_EWMA_SHIFT_MAX);
	div = 1ULL << shift;
	if (sample >= avg)
		return avg + (u32)DIV_ROUND_UP_ULL((u64)sample - avg, div);
	return avg - (u32)DIV_ROUND_UP_ULL((u64)avg - sample, div);
}

/**
 * afa_clamp_order() - keep a window order inside the configured bounds
 * @order:	proposed order, may be negative or too large
 * @min_order:	smallest allowed order
 * @max_order:	largest allowed order, not below @min_order
 *
 * Return: @order clamped to [@min_order, @max_order].
 */
u32 afa_clamp_order(s32 order, u32 min_order, u32 max_order)
{
	if (order < 0 || (u32)order < min_order)
		return min_order;
	return min_t(u32, order, max_order);
}

/**
 * afa_order_to_bytes() - size of a window of 2^@order pages
 * @order:	window order
 * @page_shift:	log2 of the page size (PAGE_SHIFT)
 *
 * Return: the window in bytes; U64_MAX if that does not fit in 64 bits.
 */
u64 afa_order_to_bytes(u32 order, u32 page_shift)
{
	if (order > 63 || page_shift > 63 - order)
		return U64_MAX;
	return BIT_ULL(order + page_shift);
}

/**
 * afa_ctl_costs_clamp() - bring measured costs into the law's range
 * @c:	costs; each is clamped to [1, AFA_COST_NS_MAX]
 */
void afa_ctl_costs_clamp(struct afa_ctl_costs *c)
{
	c->fault_ns = clamp_t(u32, c->fault_ns, 1, AFA_COST_NS_MAX);
	c->page_ns = clamp_t(u32, c->page_ns, 1, AFA_COST_NS_MAX);
}

/* @part / @whole in AFA_UNIT, 0 for no @whole; racy @part > @whole is all. */
static u32 afa_ctl_ratio(u32 part, u32 whole)
{
	if (!whole)
		return 0;
	/* part <= whole < 2^32, so part << AFA_SCALE < 2^42 fits a u64. */
	return div_u64((u64)min(part, whole) << AFA_SCALE, whole);
}

/* Most pages a window or a measured span counts for: the window's most. */
#define AFA_SPAN_MAX		(1U << (AFA_ORDER_MAX + 1))

/*
 * Cost of one fault at order @k, from the evidence taken at order @order
 * (its window N = 2^@order) with the span @span measured there (M pages
 * a fault, in 1/AFA_UNIT pages; 0: unknown), without the fault count:
 * F + pages * P, where the window of order k maps
 *
 *	2^k		M unknown, or N <= M < 2N (the window; a little
 *			more is a ->fault page or another thread's, noise)
 *	max(2^k, M)	M >= 2N: the kernel mapped more than it was asked
 *			(a folio mapped whole), every window maps M at least
 *	M * 2^k / N	M < N: the window maps only part of itself (the
 *			rest is not cached, or past the VMA or the PTE
 *			table), and so does a window of another order
 *
 * in units of 1/(N * AFA_UNIT) ns, so that no part of a page is rounded
 * away (a span of 1.9 pages at order 1 is not priced as 1); the savings
 * are ratios of two costs at one @order.
 */
static u64 afa_fault_cost(u32 order, u32 k, u32 span,
			  const struct afa_ctl_costs *c)
{
	u64 fault_ns = clamp_t(u32, c->fault_ns, 1, AFA_COST_NS_MAX);
	u64 page_ns = clamp_t(u32, c->page_ns, 1, AFA_COST_NS_MAX);
	u32 window = 1U << min_t(u32, order, AFA_ORDER_MAX + 1);
	u32 pages = 1U << min_t(u32, k, AFA_ORDER_MAX + 1);

	span = min(span, AFA_SPAN_MAX << AFA_SCALE);
	/*
	 * F < 2^20, P < 2^20, window and pages <= 2^10, span <= 2^20: the
	 * first sum is < 2^51, the second < 2^41 * 2^10.
	 */
	if (span && span < window << AFA_SCALE)
		return (fault_ns * window << AFA_SCALE) +
		       page_ns * span * pages;
	if (span >= window << (AFA_SCALE + 1))
		return ((fault_ns << AFA_SCALE) +
			page_ns * max(pages << AFA_SCALE, span)) * window;
	return (fault_ns + page_ns * pages) * window << AFA_SCALE;
}

/* 1 - @ratio (AFA_UNIT), as a saving in [-AFA_UNIT, AFA_UNIT]. */
static s32 afa_saving(u64 ratio)
{
	return AFA_UNIT - (s32)min_t(u64, ratio, 2 * AFA_UNIT);
}

/**
 * afa_saving_grow_span() - predicted relative saving of one order more
 * @order:	the order the evidence was taken at
 * @grow_ratio:	faults a window twice as large had served, AFA_UNIT
 * @span:	pages a fault is measured to map at @order, in 1/AFA_UNIT
 *		pages; 0: the window's
 * @c:		costs of a fault and of a page
 *
 * S+ = 1 - (1 - g) * (F + pages(2N) * P) / (F + pages(N) * P), pages()
 * as afa_fault_cost() counts them for the span @span.
 *
 * Return: the saving in AFA_UNIT, in [-AFA_UNIT, AFA_UNIT]: positive
 * when the larger window costs less.
 */
s32 afa_saving_grow_span(u32 order, u32 grow_ratio, u32 span,
			 const struct afa_ctl_costs *c)
{
	u64 now = afa_fault_cost(order, order, span, c);
	u64 next = afa_fault_cost(order, order + 1, span, c);
	u32 left = AFA_UNIT - min_t(u32, grow_ratio, AFA_UNIT);

	/* left <= 2^10 and next < 2^51: the product is < 2^61. */
	return afa_saving(div64_u64((u64)left * next, now));
}

/**
 * afa_saving_grow() - afa_saving_grow_span() at the window's own pages
 * @order:	the order the evidence was taken at
 * @grow_ratio:	faults a window twice as large had served, AFA_UNIT
 * @c:		costs of a fault and of a page
 *
 * S+ = 1 - (1 - g) * (F + 2N * P) / (F + N * P).
 *
 * Return: the saving in AFA_UNIT, in [-AFA_UNIT, AFA_UNIT].
 */
s32 afa_saving_grow(u32 order, u32 grow_ratio, const struct afa_ctl_costs *c)
{
	return afa_saving_grow_span(order, grow_ratio, 0, c);
}

/**
 * afa_saving_shrink_span() - predicted relative saving of one order less
 * @order:	the order the evidence was taken at, at least 1
 * @trial_ratio: trials whose left-out half was wanted, AFA_UNIT
 * @span:	pages a fault is measured to map at @order, in 1/AFA_UNIT
 *		pages; 0: the window's
 * @c:		costs of a fault and of a page
 *
 * S- = 1 - (1 + t) * (F + pages(N/2) * P) / (F + pages(N) * P), pages()
 * as afa_fault_cost() counts them for the span @span.
 *
 * Return: the saving in AFA_UNIT, in [-AFA_UNIT, AFA_UNIT]: positive
 * when the smaller window costs less; -AFA_UNIT at order 0, where there
 * is no smaller window.
 */
s32 afa_saving_shrink_span(u32 order, u32 trial_ratio, u32 span,
			   const struct afa_ctl_costs *c)
{
	u32 more = AFA_UNIT + min_t(u32, trial_ratio, AFA_UNIT);
	u64 now, prev;

	if (!order)
		return -AFA_UNIT;
	now = afa_fault_cost(order, order, span, c);
	prev = afa_fault_cost(order, order - 1, span, c);
	/* more <= 2^11 and prev < 2^51: the product is < 2^62. */
	return afa_saving(div64_u64((u64)more * prev, now));
}

/**
 * afa_saving_shrink() - afa_saving_shrink_span() at the window's pages
 * @order:	the order the evidence was taken at, at least 1
 * @trial_ratio: trials whose left-out half was wanted, AFA_UNIT
 * @c:		costs of a fault and of a page
 *
 * S- = 1 - (1 + t) * (F + N/2 * P) / (F + N * P).
 *
 * Return: the saving in AFA_UNIT, in [-AFA_UNIT, AFA_UNIT].
 */
s32 afa_saving_shrink(u32 order, u32 trial_ratio,
		      const struct afa_ctl_costs *c)
{
	return afa_saving_shrink_span(order, trial_ratio, 0, c);
}

/*
 * Order bounds as the law applies them: within [0, AFA_ORDER_MAX] even
 * for unchecked tunables, so the state's u8 order can always hold them.
 */
static u32 afa_ctl_max_order(const struct afa_ctl_params *p)
{
	return min_t(u32, p->max_order, AFA_ORDER_MAX);
}

static u32 afa_ctl_min_order(const struct afa_ctl_params *p)
{
	return min(p->min_order, afa_ctl_max_order(p));
}

static u32 afa_ctl_clamp(const struct afa_ctl_params *p, s32 order)
{
	return afa_clamp_order(order, afa_ctl_min_order(p),
			       afa_ctl_max_order(p));
}

/*
 * The deadband as the law applies it: under half the cost even for an
 * unchecked tunable, so that it and the free step's twice it stay
 * positive s32 savings.
 */
static s32 afa_ctl_deadband(const struct afa_ctl_params *p)
{
	return min_t(u32, p->deadband, AFA_UNIT / 2 - 1);
}

static bool afa_ctl_enough(const struct afa_ctl_params *p, u32 count)
{
	return count >= max(p->min_samples, 1U);
}

/**
 * afa_ctl_span() - pages a fault maps, as measured at the current order
 * @p:	tunables: min_samples measured faults make a measurement
 * @in:	evidence gathered at the current order
 *
 * Return: nr_span_pages / nr_spans in 1/AFA_UNIT pages (rounded down, not
 * to whole pages: at order 1 a span of 1.9 pages is not one of 1), at
 * most AFA_SPAN_MAX pages; 0 (unknown) below min_samples measured faults.
 */
u32 afa_ctl_span(const struct afa_ctl_params *p, const struct afa_ctl_input *in)
{
	u64 span;

	if (!afa_ctl_enough(p, in->nr_spans))
		return 0;
	span = div_u64((u64)in->nr_span_pages << AFA_SCALE, in->nr_spans);
	return min_t(u64, span, AFA_SPAN_MAX << AFA_SCALE);
}

/**
 * afa_ctl_input_ready() - is there evidence enough for a step?
 * @st:	the stream's controller state
 * @p:	tunables
 * @in:	evidence gathered at the current order since the last step
 *
 * Faults count only below max_order (there is no larger window to
 * judge), trials only above min_order.
 *
 * Return: true when afa_ctl_step() would act on @in.
 */
bool afa_ctl_input_ready(const struct afa_ctl_state *st,
			 const struct afa_ctl_params *p,
			 const struct afa_ctl_input *in)
{
	return (st->order < afa_ctl_max_order(p) &&
		afa_ctl_enough(p, in->nr_faults)) ||
	       (st->order > afa_ctl_min_order(p) &&
		afa_ctl_enough(p, in->nr_trials));
}

/*
 * Take @m of @count (with its share of @hits, rounded to the nearest)
 * out into a batch.  Rounded down, a scan's exact g = 1/2 made a batch
 * of 3/8 whenever the faults waiting were not a multiple of @m with
 * half of them hits (4 of 9: 3.6), and such a batch, though the hit it
 * lost waits in the rest, put the free step back by some six batches
 * (docs/control-law.md, "Free steps").  Never more than @hits: the
 * share is at most @hits, an integer.
 */
static void afa_ctl_take(u32 *count, u32 *hits, u32 m, u32 *b_count,
			 u32 *b_hits)
{
	u32 rem;
	u32 h = div_u64_rem((u64)min(*hits, *count) * m, *count, &rem);

	h += rem >= *count - rem;

	*b_count = m;
	*b_hits = h;
	*count -= m;
	*hits = min(*hits, *count + h) - h;
}

/**
 * afa_ctl_batch() - take the next batch of evidence out of what waits
 * @in:		evidence waiting for steps; what is taken is removed
 * @st:		the stream's controller state, for its order
 * @p:		tunables
 * @batch:	filled with min_samples faults and min_samples trials where
 *		there are that many, each with its share of hits, and the
 *		span measured so far at this order (which is not taken)
 *
 * The law steps once per batch, however many batches one fold brings:
 * its cadence is the evidence's.  Evidence that cannot move the order
 * (faults at max_order, trials at min_order) is dropped.
 */
void afa_ctl_batch(struct afa_ctl_input *in, const struct afa_ctl_state *st,
		   const struct afa_ctl_params *p, struct afa_ctl_input *batch)
{
	u32 m = max(p->min_samples, 1U);

	*batch = (struct afa_ctl_input){};
	if (st->order >= afa_ctl_max_order(p)) {
		in->nr_faults = 0;
		in->nr_grow_hits = 0;
	}
	if (st->order <= afa_ctl_min_order(p)) {
		in->nr_trials = 0;
		in->nr_trial_hits = 0;
	}
	if (in->nr_faults >= m)
		afa_ctl_take(&in->nr_faults, &in->nr_grow_hits, m,
			     &batch->nr_faults, &batch->nr_grow_hits);
	if (in->nr_trials >= m)
		afa_ctl_take(&in->nr_trials, &in->nr_trial_hits, m,
			     &batch->nr_trials, &batch->nr_trial_hits);
	/* Every batch at this order sees the whole measurement of its span. */
	batch->nr_spans = in->nr_spans;
	batch->nr_span_pages = in->nr_span_pages;
}

/* Move to a new order: the pending movement is spent, averages restart. */
static void afa_ctl_set_order(struct afa_ctl_state *st, u32 order)
{
	st->order = order;
	st->integral = 0;
	st->prev_error = 0;
	st->fresh_grow = 1;
	st->fresh_trial = 1;
	st->have_grow = 0;
	st->have_trial = 0;
	st->at_rest = 0;
	st->shrink_pays = 0;
	st->trial_batches = 0;
}

/* A gain times an error: gain < 2^32, |x| <= 2^11, so the s64 is < 2^43. */
static s32 afa_ctl_gain(u32 gain, s32 x)
{
	s64 term = div_s64((s64)gain * x, AFA_UNIT);

	return clamp_t(s64, term, -AFA_TERM_MAX, AFA_TERM_MAX);
}

/**
 * afa_ctl_params_check() - validate a set of tunables
 * @p:	the tunables
 *
 * Rejects what the law cannot honour: an order range that is empty or
 * past AFA_ORDER_MAX, a deadband of half the cost or more (no step could
 * ever pass it), hysteresis of half an order or more (the pending
 * movement, at most one order, could then never step), gains above
 * AFA_GAIN_MAX or without P and I, and no evidence needed at all.
 *
 * Return: 0 if @p is usable, -EINVAL if not.
 */
int afa_ctl_params_check(const struct afa_ctl_params *p)
{
	if (p->max_order > AFA_ORDER_MAX || p->min_order > p->max_order)
		return -EINVAL;
	if (!p->max_step || p->max_step > AFA_ORDER_MAX)
		return -EINVAL;
	if (p->deadband >= AFA_UNIT / 2 || p->hysteresis >= AFA_UNIT / 2)
		return -EINVAL;
	if (p->kp > AFA_GAIN_MAX || p->ki > AFA_GAIN_MAX ||
	    p->kd > AFA_GAIN_MAX || (!p->kp && !p->ki))
		return -EINVAL;
	if (p->ewma_shift > AFA_EWMA_SHIFT_MAX || !p->min_samples)
		return -EINVAL;
	return 0;
}

/**
 * afa_ctl_init() - start a stream's controller at a given order
 * @st:		state to set up
 * @p:		tunables, for the order bounds
 * @order:	initial window order, clamped to [min_order, max_order]
 */
void afa_ctl_init(struct afa_ctl_state *st, const struct afa_ctl_params *p,
		  u32 order)
{
	BUILD_BUG_ON(sizeof(*st) > AFA_CTL_STATE_BYTES);
	BUILD_BUG_ON(AFA_ORDER_MAX > U8_MAX);
	/* Integral and error lie in [-AFA_UNIT, AFA_UNIT]: s16 holds them. */
	BUILD_BUG_ON(AFA_UNIT > S16_MAX);

	*st = (struct afa_ctl_state){};
	order = min_t(u32, order, AFA_ORDER_MAX);
	afa_ctl_set_order(st, afa_ctl_clamp(p, order));
}

/**
 * afa_ctl_settled() - has the law found this state's order right lately?
 * @st:	the state
 *
 * Return: true after AFA_CTL_SETTLED_STEPS steps in a row at this order
 * that found it right (deadband, or pending on a small shrink its batch
 * has no trials to judge).
 */
bool afa_ctl_settled(const struct afa_ctl_state *st)
{
	return st->at_rest >= AFA_CTL_SETTLED_STEPS;
}

/**
 * afa_ctl_rare_trials() - may this state's trials be taken rarely?
 * @st:	the state
 *
 * A trial costs a fault when its half is wanted.  Where more than half
 * of the trials at this order wanted their half and, on them, a step
 * down is not predicted to save more than the deadband, trials are
 * worth taking rarely.  Not where the shrink pays: there rare trials
 * would slow the very evidence that is taking the state down (a stream
 * that one noisy batch took above 1/2 at an order whose shrink pays
 * stayed there for a block of fresh processes, docs/control-law.md).
 * And not on one batch of trials that split (8 trials tell t only to
 * 1/8; fresh-exec's text stream read 6 of 8 at order 4, where its static
 * counts give 0.4, and on rare trials waited eight processes for its
 * next batch): two batches, or one whose every trial wanted its half
 * (a sequential stream, from its first batch).
 *
 * Return: true when trials may be rare.
 */
bool afa_ctl_rare_trials(const struct afa_ctl_state *st)
{
	return st->have_trial && !st->shrink_pays &&
	       st->trial_avg > AFA_UNIT / 2 &&
	       (st->trial_batches > 1 || st->trial_avg == AFA_UNIT);
}

/*
 * Did a step find the order right?  In the deadband, or pending without
 * an error of its own while what is pending is a small shrink its batch
 * has no trials to judge (AFA_CTL_REST_SHRINK).  At a bound the saving
 * past it is 0 (no growth test at max_order, no trials at min_order):
 * such a step ends in the deadband.
 */
static bool afa_ctl_at_rest(const struct afa_ctl_state *st,
			    const struct afa_ctl_trace *tr,
			    enum afa_ctl_reason reason)
{
	if (reason == AFA_CTL_DEADBAND)
		return true;
	return reason == AFA_CTL_PENDING && !tr->error && st->integral < 0 &&
	       -st->integral < AFA_CTL_REST_SHRINK;
}

/*
 * Record the outcome of a step; its return value is the new order.  A
 * step that found the order right counts towards settling, one that
 * wants to move (or moved) starts the count again, one without enough
 * evidence leaves it.
 */
static u32 afa_ctl_finish(struct afa_ctl_state *st, struct afa_ctl_trace *tr,
			  enum afa_ctl_reason reason)
{
	if (afa_ctl_at_rest(st, tr, reason))
		st->at_rest = min(st->at_rest + 1, AFA_CTL_SETTLED_STEPS);
	else if (reason != AFA_CTL_FEW_SAMPLES)
		st->at_rest = 0;
	tr->reason = reason;
	tr->new_order = st->order;
	return st->order;
}

/* Fold a new ratio into one average, or start it afresh. */
static u16 afa_ctl_average(u16 avg, u32 ratio, bool fresh, u32 shift)
{
	return fresh ? ratio : afa_ewma(avg, ratio, shift);
}

/* Smooth the evidence that is there, and predict both savings. */
static void afa_ctl_predict(struct afa_ctl_state *st,
			    const struct afa_ctl_params *p,
			    const struct afa_ctl_costs *c,
			    const struct afa_ctl_input *in,
			    struct afa_ctl_trace *tr)
{
	bool grew = st->order < afa_ctl_max_order(p) &&
		    afa_ctl_enough(p, in->nr_faults);
	bool tried = st->order > afa_ctl_min_order(p) &&
		     afa_ctl_enough(p, in->nr_trials);

	if (grew) {
		st->grow_avg = afa_ctl_average(st->grow_avg,
					       afa_ctl_ratio(in->nr_grow_hits,
							     in->nr_faults),
					       st->fresh_grow, p->ewma_shift);
		st->fresh_grow = 0;
		st->have_grow = 1;
	}
	if (tried) {
		st->trial_avg = afa_ctl_average(st->trial_avg,
						afa_ctl_ratio(in->nr_trial_hits,
							      in->nr_trials),
						st->fresh_trial, p->ewma_shift);
		st->fresh_trial = 0;
		st->have_trial = 1;
		st->trial_batches = min(st->trial_batches + 1, 3);
	}
	/*
	 * Each batch speaks for the sides it has evidence of, with the
	 * smoothed ratio: a batch of faults alone must not repeat the last
	 * trials' verdict, or one batch of trials would count many times.
	 */
	tr->grow_ratio = st->grow_avg;
	tr->trial_ratio = st->trial_avg;
	tr->span = afa_ctl_span(p, in);
	tr->save_grow = st->have_grow && grew ?
			afa_saving_grow_span(st->order, st->grow_avg, tr->span,
					     c) : 0;
	tr->save_shrink = st->have_trial && tried ?
			  afa_saving_shrink_span(st->order, st->trial_avg,
						 tr->span, c) : 0;
	if (tried)
		st->shrink_pays = tr->save_shrink > afa_ctl_deadband(p);
}

/*
 * The saving the law acts on: growth first, it is measured at every
 * fault (at max_order there is none: afa_ctl_predict() drops evidence
 * that cannot move the order, so a shrink that pays acts).  Then a
 * free growth (g >= 1/2: no page more, fewer faults), at twice the
 * deadband, so that it steps after a run of batches that agree.  A
 * growth that pays and is free as well is never slower than a free one:
 * a scan's S+ just past the deadband took 30 batches an order, where a
 * free step takes 20.
 */
static s32 afa_ctl_error(const struct afa_ctl_state *st,
			 const struct afa_ctl_params *p,
			 const struct afa_ctl_trace *tr)
{
	s32 deadband = afa_ctl_deadband(p);
	s32 free_step = tr->save_grow > 0 && st->grow_avg >= AFA_UNIT / 2 ?
			2 * deadband : 0;

	if (tr->save_grow > deadband)
		return max(tr->save_grow, free_step);
	if (tr->save_shrink > deadband)
		return -tr->save_shrink;
	return free_step;
}

/*
 * Does this batch lack evidence on the side the pending movement pushes
 * to?  Growth is tested at every fault, trials at one in sample_every: a
 * batch of faults alone that finds growth not worth it says nothing of
 * shrinking, and must not undo what earlier trials integrated.
 */
static bool afa_ctl_unjudged(const struct afa_ctl_state *st,
			     const struct afa_ctl_params *p,
			     const struct afa_ctl_input *in)
{
	return (st->integral < 0 && !afa_ctl_enough(p, in->nr_trials)) ||
	       (st->integral > 0 && !afa_ctl_enough(p, in->nr_faults));
}

/*
 * Inside the deadband the order is right: what was pending against it
 * fades (halves each step), so rare noisy batches far apart cannot add
 * up to a step.
 */
static void afa_ctl_settle(struct afa_ctl_state *st, struct afa_ctl_trace *tr)
{
	st->integral /= 2;
	st->prev_error = 0;
	tr->i = st->integral;
	tr->output = st->order * AFA_UNIT + st->integral;
}

/* P, I and D on the error; I may not push past a bound. */
static void afa_ctl_terms(struct afa_ctl_state *st,
			  const struct afa_ctl_params *p,
			  struct afa_ctl_trace *tr)
{
	s32 integral;

	tr->p = afa_ctl_gain(p->kp, tr->error);
	/* No previous error at this order (a move, or settled): no D. */
	tr->d = st->prev_error ?
		afa_ctl_gain(p->kd, tr->error - st->prev_error) : 0;
	st->prev_error = tr->error;
	integral = st->integral + afa_ctl_gain(p->ki, tr->error);
	integral = clamp(integral, -AFA_UNIT, AFA_UNIT);
	if (st->order >= afa_ctl_max_order(p))
		integral = min(integral, 0);
	if (st->order <= afa_ctl_min_order(p))
		integral = max(integral, 0);
	st->integral = integral;
	tr->i = integral;
	tr->output = st->order * AFA_UNIT + tr->p + tr->i + tr->d;
}

/* Quantise the output with hysteresis, at most max_step orders. */
static enum afa_ctl_reason afa_ctl_move(struct afa_ctl_state *st,
					const struct afa_ctl_params *p,
					const struct afa_ctl_trace *tr)
{
	s32 max_step = min_t(u32, p->max_step, AFA_ORDER_MAX);
	s32 reach = AFA_UNIT / 2 + min_t(u32, p->hysteresis, AFA_UNIT / 2);
	s32 delta = tr->output - st->order * AFA_UNIT;
	enum afa_ctl_reason reason;
	s32 steps = 0;
	u32 order;

	if (abs(delta) >= reach)
		steps = clamp(DIV_ROUND_CLOSEST(delta, AFA_UNIT),
			      -max_step, max_step);
	order = afa_ctl_clamp(p, st->order + steps);
	if (order == st->order)
		return AFA_CTL_PENDING;
	reason = order > st->order ? AFA_CTL_GROW : AFA_CTL_SHRINK;
	afa_ctl_set_order(st, order);
	return reason;
}

/**
 * afa_ctl_step() - run the control law on one batch of a stream's evidence
 * @st:	the stream's controller state
 * @p:	tunables, checked by afa_ctl_params_check()
 * @c:	costs of a fault and of a page on this machine
 * @in:	evidence gathered at the current order since the last step
 * @tr:	filled with the terms and the reason, for the afa_ctl_step event
 *
 * Pure: no locks, no allocation, no side effect outside @st and @tr.
 * The caller serialises steps of one stream, hands it one batch at a time
 * (afa_ctl_batch()), and drops what waits when the order moved.
 *
 * Return: the window order to apply from now on, within [min_order,
 * max_order] and, unless the tunables changed since the last step, at
 * most max_step away from the last one.
 */
u32 afa_ctl_step(struct afa_ctl_state *st, const struct afa_ctl_params *p,
		 const struct afa_ctl_costs *c, const struct afa_ctl_input *in,
		 struct afa_ctl_trace *tr)
{
	u32 order = afa_ctl_clamp(p, st->order);

	*tr = (struct afa_ctl_trace){ .order = st->order };
	if (order != st->order)
		afa_ctl_set_order(st, order);
	/* Anti-windup holds at a bound whatever the step does next. */
	if (st->order >= afa_ctl_max_order(p))
		st->integral = min_t(s16, st->integral, 0);
	if (st->order <= afa_ctl_min_order(p))
		st->integral = max_t(s16, st->integral, 0);
	if (!afa_ctl_input_ready(st, p, in)) {
		tr->i = st->integral;
		tr->output = st->order * AFA_UNIT + st->integral;
		return afa_ctl_finish(st, tr, AFA_CTL_FEW_SAMPLES);
	}
	afa_ctl_predict(st, p, c, in, tr);
	tr->error = afa_ctl_error(st, p, tr);
	if (!tr->error && afa_ctl_unjudged(st, p, in)) {
		/* No evidence on the side I pushes to: no sign of the optimum. */
		tr->i = st->integral;
		tr->output = st->order * AFA_UNIT + st->integral;
		return afa_ctl_finish(st, tr, AFA_CTL_PENDING);
	}
	if (!tr->error) {
		afa_ctl_settle(st, tr);
		return afa_ctl_finish(st, tr, AFA_CTL_DEADBAND);
	}
	afa_ctl_terms(st, p, tr);
	return afa_ctl_finish(st, tr, afa_ctl_move(st, p, tr));
}

/**
 * afa_ctl_reason_name() - short name of a reason, as the trace prints it
 * @reason:	a reason from struct afa_ctl_trace
 *
 * Return: a static string; "unknown" for a value out of range.
 */
const char *afa_ctl_reason_name(enum afa_ctl_reason reason)
{
	static const char * const names[AFA_CTL_NR_REASONS] = {
		[AFA_CTL_FEW_SAMPLES] = "few_samples",
		[AFA_CTL_DEADBAND] = "deadband",
		[AFA_CTL_PENDING] = "pending",
		[AFA_CTL_GROW] = "grow",
		[AFA_CTL_SHRINK] = "shrink",
	};

	if ((u32)reason >= AFA_CTL_NR_REASONS)
		return "unknown";
	return names[reason];
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Period accounting.
 *
 * Counters only grow, per CPU, and may wrap: the count of a fold is the
 * difference of two snapshots in modular arithmetic,
 *
 *	n = now - before  (mod 2^32)
 *
 * which is right as long as fewer than 2^32 events happen between folds.
 * Rates are events per second, saturated at U32_MAX; ratios are fixed
 * point in AFA_UNIT (control_law.h) and defined as 0 for an empty period,
 * so that "no data" never reads as "all hits".
 */
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/compiler.h>
#include "account.h"
#include "control_law.h"

/**
 * afa_rate_per_s() - events per second over a period
 * @count:	events in the period
 * @period_ms:	length of the period; 0 gives 0
 *
 * Return: @count * 1000 / @period_ms, saturated at U32_MAX.
 */
u32 afa_rate_per_s(u64 count, u32 period_ms)
{
	if (!period_ms)
		return 0;
	/* count * 1000 would wrap above 2^54: such a rate saturates anyway. */
	if (count > div_u64(U64_MAX, 1000))
		return U32_MAX;
	return min_t(u64, div_u64(count * 1000, period_ms), U32_MAX);
}

/**
 * afa_ratio() - @part / @whole in AFA_UNIT
 * @part:	events that count, at most @whole
 * @whole:	all events; 0 gives 0
 *
 * Return: the ratio in [0, AFA_UNIT]; @part above @whole reads as all.
 */
u32 afa_ratio(u64 part, u64 whole)
{
	if (!whole)
		return 0;
	if (part >= whole)
		return AFA_UNIT;
	/* Scale the divisor down instead of the dividend up near 2^64. */
	if (part > U64_MAX >> AFA_SCALE)
		return (u32)div64_u64(part, whole >> AFA_SCALE);
	return (u32)div64_u64(part << AFA_SCALE, whole);
}

/**
 * afa_ratio_permille() - an AFA_UNIT ratio in thousandths, for humans
 * @ratio:	ratio in AFA_UNIT
 *
 * Return: @ratio * 1000 / AFA_UNIT, rounded to nearest.
 */
u32 afa_ratio_permille(u32 ratio)
{
	return (u32)div_u64((u64)ratio * 1000 + AFA_UNIT / 2, AFA_UNIT);
}

/* Every field of struct afa_evidence, in order, for the loops below. */
#define AFA_EVIDENCE_FIELDS	(sizeof(struct afa_evidence) / sizeof(u32))

/**
 * afa_evidence_add() - add one CPU's counters into a sum
 * @sum:	the sum
 * @c:		the counters, read once each
 */
void afa_evidence_add(struct afa_evidence *sum, const struct afa_evidence *c)
{
	const u32 *from = (const u32 *)c;
	u32 *to = (u32 *)sum;
	unsigned int i;

	for (i = 0; i < AFA_EVIDENCE_FIELDS; i++)
		to[i] += READ_ONCE(from[i]);
}

/**
 * afa_evidence_delta() - events between two sums of wrapping counters
 * @d:		set to @now - @before, field by field, modulo 2^32
 * @now:	later sum
 * @before:	earlier sum
 */
void afa_evidence_delta(struct afa_evidence *d, const struct afa_evidence *now,
			const struct afa_evidence *before)
{
	const u32 *a = (const u32 *)now, *b = (const u32 *)before;
	u32 *to = (u32 *)d;
	unsigned int i;

	for (i = 0; i < AFA_EVIDENCE_FIELDS; i++)
		to[i] = a[i] - b[i];
}

static u32 afa_sat_add(u32 a, u32 b)
{
	return a > U32_MAX - b ? U32_MAX : a + b;
}

/*
 * The span counts are a ratio, kept while a stream rests (they are not
 * used up by steps): halve both rather than let one saturate.
 */
static void afa_span_add(struct afa_ctl_input *in, u32 spans, u32 pages)
{
	while (in->nr_spans > U32_MAX / 2 - min(spans, U32_MAX / 2) ||
	       in->nr_span_pages > U32_MAX / 2 - min(pages, U32_MAX / 2)) {
		in->nr_spans >>= 1;
		in->nr_span_pages >>= 1;
	}
	in->nr_spans = afa_sat_add(in->nr_spans, spans);
	in->nr_span_pages = afa_sat_add(in->nr_span_pages, pages);
}

/**
 * afa_evidence_to_input() - add a fold's evidence to what waits for a step
 * @in:	the law's input, counts saturating at U32_MAX
 * @e:	the evidence of one fold
 */
void afa_evidence_to_input(struct afa_ctl_input *in,
			   const struct afa_evidence *e)
{
	in->nr_faults = afa_sat_add(in->nr_faults, e->tested);
	in->nr_grow_hits = afa_sat_add(in->nr_grow_hits, e->grow_hits);
	in->nr_trials = afa_sat_add(in->nr_trials, e->trials);
	in->nr_trial_hits = afa_sat_add(in->nr_trial_hits, e->trial_hits);
	afa_span_add(in, e->spans, e->span_pages);
}

/**
 * afa_ctl_grow_permille() - a state's grow-hit ratio, for humans
 * @st:	a law state
 *
 * Return: permille, 0 while there is no evidence at the current order.
 */
u32 afa_ctl_grow_permille(const struct afa_ctl_state *st)
{
	return st->have_grow ? afa_ratio_permille(st->grow_avg) : 0;
}

/**
 * afa_ctl_trial_permille() - a state's trial-hit ratio, for humans
 * @st:	a law state
 *
 * Return: permille, 0 while there is no evidence at the current order.
 */
u32 afa_ctl_trial_permille(const struct afa_ctl_state *st)
{
	return st->have_trial ? afa_ratio_permille(st->trial_avg) : 0;
}

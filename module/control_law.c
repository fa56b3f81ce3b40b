// SPDX-License-Identifier: GPL-2.0
/*
 * autofaultaround control law: a PI controller, with an optional D term,
 * that picks the fault-around window order n of one stream (the window
 * is 2^n pages) from how much of the previous window was used.
 * docs/control-law.md argues the defaults and the stability.
 *
 * Per control period k, during which order n_k was applied:
 *
 *	y_k = used_k / sampled_k			usefulness
 *	a_k = a_{k-1} + (y_k - a_{k-1}) / 2^ewma_shift	(a_k = y_k if n moved)
 *	e_k = a_k - setpoint
 *	w_k = min(1, faults_k / (period_k * ref_faults_per_s))
 *	g_k = w_k * e_k if e_k > 0, else e_k		growth pays per fault
 *	P_k = kp * g_k
 *	I_k = clamp(I_{k-1} + ki * g_k, -1, 1)		(I_{k-1} = 0 if n moved)
 *	D_k = kd * (e_k - e_{k-1})			(D_k = 0 if n moved)
 *	u_k = n_k + P_k + I_k + D_k
 *
 *	n_{k+1} = n_k		if |u_k - n_k| < 1/2 + hysteresis, else
 *	n_{k+1} = clamp(n_k + clamp(round(u_k - n_k), -max_step, max_step),
 *			min_order, max_order)
 *
 * I is the part of the output the window has not taken up yet.  When the
 * order steps, I is spent (reset to 0) and the average restarts, because
 * usefulness at another order is another point of the plant: the next
 * step needs fresh evidence worth 1/2 + hysteresis of an order, which at
 * the default gains one period cannot supply, so the order never
 * chatters.  At min_order and max_order I may not push outwards
 * (anti-windup): the law leaves a bound as soon as the error turns,
 * however long it sat there.
 *
 * Exceptions, in the order they are tested:
 *
 *	after a probe:		keep the probe order if sampled_k >=
 *				min_samples and y_k >= setpoint - deadband,
 *				else go back to the order before it
 *	sampled_k < min_samples: hold, nothing changes; the probe_periods-th
 *				such period in a row with faults probes
 *				n_{k+1} = n_k + max_step, for one period
 *	|e_k| <= deadband:	n_{k+1} = n_k and I_k = I_{k-1} / 2
 *
 * The probe exists because at order 0 nothing is mapped around a fault,
 * so no usefulness can be measured and the law alone would never leave.
 *
 * Fixed point: ratios, errors, gains and orders share AFA_UNIT (2^10 is
 * 1.0).  Errors lie in [-AFA_UNIT, AFA_UNIT], I in [-AFA_UNIT, AFA_UNIT],
 * P and D are saturated at AFA_TERM_MAX, so the output fits an s32 for
 * any u32 gains and counts.  All types have fixed widths and 64-bit
 * divisions go through math64.h: the law is the same with 32-bit longs.
 */
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include "control_law.h"

/* Milliseconds per second, to turn a period into a fault rate. */
#define AFA_MS_PER_S		1000

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
 * reached exactly (rounding to nearest would stall up to 2^(shift-1) - 1
 * units short of it, truncation up to 2^shift - 1).
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

/* @part / @whole in AFA_UNIT, 0 for no @whole; racy @part > @whole is all. */
static u32 afa_ctl_ratio(u32 part, u32 whole)
{
	if (!whole)
		return 0;
	/* part <= whole < 2^32, so part << AFA_SCALE < 2^42 fits a u64. */
	return div_u64((u64)min(part, whole) << AFA_SCALE, whole);
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

/* Hit ratio; the sum is taken in 64 bits so two U32_MAX counts work. */
static u32 afa_hit_ratio(u32 hits, u32 misses)
{
	u64 whole = (u64)hits + misses;

	return whole ? div64_u64((u64)hits << AFA_SCALE, whole) : 0;
}

/*
 * Growth weight w in AFA_UNIT: the fault rate over ref_faults_per_s,
 * at most 1.  Growing the window saves faults, so it is worth its memory
 * in proportion to how many faults there are to save.
 */
static u32 afa_ctl_rate_weight(const struct afa_ctl_params *p,
			       const struct afa_ctl_input *in)
{
	u64 rate, ref;

	if (!p->ref_faults_per_s)
		return AFA_UNIT;
	/*
	 * Compare faults * 1000 with period_ms * ref: both are faults per
	 * 1000 s times the period, < 2^42 and < 2^64.  Past the test,
	 * rate < ref, so rate << AFA_SCALE (< 2^52) cannot wrap either.
	 */
	rate = (u64)in->nr_faults * AFA_MS_PER_S;
	ref = (u64)max(in->period_ms, 1U) * p->ref_faults_per_s;
	if (rate >= ref)
		return AFA_UNIT;
	return div64_u64(rate << AFA_SCALE, ref);
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

/* Move to a new order: the pending movement is spent, the average restarts. */
static void afa_ctl_set_order(struct afa_ctl_state *st, u32 order)
{
	st->order = order;
	st->integral = 0;
	st->fresh = 1;
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
 * past AFA_ORDER_MAX, a setpoint or deadband that leaves one direction
 * unreachable, hysteresis of half an order or more (the pending
 * movement, at most one order, could then never step), gains above
 * AFA_GAIN_MAX or without P and I, and counters the state cannot hold.
 *
 * Return: 0 if @p is usable, -EINVAL if not.
 */
int afa_ctl_params_check(const struct afa_ctl_params *p)
{
	if (p->max_order > AFA_ORDER_MAX || p->min_order > p->max_order)
		return -EINVAL;
	if (!p->max_step || p->max_step > AFA_ORDER_MAX)
		return -EINVAL;
	if (!p->setpoint || p->setpoint >= AFA_UNIT)
		return -EINVAL;
	if (p->deadband >= min(p->setpoint, AFA_UNIT - p->setpoint))
		return -EINVAL;
	if (p->hysteresis >= AFA_UNIT / 2)
		return -EINVAL;
	if (p->kp > AFA_GAIN_MAX || p->ki > AFA_GAIN_MAX ||
	    p->kd > AFA_GAIN_MAX || (!p->kp && !p->ki))
		return -EINVAL;
	if (p->ewma_shift > AFA_EWMA_SHIFT_MAX || !p->min_samples)
		return -EINVAL;
	if (p->probe_periods > U16_MAX)
		return -EINVAL;
	return 0;
}

/**
 * afa_ctl_init() - start a stream's controller at a given order
 * @st:		state to set up
 * @p:		tunables, for the order bounds
 * @order:	initial window order, clamped to [min_order, max_order]
 *
 * The first period with enough samples seeds the usefulness average.
 */
void afa_ctl_init(struct afa_ctl_state *st, const struct afa_ctl_params *p,
		  u32 order)
{
	BUILD_BUG_ON(sizeof(*st) > AFA_CTL_STATE_BYTES);
	BUILD_BUG_ON(AFA_ORDER_MAX > U8_MAX);
	/* Integral and error lie in [-AFA_UNIT, AFA_UNIT]: s16 holds them. */
	BUILD_BUG_ON(AFA_UNIT > S16_MAX);

	*st = (struct afa_ctl_state){ .fresh = 1 };
	st->order = afa_ctl_clamp(p, min_t(u32, order, AFA_ORDER_MAX));
}

/* Start a step: bounds may have changed since the last one; fill @tr. */
static void afa_ctl_begin(struct afa_ctl_state *st,
			  const struct afa_ctl_params *p,
			  const struct afa_ctl_input *in,
			  struct afa_ctl_trace *tr)
{
	u32 order = afa_ctl_clamp(p, st->order);

	*tr = (struct afa_ctl_trace){
		.order = st->order,
		.usefulness = afa_ctl_ratio(in->nr_used, in->nr_sampled),
		.usefulness_avg = st->usefulness_avg,
		.hit_ratio = afa_hit_ratio(in->nr_hits, in->nr_misses),
		.rate_weight = afa_ctl_rate_weight(p, in),
		.i = st->integral,
		.output = st->order * AFA_UNIT + st->integral,
	};
	if (order != st->order)
		afa_ctl_set_order(st, order);
}

/* Record the outcome of a step; its return value is the new order. */
static u32 afa_ctl_finish(struct afa_ctl_state *st, struct afa_ctl_trace *tr,
			  enum afa_ctl_reason reason)
{
	tr->reason = reason;
	tr->new_order = st->order;
	return st->order;
}

/* A probe pays off if its window was used about as much as we want. */
static bool afa_ctl_probe_kept(const struct afa_ctl_params *p,
			       const struct afa_ctl_input *in,
			       const struct afa_ctl_trace *tr)
{
	return in->nr_sampled >= max(p->min_samples, 1U) &&
	       (u64)tr->usefulness + p->deadband >= p->setpoint;
}

/*
 * Too few samples: change nothing.  After probe_periods of these, if
 * there were faults to learn from, try a larger window for one period.
 */
static enum afa_ctl_reason afa_ctl_hold(struct afa_ctl_state *st,
					const struct afa_ctl_params *p,
					const struct afa_ctl_input *in)
{
	u32 step = min_t(u32, p->max_step, AFA_ORDER_MAX);

	if (st->idle_periods < U16_MAX)
		st->idle_periods++;
	if (!p->probe_periods || st->idle_periods < p->probe_periods ||
	    !in->nr_faults || st->order >= afa_ctl_max_order(p))
		return AFA_CTL_HOLD_FEW_SAMPLES;

	st->base_order = st->order;
	st->idle_periods = 0;
	afa_ctl_set_order(st, afa_ctl_clamp(p, st->order + step));
	st->probing = 1;
	return AFA_CTL_PROBE;
}

/* Smooth the usefulness, take the error and the D term. */
static void afa_ctl_smooth(struct afa_ctl_state *st,
			   const struct afa_ctl_params *p,
			   struct afa_ctl_trace *tr)
{
	s32 setpoint = min_t(u32, p->setpoint, AFA_UNIT);

	if (st->fresh)
		st->usefulness_avg = tr->usefulness;
	else
		st->usefulness_avg = afa_ewma(st->usefulness_avg,
					      tr->usefulness, p->ewma_shift);
	tr->usefulness_avg = st->usefulness_avg;
	tr->error = (s32)st->usefulness_avg - setpoint;
	/* A restarted average has no history: its change means nothing. */
	tr->d = st->fresh ? 0 : afa_ctl_gain(p->kd, tr->error - st->prev_error);
	st->prev_error = tr->error;
	st->fresh = 0;
}

/*
 * Inside the deadband the order is right: what was pending against it
 * fades (halves each period), so rare noisy periods far apart cannot add
 * up to a step.
 */
static void afa_ctl_settle(struct afa_ctl_state *st, struct afa_ctl_trace *tr)
{
	st->integral /= 2;
	tr->i = st->integral;
	tr->output = st->order * AFA_UNIT + st->integral;
}

/* P and I on the rate-weighted error; I may not push past a bound. */
static void afa_ctl_terms(struct afa_ctl_state *st,
			  const struct afa_ctl_params *p,
			  struct afa_ctl_trace *tr)
{
	s32 error = tr->error;
	s32 integral;

	/* error <= AFA_UNIT and weight <= AFA_UNIT: the product is < 2^21. */
	if (error > 0)
		error = DIV_ROUND_UP(error * (s32)tr->rate_weight, AFA_UNIT);
	tr->p = afa_ctl_gain(p->kp, error);
	integral = st->integral + afa_ctl_gain(p->ki, error);
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
	if (order == st->order) {
		if ((tr->error > 0 && order >= afa_ctl_max_order(p)) ||
		    (tr->error < 0 && order <= afa_ctl_min_order(p)))
			return AFA_CTL_SATURATED;
		return AFA_CTL_PENDING;
	}
	reason = order > st->order ? AFA_CTL_GROW : AFA_CTL_SHRINK;
	afa_ctl_set_order(st, order);
	return reason;
}

/**
 * afa_ctl_step() - run the control law for one period of one stream
 * @st:	the stream's controller state
 * @p:	tunables, checked by afa_ctl_params_check()
 * @in:	what the period just ended measured
 * @tr:	filled with the terms and the reason, for the afa_ctl_step event
 *
 * Pure: no locks, no allocation, no side effect outside @st and @tr.
 * The caller serialises steps of one stream.
 *
 * Return: the window order to apply during the next period, within
 * [min_order, max_order] and, unless the tunables changed since the
 * last step, at most max_step away from the last one.
 */
u32 afa_ctl_step(struct afa_ctl_state *st, const struct afa_ctl_params *p,
		 const struct afa_ctl_input *in, struct afa_ctl_trace *tr)
{
	afa_ctl_begin(st, p, in, tr);
	if (st->probing) {
		st->probing = 0;
		if (!afa_ctl_probe_kept(p, in, tr)) {
			afa_ctl_set_order(st, afa_ctl_clamp(p, st->base_order));
			return afa_ctl_finish(st, tr, AFA_CTL_PROBE_REVERT);
		}
	}
	if (in->nr_sampled < max(p->min_samples, 1U))
		return afa_ctl_finish(st, tr, afa_ctl_hold(st, p, in));
	st->idle_periods = 0;

	afa_ctl_smooth(st, p, tr);
	if ((u32)abs(tr->error) <= p->deadband) {
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
		[AFA_CTL_HOLD_FEW_SAMPLES] = "hold_few_samples",
		[AFA_CTL_DEADBAND] = "deadband",
		[AFA_CTL_PENDING] = "pending",
		[AFA_CTL_GROW] = "grow",
		[AFA_CTL_SHRINK] = "shrink",
		[AFA_CTL_SATURATED] = "saturated",
		[AFA_CTL_PROBE] = "probe",
		[AFA_CTL_PROBE_REVERT] = "probe_revert",
	};

	if ((u32)reason >= AFA_CTL_NR_REASONS)
		return "unknown";
	return names[reason];
}

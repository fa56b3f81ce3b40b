// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the autofaultaround control law: properties of the
 * pure helpers and of the law (bounds, direction, saturation, overflow,
 * convergence against simulated plants), not golden values.
 */
#include <kunit/test.h>
#include <linux/stddef.h>
#include "control_law.h"

/* Name a table row after its first field, as lib/math/tests do. */
#define AFA_ROW_DESC(type)						\
static void type##_to_desc(const struct type *c, char *desc)		\
{									\
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);			\
}

/* ----- helpers: afa_ewma(), afa_clamp_order(), afa_order_to_bytes() ----- */

struct ewma_case {
	const char *name;
	u32 avg;
	u32 sample;
	u32 shift;
};

static const struct ewma_case ewma_cases[] = {
	{ "rise", 0, AFA_UNIT, 3 },
	{ "fall", AFA_UNIT, 0, 3 },
	{ "equal", 500, 500, 4 },
	{ "u32_extremes_up", 0, U32_MAX, AFA_EWMA_SHIFT_MAX },
	{ "u32_extremes_down", U32_MAX, 0, AFA_EWMA_SHIFT_MAX },
	{ "both_max", U32_MAX, U32_MAX, 7 },
	{ "shift_too_large", 100, 900, 40 },
	{ "shift_one", 7, 8, 1 },
};

AFA_ROW_DESC(ewma_case)
KUNIT_ARRAY_PARAM(ewma, ewma_cases, ewma_case_to_desc);

/* The new average lies between the old average and the sample. */
static void afa_ewma_stays_between(struct kunit *test)
{
	const struct ewma_case *c = test->param_value;
	u32 lo = min(c->avg, c->sample), hi = max(c->avg, c->sample);
	u32 got = afa_ewma(c->avg, c->sample, c->shift);

	KUNIT_EXPECT_GE(test, got, lo);
	KUNIT_EXPECT_LE(test, got, hi);
}

/* A step moves the average towards the sample, by about 1/2^shift. */
static void afa_ewma_moves_by_weight(struct kunit *test)
{
	u32 got = afa_ewma(0, AFA_UNIT, 2);

	KUNIT_EXPECT_EQ(test, got, AFA_UNIT / 4);
	got = afa_ewma(AFA_UNIT, 0, 2);
	KUNIT_EXPECT_EQ(test, got, AFA_UNIT - AFA_UNIT / 4);
}

/* Shift 0 means no smoothing: the sample passes through. */
static void afa_ewma_shift_zero_passes_sample(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, afa_ewma(123, 777, 0), 777U);
}

/* A constant input is reached exactly, from either side. */
static void afa_ewma_converges(struct kunit *test)
{
	u32 up = 0, down = AFA_UNIT;
	int i;

	for (i = 0; i < 200; i++) {
		up = afa_ewma(up, 600, 3);
		down = afa_ewma(down, 600, 3);
	}
	KUNIT_EXPECT_EQ(test, up, 600U);
	KUNIT_EXPECT_EQ(test, down, 600U);
}

struct clamp_case {
	const char *name;
	s32 order;
	u32 min_order, max_order, want;
};

static const struct clamp_case clamp_cases[] = {
	{ "inside", 3, 0, 8, 3 },
	{ "at_min", 0, 0, 8, 0 },
	{ "at_max", 8, 0, 8, 8 },
	{ "below_min", 1, 2, 8, 2 },
	{ "above_max", 9, 0, 8, 8 },
	{ "negative", -5, 1, 8, 1 },
	{ "int_min", S32_MIN, 0, 9, 0 },
	{ "int_max", S32_MAX, 0, 9, 9 },
	{ "min_eq_max", 5, 4, 4, 4 },
};

AFA_ROW_DESC(clamp_case)
KUNIT_ARRAY_PARAM(clamp, clamp_cases, clamp_case_to_desc);

static void afa_clamp_order_table(struct kunit *test)
{
	const struct clamp_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test,
			afa_clamp_order(c->order, c->min_order, c->max_order),
			c->want);
}

struct bytes_case {
	const char *name;
	u32 order, page_shift;
	u64 want;
};

static const struct bytes_case bytes_cases[] = {
	{ "one_page", 0, 12, 4096 },
	{ "upstream_default_64k", 4, 12, 65536 },
	{ "pte_table_2m", 9, 12, 2ULL << 20 },
	{ "power_64k_pages_order3", 3, 16, 512ULL << 10 },
	{ "bit_63", 63, 0, 1ULL << 63 },
	{ "past_64_bits", 52, 12, U64_MAX },
	{ "order_64", 64, 0, U64_MAX },
	{ "u32_max_both", U32_MAX, U32_MAX, U64_MAX },
};

AFA_ROW_DESC(bytes_case)
KUNIT_ARRAY_PARAM(bytes, bytes_cases, bytes_case_to_desc);

static void afa_order_to_bytes_table(struct kunit *test)
{
	const struct bytes_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, afa_order_to_bytes(c->order, c->page_shift),
			c->want);
}

/* ----- parameters, init, reasons ----- */

#define FIELD(f)	offsetof(struct afa_ctl_params, f)

struct params_case {
	const char *name;
	struct { size_t field; u32 value; } set[2];
	int nr_set;
	int want;
};

static const struct params_case params_cases[] = {
	{ "defaults", {}, 0, 0 },
	{ "max_order_9", { { FIELD(max_order), 9 } }, 1, 0 },
	{ "max_order_10", { { FIELD(max_order), 10 } }, 1, -EINVAL },
	{ "min_eq_max", { { FIELD(min_order), 4 }, { FIELD(max_order), 4 } },
	  2, 0 },
	{ "min_above_max", { { FIELD(min_order), 5 }, { FIELD(max_order), 4 } },
	  2, -EINVAL },
	{ "max_step_0", { { FIELD(max_step), 0 } }, 1, -EINVAL },
	{ "max_step_9", { { FIELD(max_step), 9 } }, 1, 0 },
	{ "max_step_10", { { FIELD(max_step), 10 } }, 1, -EINVAL },
	{ "setpoint_0", { { FIELD(setpoint), 0 } }, 1, -EINVAL },
	{ "setpoint_unit", { { FIELD(setpoint), AFA_UNIT } }, 1, -EINVAL },
	{ "deadband_reaches_setpoint",
	  { { FIELD(setpoint), 64 }, { FIELD(deadband), 64 } }, 2, -EINVAL },
	{ "deadband_below_setpoint",
	  { { FIELD(setpoint), 65 }, { FIELD(deadband), 64 } }, 2, 0 },
	{ "deadband_reaches_unit",
	  { { FIELD(setpoint), AFA_UNIT - 64 }, { FIELD(deadband), 64 } },
	  2, -EINVAL },
	{ "hysteresis_half", { { FIELD(hysteresis), AFA_UNIT / 2 } },
	  1, -EINVAL },
	{ "hysteresis_under_half", { { FIELD(hysteresis), AFA_UNIT / 2 - 1 } },
	  1, 0 },
	{ "kp_max", { { FIELD(kp), AFA_GAIN_MAX } }, 1, 0 },
	{ "kp_above_max", { { FIELD(kp), AFA_GAIN_MAX + 1 } }, 1, -EINVAL },
	{ "ki_above_max", { { FIELD(ki), U32_MAX } }, 1, -EINVAL },
	{ "kd_above_max", { { FIELD(kd), AFA_GAIN_MAX + 1 } }, 1, -EINVAL },
	{ "no_p_no_i", { { FIELD(kp), 0 }, { FIELD(ki), 0 } }, 2, -EINVAL },
	{ "i_only", { { FIELD(kp), 0 } }, 1, 0 },
	{ "shift_max", { { FIELD(ewma_shift), AFA_EWMA_SHIFT_MAX } }, 1, 0 },
	{ "shift_above_max", { { FIELD(ewma_shift), AFA_EWMA_SHIFT_MAX + 1 } },
	  1, -EINVAL },
	{ "min_samples_0", { { FIELD(min_samples), 0 } }, 1, -EINVAL },
	{ "probe_off", { { FIELD(probe_periods), 0 } }, 1, 0 },
	{ "probe_u16_max", { { FIELD(probe_periods), U16_MAX } }, 1, 0 },
	{ "probe_above_u16", { { FIELD(probe_periods), U16_MAX + 1 } },
	  1, -EINVAL },
	{ "rate_ref_off", { { FIELD(ref_faults_per_s), 0 } }, 1, 0 },
};

AFA_ROW_DESC(params_case)
KUNIT_ARRAY_PARAM(params, params_cases, params_case_to_desc);

/*
 * Each row changes the defaults in one or two fields; both sides of
 * every bound are in the table.
 */
static void afa_ctl_params_check_table(struct kunit *test)
{
	const struct params_case *c = test->param_value;
	struct afa_ctl_params p = afa_ctl_params_default;
	int i;

	for (i = 0; i < c->nr_set; i++)
		*(u32 *)((u8 *)&p + c->set[i].field) = c->set[i].value;
	KUNIT_EXPECT_EQ(test, afa_ctl_params_check(&p), c->want);
}

struct init_case {
	const char *name;
	u32 min_order, max_order, order, want;
};

static const struct init_case init_cases[] = {
	{ "inside", 0, 9, 4, 4 },
	{ "above_max", 0, 6, 8, 6 },
	{ "below_min", 3, 9, 1, 3 },
	{ "u32_max", 0, 9, U32_MAX, 9 },
	{ "pinned", 5, 5, 0, 5 },
};

AFA_ROW_DESC(init_case)
KUNIT_ARRAY_PARAM(init, init_cases, init_case_to_desc);

/* Init clamps the order and leaves nothing pending. */
static void afa_ctl_init_table(struct kunit *test)
{
	const struct init_case *c = test->param_value;
	struct afa_ctl_params p = afa_ctl_params_default;
	struct afa_ctl_state st;

	memset(&st, 0xff, sizeof(st));
	p.min_order = c->min_order;
	p.max_order = c->max_order;
	afa_ctl_init(&st, &p, c->order);
	KUNIT_EXPECT_EQ(test, st.order, c->want);
	KUNIT_EXPECT_EQ(test, st.integral, 0);
	KUNIT_EXPECT_EQ(test, st.idle_periods, 0);
	KUNIT_EXPECT_FALSE(test, st.probing);
	KUNIT_EXPECT_TRUE(test, st.fresh);
}

/* Every reason has its own name; out of range is "unknown". */
static void afa_ctl_reason_names(struct kunit *test)
{
	int a, b;

	for (a = 0; a < AFA_CTL_NR_REASONS; a++) {
		KUNIT_EXPECT_STRNEQ(test, afa_ctl_reason_name(a), "unknown");
		for (b = 0; b < a; b++)
			KUNIT_EXPECT_STRNEQ(test, afa_ctl_reason_name(a),
					    afa_ctl_reason_name(b));
	}
	KUNIT_EXPECT_STREQ(test, afa_ctl_reason_name(AFA_CTL_NR_REASONS),
			   "unknown");
	KUNIT_EXPECT_STREQ(test, afa_ctl_reason_name(-1), "unknown");
}

/* ----- a controller and the plants it steers ----- */

#define PERIOD_MS	100

struct loop {
	struct afa_ctl_params p;
	struct afa_ctl_state st;
	struct afa_ctl_trace tr;
	u32 order;
	bool stepped;		/* the last step grew or shrank */
	u32 quick;		/* steps right after a step */
};

static void loop_init(struct loop *l, u32 order)
{
	afa_ctl_init(&l->st, &l->p, order);
	l->order = l->st.order;
	l->stepped = false;
	l->quick = 0;
}

static void loop_init_default(struct loop *l, u32 order)
{
	l->p = afa_ctl_params_default;
	loop_init(l, order);
}

static void set_gains(struct afa_ctl_params *p, u32 gain)
{
	p->kp = gain;
	p->ki = gain;
	p->kd = gain;
}

/*
 * One period.  At the default gains one period of evidence is never
 * enough to step, so a step right after a step counts as "quick".
 */
static u32 loop_step(struct loop *l, const struct afa_ctl_input *in)
{
	bool stepped;

	l->order = afa_ctl_step(&l->st, &l->p, in, &l->tr);
	stepped = l->tr.reason == AFA_CTL_GROW ||
		  l->tr.reason == AFA_CTL_SHRINK;
	l->quick += stepped && l->stepped;
	l->stepped = stepped;
	return l->order;
}

/* A period in which @sampled pages were checked and @used of them used. */
static struct afa_ctl_input measured(u32 faults, u32 sampled, u32 used)
{
	return (struct afa_ctl_input){
		.nr_faults = faults, .nr_sampled = sampled, .nr_used = used,
		.nr_hits = faults, .period_ms = PERIOD_MS,
	};
}

/* A period whose usefulness is @ratio (AFA_UNIT) with plenty of samples. */
static struct afa_ctl_input useful(u32 ratio)
{
	return measured(1000, AFA_UNIT, ratio);
}

enum plant_kind { SEQUENTIAL, SPARSE, RECORDS };

/*
 * A workload as the law sees it: given the window order of a period, what
 * the probes would count.  The window holds 2^order pages around the
 * fault, so it maps 2^order - 1 pages besides the faulting one.
 */
struct plant {
	enum plant_kind kind;
	u32 touches;		/* pages read (SEQUENTIAL), else accesses */
	u32 record_order;	/* RECORDS: records of 2^record_order pages */
	u32 noise;		/* +- usefulness noise, AFA_UNIT */
	u32 seed;		/* state of the noise generator */
};

/* Sequential: 64 Ki pages per 100 ms, >= 1280 faults/s even at order 9. */
#define SEQ_PLANT	{ .kind = SEQUENTIAL, .touches = 1 << 16 }
/* One page per 2 MiB: no page mapped around a fault is ever used. */
#define SPARSE_PLANT	{ .kind = SPARSE, .touches = 512 }
/* Random whole records of 2^r pages: usefulness falls past order r. */
#define RECORD_PLANT(r)	{ .kind = RECORDS, .touches = 512, .record_order = r }

static u32 plant_noise(struct plant *pl, u32 used, u32 sampled)
{
	s64 delta;

	pl->seed = pl->seed * 1664525 + 1013904223;
	/* u32 modulo: a 64-bit one needs libgcc on 32-bit kernels. */
	delta = (s32)((pl->seed >> 8) % (2 * pl->noise + 1)) - (s32)pl->noise;
	delta = div_s64(delta * sampled, AFA_UNIT);
	return clamp_t(s64, (s64)used + delta, 0, sampled);
}

static struct afa_ctl_input plant_period(struct plant *pl, u32 order)
{
	u32 window = 1U << order, record = 1U << pl->record_order;
	u32 faults = pl->touches, used;

	if (pl->kind == SEQUENTIAL)
		faults = DIV_ROUND_UP(pl->touches, window);
	else if (pl->kind == RECORDS && order <= pl->record_order)
		faults = pl->touches << (pl->record_order - order);
	used = faults * (window - 1);
	if (pl->kind == SPARSE)
		used = 0;
	else if (pl->kind == RECORDS && order > pl->record_order)
		used = pl->touches * (record - 1);
	if (pl->noise)
		used = plant_noise(pl, used, faults * (window - 1));
	return measured(faults, faults * (window - 1), used);
}

/* Periods until the loop first applies @want, at most @limit (else U32_MAX). */
static u32 loop_reach(struct loop *l, struct plant *pl, u32 want, u32 limit)
{
	struct afa_ctl_input in;
	u32 k;

	for (k = 1; k <= limit; k++) {
		in = plant_period(pl, l->order);
		if (loop_step(l, &in) == want)
			return k;
	}
	return U32_MAX;
}

/*
 * Range of orders applied over @periods periods; counts one-period
 * reversals (A, B, A) that were not a probe and its revert.
 */
static void loop_band(struct loop *l, struct plant *pl, u32 periods,
		      u32 *lo, u32 *hi, u32 *chatter)
{
	struct afa_ctl_input in;
	u32 k, prev = l->order, prev2 = l->order;

	*lo = l->order;
	*hi = l->order;
	*chatter = 0;
	for (k = 0; k < periods; k++) {
		in = plant_period(pl, l->order);
		loop_step(l, &in);
		if (l->order == prev2 && l->order != prev &&
		    l->tr.reason != AFA_CTL_PROBE_REVERT)
			(*chatter)++;
		prev2 = prev;
		prev = l->order;
		*lo = min(*lo, l->order);
		*hi = max(*hi, l->order);
	}
}

struct ratio_case {
	const char *name;
	u32 part, whole, want;
};

static const struct ratio_case ratio_cases[] = {
	{ "none_sampled", 0, 0, 0 },
	{ "none_sampled_racy_used", 5, 0, 0 },
	{ "half", 1, 2, AFA_UNIT / 2 },
	{ "three_quarters", 3, 4, AFA_UNIT * 3 / 4 },
	{ "all_u32_max", U32_MAX, U32_MAX, AFA_UNIT },
	{ "racy_part_above_whole", U32_MAX, 1, AFA_UNIT },
	{ "one_in_u32_max", 1, U32_MAX, 0 },
	{ "almost_all_u32", U32_MAX - 1, U32_MAX, AFA_UNIT - 1 },
};

AFA_ROW_DESC(ratio_case)
KUNIT_ARRAY_PARAM(ratio, ratio_cases, ratio_case_to_desc);

/*
 * Usefulness (nr_used / nr_sampled, as the trace reports it even for a
 * held period) is exact to the unit and in [0, AFA_UNIT] at any count.
 */
static void afa_ctl_usefulness_table(struct kunit *test)
{
	const struct ratio_case *c = test->param_value;
	struct afa_ctl_input in = measured(0, c->whole, c->part);
	struct loop l;

	loop_init_default(&l, 4);
	loop_step(&l, &in);
	KUNIT_EXPECT_EQ(test, l.tr.usefulness, c->want);
}

/* ----- direction of each term ----- */

struct sign_case {
	const char *name;
	u32 usefulness;
	int sign;
};

static const struct sign_case sign_cases[] = {
	{ "used_all", AFA_UNIT, 1 },
	{ "used_most", AFA_UNIT * 7 / 8, 1 },
	{ "used_few", AFA_UNIT / 8, -1 },
	{ "used_none", 0, -1 },
};

AFA_ROW_DESC(sign_case)
KUNIT_ARRAY_PARAM(sign, sign_cases, sign_case_to_desc);

static int sign_of(s32 x)
{
	return (x > 0) - (x < 0);
}

/* P alone: the term has the error's sign and scales with kp. */
static void afa_ctl_p_direction(struct kunit *test)
{
	const struct sign_case *c = test->param_value;
	struct afa_ctl_input in = useful(c->usefulness);
	struct loop l = { .p = afa_ctl_params_default };
	s32 p1;

	l.p.ki = 0;
	l.p.hysteresis = AFA_UNIT / 2 - 1;
	l.p.kp = AFA_UNIT / 4;
	loop_init(&l, 4);
	loop_step(&l, &in);
	p1 = l.tr.p;
	KUNIT_EXPECT_EQ(test, sign_of(l.tr.error), c->sign);
	KUNIT_EXPECT_EQ(test, sign_of(p1), c->sign);
	KUNIT_EXPECT_EQ(test, l.tr.i, 0);
	KUNIT_EXPECT_EQ(test, l.tr.d, 0);

	l.p.kp *= 2;
	loop_init(&l, 4);
	loop_step(&l, &in);
	KUNIT_EXPECT_LE(test, abs(l.tr.p - 2 * p1), 1);
}

/* I alone: accumulates in the error's direction, period after period. */
static void afa_ctl_i_direction(struct kunit *test)
{
	const struct sign_case *c = test->param_value;
	struct afa_ctl_input in = useful(c->usefulness);
	struct loop l = { .p = afa_ctl_params_default };
	s32 last = 0;
	int k;

	l.p.kp = 0;
	l.p.ki = AFA_UNIT / 16;
	loop_init(&l, 4);
	for (k = 0; k < 3; k++) {
		loop_step(&l, &in);
		KUNIT_EXPECT_EQ(test, sign_of(l.tr.i), c->sign);
		KUNIT_EXPECT_GT(test, abs(l.tr.i), abs(last));
		KUNIT_EXPECT_EQ(test, l.tr.p, 0);
		KUNIT_EXPECT_EQ(test, l.order, 4U);
		last = l.tr.i;
	}
}

struct d_case {
	const char *name;
	u32 before, after;
	int sign;
};

static const struct d_case d_cases[] = {
	{ "usefulness_rising", AFA_UNIT * 5 / 8, AFA_UNIT * 7 / 8, 1 },
	{ "usefulness_falling", AFA_UNIT * 7 / 8, AFA_UNIT * 5 / 8, -1 },
	{ "falling_below_setpoint", AFA_UNIT * 3 / 8, AFA_UNIT / 8, -1 },
	{ "rising_below_setpoint", AFA_UNIT / 8, AFA_UNIT * 3 / 8, 1 },
	{ "flat", AFA_UNIT / 8, AFA_UNIT / 8, 0 },
};

AFA_ROW_DESC(d_case)
KUNIT_ARRAY_PARAM(d, d_cases, d_case_to_desc);

/*
 * D alone (kp = ki = 0, which afa_ctl_params_check() would refuse, to
 * isolate it): the term follows the change of usefulness, and is 0 on
 * the first sample at an order, which has no history.
 */
static void afa_ctl_d_direction(struct kunit *test)
{
	const struct d_case *c = test->param_value;
	struct afa_ctl_input before = useful(c->before);
	struct afa_ctl_input after = useful(c->after);
	struct loop l = { .p = afa_ctl_params_default };

	l.p.kp = 0;
	l.p.ki = 0;
	l.p.kd = AFA_UNIT / 4;
	l.p.ewma_shift = 0;
	loop_init(&l, 4);
	loop_step(&l, &before);
	KUNIT_EXPECT_EQ(test, l.tr.d, 0);
	loop_step(&l, &after);
	KUNIT_EXPECT_EQ(test, sign_of(l.tr.d), c->sign);
	KUNIT_EXPECT_EQ(test, l.tr.p, 0);
	KUNIT_EXPECT_EQ(test, l.tr.i, 0);
}

/*
 * Gains far past AFA_GAIN_MAX (unchecked): the terms saturate at ten
 * orders in the error's direction instead of wrapping.
 */
static void afa_ctl_huge_gains_saturate(struct kunit *test)
{
	const struct sign_case *c = test->param_value;
	struct afa_ctl_input in = useful(c->usefulness);
	struct loop l = { .p = afa_ctl_params_default };

	set_gains(&l.p, U32_MAX);
	loop_init(&l, 4);
	loop_step(&l, &in);
	KUNIT_EXPECT_EQ(test, l.tr.p, c->sign * (AFA_ORDER_MAX + 1) * AFA_UNIT);
	KUNIT_EXPECT_EQ(test, l.tr.i, c->sign * AFA_UNIT);
	KUNIT_EXPECT_EQ(test, (s32)l.order - 4, c->sign);
}

/* ----- saturation, anti-windup, deadband, hold, step bound ----- */

/* Sequential at max_order: stays, says saturated, winds nothing up. */
static void afa_ctl_saturates_at_max(struct kunit *test)
{
	struct plant pl = SEQ_PLANT;
	struct afa_ctl_input in;
	struct loop l;
	int k;

	loop_init_default(&l, AFA_ORDER_MAX);
	for (k = 0; k < 100; k++) {
		in = plant_period(&pl, l.order);
		KUNIT_ASSERT_EQ(test, loop_step(&l, &in), AFA_ORDER_MAX);
		KUNIT_ASSERT_LE(test, l.tr.i, 0);
	}
	KUNIT_EXPECT_EQ(test, l.tr.reason, AFA_CTL_SATURATED);
	KUNIT_EXPECT_GT(test, l.tr.output, AFA_ORDER_MAX * AFA_UNIT);
}

/* Sparse with min_order 2 (so samples exist): settles there, saturated. */
static void afa_ctl_saturates_at_min(struct kunit *test)
{
	struct plant pl = SPARSE_PLANT;
	struct afa_ctl_input in;
	struct loop l = { .p = afa_ctl_params_default };
	int k;

	l.p.min_order = 2;
	loop_init(&l, 6);
	KUNIT_EXPECT_LE(test, loop_reach(&l, &pl, 2, 2 * 4), 2U * 4);
	for (k = 0; k < 100; k++) {
		in = plant_period(&pl, l.order);
		KUNIT_ASSERT_EQ(test, loop_step(&l, &in), 2U);
		KUNIT_ASSERT_GE(test, l.tr.i, 0);
	}
	KUNIT_EXPECT_EQ(test, l.tr.reason, AFA_CTL_SATURATED);
	KUNIT_EXPECT_LT(test, l.tr.output, 2 * AFA_UNIT);
}

/*
 * Periods until the order leaves @bound once @after replaces @before,
 * after @saturated periods of @before at that bound.
 */
static u32 leave_time(u32 min_order, u32 bound, u32 saturated,
		      struct plant before, struct plant after)
{
	struct loop l = { .p = afa_ctl_params_default };
	u32 k;

	l.p.min_order = min_order;
	loop_init(&l, bound);
	for (k = 0; k < saturated; k++) {
		struct afa_ctl_input in = plant_period(&before, l.order);

		loop_step(&l, &in);
	}
	for (k = 1; k <= 100; k++) {
		struct afa_ctl_input in = plant_period(&after, l.order);

		if (loop_step(&l, &in) != bound)
			return k;
	}
	return U32_MAX;
}

/*
 * Anti-windup: after 1000 saturated periods the order leaves the bound
 * exactly as soon as after one, within 8 periods (the EWMA must first
 * cross the setpoint, then two periods agree).
 */
static void afa_ctl_anti_windup(struct kunit *test)
{
	struct plant seq = SEQ_PLANT, sparse = SPARSE_PLANT;
	u32 t_short, t_long;

	t_short = leave_time(0, AFA_ORDER_MAX, 1, seq, sparse);
	t_long = leave_time(0, AFA_ORDER_MAX, 1000, seq, sparse);
	KUNIT_EXPECT_EQ(test, t_long, t_short);
	KUNIT_EXPECT_LE(test, t_long, 8U);

	t_short = leave_time(2, 2, 1, sparse, seq);
	t_long = leave_time(2, 2, 1000, sparse, seq);
	KUNIT_EXPECT_EQ(test, t_long, t_short);
	KUNIT_EXPECT_LE(test, t_long, 8U);
}

struct deadband_case {
	const char *name;
	s32 offset;	/* usefulness - setpoint, in units of the deadband */
	bool moves;
};

static const struct deadband_case deadband_cases[] = {
	{ "at_setpoint", 0, false },
	{ "upper_edge", 1, false },
	{ "lower_edge", -1, false },
	{ "above", 2, true },
	{ "below", -2, true },
};

AFA_ROW_DESC(deadband_case)
KUNIT_ARRAY_PARAM(deadband, deadband_cases, deadband_case_to_desc);

/*
 * Inside the deadband the order does not move, however long, and what
 * was pending only fades; just outside it the order does move.
 */
static void afa_ctl_deadband(struct kunit *test)
{
	const struct deadband_case *c = test->param_value;
	struct loop l = { .p = afa_ctl_params_default };
	struct afa_ctl_input in, kick = useful(AFA_UNIT);
	s32 pending;
	int k;

	l.p.ewma_shift = 0;
	in = useful(l.p.setpoint + c->offset * (s32)l.p.deadband);
	loop_init(&l, 4);
	loop_step(&l, &kick);
	pending = l.st.integral;
	KUNIT_ASSERT_NE(test, pending, 0);
	for (k = 0; k < 50 && l.order == 4; k++) {
		loop_step(&l, &in);
		if (!c->moves) {
			KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_DEADBAND);
			KUNIT_ASSERT_LE(test, l.st.integral, pending);
			KUNIT_ASSERT_GE(test, l.st.integral, 0);
			pending = l.st.integral;
		}
	}
	KUNIT_EXPECT_EQ(test, l.order != 4, c->moves);
}

struct hold_case {
	const char *name;
	u32 faults, sampled, used, probe_periods;
};

static const struct hold_case hold_cases[] = {
	{ "nothing", 0, 0, 0, 8 },
	{ "faults_no_probe", 500, 0, 0, 0 },
	{ "one_short", 500, AFA_MIN_SAMPLES_DEFAULT - 1,
	  AFA_MIN_SAMPLES_DEFAULT - 1, 0 },
	{ "one_short_unused", 500, AFA_MIN_SAMPLES_DEFAULT - 1, 0, 0 },
	{ "racy_used_no_samples", 0, 0, U32_MAX, 8 },
};

AFA_ROW_DESC(hold_case)
KUNIT_ARRAY_PARAM(hold, hold_cases, hold_case_to_desc);

/* All of the state but the idle count (padding is not compared). */
static void expect_same_state(struct kunit *test,
			      const struct afa_ctl_state *a,
			      const struct afa_ctl_state *b)
{
	KUNIT_ASSERT_EQ(test, a->integral, b->integral);
	KUNIT_ASSERT_EQ(test, a->prev_error, b->prev_error);
	KUNIT_ASSERT_EQ(test, a->usefulness_avg, b->usefulness_avg);
	KUNIT_ASSERT_EQ(test, a->order, b->order);
	KUNIT_ASSERT_EQ(test, a->base_order, b->base_order);
	KUNIT_ASSERT_TRUE(test, a->probing == b->probing);
	KUNIT_ASSERT_TRUE(test, a->fresh == b->fresh);
}

/* A period with too few samples changes no state but the idle count. */
static void afa_ctl_hold_few_samples(struct kunit *test)
{
	const struct hold_case *c = test->param_value;
	struct afa_ctl_input in = measured(c->faults, c->sampled, c->used);
	struct afa_ctl_input kick = useful(AFA_UNIT * 3 / 4);
	struct loop l = { .p = afa_ctl_params_default };
	struct afa_ctl_state before;
	int k;

	l.p.probe_periods = c->probe_periods;
	loop_init(&l, 5);
	loop_step(&l, &kick);
	before = l.st;
	KUNIT_ASSERT_NE(test, before.integral, 0);
	for (k = 1; k <= 20; k++) {
		loop_step(&l, &in);
		KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_HOLD_FEW_SAMPLES);
		KUNIT_ASSERT_EQ(test, l.st.idle_periods, k);
		expect_same_state(test, &l.st, &before);
	}
	KUNIT_EXPECT_EQ(test, l.order, 5U);
}

struct step_case {
	const char *name;
	u32 max_step, hysteresis, gain;	/* gain 0: default gains */
};

static const struct step_case step_cases[] = {
	{ "default", 1, AFA_UNIT / 4, 0 },
	{ "max_gain_step_1", 1, 0, AFA_GAIN_MAX },
	{ "max_gain_step_2", 2, 0, AFA_GAIN_MAX },
	{ "max_gain_step_3", 3, AFA_UNIT / 2 - 1, AFA_GAIN_MAX },
	{ "step_9", 9, 0, AFA_GAIN_MAX },
};

AFA_ROW_DESC(step_case)
KUNIT_ARRAY_PARAM(step, step_cases, step_case_to_desc);

/*
 * Against random periods (blocks of 8 periods all used or nearly none,
 * sample counts anywhere from none to plenty, faults sometimes absent)
 * the order never moves more than max_step, but does move; at the
 * default gains it never steps twice in a row.
 */
static void afa_ctl_step_bounded(struct kunit *test)
{
	const struct step_case *c = test->param_value;
	struct loop l = { .p = afa_ctl_params_default };
	u32 seed = 12345, prev, moved = 0, all_used = 0, k;

	l.p.max_step = c->max_step;
	l.p.hysteresis = c->hysteresis;
	if (c->gain)
		set_gains(&l.p, c->gain);
	KUNIT_ASSERT_EQ(test, afa_ctl_params_check(&l.p), 0);
	loop_init(&l, 0);
	for (k = 0; k < 5000; k++) {
		struct afa_ctl_input in;
		u32 sampled;

		seed = seed * 1664525 + 1013904223;
		if (k % 8 == 0)
			all_used = seed >> 31;
		sampled = (seed >> 8) & 1023;
		in = measured((seed >> 4) & 255, sampled,
			      all_used ? sampled : (seed >> 20) & 15);
		prev = l.order;
		loop_step(&l, &in);
		KUNIT_ASSERT_LE(test, abs((s32)l.order - (s32)prev),
				(s32)c->max_step);
		KUNIT_ASSERT_LE(test, l.order, (u32)AFA_ORDER_MAX);
		moved += l.order != prev;
	}
	KUNIT_EXPECT_GT(test, moved, 100U);
	if (!c->gain)
		KUNIT_EXPECT_EQ(test, l.quick, 0U);
}

/* ----- extreme inputs and overflow ----- */

struct signal_case {
	const char *name;
	struct afa_ctl_input in;
	u32 usefulness, hit_ratio, rate_weight;
};

#define IN(f, s, u, h, m, ms)	{ f, s, u, h, m, ms }

static const struct signal_case signal_cases[] = {
	{ "all_u32_max", IN(U32_MAX, U32_MAX, U32_MAX, U32_MAX, U32_MAX, 1),
	  AFA_UNIT, AFA_UNIT / 2, AFA_UNIT },
	{ "used_above_sampled", IN(100, 100, U32_MAX, 0, 7, 100),
	  AFA_UNIT, 0, AFA_UNIT },
	{ "period_zero", IN(1, 64, 16, 1, 0, 0),
	  AFA_UNIT / 4, AFA_UNIT, AFA_UNIT },
	{ "rate_at_ref_u32_max", IN(U32_MAX, 64, 0, 3, 1, U32_MAX),
	  0, AFA_UNIT * 3 / 4, AFA_UNIT },
	{ "rate_one_per_49_days", IN(1, 64, 64, 0, 0, U32_MAX),
	  AFA_UNIT, 0, 0 },
	{ "rate_half_ref", IN(50, 64, 32, 1, 1, 100),
	  AFA_UNIT / 2, AFA_UNIT / 2, AFA_UNIT / 2 },
	{ "rate_quarter_ref", IN(25, 64, 48, 0, 1, 100),
	  AFA_UNIT * 3 / 4, 0, AFA_UNIT / 4 },
	{ "no_faults", IN(0, 64, 64, 0, 0, 100), AFA_UNIT, 0, 0 },
	{ "zero_period_u32_faults", IN(U32_MAX, 64, 64, 0, 0, 0),
	  AFA_UNIT, 0, AFA_UNIT },
};

AFA_ROW_DESC(signal_case)
KUNIT_ARRAY_PARAM(signal, signal_cases, signal_case_to_desc);

/* The measured signals come out exact at any count (no 32-bit wrap). */
static void afa_ctl_trace_signals(struct kunit *test)
{
	const struct signal_case *c = test->param_value;
	struct loop l;

	loop_init_default(&l, 4);
	loop_step(&l, &c->in);
	KUNIT_EXPECT_EQ(test, l.tr.usefulness, c->usefulness);
	KUNIT_EXPECT_EQ(test, l.tr.hit_ratio, c->hit_ratio);
	KUNIT_EXPECT_EQ(test, l.tr.rate_weight, c->rate_weight);
	KUNIT_EXPECT_EQ(test, l.tr.order, 4U);
}

/* Check every field of a trace against the ranges the law promises. */
static void expect_trace_in_range(struct kunit *test, const struct loop *l)
{
	const struct afa_ctl_trace *tr = &l->tr;
	s32 term_max = (AFA_ORDER_MAX + 1) * AFA_UNIT;

	KUNIT_ASSERT_LE(test, tr->new_order, (u32)AFA_ORDER_MAX);
	KUNIT_ASSERT_EQ(test, tr->new_order, l->order);
	KUNIT_ASSERT_LE(test, tr->usefulness, (u32)AFA_UNIT);
	KUNIT_ASSERT_LE(test, tr->usefulness_avg, (u32)AFA_UNIT);
	KUNIT_ASSERT_LE(test, tr->hit_ratio, (u32)AFA_UNIT);
	KUNIT_ASSERT_LE(test, tr->rate_weight, (u32)AFA_UNIT);
	KUNIT_ASSERT_LE(test, abs(tr->error), AFA_UNIT);
	KUNIT_ASSERT_LE(test, abs(tr->p), term_max);
	KUNIT_ASSERT_LE(test, abs(tr->i), AFA_UNIT);
	KUNIT_ASSERT_LE(test, abs(tr->d), term_max);
	KUNIT_ASSERT_LT(test, (u32)tr->reason, (u32)AFA_CTL_NR_REASONS);
}

/*
 * At the largest gains, from either end of the range and alternating
 * with an opposite period, extreme counts keep every result in range.
 */
static void afa_ctl_extreme_inputs(struct kunit *test)
{
	const struct signal_case *c = test->param_value;
	struct afa_ctl_input other = useful(AFA_UNIT - c->usefulness);
	struct loop l = { .p = afa_ctl_params_default };
	u32 start, k;

	set_gains(&l.p, AFA_GAIN_MAX);
	l.p.max_step = AFA_ORDER_MAX;
	KUNIT_ASSERT_EQ(test, afa_ctl_params_check(&l.p), 0);
	for (start = 0; start <= AFA_ORDER_MAX; start += AFA_ORDER_MAX) {
		loop_init(&l, start);
		for (k = 0; k < 64; k++) {
			loop_step(&l, k % 3 ? &c->in : &other);
			expect_trace_in_range(test, &l);
		}
	}
}

/*
 * Tunables that afa_ctl_params_check() refuses still cannot push the
 * order out of [0, AFA_ORDER_MAX] or overflow a term.
 */
static void afa_ctl_unchecked_params(struct kunit *test)
{
	struct afa_ctl_input in[] = {
		measured(U32_MAX, U32_MAX, U32_MAX), measured(U32_MAX, 64, 0),
		measured(0, 0, 0), measured(U32_MAX, U32_MAX, 1),
	};
	struct loop l;
	u32 k;

	memset(&l.p, 0xff, sizeof(l.p));
	KUNIT_ASSERT_EQ(test, afa_ctl_params_check(&l.p), -EINVAL);
	loop_init(&l, U32_MAX);
	for (k = 0; k < 200; k++) {
		loop_step(&l, &in[k % ARRAY_SIZE(in)]);
		expect_trace_in_range(test, &l);
	}
	memset(&l.p, 0, sizeof(l.p));
	loop_init(&l, 3);
	for (k = 0; k < 200; k++) {
		loop_step(&l, &in[k % ARRAY_SIZE(in)]);
		expect_trace_in_range(test, &l);
	}
}

/* ----- rate weight, probes ----- */

/*
 * Growth is weighted by the fault rate: at a quarter of the reference
 * rate a step up takes longer; a step down (never weighted) does not.
 */
static void afa_ctl_rate_weights_growth_only(struct kunit *test)
{
	u32 faults[] = { 100, 25 }, grow[2], shrink[2], i, k;
	struct loop l;

	for (i = 0; i < 2; i++) {
		struct afa_ctl_input up = measured(faults[i], 1000, 1000);
		struct afa_ctl_input down = measured(faults[i], 1000, 0);

		loop_init_default(&l, 3);
		for (k = 1; k < 100 && loop_step(&l, &up) == 3; k++)
			;
		grow[i] = k;
		loop_init_default(&l, 3);
		for (k = 1; k < 100 && loop_step(&l, &down) == 3; k++)
			;
		shrink[i] = k;
	}
	KUNIT_EXPECT_EQ(test, grow[0], 2U);
	KUNIT_EXPECT_GT(test, grow[1], 2 * grow[0]);
	KUNIT_EXPECT_LT(test, grow[1], 100U);
	KUNIT_EXPECT_EQ(test, shrink[0], 2U);
	KUNIT_EXPECT_EQ(test, shrink[1], shrink[0]);
}

struct probe_case {
	const char *name;
	u32 min_order, max_step, probe_periods, probe_order;
};

static const struct probe_case probe_cases[] = {
	{ "from_0_every_8", 0, 1, 8, 1 },
	{ "from_0_step_2", 0, 2, 8, 2 },
	{ "every_period", 0, 1, 1, 1 },
	{ "every_20", 0, 1, 20, 1 },
	{ "min_order_8_to_max", 8, 3, 4, 9 },
};

AFA_ROW_DESC(probe_case)
KUNIT_ARRAY_PARAM(probe, probe_cases, probe_case_to_desc);

/*
 * Sparse access with no samples at min_order: one probe of max_step
 * orders every probe_periods + 1 periods, each reverted right after.
 * (At min_order 8 sparse access has samples: a sparse plant would shrink
 * normally, so feed periods without samples instead.)
 */
static void afa_ctl_probe_cadence(struct kunit *test)
{
	const struct probe_case *c = test->param_value;
	struct loop l = { .p = afa_ctl_params_default };
	struct plant pl = SPARSE_PLANT;
	struct afa_ctl_input in;
	u32 k, probes = 0, cycle = c->probe_periods + 1;

	l.p.min_order = c->min_order;
	l.p.max_step = c->max_step;
	l.p.probe_periods = c->probe_periods;
	loop_init(&l, c->min_order);
	for (k = 1; k <= 10 * cycle; k++) {
		in = plant_period(&pl, l.order);
		if (c->min_order)
			in = measured(in.nr_faults, 0, 0);
		loop_step(&l, &in);
		if (k % cycle == c->probe_periods % cycle) {
			KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_PROBE);
			KUNIT_ASSERT_EQ(test, l.order, c->probe_order);
			probes++;
		} else {
			KUNIT_ASSERT_EQ(test, l.order, c->min_order);
		}
	}
	KUNIT_EXPECT_EQ(test, probes, 10U);
}

/* Without faults there is nothing to learn: no probe, order 0 stays. */
static void afa_ctl_probe_needs_faults(struct kunit *test)
{
	struct afa_ctl_input idle = measured(0, 0, 0);
	struct loop l;
	int k;

	loop_init_default(&l, 0);
	for (k = 0; k < 1000; k++)
		KUNIT_ASSERT_EQ(test, loop_step(&l, &idle), 0U);
	KUNIT_EXPECT_EQ(test, l.tr.reason, AFA_CTL_HOLD_FEW_SAMPLES);
	KUNIT_EXPECT_EQ(test, l.st.idle_periods, 1000);
}

/* probe_periods = 0: a sequential stream found at order 0 stays there. */
static void afa_ctl_probe_disabled(struct kunit *test)
{
	struct plant pl = SEQ_PLANT;
	struct loop l = { .p = afa_ctl_params_default };

	l.p.probe_periods = 0;
	loop_init(&l, 0);
	KUNIT_EXPECT_EQ(test, loop_reach(&l, &pl, 1, 1000), U32_MAX);
	KUNIT_EXPECT_EQ(test, l.tr.reason, AFA_CTL_HOLD_FEW_SAMPLES);
}

struct probe_end_case {
	const char *name;
	u32 sampled, used;
	bool kept;
};

static const struct probe_end_case probe_end_cases[] = {
	{ "all_used", 600, 600, true },
	{ "at_setpoint_edge", 1024, 512 - 64, true },
	{ "just_below", 1024, 512 - 65, false },
	{ "none_used", 600, 0, false },
	{ "too_few_samples", AFA_MIN_SAMPLES_DEFAULT - 1,
	  AFA_MIN_SAMPLES_DEFAULT - 1, false },
	{ "no_samples", 0, 0, false },
};

AFA_ROW_DESC(probe_end_case)
KUNIT_ARRAY_PARAM(probe_end, probe_end_cases, probe_end_case_to_desc);

/*
 * A probe is kept when its window was used about as much as the
 * setpoint asks (within the deadband); else the order returns.
 */
static void afa_ctl_probe_end(struct kunit *test)
{
	const struct probe_end_case *c = test->param_value;
	struct afa_ctl_input none = measured(500, 0, 0);
	struct afa_ctl_input end = measured(500, c->sampled, c->used);
	struct loop l;
	int k;

	loop_init_default(&l, 2);
	for (k = 0; k < 8; k++)
		loop_step(&l, &none);
	KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_PROBE);
	KUNIT_ASSERT_EQ(test, l.order, 3U);
	loop_step(&l, &end);
	KUNIT_EXPECT_EQ(test, l.order >= 3, c->kept);
	KUNIT_EXPECT_EQ(test, l.tr.reason == AFA_CTL_PROBE_REVERT, !c->kept);
	if (!c->kept)
		KUNIT_EXPECT_EQ(test, l.order, 2U);
}

/* ----- closed loop against plants ----- */

struct converge_case {
	const char *name;
	struct plant plant;
	u32 start, want, within, lo, hi;
};

/*
 * Bounds, from the default gains: at a fresh order (average seeded, no
 * pending movement) a step takes n periods where
 * |e| * (kp + n * ki) >= 3/4, that is 2 periods for |error| >= 0.375,
 * 3 for >= 0.27, 4 for >= 0.22.  From order 0 the probe comes after at
 * most probe_periods = 8 periods.  Records of 2^r pages are fully used
 * up to order r and (2^r - 1) / (2^n - 1) used at order n > r.
 */
static const struct converge_case converge_cases[] = {
	/* probe at 8, then two periods for each of orders 1..8 */
	{ "sequential_from_0", SEQ_PLANT, 0, 9, 8 + 2 * 8, 9, 9 },
	{ "sequential_from_4", SEQ_PLANT, 4, 9, 2 * 5, 9, 9 },
	/* at order 0 probes to order 1 and back remain */
	{ "sparse_from_9", SPARSE_PLANT, 9, 0, 2 * 9, 0, 1 },
	{ "sparse_from_4", SPARSE_PLANT, 4, 0, 2 * 4, 0, 1 },
	/* 32 KiB records: 47% used at order 4, inside the deadband */
	{ "records_32k_settle_at_64k", RECORD_PLANT(3), 0, 4, 8 + 2 * 3,
	  4, 4 },
	/* orders 9..6 have |error| >= 0.39, order 5 has 0.27 */
	{ "records_32k_from_9", RECORD_PLANT(3), 9, 4, 2 * 4 + 3, 4, 4 },
	/* 256 KiB records: 50% at order 7; order 8 has |error| 0.25 */
	{ "records_256k", RECORD_PLANT(6), 9, 7, 2 + 4, 7, 7 },
};

AFA_ROW_DESC(converge_case)
KUNIT_ARRAY_PARAM(converge, converge_cases, converge_case_to_desc);

/*
 * The loop reaches the plant's best order within the stated periods,
 * then stays in a band of at most one order without one-period reversals.
 * Records of 32 KiB are 47% used at 64 KiB (in the deadband) and 23% at
 * 128 KiB; records of 256 KiB are 50% used at 512 KiB.
 */
static void afa_ctl_converges(struct kunit *test)
{
	const struct converge_case *c = test->param_value;
	struct plant pl = c->plant;
	u32 lo, hi, chatter;
	struct loop l;

	loop_init_default(&l, c->start);
	KUNIT_EXPECT_LE(test, loop_reach(&l, &pl, c->want, c->within),
			c->within);
	loop_band(&l, &pl, 500, &lo, &hi, &chatter);
	KUNIT_EXPECT_EQ(test, lo, c->lo);
	KUNIT_EXPECT_EQ(test, hi, c->hi);
	KUNIT_EXPECT_EQ(test, chatter, 0U);
	KUNIT_EXPECT_EQ(test, l.quick, 0U);
}

struct phase_case {
	const char *name;
	struct plant first, then;
	u32 want, within, lo, hi;
};

/*
 * A phase change at a settled order first waits for the average to
 * leave the deadband: from full use to none, 6 periods pass until the
 * first step at max_order (3 to cross, 3 to integrate); from 47% to full
 * use at order 4, 4 periods.  From order 0 only the probe finds a new
 * phase, at most 8 periods later.
 */
static const struct phase_case phase_cases[] = {
	{ "sequential_then_sparse", SEQ_PLANT, SPARSE_PLANT, 0,
	  6 + 2 * 8, 0, 1 },
	{ "sparse_then_sequential", SPARSE_PLANT, SEQ_PLANT, 9,
	  8 + 2 * 8, 9, 9 },
	{ "records_then_sequential", RECORD_PLANT(3), SEQ_PLANT, 9,
	  4 + 2 * 4, 9, 9 },
	{ "sequential_then_records", SEQ_PLANT, RECORD_PLANT(3), 4,
	  6 + 2 * 3 + 3, 4, 4 },
	{ "sparse_then_records", SPARSE_PLANT, RECORD_PLANT(3), 4,
	  8 + 2 * 3, 4, 4 },
};

AFA_ROW_DESC(phase_case)
KUNIT_ARRAY_PARAM(phase, phase_cases, phase_case_to_desc);

/*
 * After 100 periods of one workload the stream changes to another: the
 * law re-converges within the stated periods (from sparse, only the
 * probe can find the new phase), then holds a band of one order.
 */
static void afa_ctl_phase_change(struct kunit *test)
{
	const struct phase_case *c = test->param_value;
	struct plant first = c->first, then = c->then;
	u32 lo, hi, chatter;
	struct loop l;

	loop_init_default(&l, 4);
	loop_band(&l, &first, 100, &lo, &hi, &chatter);
	loop_band(&l, &first, 100, &lo, &hi, &chatter);
	KUNIT_ASSERT_LE(test, hi - lo, 1U);
	KUNIT_ASSERT_NE(test, l.order, c->want);
	KUNIT_EXPECT_LE(test, loop_reach(&l, &then, c->want, c->within),
			c->within);
	loop_band(&l, &then, 500, &lo, &hi, &chatter);
	KUNIT_EXPECT_EQ(test, lo, c->lo);
	KUNIT_EXPECT_EQ(test, hi, c->hi);
	KUNIT_EXPECT_EQ(test, chatter, 0U);
	KUNIT_EXPECT_EQ(test, l.quick, 0U);
}

/*
 * Records of 16 KiB: all used at order 2, 43% at order 3 (outside the
 * deadband).  No order meets the setpoint, so the law dithers between
 * the two, but each visit lasts at least two periods (no chatter).
 */
static void afa_ctl_cliff_dithers_one_order(struct kunit *test)
{
	struct plant pl = RECORD_PLANT(2);
	u32 lo, hi, chatter;
	struct loop l;

	loop_init_default(&l, 9);
	KUNIT_EXPECT_LE(test, loop_reach(&l, &pl, 3, 2 * 5 + 3), 2U * 5 + 3);
	loop_band(&l, &pl, 1000, &lo, &hi, &chatter);
	KUNIT_EXPECT_EQ(test, lo, 2U);
	KUNIT_EXPECT_EQ(test, hi, 3U);
	KUNIT_EXPECT_EQ(test, chatter, 0U);
	KUNIT_EXPECT_EQ(test, l.quick, 0U);
}

/*
 * Noisy periods (+-10% usefulness each, uniform, more than the
 * deadband): the smoothed law keeps the records plant within one order
 * of its best, without chatter.
 */
static void afa_ctl_noise_stays_near(struct kunit *test)
{
	struct plant pl = RECORD_PLANT(3);
	u32 lo, hi, chatter;
	struct loop l;

	pl.noise = AFA_UNIT / 10;
	pl.seed = 42;
	loop_init_default(&l, 0);
	KUNIT_EXPECT_LE(test, loop_reach(&l, &pl, 4, 8 + 2 * 3 + 2),
			8U + 2 * 3 + 2);
	loop_band(&l, &pl, 2000, &lo, &hi, &chatter);
	KUNIT_EXPECT_GE(test, lo, 3U);
	KUNIT_EXPECT_LE(test, hi, 4U);
	KUNIT_EXPECT_EQ(test, chatter, 0U);
	KUNIT_EXPECT_EQ(test, l.quick, 0U);
}

/*
 * One period of no use at all does not move a settled order, and leaves
 * nothing behind that a later outlier could add to.
 */
static void afa_ctl_single_outlier_ignored(struct kunit *test)
{
	struct plant pl = RECORD_PLANT(3);
	struct afa_ctl_input outlier = measured(512, 512 * 15, 0), in;
	struct loop l;
	int k;

	loop_init_default(&l, 4);
	for (k = 0; k < 20; k++) {
		in = plant_period(&pl, l.order);
		KUNIT_ASSERT_EQ(test, loop_step(&l, &in), 4U);
	}
	KUNIT_EXPECT_EQ(test, loop_step(&l, &outlier), 4U);
	KUNIT_EXPECT_LT(test, l.st.integral, 0);
	for (k = 0; k < 20; k++) {
		in = plant_period(&pl, l.order);
		KUNIT_ASSERT_EQ(test, loop_step(&l, &in), 4U);
	}
	/* Back in the deadband, what the outlier left pending has faded. */
	KUNIT_EXPECT_EQ(test, l.st.integral, 0);
}

/*
 * The first sample at a new order replaces the average: what the old
 * window achieved says nothing about the new one.
 */
static void afa_ctl_new_order_restarts_average(struct kunit *test)
{
	struct afa_ctl_input full = useful(AFA_UNIT), third = useful(341);
	struct loop l;

	loop_init_default(&l, 3);
	while (loop_step(&l, &full) == 3)
		KUNIT_ASSERT_EQ(test, l.tr.usefulness_avg, (u32)AFA_UNIT);
	KUNIT_ASSERT_EQ(test, l.order, 4U);
	loop_step(&l, &third);
	KUNIT_EXPECT_EQ(test, l.tr.usefulness_avg, 341U);
	KUNIT_EXPECT_EQ(test, l.tr.d, 0);
	loop_step(&l, &full);
	KUNIT_EXPECT_EQ(test, l.tr.usefulness_avg, afa_ewma(341, AFA_UNIT, 2));
}

/*
 * Tunables may change between steps: new bounds apply at once, even in
 * a period that is otherwise held.
 */
static void afa_ctl_bounds_change_at_runtime(struct kunit *test)
{
	struct plant pl = SEQ_PLANT;
	struct afa_ctl_input in;
	struct loop l;
	int k;

	loop_init_default(&l, AFA_ORDER_MAX);
	l.p.max_order = 6;
	in = measured(0, 0, 0);
	KUNIT_EXPECT_EQ(test, loop_step(&l, &in), 6U);
	for (k = 0; k < 50; k++) {
		in = plant_period(&pl, l.order);
		KUNIT_ASSERT_EQ(test, loop_step(&l, &in), 6U);
	}
	l.p.min_order = 2;
	l.p.max_order = 2;
	in = plant_period(&pl, l.order);
	KUNIT_EXPECT_EQ(test, loop_step(&l, &in), 2U);
}

static struct kunit_case afa_control_law_cases[] = {
	KUNIT_CASE_PARAM(afa_ewma_stays_between, ewma_gen_params),
	KUNIT_CASE(afa_ewma_moves_by_weight),
	KUNIT_CASE(afa_ewma_shift_zero_passes_sample),
	KUNIT_CASE(afa_ewma_converges),
	KUNIT_CASE_PARAM(afa_clamp_order_table, clamp_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_usefulness_table, ratio_gen_params),
	KUNIT_CASE_PARAM(afa_order_to_bytes_table, bytes_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_params_check_table, params_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_init_table, init_gen_params),
	KUNIT_CASE(afa_ctl_reason_names),
	KUNIT_CASE_PARAM(afa_ctl_p_direction, sign_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_i_direction, sign_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_d_direction, d_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_huge_gains_saturate, sign_gen_params),
	KUNIT_CASE(afa_ctl_saturates_at_max),
	KUNIT_CASE(afa_ctl_saturates_at_min),
	KUNIT_CASE(afa_ctl_anti_windup),
	KUNIT_CASE_PARAM(afa_ctl_deadband, deadband_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_hold_few_samples, hold_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_step_bounded, step_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_trace_signals, signal_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_extreme_inputs, signal_gen_params),
	KUNIT_CASE(afa_ctl_unchecked_params),
	KUNIT_CASE(afa_ctl_rate_weights_growth_only),
	KUNIT_CASE_PARAM(afa_ctl_probe_cadence, probe_gen_params),
	KUNIT_CASE(afa_ctl_probe_needs_faults),
	KUNIT_CASE(afa_ctl_probe_disabled),
	KUNIT_CASE_PARAM(afa_ctl_probe_end, probe_end_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_converges, converge_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_phase_change, phase_gen_params),
	KUNIT_CASE(afa_ctl_cliff_dithers_one_order),
	KUNIT_CASE(afa_ctl_noise_stays_near),
	KUNIT_CASE(afa_ctl_single_outlier_ignored),
	KUNIT_CASE(afa_ctl_new_order_restarts_average),
	KUNIT_CASE(afa_ctl_bounds_change_at_runtime),
	{}
};

static struct kunit_suite afa_control_law_suite = {
	.name = "autofaultaround_control_law",
	.test_cases = afa_control_law_cases,
};

kunit_test_suite(afa_control_law_suite);

MODULE_DESCRIPTION("KUnit tests for the autofaultaround control law");
MODULE_LICENSE("GPL");

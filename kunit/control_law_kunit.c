// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the autofaultaround control law: properties of the
 * predicted savings (direction, ordering, saturation, overflow), of one
 * step (bounds, hysteresis, deadband, anti-windup, evidence use) and of
 * the closed loop against simulated plants whose cost T(n) = f(n) * F +
 * M(n) * P is known, not golden values.
 */
#include <kunit/test.h>
#include <linux/stddef.h>
#include "control_law.h"
#include "window.h"

/* Name a table row after its first field, as lib/math/tests do. */
#define AFA_ROW_DESC(type)						\
static void type##_to_desc(const struct type *c, char *desc)		\
{									\
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);			\
}

/* A ratio of @num / @den, in AFA_UNIT. */
#define FRAC(num, den)	((u32)(AFA_UNIT * (num) / (den)))

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
	KUNIT_EXPECT_EQ(test, afa_ewma(0, AFA_UNIT, 2), (u32)AFA_UNIT / 4);
	KUNIT_EXPECT_EQ(test, afa_ewma(AFA_UNIT, 0, 2),
			(u32)(AFA_UNIT - AFA_UNIT / 4));
	/* Rounded away from zero: even the smallest difference moves. */
	KUNIT_EXPECT_EQ(test, afa_ewma(7, 8, AFA_EWMA_SHIFT_MAX), 8U);
	KUNIT_EXPECT_EQ(test, afa_ewma(8, 7, AFA_EWMA_SHIFT_MAX), 7U);
}

/* Shift 0 means no smoothing: the sample passes through. */
static void afa_ewma_shift_zero_passes_sample(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, afa_ewma(123, 777, 0), 777U);
	KUNIT_EXPECT_EQ(test, afa_ewma(U32_MAX, 0, 0), 0U);
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

struct costs_case {
	const char *name;
	struct afa_ctl_costs in, want;
};

static const struct costs_case costs_cases[] = {
	{ "inside", { 1000, 100 }, { 1000, 100 } },
	{ "zero_is_one", { 0, 0 }, { 1, 1 } },
	{ "at_max", { AFA_COST_NS_MAX, AFA_COST_NS_MAX },
	  { AFA_COST_NS_MAX, AFA_COST_NS_MAX } },
	{ "past_max", { AFA_COST_NS_MAX + 1, U32_MAX },
	  { AFA_COST_NS_MAX, AFA_COST_NS_MAX } },
};

AFA_ROW_DESC(costs_case)
KUNIT_ARRAY_PARAM(costs, costs_cases, costs_case_to_desc);

/* Costs are brought into [1, AFA_COST_NS_MAX], each on its own. */
static void afa_ctl_costs_clamp_table(struct kunit *test)
{
	const struct costs_case *c = test->param_value;
	struct afa_ctl_costs got = c->in;

	afa_ctl_costs_clamp(&got);
	KUNIT_EXPECT_EQ(test, got.fault_ns, c->want.fault_ns);
	KUNIT_EXPECT_EQ(test, got.page_ns, c->want.page_ns);
}

/* ----- predicted savings: afa_saving_grow(), afa_saving_shrink() ----- */

/*
 * Rows where the closed forms are exact binary fractions.  With F = 2P
 * at order 1, F + N * P = 4P, F + 2N * P = 6P and F + N/2 * P = 3P:
 *
 *	S+ = 1 - (1 - g) * 6/4		S- = 1 - (1 + t) * 3/4
 *
 * With F = P at order 0, F + N * P = 2P and F + 2N * P = 3P; at order 1,
 * F + N/2 * P = 2P and F + N * P = 3P.  With F = 6P at order 1,
 * F + N/2 * P = 7P and F + N * P = 8P.
 */
struct saving_case {
	const char *name;
	struct afa_ctl_costs c;
	u32 order, ratio;
	s32 want;
};

static const struct saving_case grow_cases[] = {
	{ "f2p_none_served", { 2000, 1000 }, 1, 0, -AFA_UNIT / 2 },
	{ "f2p_quarter", { 2000, 1000 }, 1, FRAC(1, 4), -AFA_UNIT / 8 },
	{ "f2p_half", { 2000, 1000 }, 1, FRAC(1, 2), AFA_UNIT / 4 },
	{ "f2p_three_quarters", { 2000, 1000 }, 1, FRAC(3, 4),
	  AFA_UNIT * 5 / 8 },
	{ "f2p_all_served", { 2000, 1000 }, 1, AFA_UNIT, AFA_UNIT },
	{ "fp_order0_none", { 100, 100 }, 0, 0, -AFA_UNIT / 2 },
	{ "fp_order0_quarter", { 100, 100 }, 0, FRAC(1, 4), -AFA_UNIT / 8 },
	{ "fp_order0_half", { 100, 100 }, 0, FRAC(1, 2), AFA_UNIT / 4 },
	{ "racy_ratio_past_all", { 100, 100 }, 3, U32_MAX, AFA_UNIT },
};

AFA_ROW_DESC(saving_case)
KUNIT_ARRAY_PARAM(grow, grow_cases, saving_case_to_desc);

static void afa_saving_grow_closed_form(struct kunit *test)
{
	const struct saving_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, afa_saving_grow(c->order, c->ratio, &c->c),
			c->want);
}

static const struct saving_case shrink_cases[] = {
	{ "f2p_none_wanted", { 2000, 1000 }, 1, 0, AFA_UNIT / 4 },
	{ "f2p_quarter", { 2000, 1000 }, 1, FRAC(1, 4), AFA_UNIT / 16 },
	{ "f2p_half", { 2000, 1000 }, 1, FRAC(1, 2), -AFA_UNIT / 8 },
	{ "f2p_all_wanted", { 2000, 1000 }, 1, AFA_UNIT, -AFA_UNIT / 2 },
	{ "fp_half_breaks_even", { 1000, 1000 }, 1, FRAC(1, 2), 0 },
	{ "f6p_none_wanted", { 6000, 1000 }, 1, 0, AFA_UNIT / 8 },
	{ "f6p_all_wanted", { 6000, 1000 }, 1, AFA_UNIT, -AFA_UNIT * 3 / 4 },
	{ "racy_ratio_past_all", { 2000, 1000 }, 1, U32_MAX, -AFA_UNIT / 2 },
	/* all wanted: S- = -F / (F + N * P), near -1 only for dear faults */
	{ "dear_faults_all_wanted", { AFA_COST_NS_MAX, 1 }, 1, AFA_UNIT,
	  -AFA_UNIT + 1 },
	{ "order_0_has_no_smaller", { 2000, 1000 }, 0, 0, -AFA_UNIT },
	{ "order_0_costly_pages", { 1, AFA_COST_NS_MAX }, 0, 0, -AFA_UNIT },
	{ "order_0_all_wanted", { 2000, 1000 }, 0, AFA_UNIT, -AFA_UNIT },
};

KUNIT_ARRAY_PARAM(shrink, shrink_cases, saving_case_to_desc);

static void afa_saving_shrink_closed_form(struct kunit *test)
{
	const struct saving_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, afa_saving_shrink(c->order, c->ratio, &c->c),
			c->want);
}

/*
 * Cost pairs for the sweeps: cheap and dear faults and pages, both ends
 * of the range, and past it (which must act as AFA_COST_NS_MAX).
 */
static const struct afa_ctl_costs sweep_costs[] = {
	{ 1, 1 }, { 1000, 100 }, { 8000, 2600 }, { 1000, 1000 },
	{ 1, AFA_COST_NS_MAX }, { AFA_COST_NS_MAX, 1 },
	{ AFA_COST_NS_MAX, AFA_COST_NS_MAX }, { U32_MAX, U32_MAX },
};

/*
 * Direction: at every order and for every cost pair, more grow hits
 * never predict less saving, more trial hits never predict more; every
 * saving lies in [-AFA_UNIT, AFA_UNIT]; a grow hit ratio of 1 saturates
 * at AFA_UNIT; no grow hit and all trial hits never predict a saving;
 * no trial hit saves at most the N/2 pages, under half the cost.
 */
static void afa_saving_direction(struct kunit *test)
{
	unsigned int i;
	u32 order, r;

	for (i = 0; i < ARRAY_SIZE(sweep_costs); i++) {
		const struct afa_ctl_costs *c = &sweep_costs[i];

		for (order = 0; order <= AFA_ORDER_MAX; order++) {
			s32 grow, shrink, prev_grow = -AFA_UNIT;
			s32 prev_shrink = AFA_UNIT;

			for (r = 0; r <= AFA_UNIT; r++) {
				grow = afa_saving_grow(order, r, c);
				shrink = afa_saving_shrink(order, r, c);
				KUNIT_ASSERT_GE(test, grow, prev_grow);
				KUNIT_ASSERT_LE(test, shrink, prev_shrink);
				KUNIT_ASSERT_LE(test, grow, AFA_UNIT);
				KUNIT_ASSERT_GE(test, shrink, -AFA_UNIT);
				prev_grow = grow;
				prev_shrink = shrink;
			}
			KUNIT_EXPECT_EQ(test, prev_grow, AFA_UNIT);
			KUNIT_EXPECT_LE(test, prev_shrink, 0);
			KUNIT_EXPECT_LE(test, afa_saving_grow(order, 0, c), 0);
			KUNIT_EXPECT_GT(test, afa_saving_grow(order, 0, c),
					-AFA_UNIT);
			KUNIT_EXPECT_LE(test, afa_saving_shrink(order, 0, c),
					AFA_UNIT / 2);
			if (!order)
				KUNIT_EXPECT_EQ(test, prev_shrink, -AFA_UNIT);
		}
	}
}

/*
 * Ordering: at a fixed ratio a larger order predicts no more saving for
 * growing (the extra pages cost more) and no less for shrinking; dearer
 * faults (against the same page cost) favour growth and disfavour
 * shrinking.
 */
static void afa_saving_ordering(struct kunit *test)
{
	static const u32 ratios[] = { 0, FRAC(1, 8), FRAC(1, 2), FRAC(7, 8) };
	static const u32 fault_ns[] = { 1, 100, 1000, 8000, AFA_COST_NS_MAX };
	struct afa_ctl_costs c, dear;
	unsigned int i, k;
	s32 g, s, next;
	u32 order, r;

	for (i = 0; i < ARRAY_SIZE(ratios); i++) {
		r = ratios[i];
		for (k = 0; k + 1 < ARRAY_SIZE(fault_ns); k++) {
			c = (struct afa_ctl_costs){ fault_ns[k], 1000 };
			dear = (struct afa_ctl_costs){ fault_ns[k + 1], 1000 };
			for (order = 0; order <= AFA_ORDER_MAX; order++) {
				g = afa_saving_grow(order, r, &c);
				s = afa_saving_shrink(order, r, &c);
				next = afa_saving_grow(order, r, &dear);
				KUNIT_ASSERT_GE(test, next, g);
				next = afa_saving_shrink(order, r, &dear);
				KUNIT_ASSERT_LE(test, next, s);
				if (order == AFA_ORDER_MAX)
					continue;
				next = afa_saving_grow(order + 1, r, &c);
				KUNIT_ASSERT_LE(test, next, g);
				next = afa_saving_shrink(order + 1, r, &c);
				if (order)
					KUNIT_ASSERT_GE(test, next, s);
			}
		}
	}
}

/*
 * No overflow: the savings depend on F / P only, so scaling both costs
 * by 2^k, up to AFA_COST_NS_MAX, gives the very same result at every
 * order and measured span (a wrapped product would not), and costs past
 * the range act as AFA_COST_NS_MAX.
 */
static void expect_same_savings(struct kunit *test,
				const struct afa_ctl_costs *a,
				const struct afa_ctl_costs *b)
{
	static const u32 ratios[] = { 0, 1, FRAC(1, 3), FRAC(1, 2),
				      AFA_UNIT - 1, AFA_UNIT };
	unsigned int j, k;
	u32 order, r;

	for (order = 0; order <= AFA_ORDER_MAX; order++) {
		/* unknown, the least, most of a part, a folio, the most */
		const u32 spans[] = { 0, 1, BIT(order + AFA_SCALE) - 1,
				      BIT(order + 1 + AFA_SCALE),
				      BIT(AFA_ORDER_MAX + 1 + AFA_SCALE) };

		for (j = 0; j < ARRAY_SIZE(ratios); j++) {
			r = ratios[j];
			for (k = 0; k < ARRAY_SIZE(spans); k++) {
				KUNIT_ASSERT_EQ(test,
						afa_saving_grow_span(order, r, spans[k], a),
						afa_saving_grow_span(order, r, spans[k], b));
				KUNIT_ASSERT_EQ(test,
						afa_saving_shrink_span(order, r, spans[k], a),
						afa_saving_shrink_span(order, r, spans[k], b));
			}
		}
	}
}

static void afa_saving_scale_free(struct kunit *test)
{
	static const struct afa_ctl_costs base[] = {
		{ 1, 1 }, { 1, 8 }, { 8, 1 }, { 3, 1 }, { 1, 1024 },
	};
	const struct afa_ctl_costs max = { AFA_COST_NS_MAX, AFA_COST_NS_MAX };
	const struct afa_ctl_costs past = { U32_MAX, AFA_COST_NS_MAX + 1 };
	struct afa_ctl_costs big;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(base); i++) {
		big = base[i];
		while (big.fault_ns <= AFA_COST_NS_MAX / 2 &&
		       big.page_ns <= AFA_COST_NS_MAX / 2) {
			big.fault_ns *= 2;
			big.page_ns *= 2;
			expect_same_savings(test, &big, &base[i]);
		}
	}
	expect_same_savings(test, &past, &max);
}

/* The largest costs at the largest order: the expected values, exactly. */
static void afa_saving_extremes(struct kunit *test)
{
	const struct afa_ctl_costs max = { AFA_COST_NS_MAX, AFA_COST_NS_MAX };
	const struct afa_ctl_costs past = { U32_MAX, U32_MAX };
	const struct afa_ctl_costs pages = { 1, AFA_COST_NS_MAX };

	/* F = P, N = 512: S+ = 1 - (1 + 1024) / (1 + 512) = -0.998 */
	KUNIT_EXPECT_EQ(test, afa_saving_grow(AFA_ORDER_MAX, 0, &max),
			AFA_UNIT - (s32)(AFA_UNIT * 1025 / 513));
	KUNIT_EXPECT_EQ(test, afa_saving_grow(AFA_ORDER_MAX, 0, &past),
			afa_saving_grow(AFA_ORDER_MAX, 0, &max));
	/* S- = 1 - (1 + 256) / (1 + 512): just under one half */
	KUNIT_EXPECT_EQ(test, afa_saving_shrink(AFA_ORDER_MAX, 0, &max),
			AFA_UNIT - (s32)(AFA_UNIT * 257 / 513));
	KUNIT_EXPECT_EQ(test, afa_saving_shrink(AFA_ORDER_MAX, 0, &past),
			afa_saving_shrink(AFA_ORDER_MAX, 0, &max));
	/* all wanted: S- = -1 / (1 + 512) */
	KUNIT_EXPECT_EQ(test,
			afa_saving_shrink(AFA_ORDER_MAX, AFA_UNIT, &max),
			AFA_UNIT - (s32)(2 * AFA_UNIT * 257 / 513));
	/* F negligible: growing doubles the cost, shrinking halves it. */
	KUNIT_EXPECT_EQ(test, afa_saving_grow(AFA_ORDER_MAX, 0, &pages),
			-AFA_UNIT + 1);
	KUNIT_EXPECT_EQ(test, afa_saving_shrink(AFA_ORDER_MAX, 0, &pages),
			AFA_UNIT / 2);
	KUNIT_EXPECT_EQ(test,
			afa_saving_shrink(AFA_ORDER_MAX, AFA_UNIT, &pages), 0);
	/* Orders past AFA_ORDER_MAX stay in range. */
	KUNIT_EXPECT_LE(test, abs(afa_saving_grow(AFA_ORDER_MAX + 1, 0, &max)),
			AFA_UNIT);
	KUNIT_EXPECT_LE(test,
			abs(afa_saving_shrink(AFA_ORDER_MAX + 1, 0, &max)),
			AFA_UNIT);
	KUNIT_EXPECT_LE(test, abs(afa_saving_grow(U32_MAX, 0, &max)),
			AFA_UNIT);
	KUNIT_EXPECT_LE(test, abs(afa_saving_shrink(U32_MAX, 0, &max)),
			AFA_UNIT);
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
	{ "min_order_u32_max", { { FIELD(min_order), U32_MAX } }, 1, -EINVAL },
	{ "max_step_0", { { FIELD(max_step), 0 } }, 1, -EINVAL },
	{ "max_step_9", { { FIELD(max_step), 9 } }, 1, 0 },
	{ "max_step_10", { { FIELD(max_step), 10 } }, 1, -EINVAL },
	{ "deadband_0", { { FIELD(deadband), 0 } }, 1, 0 },
	{ "deadband_under_half", { { FIELD(deadband), AFA_UNIT / 2 - 1 } },
	  1, 0 },
	{ "deadband_half", { { FIELD(deadband), AFA_UNIT / 2 } }, 1, -EINVAL },
	{ "hysteresis_0", { { FIELD(hysteresis), 0 } }, 1, 0 },
	{ "hysteresis_under_half", { { FIELD(hysteresis), AFA_UNIT / 2 - 1 } },
	  1, 0 },
	{ "hysteresis_half", { { FIELD(hysteresis), AFA_UNIT / 2 } },
	  1, -EINVAL },
	{ "kp_max", { { FIELD(kp), AFA_GAIN_MAX } }, 1, 0 },
	{ "kp_above_max", { { FIELD(kp), AFA_GAIN_MAX + 1 } }, 1, -EINVAL },
	{ "ki_max", { { FIELD(ki), AFA_GAIN_MAX } }, 1, 0 },
	{ "ki_above_max", { { FIELD(ki), U32_MAX } }, 1, -EINVAL },
	{ "kd_max", { { FIELD(kd), AFA_GAIN_MAX } }, 1, 0 },
	{ "kd_above_max", { { FIELD(kd), AFA_GAIN_MAX + 1 } }, 1, -EINVAL },
	{ "no_p_no_i", { { FIELD(kp), 0 }, { FIELD(ki), 0 } }, 2, -EINVAL },
	{ "i_only", { { FIELD(kp), 0 } }, 1, 0 },
	{ "p_only", { { FIELD(ki), 0 } }, 1, 0 },
	{ "shift_0", { { FIELD(ewma_shift), 0 } }, 1, 0 },
	{ "shift_max", { { FIELD(ewma_shift), AFA_EWMA_SHIFT_MAX } }, 1, 0 },
	{ "shift_above_max", { { FIELD(ewma_shift), AFA_EWMA_SHIFT_MAX + 1 } },
	  1, -EINVAL },
	{ "min_samples_0", { { FIELD(min_samples), 0 } }, 1, -EINVAL },
	{ "min_samples_1", { { FIELD(min_samples), 1 } }, 1, 0 },
	{ "min_samples_u32_max", { { FIELD(min_samples), U32_MAX } }, 1, 0 },
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
	{ "unchecked_max_order", 0, U32_MAX, U32_MAX, AFA_ORDER_MAX },
};

AFA_ROW_DESC(init_case)
KUNIT_ARRAY_PARAM(init, init_cases, init_case_to_desc);

/* Init clamps the order and starts with nothing pending, no evidence. */
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
	KUNIT_EXPECT_EQ(test, st.prev_error, 0);
	KUNIT_EXPECT_FALSE(test, st.have_grow);
	KUNIT_EXPECT_FALSE(test, st.have_trial);
	KUNIT_EXPECT_TRUE(test, st.fresh_grow);
	KUNIT_EXPECT_TRUE(test, st.fresh_trial);
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

/* ----- evidence: afa_ctl_input_ready(), afa_ctl_batch() ----- */

#define MS	AFA_MIN_SAMPLES_DEFAULT

/* A batch of evidence: faults tested, their grow hits, trials, hits. */
static struct afa_ctl_input ev(u32 faults, u32 grow_hits, u32 trials,
			       u32 trial_hits)
{
	return (struct afa_ctl_input){
		.nr_faults = faults, .nr_grow_hits = grow_hits,
		.nr_trials = trials, .nr_trial_hits = trial_hits,
	};
}

struct ready_case {
	const char *name;
	u32 order, min_order, max_order, min_samples;
	u32 faults, trials;
	bool want;
};

static const struct ready_case ready_cases[] = {
	{ "nothing", 4, 0, 9, MS, 0, 0, false },
	{ "both_one_short", 4, 0, 9, MS, MS - 1, MS - 1, false },
	{ "faults_enough", 4, 0, 9, MS, MS, 0, true },
	{ "trials_enough", 4, 0, 9, MS, 0, MS, true },
	/* no larger window to judge at max_order, no smaller at min_order */
	{ "at_max_faults_do_not_count", 9, 0, 9, MS, U32_MAX, MS - 1, false },
	{ "at_max_trials_count", 9, 0, 9, MS, 0, MS, true },
	{ "at_min_trials_do_not_count", 2, 2, 9, MS, MS - 1, U32_MAX, false },
	{ "at_min_faults_count", 2, 2, 9, MS, MS, 0, true },
	{ "pinned_never", 5, 5, 5, MS, U32_MAX, U32_MAX, false },
	{ "min_samples_0_needs_one", 4, 0, 9, 0, 0, 0, false },
	{ "min_samples_0_one_is_enough", 4, 0, 9, 0, 1, 0, true },
	{ "order_past_unchecked_max", 9, 0, 20, MS, MS, 0, false },
};

AFA_ROW_DESC(ready_case)
KUNIT_ARRAY_PARAM(ready, ready_cases, ready_case_to_desc);

/*
 * A step needs min_samples faults (below max_order) or trials (above
 * min_order); and afa_ctl_step() acts exactly when ready says so.
 */
static void afa_ctl_input_ready_table(struct kunit *test)
{
	const struct ready_case *c = test->param_value;
	struct afa_ctl_params p = afa_ctl_params_default;
	const struct afa_ctl_costs costs = { 1000, 100 };
	struct afa_ctl_input in = ev(c->faults, 0, c->trials, 0);
	struct afa_ctl_state st;
	struct afa_ctl_trace tr;

	p.min_order = c->min_order;
	p.max_order = c->max_order;
	p.min_samples = c->min_samples;
	afa_ctl_init(&st, &p, c->order);
	KUNIT_EXPECT_EQ(test, afa_ctl_input_ready(&st, &p, &in), c->want);
	afa_ctl_step(&st, &p, &costs, &in, &tr);
	KUNIT_EXPECT_EQ(test, tr.reason != AFA_CTL_FEW_SAMPLES, c->want);
}

struct batch_case {
	const char *name;
	u32 order, min_order, max_order, min_samples;
	struct afa_ctl_input in;
	struct afa_ctl_input batch, left;
};

static const struct batch_case batch_cases[] = {
	{ "both_short_kept", 4, 0, 9, MS, { MS - 1, 3, MS - 1, 2 },
	  { 0, 0, 0, 0 }, { MS - 1, 3, MS - 1, 2 } },
	{ "faults_taken_trials_kept", 4, 0, 9, MS, { MS, 3, MS - 1, 2 },
	  { MS, 3, 0, 0 }, { 0, 0, MS - 1, 2 } },
	{ "trials_taken_faults_kept", 4, 0, 9, MS, { MS - 1, 3, MS, 2 },
	  { 0, 0, MS, 2 }, { MS - 1, 3, 0, 0 } },
	{ "one_batch_of_many", 4, 0, 9, MS, { 3 * MS, MS, 2 * MS + 1, 0 },
	  { MS, (MS + 1) / 3, MS, 0 },
	  { 2 * MS, MS - (MS + 1) / 3, MS + 1, 0 } },
	/* a scan's 1/2 stays 1/2 in a batch: 4 of 9 is 3.6 hits of 8 */
	{ "half_rounds_to_half", 4, 0, 9, MS, { MS + 1, MS / 2, 0, 0 },
	  { MS, MS / 2, 0, 0 }, { 1, 0, 0, 0 } },
	{ "share_rounds_down_under_half", 4, 0, 9, MS, { 3 * MS, 1, 0, 0 },
	  { MS, 0, 0, 0 }, { 2 * MS, 1, 0, 0 } },
	{ "all_hits_stay_all", 4, 0, 9, MS, { 2 * MS + 1, 2 * MS + 1, 0, 0 },
	  { MS, MS, 0, 0 }, { MS + 1, MS + 1, 0, 0 } },
	{ "racy_hits_read_as_all", 4, 0, 9, MS, { MS, U32_MAX, MS, U32_MAX },
	  { MS, MS, MS, MS }, { 0, 0, 0, 0 } },
	{ "u32_max_counts", 4, 0, 9, MS, { U32_MAX, U32_MAX, U32_MAX, 0 },
	  { MS, MS, MS, 0 }, { U32_MAX - MS, U32_MAX - MS, U32_MAX - MS, 0 } },
	/* evidence that cannot move the order is dropped */
	{ "faults_at_max_dropped", 9, 0, 9, MS, { 5 * MS, MS, MS, 1 },
	  { 0, 0, MS, 1 }, { 0, 0, 0, 0 } },
	{ "trials_at_min_dropped", 2, 2, 9, MS, { MS, 1, 5 * MS, MS },
	  { MS, 1, 0, 0 }, { 0, 0, 0, 0 } },
	{ "pinned_drops_all", 5, 5, 5, MS, { 5 * MS, 1, 5 * MS, 1 },
	  { 0, 0, 0, 0 }, { 0, 0, 0, 0 } },
	{ "min_samples_0_is_1", 4, 0, 9, 0, { 3, 2, 0, 0 },
	  { 1, 1, 0, 0 }, { 2, 1, 0, 0 } },
};

AFA_ROW_DESC(batch_case)
KUNIT_ARRAY_PARAM(batch, batch_cases, batch_case_to_desc);

static void expect_input_eq(struct kunit *test, const struct afa_ctl_input *a,
			    const struct afa_ctl_input *b)
{
	KUNIT_EXPECT_EQ(test, a->nr_faults, b->nr_faults);
	KUNIT_EXPECT_EQ(test, a->nr_grow_hits, b->nr_grow_hits);
	KUNIT_EXPECT_EQ(test, a->nr_trials, b->nr_trials);
	KUNIT_EXPECT_EQ(test, a->nr_trial_hits, b->nr_trial_hits);
}

/*
 * A batch is min_samples faults and min_samples trials where there are
 * that many, each with its share of the hits (rounded to the nearest,
 * halves up); the rest
 * keeps waiting, and a count short of min_samples is kept whole.
 */
static void afa_ctl_batch_table(struct kunit *test)
{
	const struct batch_case *c = test->param_value;
	struct afa_ctl_params p = afa_ctl_params_default;
	struct afa_ctl_input in = c->in, batch;
	struct afa_ctl_state st;

	p.min_order = c->min_order;
	p.max_order = c->max_order;
	p.min_samples = c->min_samples;
	afa_ctl_init(&st, &p, c->order);
	memset(&batch, 0xff, sizeof(batch));
	afa_ctl_batch(&in, &st, &p, &batch);
	expect_input_eq(test, &batch, &c->batch);
	expect_input_eq(test, &in, &c->left);
}

/*
 * Drained batch by batch, a pool gives up exactly its faults and hits:
 * no hit is lost or made up by the rounding, no batch holds more hits
 * than samples, and the law is ready exactly while a batch is there.
 */
static void afa_ctl_batch_conserves(struct kunit *test)
{
	static const u32 hits[] = { 0, 1, 7, 100, 333, 999, 1000 };
	struct afa_ctl_params p = afa_ctl_params_default;
	struct afa_ctl_input in, batch;
	struct afa_ctl_state st;
	u32 i, faults, trials, fhits, thits;

	afa_ctl_init(&st, &p, 4);
	for (i = 0; i < ARRAY_SIZE(hits); i++) {
		in = ev(1000, hits[i], 1003, hits[ARRAY_SIZE(hits) - 1 - i]);
		faults = 0;
		trials = 0;
		fhits = 0;
		thits = 0;
		while (afa_ctl_input_ready(&st, &p, &in)) {
			afa_ctl_batch(&in, &st, &p, &batch);
			KUNIT_ASSERT_TRUE(test, batch.nr_faults || batch.nr_trials);
			KUNIT_ASSERT_LE(test, batch.nr_grow_hits, batch.nr_faults);
			KUNIT_ASSERT_LE(test, batch.nr_trial_hits, batch.nr_trials);
			faults += batch.nr_faults;
			trials += batch.nr_trials;
			fhits += batch.nr_grow_hits;
			thits += batch.nr_trial_hits;
		}
		KUNIT_EXPECT_EQ(test, faults + in.nr_faults, 1000U);
		KUNIT_EXPECT_EQ(test, trials + in.nr_trials, 1003U);
		KUNIT_EXPECT_EQ(test, fhits + in.nr_grow_hits, hits[i]);
		KUNIT_EXPECT_EQ(test, thits + in.nr_trial_hits,
				hits[ARRAY_SIZE(hits) - 1 - i]);
		KUNIT_EXPECT_LT(test, in.nr_faults, (u32)MS);
		KUNIT_EXPECT_LT(test, in.nr_trials, (u32)MS);
	}
}

/* ----- one step ----- */

/*
 * The step tests use F = 2P at order 1, where the closed forms are exact
 * (see grow_cases): g = 1/2 predicts S+ = 1/4, t = 0 predicts S- = 1/4.
 */
static const struct afa_ctl_costs f2p = { 2000, 1000 };

struct loop {
	struct afa_ctl_params p;
	struct afa_ctl_costs c;
	struct afa_ctl_state st;
	struct afa_ctl_trace tr;
	u32 order;
};

static void loop_init(struct loop *l, u32 order)
{
	afa_ctl_init(&l->st, &l->p, order);
	l->order = l->st.order;
}

static struct loop loop_default(const struct afa_ctl_costs *c, u32 order)
{
	struct loop l = { .p = afa_ctl_params_default, .c = *c };

	loop_init(&l, order);
	return l;
}

static u32 loop_step(struct loop *l, const struct afa_ctl_input *in)
{
	l->order = afa_ctl_step(&l->st, &l->p, &l->c, in, &l->tr);
	return l->order;
}

static int sign_of(s32 x)
{
	return (x > 0) - (x < 0);
}

struct error_case {
	const char *name;
	struct afa_ctl_input in;
	s32 error;
	enum afa_ctl_reason reason;
};

static const struct error_case error_cases[] = {
	/* both directions pay: growth first, it is tested at every fault */
	{ "both_pay_growth_first", { 64, 32, 64, 0 }, AFA_UNIT / 4,
	  AFA_CTL_GROW },
	{ "growth_pays", { 64, 32, 64, 32 }, AFA_UNIT / 4, AFA_CTL_GROW },
	{ "only_shrink_pays", { 64, 0, 64, 0 }, -AFA_UNIT / 4,
	  AFA_CTL_SHRINK },
	{ "neither_pays", { 64, 16, 64, 32 }, 0, AFA_CTL_DEADBAND },
	{ "small_shrink_pays", { 64, 16, 64, 16 }, -AFA_UNIT / 16,
	  AFA_CTL_PENDING },
	{ "growth_only_evidence", { 64, 48, 0, 0 }, AFA_UNIT * 5 / 8,
	  AFA_CTL_GROW },
	{ "shrink_only_evidence", { 0, 0, 64, 0 }, -AFA_UNIT / 4,
	  AFA_CTL_SHRINK },
	{ "growth_short_of_samples", { MS - 1, MS - 1, 64, 32 }, 0,
	  AFA_CTL_DEADBAND },
	{ "racy_hits_read_as_all", { 64, U32_MAX, 64, 0 }, AFA_UNIT,
	  AFA_CTL_GROW },
};

AFA_ROW_DESC(error_case)
KUNIT_ARRAY_PARAM(error, error_cases, error_case_to_desc);

/*
 * The error is S+ when growing pays, else -S- when shrinking pays, else
 * 0; savings from evidence short of min_samples are not there (0).  At
 * the default gains a saving of 1/4 steps at once.
 */
static void afa_ctl_error_table(struct kunit *test)
{
	const struct error_case *c = test->param_value;
	struct loop l = loop_default(&f2p, 1);

	loop_step(&l, &c->in);
	KUNIT_EXPECT_EQ(test, l.tr.error, c->error);
	KUNIT_EXPECT_EQ(test, l.tr.reason, c->reason);
	KUNIT_EXPECT_EQ(test, l.tr.order, 1U);
	KUNIT_EXPECT_EQ(test, l.tr.new_order, l.order);
	KUNIT_EXPECT_EQ(test, sign_of((s32)l.order - 1),
			c->reason == AFA_CTL_PENDING ? 0 : sign_of(c->error));
	if (c->in.nr_faults >= MS)
		KUNIT_EXPECT_EQ(test, l.tr.save_grow,
				afa_saving_grow(1, l.tr.grow_ratio, &f2p));
	else
		KUNIT_EXPECT_EQ(test, l.tr.save_grow, 0);
}

/* P alone: the term has the error's sign and scales with kp. */
static void afa_ctl_p_direction(struct kunit *test)
{
	const struct afa_ctl_input up = ev(64, 32, 0, 0), down = ev(0, 0, 64, 0);
	const struct afa_ctl_input *in[] = { &up, &down };
	struct loop l = { .p = afa_ctl_params_default, .c = f2p };
	unsigned int i;
	s32 p1;

	l.p.ki = 0;
	l.p.hysteresis = AFA_UNIT / 2 - 1;
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		l.p.kp = AFA_UNIT;
		loop_init(&l, 1);
		loop_step(&l, in[i]);
		p1 = l.tr.p;
		KUNIT_EXPECT_EQ(test, sign_of(p1), i ? -1 : 1);
		KUNIT_EXPECT_EQ(test, p1, l.tr.error);
		KUNIT_EXPECT_EQ(test, l.tr.i, 0);
		KUNIT_EXPECT_EQ(test, l.tr.d, 0);
		KUNIT_EXPECT_EQ(test, l.tr.output, AFA_UNIT + p1);
		KUNIT_EXPECT_EQ(test, l.tr.reason, AFA_CTL_PENDING);
		l.p.kp *= 2;
		loop_init(&l, 1);
		loop_step(&l, in[i]);
		KUNIT_EXPECT_EQ(test, l.tr.p, 2 * p1);
	}
}

/* I alone: accumulates in the error's direction, step after step. */
static void afa_ctl_i_direction(struct kunit *test)
{
	const struct afa_ctl_input up = ev(64, 32, 0, 0), down = ev(0, 0, 64, 0);
	const struct afa_ctl_input *in[] = { &up, &down };
	struct loop l = { .p = afa_ctl_params_default, .c = f2p };
	unsigned int i;
	int k;

	l.p.kp = 0;
	l.p.ki = AFA_UNIT / 4;
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		s32 last = 0;

		loop_init(&l, 1);
		for (k = 0; k < 3; k++) {
			loop_step(&l, in[i]);
			KUNIT_EXPECT_EQ(test, sign_of(l.tr.i), i ? -1 : 1);
			KUNIT_EXPECT_GT(test, abs(l.tr.i), abs(last));
			KUNIT_EXPECT_EQ(test, l.tr.i - last, l.tr.error / 4);
			KUNIT_EXPECT_EQ(test, l.tr.p, 0);
			KUNIT_EXPECT_EQ(test, l.order, 1U);
			last = l.tr.i;
		}
	}
}

/*
 * D: follows the change of the error between steps at one order, and
 * is 0 when the error stays and on the first error at an order (no
 * earlier one).  kp is kept tiny so that the order does not move.
 */
static void afa_ctl_d_direction(struct kunit *test)
{
	const struct afa_ctl_input up = ev(64, 32, 0, 0);
	const struct afa_ctl_input more = ev(64, 48, 0, 0);
	struct loop l = { .p = afa_ctl_params_default, .c = f2p };

	l.p.kp = 1;
	l.p.ki = 0;
	l.p.kd = AFA_UNIT / 4;
	l.p.ewma_shift = 0;
	loop_init(&l, 1);
	loop_step(&l, &up);
	KUNIT_EXPECT_NE(test, l.tr.error, 0);
	KUNIT_EXPECT_EQ(test, l.tr.d, 0);
	loop_step(&l, &more);
	KUNIT_EXPECT_GT(test, l.tr.d, 0);
	KUNIT_EXPECT_EQ(test, l.tr.d, (AFA_UNIT * 5 / 8 - AFA_UNIT / 4) / 4);
	loop_step(&l, &up);
	KUNIT_EXPECT_LT(test, l.tr.d, 0);
	loop_step(&l, &up);
	KUNIT_EXPECT_EQ(test, l.tr.d, 0);
	KUNIT_EXPECT_EQ(test, l.order, 1U);
}

/*
 * D_k = 0 if n moved or e_{k-1} = 0: the first error at a new order,
 * and the first after a step in the deadband, have no D term.
 */
static void afa_ctl_d_restarts(struct kunit *test)
{
	const struct afa_ctl_input up = ev(64, 48, 0, 0);
	const struct afa_ctl_input flat = ev(64, 32, 0, 0);
	const struct afa_ctl_input still = ev(64, 16, 64, 32);
	struct loop l = { .p = afa_ctl_params_default, .c = f2p };

	l.p.kd = AFA_UNIT;
	l.p.ewma_shift = 0;
	loop_init(&l, 1);
	KUNIT_ASSERT_EQ(test, loop_step(&l, &up), 2U);
	loop_step(&l, &flat);
	KUNIT_EXPECT_EQ(test, l.tr.order, 2U);
	KUNIT_EXPECT_NE(test, l.tr.error, 0);
	KUNIT_EXPECT_EQ(test, l.tr.d, 0);

	l.p.kp = 1;
	l.p.ki = 0;
	loop_init(&l, 1);
	loop_step(&l, &still);
	KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_DEADBAND);
	loop_step(&l, &flat);
	KUNIT_EXPECT_NE(test, l.tr.error, 0);
	KUNIT_EXPECT_EQ(test, l.tr.d, 0);
	loop_step(&l, &up);
	KUNIT_EXPECT_GT(test, l.tr.d, 0);
}

/*
 * Gains far past AFA_GAIN_MAX (unchecked): the terms saturate at ten
 * orders in the error's direction instead of wrapping, and the order
 * moves at most max_step.
 */
static void afa_ctl_huge_gains_saturate(struct kunit *test)
{
	const struct afa_ctl_input up = ev(64, 32, 0, 0), down = ev(0, 0, 64, 0);
	const struct afa_ctl_input *in[] = { &up, &down };
	struct loop l = { .p = afa_ctl_params_default, .c = f2p };
	unsigned int i;

	l.p.kp = U32_MAX;
	l.p.ki = U32_MAX;
	l.p.kd = U32_MAX;
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		s32 sign = i ? -1 : 1;

		loop_init(&l, 4);
		loop_step(&l, in[i]);
		KUNIT_EXPECT_EQ(test, l.tr.p, sign * (AFA_ORDER_MAX + 1) * AFA_UNIT);
		KUNIT_EXPECT_EQ(test, l.tr.i, sign * AFA_UNIT);
		KUNIT_EXPECT_EQ(test, (s32)l.order - 4, sign * (s32)l.p.max_step);
	}
}

struct hyst_case {
	const char *name;
	u32 hysteresis;
	u32 kp;		/* P = kp / 4: the error is 1/4 */
	bool down;
	bool steps;
};

/*
 * A step needs |output - order| >= 1/2 + hysteresis.  With ki = 0 and
 * an error of 1/4, P = kp / 4 exactly: rows on both sides of each edge.
 */
static const struct hyst_case hyst_cases[] = {
	{ "none_below", 0, 4 * 511, false, false },
	{ "none_at_half", 0, 4 * 512, false, true },
	{ "default_below", AFA_UNIT / 4, 4 * 767, false, false },
	{ "default_at_edge", AFA_UNIT / 4, 4 * 768, false, true },
	{ "default_below_down", AFA_UNIT / 4, 4 * 767, true, false },
	{ "default_at_edge_down", AFA_UNIT / 4, 4 * 768, true, true },
	{ "largest_below", AFA_UNIT / 2 - 1, 4 * 1022, false, false },
	{ "largest_at_edge", AFA_UNIT / 2 - 1, 4 * 1023, false, true },
	{ "largest_at_edge_down", AFA_UNIT / 2 - 1, 4 * 1023, true, true },
};

AFA_ROW_DESC(hyst_case)
KUNIT_ARRAY_PARAM(hyst, hyst_cases, hyst_case_to_desc);

static void afa_ctl_hysteresis_table(struct kunit *test)
{
	const struct hyst_case *c = test->param_value;
	struct afa_ctl_input in = c->down ? ev(64, 0, 64, 0) : ev(64, 32, 0, 0);
	struct loop l = { .p = afa_ctl_params_default, .c = f2p };
	s32 want = c->steps ? (c->down ? 0 : 2) : 1;

	l.p.hysteresis = c->hysteresis;
	l.p.kp = c->kp;
	l.p.ki = 0;
	KUNIT_ASSERT_EQ(test, afa_ctl_params_check(&l.p), 0);
	loop_init(&l, 1);
	loop_step(&l, &in);
	KUNIT_EXPECT_EQ(test, abs(l.tr.p), (s32)c->kp / 4);
	KUNIT_EXPECT_EQ(test, l.order, (u32)want);
	KUNIT_EXPECT_EQ(test, l.tr.reason,
			c->steps ? (c->down ? AFA_CTL_SHRINK : AFA_CTL_GROW) :
				   AFA_CTL_PENDING);
}

/*
 * Deterministic pseudo-random numbers (a linear congruential generator),
 * uniform in [0, n) without a division: none for u64 on 32-bit.
 */
static u32 rnd_below(u32 *state, u32 n)
{
	*state = *state * 1664525 + 1013904223;
	return (u32)(((u64)*state * n) >> 32);
}

/*
 * Over random valid tunables and random evidence, every step stays in
 * [min_order, max_order], moves at most max_step, reports what it did,
 * and keeps the state's terms in range.
 */
static void afa_ctl_step_bounded(struct kunit *test)
{
	static const struct afa_ctl_costs costs[] = {
		{ 1000, 100 }, { 8000, 2600 }, { 1, AFA_COST_NS_MAX },
		{ AFA_COST_NS_MAX, 1 },
	};
	u32 seed = 1, k, j, old;
	struct loop l;

	for (k = 0; k < 200; k++) {
		l.p = afa_ctl_params_default;
		l.p.max_order = rnd_below(&seed, AFA_ORDER_MAX + 1);
		l.p.min_order = rnd_below(&seed, l.p.max_order + 1);
		l.p.max_step = 1 + rnd_below(&seed, AFA_ORDER_MAX);
		l.p.kp = rnd_below(&seed, AFA_GAIN_MAX + 1);
		l.p.ki = 1 + rnd_below(&seed, AFA_GAIN_MAX);
		l.p.kd = rnd_below(&seed, 2) ? rnd_below(&seed, AFA_GAIN_MAX) : 0;
		l.p.deadband = rnd_below(&seed, AFA_UNIT / 2);
		l.p.hysteresis = rnd_below(&seed, AFA_UNIT / 2);
		l.p.ewma_shift = rnd_below(&seed, 4);
		l.p.min_samples = 1 + rnd_below(&seed, 16);
		l.c = costs[k % ARRAY_SIZE(costs)];
		KUNIT_ASSERT_EQ(test, afa_ctl_params_check(&l.p), 0);
		loop_init(&l, rnd_below(&seed, AFA_ORDER_MAX + 1));
		for (j = 0; j < 50; j++) {
			u32 faults = rnd_below(&seed, 40);
			u32 trials = rnd_below(&seed, 40);
			struct afa_ctl_input in = ev(faults,
						     rnd_below(&seed, faults + 1),
						     trials,
						     rnd_below(&seed, trials + 1));

			old = l.order;
			loop_step(&l, &in);
			KUNIT_ASSERT_GE(test, l.order, l.p.min_order);
			KUNIT_ASSERT_LE(test, l.order, l.p.max_order);
			KUNIT_ASSERT_LE(test, abs((s32)l.order - (s32)old),
					(s32)l.p.max_step);
			KUNIT_ASSERT_EQ(test, l.tr.new_order, l.order);
			KUNIT_ASSERT_EQ(test, (u32)l.st.order, l.order);
			KUNIT_ASSERT_LE(test, abs(l.st.integral), AFA_UNIT);
			KUNIT_ASSERT_LE(test, abs(l.tr.error), AFA_UNIT);
			KUNIT_ASSERT_EQ(test, l.tr.reason == AFA_CTL_GROW,
					l.order > old);
			KUNIT_ASSERT_EQ(test, l.tr.reason == AFA_CTL_SHRINK,
					l.order < old);
		}
	}
}

/*
 * Tunables that afa_ctl_params_check() refuses still cannot push the
 * order out of [0, AFA_ORDER_MAX] or overflow a term.
 */
static void afa_ctl_unchecked_params(struct kunit *test)
{
	const struct afa_ctl_input in[] = {
		ev(U32_MAX, U32_MAX, U32_MAX, U32_MAX), ev(U32_MAX, 0, 64, 0),
		ev(0, 0, 0, 0), ev(U32_MAX, 1, U32_MAX, 1),
		ev(0, 0, U32_MAX, 0),
	};
	const struct afa_ctl_input scan = ev(64, 32, 0, 0);
	struct loop l = { .c = { U32_MAX, 0 } };
	u32 k;

	memset(&l.p, 0xff, sizeof(l.p));
	KUNIT_ASSERT_EQ(test, afa_ctl_params_check(&l.p), -EINVAL);
	loop_init(&l, U32_MAX);
	for (k = 0; k < 200; k++) {
		loop_step(&l, &in[k % ARRAY_SIZE(in)]);
		KUNIT_ASSERT_LE(test, l.order, (u32)AFA_ORDER_MAX);
		KUNIT_ASSERT_LE(test, abs(l.tr.p), (AFA_ORDER_MAX + 1) * AFA_UNIT);
		KUNIT_ASSERT_LE(test, abs(l.tr.d), (AFA_ORDER_MAX + 1) * AFA_UNIT);
		KUNIT_ASSERT_LE(test, abs(l.tr.i), AFA_UNIT);
	}
	memset(&l.p, 0, sizeof(l.p));
	loop_init(&l, 3);
	for (k = 0; k < 200; k++) {
		loop_step(&l, &in[k % ARRAY_SIZE(in)]);
		KUNIT_ASSERT_LE(test, l.order, (u32)AFA_ORDER_MAX);
	}
	/* a deadband past any saving: a scan's free step still points up */
	l.p = afa_ctl_params_default;
	l.p.deadband = S32_MAX;
	l.c = f2p;
	loop_init(&l, 1);
	for (k = 0; k < 100; k++) {
		loop_step(&l, &scan);
		KUNIT_ASSERT_GE(test, l.tr.error, 0);
		KUNIT_ASSERT_GE(test, l.order, 1U);
	}
}

struct max_step_case {
	const char *name;
	u32 start, max_step;
	bool down;
	u32 want;
};

/* A saving that asks for many orders at once: at most max_step, clamped. */
static const struct max_step_case max_step_cases[] = {
	{ "up_1", 4, 1, false, 5 },
	{ "up_2", 4, 2, false, 6 },
	{ "up_3", 4, 3, false, 7 },
	{ "up_clamped_at_max", 7, 3, false, AFA_ORDER_MAX },
	{ "down_1", 5, 1, true, 4 },
	{ "down_3", 5, 3, true, 2 },
	{ "down_clamped_at_min", 2, 9, true, 0 },
};

AFA_ROW_DESC(max_step_case)
KUNIT_ARRAY_PARAM(max_step, max_step_cases, max_step_case_to_desc);

static void afa_ctl_max_step_table(struct kunit *test)
{
	const struct max_step_case *c = test->param_value;
	struct afa_ctl_input in = c->down ? ev(0, 0, 64, 0) : ev(64, 64, 0, 0);
	struct loop l = { .p = afa_ctl_params_default, .c = { 1, 1000 } };

	l.p.kp = AFA_GAIN_MAX;
	l.p.max_step = c->max_step;
	loop_init(&l, c->start);
	loop_step(&l, &in);
	KUNIT_EXPECT_EQ(test, l.order, c->want);
	KUNIT_EXPECT_EQ(test, l.tr.reason,
			c->down ? AFA_CTL_SHRINK : AFA_CTL_GROW);
}

/*
 * Inside the deadband the order is right: the pending movement halves
 * at every step until none is left, and the order does not move.
 */
static void afa_ctl_deadband_settles(struct kunit *test)
{
	const struct afa_ctl_input up = ev(64, 32, 0, 0);
	const struct afa_ctl_input down = ev(0, 0, 64, 0);
	const struct afa_ctl_input still = ev(64, 16, 64, 32);
	const struct afa_ctl_input *kick[] = { &up, &down };
	struct loop l = { .p = afa_ctl_params_default, .c = f2p };
	unsigned int i;
	s32 pending;
	int k;

	/* P and I of 1/4 each: under the 3/4 a step needs. */
	l.p.kp = AFA_UNIT;
	l.p.ki = AFA_UNIT;
	l.p.ewma_shift = 0;
	for (i = 0; i < ARRAY_SIZE(kick); i++) {
		loop_init(&l, 1);
		loop_step(&l, kick[i]);
		KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_PENDING);
		pending = l.st.integral;
		KUNIT_ASSERT_EQ(test, abs(pending), AFA_UNIT / 4);
		for (k = 0; k < 12; k++) {
			loop_step(&l, &still);
			KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_DEADBAND);
			KUNIT_ASSERT_EQ(test, l.order, 1U);
			KUNIT_ASSERT_EQ(test, l.st.integral, pending / 2);
			KUNIT_ASSERT_EQ(test, l.tr.i, l.st.integral);
			KUNIT_ASSERT_EQ(test, l.tr.output,
					AFA_UNIT + l.st.integral);
			pending = l.st.integral;
		}
		KUNIT_EXPECT_EQ(test, pending, 0);
	}
}

/*
 * Where exact sequential evidence rests (g = 1/2 in every batch, every
 * trial's half wanted): at max_order, for the default deadband and for
 * twice and half of it, at the costs of the admin guide's sample (r =
 * 3.26) and at r = 10.  Past the first order whose growth saving is
 * within the deadband each step is free (docs/control-law.md, "Two
 * plants"), and takes more batches than a step that pays; settled at
 * the bound in the end.
 */
static void afa_ctl_sequential_grows_to_max(struct kunit *test)
{
	static const struct afa_ctl_costs costs[] = { { 8474, 2602 },
						       { 1000, 100 } };
	const struct afa_ctl_input seq = ev(8, 4, 8, 8);
	u32 db, n, i, k, paid, free;
	struct loop l;

	for (i = 0; i < ARRAY_SIZE(costs); i++) {
		for (db = afa_ctl_params_default.deadband * 2;
		     db >= afa_ctl_params_default.deadband / 2; db /= 2) {
			l = loop_default(&costs[i], 0);
			l.p.deadband = db;
			loop_init(&l, 0);
			/* the first order that does not pay, from below */
			for (n = 0; n < AFA_ORDER_MAX; n++)
				if (afa_saving_grow(n, AFA_UNIT / 2, &costs[i]) <=
				    (s32)db)
					break;
			paid = 0;
			free = 0;
			for (k = 0; k < 1000 && l.order < AFA_ORDER_MAX; k++) {
				if (l.order < n)
					paid++;
				else
					free++;
				loop_step(&l, &seq);
			}
			KUNIT_EXPECT_EQ_MSG(test, l.order, AFA_ORDER_MAX,
					    "r %u/%u, deadband %u",
					    costs[i].fault_ns, costs[i].page_ns, db);
			/* free steps are slower: at least 8 batches an order */
			if (n < AFA_ORDER_MAX)
				KUNIT_EXPECT_GE(test, free, 8 * (AFA_ORDER_MAX - n));
			for (k = 0; k < AFA_CTL_SETTLED_STEPS; k++)
				loop_step(&l, &seq);
			KUNIT_EXPECT_EQ(test, l.order, AFA_ORDER_MAX);
			KUNIT_EXPECT_TRUE(test, afa_ctl_settled(&l.st));
		}
	}
}

/* Batches a state at @order takes to move on @in, at most @limit. */
static u32 batches_to_move(struct loop *l, u32 order,
			   const struct afa_ctl_input *in, u32 limit)
{
	u32 k;

	loop_init(l, order);
	for (k = 1; k <= limit; k++)
		if (loop_step(l, in) != order)
			return k;
	return limit + 1;
}

/*
 * A scan (g = 1/2, every trial's half wanted) grows from every order at
 * least as fast as a free step does: where its S+ is only just past the
 * deadband the step pays and is free as well, and it took 27 batches
 * against the free step's 20 (docs/control-law.md, "Free steps").  At
 * the costs of the admin guide's sample and the default deadband, twice
 * and half of it, wherever free orders exist.
 */
static void afa_ctl_scan_growth_never_slower_than_free(struct kunit *test)
{
	static const struct afa_ctl_costs c = { 8474, 2602 };
	const struct afa_ctl_input seq = ev(8, 4, 8, 8);
	u32 db, n, slowest_free, took;
	struct loop l;

	for (db = afa_ctl_params_default.deadband * 2;
	     db >= afa_ctl_params_default.deadband / 2; db /= 2) {
		l = loop_default(&c, 0);
		l.p.deadband = db;
		slowest_free = 0;
		for (n = 0; n < AFA_ORDER_MAX; n++)
			if (afa_saving_grow(n, AFA_UNIT / 2, &c) <= (s32)db)
				slowest_free = max(slowest_free,
						   batches_to_move(&l, n, &seq,
								   1000));
		KUNIT_ASSERT_GT_MSG(test, slowest_free, 0U, "deadband %u", db);
		KUNIT_ASSERT_LE(test, slowest_free, 1000U);
		for (n = 0; n < AFA_ORDER_MAX; n++) {
			took = batches_to_move(&l, n, &seq, 1000);
			KUNIT_EXPECT_LE_MSG(test, took, slowest_free,
					    "order %u, deadband %u", n, db);
			KUNIT_EXPECT_EQ(test, l.order, n + 1);
		}
	}
}

/*
 * A free step needs g >= 1/2: just under it (511 of 1024), where the
 * saving is within the deadband, the order holds and settles however
 * long the evidence lasts, though S+ > 0.
 */
static void afa_ctl_free_growth_needs_half(struct kunit *test)
{
	static const struct afa_ctl_costs c = { 8474, 2602 };
	const struct afa_ctl_input under = ev(1024, 511, 64, 64);
	struct loop l = loop_default(&c, 8);
	int k;

	for (k = 0; k < 200; k++) {
		loop_step(&l, &under);
		KUNIT_ASSERT_EQ(test, l.order, 8U);
	}
	KUNIT_EXPECT_GT(test, l.tr.save_grow, 0);
	KUNIT_EXPECT_LE(test, l.tr.save_grow, (s32)l.p.deadband);
	KUNIT_EXPECT_TRUE(test, afa_ctl_settled(&l.st));
}

/*
 * Settling: a state is settled after AFA_CTL_SETTLED_STEPS steps in a
 * row that find its order right (the deadband);
 * batches too small to judge leave it as it is; a step that wants to
 * move (pending) or moves unsettles it at once.
 */
static void afa_ctl_settles_at_rest(struct kunit *test)
{
	const struct afa_ctl_input still = ev(64, 16, 64, 32);
	const struct afa_ctl_input short_in = ev(MS - 1, 0, MS - 1, 0);
	const struct afa_ctl_input nudge = ev(64, 32, 0, 0);
	const struct afa_ctl_input up = ev(64, 48, 0, 0);
	struct loop l = { .p = afa_ctl_params_default, .c = f2p };
	int k;

	l.p.kp = AFA_UNIT;
	l.p.ki = AFA_UNIT;
	loop_init(&l, 1);
	KUNIT_EXPECT_FALSE(test, afa_ctl_settled(&l.st));
	for (k = 1; k <= AFA_CTL_SETTLED_STEPS; k++) {
		KUNIT_EXPECT_FALSE(test, afa_ctl_settled(&l.st));
		loop_step(&l, &still);
		KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_DEADBAND);
	}
	KUNIT_EXPECT_TRUE(test, afa_ctl_settled(&l.st));
	for (k = 0; k < 10; k++) {
		loop_step(&l, &short_in);
		KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_FEW_SAMPLES);
		KUNIT_EXPECT_TRUE(test, afa_ctl_settled(&l.st));
	}
	/* a saving of 1/4 at P and I of 1 each: pending, not yet a step */
	loop_step(&l, &nudge);
	KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_PENDING);
	KUNIT_EXPECT_FALSE(test, afa_ctl_settled(&l.st));
	for (k = 0; k < AFA_CTL_SETTLED_STEPS; k++)
		loop_step(&l, &still);
	KUNIT_EXPECT_TRUE(test, afa_ctl_settled(&l.st));
	/* a move: settled no more, and it takes the full count again */
	l = loop_default(&f2p, 1);
	for (k = 0; k < AFA_CTL_SETTLED_STEPS; k++)
		loop_step(&l, &still);
	KUNIT_ASSERT_TRUE(test, afa_ctl_settled(&l.st));
	KUNIT_ASSERT_EQ(test, loop_step(&l, &up), 2U);
	KUNIT_EXPECT_FALSE(test, afa_ctl_settled(&l.st));
	for (k = 1; k < AFA_CTL_SETTLED_STEPS; k++)
		loop_step(&l, &still);
	KUNIT_EXPECT_FALSE(test, afa_ctl_settled(&l.st));
	loop_step(&l, &still);
	KUNIT_EXPECT_TRUE(test, afa_ctl_settled(&l.st));
}

/*
 * Settling with a small shrink pending: batches of faults alone, whose
 * growth does not pay, after one batch of trials integrated a small
 * shrink, find the order right on what they can judge; they settle the
 * state (counting them as pending kept near-break-even streams tested at
 * every fault for good) and keep what is pending for the next trials.
 * Once the shrink pending passes AFA_CTL_REST_SHRINK, the same batches
 * do not settle it, and the trials still take it down.  Costs r = 2,
 * order 4: t = 3/4 under t* = 0.8, g = 1/4 under g* = 0.47.
 */
static void afa_ctl_settles_with_small_shrink_pending(struct kunit *test)
{
	const struct afa_ctl_input pays = ev(8, 2, 8, 6);
	const struct afa_ctl_input faults_only = ev(8, 2, 0, 0);
	struct loop l = loop_default(&f2p, 4);
	s16 pending;
	int k;

	loop_step(&l, &pays);
	KUNIT_ASSERT_EQ(test, l.order, 4U);
	pending = l.st.integral;
	KUNIT_ASSERT_LT(test, pending, 0);
	KUNIT_ASSERT_LT(test, -pending, AFA_CTL_REST_SHRINK);
	for (k = 1; k <= AFA_CTL_SETTLED_STEPS; k++) {
		KUNIT_EXPECT_FALSE(test, afa_ctl_settled(&l.st));
		loop_step(&l, &faults_only);
		KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_PENDING);
		KUNIT_ASSERT_EQ(test, l.tr.error, 0);
		KUNIT_EXPECT_EQ(test, l.st.integral, pending);
	}
	KUNIT_EXPECT_TRUE(test, afa_ctl_settled(&l.st));
	KUNIT_EXPECT_EQ(test, l.order, 4U);

	/* trials that go on paying take the shrink past the limit */
	for (k = 0; k < 64 && -l.st.integral < AFA_CTL_REST_SHRINK; k++)
		loop_step(&l, &pays);
	KUNIT_ASSERT_EQ(test, l.order, 4U);
	KUNIT_ASSERT_GE(test, -l.st.integral, AFA_CTL_REST_SHRINK);
	KUNIT_EXPECT_FALSE(test, afa_ctl_settled(&l.st));
	for (k = 0; k < 2 * AFA_CTL_SETTLED_STEPS; k++) {
		loop_step(&l, &faults_only);
		KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_PENDING);
		KUNIT_EXPECT_FALSE(test, afa_ctl_settled(&l.st));
	}
	/* and take it down: nothing pending was lost */
	for (k = 0; k < 64 && l.order == 4; k++)
		loop_step(&l, &pays);
	KUNIT_EXPECT_EQ(test, l.order, 3U);
}

/*
 * A small growth pending, with batches of trials alone that find no
 * shrink, does not settle: a scan climbs so.  Costs r = 2, order 4:
 * g = 1/2 just over g* = 0.47.
 */
static void afa_ctl_no_rest_with_growth_pending(struct kunit *test)
{
	const struct afa_ctl_input grows = ev(8, 4, 0, 0);
	const struct afa_ctl_input trials_only = ev(0, 0, 8, 8);
	struct loop l = loop_default(&f2p, 4);
	int k;

	loop_step(&l, &grows);
	KUNIT_ASSERT_EQ(test, l.order, 4U);
	KUNIT_ASSERT_GT(test, l.st.integral, 0);
	for (k = 0; k < 2 * AFA_CTL_SETTLED_STEPS; k++) {
		loop_step(&l, &trials_only);
		KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_PENDING);
		KUNIT_ASSERT_EQ(test, l.tr.error, 0);
		KUNIT_EXPECT_FALSE(test, afa_ctl_settled(&l.st));
	}
}

/*
 * Rare trials: only where most trials want their half and, on them, a
 * step down does not pay.  A state whose shrink pays is never on rare
 * trials, even with a trial average above 1/2 (the lock-in that caused:
 * a stream kept at an order its own trials were about to leave); a
 * sequential state gets them from its first batch of trials; half its
 * trials wanted is not enough; a move takes them away.  Costs r = 2.
 */
static void afa_ctl_rare_trials_where_shrink_costs(struct kunit *test)
{
	/* order 4: t = 3/4 under t* = 0.8, g = 1/4 under g* = 0.47 */
	const struct afa_ctl_input pays = ev(8, 2, 8, 6);
	const struct afa_ctl_input faults = ev(8, 2, 0, 0);
	const struct afa_ctl_input seq = ev(8, 4, 8, 8);
	const struct afa_ctl_input half = ev(8, 2, 8, 4);
	const struct afa_ctl_input none = ev(8, 0, 8, 0);
	struct loop l;
	int k;

	/*
	 * S- = 0.028: 23 batches of integral to a step; a batch of faults
	 * alone between them says nothing of shrinking and keeps the flag
	 */
	l = loop_default(&f2p, 4);
	for (k = 0; k < 64; k++) {
		loop_step(&l, &pays);
		if (l.order != 4)
			break;
		KUNIT_EXPECT_GT(test, l.st.trial_avg, AFA_UNIT / 2);
		KUNIT_EXPECT_GT(test, l.tr.save_shrink, (s32)l.p.deadband);
		KUNIT_EXPECT_FALSE(test, afa_ctl_rare_trials(&l.st));
		loop_step(&l, &faults);
		KUNIT_ASSERT_EQ(test, l.tr.save_shrink, 0);
		KUNIT_EXPECT_FALSE(test, afa_ctl_rare_trials(&l.st));
	}
	KUNIT_EXPECT_EQ(test, l.order, 3U);

	/* order 7: neither step pays beyond the deadband at r = 2 */
	l = loop_default(&f2p, 7);
	KUNIT_EXPECT_FALSE(test, afa_ctl_rare_trials(&l.st));
	loop_step(&l, &seq);
	KUNIT_ASSERT_EQ(test, l.order, 7U);
	KUNIT_EXPECT_FALSE(test, afa_ctl_settled(&l.st));
	KUNIT_EXPECT_TRUE(test, afa_ctl_rare_trials(&l.st));
	/* no trial half wanted: the average falls to 1/2, a shrink pays */
	loop_step(&l, &none);
	KUNIT_EXPECT_FALSE(test, afa_ctl_rare_trials(&l.st));
	KUNIT_EXPECT_EQ(test, l.order, 6U);

	/* order 1: no step pays, half its trials wanted */
	l = loop_default(&f2p, 1);
	for (k = 0; k < 2 * AFA_CTL_SETTLED_STEPS; k++)
		loop_step(&l, &half);
	KUNIT_ASSERT_EQ(test, l.order, 1U);
	KUNIT_EXPECT_TRUE(test, afa_ctl_settled(&l.st));
	KUNIT_EXPECT_FALSE(test, afa_ctl_rare_trials(&l.st));
}

/*
 * Rare trials on evidence that holds: one batch of trials that split
 * (6 of 8) is not enough, even where on it no step pays; a second batch
 * is.  A batch whose every trial wanted its half is (a sequential
 * stream).  Costs r = 2, order 3: t* = 2/3.
 */
static void afa_ctl_rare_trials_after_two_batches(struct kunit *test)
{
	const struct afa_ctl_input split = ev(8, 1, 8, 6);
	const struct afa_ctl_input seq = ev(8, 4, 8, 8);
	struct loop l = loop_default(&f2p, 3);

	loop_step(&l, &split);
	KUNIT_ASSERT_EQ(test, l.order, 3U);
	KUNIT_EXPECT_LE(test, l.tr.save_shrink, (s32)l.p.deadband);
	KUNIT_EXPECT_GT(test, l.st.trial_avg, AFA_UNIT / 2);
	KUNIT_EXPECT_FALSE(test, afa_ctl_rare_trials(&l.st));
	loop_step(&l, &split);
	KUNIT_ASSERT_EQ(test, l.order, 3U);
	KUNIT_EXPECT_TRUE(test, afa_ctl_rare_trials(&l.st));

	l = loop_default(&f2p, 3);
	loop_step(&l, &seq);
	KUNIT_ASSERT_EQ(test, l.order, 3U);
	KUNIT_EXPECT_TRUE(test, afa_ctl_rare_trials(&l.st));
}

/*
 * At a bound, evidence that points past it is no error: at order 0 the
 * trials (which would shrink) are not judged and growth does not pay,
 * at max_order no growth is tested and the trials do not pay.  Every
 * step is in the deadband, with nothing pending, and the state settles.
 */
static void afa_ctl_settles_at_bound(struct kunit *test)
{
	const struct afa_ctl_input down = ev(64, 0, 64, 0);
	const struct afa_ctl_input up = ev(64, 64, 64, 64);
	struct loop l = loop_default(&f2p, 0);
	int k;

	for (k = 0; k < AFA_CTL_SETTLED_STEPS; k++) {
		loop_step(&l, &down);
		KUNIT_ASSERT_EQ(test, l.order, 0U);
		KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_DEADBAND);
		KUNIT_ASSERT_EQ(test, l.tr.save_shrink, 0);
		KUNIT_ASSERT_EQ(test, l.st.integral, 0);
	}
	KUNIT_EXPECT_TRUE(test, afa_ctl_settled(&l.st));

	l = loop_default(&f2p, AFA_ORDER_MAX);
	for (k = 0; k < AFA_CTL_SETTLED_STEPS; k++) {
		loop_step(&l, &up);
		KUNIT_ASSERT_EQ(test, l.order, AFA_ORDER_MAX);
		KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_DEADBAND);
		KUNIT_ASSERT_EQ(test, l.tr.save_grow, 0);
		KUNIT_ASSERT_EQ(test, l.st.integral, 0);
	}
	KUNIT_EXPECT_TRUE(test, afa_ctl_settled(&l.st));
}

/*
 * Savings at or under the deadband are no error; just over it they are.
 * At g = 1/2 S+ is 1/4 exactly: the deadband is set around it, and at
 * it the step is free (twice the deadband); just under it the step pays
 * and is free as well, and the error is the larger, twice the deadband.
 * Under g = 1/2 (30 of 64) the deadband is set around that S+, with no
 * free step at it: the error is S+ itself.
 */
static void afa_ctl_deadband_edge(struct kunit *test)
{
	const struct afa_ctl_input up = ev(64, 32, 0, 0);
	const struct afa_ctl_input under = ev(64, 30, 0, 0);
	struct loop l = { .p = afa_ctl_params_default, .c = f2p };
	s32 s;

	l.p.deadband = AFA_UNIT / 4;
	loop_init(&l, 1);
	loop_step(&l, &up);
	KUNIT_EXPECT_EQ(test, l.tr.save_grow, AFA_UNIT / 4);
	KUNIT_EXPECT_EQ(test, l.tr.error, AFA_UNIT / 2);
	l.p.deadband = AFA_UNIT / 4 - 1;
	loop_init(&l, 1);
	loop_step(&l, &up);
	KUNIT_EXPECT_EQ(test, l.tr.save_grow, AFA_UNIT / 4);
	KUNIT_EXPECT_EQ(test, l.tr.error, 2 * (AFA_UNIT / 4 - 1));
	KUNIT_EXPECT_EQ(test, l.order, 2U);

	s = afa_saving_grow(1, AFA_UNIT * 30 / 64, &f2p);
	KUNIT_ASSERT_GT(test, s, 0);
	l.p.deadband = s;
	loop_init(&l, 1);
	loop_step(&l, &under);
	KUNIT_EXPECT_EQ(test, l.tr.save_grow, s);
	KUNIT_EXPECT_EQ(test, l.tr.error, 0);
	KUNIT_EXPECT_EQ(test, l.tr.reason, AFA_CTL_DEADBAND);
	l.p.deadband = s - 1;
	loop_init(&l, 1);
	loop_step(&l, &under);
	KUNIT_EXPECT_EQ(test, l.tr.error, s);
}

/*
 * Too few samples: nothing changes, not the order, not the averages,
 * not what is pending.
 */
static void afa_ctl_few_samples_hold(struct kunit *test)
{
	const struct afa_ctl_input short_in = ev(MS - 1, MS - 1, MS - 1, 0);
	const struct afa_ctl_input up = ev(64, 32, 0, 0);
	struct loop l = { .p = afa_ctl_params_default, .c = f2p };
	struct afa_ctl_state before;
	int k;

	l.p.kp = AFA_UNIT;
	l.p.ki = AFA_UNIT;
	loop_init(&l, 1);
	loop_step(&l, &up);
	before = l.st;
	for (k = 0; k < 100; k++) {
		loop_step(&l, &short_in);
		KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_FEW_SAMPLES);
		KUNIT_ASSERT_EQ(test, l.order, 1U);
		KUNIT_ASSERT_EQ(test, memcmp(&before, &l.st, sizeof(before)), 0);
		KUNIT_ASSERT_EQ(test, l.tr.i, before.integral);
	}
}

/*
 * The evidence of one direction is smoothed on its own: its first
 * ratio at an order replaces the average, later ones move it by
 * 1/2^ewma_shift, and a count short of min_samples leaves it alone.
 */
static void afa_ctl_averages(struct kunit *test)
{
	struct loop l = { .p = afa_ctl_params_default, .c = { 1000, 100000 } };
	struct afa_ctl_input in;

	l.p.ewma_shift = 2;
	loop_init(&l, 4);
	in = ev(64, 0, 64, 64);
	loop_step(&l, &in);
	KUNIT_EXPECT_EQ(test, l.tr.grow_ratio, 0U);
	KUNIT_EXPECT_EQ(test, l.tr.trial_ratio, (u32)AFA_UNIT);
	in = ev(64, 64, MS - 1, 0);
	loop_step(&l, &in);
	KUNIT_EXPECT_EQ(test, l.tr.grow_ratio, (u32)AFA_UNIT / 4);
	KUNIT_EXPECT_EQ(test, l.tr.trial_ratio, (u32)AFA_UNIT);
	in = ev(MS - 1, 0, 64, 32);
	loop_step(&l, &in);
	KUNIT_EXPECT_EQ(test, l.tr.grow_ratio, (u32)AFA_UNIT / 4);
	KUNIT_EXPECT_EQ(test, l.tr.trial_ratio, afa_ewma(AFA_UNIT, 512, 2));
	KUNIT_EXPECT_EQ(test, l.order, 4U);
}

/*
 * A move makes the old order's evidence stale: the first ratio at the
 * new order replaces the average, what was pending is gone, and
 * growth evidence from before does not steer the new order.
 */
static void afa_ctl_move_restarts(struct kunit *test)
{
	struct loop l = loop_default(&f2p, 1);
	struct afa_ctl_input up = ev(64, 48, 0, 0), in;

	KUNIT_ASSERT_EQ(test, loop_step(&l, &up), 2U);
	KUNIT_EXPECT_EQ(test, l.st.integral, 0);
	KUNIT_EXPECT_FALSE(test, l.st.have_grow);
	KUNIT_EXPECT_FALSE(test, l.st.have_trial);
	in = ev(MS - 1, MS - 1, MS, MS);
	loop_step(&l, &in);
	KUNIT_EXPECT_EQ(test, l.tr.save_grow, 0);
	KUNIT_EXPECT_EQ(test, l.tr.error, 0);
	in = ev(64, 16, 0, 0);
	loop_step(&l, &in);
	KUNIT_EXPECT_EQ(test, l.tr.grow_ratio, (u32)AFA_UNIT / 4);
}

/*
 * Anti-windup: when max_order comes down to the order a stream holds
 * (as afa_class_params() does for MADV_RANDOM), growth evidence still
 * points up, but the integral may not: it is never positive there, and
 * no step grows.  The same at a raised min_order.
 */
static void afa_ctl_anti_windup(struct kunit *test)
{
	struct afa_ctl_input up = ev(64, 32, MS, MS), down = ev(64, 0, 64, 0);
	struct loop l = { .p = afa_ctl_params_default, .c = f2p };
	int k;

	/* P of 1/4 and I of 1/32: pending, not yet a step */
	l.p.kp = AFA_UNIT;
	l.p.ki = AFA_UNIT / 8;
	loop_init(&l, 1);
	loop_step(&l, &up);
	KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_PENDING);
	KUNIT_ASSERT_GT(test, l.st.integral, 0);
	l.p.max_order = 1;
	l.p.kp = 4 * AFA_UNIT;
	/* at the bound: no growth evidence counts, nothing pushes past it */
	for (k = 0; k < 100; k++) {
		loop_step(&l, &up);
		KUNIT_ASSERT_EQ(test, l.order, 1U);
		KUNIT_ASSERT_NE(test, l.tr.reason, AFA_CTL_GROW);
		KUNIT_ASSERT_LE(test, l.st.integral, 0);
	}

	l.p = afa_ctl_params_default;
	l.p.kp = AFA_UNIT;
	l.p.ki = AFA_UNIT / 8;
	loop_init(&l, 2);
	loop_step(&l, &down);
	KUNIT_ASSERT_EQ(test, l.tr.reason, AFA_CTL_PENDING);
	KUNIT_ASSERT_LT(test, l.st.integral, 0);
	l.p.min_order = 2;
	l.p.kp = 4 * AFA_UNIT;
	for (k = 0; k < 100; k++) {
		loop_step(&l, &down);
		KUNIT_ASSERT_EQ(test, l.order, 2U);
		KUNIT_ASSERT_NE(test, l.tr.reason, AFA_CTL_SHRINK);
		KUNIT_ASSERT_GE(test, l.st.integral, 0);
	}
}

/* ----- closed loop: plants modelled by fault cost F and page cost P ----- */

/*
 * A plant is a file read through one VMA that covers it, in rounds: a
 * process maps the file, reads it in its pattern and exits, and the next
 * round starts with nothing mapped.  A fault maps the window afa_window()
 * gives at the order in force (512-entry page tables), so at order n the
 * work costs T(n) = f(n) * F + M(n) * P for f(n) faults mapping M(n)
 * pages.  The fault path's evidence is gathered as probe.c gathers it:
 * the growth test looks at the buddy page afa_window_buddy() names, one
 * fault in TRIAL_EVERY is given one order less and the next fault tells
 * whether the gap afa_window_gap() left out was wanted.  Trials come
 * every TRIAL_EVERY faults on average, as afa_trial_due() has them, but
 * 2 to 6 faults apart at random: a fixed period locks onto a pattern's
 * own (a trial hit adds a fault, so with runs of three faults every
 * fourth fault is the same kind of fault, round after round), and the
 * fault that judges a trial is never on trial itself, as in the kernel.
 */
#define PTRS		512
#define TRIAL_EVERY	4	/* afa_sample_every's default */

enum pattern {
	SEQUENTIAL,	/* every page, in order */
	SPARSE,		/* one random page of each 512 */
	RUNS,		/* runs of @run pages at random multiples of @run */
	RUNS_UNALIGNED,	/* runs of @run pages at random pages */
	DENSE,		/* @count random pages, repeats allowed */
};

struct workload {
	enum pattern kind;
	u32 pages;	/* file and VMA, in pages */
	u32 run;	/* RUNS*: pages per run */
	u32 count;	/* RUNS*: runs per round; DENSE: reads per round */
	u32 vma_pte;	/* PTE index of the VMA's first page */
};

struct plant {
	struct workload w;
	u8 *mapped;		/* bitmap: mapped this round */
	u8 *touched;		/* bitmap: read this round */
	u32 seed;
	u32 next;		/* reads or runs done this round */
	u32 run_left;		/* pages left in the current run */
	u64 cursor;		/* next page of the current run */
	bool trial;		/* the last fault was on trial */
	u64 gap_start, gap_end;	/* what it left out */
	u32 countdown;		/* faults to the next trial */
	u32 trial_seed;		/* draws the distance between trials */
	u64 faults, pages_mapped, used;
};

static bool bit_test(const u8 *map, u64 i)
{
	return map[i >> 3] & BIT(i & 7);
}

static void bit_set(u8 *map, u64 i)
{
	map[i >> 3] |= BIT(i & 7);
}

static void plant_init(struct kunit *test, struct plant *pl,
		       const struct workload *w, u32 seed)
{
	*pl = (struct plant){ .w = *w, .seed = seed };
	pl->mapped = kunit_kzalloc(test, DIV_ROUND_UP(w->pages, 8), GFP_KERNEL);
	pl->touched = kunit_kzalloc(test, DIV_ROUND_UP(w->pages, 8),
				    GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pl->mapped);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pl->touched);
}

/* A new process: nothing mapped; a trial of the old one is never judged. */
static void plant_round_start(struct plant *pl)
{
	u32 bytes = DIV_ROUND_UP(pl->w.pages, 8), i;

	for (i = 0; i < bytes * 8; i++)
		pl->used += i < pl->w.pages && bit_test(pl->touched, i);
	memset(pl->mapped, 0, bytes);
	memset(pl->touched, 0, bytes);
	pl->next = 0;
	pl->run_left = 0;
	pl->trial = false;
}

/* The next page the round reads; false at the end of the round. */
static bool plant_next(struct plant *pl, u64 *page)
{
	const struct workload *w = &pl->w;

	switch (w->kind) {
	case SEQUENTIAL:
		*page = pl->next;
		return pl->next++ < w->pages;
	case SPARSE:
		*page = (u64)pl->next * PTRS + rnd_below(&pl->seed, PTRS);
		return pl->next++ < w->pages / PTRS;
	case RUNS:
	case RUNS_UNALIGNED:
		if (!pl->run_left) {
			if (pl->next++ >= w->count)
				return false;
			if (w->kind == RUNS)
				pl->cursor = (u64)w->run *
					rnd_below(&pl->seed, w->pages / w->run);
			else
				pl->cursor = rnd_below(&pl->seed,
						       w->pages - w->run + 1);
			pl->run_left = w->run;
		}
		pl->run_left--;
		*page = pl->cursor++;
		return true;
	case DENSE:
		*page = rnd_below(&pl->seed, w->pages);
		return pl->next++ < w->count;
	}
	return false;
}

/*
 * A fault at @page with the stream at @order.  With @in, gather the
 * evidence the fault path would, trials included.
 */
static void plant_fault(struct plant *pl, u64 page, u32 order,
			const struct afa_ctl_params *p,
			struct afa_ctl_input *in)
{
	struct afa_fault_pos pos = {
		.pgoff = page,
		.pte_off = (u32)(pl->w.vma_pte + page) % PTRS,
		.vma_off = page,
		.vma_pages = pl->w.pages,
		.ptrs_per_pte = PTRS,
	};
	u64 start, end, buddy;
	u32 apply = order;

	if (in && pl->trial) {
		pl->trial = false;
		in->nr_trials++;
		in->nr_trial_hits += page >= pl->gap_start &&
				     page <= pl->gap_end;
	}
	if (in && order < p->max_order &&
	    afa_window_buddy(&pos, order, &buddy)) {
		in->nr_faults++;
		in->nr_grow_hits += bit_test(pl->mapped, buddy);
	}
	if (in && order > p->min_order && !pl->countdown--) {
		pl->countdown = TRIAL_EVERY / 2 - 1 +
				rnd_below(&pl->trial_seed, TRIAL_EVERY + 1);
		if (afa_window_gap(&pos, order, &pl->gap_start,
				   &pl->gap_end)) {
			pl->trial = true;
			apply = order - 1;
		}
	}
	afa_window(&pos, apply, &start, &end);
	pl->faults++;
	pl->pages_mapped += end - start + 1;
	for (; start <= end; start++)
		bit_set(pl->mapped, start);
}

/* Read one page; true if that faulted. */
static bool plant_read(struct plant *pl, u64 page, u32 order,
		       const struct afa_ctl_params *p,
		       struct afa_ctl_input *in)
{
	bit_set(pl->touched, page);
	if (bit_test(pl->mapped, page))
		return false;
	plant_fault(pl, page, order, p, in);
	return true;
}

#define PLANT_SEED	12345

/* What @rounds rounds cost at a fixed @order, and their usefulness. */
static void plant_cost(struct plant *pl, u32 order, u32 rounds,
		       const struct afa_ctl_costs *c, u64 *cost, u32 *useful)
{
	u64 page, sampled;
	u32 r;

	pl->seed = PLANT_SEED;
	pl->faults = 0;
	pl->pages_mapped = 0;
	pl->used = 0;
	for (r = 0; r < rounds; r++) {
		plant_round_start(pl);
		while (plant_next(pl, &page))
			plant_read(pl, page, order, NULL, NULL);
	}
	plant_round_start(pl);
	*cost = pl->faults * c->fault_ns + pl->pages_mapped * c->page_ns;
	/* Of the pages mapped besides the faulting ones, those read. */
	sampled = pl->pages_mapped - pl->faults;
	*useful = sampled ? div64_u64((pl->used - pl->faults) << AFA_SCALE,
				      sampled) : AFA_UNIT;
}

/*
 * Run the law on the plant from @start until @steps steps were taken,
 * fed as afa_law_run() feeds it: a batch whenever one is ready, and
 * what waits dropped when the order moves.  @last gets the orders of
 * the last @nr_last steps.
 */
static void plant_control(struct plant *pl, struct loop *l, u32 start,
			  u32 steps, u32 *last, u32 nr_last)
{
	struct afa_ctl_input in = {}, batch;
	u32 k = 0, old, reads = 0;
	u64 page;

	pl->seed = PLANT_SEED + 1;
	pl->trial_seed = PLANT_SEED + 2;
	pl->countdown = TRIAL_EVERY - 1;
	loop_init(l, start);
	while (k < steps && reads < 10000000) {
		plant_round_start(pl);
		while (k < steps && plant_next(pl, &page)) {
			reads++;
			if (!plant_read(pl, page, l->order, &l->p, &in) ||
			    !afa_ctl_input_ready(&l->st, &l->p, &in))
				continue;
			old = l->order;
			afa_ctl_batch(&in, &l->st, &l->p, &batch);
			if (loop_step(l, &batch) != old)
				in = (struct afa_ctl_input){};
			if (k >= steps - nr_last)
				last[k - (steps - nr_last)] = l->order;
			k++;
		}
	}
	for (; k < steps; k++)
		if (k >= steps - nr_last)
			last[k - (steps - nr_last)] = l->order;
}

struct plant_case {
	const char *name;
	struct workload w;
	struct afa_ctl_costs c;
	u32 rounds;	/* for T(n): enough to average the randomness */
	bool differs;	/* the usefulness-1/2 order costs more */
};

#define PLANT_STEPS	400
#define PLANT_LAST	100

static const struct plant_case plant_cases[] = {
	{ "sequential_f1000_p100", { SEQUENTIAL, 4096 }, { 1000, 100 }, 1 },
	{ "sequential_f8000_p2600", { SEQUENTIAL, 4096 }, { 8000, 2600 }, 1 },
	{ "sequential_f1000_p1000", { SEQUENTIAL, 4096 }, { 1000, 1000 }, 1 },
	/* the VMA starts at PTE 100: windows clamped by the page tables */
	{ "sequential_vma_pte100_f1000_p100", { SEQUENTIAL, 4096, 0, 0, 100 },
	  { 1000, 100 }, 1 },
	{ "sparse_f1000_p100", { SPARSE, 32768 }, { 1000, 100 }, 1 },
	{ "sparse_f8000_p2600", { SPARSE, 32768 }, { 8000, 2600 }, 1 },
	{ "runs16_f1000_p100", { RUNS, 8192, 16, 16 }, { 1000, 100 }, 8 },
	{ "runs16_f8000_p2600", { RUNS, 8192, 16, 16 }, { 8000, 2600 }, 8 },
	{ "runs16_f1000_p1000", { RUNS, 8192, 16, 16 }, { 1000, 1000 }, 8 },
	{ "runs16_vma_pte100_f1000_p100", { RUNS, 8192, 16, 16, 100 },
	  { 1000, 100 }, 8 },
	{ "runs16_unaligned_f1000_p100", { RUNS_UNALIGNED, 8192, 16, 16 },
	  { 1000, 100 }, 8 },
	{ "runs16_unaligned_f8000_p2600", { RUNS_UNALIGNED, 8192, 16, 16 },
	  { 8000, 2600 }, 8 },
	{ "runs16_unaligned_f1000_p1000", { RUNS_UNALIGNED, 8192, 16, 16 },
	  { 1000, 1000 }, 8, true },
	{ "runs64_unaligned_f1000_p100", { RUNS_UNALIGNED, 8192, 64, 8 },
	  { 1000, 100 }, 8 },
	{ "dense64_f1000_p100", { DENSE, 64, 0, 32 }, { 1000, 100 }, 32, true },
	{ "dense256_f8000_p100", { DENSE, 256, 0, 48 }, { 8000, 100 }, 32, true },
	{ "dense64x128_f1000_p100", { DENSE, 64, 0, 128 }, { 1000, 100 }, 32 },
	{ "dense64x128_f8000_p2600", { DENSE, 64, 0, 128 }, { 8000, 2600 },
	  32 },
	{ "dense64x128_f1000_p1000", { DENSE, 64, 0, 128 }, { 1000, 1000 },
	  32 },
};

AFA_ROW_DESC(plant_case)
KUNIT_ARRAY_PARAM(plant, plant_cases, plant_case_to_desc);

/*
 * What the law may cost: batches of min_samples faults are noisy and
 * savings under the deadband do not step, so an order may cost a little
 * more than the cheapest, 1/16 at most.  The batches' noise sets that
 * bound, not the deadband: on runs of 16 unaligned pages at F = P the
 * law averages 4% over the cheapest order from order 4, at a deadband
 * of 1/32 as at the default 1/64.
 */
static bool plant_cost_ok(u64 cost, u64 best)
{
	return cost * 16 <= best * 17;
}

/* The order the law held for most of @nr steps. */
static u32 plant_mode(const u32 *orders, u32 nr)
{
	u32 hist[AFA_ORDER_MAX + 1] = {}, mode = 0, k;

	for (k = 0; k < nr; k++)
		hist[orders[k]]++;
	for (k = 1; k <= AFA_ORDER_MAX; k++)
		if (hist[k] > hist[mode])
			mode = k;
	return mode;
}

/*
 * From order 0, 4 and 9 the law ends at the cost-optimal order of the
 * plant for its F and P: the order it holds most is the cheapest, or
 * one next to it (or one whose windows are the same, clamped by a small
 * file) that costs at most 1/16 more, and so do the orders it visits on
 * average.  Where the order a usefulness target of 1/2 would pick costs
 * more (the rows that say so), that is not where it stays.
 */
static void afa_ctl_converges_to_cost_optimum(struct kunit *test)
{
	static const u32 starts[] = { 0, 4, AFA_ORDER_MAX };
	const struct plant_case *c = test->param_value;
	u64 cost[AFA_ORDER_MAX + 1], sum;
	u32 useful[AFA_ORDER_MAX + 1];
	u32 *last, best = 0, by_use = 0, mode, n, i, k;
	struct plant pl;
	struct loop l;

	/* on the heap: the frame must stay under 1 KiB on 32-bit too */
	last = kunit_kcalloc(test, PLANT_LAST, sizeof(*last), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, last);
	plant_init(test, &pl, &c->w, PLANT_SEED);
	for (n = 0; n <= AFA_ORDER_MAX; n++) {
		plant_cost(&pl, n, c->rounds, &c->c, &cost[n], &useful[n]);
		if (cost[n] < cost[best])
			best = n;
		if (n && useful[n] >= AFA_UNIT / 2)
			by_use = n;
	}
	if (c->differs)
		KUNIT_EXPECT_FALSE(test, plant_cost_ok(cost[by_use], cost[best]));
	for (i = 0; i < ARRAY_SIZE(starts); i++) {
		l = loop_default(&c->c, starts[i]);
		plant_control(&pl, &l, starts[i], PLANT_STEPS, last,
			      PLANT_LAST);
		mode = plant_mode(last, PLANT_LAST);
		KUNIT_EXPECT_TRUE_MSG(test,
				      cost[mode] == cost[best] ||
				      (abs((s32)mode - (s32)best) <= 1 &&
				       plant_cost_ok(cost[mode], cost[best])),
				      "from %u: order %u, best %u (T %llu vs %llu)",
				      starts[i], mode, best, cost[mode],
				      cost[best]);
		for (k = 0, sum = 0; k < PLANT_LAST; k++)
			sum += cost[last[k]];
		KUNIT_EXPECT_TRUE_MSG(test,
				      plant_cost_ok(sum, cost[best] * PLANT_LAST),
				      "from %u: mean T %llu, best %llu", starts[i],
				      div_u64(sum, PLANT_LAST), cost[best]);
		if (c->differs)
			KUNIT_EXPECT_NE(test, mode, by_use);
	}
}

/*
 * Batches of faults alone that find growth not worth it do not undo
 * what trials integrated toward shrinking: it still steps.
 */
static void afa_ctl_faults_keep_trial_integral(struct kunit *test)
{
	struct afa_ctl_input trials = ev(0, 0, 8, 0), faults = ev(8, 0, 0, 0);
	struct loop l = loop_default(&f2p, 2);
	int k;

	l.p.kp = AFA_UNIT / 4;
	loop_step(&l, &trials);
	KUNIT_ASSERT_EQ(test, l.order, 2U);
	KUNIT_ASSERT_LT(test, l.st.integral, 0);
	for (k = 0; k < 8; k++) {
		s16 before = l.st.integral;

		loop_step(&l, &faults);
		KUNIT_EXPECT_EQ(test, l.st.integral, before);
		KUNIT_EXPECT_EQ(test, l.tr.reason, AFA_CTL_PENDING);
	}
	for (k = 0; k < 8 && l.order == 2; k++)
		loop_step(&l, &trials);
	KUNIT_EXPECT_EQ(test, l.order, 1U);
}

/* ----- the span measured: afa_ctl_span(), afa_saving_*_span() ----- */

/*
 * A span from the window to under twice it changes nothing: the savings
 * are the window's, at every order, ratio and cost pair; so is an
 * unknown span.  (A little more than the window is noise, not a folio.)
 * Spans are in 1/AFA_UNIT pages: N, 3N/2 and a 1/1024 page under 2N.
 */
static void afa_saving_span_at_window(struct kunit *test)
{
	static const u32 ratios[] = { 0, FRAC(1, 4), FRAC(1, 2), AFA_UNIT };
	const struct afa_ctl_costs *c;
	u32 order, r, k, span;

	for (k = 0; k < ARRAY_SIZE(sweep_costs); k++) {
		c = &sweep_costs[k];
		for (order = 0; order <= AFA_ORDER_MAX; order++) {
			for (r = 0; r < ARRAY_SIZE(ratios); r++) {
				u32 n = 1U << order;

				/* 0, then N, 3N/2 and 2N - 1 */
				for (span = 0; span < 2 * n;
				     span = span ? span + max(n / 2, 1U) : n) {
					u32 m = min(span << AFA_SCALE,
						    (2 * n << AFA_SCALE) - 1);

					KUNIT_ASSERT_EQ(test,
							afa_saving_grow_span(order, ratios[r],
									     m, c),
							afa_saving_grow(order, ratios[r], c));
					KUNIT_ASSERT_EQ(test,
							afa_saving_shrink_span(order, ratios[r],
									       m, c),
							afa_saving_shrink(order, ratios[r], c));
				}
			}
		}
	}
}

/*
 * A window that maps only part of itself (M < N: the rest not cached,
 * or past the VMA) prices every order at that part: exactly a full
 * window at that part of the page cost; and the smaller the part, the
 * more a step up saves and the less a step down does.
 */
static void afa_saving_span_part(struct kunit *test)
{
	static const u32 ratios[] = { 0, FRAC(1, 4), FRAC(1, 2), AFA_UNIT };
	struct afa_ctl_costs full = { 1000, 400 }, part = { 1000, 100 };
	const struct afa_ctl_costs *c;
	u32 order, r, k, m;

	for (order = 2; order <= AFA_ORDER_MAX; order++) {
		for (r = 0; r < ARRAY_SIZE(ratios); r++) {
			KUNIT_EXPECT_EQ(test,
					afa_saving_grow_span(order, ratios[r],
							     BIT(order - 2 + AFA_SCALE),
							     &full),
					afa_saving_grow(order, ratios[r], &part));
			KUNIT_EXPECT_EQ(test,
					afa_saving_shrink_span(order, ratios[r],
							       BIT(order - 2 + AFA_SCALE),
							       &full),
					afa_saving_shrink(order, ratios[r], &part));
		}
	}
	for (k = 0; k < ARRAY_SIZE(sweep_costs); k++) {
		c = &sweep_costs[k];
		for (order = 1; order <= AFA_ORDER_MAX; order++) {
			for (r = 0; r < ARRAY_SIZE(ratios); r++) {
				for (m = AFA_UNIT; m < BIT(order + AFA_SCALE);
				     m <<= 1) {
					KUNIT_ASSERT_GE(test,
							afa_saving_grow_span(order, ratios[r],
									     m, c),
							afa_saving_grow_span(order, ratios[r],
									     2 * m, c));
					KUNIT_ASSERT_LE(test,
							afa_saving_shrink_span(order, ratios[r],
									       m, c),
							afa_saving_shrink_span(order, ratios[r],
									       2 * m, c));
				}
			}
		}
	}
}

/*
 * A part of a page counts: half a page more of span makes a step up
 * save strictly less and a step down strictly more where the window
 * maps half of itself, at the small orders where half a page is more
 * than the savings' resolution (a span rounded to whole pages priced 1
 * and 1.5 pages alike, and flipped decisions there).
 */
static void afa_saving_span_fraction(struct kunit *test)
{
	const struct afa_ctl_costs c = { 1000, 400 };
	u32 order, s;

	for (order = 1; order <= 4; order++) {
		s = BIT(order - 1 + AFA_SCALE);
		KUNIT_EXPECT_GT(test,
				afa_saving_grow_span(order, FRAC(1, 4), s, &c),
				afa_saving_grow_span(order, FRAC(1, 4),
						     s + AFA_UNIT / 2, &c));
		KUNIT_EXPECT_LT(test,
				afa_saving_shrink_span(order, FRAC(1, 4), s, &c),
				afa_saving_shrink_span(order, FRAC(1, 4),
						       s + AFA_UNIT / 2, &c));
	}
}

/*
 * The kernel maps M pages a fault, more than the window's N (a folio
 * mapped whole): shrinking the window saves no page, so with no trial
 * wanted it saves nothing and with any it costs; growing within the
 * folio costs no page, so it saves exactly the faults it serves (g).
 * Past the folio, the larger window's own pages count again.
 */
static void afa_saving_span_folio(struct kunit *test)
{
	static const u32 ratios[] = { 0, FRAC(1, 4), FRAC(1, 2), AFA_UNIT };
	const struct afa_ctl_costs *c;
	u32 order, r, k;

	for (k = 0; k < ARRAY_SIZE(sweep_costs); k++) {
		c = &sweep_costs[k];
		for (order = 1; order < AFA_ORDER_MAX; order++) {
			u32 folio = 2U << (order + AFA_SCALE);

			KUNIT_EXPECT_EQ(test,
					afa_saving_shrink_span(order, 0, folio, c), 0);
			KUNIT_EXPECT_LT(test,
					afa_saving_shrink_span(order, FRAC(1, 4), folio, c), 0);
			for (r = 0; r < ARRAY_SIZE(ratios); r++) {
				KUNIT_EXPECT_EQ(test,
						afa_saving_grow_span(order, ratios[r], folio, c),
						(s32)ratios[r]);
				KUNIT_EXPECT_LE(test,
						afa_saving_grow_span(order, ratios[r],
								     folio / 2, c),
						(s32)ratios[r]);
			}
		}
	}
}

/*
 * The span is known from min_samples measured faults on, to 1/AFA_UNIT
 * of a page, and bounded.
 */
static void afa_ctl_span_measured(struct kunit *test)
{
	struct afa_ctl_params p = afa_ctl_params_default;
	struct afa_ctl_input in = {};

	in.nr_spans = p.min_samples - 1;
	in.nr_span_pages = 512 * in.nr_spans;
	KUNIT_EXPECT_EQ(test, afa_ctl_span(&p, &in), 0U);
	in.nr_spans = p.min_samples;
	in.nr_span_pages = 512 * in.nr_spans;
	KUNIT_EXPECT_EQ(test, afa_ctl_span(&p, &in), 512U << AFA_SCALE);
	/* a part of a page is kept: 15 pages in 8 faults are 1.875 */
	in.nr_spans = 8 * p.min_samples;
	in.nr_span_pages = 15 * p.min_samples;
	KUNIT_EXPECT_EQ(test, afa_ctl_span(&p, &in), 15U * AFA_UNIT / 8);
	in.nr_span_pages = U32_MAX;
	KUNIT_EXPECT_EQ(test, afa_ctl_span(&p, &in),
			1U << (AFA_ORDER_MAX + 1 + AFA_SCALE));
}

/*
 * Direction, through the law: trials that never want their half shrink
 * a window that maps its own pages, and do not shrink one inside a
 * folio the kernel maps whole, whose measured span every batch carries.
 */
static void afa_ctl_span_holds_inside_folio(struct kunit *test)
{
	struct afa_ctl_input pending, batch;
	struct loop l;
	u32 span, k;

	for (span = 0; span <= 64; span += 64) {
		l = loop_default(&f2p, 3);
		for (k = 0; k < 40 && l.order == 3; k++) {
			pending = ev(0, 0, 8, 0);
			pending.nr_spans = 8;
			pending.nr_span_pages = 8 * span;
			afa_ctl_batch(&pending, &l.st, &l.p, &batch);
			KUNIT_ASSERT_EQ(test, batch.nr_span_pages, 8 * span);
			loop_step(&l, &batch);
			KUNIT_ASSERT_EQ(test, l.tr.span, span << AFA_SCALE);
		}
		if (span)
			KUNIT_EXPECT_EQ(test, l.order, 3U);
		else
			KUNIT_EXPECT_EQ(test, l.order, 2U);
	}
}

/* A max_order lowered onto the order held: stale growth does not pin it. */
static void afa_ctl_lowered_max_still_shrinks(struct kunit *test)
{
	struct afa_ctl_input up = ev(64, 48, 0, 0), sparse = ev(0, 0, 64, 0);
	struct loop l = loop_default(&f2p, 1);
	int k;

	l.p.kp = AFA_UNIT;
	l.p.ki = AFA_UNIT / 8;
	loop_step(&l, &up);
	KUNIT_ASSERT_EQ(test, l.order, 1U);
	l.p.max_order = 1;
	for (k = 0; k < 40 && l.order == 1; k++)
		loop_step(&l, &sparse);
	KUNIT_EXPECT_EQ(test, l.order, 0U);
}

static struct kunit_case afa_control_law_cases[] = {
	KUNIT_CASE_PARAM(afa_ewma_stays_between, ewma_gen_params),
	KUNIT_CASE(afa_ewma_moves_by_weight),
	KUNIT_CASE(afa_ewma_shift_zero_passes_sample),
	KUNIT_CASE(afa_ewma_converges),
	KUNIT_CASE_PARAM(afa_clamp_order_table, clamp_gen_params),
	KUNIT_CASE_PARAM(afa_order_to_bytes_table, bytes_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_costs_clamp_table, costs_gen_params),
	KUNIT_CASE_PARAM(afa_saving_grow_closed_form, grow_gen_params),
	KUNIT_CASE_PARAM(afa_saving_shrink_closed_form, shrink_gen_params),
	KUNIT_CASE(afa_saving_direction),
	KUNIT_CASE(afa_saving_ordering),
	KUNIT_CASE(afa_saving_scale_free),
	KUNIT_CASE(afa_saving_extremes),
	KUNIT_CASE_PARAM(afa_ctl_params_check_table, params_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_init_table, init_gen_params),
	KUNIT_CASE(afa_ctl_reason_names),
	KUNIT_CASE_PARAM(afa_ctl_input_ready_table, ready_gen_params),
	KUNIT_CASE_PARAM(afa_ctl_batch_table, batch_gen_params),
	KUNIT_CASE(afa_ctl_batch_conserves),
	KUNIT_CASE_PARAM(afa_ctl_error_table, error_gen_params),
	KUNIT_CASE(afa_ctl_p_direction),
	KUNIT_CASE(afa_ctl_i_direction),
	KUNIT_CASE(afa_ctl_d_direction),
	KUNIT_CASE(afa_ctl_d_restarts),
	KUNIT_CASE(afa_ctl_huge_gains_saturate),
	KUNIT_CASE_PARAM(afa_ctl_hysteresis_table, hyst_gen_params),
	KUNIT_CASE(afa_ctl_step_bounded),
	KUNIT_CASE(afa_ctl_unchecked_params),
	KUNIT_CASE_PARAM(afa_ctl_max_step_table, max_step_gen_params),
	KUNIT_CASE(afa_ctl_deadband_settles),
	KUNIT_CASE(afa_ctl_deadband_edge),
	KUNIT_CASE(afa_ctl_sequential_grows_to_max),
	KUNIT_CASE(afa_ctl_scan_growth_never_slower_than_free),
	KUNIT_CASE(afa_ctl_free_growth_needs_half),
	KUNIT_CASE(afa_ctl_settles_at_rest),
	KUNIT_CASE(afa_ctl_settles_with_small_shrink_pending),
	KUNIT_CASE(afa_ctl_no_rest_with_growth_pending),
	KUNIT_CASE(afa_ctl_rare_trials_where_shrink_costs),
	KUNIT_CASE(afa_ctl_rare_trials_after_two_batches),
	KUNIT_CASE(afa_ctl_settles_at_bound),
	KUNIT_CASE(afa_ctl_few_samples_hold),
	KUNIT_CASE(afa_ctl_averages),
	KUNIT_CASE(afa_ctl_move_restarts),
	KUNIT_CASE(afa_ctl_anti_windup),
	KUNIT_CASE_PARAM(afa_ctl_converges_to_cost_optimum, plant_gen_params),
	KUNIT_CASE(afa_ctl_lowered_max_still_shrinks),
	KUNIT_CASE(afa_saving_span_at_window),
	KUNIT_CASE(afa_saving_span_part),
	KUNIT_CASE(afa_saving_span_fraction),
	KUNIT_CASE(afa_saving_span_folio),
	KUNIT_CASE(afa_ctl_span_measured),
	KUNIT_CASE(afa_ctl_span_holds_inside_folio),
	KUNIT_CASE(afa_ctl_faults_keep_trial_integral),
	{}
};

static struct kunit_suite afa_control_law_suite = {
	.name = "autofaultaround_control_law",
	.test_cases = afa_control_law_cases,
};

kunit_test_suite(afa_control_law_suite);

MODULE_DESCRIPTION("KUnit tests for the autofaultaround control law");
MODULE_LICENSE("GPL");

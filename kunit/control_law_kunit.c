// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the autofaultaround control law: properties of the
 * pure helpers (bounds, direction, convergence), not golden values.
 */
#include <kunit/test.h>
#include "control_law.h"

struct ewma_case {
	const char *name;
	u32 avg;
	u32 sample;
	unsigned int shift;
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

static void ewma_case_to_desc(const struct ewma_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

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
	int order;
	unsigned int min_order, max_order, want;
};

static const struct clamp_case clamp_cases[] = {
	{ "inside", 3, 0, 8, 3 },
	{ "at_min", 0, 0, 8, 0 },
	{ "at_max", 8, 0, 8, 8 },
	{ "below_min", 1, 2, 8, 2 },
	{ "above_max", 9, 0, 8, 8 },
	{ "negative", -5, 1, 8, 1 },
	{ "int_min", INT_MIN, 0, 9, 0 },
	{ "int_max", INT_MAX, 0, 9, 9 },
	{ "min_eq_max", 5, 4, 4, 4 },
};

static void clamp_case_to_desc(const struct clamp_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(clamp, clamp_cases, clamp_case_to_desc);

static void afa_clamp_order_table(struct kunit *test)
{
	const struct clamp_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test,
			afa_clamp_order(c->order, c->min_order, c->max_order),
			c->want);
}

static struct kunit_case afa_control_law_cases[] = {
	KUNIT_CASE_PARAM(afa_ewma_stays_between, ewma_gen_params),
	KUNIT_CASE(afa_ewma_moves_by_weight),
	KUNIT_CASE(afa_ewma_shift_zero_passes_sample),
	KUNIT_CASE(afa_ewma_converges),
	KUNIT_CASE_PARAM(afa_clamp_order_table, clamp_gen_params),
	{}
};

static struct kunit_suite afa_control_law_suite = {
	.name = "autofaultaround_control_law",
	.test_cases = afa_control_law_cases,
};

kunit_test_suite(afa_control_law_suite);

MODULE_DESCRIPTION("KUnit tests for the autofaultaround control law");
MODULE_LICENSE("GPL");

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for period accounting: counter deltas across wrap, rates
 * over a period, ratios in fixed point, and empty periods.
 */
#include <kunit/test.h>
#include <linux/math64.h>
#include "account.h"
#include "control_law.h"

/* A wrapped counter still gives the count of the period. */
static void afa_delta_across_wrap(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, afa_delta(10, 3), 7ULL);
	KUNIT_EXPECT_EQ(test, afa_delta(4, U64_MAX - 5), 10ULL);
	KUNIT_EXPECT_EQ(test, afa_delta(0, U64_MAX), 1ULL);
	KUNIT_EXPECT_EQ(test, afa_delta(42, 42), 0ULL);
}

struct rate_case {
	const char *name;
	u64 count;
	u32 period_ms;
	u32 want;
};

static const struct rate_case rate_cases[] = {
	{ "one_second", 500, 1000, 500 },
	{ "short_period", 25, 100, 250 },
	{ "long_period", 90, 60000, 1 },
	{ "rounds_down", 1, 3, 333 },
	{ "empty_period", 0, 200, 0 },
	{ "zero_length_period", 1000, 0, 0 },
	{ "saturates_u32", 1ULL << 40, 1000, U32_MAX },
	{ "count_near_u64_max", U64_MAX, 1, U32_MAX },
	{ "product_would_wrap", U64_MAX / 1000 + 1, 60000, U32_MAX },
};

static void rate_case_to_desc(const struct rate_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rate, rate_cases, rate_case_to_desc);

static void afa_rate_per_s_table(struct kunit *test)
{
	const struct rate_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, afa_rate_per_s(c->count, c->period_ms), c->want);
}

struct ratio_case {
	const char *name;
	u64 part, whole;
	u32 want;
};

static const struct ratio_case ratio_cases[] = {
	{ "half", 50, 100, AFA_UNIT / 2 },
	{ "all", 7, 7, AFA_UNIT },
	{ "none", 0, 9, 0 },
	{ "empty_period_is_not_all", 0, 0, 0 },
	{ "part_above_whole", 9, 7, AFA_UNIT },
	{ "quarter_of_huge", U64_MAX / 4, U64_MAX, AFA_UNIT / 4 },
	{ "half_of_huge", U64_MAX / 2, U64_MAX, AFA_UNIT / 2 },
	{ "one_of_many", 1, 1ULL << 40, 0 },
};

static void ratio_case_to_desc(const struct ratio_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ratio, ratio_cases, ratio_case_to_desc);

static void afa_ratio_table(struct kunit *test)
{
	const struct ratio_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, afa_ratio(c->part, c->whole), c->want);
}

/* A ratio never leaves [0, AFA_UNIT] and grows with its part. */
static void afa_ratio_bounded_and_monotonic(struct kunit *test)
{
	u64 wholes[] = { 1, 3, 1000, 1ULL << 33, U64_MAX >> 8, U64_MAX };
	u32 prev, r;
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(wholes); i++) {
		prev = 0;
		for (k = 0; k <= 16; k++) {
			r = afa_ratio(div64_u64(wholes[i], 16) * k, wholes[i]);
			KUNIT_EXPECT_LE(test, r, (u32)AFA_UNIT);
			KUNIT_EXPECT_GE(test, r, prev);
			prev = r;
		}
	}
}

/* Thousandths round to nearest and map the ends onto 0 and 1000. */
static void afa_ratio_permille_ends(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, afa_ratio_permille(0), 0U);
	KUNIT_EXPECT_EQ(test, afa_ratio_permille(AFA_UNIT), 1000U);
	KUNIT_EXPECT_EQ(test, afa_ratio_permille(AFA_UNIT / 2), 500U);
	KUNIT_EXPECT_EQ(test, afa_ratio_permille(1), 1U);
}

static struct kunit_case afa_account_cases[] = {
	KUNIT_CASE(afa_delta_across_wrap),
	KUNIT_CASE_PARAM(afa_rate_per_s_table, rate_gen_params),
	KUNIT_CASE_PARAM(afa_ratio_table, ratio_gen_params),
	KUNIT_CASE(afa_ratio_bounded_and_monotonic),
	KUNIT_CASE(afa_ratio_permille_ends),
	{}
};

static struct kunit_suite afa_account_suite = {
	.name = "autofaultaround_account",
	.test_cases = afa_account_cases,
};

kunit_test_suite(afa_account_suite);

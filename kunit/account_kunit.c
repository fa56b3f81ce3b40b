// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for period accounting: evidence sums and deltas across
 * wrap, the law's input saturating, rates over a period, ratios in fixed
 * point, and empty periods.
 */
#include <kunit/test.h>
#include <linux/math64.h>
#include "account.h"
#include "control_law.h"

/* Name a table row after its first field, as lib/math/tests do. */
#define AFA_ROW_DESC(type)						\
static void type##_to_desc(const struct type *c, char *desc)		\
{									\
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);			\
}

#define NR_FIELDS	(sizeof(struct afa_evidence) / sizeof(u32))

/* Evidence whose field i is @base + i * @step, modulo 2^32. */
static struct afa_evidence evidence(u32 base, u32 step)
{
	struct afa_evidence e;
	u32 *f = (u32 *)&e;
	unsigned int i;

	for (i = 0; i < NR_FIELDS; i++)
		f[i] = base + i * step;
	return e;
}

static void expect_evidence_eq(struct kunit *test,
			       const struct afa_evidence *a,
			       const struct afa_evidence *b)
{
	KUNIT_EXPECT_EQ(test, a->faults, b->faults);
	KUNIT_EXPECT_EQ(test, a->pages, b->pages);
	KUNIT_EXPECT_EQ(test, a->misses, b->misses);
	KUNIT_EXPECT_EQ(test, a->tested, b->tested);
	KUNIT_EXPECT_EQ(test, a->grow_hits, b->grow_hits);
	KUNIT_EXPECT_EQ(test, a->trials, b->trials);
	KUNIT_EXPECT_EQ(test, a->trial_hits, b->trial_hits);
}

/* Every field is added on its own, wrapping modulo 2^32. */
static void afa_evidence_add_fields(struct kunit *test)
{
	struct afa_evidence sum = evidence(100, 1000);
	struct afa_evidence c = evidence(1, 1), want = evidence(101, 1001);
	struct afa_evidence top = evidence(U32_MAX, 0);

	afa_evidence_add(&sum, &c);
	expect_evidence_eq(test, &sum, &want);
	/* U32_MAX + (1 + i) wraps to i */
	afa_evidence_add(&top, &c);
	want = evidence(0, 1);
	expect_evidence_eq(test, &top, &want);
}

struct delta_case {
	const char *name;
	u32 now, before, want;
};

static const struct delta_case delta_cases[] = {
	{ "plain", 10, 3, 7 },
	{ "none", 42, 42, 0 },
	{ "across_wrap", 4, U32_MAX - 5, 10 },
	{ "wrap_to_zero", 0, U32_MAX, 1 },
	{ "all_but_one", U32_MAX, 0, U32_MAX },
	{ "a_whole_wrap_reads_as_none", 7, 7, 0 },
};

AFA_ROW_DESC(delta_case)
KUNIT_ARRAY_PARAM(delta, delta_cases, delta_case_to_desc);

/* A wrapped counter still gives the count of the fold, in every field. */
static void afa_evidence_delta_table(struct kunit *test)
{
	const struct delta_case *c = test->param_value;
	struct afa_evidence now = evidence(c->now, 0);
	struct afa_evidence before = evidence(c->before, 0), d;
	struct afa_evidence want = evidence(c->want, 0);

	memset(&d, 0xa5, sizeof(d));
	afa_evidence_delta(&d, &now, &before);
	expect_evidence_eq(test, &d, &want);
}

/*
 * Sums of per-CPU counters taken at two folds: their delta is what the
 * CPUs counted in between, whatever wrapped on the way.
 */
static void afa_evidence_delta_of_sums(struct kunit *test)
{
	struct afa_evidence cpu[3] = {
		evidence(U32_MAX - 2, 1), evidence(5, U32_MAX), evidence(0, 7),
	};
	struct afa_evidence before = {}, now = {}, d, want = evidence(9, 3);
	struct afa_evidence more = evidence(3, 1);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cpu); i++)
		afa_evidence_add(&before, &cpu[i]);
	for (i = 0; i < ARRAY_SIZE(cpu); i++) {
		afa_evidence_add(&cpu[i], &more);
		afa_evidence_add(&now, &cpu[i]);
	}
	afa_evidence_delta(&d, &now, &before);
	expect_evidence_eq(test, &d, &want);
}

struct input_case {
	const char *name;
	struct afa_ctl_input in;
	struct afa_evidence e;
	struct afa_ctl_input want;
};

/* Evidence fields: faults, pages, misses, tested, grow_hits, trials, hits. */
static const struct input_case input_cases[] = {
	{ "from_empty", {}, { 100, 1600, 5, 90, 40, 20, 10 },
	  { 90, 40, 20, 10 } },
	{ "adds_up", { 8, 4, 2, 1 }, { 0, 0, 0, 90, 40, 20, 10 },
	  { 98, 44, 22, 11 } },
	{ "only_tests_count_as_faults", {}, { U32_MAX, U32_MAX, U32_MAX },
	  {} },
	{ "saturates", { U32_MAX - 1, 5, U32_MAX, 0 },
	  { 0, 0, 0, 2, U32_MAX, 1, U32_MAX }, { U32_MAX, U32_MAX, U32_MAX,
	  U32_MAX } },
	{ "at_max_stays", { U32_MAX, U32_MAX, U32_MAX, U32_MAX },
	  { 0, 0, 0, 1, 1, 1, 1 }, { U32_MAX, U32_MAX, U32_MAX, U32_MAX } },
};

AFA_ROW_DESC(input_case)
KUNIT_ARRAY_PARAM(input, input_cases, input_case_to_desc);

/*
 * A fold's tested faults, grow hits, trials and trial hits add to what
 * waits for the law, each saturating at U32_MAX instead of wrapping.
 */
static void afa_evidence_to_input_table(struct kunit *test)
{
	const struct input_case *c = test->param_value;
	struct afa_ctl_input in = c->in;

	afa_evidence_to_input(&in, &c->e);
	KUNIT_EXPECT_EQ(test, in.nr_faults, c->want.nr_faults);
	KUNIT_EXPECT_EQ(test, in.nr_grow_hits, c->want.nr_grow_hits);
	KUNIT_EXPECT_EQ(test, in.nr_trials, c->want.nr_trials);
	KUNIT_EXPECT_EQ(test, in.nr_trial_hits, c->want.nr_trial_hits);
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

AFA_ROW_DESC(rate_case)
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
	{ "racy_part_without_whole", 5, 0, 0 },
	{ "part_above_whole", 9, 7, AFA_UNIT },
	{ "quarter_of_huge", U64_MAX / 4, U64_MAX, AFA_UNIT / 4 },
	{ "half_of_huge", U64_MAX / 2, U64_MAX, AFA_UNIT / 2 },
	{ "one_of_many", 1, 1ULL << 40, 0 },
};

AFA_ROW_DESC(ratio_case)
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
	KUNIT_EXPECT_EQ(test, afa_ratio_permille(U32_MAX),
			(u32)div_u64((u64)U32_MAX * 1000 + AFA_UNIT / 2,
				     AFA_UNIT));
}

/*
 * A state's ratios read in thousandths, and as 0 where there is no
 * evidence at its order (an average left from another order, or none).
 */
static void afa_ctl_state_permille(struct kunit *test)
{
	struct afa_ctl_state st;

	afa_ctl_init(&st, &afa_ctl_params_default, 4);
	st.grow_avg = AFA_UNIT / 4;
	st.trial_avg = AFA_UNIT;
	KUNIT_EXPECT_EQ(test, afa_ctl_grow_permille(&st), 0U);
	KUNIT_EXPECT_EQ(test, afa_ctl_trial_permille(&st), 0U);
	st.have_grow = 1;
	KUNIT_EXPECT_EQ(test, afa_ctl_grow_permille(&st), 250U);
	KUNIT_EXPECT_EQ(test, afa_ctl_trial_permille(&st), 0U);
	st.have_trial = 1;
	KUNIT_EXPECT_EQ(test, afa_ctl_trial_permille(&st), 1000U);
}

static struct kunit_case afa_account_cases[] = {
	KUNIT_CASE(afa_evidence_add_fields),
	KUNIT_CASE_PARAM(afa_evidence_delta_table, delta_gen_params),
	KUNIT_CASE(afa_evidence_delta_of_sums),
	KUNIT_CASE_PARAM(afa_evidence_to_input_table, input_gen_params),
	KUNIT_CASE_PARAM(afa_rate_per_s_table, rate_gen_params),
	KUNIT_CASE_PARAM(afa_ratio_table, ratio_gen_params),
	KUNIT_CASE(afa_ratio_bounded_and_monotonic),
	KUNIT_CASE(afa_ratio_permille_ends),
	KUNIT_CASE(afa_ctl_state_permille),
	{}
};

static struct kunit_suite afa_account_suite = {
	.name = "autofaultaround_account",
	.test_cases = afa_account_cases,
};

kunit_test_suite(afa_account_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the lanes of a file (split.h): a mapping changes lanes
 * only on enough evidence, only when its density is past the margin on
 * the other side of its lane's, never while its lane has no evidence;
 * verdicts come at doublings of the evidence, so a mapping like its lane
 * is judged ever more rarely and stays; a scan and a sparse probe of one
 * file end in different lanes.
 */
#include <kunit/test.h>
#include <linux/log2.h>
#include "split.h"

/* Count @n faults of one outcome each, @hits_in_16 of every 16 a hit. */
static void count_faults(struct afa_split_tally *t, unsigned int n,
			 unsigned int hits_in_16)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		afa_split_count(t, 1, i % 16 < hits_in_16);
}

/* Fewer outcomes than AFA_SPLIT_OUTCOMES: no verdict, nothing forgotten. */
static void afa_split_needs_evidence(struct kunit *test)
{
	struct afa_split_tally t = {};

	count_faults(&t, AFA_SPLIT_OUTCOMES - 1, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, true), AFA_SPLIT_WAIT);
	KUNIT_EXPECT_EQ(test, t.outcomes, AFA_SPLIT_OUTCOMES - 1);
	afa_split_count(&t, 1, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, true), AFA_SPLIT_MOVE);
	/* moving restarts the tally */
	KUNIT_EXPECT_EQ(test, t.outcomes, 0);
}

/* Direction: each kind of mapping leaves the lane of the other kind. */
static void afa_split_direction(struct kunit *test)
{
	struct afa_split_tally t = {};

	/* no hit at all, in a dense lane: moves */
	count_faults(&t, AFA_SPLIT_OUTCOMES, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, true), AFA_SPLIT_MOVE);
	/* ... in a sparse lane: stays */
	count_faults(&t, AFA_SPLIT_OUTCOMES, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, false), AFA_SPLIT_STAY);
	/* a scan's outcomes (about 0.6 hit), in a sparse lane: moves */
	t = (struct afa_split_tally){};
	count_faults(&t, AFA_SPLIT_OUTCOMES, 10);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, false), AFA_SPLIT_MOVE);
	/* ... in a dense lane: stays */
	count_faults(&t, AFA_SPLIT_OUTCOMES, 10);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, true), AFA_SPLIT_STAY);
}

/*
 * The margins: from 1/64 to under 3/8 a mapping stays in either lane.
 * Hits in 16 first, then single hits at the sparse edge: one hit in 64
 * is not under 1/64 (stays), one in 65 is (moves); one in 32 stays (a
 * margin of 1/16 would move it).
 */
static void afa_split_margins(struct kunit *test)
{
	static const struct { u16 outcomes; bool moves; } edge[] = {
		{ 32, false }, { 64, false }, { 65, true }, { 128, true },
	};
	struct afa_split_tally t;
	unsigned int h;

	for (h = 0; h <= 16; h++) {
		bool leaves_dense, leaves_sparse;

		t = (struct afa_split_tally){};
		count_faults(&t, AFA_SPLIT_OUTCOMES, h);
		leaves_dense = afa_split_judge(&t, true, true) == AFA_SPLIT_MOVE;
		t = (struct afa_split_tally){};
		count_faults(&t, AFA_SPLIT_OUTCOMES, h);
		leaves_sparse = afa_split_judge(&t, true, false) == AFA_SPLIT_MOVE;
		KUNIT_EXPECT_EQ_MSG(test, leaves_dense, h < 1, "%u hits in 16", h);
		KUNIT_EXPECT_EQ_MSG(test, leaves_sparse, h >= 6, "%u hits in 16", h);
		/* never both: a mapping has one lane it belongs in */
		KUNIT_EXPECT_FALSE(test, leaves_dense && leaves_sparse);
	}
	for (h = 0; h < ARRAY_SIZE(edge); h++) {
		t = (struct afa_split_tally){};
		afa_split_count(&t, 1, 1);
		afa_split_count(&t, edge[h].outcomes - 1, 0);
		KUNIT_EXPECT_EQ_MSG(test,
				    afa_split_judge(&t, true, true) == AFA_SPLIT_MOVE,
				    edge[h].moves, "1 hit in %u",
				    edge[h].outcomes);
	}
}

/* A lane without evidence judges nobody; the mapping waits for the next. */
static void afa_split_unknown_lane(struct kunit *test)
{
	struct afa_split_tally t = {};

	count_faults(&t, AFA_SPLIT_OUTCOMES, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, false, true), AFA_SPLIT_STAY);
	/* judged at AFA_SPLIT_OUTCOMES, next at twice that: between, it waits */
	count_faults(&t, AFA_SPLIT_OUTCOMES - 1, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, true), AFA_SPLIT_WAIT);
	afa_split_count(&t, 1, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, true), AFA_SPLIT_MOVE);
}

/*
 * A quiet mapping: in a sparse lane, no hit in its first AFA_SPLIT_QUIET
 * outcomes, it is judged then and stays, and waits for its next verdict
 * until twice that; one hit, or a dense lane, or one without evidence,
 * and it waits for AFA_SPLIT_OUTCOMES as any.
 */
static void afa_split_quiet_judged_early(struct kunit *test)
{
	struct afa_split_tally t = {};
	unsigned int h;

	count_faults(&t, AFA_SPLIT_QUIET - 1, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, false), AFA_SPLIT_WAIT);
	afa_split_count(&t, 1, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, false), AFA_SPLIT_STAY);
	/* then a scan's outcomes: no verdict before twice AFA_SPLIT_QUIET */
	count_faults(&t, AFA_SPLIT_QUIET - 1, 8);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, false), AFA_SPLIT_WAIT);
	afa_split_count(&t, 1, 1);
	KUNIT_EXPECT_NE(test, afa_split_judge(&t, true, false), AFA_SPLIT_WAIT);

	/* one hit in the first AFA_SPLIT_QUIET: the usual first verdict */
	t = (struct afa_split_tally){};
	count_faults(&t, AFA_SPLIT_QUIET, 1);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, false), AFA_SPLIT_WAIT);
	count_faults(&t, AFA_SPLIT_OUTCOMES - AFA_SPLIT_QUIET - 1, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, false), AFA_SPLIT_WAIT);
	afa_split_count(&t, 1, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, false), AFA_SPLIT_STAY);

	/* a dense lane, a lane without evidence: no early verdict */
	t = (struct afa_split_tally){};
	count_faults(&t, AFA_SPLIT_QUIET, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, true), AFA_SPLIT_WAIT);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, false, false), AFA_SPLIT_WAIT);

	/* early once only: still quiet after it, the next is at twice */
	t = (struct afa_split_tally){};
	count_faults(&t, AFA_SPLIT_QUIET, 0);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, false), AFA_SPLIT_STAY);
	for (h = 1; h < AFA_SPLIT_QUIET; h++) {
		afa_split_count(&t, 1, 0);
		KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, false),
				AFA_SPLIT_WAIT);
	}
}

/* Verdicts at 32, 64, 128, ... outcomes: a handful in thousands of faults. */
static void afa_split_verdicts_double(struct kunit *test)
{
	struct afa_split_tally t = {};
	unsigned int i, verdicts = 0;

	for (i = 0; i < 4096; i++) {
		afa_split_count(&t, 1, i % 4 == 0);
		if (afa_split_judge(&t, true, true) != AFA_SPLIT_WAIT)
			verdicts++;
	}
	/* AFA_SPLIT_OUTCOMES, twice that, ..., 4096 */
	KUNIT_EXPECT_EQ(test, verdicts, ilog2(4096 / AFA_SPLIT_OUTCOMES) + 1);
	KUNIT_EXPECT_EQ(test, t.outcomes, 4096);
}

/* Saturation: the counts halve before they wrap, the ratio stays. */
static void afa_split_count_saturates(struct kunit *test)
{
	struct afa_split_tally t = {};
	unsigned int i;

	for (i = 0; i < 100000; i++) {
		afa_split_count(&t, 1, i % 2);
		afa_split_judge(&t, true, true);
		KUNIT_ASSERT_LT(test, t.outcomes, (u16)BIT(14));
	}
	KUNIT_EXPECT_GE(test, t.hits * 2 + 2, t.outcomes);
	KUNIT_EXPECT_LE(test, t.hits * 2, t.outcomes + 2);
}

/*
 * Verdicts go on past saturation: the halving halves the next verdict's
 * place too, or a tally halved at 2^14 would wait for 2^14 outcomes it
 * can never reach.  A mapping like its dense lane for 3 * 2^14 outcomes
 * that then never hits again is judged, and moves, within 2^16 more.
 */
static void afa_split_judged_after_saturation(struct kunit *test)
{
	struct afa_split_tally t = {};
	unsigned int i;

	for (i = 0; i < 3 * BIT(14); i++) {
		afa_split_count(&t, 1, i % 2);
		KUNIT_ASSERT_NE(test, afa_split_judge(&t, true, true),
				AFA_SPLIT_MOVE);
	}
	for (i = 0; i < BIT(16); i++) {
		afa_split_count(&t, 1, 0);
		if (afa_split_judge(&t, true, true) == AFA_SPLIT_MOVE)
			break;
	}
	KUNIT_EXPECT_LT(test, i, BIT(16));
}

/*
 * Hits that come without outcomes (a trial's half found wanted in the
 * page tables, its trial counted apart) never pass the outcomes: a
 * mapping at max_order, whose only outcomes are rare trials, cannot
 * wrap its hits before its first verdict.
 */
static void afa_split_hits_within_outcomes(struct kunit *test)
{
	struct afa_split_tally t = {};
	unsigned int i;

	for (i = 0; i < 100000; i++) {
		afa_split_count(&t, i % 64 == 0, 1);
		KUNIT_ASSERT_LE(test, t.hits, t.outcomes);
	}
	KUNIT_EXPECT_GT(test, t.outcomes, 0);
}

/* Orders of the lanes below: min_order 0, max_order 9. */
#define LO	0
#define HI	9

/* A lane's density from its law state: growth tests or trials. */
static void afa_split_lane_density(struct kunit *test)
{
	struct afa_ctl_state st = {};

	KUNIT_EXPECT_FALSE(test, afa_split_known(&st, LO, HI));
	KUNIT_EXPECT_FALSE(test, afa_split_dense(&st));
	/* a scan at min_order: half its growth tests hit, no trial there */
	st.have_grow = 1;
	st.grow_avg = AFA_UNIT / 2;
	KUNIT_EXPECT_TRUE(test, afa_split_known(&st, LO, HI));
	KUNIT_EXPECT_TRUE(test, afa_split_dense(&st));
	/* the threshold itself is dense, just below is not */
	st.grow_avg = AFA_SPLIT_DENSE;
	KUNIT_EXPECT_TRUE(test, afa_split_dense(&st));
	st.grow_avg = AFA_SPLIT_DENSE - 1;
	KUNIT_EXPECT_FALSE(test, afa_split_dense(&st));
	/* and for trials alone */
	st = (struct afa_ctl_state){ .have_trial = 1,
				     .trial_avg = AFA_SPLIT_DENSE };
	KUNIT_EXPECT_TRUE(test, afa_split_dense(&st));
	st.trial_avg = AFA_SPLIT_DENSE - 1;
	KUNIT_EXPECT_FALSE(test, afa_split_dense(&st));
	/* a scan at max_order: no growth test, its trials hit */
	st = (struct afa_ctl_state){ .order = HI, .have_trial = 1,
				     .trial_avg = AFA_UNIT };
	KUNIT_EXPECT_TRUE(test, afa_split_known(&st, LO, HI));
	KUNIT_EXPECT_TRUE(test, afa_split_dense(&st));
	/* an average without its have_ flag is no evidence */
	st = (struct afa_ctl_state){ .grow_avg = AFA_UNIT, .trial_avg = AFA_UNIT };
	KUNIT_EXPECT_FALSE(test, afa_split_known(&st, LO, HI));
	KUNIT_EXPECT_FALSE(test, afa_split_dense(&st));
	/* no test at all where min_order is max_order */
	KUNIT_EXPECT_FALSE(test, afa_split_known(&st, LO, LO));
}

/*
 * Between min_order and max_order a lane judges only with both kinds of
 * evidence: one with growth tests alone (a new order, no trial counted
 * yet) would call a mapping like it sparse, or dense, by half of what
 * the mapping's density counts.
 */
static void afa_split_lane_needs_both(struct kunit *test)
{
	/* text at order 3: one growth test in eight hits, 3/4 of trials */
	struct afa_ctl_state st = { .order = 3, .have_grow = 1,
				    .grow_avg = AFA_UNIT / 8 };
	struct afa_split_tally t = {};

	KUNIT_EXPECT_FALSE(test, afa_split_known(&st, LO, HI));
	/* a process's start, a little denser: 24 tests (4 hits), 8 trials (8) */
	count_faults(&t, 24, 2);
	afa_split_count(&t, 8, 8);
	/* judged by the growth tests alone it would move, */
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, afa_split_dense(&st)),
			AFA_SPLIT_MOVE);
	/* with the lane's trials it is dense, and the mapping stays */
	st.have_trial = 1;
	st.trial_avg = AFA_UNIT * 3 / 4;
	KUNIT_EXPECT_TRUE(test, afa_split_known(&st, LO, HI));
	KUNIT_EXPECT_TRUE(test, afa_split_dense(&st));
	t = (struct afa_split_tally){};
	count_faults(&t, 24, 2);
	afa_split_count(&t, 8, 8);
	KUNIT_EXPECT_EQ(test, afa_split_judge(&t, true, afa_split_dense(&st)),
			AFA_SPLIT_STAY);
	/* trials alone, below max_order, are not enough either */
	st.have_grow = 0;
	KUNIT_EXPECT_FALSE(test, afa_split_known(&st, LO, HI));
}

/*
 * Convergence: a scan and a sparse probe of one file, both starting in a
 * lane that the scan made dense.  The scan's mapping never leaves; the
 * probe's leaves at its first verdict, within AFA_SPLIT_OUTCOMES faults,
 * and stays in the sparse lane it made.
 */
static void afa_split_scan_and_probe(struct kunit *test)
{
	struct afa_split_tally scan = {}, probe = {};
	unsigned int i, probe_lane = 0, moved_at = 0;
	/* lane 0: the scan's, dense; lane 1: the probe's, once it has evidence */
	bool dense[2] = { true, false }, known[2] = { true, false };

	for (i = 1; i <= 256; i++) {
		/* a scan: every other growth test hits, and every trial */
		afa_split_count(&scan, 1 + !(i % 4), i % 2 + !(i % 4));
		KUNIT_EXPECT_NE(test, afa_split_judge(&scan, known[0], dense[0]),
				AFA_SPLIT_MOVE);
		afa_split_count(&probe, 1 + !(i % 4), 0);
		if (afa_split_judge(&probe, known[probe_lane], dense[probe_lane]) ==
		    AFA_SPLIT_MOVE) {
			probe_lane ^= 1;
			if (!moved_at)
				moved_at = i;
		}
		if (probe_lane)
			known[1] = true;
	}
	KUNIT_EXPECT_EQ(test, probe_lane, 1U);
	KUNIT_EXPECT_GT(test, moved_at, 0U);
	KUNIT_EXPECT_LE(test, moved_at, (unsigned int)AFA_SPLIT_OUTCOMES);
}

static struct kunit_case afa_split_cases[] = {
	KUNIT_CASE(afa_split_needs_evidence),
	KUNIT_CASE(afa_split_direction),
	KUNIT_CASE(afa_split_margins),
	KUNIT_CASE(afa_split_unknown_lane),
	KUNIT_CASE(afa_split_quiet_judged_early),
	KUNIT_CASE(afa_split_verdicts_double),
	KUNIT_CASE(afa_split_count_saturates),
	KUNIT_CASE(afa_split_judged_after_saturation),
	KUNIT_CASE(afa_split_hits_within_outcomes),
	KUNIT_CASE(afa_split_lane_density),
	KUNIT_CASE(afa_split_lane_needs_both),
	KUNIT_CASE(afa_split_scan_and_probe),
	{}
};

static struct kunit_suite afa_split_suite = {
	.name = "autofaultaround_split",
	.test_cases = afa_split_cases,
};

kunit_test_suite(afa_split_suite);

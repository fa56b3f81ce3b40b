// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the window geometry: the window contains the fault,
 * stays in its VMA and page table, is at most 2^order pages, and is the
 * aligned block of 2^order pages when nothing clamps it; the gap a trial
 * leaves out and the buddy page a growth test reads lie between the
 * nested windows of neighbouring orders; afa_window_sane() accepts what
 * do_fault_around() can give and nothing else.
 */
#include <kunit/test.h>
#include "window.h"

#define PTRS	512

/* Name a table row after its first field, as lib/math/tests do. */
#define AFA_ROW_DESC(type)						\
static void type##_to_desc(const struct type *c, char *desc)		\
{									\
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);			\
}

/*
 * Positions used below, as { pgoff, pte_off, vma_off, vma_pages, PTRS }:
 * a fault at PTE 5 of a large VMA that maps the file from page 0 (file
 * page 1000 at PTE 0 of its table); the same fault in a VMA that starts
 * 2 pages before it (at PTE 3), or ends 3 pages after it (at PTE 8); a
 * fault at the last PTE of its table.
 */
#define POS_FREE	{ 1005, 5, 1005, 100000, PTRS }
#define POS_VMA_START	{ 1005, 5, 2, 100, PTRS }
#define POS_VMA_END	{ 1005, 5, 50, 54, PTRS }
#define POS_TABLE_END	{ 2047, 511, 2047, 100000, PTRS }

struct window_case {
	const char *name;
	struct afa_fault_pos pos;
	unsigned int order;
	u64 start, end;
};

static const struct window_case window_cases[] = {
	{ "aligned_block", POS_FREE, 4, 1000, 1015 },
	{ "order_zero_is_the_fault", POS_FREE, 0, 1005, 1005 },
	{ "whole_page_table", POS_FREE, 9, 1000, 1511 },
	{ "order_past_table_capped", POS_FREE, 12, 1000, 1511 },
	{ "order_past_32_capped", POS_FREE, 40, 1000, 1511 },
	/* do_fault_around() keeps 2^order pages from the VMA start on */
	{ "clamped_to_vma_start", POS_VMA_START, 4, 1003, 1018 },
	{ "clamped_to_vma_end", POS_VMA_END, 4, 1000, 1008 },
	{ "clamped_to_page_table", POS_TABLE_END, 4, 2032, 2047 },
	{ "one_page_vma", { 77, 300, 0, 1, PTRS }, 8, 77, 77 },
};

AFA_ROW_DESC(window_case)
KUNIT_ARRAY_PARAM(window, window_cases, window_case_to_desc);

static void afa_window_table(struct kunit *test)
{
	const struct window_case *c = test->param_value;
	u64 start, end;

	afa_window(&c->pos, c->order, &start, &end);
	KUNIT_EXPECT_EQ(test, start, c->start);
	KUNIT_EXPECT_EQ(test, end, c->end);
	KUNIT_EXPECT_TRUE(test, afa_window_sane(&c->pos, start, end));
}

/* A sweep of faults, VMAs and orders, with the VMA placed around them. */
static const u64 sweep_vma_lens[] = { 1, 3, 16, 100, 513, 100000 };

static struct afa_fault_pos sweep_pos(u64 vma_len, unsigned int pte_off)
{
	return (struct afa_fault_pos){
		.pgoff = 4096 + pte_off,
		.pte_off = pte_off,
		.vma_off = min_t(u64, pte_off / 2, vma_len - 1),
		.vma_pages = vma_len,
		.ptrs_per_pte = PTRS,
	};
}

/* Run @check on every position of the sweep, at orders @lo to @hi. */
static void afa_window_sweep(struct kunit *test, unsigned int pte_step,
			     unsigned int lo, unsigned int hi,
			     void (*check)(struct kunit *test,
					   const struct afa_fault_pos *pos,
					   unsigned int order))
{
	unsigned int i, pte_off, order;

	for (i = 0; i < ARRAY_SIZE(sweep_vma_lens); i++)
		for (pte_off = 0; pte_off < PTRS; pte_off += pte_step)
			for (order = lo; order <= hi; order++) {
				struct afa_fault_pos pos =
					sweep_pos(sweep_vma_lens[i], pte_off);

				check(test, &pos, order);
			}
}

/* The invariants of one window. */
static void afa_window_check_one(struct kunit *test,
				 const struct afa_fault_pos *pos,
				 unsigned int order)
{
	u64 start, end, vstart, tstart;

	afa_window(pos, order, &start, &end);
	vstart = pos->pgoff - pos->vma_off;
	tstart = pos->pgoff - pos->pte_off;
	KUNIT_ASSERT_LE(test, start, pos->pgoff);
	KUNIT_ASSERT_GE(test, end, pos->pgoff);
	KUNIT_ASSERT_GE(test, start, vstart);
	KUNIT_ASSERT_LT(test, end, vstart + pos->vma_pages);
	KUNIT_ASSERT_GE(test, start, tstart);
	KUNIT_ASSERT_LT(test, end, tstart + PTRS);
	KUNIT_ASSERT_LE(test, end - start + 1, 1ULL << order);
	KUNIT_ASSERT_TRUE(test, afa_window_sane(pos, start, end));
}

/* Over a sweep of faults, VMAs and orders, every invariant holds. */
static void afa_window_invariants(struct kunit *test)
{
	afa_window_sweep(test, 37, 0, 9, afa_window_check_one);
}

/* A larger order never gives a smaller window. */
static void afa_window_grows_with_order(struct kunit *test)
{
	struct afa_fault_pos pos = { 3000, 184, 700, 100000, PTRS };
	u64 start, end, prev = 0;
	unsigned int order;

	for (order = 0; order <= 9; order++) {
		afa_window(&pos, order, &start, &end);
		KUNIT_EXPECT_GE(test, end - start + 1, prev);
		prev = end - start + 1;
	}
	KUNIT_EXPECT_EQ(test, prev, (u64)PTRS);
}

/* ----- afa_window_gap(): what a trial at one order less leaves out ----- */

struct gap_case {
	const char *name;
	struct afa_fault_pos pos;
	unsigned int order;
	bool ok;
	u64 start, end;
};

static const struct gap_case gap_cases[] = {
	/* [1000, 1015] less [1000, 1007]: the upper half */
	{ "aligned_lower_half", POS_FREE, 4, true, 1008, 1015 },
	/* fault at PTE 13: [1000, 1015] less [1008, 1015]: the lower half */
	{ "aligned_upper_half", { 1013, 13, 1013, 100000, PTRS }, 4, true,
	  1000, 1007 },
	{ "order_1", POS_FREE, 1, true, 1004, 1004 },
	{ "whole_table", POS_FREE, 9, true, 1256, 1511 },
	/* [1003, 1018] less [1003, 1010] */
	{ "clamped_by_vma_start", POS_VMA_START, 4, true, 1011, 1018 },
	/* [1003, 1010] less [1004, 1007]: two parts, no one gap, no trial */
	{ "vma_start_cuts_both_ends", POS_VMA_START, 3, false },
	/* [1000, 1008] less [1000, 1007]: one page is left out */
	{ "clamped_by_vma_end", POS_VMA_END, 4, true, 1008, 1008 },
	/* [2032, 2047] less [2040, 2047] */
	{ "clamped_by_table", POS_TABLE_END, 4, true, 2032, 2039 },
	/* VMA [1003, 1008]: both windows are all of it */
	{ "vma_smaller_than_half", { 1005, 5, 2, 6, PTRS }, 5, false },
	{ "vma_makes_windows_equal", { 1005, 5, 1, 3, PTRS }, 4, false },
	{ "one_page_vma", { 77, 300, 0, 1, PTRS }, 5, false },
	{ "past_the_table_no_change", POS_FREE, 12, false },
	{ "order_0_no_smaller", POS_FREE, 0, false },
};

AFA_ROW_DESC(gap_case)
KUNIT_ARRAY_PARAM(gap, gap_cases, gap_case_to_desc);

static void afa_window_gap_table(struct kunit *test)
{
	const struct gap_case *c = test->param_value;
	u64 start = 0, end = 0;

	KUNIT_ASSERT_EQ(test, afa_window_gap(&c->pos, c->order, &start, &end),
			c->ok);
	if (!c->ok)
		return;
	KUNIT_EXPECT_EQ(test, start, c->start);
	KUNIT_EXPECT_EQ(test, end, c->end);
}

/*
 * Over the sweep: the gap is inside the window of the order, outside
 * the window of one order less and next to it, and the two together are
 * the window.  There is a gap exactly when the two windows share one end
 * and not the other: none where clamping makes them equal, none where
 * the VMA start cuts the smaller at both ends.  The page next to the
 * smaller window that the trial test reads (afa_window_buddy() of one
 * order less) is the gap's page next to it wherever there is a gap.
 */
static void afa_window_check_gap(struct kunit *test,
				 const struct afa_fault_pos *pos,
				 unsigned int order)
{
	u64 start, end, half_start, half_end, gap_start, gap_end, near;
	bool ok = afa_window_gap(pos, order, &gap_start, &gap_end);
	bool same_start, same_end;

	afa_window(pos, order, &start, &end);
	afa_window(pos, order - 1, &half_start, &half_end);
	same_start = start == half_start;
	same_end = end == half_end;
	KUNIT_ASSERT_EQ(test, ok, same_start != same_end);
	if (!ok)
		return;
	KUNIT_ASSERT_LE(test, gap_start, gap_end);
	KUNIT_ASSERT_GE(test, gap_start, start);
	KUNIT_ASSERT_LE(test, gap_end, end);
	KUNIT_ASSERT_TRUE(test, gap_end + 1 == half_start ||
			  gap_start == half_end + 1);
	KUNIT_ASSERT_EQ(test, end - start - (half_end - half_start),
			gap_end - gap_start + 1);
	KUNIT_ASSERT_TRUE(test, afa_window_buddy(pos, order - 1, &near));
	KUNIT_ASSERT_EQ(test, near, same_start ? gap_start : gap_end);
}

static void afa_window_gap_between_orders(struct kunit *test)
{
	afa_window_sweep(test, 13, 1, 10, afa_window_check_gap);
}

/* ----- afa_window_buddy(): the page a growth test reads ----- */

struct buddy_case {
	const char *name;
	struct afa_fault_pos pos;
	unsigned int order;
	bool ok;
	u64 pgoff;
};

static const struct buddy_case buddy_cases[] = {
	/* [1000, 1015] is the lower half of [1000, 1031] */
	{ "aligned_lower_half", POS_FREE, 4, true, 1016 },
	/* fault at PTE 21: [1016, 1031] is the upper half */
	{ "aligned_upper_half", { 1021, 21, 1021, 100000, PTRS }, 4, true,
	  1015 },
	{ "order_0", POS_FREE, 0, true, 1004 },
	{ "half_table", POS_FREE, 8, true, 1256 },
	/* VMA from 1003: [1003, 1018] in [1003, 1034] */
	{ "clamped_by_vma_start", POS_VMA_START, 4, true, 1019 },
	/* fault at PTE 21, VMA from 1019: [1019, 1034] in [1019, 1050] */
	{ "upper_half_clamped_by_vma_start", { 1021, 21, 2, 100, PTRS }, 4,
	  true, 1035 },
	/* [1004, 1007] in [1003, 1010]: the page below comes first */
	{ "vma_start_cuts_both_ends", POS_VMA_START, 2, true, 1003 },
	/* VMA to 1008: [1000, 1008] is all of order 5's window */
	{ "clamped_by_vma_end", POS_VMA_END, 4, false },
	/* [2032, 2047] is the upper half of [2016, 2047] */
	{ "table_end", POS_TABLE_END, 4, true, 2031 },
	{ "whole_table_no_larger", POS_FREE, 9, false },
	{ "past_the_table", POS_FREE, 31, false },
	{ "one_page_vma", { 77, 300, 0, 1, PTRS }, 0, false },
};

AFA_ROW_DESC(buddy_case)
KUNIT_ARRAY_PARAM(buddy, buddy_cases, buddy_case_to_desc);

static void afa_window_buddy_table(struct kunit *test)
{
	const struct buddy_case *c = test->param_value;
	u64 pgoff = 0;

	KUNIT_ASSERT_EQ(test, afa_window_buddy(&c->pos, c->order, &pgoff),
			c->ok);
	if (c->ok)
		KUNIT_EXPECT_EQ(test, pgoff, c->pgoff);
}

/*
 * Over the sweep: the buddy page is inside the window of one order more
 * and outside the window of the order, right next to it; there is none
 * exactly when clamping makes the two windows equal.
 */
static void afa_window_check_buddy(struct kunit *test,
				   const struct afa_fault_pos *pos,
				   unsigned int order)
{
	u64 start, end, big_start, big_end, buddy;
	bool ok = afa_window_buddy(pos, order, &buddy);

	afa_window(pos, order, &start, &end);
	afa_window(pos, order + 1, &big_start, &big_end);
	KUNIT_ASSERT_EQ(test, ok, start != big_start || end != big_end);
	if (!ok)
		return;
	KUNIT_ASSERT_GE(test, buddy, big_start);
	KUNIT_ASSERT_LE(test, buddy, big_end);
	KUNIT_ASSERT_TRUE(test, buddy + 1 == start || buddy == end + 1);
}

static void afa_window_buddy_between_orders(struct kunit *test)
{
	afa_window_sweep(test, 13, 0, 10, afa_window_check_buddy);
}

/* ----- afa_windows(): the three windows of a call, computed once ----- */

/*
 * Over the sweep: what the probe asks of the windows computed once (the
 * growth test's buddy, the trial test's half, the trial's gap, the
 * window applied) is what the per-order functions answer.
 */
static void afa_windows_check_one(struct kunit *test,
				  const struct afa_fault_pos *pos,
				  unsigned int order)
{
	u64 start, end, a, b, c, d;
	struct afa_windows w;
	bool ok;

	afa_windows(pos, order, 0, 2, &w);
	afa_window(pos, order, &start, &end);
	KUNIT_ASSERT_EQ(test, w.start[1], start);
	KUNIT_ASSERT_EQ(test, w.end[1], end);
	afa_window(pos, order ? order - 1 : 0, &start, &end);
	KUNIT_ASSERT_EQ(test, w.start[0], start);
	KUNIT_ASSERT_EQ(test, w.end[0], end);

	ok = afa_window_buddy(pos, order, &a);
	KUNIT_ASSERT_EQ(test, afa_windows_buddy(&w, 1, &b), ok);
	if (ok)
		KUNIT_ASSERT_EQ(test, a, b);
	ok = order && afa_window_buddy(pos, order - 1, &a);
	KUNIT_ASSERT_EQ(test, afa_windows_buddy(&w, 0, &b), ok);
	if (ok)
		KUNIT_ASSERT_EQ(test, a, b);
	ok = afa_window_gap(pos, order, &a, &b);
	KUNIT_ASSERT_EQ(test, afa_windows_gap(&w, &c, &d), ok);
	if (ok) {
		KUNIT_ASSERT_EQ(test, a, c);
		KUNIT_ASSERT_EQ(test, b, d);
	}
}

static void afa_windows_once_as_per_order(struct kunit *test)
{
	afa_window_sweep(test, 13, 0, 10, afa_windows_check_one);
}

/* ----- afa_window_sane() ----- */

struct sane_case {
	const char *name;
	struct afa_fault_pos pos;
	u64 start, end;
	bool sane;
};

/* POS_FREE: VMA from file page 0, table [1000, 1511]. */
static const struct sane_case sane_cases[] = {
	{ "aligned_block", POS_FREE, 1000, 1015, true },
	{ "just_the_fault", POS_FREE, 1005, 1005, true },
	{ "whole_table", POS_FREE, 1000, 1511, true },
	{ "unaligned_inside", POS_FREE, 1001, 1300, true },
	{ "misses_fault_below", POS_FREE, 1006, 1010, false },
	{ "misses_fault_above", POS_FREE, 1000, 1004, false },
	{ "inverted", POS_FREE, 1010, 1000, false },
	{ "before_the_table", POS_FREE, 999, 1010, false },
	{ "past_the_table", POS_FREE, 1000, 1512, false },
	{ "before_the_vma", POS_VMA_START, 1002, 1010, false },
	{ "vma_start_exactly", POS_VMA_START, 1003, 1010, true },
	{ "past_the_vma", POS_VMA_END, 1000, 1009, false },
	{ "vma_end_exactly", POS_VMA_END, 1000, 1008, true },
	{ "table_end_exactly", POS_TABLE_END, 2032, 2047, true },
	{ "into_the_next_table", POS_TABLE_END, 2032, 2048, false },
};

AFA_ROW_DESC(sane_case)
KUNIT_ARRAY_PARAM(sane, sane_cases, sane_case_to_desc);

static void afa_window_sane_table(struct kunit *test)
{
	const struct sane_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, afa_window_sane(&c->pos, c->start, c->end),
			c->sane);
}

static struct kunit_case afa_window_cases[] = {
	KUNIT_CASE_PARAM(afa_window_table, window_gen_params),
	KUNIT_CASE(afa_window_invariants),
	KUNIT_CASE(afa_window_grows_with_order),
	KUNIT_CASE_PARAM(afa_window_gap_table, gap_gen_params),
	KUNIT_CASE(afa_window_gap_between_orders),
	KUNIT_CASE_PARAM(afa_window_buddy_table, buddy_gen_params),
	KUNIT_CASE(afa_window_buddy_between_orders),
	KUNIT_CASE(afa_windows_once_as_per_order),
	KUNIT_CASE_PARAM(afa_window_sane_table, sane_gen_params),
	{}
};

static struct kunit_suite afa_window_suite = {
	.name = "autofaultaround_window",
	.test_cases = afa_window_cases,
};

kunit_test_suite(afa_window_suite);

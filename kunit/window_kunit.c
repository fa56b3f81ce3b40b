// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the window geometry: the window contains the fault,
 * stays in its VMA and page table, is at most 2^order pages, and is the
 * aligned block of 2^order pages when nothing clamps it.
 */
#include <kunit/test.h>
#include "window.h"

#define PTRS	512

struct window_case {
	const char *name;
	struct afa_fault_pos pos;
	unsigned int order;
	u64 start, end;
};

static const struct window_case window_cases[] = {
	/* fault at PTE 5 of a large VMA starting at file page 1000 */
	{ "aligned_block", { 1005, 5, 5000, 100000, PTRS }, 4, 1000, 1015 },
	{ "order_zero_is_the_fault", { 1005, 5, 5000, 100000, PTRS }, 0, 1005, 1005 },
	{ "whole_page_table", { 1005, 5, 5000, 100000, PTRS }, 9, 1000, 1511 },
	{ "order_past_table_capped", { 1005, 5, 5000, 100000, PTRS }, 12, 1000, 1511 },
	/* VMA starts 2 pages before the fault: window starts at the VMA */
	{ "clamped_to_vma_start", { 1005, 5, 2, 100, PTRS }, 4, 1003, 1018 },
	/* VMA ends 3 pages after the fault */
	{ "clamped_to_vma_end", { 1005, 5, 50, 54, PTRS }, 4, 1000, 1008 },
	/* fault at the last PTE: window must not cross into the next table */
	{ "clamped_to_page_table", { 2047, 511, 5000, 100000, PTRS }, 4, 2032, 2047 },
	{ "one_page_vma", { 77, 300, 0, 1, PTRS }, 8, 77, 77 },
};

static void window_case_to_desc(const struct window_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(window, window_cases, window_case_to_desc);

static void afa_window_table(struct kunit *test)
{
	const struct window_case *c = test->param_value;
	u64 start, end;

	afa_window(&c->pos, c->order, &start, &end);
	KUNIT_EXPECT_EQ(test, start, c->start);
	KUNIT_EXPECT_EQ(test, end, c->end);
}

/* The invariants of one window. */
static void afa_window_check_one(struct kunit *test, u64 vma_len,
				 unsigned int pte_off, unsigned int order)
{
	struct afa_fault_pos pos = {
		.pgoff = 4096 + pte_off,
		.pte_off = pte_off,
		.vma_off = min_t(u64, pte_off / 2, vma_len - 1),
		.vma_pages = vma_len,
		.ptrs_per_pte = PTRS,
	};
	u64 start, end, vstart, tstart;

	afa_window(&pos, order, &start, &end);
	vstart = pos.pgoff - pos.vma_off;
	tstart = pos.pgoff - pte_off;
	KUNIT_ASSERT_LE(test, start, pos.pgoff);
	KUNIT_ASSERT_GE(test, end, pos.pgoff);
	KUNIT_ASSERT_GE(test, start, vstart);
	KUNIT_ASSERT_LT(test, end, vstart + vma_len);
	KUNIT_ASSERT_GE(test, start, tstart);
	KUNIT_ASSERT_LT(test, end, tstart + PTRS);
	KUNIT_ASSERT_LE(test, end - start + 1, 1ULL << order);
}

/* Over a sweep of faults, VMAs and orders, every invariant holds. */
static void afa_window_invariants(struct kunit *test)
{
	static const u64 vma_lens[] = { 1, 3, 16, 100, 513, 100000 };
	unsigned int i, pte_off, order;

	for (i = 0; i < ARRAY_SIZE(vma_lens); i++)
		for (pte_off = 0; pte_off < PTRS; pte_off += 37)
			for (order = 0; order <= 9; order++)
				afa_window_check_one(test, vma_lens[i],
						     pte_off, order);
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

static struct kunit_case afa_window_cases[] = {
	KUNIT_CASE_PARAM(afa_window_table, window_gen_params),
	KUNIT_CASE(afa_window_invariants),
	KUNIT_CASE(afa_window_grows_with_order),
	{}
};

static struct kunit_suite afa_window_suite = {
	.name = "autofaultaround_window",
	.test_cases = afa_window_cases,
};

kunit_test_suite(afa_window_suite);

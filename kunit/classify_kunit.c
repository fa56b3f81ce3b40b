// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the VMA classifier: synthetic VMA flags in, the class
 * out, including the precedence between overlapping traits.
 */
#include <kunit/test.h>
#include <linux/mm.h>
#include "classify.h"

struct classify_case {
	const char *name;
	unsigned long vm_flags;
	bool is_shmem;
	enum afa_class want;
};

#define R	(VM_READ | VM_MAYREAD)
static const struct classify_case classify_cases[] = {
	{ "binary_text", R | VM_EXEC, false, AFA_CLASS_EXEC },
	{ "library_text_maywrite", R | VM_EXEC | VM_MAYWRITE, false, AFA_CLASS_EXEC },
	{ "rodata", R, false, AFA_CLASS_RODATA },
	{ "private_data", R | VM_WRITE, false, AFA_CLASS_PRIVATE },
	{ "shared_ro", R | VM_MAYSHARE, false, AFA_CLASS_SHARED },
	{ "shared_rw", R | VM_WRITE | VM_SHARED | VM_MAYSHARE, false, AFA_CLASS_SHARED },
	{ "shmem_shared", R | VM_SHARED | VM_MAYSHARE, true, AFA_CLASS_SHMEM },
	{ "shmem_private", R, true, AFA_CLASS_SHMEM },
	{ "madv_random", R | VM_RAND_READ, false, AFA_CLASS_RAND },
	{ "madv_sequential", R | VM_SEQ_READ, false, AFA_CLASS_SEQ },
	{ "random_beats_exec", R | VM_EXEC | VM_RAND_READ, false, AFA_CLASS_RAND },
	{ "sequential_beats_shmem", R | VM_SEQ_READ, true, AFA_CLASS_SEQ },
	{ "sequential_beats_shared", R | VM_MAYSHARE | VM_SEQ_READ, false, AFA_CLASS_SEQ },
	{ "random_beats_sequential", R | VM_SEQ_READ | VM_RAND_READ, false, AFA_CLASS_RAND },
	{ "exec_on_tmpfs", R | VM_EXEC, true, AFA_CLASS_EXEC },
	{ "no_flags_at_all", 0, false, AFA_CLASS_RODATA },
};

#undef R

static void classify_case_to_desc(const struct classify_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(classify, classify_cases, classify_case_to_desc);

static void afa_classify_table(struct kunit *test)
{
	const struct classify_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, afa_classify(c->vm_flags, c->is_shmem), c->want);
}

/* Flags that do not describe the access pattern change nothing. */
static void afa_classify_ignores_unrelated_flags(struct kunit *test)
{
	unsigned long noise = VM_LOCKED | VM_DONTCOPY | VM_DONTDUMP |
			      VM_ACCOUNT | VM_HUGEPAGE | VM_MIXEDMAP;
	unsigned long base[] = { VM_READ, VM_READ | VM_EXEC,
				 VM_READ | VM_MAYSHARE, VM_READ | VM_WRITE };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(base); i++) {
		KUNIT_EXPECT_EQ(test, afa_classify(base[i] | noise, false),
				afa_classify(base[i], false));
		KUNIT_EXPECT_EQ(test, afa_classify(base[i] | noise, true),
				afa_classify(base[i], true));
	}
}

/* Every class has a distinct printable name; bad values say so. */
static void afa_class_names_distinct(struct kunit *test)
{
	unsigned int i, j;

	for (i = 0; i < AFA_NR_CLASSES; i++) {
		KUNIT_EXPECT_STRNEQ(test, afa_class_name(i), "invalid");
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, afa_class_name(i),
					    afa_class_name(j));
	}
	KUNIT_EXPECT_STREQ(test, afa_class_name(AFA_NR_CLASSES), "invalid");
	KUNIT_EXPECT_STREQ(test, afa_class_name(UINT_MAX), "invalid");
}

static struct kunit_case afa_classify_cases[] = {
	KUNIT_CASE_PARAM(afa_classify_table, classify_gen_params),
	KUNIT_CASE(afa_classify_ignores_unrelated_flags),
	KUNIT_CASE(afa_class_names_distinct),
	{}
};

static struct kunit_suite afa_classify_suite = {
	.name = "autofaultaround_classify",
	.test_cases = afa_classify_cases,
};

kunit_test_suite(afa_classify_suite);

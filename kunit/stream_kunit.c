// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for a stream's published word (stream.h): its order, flags
 * and generation read back as written, and a generation read earlier
 * names the slot's file only if the slot was not taken since: never
 * after a takeover, however many (its generation come round included),
 * and always, without one, while fewer than a period of table
 * generations less one passed (a fold publishes before it bumps).
 */
#include <kunit/test.h>
#include "stream.h"

static const u32 afa_pub_flags[] = {
	AFA_PUB_SPLIT, AFA_PUB_KNOWN, AFA_PUB_DENSE,
	AFA_PUB_RARE_TRIALS, AFA_PUB_SETTLED,
};

/* The flags of subset @mask of afa_pub_flags[]. */
static u32 flags_of(unsigned int mask)
{
	u32 flags = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(afa_pub_flags); i++)
		if (mask & BIT(i))
			flags |= afa_pub_flags[i];
	return flags;
}

/* Every order with every set of flags, at generations round the period. */
static void afa_pub_reads_back(struct kunit *test)
{
	static const u32 gens[] = {
		0, 1, AFA_PUB_GEN_PERIOD - 1, AFA_PUB_GEN_PERIOD, U32_MAX,
	};
	unsigned int g, mask;
	u32 pub, flags;
	u8 order;

	for (g = 0; g < ARRAY_SIZE(gens); g++)
		for (mask = 0; mask < BIT(ARRAY_SIZE(afa_pub_flags)); mask++)
			for (order = 0; order <= AFA_ORDER_MAX; order++) {
				flags = flags_of(mask);
				pub = afa_pub_make(gens[g], flags, order);
				KUNIT_EXPECT_EQ(test, afa_pub_order(pub), order);
				KUNIT_EXPECT_EQ(test, afa_pub_gen(pub),
						gens[g] % AFA_PUB_GEN_PERIOD);
				KUNIT_EXPECT_EQ(test, afa_pub_split(pub),
						!!(flags & AFA_PUB_SPLIT));
				KUNIT_EXPECT_EQ(test, afa_pub_known(pub),
						!!(flags & AFA_PUB_KNOWN));
				KUNIT_EXPECT_EQ(test, afa_pub_dense(pub),
						!!(flags & AFA_PUB_DENSE));
				KUNIT_EXPECT_EQ(test, afa_pub_rare_trials(pub),
						!!(flags & AFA_PUB_RARE_TRIALS));
				KUNIT_EXPECT_EQ(test, afa_pub_settled(pub),
						!!(flags & AFA_PUB_SETTLED));
			}
}

/*
 * A record made at table generation @then of a slot at generation @gen0,
 * read after @taken takeovers of the slot and @passed table generations,
 * with its order and flags changed meanwhile.  A slot is taken at most
 * once a table generation, and a fold publishes its takeovers before it
 * bumps the table generation: @passed >= @taken - 1.
 */
static bool record_current(unsigned long then, u32 gen0, u32 taken,
			   unsigned long passed)
{
	u32 old = afa_pub_make(gen0, 0, 4);
	u32 pub = afa_pub_make(gen0 + taken, AFA_PUB_SETTLED, 7);

	return afa_pub_gen_current(pub, afa_pub_gen(old), then + passed, then);
}

/* record_current() against its model for one record, every takeover. */
static void check_record(struct kunit *test, unsigned long then, u32 gen0)
{
	static const u32 takens[] = {
		0, 1, 2, AFA_PUB_GEN_PERIOD - 1, AFA_PUB_GEN_PERIOD,
		AFA_PUB_GEN_PERIOD + 1, 2 * AFA_PUB_GEN_PERIOD,
	};
	/* table generations passed beyond @taken - 1 */
	static const unsigned long mores[] = {
		0, 1, 2, AFA_PUB_GEN_PERIOD - 2, AFA_PUB_GEN_PERIOD - 1,
		AFA_PUB_GEN_PERIOD, 3 * AFA_PUB_GEN_PERIOD,
	};
	unsigned long passed;
	unsigned int t, m;
	bool ok;

	for (t = 0; t < ARRAY_SIZE(takens); t++)
		for (m = 0; m < ARRAY_SIZE(mores); m++) {
			if (!takens[t] && !mores[m])
				continue;	/* -1 table generations */
			passed = takens[t] - 1 + mores[m];
			ok = record_current(then, gen0, takens[t], passed);
			KUNIT_EXPECT_EQ_MSG(test, ok,
					    !takens[t] && passed < AFA_PUB_GEN_PERIOD - 1,
					    "then %lu gen %u taken %u passed %lu",
					    then, gen0, takens[t], passed);
		}
}

/*
 * Never current after a takeover, its generation come round (a multiple
 * of AFA_PUB_GEN_PERIOD takeovers) included, and while the fold that
 * took it has not yet bumped the table generation; always current
 * without one while fewer than AFA_PUB_GEN_PERIOD - 1 table generations
 * passed, never after (the record cannot tell then); the table's
 * generation wrapping round changes nothing.
 */
static void afa_pub_gen_current_iff_not_taken(struct kunit *test)
{
	static const unsigned long thens[] = { 0, 12345, ULONG_MAX - 3 };
	static const u32 gen0s[] = { 0, 1, AFA_PUB_GEN_PERIOD - 1, U32_MAX };
	unsigned int i, g;

	for (i = 0; i < ARRAY_SIZE(thens); i++)
		for (g = 0; g < ARRAY_SIZE(gen0s); g++)
			check_record(test, thens[i], gen0s[g]);
}

static struct kunit_case afa_stream_cases[] = {
	KUNIT_CASE(afa_pub_reads_back),
	KUNIT_CASE(afa_pub_gen_current_iff_not_taken),
	{}
};

static struct kunit_suite afa_stream_suite = {
	.name = "autofaultaround_stream",
	.test_cases = afa_stream_cases,
};

kunit_test_suite(afa_stream_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the choice of the CPU that runs the period work, on
 * made-up topologies of 16 CPUs (UML has one): POWER9 SMT8 big cores
 * made of two SMT4 small cores, SMT2 numbered both ways, no SMT, with
 * CPUs offline, isolated, busy, just online.  Named rows check each
 * rule; sweeps of random figures, from a fixed seed, check properties.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/smp.h>
#include "topology.h"
#include "topology_pick.h"

#define NR		16		/* CPUs of the made-up machines */
#define WALL_US		200000		/* one period of the default 200 ms */
#define NO		AFA_PICK_NO_CPU
#define SWEEP_TRIALS	4000U

/* Name a table row after its first field, as lib/math/tests do. */
#define AFA_ROW_DESC(type)						\
static void type##_to_desc(const struct type *c, char *desc)		\
{									\
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);			\
}

enum topo_kind {
	TOPO_NO_SMT,		/* each CPU its own core */
	TOPO_SMT2,		/* cores {0, 1}, {2, 3}, ... */
	TOPO_SMT2_SPLIT,	/* cores {0, 8}, {1, 9}, ... as x86 numbers */
	TOPO_SMT8_SMALL,	/* POWER9 small cores {0, 2, 4, 6}, {1, 3, 5, 7} */
	TOPO_SMT8_BIG,		/* the same machine seen as SMT8 big cores */
	TOPO_NR_KINDS
};

static bool same_core(enum topo_kind kind, unsigned int a, unsigned int b)
{
	switch (kind) {
	case TOPO_NO_SMT:
		return a == b;
	case TOPO_SMT2:
		return a / 2 == b / 2;
	case TOPO_SMT2_SPLIT:
		return a % 8 == b % 8;
	case TOPO_SMT8_SMALL:
		return a / 8 == b / 8 && a % 2 == b % 2;
	default:
		return a / 8 == b / 8;
	}
}

/* A made-up machine: its masks, its figures, and a scratch core mask. */
struct machine {
	enum topo_kind kind;
	DECLARE_BITMAP(online, NR);
	DECLARE_BITMAP(allowed, NR);
	DECLARE_BITMAP(core, NR);
	struct afa_cpu_idle idle[NR];
	struct afa_pick_topo topo;
};

static const unsigned long *test_core_mask(unsigned int cpu, void *priv)
{
	struct machine *m = priv;
	unsigned int thr;

	bitmap_zero(m->core, NR);
	for (thr = 0; thr < NR; thr++)
		if (same_core(m->kind, cpu, thr))
			__set_bit(thr, m->core);
	return m->core;
}

static void machine_init(struct machine *m, enum topo_kind kind,
			 u32 offline, u32 isolated)
{
	unsigned int cpu;

	memset(m, 0, sizeof(*m));
	m->kind = kind;
	for (cpu = 0; cpu < NR; cpu++) {
		if (!(offline & BIT(cpu)))
			__set_bit(cpu, m->online);
		if (!(isolated & BIT(cpu)))
			__set_bit(cpu, m->allowed);
	}
	m->topo = (struct afa_pick_topo){
		.nr_cpus = NR,
		.online = m->online,
		.allowed = m->allowed,
		.core_mask = test_core_mask,
		.priv = m,
	};
}

/*
 * One CPU's figures from one character: '0'..'9' busy that many percent
 * (idle), 'E' busy exactly 1/8 (idle), 'b' busy 1/8 and 1 us (not idle),
 * 'B' busy all along, '-' just online (no wall time).
 */
static struct afa_cpu_idle load_fig(char c)
{
	u64 busy_us = WALL_US;

	if (c == '-')
		return (struct afa_cpu_idle){ 0, 0 };
	if (c >= '0' && c <= '9')
		busy_us = WALL_US / 100 * (c - '0');
	else if (c == 'E')
		busy_us = WALL_US / 8;
	else if (c == 'b')
		busy_us = WALL_US / 8 + 1;
	return (struct afa_cpu_idle){ WALL_US - busy_us, WALL_US };
}

/* Figures of CPUs 0..15 from a string, spaces ignored. */
static void machine_load(struct machine *m, const char *load)
{
	unsigned int cpu = 0;

	for (; *load && cpu < NR; load++)
		if (*load != ' ')
			m->idle[cpu++] = load_fig(*load);
}

/* ----- the idle test and the busy fraction ----- */

struct idle_case {
	const char *name;
	u64 idle_us, wall_us;
	bool want;
};

static const struct idle_case idle_cases[] = {
	{ "exactly_7_8", 7000, 8000, true },
	{ "just_under_7_8", 6999, 8000, false },
	{ "all_idle", 8000, 8000, true },
	{ "all_busy", 0, 8000, false },
	{ "wall_zero", 0, 0, false },
	{ "wall_zero_idle_counted", 5, 0, false },
	{ "idle_past_wall_is_idle", 8001, 8000, true },
	{ "one_us_idle", 1, 1, true },
	{ "one_us_busy", 0, 1, false },
	{ "six_of_seven", 6, 7, false },
	{ "seven_of_eight_us", 7, 8, true },
	{ "u64_max_all_idle", U64_MAX, U64_MAX, true },
	{ "u64_max_at_7_8", U64_MAX - U64_MAX / 8, U64_MAX, true },
	{ "u64_max_under_7_8", U64_MAX - U64_MAX / 8 - 1, U64_MAX, false },
	{ "u64_max_idle_no_wall", U64_MAX, 0, false },
};

AFA_ROW_DESC(idle_case)
KUNIT_ARRAY_PARAM(idle, idle_cases, idle_case_to_desc);

static void afa_pick_cpu_idle_table(struct kunit *test)
{
	const struct idle_case *c = test->param_value;
	struct afa_cpu_idle f = { c->idle_us, c->wall_us };

	KUNIT_EXPECT_EQ(test, afa_pick_cpu_idle(&f), c->want);
}

struct busy_case {
	const char *name;
	u64 idle_us, wall_us;
	u32 want;
};

static const struct busy_case busy_cases[] = {
	{ "idle", 8000, 8000, 0 },
	{ "busy", 0, 8000, AFA_PICK_UNIT },
	{ "one_eighth", 7000, 8000, AFA_PICK_UNIT / 8 },
	{ "half", 4000, 8000, AFA_PICK_UNIT / 2 },
	{ "no_wall", 0, 0, AFA_PICK_UNIT },
	{ "idle_past_wall", 9000, 8000, 0 },
	{ "u64_max_busy", 0, U64_MAX, AFA_PICK_UNIT },
	{ "u64_half_busy", U64_MAX / 2 + 1, U64_MAX, AFA_PICK_UNIT / 2 - 1 },
	{ "u64_max_idle", U64_MAX, U64_MAX, 0 },
};

AFA_ROW_DESC(busy_case)
KUNIT_ARRAY_PARAM(busy, busy_cases, busy_case_to_desc);

static void afa_pick_busy_table(struct kunit *test)
{
	const struct busy_case *c = test->param_value;
	struct afa_cpu_idle f = { c->idle_us, c->wall_us };

	KUNIT_EXPECT_EQ(test, afa_pick_busy(&f), c->want);
}

/* More idle time never means busier, at any scale of the wall time. */
static void afa_pick_busy_monotonic(struct kunit *test)
{
	static const u64 walls[] = { 1, 7, 1000, WALL_US, 1ULL << 33,
				     U64_MAX / 3, U64_MAX };
	unsigned int i, k;
	u32 prev, got;

	for (i = 0; i < ARRAY_SIZE(walls); i++) {
		prev = AFA_PICK_UNIT;
		for (k = 0; k <= 64; k++) {
			struct afa_cpu_idle f = {
				div64_u64(walls[i], 64) * k, walls[i]
			};

			got = afa_pick_busy(&f);
			KUNIT_ASSERT_LE(test, got, prev);
			prev = got;
		}
	}
}

/* ----- named topologies ----- */

struct pick_case {
	const char *name;
	enum topo_kind kind;
	const char *load;	/* CPUs 0..15, see load_fig() */
	u32 offline;		/* CPUs not online */
	u32 isolated;		/* CPUs not housekeeping */
	unsigned int prev, local;
	unsigned int want;
	enum afa_pick_reason why;
};

#define CORE	AFA_PICK_IDLE_CORE
#define THREAD	AFA_PICK_IDLE_CPU
#define PREV	AFA_PICK_PREVIOUS
#define LOCAL	AFA_PICK_FALLBACK_LOCAL
#define ALLOWED	AFA_PICK_FALLBACK_ALLOWED

static const struct pick_case pick_cases[] = {
	{ "no_smt_least_busy", TOPO_NO_SMT, "BBBB3BB1 BBBBBBBB",
	  0, 0, NO, 0, 7, CORE },
	{ "no_smt_tie_lowest", TOPO_NO_SMT, "BB22BBBB BBBBBB22",
	  0, 0, NO, 0, 2, CORE },
	{ "smt2_whole_core_beats_idler_half", TOPO_SMT2, "0B55BBBB BBBBBBBB",
	  0, 0, NO, 0, 2, CORE },
	{ "smt2_half_idle_idlest_cpu", TOPO_SMT2, "3BB1BBBB BBBBBBBB",
	  0, 0, NO, 0, 3, THREAD },
	{ "smt2_half_idle_tie_lowest", TOPO_SMT2, "BB1B1BBB BBBBBBBB",
	  0, 0, NO, 0, 2, THREAD },
	{ "smt2_split_numbering", TOPO_SMT2_SPLIT, "02BBBBBB B2BBBBBB",
	  0, 0, NO, 0, 1, CORE },
	{ "smt8_idle_small_core", TOPO_SMT8_SMALL, "B1B1B1B1 0BBBBBBB",
	  0, 0, NO, 0, 1, CORE },
	{ "smt8_big_mask_sees_no_core", TOPO_SMT8_BIG, "B1B1B1B1 0BBBBBBB",
	  0, 0, NO, 0, 8, THREAD },
	{ "smt8_least_busy_small_core", TOPO_SMT8_SMALL, "B3B3B3B3 1B1B1B1B",
	  0, 0, NO, 0, 8, CORE },
	{ "smt8_small_core_partly_offline", TOPO_SMT8_SMALL,
	  "BBBBB0B0 BBBBBBBB", BIT(1) | BIT(3), 0, NO, 0, 5, CORE },
	{ "isolated_idle_core_skipped", TOPO_SMT2, "BB0011BB BBBBBBBB",
	  0, BIT(2) | BIT(3), NO, 0, 4, CORE },
	{ "isolated_busy_sibling_spoils_core", TOPO_SMT2, "0BBB11BB BBBBBBBB",
	  0, BIT(1), NO, 0, 4, CORE },
	{ "isolated_idle_sibling_keeps_core", TOPO_SMT2, "00BBBBBB BBBBBBBB",
	  0, BIT(0), NO, 0, 1, CORE },
	{ "only_isolated_cpus_idle", TOPO_SMT2, "00000000 BBBBBBBB",
	  0, 0xff, NO, 12, 12, LOCAL },
	{ "offline_idle_core_skipped", TOPO_SMT2, "BB0011BB BBBBBBBB",
	  BIT(2) | BIT(3), 0, NO, 0, 4, CORE },
	{ "offline_busy_sibling_ignored", TOPO_SMT2, "0BBBBBBB BBBBBBBB",
	  BIT(1), 0, NO, 0, 0, CORE },
	{ "only_offline_cpus_idle", TOPO_NO_SMT, "0000BBBB BBBBBBBB",
	  0xf, 0, NO, 9, 9, LOCAL },
	{ "all_busy_fallback_local", TOPO_SMT2, "BBBBBBBB BBBBBBBB",
	  0, 0, NO, 5, 5, LOCAL },
	{ "all_busy_local_isolated_previous", TOPO_SMT2, "BBBBBBBB BBBBBBBB",
	  0, BIT(5), 3, 5, 3, ALLOWED },
	{ "all_busy_local_isolated_lowest", TOPO_SMT2, "BBBBBBBB BBBBBBBB",
	  0, BIT(0) | BIT(5), NO, 5, 1, ALLOWED },
	{ "all_busy_local_offline_previous_isolated", TOPO_SMT2,
	  "BBBBBBBB BBBBBBBB", BIT(5), BIT(0) | BIT(3), 3, 5, 1, ALLOWED },
	{ "idle_only_where_isolated_local_too", TOPO_SMT2, "00BBBBBB BBBBBBBB",
	  0, BIT(0) | BIT(1) | BIT(4), NO, 4, 2, ALLOWED },
	{ "over_threshold_is_busy", TOPO_NO_SMT, "bbbbbbbb bbbbbbbb",
	  0, 0, 2, 3, 3, LOCAL },
	{ "at_threshold_is_idle", TOPO_NO_SMT, "bbbbbbbb bbbEbbbb",
	  0, 0, NO, 3, 11, CORE },
	{ "just_online_not_idle", TOPO_NO_SMT, "-------- --------",
	  0, 0, NO, 0, 0, LOCAL },
	{ "previous_kept_in_idle_core", TOPO_SMT2, "BB5500BB BBBBBBBB",
	  0, 0, 3, 0, 3, PREV },
	{ "previous_half_idle_loses_to_core", TOPO_SMT2, "0B55BBBB BBBBBBBB",
	  0, 0, 0, 0, 2, CORE },
	{ "previous_kept_without_core", TOPO_SMT2, "5BB0BBBB BBBBBBBB",
	  0, 0, 0, 0, 0, PREV },
	{ "previous_busy_moves", TOPO_SMT2, "bBB3BBBB BBBBBBBB",
	  0, 0, 0, 0, 3, THREAD },
	{ "previous_offline_moves", TOPO_SMT2, "00BB55BB BBBBBBBB",
	  BIT(0) | BIT(1), 0, 0, 0, 4, CORE },
	{ "previous_isolated_moves", TOPO_SMT2, "00BB55BB BBBBBBBB",
	  0, BIT(0) | BIT(1), 1, 0, 4, CORE },
	{ "previous_out_of_range", TOPO_SMT2, "BB55BBBB BBBBBBBB",
	  0, 0, 99, 0, 2, CORE },
	{ "previous_small_core_kept", TOPO_SMT8_SMALL, "B5B5B5B5 0B0B0B0B",
	  0, 0, 7, 0, 7, PREV },
};

AFA_ROW_DESC(pick_case)
KUNIT_ARRAY_PARAM(pick, pick_cases, pick_case_to_desc);

static void afa_pick_cpu_table(struct kunit *test)
{
	const struct pick_case *c = test->param_value;
	struct machine *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	enum afa_pick_reason why = AFA_PICK_NR_REASONS;
	unsigned int cpu;

	KUNIT_ASSERT_NOT_NULL(test, m);
	machine_init(m, c->kind, c->offline, c->isolated);
	machine_load(m, c->load);
	cpu = afa_pick_cpu(&m->topo, m->idle, c->prev, c->local, &why);
	KUNIT_EXPECT_EQ(test, cpu, c->want);
	KUNIT_EXPECT_STREQ(test, afa_pick_reason_name(why),
			   afa_pick_reason_name(c->why));
}

/* ----- properties over random machines ----- */

static u32 next_rand(u32 *seed)
{
	*seed = *seed * 1664525 + 1013904223;
	return *seed >> 8;
}

/*
 * A random machine: some CPUs offline or isolated; each trial draws how
 * many CPUs are idle (none, a quarter, half, three quarters), so that
 * every rule gets its turn.
 */
static void machine_random(struct machine *m, u32 *seed)
{
	static const char idle_levels[] = "0123456789E";
	static const char busy_levels[] = "bB-";
	enum topo_kind kind = next_rand(seed) % TOPO_NR_KINDS;
	u32 offline = 0, isolated = 0, idle_in_4 = next_rand(seed) % 4;
	unsigned int cpu;

	for (cpu = 0; cpu < NR; cpu++) {
		if (next_rand(seed) % 8 == 0)
			offline |= BIT(cpu);
		if (next_rand(seed) % 8 == 0)
			isolated |= BIT(cpu);
	}
	machine_init(m, kind, offline, isolated);
	for (cpu = 0; cpu < NR; cpu++) {
		if (next_rand(seed) % 4 < idle_in_4)
			m->idle[cpu] = load_fig(idle_levels[next_rand(seed) %
						(ARRAY_SIZE(idle_levels) - 1)]);
		else
			m->idle[cpu] = load_fig(busy_levels[next_rand(seed) %
						(ARRAY_SIZE(busy_levels) - 1)]);
	}
}

static bool is_candidate(const struct machine *m, unsigned int cpu)
{
	return cpu < NR && test_bit(cpu, m->online) &&
	       test_bit(cpu, m->allowed);
}

static bool cpu_idle(const struct machine *m, unsigned int cpu)
{
	return afa_pick_cpu_idle(&m->idle[cpu]);
}

/* Reference: every online thread of @cpu's core is idle. */
static bool core_idle(const struct machine *m, unsigned int cpu)
{
	unsigned int thr;

	for (thr = 0; thr < NR; thr++)
		if (same_core(m->kind, cpu, thr) && test_bit(thr, m->online) &&
		    !cpu_idle(m, thr))
			return false;
	return true;
}

static u64 core_busy(const struct machine *m, unsigned int cpu)
{
	unsigned int thr;
	u64 sum = 0;

	for (thr = 0; thr < NR; thr++)
		if (same_core(m->kind, cpu, thr) && test_bit(thr, m->online))
			sum += afa_pick_busy(&m->idle[thr]);
	return sum;
}

static bool any_idle(const struct machine *m, bool whole_core)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NR; cpu++)
		if (is_candidate(m, cpu) && cpu_idle(m, cpu) &&
		    (!whole_core || core_idle(m, cpu)))
			return true;
	return false;
}

/* One pick on a random machine, with a random previous and local CPU. */
struct trial {
	struct machine m;
	unsigned int prev, local, cpu;
	enum afa_pick_reason why;
};

static void trial_run(struct trial *t, u32 *seed)
{
	machine_random(&t->m, seed);
	t->prev = next_rand(seed) % (NR + 2);
	if (t->prev >= NR)
		t->prev = t->prev == NR ? NO : NR + 5;
	t->local = next_rand(seed) % NR;
	t->cpu = afa_pick_cpu(&t->m.topo, t->m.idle, t->prev, t->local,
			      &t->why);
}

/* Run @check on SWEEP_TRIALS random picks; count the reasons seen. */
static void sweep(struct kunit *test,
		  void (*check)(struct kunit *test, const struct trial *t),
		  unsigned int seen[AFA_PICK_NR_REASONS])
{
	struct trial *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	u32 seed = 20241129;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < SWEEP_TRIALS; i++) {
		trial_run(t, &seed);
		KUNIT_ASSERT_LT(test, (u32)t->why, (u32)AFA_PICK_NR_REASONS);
		seen[t->why]++;
		check(test, t);
	}
}

static bool any_candidate(const struct machine *m)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NR; cpu++)
		if (is_candidate(m, cpu))
			return true;
	return false;
}

static void check_candidate(struct kunit *test, const struct trial *t)
{
	if (any_candidate(&t->m)) {
		KUNIT_ASSERT_TRUE(test, is_candidate(&t->m, t->cpu));
		return;
	}
	KUNIT_ASSERT_EQ(test, t->cpu, t->local);
	KUNIT_ASSERT_EQ(test, t->why, AFA_PICK_FALLBACK_LOCAL);
}

/*
 * Only an online housekeeping CPU is returned, also when nothing is idle
 * and the local CPU is isolated or offline; the local one only if the
 * machine has no such CPU at all.
 */
static void afa_pick_never_offline_or_isolated(struct kunit *test)
{
	unsigned int seen[AFA_PICK_NR_REASONS] = {};
	unsigned int r;

	sweep(test, check_candidate, seen);
	/* The sweep reaches every rule, so the check was put to use. */
	for (r = 0; r < AFA_PICK_NR_REASONS; r++)
		KUNIT_EXPECT_GT(test, seen[r], SWEEP_TRIALS / 100);
}

/* The lowest candidate, or NR. */
static unsigned int lowest_candidate(const struct machine *m)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NR && !is_candidate(m, cpu); cpu++)
		;
	return cpu;
}

static void check_fallback(struct kunit *test, const struct trial *t)
{
	bool fallback = t->why == AFA_PICK_FALLBACK_LOCAL ||
			t->why == AFA_PICK_FALLBACK_ALLOWED;

	KUNIT_ASSERT_EQ(test, fallback, !any_idle(&t->m, false));
	if (!fallback) {
		KUNIT_ASSERT_TRUE(test, cpu_idle(&t->m, t->cpu));
		return;
	}
	/* local where it may run the work, else prev, else the lowest */
	KUNIT_ASSERT_EQ(test, t->why == AFA_PICK_FALLBACK_LOCAL,
			is_candidate(&t->m, t->local) || !any_candidate(&t->m));
	if (t->why == AFA_PICK_FALLBACK_LOCAL)
		KUNIT_ASSERT_EQ(test, t->cpu, t->local);
	else if (is_candidate(&t->m, t->prev))
		KUNIT_ASSERT_EQ(test, t->cpu, t->prev);
	else
		KUNIT_ASSERT_EQ(test, t->cpu, lowest_candidate(&t->m));
}

/*
 * A fallback comes exactly when no allowed CPU is idle: the local CPU
 * if it is allowed, else the previous one, else the lowest allowed.
 */
static void afa_pick_fallback_only_when_nothing_idle(struct kunit *test)
{
	unsigned int seen[AFA_PICK_NR_REASONS] = {};

	sweep(test, check_fallback, seen);
	KUNIT_EXPECT_GT(test, seen[AFA_PICK_FALLBACK_LOCAL], 0U);
	KUNIT_EXPECT_GT(test, seen[AFA_PICK_FALLBACK_ALLOWED], 0U);
}

static void check_core_first(struct kunit *test, const struct trial *t)
{
	const struct machine *m = &t->m;
	unsigned int cpu;

	if (!any_idle(m, true)) {
		KUNIT_ASSERT_NE(test, t->why, AFA_PICK_IDLE_CORE);
		return;
	}
	KUNIT_ASSERT_TRUE(test, t->why == AFA_PICK_IDLE_CORE ||
			  t->why == AFA_PICK_PREVIOUS);
	KUNIT_ASSERT_TRUE(test, core_idle(m, t->cpu));
	if (t->why != AFA_PICK_IDLE_CORE)
		return;
	/* The least busy idle core, then the lowest CPU. */
	for (cpu = 0; cpu < NR; cpu++) {
		if (!is_candidate(m, cpu) || !cpu_idle(m, cpu) ||
		    !core_idle(m, cpu))
			continue;
		KUNIT_ASSERT_GE(test, core_busy(m, cpu), core_busy(m, t->cpu));
		if (core_busy(m, cpu) == core_busy(m, t->cpu))
			KUNIT_ASSERT_GE(test, cpu, t->cpu);
	}
}

/* A wholly idle core wins over a half-idle one, the least busy first. */
static void afa_pick_prefers_whole_idle_core(struct kunit *test)
{
	unsigned int seen[AFA_PICK_NR_REASONS] = {};

	sweep(test, check_core_first, seen);
	KUNIT_EXPECT_GT(test, seen[AFA_PICK_IDLE_CORE], 0U);
}

static void check_idlest_cpu(struct kunit *test, const struct trial *t)
{
	const struct machine *m = &t->m;
	u32 busy = afa_pick_busy(&m->idle[t->cpu]);
	unsigned int cpu;

	if (t->why != AFA_PICK_IDLE_CPU)
		return;
	for (cpu = 0; cpu < NR; cpu++) {
		if (!is_candidate(m, cpu) || !cpu_idle(m, cpu))
			continue;
		KUNIT_ASSERT_GE(test, afa_pick_busy(&m->idle[cpu]), busy);
		if (afa_pick_busy(&m->idle[cpu]) == busy)
			KUNIT_ASSERT_GE(test, cpu, t->cpu);
	}
}

/* Without an idle core: the least busy idle CPU, then the lowest. */
static void afa_pick_idlest_cpu(struct kunit *test)
{
	unsigned int seen[AFA_PICK_NR_REASONS] = {};

	sweep(test, check_idlest_cpu, seen);
	KUNIT_EXPECT_GT(test, seen[AFA_PICK_IDLE_CPU], 0U);
}

/* Keep the previous CPU whenever it is as good a kind as the best. */
static void check_previous(struct kunit *test, const struct trial *t)
{
	const struct machine *m = &t->m;
	bool prev_idle = is_candidate(m, t->prev) && cpu_idle(m, t->prev);

	if (prev_idle && (core_idle(m, t->prev) || !any_idle(m, true)))
		KUNIT_ASSERT_EQ(test, t->why, AFA_PICK_PREVIOUS);
	if (t->why == AFA_PICK_PREVIOUS)
		KUNIT_ASSERT_EQ(test, t->cpu, t->prev);
}

static void afa_pick_keeps_previous(struct kunit *test)
{
	unsigned int seen[AFA_PICK_NR_REASONS] = {};

	sweep(test, check_previous, seen);
	KUNIT_EXPECT_GT(test, seen[AFA_PICK_PREVIOUS], 0U);
}

/*
 * Stability: pick again with the pick as the previous CPU and the rest
 * of the machine re-rolled, keeping the picked core's figures: a pick in
 * an idle core stays, period after period.
 */
static void afa_pick_stable_across_periods(struct kunit *test)
{
	struct trial *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	enum afa_pick_reason why;
	unsigned int i, cpu, stayed = 0;
	u32 seed = 7;

	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < SWEEP_TRIALS; i++) {
		trial_run(t, &seed);
		if (t->why == AFA_PICK_FALLBACK_LOCAL ||
		    t->why == AFA_PICK_FALLBACK_ALLOWED ||
		    !core_idle(&t->m, t->cpu))
			continue;
		for (cpu = 0; cpu < NR; cpu++)
			if (!same_core(t->m.kind, cpu, t->cpu))
				t->m.idle[cpu] = load_fig("0123456789bB"
							  [next_rand(&seed) % 12]);
		KUNIT_ASSERT_EQ(test, afa_pick_cpu(&t->m.topo, t->m.idle,
						   t->cpu, t->local, &why),
				t->cpu);
		KUNIT_ASSERT_EQ(test, why, AFA_PICK_PREVIOUS);
		stayed++;
	}
	KUNIT_EXPECT_GT(test, stayed, SWEEP_TRIALS / 10);
}

/* ----- reasons, small cores, the real machine ----- */

/* The names the afa_work_cpu event prints, each once. */
static void afa_pick_reason_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, afa_pick_reason_name(AFA_PICK_IDLE_CORE),
			   "idle_core");
	KUNIT_EXPECT_STREQ(test, afa_pick_reason_name(AFA_PICK_IDLE_CPU),
			   "idle_cpu");
	KUNIT_EXPECT_STREQ(test, afa_pick_reason_name(AFA_PICK_PREVIOUS),
			   "previous");
	KUNIT_EXPECT_STREQ(test, afa_pick_reason_name(AFA_PICK_FALLBACK_LOCAL),
			   "fallback_local");
	KUNIT_EXPECT_STREQ(test, afa_pick_reason_name(AFA_PICK_FALLBACK_ALLOWED),
			   "fallback_allowed");
	KUNIT_EXPECT_STREQ(test, afa_pick_reason_name(AFA_PICK_NR_REASONS),
			   "unknown");
	KUNIT_EXPECT_STREQ(test, afa_pick_reason_name(-1), "unknown");
}

/*
 * Splitting an SMT8 big core gives the POWER9 small cores, also with
 * threads offline (gone from the big core's mask).
 */
static void afa_pick_small_core_split(struct kunit *test)
{
	DECLARE_BITMAP(big, NR);
	DECLARE_BITMAP(small, NR);
	unsigned int gone, cpu, thr;

	for (gone = 0; gone <= NR; gone += 5) {
		for (cpu = 0; cpu < NR; cpu++) {
			bitmap_zero(big, NR);
			for (thr = 0; thr < NR; thr++)
				if (same_core(TOPO_SMT8_BIG, cpu, thr) &&
				    (thr == cpu || thr != gone))
					__set_bit(thr, big);
			bitmap_fill(small, NR);
			afa_pick_small_core(small, big, cpu, NR);
			for (thr = 0; thr < NR; thr++)
				KUNIT_ASSERT_EQ(test, test_bit(thr, small),
						test_bit(thr, big) &&
						same_core(TOPO_SMT8_SMALL,
							  cpu, thr));
		}
	}
}

/*
 * Core types from capacities: the largest is big, and so is anything
 * within 1/8 of it (Intel hybrid P cores short of the favoured ones'
 * turbo); E cores and LITTLE cores are little; a system without
 * capacities (all 0) or without asymmetry is all big.
 */
static void afa_core_type_margin(struct kunit *test)
{
	static const struct {
		unsigned long cap, max;
		enum afa_core_type want;
	} rows[] = {
		{ 1024, 1024, AFA_CORE_BIG },
		{ 983, 1024, AFA_CORE_BIG },	/* P core, TBM3 elsewhere */
		{ 896, 1024, AFA_CORE_BIG },
		{ 895, 1024, AFA_CORE_LITTLE },
		{ 650, 1024, AFA_CORE_LITTLE },	/* E core */
		{ 446, 1024, AFA_CORE_LITTLE },	/* Cortex-A55 beside an X1 */
		{ 0, 0, AFA_CORE_BIG },
		{ 1, 1, AFA_CORE_BIG },
	};
	unsigned long cap, max = 1024;
	enum afa_core_type t, last = AFA_CORE_LITTLE;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		KUNIT_EXPECT_EQ_MSG(test, afa_core_type(rows[i].cap, rows[i].max),
				    rows[i].want, "capacity %lu of %lu",
				    rows[i].cap, rows[i].max);
	/* monotone: from little to big once, as the capacity grows */
	for (cap = 0; cap <= max; cap++) {
		t = afa_core_type(cap, max);
		KUNIT_EXPECT_TRUE(test, t == last || t == AFA_CORE_BIG);
		last = t;
	}
	KUNIT_EXPECT_EQ(test, last, AFA_CORE_BIG);
}

/* The wrapper on this kernel's own topology, whatever its size. */
static void afa_pick_work_cpu_real(struct kunit *test)
{
	struct afa_cpu_idle *idle;
	unsigned int local = raw_smp_processor_id(), cpu, i;
	enum afa_pick_reason why;

	idle = kunit_kcalloc(test, nr_cpu_ids, sizeof(*idle), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, idle);
	for (i = 0; i < nr_cpu_ids; i++)
		idle[i] = load_fig('0');
	cpu = afa_pick_work_cpu(cpu_online_mask, cpu_online_mask, idle, NO,
				local, &why);
	KUNIT_EXPECT_EQ(test, why, AFA_PICK_IDLE_CORE);
	KUNIT_EXPECT_TRUE(test, cpu_online(cpu));

	for (i = 0; i < nr_cpu_ids; i++)
		idle[i] = load_fig('B');
	cpu = afa_pick_work_cpu(cpu_online_mask, cpu_online_mask, idle, NO,
				local, &why);
	KUNIT_EXPECT_EQ(test, why, AFA_PICK_FALLBACK_LOCAL);
	KUNIT_EXPECT_EQ(test, cpu, local);
}

static struct kunit_case afa_topology_cases[] = {
	KUNIT_CASE(afa_core_type_margin),
	KUNIT_CASE_PARAM(afa_pick_cpu_idle_table, idle_gen_params),
	KUNIT_CASE_PARAM(afa_pick_busy_table, busy_gen_params),
	KUNIT_CASE(afa_pick_busy_monotonic),
	KUNIT_CASE_PARAM(afa_pick_cpu_table, pick_gen_params),
	KUNIT_CASE(afa_pick_never_offline_or_isolated),
	KUNIT_CASE(afa_pick_fallback_only_when_nothing_idle),
	KUNIT_CASE(afa_pick_prefers_whole_idle_core),
	KUNIT_CASE(afa_pick_idlest_cpu),
	KUNIT_CASE(afa_pick_keeps_previous),
	KUNIT_CASE(afa_pick_stable_across_periods),
	KUNIT_CASE(afa_pick_reason_names),
	KUNIT_CASE(afa_pick_small_core_split),
	KUNIT_CASE(afa_pick_work_cpu_real),
	{}
};

static struct kunit_suite afa_topology_suite = {
	.name = "autofaultaround_topology",
	.test_cases = afa_topology_cases,
};

kunit_test_suite(afa_topology_suite);

// SPDX-License-Identifier: GPL-2.0
/*
 * Where the period work runs: on an idle CPU, so that the controller
 * takes no time from a task, preferably in a core that is idle as a
 * whole, so that it shares no pipeline with one either.
 *
 * Per CPU c, over the last period (the caller measures both):
 *
 *	idle_c = get_cpu_idle_time_us() delta, wall_c = time elapsed
 *	busy_c = wall_c - min(idle_c, wall_c)
 *	c idle	<=>  wall_c > 0 and busy_c <= wall_c / 8
 *		<=>  idle_c / wall_c >= 7/8	(AFA_PICK_BUSY_SHIFT)
 *
 * The core of c is core_mask(c): the small core on POWER big-core
 * systems (firmware shows two SMT4 small cores as one SMT8 core, whose
 * halves do not share a pipeline), the SMT siblings elsewhere, c alone
 * without SMT.  A core is idle when each of its online threads is idle,
 * allowed to run the work or not: an isolated sibling's task is just
 * what isolation protects, and select_idle_core() too looks at the
 * whole core.  Candidates are the CPUs both online and allowed
 * (housekeeping); no other CPU is ever returned, unless there is none.
 *
 * The first rule that applies picks:
 *
 *	1. previous	 prev is a candidate in an idle core
 *	2. idle_core	 the idle core with the least busy time summed
 *			 over its online threads: its lowest candidate
 *	3. previous	 prev is an idle candidate
 *	4. idle_cpu	 the idle candidate with the least busy time
 *	5. fallback_local nothing is idle: local_cpu, if a candidate
 *	6. fallback_allowed nothing is idle and local_cpu is isolated or
 *			 offline: prev if a candidate, else the lowest
 *			 candidate (a fold kicked on an isolated CPU,
 *			 whose next one would otherwise stay there)
 *
 * Ties go to the lowest CPU number, so the pick is deterministic.  The
 * previous CPU is kept whenever it is as good a kind of choice as the
 * best (1 before 2, 3 before 4): moving costs a cold cache, and noise in
 * the busy times would otherwise move the work every period.
 *
 * The idle test is exact, in microseconds, without a product: no u64
 * input can overflow it.  Busy fractions, which only rank, are fixed
 * point in AFA_PICK_UNIT.  Nothing here reads the real topology but
 * afa_pick_work_cpu(), the cpumask wrapper the module calls.
 */
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include "topology_pick.h"

/* A wall time is brought under 2^32 us so a fraction of it fits a u64. */
#define AFA_PICK_WALL_BITS	32

static u64 afa_busy_us(const struct afa_cpu_idle *f)
{
	return f->wall_us - min(f->idle_us, f->wall_us);
}

/**
 * afa_pick_cpu_idle() - was a CPU idle over the period
 * @f:	its idle figures
 *
 * Idle time past the wall time (a rounding of both to microseconds, or
 * the idle counter seen going back, see get_cpu_idle_time_us()) counts
 * as the wall time: the CPU was idle all along.
 *
 * Return: true if @f->idle_us / @f->wall_us >= 7/8; false if the wall
 * time is 0.
 */
bool afa_pick_cpu_idle(const struct afa_cpu_idle *f)
{
	return f->wall_us &&
	       afa_busy_us(f) <= f->wall_us >> AFA_PICK_BUSY_SHIFT;
}

/**
 * afa_pick_busy() - the busy fraction of a CPU over the period
 * @f:	its idle figures
 *
 * Return: busy_us / wall_us in AFA_PICK_UNIT, rounded down; all of it
 * (AFA_PICK_UNIT) if the wall time is 0.
 */
u32 afa_pick_busy(const struct afa_cpu_idle *f)
{
	u64 busy_us = afa_busy_us(f), wall_us = f->wall_us;
	u32 shift = 0;

	if (!wall_us)
		return AFA_PICK_UNIT;
	/* busy <= wall < 2^32 after the shift: busy << 16 is < 2^48. */
	if (fls64(wall_us) > AFA_PICK_WALL_BITS)
		shift = fls64(wall_us) - AFA_PICK_WALL_BITS;
	busy_us >>= shift;
	wall_us >>= shift;
	return div_u64(busy_us << AFA_PICK_SCALE, (u32)wall_us);
}

static bool afa_pick_candidate(const struct afa_pick_topo *t, unsigned int cpu)
{
	return cpu < t->nr_cpus && test_bit(cpu, t->online) &&
	       test_bit(cpu, t->allowed);
}

/*
 * Is the core of candidate @cpu idle?  If so, give its busy fractions
 * summed over its online threads in @busy and its lowest candidate
 * thread in @first.  @cpu counts even if core_mask() left it out.
 */
static bool afa_core_idle(const struct afa_pick_topo *t,
			  const struct afa_cpu_idle *idle, unsigned int cpu,
			  u64 *busy, unsigned int *first)
{
	const unsigned long *core = t->core_mask(cpu, t->priv);
	unsigned int thr;

	if (!afa_pick_cpu_idle(&idle[cpu]))
		return false;
	*busy = afa_pick_busy(&idle[cpu]);
	*first = cpu;
	for_each_set_bit(thr, core, t->nr_cpus) {
		if (thr == cpu || !test_bit(thr, t->online))
			continue;
		if (!afa_pick_cpu_idle(&idle[thr]))
			return false;
		*busy += afa_pick_busy(&idle[thr]);
		if (thr < *first && test_bit(thr, t->allowed))
			*first = thr;
	}
	return true;
}

/* Rule 2: the first candidate of the least busy idle core, or nr_cpus. */
static unsigned int afa_pick_idle_core(const struct afa_pick_topo *t,
				       const struct afa_cpu_idle *idle)
{
	unsigned int cpu, first, best = t->nr_cpus;
	u64 busy, best_busy = U64_MAX;

	for_each_set_bit(cpu, t->online, t->nr_cpus) {
		if (!test_bit(cpu, t->allowed))
			continue;
		/* Each core once: from its lowest candidate. */
		if (!afa_core_idle(t, idle, cpu, &busy, &first) || first != cpu)
			continue;
		if (busy < best_busy) {
			best = cpu;
			best_busy = busy;
		}
	}
	return best;
}

/* Rule 4: the least busy idle candidate, or nr_cpus. */
static unsigned int afa_pick_idle_thread(const struct afa_pick_topo *t,
					 const struct afa_cpu_idle *idle)
{
	unsigned int cpu, best = t->nr_cpus;
	u32 busy, best_busy = U32_MAX;

	for_each_set_bit(cpu, t->online, t->nr_cpus) {
		if (!test_bit(cpu, t->allowed) || !afa_pick_cpu_idle(&idle[cpu]))
			continue;
		busy = afa_pick_busy(&idle[cpu]);
		if (busy < best_busy) {
			best = cpu;
			best_busy = busy;
		}
	}
	return best;
}

static unsigned int afa_picked(unsigned int cpu, enum afa_pick_reason why,
			       enum afa_pick_reason *reason)
{
	*reason = why;
	return cpu;
}

/*
 * Rules 5 and 6, nothing idle: @local_cpu where it may run the work,
 * else @prev_cpu (a candidate, or AFA_PICK_NO_CPU), else the lowest
 * candidate; @local_cpu if there is none.
 */
static unsigned int afa_pick_fallback(const struct afa_pick_topo *t,
				      unsigned int prev_cpu,
				      unsigned int local_cpu,
				      enum afa_pick_reason *reason)
{
	unsigned int cpu;

	if (afa_pick_candidate(t, local_cpu))
		return afa_picked(local_cpu, AFA_PICK_FALLBACK_LOCAL, reason);
	if (prev_cpu != AFA_PICK_NO_CPU)
		return afa_picked(prev_cpu, AFA_PICK_FALLBACK_ALLOWED, reason);
	for_each_set_bit(cpu, t->online, t->nr_cpus)
		if (test_bit(cpu, t->allowed))
			return afa_picked(cpu, AFA_PICK_FALLBACK_ALLOWED,
					  reason);
	return afa_picked(local_cpu, AFA_PICK_FALLBACK_LOCAL, reason);
}

/**
 * afa_pick_cpu() - choose the CPU for the next run of the period work
 * @topo:	CPUs online and allowed, and the core of each
 * @idle:	idle figures of the last period, @topo->nr_cpus entries
 *		indexed by CPU; needed for every online CPU, allowed or not
 * @prev_cpu:	the CPU the work last ran on, AFA_PICK_NO_CPU for none
 * @local_cpu:	the CPU to fall back to
 * @reason:	set to why the CPU was chosen
 *
 * Applies the rules at the head of this file.  Pure: no locks, no
 * allocation, nothing read but the arguments and what @topo->core_mask
 * returns.
 *
 * Return: an online and allowed CPU of @topo; @local_cpu, unchecked,
 * only if @topo has none.
 */
unsigned int afa_pick_cpu(const struct afa_pick_topo *topo,
			  const struct afa_cpu_idle *idle,
			  unsigned int prev_cpu, unsigned int local_cpu,
			  enum afa_pick_reason *reason)
{
	bool prev_ok = afa_pick_candidate(topo, prev_cpu);
	unsigned int cpu, first;
	u64 busy;

	if (prev_ok && afa_core_idle(topo, idle, prev_cpu, &busy, &first))
		return afa_picked(prev_cpu, AFA_PICK_PREVIOUS, reason);
	cpu = afa_pick_idle_core(topo, idle);
	if (cpu < topo->nr_cpus)
		return afa_picked(cpu, AFA_PICK_IDLE_CORE, reason);
	if (prev_ok && afa_pick_cpu_idle(&idle[prev_cpu]))
		return afa_picked(prev_cpu, AFA_PICK_PREVIOUS, reason);
	cpu = afa_pick_idle_thread(topo, idle);
	if (cpu < topo->nr_cpus)
		return afa_picked(cpu, AFA_PICK_IDLE_CPU, reason);
	return afa_pick_fallback(topo, prev_ok ? prev_cpu : AFA_PICK_NO_CPU,
				 local_cpu, reason);
}

/**
 * afa_pick_reason_name() - short name of a reason, as the trace prints it
 * @reason:	a reason from afa_pick_cpu()
 *
 * Return: a static string; "unknown" for a value out of range.
 */
const char *afa_pick_reason_name(enum afa_pick_reason reason)
{
	static const char * const names[AFA_PICK_NR_REASONS] = {
		[AFA_PICK_IDLE_CORE] = "idle_core",
		[AFA_PICK_IDLE_CPU] = "idle_cpu",
		[AFA_PICK_PREVIOUS] = "previous",
		[AFA_PICK_FALLBACK_LOCAL] = "fallback_local",
		[AFA_PICK_FALLBACK_ALLOWED] = "fallback_allowed",
	};

	if ((u32)reason >= AFA_PICK_NR_REASONS)
		return "unknown";
	return names[reason];
}

/**
 * afa_pick_small_core() - the small core of a CPU, from its big core
 * @small:	filled with the small core of @cpu, @nr_cpus bits
 * @big:	the big core of @cpu, @nr_cpus bits
 * @cpu:	the CPU
 * @nr_cpus:	bits in @small and @big
 *
 * cpu_smallcore_mask() has this, but its per-CPU map is not exported to
 * modules.  POWER9 firmware interleaves the two SMT4 small cores of an
 * SMT8 big core, threads {0, 2, 4, 6} and {1, 3, 5, 7} (the example of
 * "ibm,thread-groups" at parse_thread_groups(), arch/powerpc/kernel/
 * smp.c), and big cores start at a multiple of threads_per_core: the
 * small core is the threads of the big core with @cpu's parity.
 */
void afa_pick_small_core(unsigned long *small, const unsigned long *big,
			 unsigned int cpu, unsigned int nr_cpus)
{
	unsigned int thr;

	bitmap_zero(small, nr_cpus);
	for_each_set_bit(thr, big, nr_cpus)
		if (!((thr ^ cpu) & 1))
			__set_bit(thr, small);
}

/* The core of @cpu on this machine; @priv is a scratch cpumask or NULL. */
static const unsigned long *afa_real_core_mask(unsigned int cpu, void *priv)
{
	const struct cpumask *core = topology_sibling_cpumask(cpu);

#ifdef CONFIG_PPC
	/* Here the sibling mask is the big core; no scratch: stay with it. */
	if (has_big_cores && priv) {
		afa_pick_small_core(cpumask_bits((struct cpumask *)priv),
				    cpumask_bits(core), cpu, nr_cpu_ids);
		return cpumask_bits((struct cpumask *)priv);
	}
#endif
	return cpumask_bits(core);
}

/**
 * afa_pick_work_cpu() - afa_pick_cpu() on this machine's topology
 * @online:	CPUs online (stable: hold cpus_read_lock() or accept that
 *		the work may be queued on a CPU going down)
 * @allowed:	housekeeping CPUs for HK_TYPE_DOMAIN and HK_TYPE_WQ
 * @idle:	idle figures, nr_cpu_ids entries indexed by CPU
 * @prev_cpu:	the CPU the work last ran on, AFA_PICK_NO_CPU for none
 * @local_cpu:	the CPU to fall back to
 * @reason:	set to why the CPU was chosen
 *
 * Cores are topology_sibling_cpumask(), split in small cores on POWER
 * big-core systems.  May sleep there, to allocate a scratch cpumask.
 *
 * Return: as afa_pick_cpu().
 */
unsigned int afa_pick_work_cpu(const struct cpumask *online,
			       const struct cpumask *allowed,
			       const struct afa_cpu_idle *idle,
			       unsigned int prev_cpu, unsigned int local_cpu,
			       enum afa_pick_reason *reason)
{
	struct afa_pick_topo topo = {
		.nr_cpus = nr_cpu_ids,
		.online = cpumask_bits(online),
		.allowed = cpumask_bits(allowed),
		.core_mask = afa_real_core_mask,
	};
	cpumask_var_t scratch;
	bool have_scratch = false;
	unsigned int cpu;

	if (IS_ENABLED(CONFIG_PPC))
		have_scratch = alloc_cpumask_var(&scratch, GFP_KERNEL);
	if (have_scratch)
		topo.priv = scratch;
	cpu = afa_pick_cpu(&topo, idle, prev_cpu, local_cpu, reason);
	if (have_scratch)
		free_cpumask_var(scratch);
	return cpu;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Choice of the CPU that runs the period work: an idle CPU, preferably
 * in a wholly idle core.  The choice is a pure function of CPU bitmaps
 * and idle figures, so that KUnit can run it on made-up topologies of
 * any size (UML has NR_CPUS=1).  The rules head topology_pick.c.
 */
#ifndef _AFA_TOPOLOGY_PICK_H
#define _AFA_TOPOLOGY_PICK_H

#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/types.h>

struct cpumask;

/*
 * A CPU is idle over a period when it was busy at most 1/2^3 = 1/8 of
 * it, that is idle_us / wall_us >= 7/8.  A CPU that idle had no task
 * waiting most of the time, so the work delays nobody; the 1/8 of slack
 * still counts as idle a CPU that takes ticks and interrupts, or that
 * ran this very work last period (well under 1/8 of the default 200 ms
 * period), so the previous CPU is not lost to the work's own cost.
 */
#define AFA_PICK_BUSY_SHIFT	3

/*
 * Busy fractions, used only to rank idle CPUs and cores, are fixed point
 * in AFA_PICK_UNIT (all of the period).  2^16 resolves 15 us in a 1 s
 * period; a fraction times nr_cpu_ids threads still fits a u64.
 */
#define AFA_PICK_SCALE		16
#define AFA_PICK_UNIT		BIT(AFA_PICK_SCALE)

/* prev_cpu when the work has not run yet: no CPU to keep. */
#define AFA_PICK_NO_CPU		UINT_MAX

/**
 * struct afa_cpu_idle - what one CPU did over the last period
 * @idle_us:	idle time, the get_cpu_idle_time_us() delta
 * @wall_us:	time elapsed over the same period; 0 when unknown (the CPU
 *		just came online, or NOHZ is off and idle time is not kept)
 */
struct afa_cpu_idle {
	u64 idle_us;
	u64 wall_us;
};

/**
 * struct afa_pick_topo - the CPUs the work may run on, and their cores
 * @nr_cpus:	bits in every bitmap, entries in the idle figures
 * @online:	CPUs online
 * @allowed:	CPUs that may run the work (housekeeping: not isolated,
 *		not nohz_full)
 * @core_mask:	the CPUs that share the core of @cpu, @cpu included, as a
 *		bitmap of @nr_cpus bits: the small core on POWER big-core
 *		systems, the SMT siblings elsewhere.  Read only until the
 *		next call, so one scratch bitmap can serve all calls.
 * @priv:	passed to @core_mask
 */
struct afa_pick_topo {
	unsigned int nr_cpus;
	const unsigned long *online;
	const unsigned long *allowed;
	const unsigned long *(*core_mask)(unsigned int cpu, void *priv);
	void *priv;
};

/**
 * enum afa_pick_reason - why afa_pick_cpu() chose its CPU
 * @AFA_PICK_IDLE_CORE:		first thread of the least busy idle core
 * @AFA_PICK_IDLE_CPU:		no idle core: the least busy idle CPU
 * @AFA_PICK_PREVIOUS:		the previous CPU, still as idle as the best
 * @AFA_PICK_FALLBACK_LOCAL:	no allowed CPU is idle: the local CPU
 * @AFA_PICK_FALLBACK_ALLOWED:	no allowed CPU is idle and the local CPU
 *				is not allowed (isolated) or offline: the
 *				previous CPU, else the lowest candidate
 * @AFA_PICK_NR_REASONS:	number of reasons
 */
enum afa_pick_reason {
	AFA_PICK_IDLE_CORE,
	AFA_PICK_IDLE_CPU,
	AFA_PICK_PREVIOUS,
	AFA_PICK_FALLBACK_LOCAL,
	AFA_PICK_FALLBACK_ALLOWED,
	AFA_PICK_NR_REASONS
};

bool afa_pick_cpu_idle(const struct afa_cpu_idle *f);
u32 afa_pick_busy(const struct afa_cpu_idle *f);
unsigned int afa_pick_cpu(const struct afa_pick_topo *topo,
			  const struct afa_cpu_idle *idle,
			  unsigned int prev_cpu, unsigned int local_cpu,
			  enum afa_pick_reason *reason);
const char *afa_pick_reason_name(enum afa_pick_reason reason);
void afa_pick_small_core(unsigned long *small, const unsigned long *big,
			 unsigned int cpu, unsigned int nr_cpus);

unsigned int afa_pick_work_cpu(const struct cpumask *online,
			       const struct cpumask *allowed,
			       const struct afa_cpu_idle *idle,
			       unsigned int prev_cpu, unsigned int local_cpu,
			       enum afa_pick_reason *reason);

#endif /* _AFA_TOPOLOGY_PICK_H */

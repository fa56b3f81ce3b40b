// SPDX-License-Identifier: GPL-2.0
/*
 * Topology plumbing: the domain of each CPU (NUMA node and core type),
 * and the CPU the period worker runs on next.
 *
 * Core type comes from the CPU's capacity: CPUs below 7/8 of the largest
 * capacity of the system are "little" (hybrid E cores, big.LITTLE).
 *
 * The worker moves to an idle CPU, chosen by topology_pick.c from idle
 * time deltas (get_cpu_idle_time_us()), the online mask and the
 * housekeeping CPUs (isolcpus, nohz_full are never chosen), preferring a
 * whole idle core (on POWER big cores, a whole idle small core).  With no
 * idle CPU it stays where it is, if that is a housekeeping CPU (a fold
 * kicked by a fault runs where the fault was, isolated or not).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/kernel_stat.h>	/* get_cpu_idle_time_us() from 7.2 */
#include <linux/mutex.h>
#include <linux/sched/isolation.h>
#include <linux/sched/topology.h>
#include <linux/slab.h>
#include <linux/tick.h>
#include <linux/topology.h>
#include "afa.h"
#include "topology.h"
#include "topology_pick.h"
#include "trace.h"

DEFINE_PER_CPU(u16, afa_cpu_domain);
unsigned int afa_nr_domains;

/* Idle time and its clock at the last pick, per CPU; worker only. */
static struct afa_cpu_idle *afa_idle_seen;
static struct afa_cpu_idle *afa_idle_delta;
static unsigned int afa_work_prev = AFA_PICK_NO_CPU;
/* The housekeeping CPUs, the pick's scratch: under afa_work_cpu_lock. */
static cpumask_var_t afa_work_allowed;
static DEFINE_MUTEX(afa_work_cpu_lock);

static const char * const afa_core_names[AFA_NR_CORE_TYPES] = {
	[AFA_CORE_BIG]		= "big",
	[AFA_CORE_LITTLE]	= "little",
};

/** afa_core_name() - "big" or "little" */
const char *afa_core_name(unsigned int core)
{
	return core < AFA_NR_CORE_TYPES ? afa_core_names[core] : "invalid";
}

/**
 * afa_domain_online() - does any online CPU belong to @domain
 * @domain:	0 .. afa_nr_domains - 1
 *
 * Return: true if so; stats show only such domains.
 */
bool afa_domain_online(unsigned int domain)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (per_cpu(afa_cpu_domain, cpu) == domain)
			return true;
	return false;
}

/**
 * afa_topology_refresh() - recompute the domain of every CPU
 *
 * Capacities can change when CPUs come and go; called at load and by the
 * period worker.  A CPU changing domain keeps its counters, which then
 * count in the new domain from the next fold on.
 */
void afa_topology_refresh(void)
{
	unsigned long cap, max_cap = 0;
	unsigned int core;
	int cpu, node;

	for_each_possible_cpu(cpu)
		max_cap = max(max_cap, arch_scale_cpu_capacity(cpu));
	for_each_possible_cpu(cpu) {
		cap = arch_scale_cpu_capacity(cpu);
		core = afa_core_type(cap, max_cap);
		node = cpu_to_node(cpu);
		/* A possible CPU not yet present may have no node (ppc64 DLPAR). */
		if (node < 0 || node >= nr_node_ids)
			node = 0;
		WRITE_ONCE(per_cpu(afa_cpu_domain, cpu),
			   node * AFA_NR_CORE_TYPES + core);
	}
}

/* Idle and wall time of every online CPU since the last call. */
static void afa_idle_deltas(void)
{
	struct afa_cpu_idle now;
	u64 idle;
	int cpu;

	memset(afa_idle_delta, 0, nr_cpu_ids * sizeof(*afa_idle_delta));
	for_each_online_cpu(cpu) {
		idle = get_cpu_idle_time_us(cpu, &now.wall_us);
		if (idle == (u64)-1)
			continue;	/* no NOHZ: no figure, not idle */
		now.idle_us = idle;
		/* both grow, unless the CPU's figures restarted (hotplug) */
		if (afa_idle_seen[cpu].wall_us &&
		    now.wall_us > afa_idle_seen[cpu].wall_us &&
		    now.idle_us >= afa_idle_seen[cpu].idle_us) {
			afa_idle_delta[cpu].wall_us =
				now.wall_us - afa_idle_seen[cpu].wall_us;
			afa_idle_delta[cpu].idle_us =
				now.idle_us - afa_idle_seen[cpu].idle_us;
		}
		afa_idle_seen[cpu] = now;
	}
}

/**
 * afa_work_cpu() - the CPU the period worker should run on next
 *
 * Traces afa_work_cpu with the choice and its reason.  The caller holds
 * cpus_read_lock() until it has queued the work there, so that the CPU
 * cannot go offline in between.  Callers may race (the worker queueing
 * its next period, a period_ms write requeueing it): the idle figures
 * and the last choice are this function's own, under its own mutex.
 *
 * Return: a CPU number: an online housekeeping CPU, the current one when
 * nothing is idle and it is one.
 */
int afa_work_cpu(void)
{
	unsigned int local = raw_smp_processor_id(), cpu;
	enum afa_pick_reason reason;

	mutex_lock(&afa_work_cpu_lock);
	cpumask_and(afa_work_allowed, housekeeping_cpumask(HK_TYPE_DOMAIN),
		    housekeeping_cpumask(HK_TYPE_WQ));
	afa_idle_deltas();
	cpu = afa_pick_work_cpu(cpu_online_mask, afa_work_allowed,
				afa_idle_delta, afa_work_prev, local, &reason);
	trace_afa_work_cpu(cpu, afa_work_prev, local, reason,
			   cpu < nr_cpu_ids ? &afa_idle_delta[cpu] : NULL);
	afa_work_prev = cpu;
	mutex_unlock(&afa_work_cpu_lock);
	return cpu;
}

int afa_topology_init(void)
{
	afa_nr_domains = nr_node_ids * AFA_NR_CORE_TYPES;
	afa_idle_seen = kcalloc(nr_cpu_ids, sizeof(*afa_idle_seen),
				GFP_KERNEL);
	afa_idle_delta = kcalloc(nr_cpu_ids, sizeof(*afa_idle_delta),
				 GFP_KERNEL);
	if (!afa_idle_seen || !afa_idle_delta ||
	    !zalloc_cpumask_var(&afa_work_allowed, GFP_KERNEL)) {
		afa_topology_exit();
		return -ENOMEM;
	}
	afa_topology_refresh();
	return 0;
}

void afa_topology_exit(void)
{
	kfree(afa_idle_seen);
	kfree(afa_idle_delta);
	free_cpumask_var(afa_work_allowed);
	afa_idle_seen = NULL;
	afa_idle_delta = NULL;
}

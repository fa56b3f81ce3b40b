/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Topology domains: the NUMA node and the core type of a CPU.  Window
 * state is kept per class and domain, and the domain of the faulting CPU
 * picks the window of a VMA not in the stream table.
 */
#ifndef _AFA_TOPOLOGY_H
#define _AFA_TOPOLOGY_H

#include <linux/percpu.h>
#include <linux/types.h>

/*
 * Core types: "big" CPUs have the largest capacity in the system, or
 * come within 1/2^AFA_CORE_BIG_SHIFT of it, "little" ones less (hybrid
 * P/E cores, big.LITTLE).  The margin keeps an Intel hybrid machine's
 * P cores together: intel_pstate gives each CPU the capacity of its own
 * highest performance, and with Turbo Boost Max 3.0 only the favoured P
 * cores reach the largest.  Machines without asymmetry have only big
 * CPUs.
 */
enum afa_core_type {
	AFA_CORE_BIG,
	AFA_CORE_LITTLE,
	AFA_NR_CORE_TYPES
};

#define AFA_CORE_BIG_SHIFT	3

/* The core type of a CPU of capacity @cap, @max_cap the largest. */
static inline enum afa_core_type afa_core_type(unsigned long cap,
					       unsigned long max_cap)
{
	return cap < max_cap - (max_cap >> AFA_CORE_BIG_SHIFT) ?
	       AFA_CORE_LITTLE : AFA_CORE_BIG;
}

DECLARE_PER_CPU(u16, afa_cpu_domain);
extern unsigned int afa_nr_domains;

/* Domain of the CPU this runs on; fault path, preemption off. */
static inline unsigned int afa_this_domain(void)
{
	return this_cpu_read(afa_cpu_domain);
}

static inline unsigned int afa_domain_node(unsigned int domain)
{
	return domain / AFA_NR_CORE_TYPES;
}

static inline unsigned int afa_domain_core(unsigned int domain)
{
	return domain % AFA_NR_CORE_TYPES;
}

const char *afa_core_name(unsigned int core);
bool afa_domain_online(unsigned int domain);
void afa_topology_refresh(void);
int afa_topology_init(void);
void afa_topology_exit(void);
int afa_work_cpu(void);

#endif /* _AFA_TOPOLOGY_H */

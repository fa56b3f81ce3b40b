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
 * Core types: "big" CPUs have the largest capacity in the system,
 * "little" ones less (hybrid P/E cores, big.LITTLE).  Machines without
 * asymmetry have only big CPUs.
 */
enum afa_core_type {
	AFA_CORE_BIG,
	AFA_CORE_LITTLE,
	AFA_NR_CORE_TYPES
};

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

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * autofaultaround internals shared between the plumbing files.
 *
 * Data flows one way (docs/design.md): the probe (probe.c) and the
 * kernel's tracepoints (tracepoints.c) count evidence per CPU on the
 * fault path; the period worker (period.c) folds it, steps the law for
 * every stream (stream.c) and class (control.c), and publishes one
 * window order per stream and per class, which the probe reads back.
 */
#ifndef _AFA_H
#define _AFA_H

#include <linux/percpu.h>
#include <linux/types.h>
#include "account.h"
#include "classify.h"
#include "control_law.h"

struct address_space;
struct afa_fault_pos;
struct seq_file;
struct vm_fault;

/* Fault-path counters of one CPU that belong to no stream. */
struct afa_cpu_count {
	struct afa_evidence class[AFA_NR_CLASSES];	/* faults outside streams */
	u32 filemap_faults;	/* ->fault calls (tracepoint or kprobe) */
	u32 max_window;		/* largest window the kernel asked for */
	u32 contract_mismatch;	/* kernel windows do_fault_around() cannot give */
	u32 trial_countdown;	/* faults left before the next trial */
	u8 kernel_order;	/* 1 + the kernel's order proven; 0: none */
	u64 fast_calls;		/* calls that took the fast path (probe.c) */
};

DECLARE_PER_CPU(struct afa_cpu_count, afa_count);

/* params.c */
extern unsigned int afa_period_ms;
extern unsigned int afa_sample_every;
extern bool afa_enabled;
extern unsigned int afa_classes;
extern unsigned int afa_page_price_ns;
bool afa_params_snapshot(struct afa_ctl_params *law);
unsigned int afa_initial_order_get(const struct afa_ctl_params *law);

/* What the fault path reads of the worker's choices, all READ_ONCE. */
struct afa_fault_limits {
	u8 min_order;		/* no trial at or below */
	u8 max_order;		/* no growth test at or above */
	u8 rand_max_order;	/* the same for MADV_RANDOM's ceiling */
	bool act;		/* window rewriting allowed (contract holds) */
};

extern struct afa_fault_limits afa_limits;

/*
 * The generation of what decides whether the module steers a settled
 * fault: enabled, classes, afa_limits' act and min_order.  Their writers
 * call afa_steer_changed() after the write; the fast path (probe.c)
 * compares it with the generation its VMA's entry was stamped at, in
 * place of reading each of them.  Never 0: an entry stamped 0 is none.
 */
extern atomic_t afa_steer_gen;
void afa_steer_changed(void);
extern unsigned long afa_table_gen;

/* control.c: the per-class, per-domain law states, and the law's runner */
struct afa_stream_id;
extern unsigned long afa_ctl_moves;
u8 afa_law_run(struct afa_ctl_state *ctl, struct afa_ctl_input *pending,
	       unsigned int class, const struct afa_stream_id *id,
	       const struct afa_ctl_params *p, const struct afa_ctl_costs *c);
u8 afa_class_order_get(unsigned int dom, unsigned int class);
u64 afa_control_fold(const struct afa_ctl_params *p,
		     const struct afa_ctl_costs *c);
void afa_class_rebound(const struct afa_ctl_params *p);
void afa_control_show(struct seq_file *m);
int afa_control_init(void);
void afa_control_exit(void);

/* attach.c */
int afa_probe_init(void);
void afa_probe_exit(void);
int afa_probe_enable(bool on);
unsigned long afa_probe_nmissed(void);
const char *afa_probe_attach_name(bool *enabled);

/* probe.c */
void afa_probe_reset(void);
u64 afa_probe_fast_calls(void);
void afa_probe_fault(struct address_space *mapping, pgoff_t pgoff);
struct pt_regs;
void afa_probe_map_enter(struct pt_regs *regs);

/* direct.c; the trampoline and its C half are called from assembly */
extern bool afa_direct_call;
int afa_direct_register(void);
int afa_direct_unregister(void);
void afa_direct_tramp(void);
void afa_direct_enter(struct pt_regs *regs);

/* contract.c */
bool afa_contract_init(void);
bool afa_kernel_window_ok(const struct afa_fault_pos *pos, u64 start,
			  u64 end, u8 *order_seen);
void afa_contract_fold(u32 mismatches);
extern bool afa_contract_test;
extern bool afa_contract_unknown_test;

/* cost.c */
void afa_cost_calibrate(void);
void afa_cost_get(struct afa_ctl_costs *c);
void afa_cost_show(struct seq_file *m);
bool afa_cost_mapping(struct address_space *mapping, u8 *order);

/* kernel_window.c */
bool afa_kernel_window_check(u64 map_calls, u64 filemap_faults);
unsigned long afa_kernel_window_bytes(void);
const struct afa_ctl_params *afa_class_params(unsigned int class,
					      const struct afa_ctl_params *p,
					      struct afa_ctl_params *tmp);

/* tracepoints.c */
void afa_tracepoints_init(void);
void afa_tracepoints_exit(void);
struct kprobe;
int afa_kprobe_register(struct kprobe *kp);

/* period.c */
int afa_period_init(void);
void afa_period_exit(void);
void afa_period_kick(void);
void afa_period_wake_up(void);
void afa_period_retime(void);
void afa_period_show(struct seq_file *m);
extern bool afa_period_idle;

/*
 * afa_period_wake() - start folding again after an idle stretch
 *
 * Fault path: one read while the worker runs, inline at every call.
 */
static inline void afa_period_wake(void)
{
	if (unlikely(READ_ONCE(afa_period_idle)))
		afa_period_wake_up();
}

/* stats.c */
int afa_stats_init(void);
void afa_stats_exit(void);

#endif /* _AFA_H */

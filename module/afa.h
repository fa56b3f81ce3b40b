/* SPDX-License-Identifier: GPL-2.0 */
/*
 * autofaultaround internals shared between the plumbing files.
 *
 * Data flow: probe.c and tracepoints.c count events per CPU on the fault
 * path; access.c samples windows for later use; period.c folds all of it
 * once per period into per-class figures, which stats.c shows and trace.h
 * traces.
 */
#ifndef _AFA_H
#define _AFA_H

#include <linux/percpu.h>
#include <linux/types.h>
#include "classify.h"

struct address_space;
struct seq_file;
struct vm_fault;

/* Fault-path counters of one class on one CPU.  Only that CPU writes. */
struct afa_class_count {
	u64 faults;		/* map_pages calls (read faults around) */
	u64 hits;		/* calls that mapped the faulting page */
	u64 window_pages;	/* pages requested, end - start + 1 summed */
	u64 nonempty;		/* calls that mapped any page (tracepoint) */
	u64 sampled;		/* windows sampled for usefulness */
	u64 sample_mapped;	/* pages around the fault found mapped in them */
	u64 sample_dropped;	/* samples lost to a full ring */
};

/* Fault-path counters of one CPU. */
struct afa_cpu_count {
	struct afa_class_count class[AFA_NR_CLASSES];
	u64 filemap_faults;	/* ->fault calls (tracepoint) */
	u64 user_faults;	/* all user page faults (x86 tracepoint) */
	u32 sample_countdown;	/* faults left before the next sample */
	u32 max_window;		/* largest window the kernel asked for */
	/* last mm_filemap_map_pages tracepoint hit on this CPU */
	struct address_space *tp_mapping;
	pgoff_t tp_start;
};

DECLARE_PER_CPU(struct afa_cpu_count, afa_count);

/* Figures of one class in one domain, folded by period.c. */
struct afa_class_fig {
	u64 faults;		/* map_pages calls */
	u64 hits;		/* of those, the faulting page was mapped */
	u64 window_pages;	/* pages requested */
	u64 nonempty;		/* calls that mapped at least one page */
	u64 sampled;		/* windows sampled for usefulness */
	u64 sample_mapped;	/* pages around the fault mapped in those */
	u64 sample_dropped;	/* samples lost to a full ring */
	u64 checked;		/* sampled pages checked for later use */
	u64 used;		/* of those, accessed after being mapped */
	u64 lost;		/* samples whose window was gone at check */
};

/* params.c */
struct afa_ctl_params;
extern unsigned int afa_period_ms;
extern unsigned int afa_sample_every;
extern bool afa_enabled;
extern unsigned int afa_classes;
bool afa_params_snapshot(struct afa_ctl_params *law);
unsigned int afa_initial_order_get(const struct afa_ctl_params *law);

/* control.c */
const struct afa_ctl_params *afa_ctl_params_now(void);
u8 afa_class_order_get(unsigned int dom, unsigned int class);
void afa_control_period(u32 period_ms);
int afa_control_init(void);
void afa_control_exit(void);

/* probe.c */
int afa_probe_init(void);
void afa_probe_exit(void);
unsigned long afa_probe_nmissed(void);

/* stream.c */
void afa_stream_init(void);

/* kernel_window.c */
void afa_kernel_window_check(u64 map_calls, u64 filemap_faults);
unsigned long afa_kernel_window_bytes(void);

/* tracepoints.c */
void afa_tracepoints_init(void);
void afa_tracepoints_exit(void);
bool afa_tracepoint_saw_map(struct address_space *mapping, pgoff_t start);

/* access.c */
void afa_access_sample(struct vm_fault *vmf, unsigned long start,
		       unsigned int nr_pages, unsigned int class,
		       unsigned int slot, u32 gen);
void afa_access_check(bool all);

/* period.c */
extern unsigned long afa_period_seq;
int afa_period_init(void);
void afa_period_exit(void);
struct afa_class_fig *afa_period_fig(unsigned int dom, unsigned int class);

/* What stats.c shows of one class in one domain. */
struct afa_fig_view {
	struct afa_class_fig last;	/* the last complete period */
	struct afa_class_fig total;	/* all complete periods */
};

/* Global figures of the last period and in total. */
struct afa_global_view {
	u64 nr_periods;			/* complete periods since load */
	u32 period_ms;			/* length of the last period */
	u64 filemap_faults;		/* ->fault calls, total */
	u64 user_faults;		/* user page faults, total */
};

void afa_period_view(unsigned int dom, struct afa_fig_view *view,
		     struct afa_global_view *global);
void afa_period_show_streams(struct seq_file *m);

/* stats.c */
int afa_stats_init(void);
void afa_stats_exit(void);

#endif /* _AFA_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events of autofaultaround: `trace-cmd record -e autofaultaround`.
 * Fields are key=value; no kernel address is ever traced.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM autofaultaround

#if !defined(_AFA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _AFA_TRACE_H

#include <linux/types.h>
#include <linux/kdev_t.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include "account.h"
#include "afa.h"
#include "control_law.h"
#include "stream.h"
#include "topology.h"
#include "topology_pick.h"

TRACE_DEFINE_ENUM(AFA_CLASS_RAND);
TRACE_DEFINE_ENUM(AFA_CLASS_SEQ);
TRACE_DEFINE_ENUM(AFA_CLASS_EXEC);
TRACE_DEFINE_ENUM(AFA_CLASS_SHMEM);
TRACE_DEFINE_ENUM(AFA_CLASS_SHARED);
TRACE_DEFINE_ENUM(AFA_CLASS_RODATA);
TRACE_DEFINE_ENUM(AFA_CLASS_PRIVATE);

TRACE_DEFINE_ENUM(AFA_CORE_BIG);
TRACE_DEFINE_ENUM(AFA_CORE_LITTLE);

#define afa_show_core(core)					\
	__print_symbolic(core,					\
			 { AFA_CORE_BIG, "big" },		\
			 { AFA_CORE_LITTLE, "little" })

#define afa_show_class(class)					\
	__print_symbolic(class,					\
			 { AFA_CLASS_RAND, "rand" },		\
			 { AFA_CLASS_SEQ, "seq" },		\
			 { AFA_CLASS_EXEC, "exec" },		\
			 { AFA_CLASS_SHMEM, "shmem" },		\
			 { AFA_CLASS_SHARED, "shared" },	\
			 { AFA_CLASS_RODATA, "rodata" },	\
			 { AFA_CLASS_PRIVATE, "private" })

/*
 * afa_sample - the figures of one class in one domain over one period,
 * for every class and domain that saw activity in it.
 */
TRACE_EVENT(afa_sample,
	    TP_PROTO(unsigned int class, unsigned int domain, u32 period_ms,
		     const struct afa_class_fig *f),
	    TP_ARGS(class, domain, period_ms, f),
	    TP_STRUCT__entry(__field(unsigned int, class)
			     __field(unsigned int, node)
			     __field(unsigned int, core)
			     __field(u32, period_ms)
			     __field(u64, faults)
			     __field(u64, hits)
			     __field(u64, window_pages)
			     __field(u64, nonempty)
			     __field(u64, sampled)
			     __field(u64, mapped)
			     __field(u64, checked)
			     __field(u64, used)
			     __field(u64, lost)
			     __field(u64, dropped)
			     __field(u32, faults_per_s)
			     __field(u32, hit_permille)
			     __field(u32, useful_permille)
	    ),
	    TP_fast_assign(__entry->class = class;
			   __entry->node = afa_domain_node(domain);
			   __entry->core = afa_domain_core(domain);
			   __entry->period_ms = period_ms;
			   __entry->faults = f->faults;
			   __entry->hits = f->hits;
			   __entry->window_pages = f->window_pages;
			   __entry->nonempty = f->nonempty;
			   __entry->sampled = f->sampled;
			   __entry->mapped = f->sample_mapped;
			   __entry->checked = f->checked;
			   __entry->used = f->used;
			   __entry->lost = f->lost;
			   __entry->dropped = f->sample_dropped;
			   __entry->faults_per_s =
				afa_rate_per_s(f->faults, period_ms);
			   __entry->hit_permille =
				afa_ratio_permille(afa_ratio(f->hits, f->faults));
			   __entry->useful_permille =
				afa_ratio_permille(afa_ratio(f->used, f->checked));
	    ),
	    TP_printk("class=%s node=%u core=%s period_ms=%u faults=%llu hits=%llu window_pages=%llu nonempty=%llu sampled=%llu mapped=%llu checked=%llu used=%llu lost=%llu dropped=%llu faults_per_s=%u hit_permille=%u useful_permille=%u",
		      afa_show_class(__entry->class), __entry->node,
		      afa_show_core(__entry->core),
		      __entry->period_ms, __entry->faults, __entry->hits,
		      __entry->window_pages, __entry->nonempty,
		      __entry->sampled, __entry->mapped, __entry->checked,
		      __entry->used, __entry->lost, __entry->dropped,
		      __entry->faults_per_s, __entry->hit_permille,
		      __entry->useful_permille)
);

TRACE_DEFINE_ENUM(AFA_CTL_HOLD_FEW_SAMPLES);
TRACE_DEFINE_ENUM(AFA_CTL_DEADBAND);
TRACE_DEFINE_ENUM(AFA_CTL_PENDING);
TRACE_DEFINE_ENUM(AFA_CTL_GROW);
TRACE_DEFINE_ENUM(AFA_CTL_SHRINK);
TRACE_DEFINE_ENUM(AFA_CTL_SATURATED);
TRACE_DEFINE_ENUM(AFA_CTL_PROBE);
TRACE_DEFINE_ENUM(AFA_CTL_PROBE_REVERT);

#define afa_show_reason(reason)						\
	__print_symbolic(reason,					\
			 { AFA_CTL_HOLD_FEW_SAMPLES, "hold_few_samples" },	\
			 { AFA_CTL_DEADBAND, "deadband" },		\
			 { AFA_CTL_PENDING, "pending" },		\
			 { AFA_CTL_GROW, "grow" },			\
			 { AFA_CTL_SHRINK, "shrink" },			\
			 { AFA_CTL_SATURATED, "saturated" },		\
			 { AFA_CTL_PROBE, "probe" },			\
			 { AFA_CTL_PROBE_REVERT, "probe_revert" })

/*
 * afa_ctl_step - one step of the law for a class or a stream: its inputs,
 * error, P, I and D terms (in 1/1024 orders), output and decision.  A
 * stream is named by the process that first faulted it and the file's
 * device and inode; a class's own state shows pid=0 dev=0:0 ino=0.
 */
TRACE_EVENT(afa_ctl_step,
	    TP_PROTO(unsigned int class, unsigned int domain,
		     const struct afa_stream_id *id,
		     const struct afa_ctl_input *in,
		     const struct afa_ctl_trace *tr),
	    TP_ARGS(class, domain, id, in, tr),
	    TP_STRUCT__entry(__field(unsigned int, class)
			     __field(unsigned int, node)
			     __field(unsigned int, core)
			     __field(int, stream)
			     __field(pid_t, pid)
			     __field(dev_t, dev)
			     __field(u64, ino)
			     __field(u32, faults)
			     __field(u32, sampled)
			     __field(u32, used)
			     __field(u32, hits)
			     __field(u32, usefulness)
			     __field(u32, usefulness_avg)
			     __field(u32, rate_weight)
			     __field(s32, error)
			     __field(s32, p)
			     __field(s32, i)
			     __field(s32, d)
			     __field(s32, output)
			     __field(u32, order)
			     __field(u32, new_order)
			     __field(int, reason)
	    ),
	    TP_fast_assign(__entry->class = class;
			   __entry->node = afa_domain_node(domain);
			   __entry->core = afa_domain_core(domain);
			   __entry->stream = id->slot;
			   __entry->pid = id->tgid;
			   __entry->dev = id->dev;
			   __entry->ino = id->ino;
			   __entry->faults = in->nr_faults;
			   __entry->sampled = in->nr_sampled;
			   __entry->used = in->nr_used;
			   __entry->hits = in->nr_hits;
			   __entry->usefulness = tr->usefulness;
			   __entry->usefulness_avg = tr->usefulness_avg;
			   __entry->rate_weight = tr->rate_weight;
			   __entry->error = tr->error;
			   __entry->p = tr->p;
			   __entry->i = tr->i;
			   __entry->d = tr->d;
			   __entry->output = tr->output;
			   __entry->order = tr->order;
			   __entry->new_order = tr->new_order;
			   __entry->reason = tr->reason;
	    ),
	    TP_printk("class=%s node=%u core=%s stream=%d pid=%d dev=%u:%u ino=%llu faults=%u sampled=%u used=%u hits=%u usefulness=%u usefulness_avg=%u rate_weight=%u error=%d p=%d i=%d d=%d output=%d order=%u new_order=%u reason=%s",
		      afa_show_class(__entry->class), __entry->node,
		      afa_show_core(__entry->core), __entry->stream,
		      __entry->pid, MAJOR(__entry->dev), MINOR(__entry->dev),
		      __entry->ino, __entry->faults, __entry->sampled,
		      __entry->used, __entry->hits, __entry->usefulness,
		      __entry->usefulness_avg, __entry->rate_weight,
		      __entry->error, __entry->p, __entry->i, __entry->d,
		      __entry->output, __entry->order, __entry->new_order,
		      afa_show_reason(__entry->reason))
);

/* afa_order_change - the window of a class or a stream changed. */
TRACE_EVENT(afa_order_change,
	    TP_PROTO(unsigned int class, unsigned int domain,
		     const struct afa_stream_id *id, u32 old, u32 new,
		     int reason),
	    TP_ARGS(class, domain, id, old, new, reason),
	    TP_STRUCT__entry(__field(unsigned int, class)
			     __field(unsigned int, node)
			     __field(unsigned int, core)
			     __field(int, stream)
			     __field(pid_t, pid)
			     __field(dev_t, dev)
			     __field(u64, ino)
			     __field(u32, old)
			     __field(u32, new)
			     __field(u64, old_bytes)
			     __field(u64, new_bytes)
			     __field(int, reason)
	    ),
	    TP_fast_assign(__entry->class = class;
			   __entry->node = afa_domain_node(domain);
			   __entry->core = afa_domain_core(domain);
			   __entry->stream = id->slot;
			   __entry->pid = id->tgid;
			   __entry->dev = id->dev;
			   __entry->ino = id->ino;
			   __entry->old = old;
			   __entry->new = new;
			   __entry->old_bytes = afa_order_to_bytes(old, PAGE_SHIFT);
			   __entry->new_bytes = afa_order_to_bytes(new, PAGE_SHIFT);
			   __entry->reason = reason;
	    ),
	    TP_printk("class=%s node=%u core=%s stream=%d pid=%d dev=%u:%u ino=%llu old=%u new=%u old_bytes=%llu new_bytes=%llu reason=%s",
		      afa_show_class(__entry->class), __entry->node,
		      afa_show_core(__entry->core), __entry->stream,
		      __entry->pid, MAJOR(__entry->dev), MINOR(__entry->dev),
		      __entry->ino, __entry->old, __entry->new,
		      __entry->old_bytes, __entry->new_bytes,
		      afa_show_reason(__entry->reason))
);

/*
 * afa_stream - a stream entered the table (new, at its class's order) or
 * left it (evict, after being idle).
 */
TRACE_EVENT(afa_stream,
	    TP_PROTO(unsigned int class, unsigned int domain,
		     const struct afa_stream_id *id, u32 order, bool added),
	    TP_ARGS(class, domain, id, order, added),
	    TP_STRUCT__entry(__field(unsigned int, class)
			     __field(unsigned int, node)
			     __field(unsigned int, core)
			     __field(int, stream)
			     __field(pid_t, pid)
			     __field(dev_t, dev)
			     __field(u64, ino)
			     __field(u32, order)
			     __field(bool, added)
	    ),
	    TP_fast_assign(__entry->class = class;
			   __entry->node = afa_domain_node(domain);
			   __entry->core = afa_domain_core(domain);
			   __entry->stream = id->slot;
			   __entry->pid = id->tgid;
			   __entry->dev = id->dev;
			   __entry->ino = id->ino;
			   __entry->order = order;
			   __entry->added = added;
	    ),
	    TP_printk("class=%s node=%u core=%s stream=%d pid=%d dev=%u:%u ino=%llu order=%u action=%s",
		      afa_show_class(__entry->class), __entry->node,
		      afa_show_core(__entry->core), __entry->stream,
		      __entry->pid, MAJOR(__entry->dev), MINOR(__entry->dev),
		      __entry->ino, __entry->order,
		      __entry->added ? "new" : "evict")
);

TRACE_DEFINE_ENUM(AFA_PICK_IDLE_CORE);
TRACE_DEFINE_ENUM(AFA_PICK_IDLE_CPU);
TRACE_DEFINE_ENUM(AFA_PICK_PREVIOUS);
TRACE_DEFINE_ENUM(AFA_PICK_FALLBACK_LOCAL);

/*
 * afa_work_cpu - where the next period's work will run, and why: an idle
 * whole core, an idle CPU, the previous CPU still idle, or the local CPU
 * when nothing is idle.  idle_permille is the chosen CPU's idle share of
 * the last period.
 */
TRACE_EVENT(afa_work_cpu,
	    TP_PROTO(unsigned int cpu, unsigned int prev, unsigned int local,
		     int reason, const struct afa_cpu_idle *idle),
	    TP_ARGS(cpu, prev, local, reason, idle),
	    TP_STRUCT__entry(__field(int, cpu)
			     __field(int, prev)
			     __field(int, local)
			     __field(int, reason)
			     __field(u32, idle_permille)
	    ),
	    TP_fast_assign(__entry->cpu = cpu;
			   __entry->prev = prev == AFA_PICK_NO_CPU ? -1 : prev;
			   __entry->local = local;
			   __entry->reason = reason;
			   __entry->idle_permille = idle ?
				afa_ratio_permille(afa_ratio(idle->idle_us,
							     idle->wall_us)) : 0;
	    ),
	    TP_printk("cpu=%d prev=%d local=%d reason=%s idle_permille=%u",
		      __entry->cpu, __entry->prev, __entry->local,
		      __print_symbolic(__entry->reason,
				       { AFA_PICK_IDLE_CORE, "idle_core" },
				       { AFA_PICK_IDLE_CPU, "idle_cpu" },
				       { AFA_PICK_PREVIOUS, "previous" },
				       { AFA_PICK_FALLBACK_LOCAL, "fallback_local" }),
		      __entry->idle_permille)
);

/* afa_param - an accepted write to a module parameter. */
TRACE_EVENT(afa_param,
	    TP_PROTO(const char *name, u32 old, u32 new),
	    TP_ARGS(name, old, new),
	    TP_STRUCT__entry(__array(char, name, 24)
			     __field(u32, old)
			     __field(u32, new)
	    ),
	    TP_fast_assign(strscpy(__entry->name, name, sizeof(__entry->name));
			   __entry->old = old;
			   __entry->new = new;
	    ),
	    TP_printk("name=%s old=%u new=%u", __entry->name, __entry->old,
		      __entry->new)
);

#endif /* _AFA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>

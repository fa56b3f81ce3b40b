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

TRACE_DEFINE_ENUM(AFA_CTL_FEW_SAMPLES);
TRACE_DEFINE_ENUM(AFA_CTL_DEADBAND);
TRACE_DEFINE_ENUM(AFA_CTL_PENDING);
TRACE_DEFINE_ENUM(AFA_CTL_GROW);
TRACE_DEFINE_ENUM(AFA_CTL_SHRINK);

TRACE_DEFINE_ENUM(AFA_CORE_BIG);
TRACE_DEFINE_ENUM(AFA_CORE_LITTLE);

/* The core field of a stream, which has no domain. */
#define AFA_TP_NO_CORE		255

#define afa_show_core(core)					\
	__print_symbolic(core,					\
			 { AFA_CORE_BIG, "big" },		\
			 { AFA_CORE_LITTLE, "little" },		\
			 { AFA_TP_NO_CORE, "none" })

#define afa_show_reason(reason)					\
	__print_symbolic(reason,				\
			 { AFA_CTL_FEW_SAMPLES, "few_samples" },	\
			 { AFA_CTL_DEADBAND, "deadband" },	\
			 { AFA_CTL_PENDING, "pending" },	\
			 { AFA_CTL_GROW, "grow" },		\
			 { AFA_CTL_SHRINK, "shrink" })

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
 * Every stream event starts with who the stream is: its class, then slot
 * -1 and node and core for a class state, or slot and dev:ino for a file
 * (a stream serves every domain: node -1, core none).
 */
#define AFA_TP_STREAM_ASSIGN(class_, id)				\
	do {								\
		const struct afa_stream_id *id__ = (id);		\
									\
		__entry->class = (class_);				\
		__entry->slot = id__->slot;				\
		__entry->node = id__->slot < 0 ?			\
			afa_domain_node(id__->domain) : -1;		\
		__entry->core = id__->slot < 0 ?			\
			afa_domain_core(id__->domain) : AFA_TP_NO_CORE;	\
		__entry->dev = id__->dev;				\
		__entry->ino = id__->ino;				\
	} while (0)

/*
 * afa_ctl_step - one step of the control law for a stream (a file) or a
 * class state: the evidence, the predicted savings of one order more and
 * one less, the terms and the decision.  Ratios and savings in permille
 * (savings signed), terms in 1/1024 orders; span_pages is the pages a
 * fault was measured to map at the order, to 1/1000 (0: not known yet).
 */
TRACE_EVENT(afa_ctl_step,
	    TP_PROTO(unsigned int class, const struct afa_stream_id *id,
		     const struct afa_ctl_input *in,
		     const struct afa_ctl_trace *tr),
	    TP_ARGS(class, id, in, tr),
	    TP_STRUCT__entry(__field(unsigned int, class)
			     __field(int, slot)
			     __field(int, node)
			     __field(unsigned int, core)
			     __field(dev_t, dev)
			     __field(u64, ino)
			     __field(u32, faults)
			     __field(u32, grow_hits)
			     __field(u32, trials)
			     __field(u32, trial_hits)
			     __field(u32, order)
			     __field(u32, new_order)
			     __field(u32, grow_permille)
			     __field(u32, trial_permille)
			     __field(u32, span_pages)
			     __field(u32, span_milli)
			     __field(s32, save_grow_permille)
			     __field(s32, save_shrink_permille)
			     __field(s32, p)
			     __field(s32, i)
			     __field(s32, d)
			     __field(s32, output)
			     __field(int, reason)
	    ),
	    TP_fast_assign(AFA_TP_STREAM_ASSIGN(class, id);
			   __entry->faults = in->nr_faults;
			   __entry->grow_hits = in->nr_grow_hits;
			   __entry->trials = in->nr_trials;
			   __entry->trial_hits = in->nr_trial_hits;
			   __entry->order = tr->order;
			   __entry->new_order = tr->new_order;
			   __entry->grow_permille = afa_ratio_permille(tr->grow_ratio);
			   __entry->trial_permille = afa_ratio_permille(tr->trial_ratio);
			   __entry->span_pages = tr->span >> AFA_SCALE;
			   __entry->span_milli = afa_ratio_permille(tr->span &
								    (AFA_UNIT - 1));
			   __entry->save_grow_permille = tr->save_grow * 1000 / AFA_UNIT;
			   __entry->save_shrink_permille = tr->save_shrink * 1000 / AFA_UNIT;
			   __entry->p = tr->p;
			   __entry->i = tr->i;
			   __entry->d = tr->d;
			   __entry->output = tr->output;
			   __entry->reason = tr->reason;
	    ),
	    TP_printk("class=%s slot=%d node=%d core=%s dev=%u:%u ino=%llu faults=%u grow_hits=%u trials=%u trial_hits=%u order=%u new_order=%u grow_permille=%u trial_permille=%u span_pages=%u.%03u save_grow_permille=%d save_shrink_permille=%d p=%d i=%d d=%d output=%d reason=%s",
		      afa_show_class(__entry->class), __entry->slot,
		      __entry->node, afa_show_core(__entry->core),
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __entry->faults, __entry->grow_hits,
		      __entry->trials, __entry->trial_hits, __entry->order,
		      __entry->new_order, __entry->grow_permille,
		      __entry->trial_permille, __entry->span_pages, __entry->span_milli,
		      __entry->save_grow_permille,
		      __entry->save_shrink_permille, __entry->p, __entry->i,
		      __entry->d, __entry->output,
		      afa_show_reason(__entry->reason))
);

/* afa_order_change - a stream's or class's window order changed. */
TRACE_EVENT(afa_order_change,
	    TP_PROTO(unsigned int class, const struct afa_stream_id *id,
		     u32 old_order, u32 new_order, int reason),
	    TP_ARGS(class, id, old_order, new_order, reason),
	    TP_STRUCT__entry(__field(unsigned int, class)
			     __field(int, slot)
			     __field(int, node)
			     __field(unsigned int, core)
			     __field(dev_t, dev)
			     __field(u64, ino)
			     __field(u32, old_order)
			     __field(u32, new_order)
			     __field(u64, window_bytes)
			     __field(int, reason)
	    ),
	    TP_fast_assign(AFA_TP_STREAM_ASSIGN(class, id);
			   __entry->old_order = old_order;
			   __entry->new_order = new_order;
			   __entry->window_bytes = afa_order_to_bytes(new_order,
								      PAGE_SHIFT);
			   __entry->reason = reason;
	    ),
	    TP_printk("class=%s slot=%d node=%d core=%s dev=%u:%u ino=%llu old_order=%u new_order=%u window_bytes=%llu reason=%s",
		      afa_show_class(__entry->class), __entry->slot,
		      __entry->node, afa_show_core(__entry->core),
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino, __entry->old_order,
		      __entry->new_order, __entry->window_bytes,
		      afa_show_reason(__entry->reason))
);

/*
 * afa_stream - a file's stream entered the stream table, or its slot was
 * reused; lane 1 is the stream of a file's mappings that split off.
 */
TRACE_EVENT(afa_stream,
	    TP_PROTO(unsigned int class, const struct afa_stream_id *id,
		     u32 order, bool added),
	    TP_ARGS(class, id, order, added),
	    TP_STRUCT__entry(__field(unsigned int, class)
			     __field(int, slot)
			     __field(int, node)
			     __field(unsigned int, core)
			     __field(dev_t, dev)
			     __field(u64, ino)
			     __field(u8, lane)
			     __field(u32, order)
			     __field(bool, added)
	    ),
	    TP_fast_assign(AFA_TP_STREAM_ASSIGN(class, id);
			   __entry->lane = id->lane;
			   __entry->order = order;
			   __entry->added = added;
	    ),
	    TP_printk("class=%s slot=%d node=%d core=%s dev=%u:%u ino=%llu lane=%u order=%u event=%s",
		      afa_show_class(__entry->class), __entry->slot,
		      __entry->node, afa_show_core(__entry->core),
		      MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		      __entry->lane, __entry->order,
		      __entry->added ? "added" : "evicted")
);

TRACE_DEFINE_ENUM(AFA_PICK_IDLE_CORE);
TRACE_DEFINE_ENUM(AFA_PICK_IDLE_CPU);
TRACE_DEFINE_ENUM(AFA_PICK_PREVIOUS);
TRACE_DEFINE_ENUM(AFA_PICK_FALLBACK_LOCAL);
TRACE_DEFINE_ENUM(AFA_PICK_FALLBACK_ALLOWED);

/*
 * afa_work_cpu - where the next period's work will run, and why: an idle
 * whole core, an idle CPU, the previous CPU still idle, or the local CPU
 * when nothing is idle (the previous or another allowed CPU if the local
 * one is isolated).  idle_permille is the chosen CPU's idle share of the
 * last period.
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
				       { AFA_PICK_FALLBACK_LOCAL, "fallback_local" },
				       { AFA_PICK_FALLBACK_ALLOWED, "fallback_allowed" }),
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
	    /* A fixed array: __assign_str() changed its arguments in 6.10. */
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

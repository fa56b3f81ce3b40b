// SPDX-License-Identifier: GPL-2.0
/*
 * The class states: one law state per class and topology domain (NUMA
 * node and core type).  They serve the faults of files not in the stream
 * table yet, and a new stream starts from its class's order in the
 * domain of the CPU that first faulted it.  Their evidence is only those
 * faults, gathered at the class's own order.  Stepped by the period
 * worker, statistics lock held; streams step in stream.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "afa.h"
#include "stream.h"
#include "topology.h"
#include "trace.h"

/* One class in one domain. */
struct afa_class_state {
	struct afa_ctl_state ctl;	/* the law's state */
	struct afa_ctl_input pending;	/* evidence since the last step */
	struct afa_evidence last;	/* what the last fold added */
	/* since load, for stats: u64, a u32 of pages wraps within hours */
	u64 nr_faults, nr_misses, nr_pages;
};

static struct afa_class_state *afa_class;	/* [domain][class] */
static u8 *afa_class_order;			/* [domain][class], fault path */
/* One CPU's class counters at the last fold: period worker. */
struct afa_class_seen {
	struct afa_evidence class[AFA_NR_CLASSES];
};

static struct afa_class_seen __percpu *afa_class_seen;

static unsigned int afa_class_index(unsigned int dom, unsigned int class)
{
	return dom * AFA_NR_CLASSES + class;
}

/**
 * afa_class_order_get() - window order of a class in a domain
 * @dom:	domain of the faulting CPU
 * @class:	enum afa_class
 *
 * Fault path: one read, no lock.
 *
 * Return: the order the class's law state holds.
 */
u8 afa_class_order_get(unsigned int dom, unsigned int class)
{
	return READ_ONCE(afa_class_order[afa_class_index(dom, class)]);
}

/*
 * What each CPU counted in its classes since the last fold, added to the
 * class states of the CPU's domain now: a CPU that changes domain
 * (afa_topology_refresh()) takes only its new evidence with it.
 */
static void afa_class_gather(void)
{
	struct afa_evidence now, d, *seen;
	unsigned int dom, class, i;
	int cpu;

	for (i = 0; i < afa_nr_domains * AFA_NR_CLASSES; i++)
		afa_class[i].last = (struct afa_evidence){};
	for_each_possible_cpu(cpu) {
		dom = min_t(unsigned int, per_cpu(afa_cpu_domain, cpu),
			    afa_nr_domains - 1);
		seen = per_cpu_ptr(afa_class_seen, cpu)->class;
		for (class = 0; class < AFA_NR_CLASSES; class++) {
			now = (struct afa_evidence){};
			afa_evidence_add(&now,
					 per_cpu_ptr(&afa_count.class[class], cpu));
			afa_evidence_delta(&d, &now, &seen[class]);
			seen[class] = now;
			afa_evidence_add(&afa_class[afa_class_index(dom, class)].last,
					 &d);
		}
	}
}

/*
 * Steps one fold may take for one state.  A state moves at most once a
 * fold (what waits was gathered at the old order), but near its optimum
 * it integrates many batches: 16 are 128 faults at the default
 * min_samples, more than a jiffy of faults on one CPU brings.  What is
 * left past them is dropped, so that evidence never backs up.
 */
#define AFA_STEPS_PER_FOLD	16

/* Moves of order of every state since load, for period.c. */
unsigned long afa_ctl_moves;

/**
 * afa_law_run() - step one state's law once per batch of evidence waiting
 * @ctl:	the law's state
 * @pending:	evidence waiting; what the steps use is removed, all of it
 *		when the order moves (it was gathered at the old order); the
 *		span measured stays while the order does
 * @class:	the state's class, for its bounds and the traces
 * @id:		who the state is, for the traces
 * @p:		the law's parameters for this fold
 * @c:		the costs the law steers by
 *
 * Each step is traced (afa_ctl_step), each change of order too
 * (afa_order_change).  Period worker, statistics lock held.
 *
 * Return: the order from now on.
 */
u8 afa_law_run(struct afa_ctl_state *ctl, struct afa_ctl_input *pending,
	       unsigned int class, const struct afa_stream_id *id,
	       const struct afa_ctl_params *p, const struct afa_ctl_costs *c)
{
	struct afa_ctl_params tmp;
	struct afa_ctl_input batch;
	struct afa_ctl_trace tr;
	u8 old = ctl->order;
	unsigned int n;

	p = afa_class_params(class, p, &tmp);
	/*
	 * Outside new bounds: no step, whose clamp would judge evidence of
	 * the old order at the new one; the fold's pull moves the state
	 * afterwards, and drops what waits (afa_class_rebound()).
	 */
	if (ctl->order != clamp_t(u8, ctl->order, p->min_order, p->max_order))
		return ctl->order;
	for (n = 0; n < AFA_STEPS_PER_FOLD &&
	     afa_ctl_input_ready(ctl, p, pending); n++) {
		afa_ctl_batch(pending, ctl, p, &batch);
		afa_ctl_step(ctl, p, c, &batch, &tr);
		trace_afa_ctl_step(class, id, &batch, &tr);
		if (ctl->order != tr.order) {
			trace_afa_order_change(class, id, tr.order, ctl->order,
					       tr.reason);
			afa_ctl_moves++;
			*pending = (struct afa_ctl_input){};
			break;
		}
	}
	if (ctl->order != old)
		*pending = (struct afa_ctl_input){};
	else if (n == AFA_STEPS_PER_FOLD)
		/* the span stays: it is a ratio at this order, not a backlog */
		*pending = (struct afa_ctl_input){
			.nr_spans = pending->nr_spans,
			.nr_span_pages = pending->nr_span_pages,
		};
	return ctl->order;
}

static void afa_class_step(unsigned int dom, unsigned int class,
			   const struct afa_ctl_params *p,
			   const struct afa_ctl_costs *c)
{
	unsigned int i = afa_class_index(dom, class);
	struct afa_class_state *cs = &afa_class[i];
	const struct afa_stream_id id = { .slot = -1, .domain = dom };

	WRITE_ONCE(afa_class_order[i],
		   afa_law_run(&cs->ctl, &cs->pending, class, &id, p, c));
}

/*
 * New bounds: pull every state inside them, keeping what it learned.
 * The bounds are the class's (afa_class_params(): MADV_RANDOM's ceiling
 * holds against a min_order above it).
 */
void afa_class_rebound(const struct afa_ctl_params *p)
{
	const struct afa_ctl_params *b;
	struct afa_ctl_params tmp;
	unsigned int i;
	u8 order;

	for (i = 0; i < afa_nr_domains * AFA_NR_CLASSES; i++) {
		b = afa_class_params(i % AFA_NR_CLASSES, p, &tmp);
		order = clamp_t(u8, afa_class[i].ctl.order, b->min_order,
				b->max_order);
		if (order == afa_class[i].ctl.order)
			continue;
		afa_ctl_init(&afa_class[i].ctl, b, order);
		afa_class[i].pending = (struct afa_ctl_input){};
		WRITE_ONCE(afa_class_order[i], order);
	}
}

/**
 * afa_control_fold() - take in the class evidence, step the class laws
 * @p:		the law's parameters for this fold
 * @c:		the costs the law steers by
 *
 * Return: the faults counted in classes (outside streams) in this fold.
 */
u64 afa_control_fold(const struct afa_ctl_params *p,
		     const struct afa_ctl_costs *c)
{
	unsigned int dom, class, i;
	struct afa_class_state *cs;
	u64 faults = 0;

	afa_class_gather();
	for (dom = 0; dom < afa_nr_domains; dom++) {
		for (class = 0; class < AFA_NR_CLASSES; class++) {
			i = afa_class_index(dom, class);
			cs = &afa_class[i];
			faults += cs->last.faults;
			cs->nr_faults += cs->last.faults;
			cs->nr_misses += cs->last.misses;
			cs->nr_pages += cs->last.pages;
			/*
			 * A span or a miss may come in a fold without the
			 * faults that step (a call counted in its class before
			 * its file got a stream): it waits, as a stream's does.
			 * Trials may come without faults (stream.c).
			 */
			afa_evidence_to_input(&cs->pending, &cs->last);
			if (cs->last.faults || cs->last.trials ||
			    cs->last.trial_hits)
				afa_class_step(dom, class, p, c);
		}
	}
	return faults;
}

/**
 * afa_control_show() - the class states of the online domains
 * @m:	the stats file; statistics lock held
 */
void afa_control_show(struct seq_file *m)
{
	const struct afa_class_state *cs;
	unsigned int dom, class;

	seq_puts(m, "class    node core   order window_kib     faults   misses  pages_per_fault grow% trial%\n");
	for (dom = 0; dom < afa_nr_domains; dom++) {
		if (!afa_domain_online(dom))
			continue;
		for (class = 0; class < AFA_NR_CLASSES; class++) {
			cs = &afa_class[afa_class_index(dom, class)];
			seq_printf(m, "%-8s %4u %-6s %5u %10llu %10llu %8llu %16llu %5u %6u\n",
				   afa_class_name(class), afa_domain_node(dom),
				   afa_core_name(afa_domain_core(dom)),
				   cs->ctl.order,
				   afa_order_to_bytes(cs->ctl.order, PAGE_SHIFT) >> 10,
				   cs->nr_faults, min(cs->nr_misses, cs->nr_faults),
				   cs->nr_faults ?
				   div64_u64(cs->nr_pages, cs->nr_faults) : 0,
				   afa_ctl_grow_permille(&cs->ctl) / 10,
				   afa_ctl_trial_permille(&cs->ctl) / 10);
		}
	}
}

int afa_control_init(void)
{
	unsigned int i, n = afa_nr_domains * AFA_NR_CLASSES;
	struct afa_ctl_params p, tmp;
	const struct afa_ctl_params *b;

	afa_params_snapshot(&p);
	afa_class = kcalloc(n, sizeof(*afa_class), GFP_KERNEL);
	afa_class_order = kcalloc(n, sizeof(*afa_class_order), GFP_KERNEL);
	afa_class_seen = alloc_percpu(struct afa_class_seen);
	if (!afa_class || !afa_class_order || !afa_class_seen) {
		afa_control_exit();
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		b = afa_class_params(i % AFA_NR_CLASSES, &p, &tmp);
		afa_ctl_init(&afa_class[i].ctl, b, afa_initial_order_get(&p));
		afa_class_order[i] = afa_class[i].ctl.order;
	}
	return 0;
}

void afa_control_exit(void)
{
	kfree(afa_class);
	kfree(afa_class_order);
	free_percpu(afa_class_seen);
	afa_class = NULL;
	afa_class_order = NULL;
	afa_class_seen = NULL;
}

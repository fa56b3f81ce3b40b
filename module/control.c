// SPDX-License-Identifier: GPL-2.0
/*
 * Once per period, feed the control law (control_law.c) with what the
 * period measured and publish the orders it returns: one law state per
 * class and domain (NUMA node and core type), which serves faults outside the stream table and is
 * the starting point of new streams, and one per stream.  Every step with
 * faults is traced (afa_ctl_step), every change of order too
 * (afa_order_change).  Runs in the period worker, figures lock held.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/minmax.h>
#include <linux/slab.h>
#include "afa.h"
#include "control_law.h"
#include "stream.h"
#include "topology.h"
#include "trace.h"

static struct afa_ctl_params afa_ctl_now;	/* params of this period */
static struct afa_ctl_state *afa_class_ctl;	/* [domain][class] */
static u8 *afa_class_order;			/* [domain][class], fault path */

static unsigned int afa_dc_index(unsigned int dom, unsigned int class)
{
	return dom * AFA_NR_CLASSES + class;
}

/** afa_ctl_params_now() - the law's parameters for the current period */
const struct afa_ctl_params *afa_ctl_params_now(void)
{
	return &afa_ctl_now;
}

/**
 * afa_class_order_get() - window order of a class in a domain
 * @dom:	domain of the faulting CPU
 * @class:	enum afa_class
 *
 * Fault path: one read, no lock.
 *
 * Return: the order the class's own law state holds.
 */
u8 afa_class_order_get(unsigned int dom, unsigned int class)
{
	return READ_ONCE(afa_class_order[afa_dc_index(dom, class)]);
}

static u32 afa_sat32(u64 v)
{
	return min_t(u64, v, U32_MAX);
}

static void afa_class_step(unsigned int dom, unsigned int class,
			   u32 period_ms)
{
	const struct afa_class_fig *f = afa_period_fig(dom, class);
	struct afa_ctl_state *st = &afa_class_ctl[afa_dc_index(dom, class)];
	struct afa_ctl_input in = {
		.nr_faults = afa_sat32(f->faults),
		.nr_sampled = afa_sat32(f->checked),
		.nr_used = afa_sat32(f->used),
		.nr_hits = afa_sat32(f->hits),
		.nr_misses = afa_sat32(f->faults - f->hits),
		.period_ms = period_ms,
	};
	static const struct afa_stream_id class_id = { .slot = -1 };
	struct afa_ctl_trace tr;
	u8 old = st->order;
	u32 new;

	if (!in.nr_faults)
		return;
	new = afa_ctl_step(st, &afa_ctl_now, &in, &tr);
	trace_afa_ctl_step(class, dom, &class_id, &in, &tr);
	if (new != old) {
		WRITE_ONCE(afa_class_order[afa_dc_index(dom, class)], new);
		trace_afa_order_change(class, dom, &class_id, old, new,
				       tr.reason);
	}
}

static void afa_stream_step(struct afa_stream *s, u32 period_ms)
{
	struct afa_ctl_input in = {
		.nr_faults = s->period.faults,
		.nr_sampled = s->period.checked,
		.nr_used = s->period.used,
		.nr_hits = s->period.hits,
		.nr_misses = s->period.faults - s->period.hits,
		.period_ms = period_ms,
	};
	struct afa_ctl_trace tr;
	u8 old = s->order;
	u32 new;

	if (!in.nr_faults)
		return;
	new = afa_ctl_step(&s->ctl, &afa_ctl_now, &in, &tr);
	trace_afa_ctl_step(s->class, s->domain, &s->id, &in, &tr);
	if (new != old) {
		afa_stream_set_order(s, new);
		trace_afa_order_change(s->class, s->domain, &s->id, old, new,
				       tr.reason);
	}
}

/* New bounds: pull every state inside them, keeping what it learned. */
static void afa_control_rebound(void)
{
	const struct afa_ctl_params *p = &afa_ctl_now;
	struct afa_stream *s;
	unsigned int i;
	u8 order;

	for (i = 0; i < afa_nr_domains * AFA_NR_CLASSES; i++) {
		order = clamp_t(u8, afa_class_ctl[i].order, p->min_order,
				p->max_order);
		if (order == afa_class_ctl[i].order)
			continue;
		afa_ctl_init(&afa_class_ctl[i], p, order);
		WRITE_ONCE(afa_class_order[i], order);
	}
	for (i = 0; i < AFA_NR_STREAMS; i++) {
		s = afa_stream_slot(i);
		order = clamp_t(u8, s->order, p->min_order, p->max_order);
		if (!s->key.mm || order == s->order)
			continue;
		afa_ctl_init(&s->ctl, p, order);
		afa_stream_set_order(s, order);
	}
}

/**
 * afa_control_period() - one control step for every class and stream
 * @period_ms:	measured length of the period just closed
 */
void afa_control_period(u32 period_ms)
{
	unsigned int dom, class, i;
	struct afa_stream *s;

	if (afa_params_snapshot(&afa_ctl_now))
		afa_control_rebound();
	for (dom = 0; dom < afa_nr_domains; dom++)
		for (class = 0; class < AFA_NR_CLASSES; class++)
			afa_class_step(dom, class, period_ms);
	for (i = 0; i < AFA_NR_STREAMS; i++) {
		s = afa_stream_slot(i);
		if (s->key.mm)
			afa_stream_step(s, period_ms);
	}
}

int afa_control_init(void)
{
	unsigned int i, n = afa_nr_domains * AFA_NR_CLASSES;

	afa_params_snapshot(&afa_ctl_now);
	afa_class_ctl = kcalloc(n, sizeof(*afa_class_ctl), GFP_KERNEL);
	afa_class_order = kcalloc(n, sizeof(*afa_class_order), GFP_KERNEL);
	if (!afa_class_ctl || !afa_class_order) {
		afa_control_exit();
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		afa_ctl_init(&afa_class_ctl[i], &afa_ctl_now,
			     afa_initial_order_get(&afa_ctl_now));
		afa_class_order[i] = afa_class_ctl[i].order;
	}
	return 0;
}

void afa_control_exit(void)
{
	kfree(afa_class_ctl);
	kfree(afa_class_order);
	afa_class_ctl = NULL;
	afa_class_order = NULL;
}

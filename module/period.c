// SPDX-License-Identifier: GPL-2.0
/*
 * The period worker: once per period_ms it folds the per-CPU fault-path
 * counters into per-class, per-domain figures, checks the usefulness
 * samples that are old enough, and traces one afa_sample event per class
 * and domain that saw activity.  Figures are written here only, under
 * afa_fig_lock, which stats readers share; the fault path never takes it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "account.h"
#include "afa.h"
#include "stream.h"
#include "topology.h"
#include "trace.h"

DEFINE_PER_CPU(struct afa_cpu_count, afa_count);

/* State of one class in one domain (NUMA node and core type). */
struct afa_dom_class {
	struct afa_class_count seen;	/* counter sums at the last fold */
	struct afa_class_fig cur;	/* the period being folded */
	struct afa_fig_view view;	/* complete periods, for stats */
};

static struct afa_dom_class *afa_dom;	/* [afa_nr_domains][AFA_NR_CLASSES] */

/* Number of the current period; the fault path reads it to date notes. */
unsigned long afa_period_seq;
static struct afa_global_view afa_global;
static unsigned long afa_period_stamp;	/* jiffies at the last fold */
static DEFINE_MUTEX(afa_fig_lock);
static struct delayed_work afa_period_work;

static struct afa_dom_class *afa_dc(unsigned int dom, unsigned int class)
{
	return &afa_dom[dom * AFA_NR_CLASSES + class];
}

/**
 * afa_period_fig() - the figures being folded for this period
 * @dom:	domain
 * @class:	enum afa_class
 *
 * Only for the period worker, with afa_fig_lock held.
 *
 * Return: the period's figures of @class in @dom.
 */
struct afa_class_fig *afa_period_fig(unsigned int dom, unsigned int class)
{
	lockdep_assert_held(&afa_fig_lock);
	return &afa_dc(dom, class)->cur;
}

/* Sum one class's counters over the CPUs of @dom. */
static void afa_sum_counts(unsigned int dom, unsigned int class,
			   struct afa_class_count *sum)
{
	const struct afa_class_count *c;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		if (per_cpu(afa_cpu_domain, cpu) != dom)
			continue;
		c = per_cpu_ptr(&afa_count.class[class], cpu);
		sum->faults += READ_ONCE(c->faults);
		sum->hits += READ_ONCE(c->hits);
		sum->window_pages += READ_ONCE(c->window_pages);
		sum->nonempty += READ_ONCE(c->nonempty);
		sum->sampled += READ_ONCE(c->sampled);
		sum->sample_mapped += READ_ONCE(c->sample_mapped);
		sum->sample_dropped += READ_ONCE(c->sample_dropped);
	}
}

/* Start the period of one class: counter deltas since the last fold. */
static void afa_fold_counts(unsigned int dom, unsigned int class)
{
	struct afa_dom_class *dc = afa_dc(dom, class);
	struct afa_class_fig *f = &dc->cur;
	struct afa_class_count now;

	afa_sum_counts(dom, class, &now);
	memset(f, 0, sizeof(*f));
	f->faults = afa_delta(now.faults, dc->seen.faults);
	f->hits = afa_delta(now.hits, dc->seen.hits);
	f->window_pages = afa_delta(now.window_pages, dc->seen.window_pages);
	f->nonempty = afa_delta(now.nonempty, dc->seen.nonempty);
	f->sampled = afa_delta(now.sampled, dc->seen.sampled);
	f->sample_mapped = afa_delta(now.sample_mapped,
				     dc->seen.sample_mapped);
	f->sample_dropped = afa_delta(now.sample_dropped,
				      dc->seen.sample_dropped);
	dc->seen = now;
}

static void afa_fig_add(struct afa_class_fig *sum,
			const struct afa_class_fig *f)
{
	sum->faults += f->faults;
	sum->hits += f->hits;
	sum->window_pages += f->window_pages;
	sum->nonempty += f->nonempty;
	sum->sampled += f->sampled;
	sum->sample_mapped += f->sample_mapped;
	sum->sample_dropped += f->sample_dropped;
	sum->checked += f->checked;
	sum->used += f->used;
	sum->lost += f->lost;
}

static bool afa_fig_active(const struct afa_class_fig *f)
{
	return f->faults || f->checked || f->lost || f->sample_dropped;
}

/* Close the period of one class: publish it and trace it. */
static void afa_close_period(unsigned int dom, unsigned int class,
			     u32 period_ms)
{
	struct afa_dom_class *dc = afa_dc(dom, class);
	const struct afa_class_fig *f = &dc->cur;

	dc->view.last = *f;
	if (!afa_fig_active(f))
		return;
	afa_fig_add(&dc->view.total, f);
	trace_afa_sample(class, dom, period_ms, f);
}

static void afa_fold_global(u32 period_ms)
{
	u64 filemap = 0, user = 0, calls = 0;
	unsigned int dom, class;
	int cpu;

	for_each_possible_cpu(cpu) {
		filemap += READ_ONCE(per_cpu_ptr(&afa_count, cpu)->filemap_faults);
		user += READ_ONCE(per_cpu_ptr(&afa_count, cpu)->user_faults);
	}
	for (dom = 0; dom < afa_nr_domains; dom++)
		for (class = 0; class < AFA_NR_CLASSES; class++)
			calls += afa_dc(dom, class)->cur.faults;
	afa_kernel_window_check(calls, filemap - afa_global.filemap_faults);
	afa_global.filemap_faults = filemap;
	afa_global.user_faults = user;
	afa_global.period_ms = period_ms;
	afa_global.nr_periods++;
}

static u8 afa_new_stream_order(unsigned int dom, unsigned int class)
{
	return afa_class_order_get(dom, class);
}

/*
 * One period: fold what the fault path counted, check old enough samples,
 * publish and trace the figures, let the law set the windows, then admit
 * the streams noted this period and retire the long idle ones.
 */
static void afa_period_fn(struct work_struct *work)
{
	unsigned long now = jiffies;
	u32 period_ms = jiffies_to_msecs(now - afa_period_stamp);
	unsigned int dom, class;

	mutex_lock(&afa_fig_lock);
	afa_period_stamp = now;
	for (dom = 0; dom < afa_nr_domains; dom++)
		for (class = 0; class < AFA_NR_CLASSES; class++)
			afa_fold_counts(dom, class);
	afa_stream_fold();
	afa_access_check(false);
	for (dom = 0; dom < afa_nr_domains; dom++)
		for (class = 0; class < AFA_NR_CLASSES; class++)
			afa_close_period(dom, class, period_ms);
	afa_fold_global(period_ms);
	afa_control_period(period_ms);
	afa_stream_add_noted(afa_period_seq, afa_new_stream_order);
	afa_stream_evict_idle();
	WRITE_ONCE(afa_period_seq, afa_period_seq + 1);
	afa_topology_refresh();
	mutex_unlock(&afa_fig_lock);

	queue_delayed_work_on(afa_work_cpu(), system_wq, &afa_period_work,
			      msecs_to_jiffies(READ_ONCE(afa_period_ms)));
}

/**
 * afa_period_view() - copy the figures of one domain for display
 * @dom:	domain
 * @view:	AFA_NR_CLASSES entries to fill
 * @global:	filled with the global figures
 */
void afa_period_view(unsigned int dom, struct afa_fig_view *view,
		     struct afa_global_view *global)
{
	unsigned int class;

	mutex_lock(&afa_fig_lock);
	for (class = 0; class < AFA_NR_CLASSES; class++)
		view[class] = afa_dc(dom, class)->view;
	*global = afa_global;
	mutex_unlock(&afa_fig_lock);
}

/**
 * afa_period_show_streams() - print the stream table, consistently
 * @m:	the stats file
 */
void afa_period_show_streams(struct seq_file *m)
{
	mutex_lock(&afa_fig_lock);
	afa_stream_show(m);
	mutex_unlock(&afa_fig_lock);
}

int afa_period_init(void)
{
	afa_dom = kcalloc(afa_nr_domains * AFA_NR_CLASSES, sizeof(*afa_dom),
			  GFP_KERNEL);
	if (!afa_dom)
		return -ENOMEM;
	afa_period_stamp = jiffies;
	INIT_DELAYED_WORK(&afa_period_work, afa_period_fn);
	schedule_delayed_work(&afa_period_work,
			      msecs_to_jiffies(READ_ONCE(afa_period_ms)));
	return 0;
}

/*
 * Stop the worker for good (cancel_delayed_work_sync() also stops a work
 * that requeues itself).  The probes must be gone already, so that no new
 * sample can hold an mm: the remaining ones are dropped unchecked.
 */
void afa_period_exit(void)
{
	cancel_delayed_work_sync(&afa_period_work);
	mutex_lock(&afa_fig_lock);
	afa_access_check(true);
	mutex_unlock(&afa_fig_lock);
	kfree(afa_dom);
	afa_dom = NULL;
}

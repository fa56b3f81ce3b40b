// SPDX-License-Identifier: GPL-2.0
/*
 * The period worker: it folds the per-CPU fault-path counters, steps the
 * law of every stream and class that gathered evidence enough, publishes
 * the new orders, and adds the files the fault path noted.
 *
 * When it runs: every period_ms while there are faults; sooner, at once,
 * when a CPU has gathered a batch of evidence or noted a new file
 * (afa_period_kick(), from the fault path through an irq_work), but not
 * twice in a jiffy (a kick in the last fold's jiffy is dropped, and the
 * CPU's next batch asks again) except for up to AFA_QUICK_FOLDS folds
 * after one that moved an order: a state moves at most once a fold, so
 * a short process would otherwise see one move a jiffy; never while
 * there are no faults: a fold that finds none does not queue the next,
 * and the next fault wakes it.  So the law's cadence is the evidence's,
 * and an idle machine stays idle.  Each period is queued on an idle CPU
 * (topology.c) while the CPU choice still holds.
 *
 * Everything folded is written here only, under afa_stats_lock, which
 * the stats reader shares; the fault path never takes it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>
#include "afa.h"
#include "compat.h"
#include "stream.h"
#include "topology.h"

DEFINE_PER_CPU(struct afa_cpu_count, afa_count);

/* What the fault path reads of the worker's decisions. */
struct afa_fault_limits afa_limits = { .max_order = AFA_ORDER_MAX };
unsigned long afa_table_gen;
atomic_t afa_steer_gen = ATOMIC_INIT(1);

/**
 * afa_steer_changed() - a parameter the fast path relies on was written
 *
 * Any context, after the write: fully ordered, so that a fault path that
 * reads the new generation (acquire) reads the new value.  Skips 0.
 */
void afa_steer_changed(void)
{
	if (!atomic_inc_return(&afa_steer_gen))
		atomic_inc(&afa_steer_gen);
}

/* Global figures of the folds, for stats. */
struct afa_global_stats {
	u64 nr_folds;			/* folds since load */
	u64 nr_kicked;			/* of those, brought forward */
	u64 filemap_faults;		/* ->fault calls, total */
	u32 filemap_seen;		/* per-CPU sum at the last fold */
	u32 mismatch_seen;		/* per-CPU sum at the last fold */
	u32 last_fold_ms;		/* time the last fold covered */
};

static struct afa_global_stats afa_global;
/*
 * Folds that may run at once on a kick after a fold that moved an order,
 * sooner than the next jiffy; each fold that moves renews them.  A state
 * moves at most once a fold, a batch after a move is about 48 faults
 * (three kicks), and at HZ=250 a fresh process of 512 faults lives about
 * two jiffies: at one fold a jiffy it could move twice.  Quick folds are
 * thus at most AFA_QUICK_FOLDS per move, and a table at rest folds at
 * most once a jiffy however fast its evidence comes.
 */
#define AFA_QUICK_FOLDS		8

static DEFINE_MUTEX(afa_stats_lock);
/*
 * A write of period_ms against the worker's start, stop and requeue: the
 * work exists and may be queued only while afa_period_running.
 */
static DEFINE_MUTEX(afa_period_lock);
static bool afa_period_running;
static struct delayed_work afa_period_work;
static DEFINE_PER_CPU(struct irq_work, afa_kick_work);
static unsigned long afa_last_fold;	/* jiffies */
static bool afa_period_stopping;
/* When the next fold runs at the latest; far ahead while idle. */
static unsigned long afa_next_fold;
/* No fold queued until a fault comes (afa_period_wake(), afa.h). */
bool afa_period_idle;
/* Folds left since a move that a kick runs at once; 0: wait a jiffy. */
static unsigned int afa_quick_left;
/*
 * Pull the class states inside their bounds at the first fold:
 * parameters written between the class states' start and the worker's.
 */
static bool afa_rebound_first;

/* Queue the next period on an idle CPU, while that choice holds. */
static void afa_period_queue(unsigned long delay)
{
	cpus_read_lock();
	/* a kick may have found it idle as the last fold went idle */
	WRITE_ONCE(afa_period_idle, false);
	WRITE_ONCE(afa_next_fold, jiffies + delay);
	queue_delayed_work_on(afa_work_cpu(), afa_percpu_wq, &afa_period_work,
			      delay);
	cpus_read_unlock();
}

/*
 * Queue a fold to run now, on this CPU: the irq_work afa_period_wake_up()
 * raised, in hard interrupt context, on PREEMPT_RT too (IRQ_WORK_HARD_IRQ:
 * mod_delayed_work() takes raw locks only).  RT runs other irq_works in
 * a per-CPU thread, which leaves them pending while their CPU is
 * offline, and unload's irq_work_sync() would wait for its return.
 * Never a timer of a jiffy: under load such a timer fired up to three
 * jiffies late (a fresh process lives less than one), and while it
 * waited no kick could ask.
 */
static void afa_kick_fn(struct irq_work *work)
{
	if (READ_ONCE(afa_period_stopping))
		return;
	WRITE_ONCE(afa_period_idle, false);
	WRITE_ONCE(afa_next_fold, jiffies);
	mod_delayed_work(afa_percpu_wq, &afa_period_work, 0);
}

/**
 * afa_period_wake_up() - ask for a fold to run now, on this CPU
 *
 * afa_period_kick() calls it with evidence waiting, afa_period_wake()
 * (afa.h) while the worker is idle.  Fault path, preemption off: it
 * queues this CPU's irq_work, which takes no lock and is safe in any
 * context, NMI included (a kprobe that fires by breakpoint, where the
 * kernel has no kprobes on ftrace, runs in NMI context on x86); the
 * handler queues the work.  From 2026-12-06 to 2026-12-07 the fault path
 * called mod_delayed_work() itself, which takes the timer base's, the
 * pool's and the runqueue's locks and is not NMI-safe, for no gain a
 * benchmark could see (docs/benchmarks.md, "The kick without an
 * irq_work").
 */
void afa_period_wake_up(void)
{
	irq_work_queue(this_cpu_ptr(&afa_kick_work));
}

/**
 * afa_period_kick() - ask for a fold now: evidence or a new file waits
 *
 * Fault path, preemption off.  Nothing while a fold is queued for now;
 * nothing in the jiffy of the last fold but after a move (quick folds):
 * the fault path asks again at its next batch of evidence, and a fold a
 * jiffy at most is what a steady load costs.
 */
void afa_period_kick(void)
{
	unsigned long now = jiffies;

	if (!time_after(READ_ONCE(afa_next_fold), now))
		return;
	if (now == READ_ONCE(afa_last_fold) && !READ_ONCE(afa_quick_left))
		return;
	afa_period_wake_up();
}

/*
 * Per-CPU sums of the global counters.
 * Return: the ->fault calls of the fold.
 */
static u32 afa_fold_global(u64 map_calls, bool *ceiling_fell)
{
	u32 filemap = 0, mismatch = 0, delta;
	int cpu;

	for_each_possible_cpu(cpu) {
		filemap += READ_ONCE(per_cpu_ptr(&afa_count, cpu)->filemap_faults);
		mismatch += READ_ONCE(per_cpu_ptr(&afa_count, cpu)->contract_mismatch);
	}
	afa_contract_fold(mismatch - afa_global.mismatch_seen);
	afa_global.mismatch_seen = mismatch;
	delta = filemap - afa_global.filemap_seen;
	afa_global.filemap_seen = filemap;
	afa_global.filemap_faults += delta;
	*ceiling_fell = afa_kernel_window_check(map_calls, delta);
	return delta;
}

/*
 * The rand class's largest order as its law runs it (afa_class_params():
 * MADV_RANDOM's ceiling, the kernel's order as last known), so that
 * the fault path takes no growth test the law would drop, and judges a
 * mapping there by the evidence its lane's law keeps (split.h).
 */
static void afa_period_rand_limit(const struct afa_ctl_params *p)
{
	struct afa_ctl_params tmp;

	WRITE_ONCE(afa_limits.rand_max_order,
		   afa_class_params(AFA_CLASS_RAND, p, &tmp)->max_order);
}

/*
 * Parameters for this fold, and the fault path's bounds from them.
 * Return: true when they changed: the fold pulls its states inside the
 * new bounds, after its laws took in what was gathered before.
 */
static bool afa_period_params(struct afa_ctl_params *p)
{
	bool changed = afa_params_snapshot(p);

	if (READ_ONCE(afa_limits.min_order) != p->min_order) {
		WRITE_ONCE(afa_limits.min_order, p->min_order);
		afa_steer_changed();
	}
	WRITE_ONCE(afa_limits.max_order, p->max_order);
	afa_period_rand_limit(p);
	return changed;
}

/* May the next kick fold at once?  After a move, a few times. */
static void afa_period_quick_set(bool moved)
{
	if (moved)
		WRITE_ONCE(afa_quick_left, AFA_QUICK_FOLDS);
	else if (afa_quick_left)
		WRITE_ONCE(afa_quick_left, afa_quick_left - 1);
}

/* The fold's own figures: when it ran, and whether a kick asked for it. */
static void afa_period_stamp(unsigned long now)
{
	/* capped, not wrapped, after some 50 days without a fold */
	afa_global.last_fold_ms = min_t(u64, jiffies64_to_msecs(now - afa_last_fold),
					U32_MAX);
	afa_global.nr_kicked += time_before(now, afa_last_fold +
					    msecs_to_jiffies(READ_ONCE(afa_period_ms)));
	WRITE_ONCE(afa_last_fold, now);
	afa_global.nr_folds++;
}

/* The table gained files: lookups that found none look again. */
static void afa_period_table_grew(void)
{
	/* Pairs with the probe's acquire: slots before generation. */
	smp_store_release(&afa_table_gen, afa_table_gen + 1);
	/*
	 * The fast path checks no table generation: every half period of
	 * slot generations its stamps go, so that none outlives a full one
	 * (AFA_PUB_GEN_PERIOD), and the records it makes from its entry's
	 * last look are no older than that (probe.c).
	 */
	if (!(afa_table_gen % (AFA_PUB_GEN_PERIOD / 2)))
		afa_steer_changed();
}

/*
 * One fold: take in what the fault path counted, step the laws, publish,
 * add the noted files; then queue the next, or go idle.
 */
static void afa_period_fn(struct work_struct *work)
{
	unsigned long now = jiffies;
	struct afa_ctl_params p;
	struct afa_ctl_costs c;
	unsigned long moves;
	unsigned int added;
	u64 map_calls;
	u32 faults;
	bool rebound, fell;

	mutex_lock(&afa_stats_lock);
	moves = afa_ctl_moves;
	afa_period_stamp(now);
	rebound = afa_period_params(&p) || afa_rebound_first;
	afa_rebound_first = false;
	afa_cost_get(&c);
	map_calls = afa_control_fold(&p, &c);
	map_calls += afa_stream_fold(&p, &c);
	faults = afa_fold_global(map_calls, &fell);
	/* MADV_RANDOM's ceiling came down: rand states under it now. */
	if (fell)
		afa_period_rand_limit(&p);
	/*
	 * Only now: the evidence this fold took in was gathered at the old
	 * orders, which a state pulled inside leaves, with what waits.
	 */
	if (rebound || fell) {
		afa_class_rebound(&p);
		afa_stream_rebound(&p);
	}
	added = afa_stream_add_noted(&p);
	if (added)
		afa_period_table_grew();
	afa_topology_refresh();
	afa_period_quick_set(afa_ctl_moves != moves);
	mutex_unlock(&afa_stats_lock);

	if (READ_ONCE(afa_period_stopping))
		return;
	/*
	 * Any fault, fault-around or not, keeps the period going.  Under
	 * afa_period_lock, period_ms read there: a write meanwhile either
	 * comes first, and this reads its value, or finds this deadline
	 * and brings it forward (afa_period_retime()).
	 */
	if (map_calls || faults || added) {
		mutex_lock(&afa_period_lock);
		if (afa_period_running)
			afa_period_queue(msecs_to_jiffies(READ_ONCE(afa_period_ms)));
		mutex_unlock(&afa_period_lock);
		return;
	}
	WRITE_ONCE(afa_next_fold, jiffies + MAX_JIFFY_OFFSET);
	WRITE_ONCE(afa_period_idle, true);
}

/**
 * afa_period_show() - the global figures, then classes and streams
 * @m:	the stats file
 */
void afa_period_show(struct seq_file *m)
{
	bool enabled;
	const char *attach = afa_probe_attach_name(&enabled);
	/*
	 * Outside afa_stats_lock, as the name: both take afa_probe_lock,
	 * which an enabled write holds across a grace period, and the fold
	 * must not wait for that behind a reader.
	 */
	unsigned long missed = afa_probe_nmissed();

	mutex_lock(&afa_stats_lock);
	seq_printf(m, "# folds=%llu kicked=%llu last_fold_ms=%u period_ms=%u sample_every=%u enabled=%d acting=%d kernel_window=%lu probe_missed=%lu filemap_faults=%llu attach=%s stream_visits=%llu fast_calls=%llu\n",
		   afa_global.nr_folds, afa_global.nr_kicked,
		   afa_global.last_fold_ms, READ_ONCE(afa_period_ms),
		   READ_ONCE(afa_sample_every), enabled,
		   READ_ONCE(afa_limits.act), afa_kernel_window_bytes(),
		   missed, afa_global.filemap_faults, attach,
		   afa_stream_nr_visits(), afa_probe_fast_calls());
	afa_cost_show(m);
	afa_control_show(m);
	afa_stream_show(m);
	mutex_unlock(&afa_stats_lock);
}

/**
 * afa_period_retime() - period_ms was written: bring a later fold forward
 *
 * A fold queued for later than the new period from now runs at the new
 * period; an idle worker stays idle (the next fault wakes it), and at
 * load, before the worker exists, there is nothing to do.  Process
 * context: the parameter's setter.
 */
void afa_period_retime(void)
{
	unsigned long delay = msecs_to_jiffies(READ_ONCE(afa_period_ms));

	mutex_lock(&afa_period_lock);
	if (afa_period_running && !READ_ONCE(afa_period_idle) &&
	    time_after(READ_ONCE(afa_next_fold), jiffies + delay)) {
		cpus_read_lock();
		WRITE_ONCE(afa_next_fold, jiffies + delay);
		mod_delayed_work_on(afa_work_cpu(), afa_percpu_wq,
				    &afa_period_work, delay);
		cpus_read_unlock();
	}
	mutex_unlock(&afa_period_lock);
}

int afa_period_init(void)
{
	struct afa_ctl_params p;
	int cpu;

	/* The fault path's bounds from the first fault, not the first fold. */
	afa_rebound_first = afa_period_params(&p);
	for_each_possible_cpu(cpu)
		per_cpu(afa_kick_work, cpu) = IRQ_WORK_INIT_HARD(afa_kick_fn);
	afa_last_fold = jiffies;
	afa_period_stopping = false;
	INIT_DELAYED_WORK(&afa_period_work, afa_period_fn);
	mutex_lock(&afa_period_lock);
	afa_period_queue(msecs_to_jiffies(READ_ONCE(afa_period_ms)));
	afa_period_running = true;
	mutex_unlock(&afa_period_lock);
	return 0;
}

/*
 * Stop the worker for good.  The probes must be gone already, and no
 * handler running (afa_probe_exit()): no new kick can come; the ones in
 * flight are waited for, then the work.
 */
void afa_period_exit(void)
{
	int cpu;

	mutex_lock(&afa_period_lock);
	afa_period_running = false;
	WRITE_ONCE(afa_period_stopping, true);
	mutex_unlock(&afa_period_lock);
	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&afa_kick_work, cpu));
	cancel_delayed_work_sync(&afa_period_work);
}

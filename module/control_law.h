/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-point control law of autofaultaround: pure functions of scalars,
 * no mm types, so that KUnit and a userspace build can exercise them.
 * The law is written out as equations at the head of control_law.c and
 * argued in docs/control-law.md.
 */
#ifndef _AFA_CONTROL_LAW_H
#define _AFA_CONTROL_LAW_H

#include <linux/bits.h>
#include <linux/types.h>

/*
 * Ratios (how often a larger window would have served a fault), relative
 * cost changes, gains and fractions of a window order are fixed point in
 * AFA_UNIT: 0 means none, AFA_UNIT means all, a gain of AFA_UNIT is 1.0
 * and AFA_UNIT of output is one order.  2^10 resolves 0.1% steps, finer
 * than a batch of evidence can measure, and keeps products of a ratio and
 * a cost in nanoseconds inside 64 bits with room to spare.  AFA_UNIT is
 * signed so that it mixes with s32 error terms without turning them
 * unsigned; it converts to u32 and u64 unchanged.
 */
#define AFA_SCALE	10
#define AFA_UNIT	((s32)BIT(AFA_SCALE))

/*
 * EWMA weights are shifts: a new batch gets weight 1/2^shift.  A shift of
 * 0 disables smoothing; 16 is far slower than any useful loop.
 */
#define AFA_EWMA_SHIFT_MAX	16

/*
 * Largest window order the law hands out.  do_fault_around() never maps
 * past one page table, and 2^9 pages is PTRS_PER_PTE on x86-64 and arm64
 * with 4 KiB pages; callers on other geometries pass a lower max_order.
 */
#define AFA_ORDER_MAX		9

/*
 * Largest gain accepted: 16.0 turns a predicted saving of 1/32 (twice
 * the default deadband) into half an order in one step.  Any larger gain
 * only makes the law bang-bang.
 */
#define AFA_GAIN_MAX		(16 * AFA_UNIT)

/*
 * Costs are nanoseconds.  2^20 ns (about a millisecond) is far above any
 * fault or page cost a machine has, and keeps every product in the law
 * below 2^62.
 */
#define AFA_COST_NS_MAX		BIT(20)

/**
 * struct afa_ctl_params - tunables of the control law
 *
 * All fields are u32 so that each can back a module parameter.  Check a
 * set with afa_ctl_params_check() before handing it to afa_ctl_step().
 * Gains are in AFA_UNIT: a gain of AFA_UNIT turns a predicted relative
 * saving of 1.0 (all of the cost) into one window order.
 */
struct afa_ctl_params {
	u32 kp;			/* orders per unit of predicted saving */
	u32 ki;			/* orders per unit of saving, per step */
	u32 kd;			/* orders per unit of saving change, per step */
	u32 deadband;		/* |saving| at or below which nothing moves */
	u32 hysteresis;		/* output past half an order needed to step */
	u32 ewma_shift;		/* evidence smoothing weight 1/2^shift */
	u32 min_samples;	/* evidence a step needs, in faults and trials */
	u32 min_order;		/* smallest window order */
	u32 max_order;		/* largest window order, <= AFA_ORDER_MAX */
	u32 max_step;		/* orders moved per step at most */
};

/*
 * Default tunables, argued in docs/control-law.md, as an initializer so
 * that a static struct afa_ctl_params can start from them.
 *
 * kp:		4: a predicted saving of 1/8 of the cost is half an order,
 *		sequential access at order 0 (saving about 0.4) a step at
 *		once
 * ki:		1: a saving too small to step at once (near the optimum)
 *		adds up: 1/8 steps within two batches, 1/64 within 44
 * kd:		off; the plant has no inertia to anticipate, D adds noise
 * deadband:	1/64: savings below 1.6% are not worth a step; the
 *		integral, not one batch, has to resolve them.  It sets
 *		where a scan stops growing (N >= 31 r): at 1/32 that was
 *		order 6 on the bench machine, 4.8% over what a larger
 *		window still saves, measured +3.8% over order 8 on
 *		fresh-seq; 1/64 stopped at 7, until free steps
 *		(control_law.c) took a scan on to max_order
 * hysteresis:	1/4: a step needs 3/4 of an order of output: a batch
 *		right after a step undoes it only if it predicts a saving
 *		of 3/16 or more the other way
 * ewma_shift:	1: a new batch weighs 1/2, the average forgets in about
 *		two batches and starts afresh at every step
 * min_samples:	8 faults (or trials) per step: a ratio to 1/8, the
 *		evidence a process that takes a few dozen faults leaves
 * max_step:	1 order a step: two orders at once can jump over a sharp
 *		optimum and cycle around it; one fold takes a step per
 *		batch, so the window still crosses the range within a fold
 */
#define AFA_MIN_SAMPLES_DEFAULT	8

#define AFA_CTL_PARAMS_DEFAULT {		\
	.kp = AFA_UNIT * 4,			\
	.ki = AFA_UNIT,				\
	.kd = 0,				\
	.deadband = AFA_UNIT / 64,		\
	.hysteresis = AFA_UNIT / 4,		\
	.ewma_shift = 1,			\
	.min_samples = AFA_MIN_SAMPLES_DEFAULT,	\
	.min_order = 0,				\
	.max_order = AFA_ORDER_MAX,		\
	.max_step = 1,				\
}

extern const struct afa_ctl_params afa_ctl_params_default;

/**
 * struct afa_ctl_costs - what a fault and a page cost on this machine
 * @fault_ns:	a read fault, without the pages it maps
 * @page_ns:	mapping one page and unmapping it later, plus any price the
 *		administrator puts on memory
 *
 * Both in [1, AFA_COST_NS_MAX]; afa_ctl_costs_clamp() makes them so.
 */
struct afa_ctl_costs {
	u32 fault_ns;
	u32 page_ns;
};

/**
 * struct afa_ctl_input - the evidence gathered at one order of one stream
 *
 * All counts are since the last step, during which the window order last
 * returned by afa_ctl_step() was applied.
 */
struct afa_ctl_input {
	u32 nr_faults;		/* faults at the order, with a growth test */
	u32 nr_grow_hits;	/* of those, a window twice as large had served */
	u32 nr_trials;		/* faults given half the window, resolved */
	u32 nr_trial_hits;	/* of those, the half left out was wanted */
	u32 nr_spans;		/* faults whose pages mapped were measured */
	u32 nr_span_pages;	/* pages they mapped: a ratio, not used up */
};

/**
 * struct afa_ctl_state - controller state of one stream
 *
 * Kept small (12 bytes) because there is one per file.  Set it up with
 * afa_ctl_init(); only afa_ctl_step() changes it.  Fixed-point fields
 * are in AFA_UNIT.
 */
struct afa_ctl_state {
	s16 integral;		/* pending movement, in [-1, 1] order */
	s16 prev_error;		/* last error, for the D term */
	u16 grow_avg;		/* smoothed grow-hit ratio at this order */
	u16 trial_avg;		/* smoothed trial-hit ratio at this order */
	u8 order;		/* window order applied now */
	u8 fresh_grow:1;	/* next grow ratio restarts its average */
	u8 fresh_trial:1;	/* next trial ratio restarts its average */
	u8 have_grow:1;		/* grow_avg holds evidence at this order */
	u8 have_trial:1;	/* trial_avg holds evidence at this order */
	u8 at_rest:3;		/* steps in a row that found the order right */
	u8 shrink_pays:1;	/* the last trials here predicted a step down */
	u8 trial_batches:2;	/* batches of trials at this order, to 3 */
};

/*
 * Steps in a row that found the order right (neither direction pays
 * beyond the deadband, or only past a bound) after which a state is
 * settled: three batches, so that one lucky batch does not settle a
 * stream that is still moving.  A settled stream takes its growth test
 * and trials on a sample of its faults (probe.c); any other step, and
 * any move, unsettles it.  Fits at_rest (3 bits).
 */
#define AFA_CTL_SETTLED_STEPS	3

/*
 * Pending shrink a step may leave and still count towards settling, when
 * its batch has no trials to judge it by and nothing else pays (a batch
 * of faults alone, after trials integrated a small shrink): an eighth of
 * an order, a quarter of the way to a move at the default hysteresis.
 * Counted as pending, such batches (every batch but about one in four,
 * where trials are one fault in sample_every) kept streams near their
 * break-even from ever settling, tested at every fault for good.  A
 * pending growth is not so counted: a scan climbs through small savings
 * near the deadband, and settling there samples its growth tests one
 * fault in eight (fresh-seq: 191 faults against 106).
 */
#define AFA_CTL_REST_SHRINK	(AFA_UNIT / 8)

/**
 * enum afa_ctl_reason - why afa_ctl_step() chose its order
 * @AFA_CTL_FEW_SAMPLES:	not enough evidence for a step yet
 * @AFA_CTL_DEADBAND:		neither direction saves more than the deadband
 * @AFA_CTL_PENDING:		integrating, not yet enough to step; or within the
 *				deadband but judged from one side only
 * @AFA_CTL_GROW:		order raised
 * @AFA_CTL_SHRINK:		order lowered
 * @AFA_CTL_NR_REASONS:		number of reasons
 */
enum afa_ctl_reason {
	AFA_CTL_FEW_SAMPLES,
	AFA_CTL_DEADBAND,
	AFA_CTL_PENDING,
	AFA_CTL_GROW,
	AFA_CTL_SHRINK,
	AFA_CTL_NR_REASONS
};

/**
 * struct afa_ctl_trace - the terms of one step, for the afa_ctl_step event
 *
 * Terms and output are in 1/AFA_UNIT orders, ratios and savings in
 * AFA_UNIT.  Fields a step did not reach are 0.
 */
struct afa_ctl_trace {
	u32 order;		/* order applied while the evidence was taken */
	u32 new_order;		/* order from now on (returned) */
	u32 grow_ratio;		/* smoothed nr_grow_hits / nr_faults */
	u32 trial_ratio;	/* smoothed nr_trial_hits / nr_trials */
	u32 span;		/* pages a fault maps, 1/AFA_UNIT; 0: unknown */
	s32 save_grow;		/* predicted relative saving of order + 1 */
	s32 save_shrink;	/* predicted relative saving of order - 1 */
	s32 error;		/* the saving the law acts on, signed */
	s32 p;			/* proportional term */
	s32 i;			/* integral term: pending movement */
	s32 d;			/* derivative term */
	s32 output;		/* order + p + i + d, before quantising */
	enum afa_ctl_reason reason;
};

u32 afa_ewma(u32 avg, u32 sample, u32 shift);
u32 afa_clamp_order(s32 order, u32 min_order, u32 max_order);
u64 afa_order_to_bytes(u32 order, u32 page_shift);
void afa_ctl_costs_clamp(struct afa_ctl_costs *c);
s32 afa_saving_grow(u32 order, u32 grow_ratio, const struct afa_ctl_costs *c);
s32 afa_saving_shrink(u32 order, u32 trial_ratio,
		      const struct afa_ctl_costs *c);
u32 afa_ctl_span(const struct afa_ctl_params *p, const struct afa_ctl_input *in);
s32 afa_saving_grow_span(u32 order, u32 grow_ratio, u32 span,
			 const struct afa_ctl_costs *c);
s32 afa_saving_shrink_span(u32 order, u32 trial_ratio, u32 span,
			   const struct afa_ctl_costs *c);
bool afa_ctl_input_ready(const struct afa_ctl_state *st,
			 const struct afa_ctl_params *p,
			 const struct afa_ctl_input *in);
void afa_ctl_batch(struct afa_ctl_input *in, const struct afa_ctl_state *st,
		   const struct afa_ctl_params *p, struct afa_ctl_input *batch);

int afa_ctl_params_check(const struct afa_ctl_params *p);
void afa_ctl_init(struct afa_ctl_state *st, const struct afa_ctl_params *p,
		  u32 order);
bool afa_ctl_settled(const struct afa_ctl_state *st);
bool afa_ctl_rare_trials(const struct afa_ctl_state *st);
u32 afa_ctl_step(struct afa_ctl_state *st, const struct afa_ctl_params *p,
		 const struct afa_ctl_costs *c, const struct afa_ctl_input *in,
		 struct afa_ctl_trace *tr);
const char *afa_ctl_reason_name(enum afa_ctl_reason reason);

#endif /* _AFA_CONTROL_LAW_H */

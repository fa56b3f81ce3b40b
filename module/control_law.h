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
 * Ratios (hit ratio, usefulness) are fixed point in AFA_UNIT: 0 means
 * none, AFA_UNIT means all.  2^10 resolves 0.1% steps, which is finer
 * than anything a sampling period can measure, and keeps products of a
 * ratio and a 32-bit count inside 64 bits with room to spare.
 *
 * The same scale serves gains (AFA_UNIT is a gain of 1.0) and fractions
 * of a window order (AFA_UNIT is one order).  AFA_UNIT is signed so that
 * it mixes with s32 error terms (-AFA_UNIT, clamps) without turning them
 * unsigned; it converts to u32 and u64 unchanged.
 */
#define AFA_SCALE	10
#define AFA_UNIT	((s32)BIT(AFA_SCALE))

/*
 * EWMA weights are shifts: the new sample gets weight 1/2^shift.  A
 * shift of 0 disables smoothing; 16 is far slower than any useful loop.
 */
#define AFA_EWMA_SHIFT_MAX	16

/*
 * Largest window order the law hands out.  do_fault_around() never maps
 * past one page table, and 2^9 pages is PTRS_PER_PTE on x86-64 with
 * 4 KiB pages; callers on other geometries pass a lower max_order.
 */
#define AFA_ORDER_MAX		9

/*
 * Largest gain accepted: 16.0 turns an error of 1/16 (the default
 * deadband, the smallest error that acts) into a whole order in one
 * period.  Any larger gain only makes the law bang-bang.
 */
#define AFA_GAIN_MAX		(16 * AFA_UNIT)

/**
 * struct afa_ctl_params - tunables of the control law
 *
 * All fields are u32 so that each can back a module parameter.  Check a
 * set with afa_ctl_params_check() before handing it to afa_ctl_step().
 * Gains are in AFA_UNIT: a gain of AFA_UNIT turns a usefulness error of
 * 1.0 (all versus none) into one window order.
 */
struct afa_ctl_params {
	u32 kp;			/* orders per unit of error */
	u32 ki;			/* orders per unit of error per period */
	u32 kd;			/* orders per unit of error change per period */
	u32 setpoint;		/* usefulness to hold, AFA_UNIT, (0, 1) */
	u32 deadband;		/* |error| at or below which nothing moves */
	u32 hysteresis;		/* output past half an order needed to step */
	u32 ewma_shift;		/* usefulness smoothing weight 1/2^shift */
	u32 min_samples;	/* fewer sampled pages in a period: hold */
	u32 min_order;		/* smallest window order */
	u32 max_order;		/* largest window order, <= AFA_ORDER_MAX */
	u32 max_step;		/* orders moved per period at most */
	u32 probe_periods;	/* held periods before a probe, 0: never */
	u32 ref_faults_per_s;	/* fault rate of full growth, 0: always full */
};

/*
 * Default tunables, argued in docs/control-law.md, as an initializer so
 * that a static struct afa_ctl_params can start from them.  One period
 * of the largest error (1/2) moves the output (kp + ki) / 2 = 5/8 of an
 * order, short of the 3/4 (1/2 + hysteresis) needed to step: a step
 * takes two periods that agree, and the period right after a step
 * cannot undo it.
 *
 * kd:		off; the plant has no inertia to anticipate, D adds noise
 * setpoint:	half used: the window maps at most twice what is touched
 * deadband:	1/16: what the smoothed usefulness of min_samples pages
 *		still wanders (see min_samples)
 * ewma_shift:	weight 1/4: noise down to 0.38x, about 4 periods of memory
 * min_samples:	16 pages: a standard error of 1/8 at most, which the EWMA
 *		brings to 0.047, inside the deadband; 16 windows of 2 pages
 *		are what a probe from order 0 can gather in one period from
 *		one CPU's ring of samples
 * probe_periods: finds a new sequential phase within 8 periods, costs
 *		sparse access at order 0 one extra page per fault in 9 periods
 * ref_faults_per_s: about 1 ms of CPU per second in faults; growth below
 *		it saves less than a benchmark resolves, so it is slowed
 */
#define AFA_MIN_SAMPLES_DEFAULT	16

#define AFA_CTL_PARAMS_DEFAULT {		\
	.kp = AFA_UNIT / 2,			\
	.ki = AFA_UNIT * 3 / 4,			\
	.kd = 0,				\
	.setpoint = AFA_UNIT / 2,		\
	.deadband = AFA_UNIT / 16,		\
	.hysteresis = AFA_UNIT / 4,		\
	.ewma_shift = 2,			\
	.min_samples = AFA_MIN_SAMPLES_DEFAULT,	\
	.min_order = 0,				\
	.max_order = AFA_ORDER_MAX,		\
	.max_step = 1,				\
	.probe_periods = 8,			\
	.ref_faults_per_s = 1000,		\
}

extern const struct afa_ctl_params afa_ctl_params_default;

/**
 * struct afa_ctl_input - what one control period measured for one stream
 *
 * All counts are for the period just ended, during which the window
 * order last returned by afa_ctl_step() was applied.
 */
struct afa_ctl_input {
	u32 nr_faults;		/* read faults that called ->map_pages */
	u32 nr_sampled;		/* fault-around pages checked for later use */
	u32 nr_used;		/* of those, pages touched afterwards */
	u32 nr_hits;		/* ->map_pages mapped the faulting page */
	u32 nr_misses;		/* the fault fell through to ->fault */
	u32 period_ms;		/* length of the period */
};

/**
 * struct afa_ctl_state - controller state of one stream
 *
 * Kept small (12 bytes) because there is one per mapping stream.  Set it
 * up with afa_ctl_init(); only afa_ctl_step() changes it.  Fixed-point
 * fields are in AFA_UNIT (ratios, errors; the integral in orders).
 */
struct afa_ctl_state {
	s16 integral;		/* pending movement, in [-1, 1] order */
	s16 prev_error;		/* last smoothed error, for the D term */
	u16 usefulness_avg;	/* smoothed usefulness at this order */
	u16 idle_periods;	/* consecutive held periods, saturating */
	u8 order;		/* window order applied this period */
	u8 base_order;		/* order to return to if a probe fails */
	u8 probing:1;		/* this period is a probe */
	u8 fresh:1;		/* next sample restarts the average */
};

/**
 * enum afa_ctl_reason - why afa_ctl_step() chose its order
 * @AFA_CTL_HOLD_FEW_SAMPLES:	fewer than min_samples pages sampled: no change
 * @AFA_CTL_DEADBAND:		|error| within the deadband: no change
 * @AFA_CTL_PENDING:		integrating, not yet enough to step
 * @AFA_CTL_GROW:		order raised
 * @AFA_CTL_SHRINK:		order lowered
 * @AFA_CTL_SATURATED:		error pushes past min_order or max_order
 * @AFA_CTL_PROBE:		no evidence for a while: try a larger order once
 * @AFA_CTL_PROBE_REVERT:	the probe found the larger window unused: back
 * @AFA_CTL_NR_REASONS:		number of reasons
 */
enum afa_ctl_reason {
	AFA_CTL_HOLD_FEW_SAMPLES,
	AFA_CTL_DEADBAND,
	AFA_CTL_PENDING,
	AFA_CTL_GROW,
	AFA_CTL_SHRINK,
	AFA_CTL_SATURATED,
	AFA_CTL_PROBE,
	AFA_CTL_PROBE_REVERT,
	AFA_CTL_NR_REASONS
};

/**
 * struct afa_ctl_trace - the terms of one step, for the afa_ctl_step event
 *
 * Terms and output are in 1/AFA_UNIT orders, ratios in AFA_UNIT.  Fields
 * a step did not reach (e.g. the terms of a held period) are 0.
 */
struct afa_ctl_trace {
	u32 order;		/* order applied in the period just measured */
	u32 new_order;		/* order for the next period (returned) */
	u32 usefulness;		/* this period's nr_used / nr_sampled */
	u32 usefulness_avg;	/* smoothed usefulness */
	u32 hit_ratio;		/* nr_hits / (nr_hits + nr_misses) */
	u32 rate_weight;	/* weight of growth from the fault rate */
	s32 error;		/* usefulness_avg - setpoint */
	s32 p;			/* proportional term */
	s32 i;			/* integral term: pending movement */
	s32 d;			/* derivative term */
	s32 output;		/* order + p + i + d, before quantising */
	enum afa_ctl_reason reason;
};

u32 afa_ewma(u32 avg, u32 sample, u32 shift);
u32 afa_clamp_order(s32 order, u32 min_order, u32 max_order);
u64 afa_order_to_bytes(u32 order, u32 page_shift);

int afa_ctl_params_check(const struct afa_ctl_params *p);
void afa_ctl_init(struct afa_ctl_state *st, const struct afa_ctl_params *p,
		  u32 order);
u32 afa_ctl_step(struct afa_ctl_state *st, const struct afa_ctl_params *p,
		 const struct afa_ctl_input *in, struct afa_ctl_trace *tr);
const char *afa_ctl_reason_name(enum afa_ctl_reason reason);

#endif /* _AFA_CONTROL_LAW_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-point control law of autofaultaround: pure functions of scalars,
 * no mm types, so that KUnit and a userspace build can exercise them.
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
 */
#define AFA_SCALE	10
#define AFA_UNIT	BIT(AFA_SCALE)

/*
 * EWMA weights are shifts: the new sample gets weight 1/2^shift.  A
 * shift of 0 disables smoothing; 16 is far slower than any useful loop.
 */
#define AFA_EWMA_SHIFT_MAX	16

u32 afa_ewma(u32 avg, u32 sample, unsigned int shift);
unsigned int afa_clamp_order(int order, unsigned int min_order,
			     unsigned int max_order);

#endif /* _AFA_CONTROL_LAW_H */

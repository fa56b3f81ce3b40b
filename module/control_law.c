// SPDX-License-Identifier: GPL-2.0
/*
 * autofaultaround control law.
 *
 * Smoothing of a per-period measurement x_k (a ratio in AFA_UNIT):
 *
 *	avg_k = avg_{k-1} + (x_k - avg_{k-1}) / 2^shift
 *
 * The step is rounded away from zero, in 64 bits: no u32 input overflows,
 * the new average never passes the sample, and a constant input is
 * reached exactly (rounding to nearest would stall up to 2^(shift-1) - 1
 * units short of it, truncation up to 2^shift - 1).
 *
 * The window order is kept inside [min_order, max_order]; an order counts
 * pages, the window is 2^order pages.
 */
#include <linux/math.h>
#include <linux/minmax.h>
#include "control_law.h"

/**
 * afa_ewma() - exponentially weighted moving average step
 * @avg:	previous average
 * @sample:	new measurement
 * @shift:	weight of @sample is 1/2^@shift, clamped to AFA_EWMA_SHIFT_MAX
 *
 * Return: the new average, always between @avg and @sample.
 */
u32 afa_ewma(u32 avg, u32 sample, unsigned int shift)
{
	u64 div;

	shift = min(shift, AFA_EWMA_SHIFT_MAX);
	div = 1ULL << shift;
	if (sample >= avg)
		return avg + (u32)DIV_ROUND_UP_ULL((u64)sample - avg, div);
	return avg - (u32)DIV_ROUND_UP_ULL((u64)avg - sample, div);
}

/**
 * afa_clamp_order() - keep a window order inside the configured bounds
 * @order:	proposed order, may be negative or too large
 * @min_order:	smallest allowed order
 * @max_order:	largest allowed order, not below @min_order
 *
 * Return: @order clamped to [@min_order, @max_order].
 */
unsigned int afa_clamp_order(int order, unsigned int min_order,
			     unsigned int max_order)
{
	if (order < 0 || (unsigned int)order < min_order)
		return min_order;
	return min_t(unsigned int, order, max_order);
}

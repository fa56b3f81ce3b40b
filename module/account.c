// SPDX-License-Identifier: GPL-2.0
/*
 * Period accounting.
 *
 * Counters only grow, per CPU, and may wrap: the count of a period is the
 * difference of two snapshots in modular arithmetic,
 *
 *	n = now - before  (mod 2^64)
 *
 * which is right as long as fewer than 2^64 events happen in one period.
 * Rates are events per second, saturated at U32_MAX; ratios are fixed
 * point in AFA_UNIT (control_law.h) and defined as 0 for an empty period,
 * so that "no data" never reads as "all hits".
 */
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include "account.h"
#include "control_law.h"

/**
 * afa_delta() - events between two snapshots of a wrapping counter
 * @now:	later snapshot
 * @before:	earlier snapshot
 *
 * Return: @now - @before modulo 2^64.
 */
u64 afa_delta(u64 now, u64 before)
{
	return now - before;
}

/**
 * afa_rate_per_s() - events per second over a period
 * @count:	events in the period
 * @period_ms:	length of the period; 0 gives 0
 *
 * Return: @count * 1000 / @period_ms, saturated at U32_MAX.
 */
u32 afa_rate_per_s(u64 count, u32 period_ms)
{
	if (!period_ms)
		return 0;
	/* count * 1000 would wrap above 2^54: such a rate saturates anyway. */
	if (count > div_u64(U64_MAX, 1000))
		return U32_MAX;
	return min_t(u64, div_u64(count * 1000, period_ms), U32_MAX);
}

/**
 * afa_ratio() - @part / @whole in AFA_UNIT
 * @part:	events that count, at most @whole
 * @whole:	all events; 0 gives 0
 *
 * Return: the ratio in [0, AFA_UNIT]; @part above @whole reads as all.
 */
u32 afa_ratio(u64 part, u64 whole)
{
	if (!whole)
		return 0;
	if (part >= whole)
		return AFA_UNIT;
	/* Scale the divisor down instead of the dividend up near 2^64. */
	if (part > U64_MAX >> AFA_SCALE)
		return (u32)div64_u64(part, whole >> AFA_SCALE);
	return (u32)div64_u64(part << AFA_SCALE, whole);
}

/**
 * afa_ratio_permille() - an AFA_UNIT ratio in thousandths, for humans
 * @ratio:	ratio in AFA_UNIT
 *
 * Return: @ratio * 1000 / AFA_UNIT, rounded to nearest.
 */
u32 afa_ratio_permille(u32 ratio)
{
	return (u32)div_u64((u64)ratio * 1000 + AFA_UNIT / 2, AFA_UNIT);
}

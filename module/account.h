/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Period accounting: turn counter snapshots into per-period rates and
 * ratios.  Pure arithmetic, tested by KUnit.
 */
#ifndef _AFA_ACCOUNT_H
#define _AFA_ACCOUNT_H

#include <linux/types.h>

u64 afa_delta(u64 now, u64 before);
u32 afa_rate_per_s(u64 count, u32 period_ms);
u32 afa_ratio(u64 part, u64 whole);
u32 afa_ratio_permille(u32 ratio);

#endif /* _AFA_ACCOUNT_H */

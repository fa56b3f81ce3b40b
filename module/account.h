/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Period accounting: turn counter snapshots into per-period rates and
 * ratios.  Pure arithmetic, tested by KUnit.
 */
#ifndef _AFA_ACCOUNT_H
#define _AFA_ACCOUNT_H

#include <linux/build_bug.h>
#include <linux/types.h>

struct afa_ctl_input;

/*
 * Fault-path evidence of one stream or class on one CPU.  Only that CPU
 * writes; u32 counts wrap, the worker folds deltas.  A part (misses,
 * grow_hits, trial_hits) is read racily against its whole: ratios clamp
 * it, so it never reads as more than all.
 */
struct afa_evidence {
	u32 faults;		/* map_pages calls */
	u32 pages;		/* pages of the windows asked for */
	u32 misses;		/* ->fault followed: the page was not mapped */
	u32 tested;		/* faults with a growth test */
	u32 grow_hits;		/* of those, a twice larger window had served */
	u32 trials;		/* trials resolved */
	u32 trial_hits;		/* of those, the half left out was wanted */
	u32 spans;		/* faults whose pages mapped were measured */
	u32 span_pages;		/* pages those faults mapped (probe.c) */
};

/* account.c adds and subtracts them as an array: every field a u32. */
static_assert(sizeof(struct afa_evidence) % sizeof(u32) == 0);

void afa_evidence_add(struct afa_evidence *sum, const struct afa_evidence *c);
void afa_evidence_delta(struct afa_evidence *d, const struct afa_evidence *now,
			const struct afa_evidence *before);
void afa_evidence_to_input(struct afa_ctl_input *in,
			   const struct afa_evidence *e);
u32 afa_rate_per_s(u64 count, u32 period_ms);
u32 afa_ratio(u64 part, u64 whole);
u32 afa_ratio_permille(u32 ratio);

struct afa_ctl_state;
u32 afa_ctl_grow_permille(const struct afa_ctl_state *st);
u32 afa_ctl_trial_permille(const struct afa_ctl_state *st);

#endif /* _AFA_ACCOUNT_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels the module builds for, in one place:
 * Debian 12's 6.1 and 6.12.
 */
#ifndef _AFA_COMPAT_H
#define _AFA_COMPAT_H

#include <linux/pgtable.h>

#ifndef pmdp_get_lockless
/*
 * 6.1 has no pmdp_get_lockless().  Only x86_64 samples page tables, and
 * there a PMD is one 64-bit load.
 */
static inline pmd_t afa_pmdp_get_lockless(pmd_t *pmdp)
{
	return READ_ONCE(*pmdp);
}

#define pmdp_get_lockless afa_pmdp_get_lockless
#endif

#endif /* _AFA_COMPAT_H */

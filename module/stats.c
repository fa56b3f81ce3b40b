// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs autofaultaround/stats: the figures as a table, root only.
 * Header lines start with '#'; then one line per class and online domain,
 * then one per stream.  No kernel address is shown.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include "afa.h"

static struct dentry *afa_debugfs_dir;

static int afa_stats_show(struct seq_file *m, void *unused)
{
	afa_period_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(afa_stats);

/**
 * afa_stats_init() - create debugfs autofaultaround/stats (mode 0400)
 *
 * Under lockdown (Secure Boot), debugfs refuses to open any file that
 * can be written, the kernel's fault_around_bytes among them, while a
 * read-only one such as the stats stays readable (debugfs_locked_down(),
 * on Debian's 6.1 and 6.12 alike).  Say so once rather than let the
 * administrator's reads fail without a word.
 *
 * Return: 0; a kernel without debugfs only loses the table, and says so.
 */
int afa_stats_init(void)
{
	struct dentry *f;

	if (security_locked_down(LOCKDOWN_DEBUGFS))
		pr_info("kernel lockdown restricts debugfs: fault_around_bytes cannot be read or set; the stats file is read-only and stays readable\n");
	afa_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(afa_debugfs_dir)) {
		pr_info("no debugfs (error %ld): statistics only as trace events\n",
			PTR_ERR(afa_debugfs_dir));
		afa_debugfs_dir = NULL;
		return 0;
	}
	f = debugfs_create_file("stats", 0400, afa_debugfs_dir, NULL,
				&afa_stats_fops);
	if (IS_ERR(f)) {
		pr_info("no debugfs stats file (error %ld): statistics only as trace events\n",
			PTR_ERR(f));
		debugfs_remove(afa_debugfs_dir);
		afa_debugfs_dir = NULL;
	}
	return 0;
}

void afa_stats_exit(void)
{
	debugfs_remove(afa_debugfs_dir);
	afa_debugfs_dir = NULL;
}

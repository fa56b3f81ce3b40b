// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/autofaultaround/stats: the figures as a table, root only.
 * Header lines start with '#'; then one line per class and online domain,
 * then one per stream.  No kernel address is shown.
 *
 * In /proc rather than debugfs: a debugfs file's operations belong to
 * its module, and a read opening it in the instant rmmod has dropped the
 * module's last reference, before the module is marked going, makes the
 * kernel WARN (full_proxy_open() in fs/debugfs/file.c: "debugfs file
 * owner did not clean up at exit"; seen in the stress suite's
 * load-unload loop).  A proc_create_single() file's operations are the
 * kernel's own, and proc_remove() waits for reads in progress and closes
 * the files still open, so no read can reach the module once it is gone
 * (rmmod waits for a read in progress, as for any /proc file).  /proc
 * also needs no debugfs mount, and lockdown leaves it alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/proc_fs.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include "afa.h"

static struct proc_dir_entry *afa_proc_dir;

static int afa_stats_show(struct seq_file *m, void *unused)
{
	afa_period_show(m);
	return 0;
}

/**
 * afa_stats_init() - create /proc/autofaultaround/stats (mode 0400)
 *
 * Under lockdown (Secure Boot), debugfs refuses to open any file that
 * can be written, the kernel's fault_around_bytes among them
 * (debugfs_locked_down(), on Debian's 6.1 and 6.12 alike): say so once
 * rather than let the administrator's reads of it fail without a word.
 *
 * Return: 0; without the file the module only loses the table, and says
 * so.
 */
int afa_stats_init(void)
{
	if (security_locked_down(LOCKDOWN_DEBUGFS))
		pr_info("kernel lockdown restricts debugfs: fault_around_bytes cannot be read or set; the statistics stay readable in /proc/%s/stats\n",
			KBUILD_MODNAME);
	afa_proc_dir = proc_mkdir(KBUILD_MODNAME, NULL);
	if (!afa_proc_dir) {
		pr_info("cannot create /proc/%s: statistics only as trace events\n",
			KBUILD_MODNAME);
		return 0;
	}
	if (!proc_create_single("stats", 0400, afa_proc_dir, afa_stats_show)) {
		pr_info("cannot create /proc/%s/stats: statistics only as trace events\n",
			KBUILD_MODNAME);
		proc_remove(afa_proc_dir);
		afa_proc_dir = NULL;
	}
	return 0;
}

/* Waits for reads in progress; files still open read nothing more. */
void afa_stats_exit(void)
{
	proc_remove(afa_proc_dir);
	afa_proc_dir = NULL;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs autofaultaround/stats: the figures as a table, root only.
 * Rates and ratios are of the last complete period; counts are totals
 * since load.  docs/admin-guide.md defines every column.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "account.h"
#include "afa.h"
#include "control_law.h"
#include "topology.h"

static struct dentry *afa_debugfs_dir;

static void afa_show_permille(struct seq_file *m, u32 permille)
{
	seq_printf(m, " %5u.%u", permille / 10, permille % 10);
}

static void afa_show_row(struct seq_file *m, unsigned int class,
			 unsigned int dom, const struct afa_fig_view *v,
			 u32 period_ms)
{
	const struct afa_class_fig *l = &v->last, *t = &v->total;
	u8 order = afa_class_order_get(dom, class);

	seq_printf(m, "%-8s %4u %-6s %5u %7llu", afa_class_name(class),
		   afa_domain_node(dom), afa_core_name(afa_domain_core(dom)),
		   order, afa_order_to_bytes(order, PAGE_SHIFT) >> 10);
	seq_printf(m, " %9u", afa_rate_per_s(l->faults, period_ms));
	afa_show_permille(m, afa_ratio_permille(afa_ratio(l->hits, l->faults)));
	afa_show_permille(m, afa_ratio_permille(afa_ratio(l->used, l->checked)));
	seq_printf(m, " %10llu %10llu %11llu %9llu %9llu %9llu %9llu %6llu %7llu\n",
		   t->faults, t->hits, t->window_pages, t->sampled,
		   t->sample_mapped, t->checked, t->used, t->lost,
		   t->sample_dropped);
}

/*
 * The views of one domain's classes are too large for the stack of a
 * KASAN kernel (1.4 KB); a read of the table is rare, so allocate them.
 */
static int afa_stats_show(struct seq_file *m, void *v)
{
	struct afa_fig_view *view;
	struct afa_global_view g;
	unsigned int dom, class;

	view = kmalloc_array(AFA_NR_CLASSES, sizeof(*view), GFP_KERNEL);
	if (!view)
		return -ENOMEM;
	afa_period_view(0, view, &g);
	seq_printf(m, "# period_ms=%u sample_every=%u enabled=%d kernel_window=%lu periods=%llu probe_missed=%lu filemap_faults=%llu user_faults=%llu\n",
		   READ_ONCE(afa_period_ms), READ_ONCE(afa_sample_every),
		   READ_ONCE(afa_enabled), afa_kernel_window_bytes(),
		   g.nr_periods, afa_probe_nmissed(), g.filemap_faults,
		   g.user_faults);
	seq_puts(m, "class    node core   order     KiB  faults/s   hit%  useful%     faults       hits win_pages   sampled    mapped   checked      used   lost dropped\n");
	for (dom = 0; dom < afa_nr_domains; dom++) {
		if (!afa_domain_online(dom))
			continue;
		afa_period_view(dom, view, &g);
		for (class = 0; class < AFA_NR_CLASSES; class++)
			afa_show_row(m, class, dom, &view[class], g.period_ms);
	}
	kfree(view);
	afa_period_show_streams(m);
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
	if (security_locked_down(LOCKDOWN_DEBUGFS))
		pr_info("kernel lockdown restricts debugfs: fault_around_bytes cannot be read or set; the stats file is read-only and stays readable\n");
	afa_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(afa_debugfs_dir)) {
		pr_info("no debugfs (error %ld): statistics only as trace events\n",
			PTR_ERR(afa_debugfs_dir));
		return 0;
	}
	debugfs_create_file("stats", 0400, afa_debugfs_dir, NULL,
			    &afa_stats_fops);
	return 0;
}

void afa_stats_exit(void)
{
	debugfs_remove(afa_debugfs_dir);
	afa_debugfs_dir = NULL;
}

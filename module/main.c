// SPDX-License-Identifier: GPL-2.0
/*
 * autofaultaround: self-tuning page-cache fault-around.
 *
 * Module entry and exit.  The probes, the sampler and the controller are
 * wired here; each lives in its own file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>

static int __init afa_init(void)
{
	pr_info("loaded\n");
	return 0;
}

static void __exit afa_exit(void)
{
	pr_info("unloaded\n");
}

module_init(afa_init);
module_exit(afa_exit);

MODULE_DESCRIPTION("Self-tuning page-cache fault-around");
MODULE_AUTHOR("autofaultaround developers");
MODULE_LICENSE("GPL");

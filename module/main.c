// SPDX-License-Identifier: GPL-2.0
/*
 * autofaultaround: self-tuning page-cache fault-around.
 *
 * Module entry and exit.  Start-up goes from the inside out (state, the
 * worker that folds into it, then the probes that feed it, with the cost
 * measurement that needs them, then the interface that shows it);
 * unload goes the other way, so that no probe ever sees freed state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include "afa.h"
#include "arch.h"
#include "stream.h"
#include "topology.h"

static int __init afa_init(void)
{
	int err;

	if (!AFA_ARCH_CAN_SET_WINDOW)
		pr_info("this architecture cannot set the window yet: observing only\n");
	WRITE_ONCE(afa_limits.act, afa_contract_init() && AFA_ARCH_CAN_SET_WINDOW);
	afa_steer_changed();
	err = afa_stream_init();
	if (err)
		return err;
	err = afa_topology_init();
	if (err)
		goto out_stream;
	err = afa_control_init();
	if (err)
		goto out_topology;
	err = afa_period_init();
	if (err)
		goto out_control;
	err = afa_probe_init();
	if (err)
		goto out_period;
	afa_stats_init();
	pr_info("loaded: period_ms=%u sample_every=%u enabled=%d acting=%d\n",
		afa_period_ms, afa_sample_every, afa_enabled,
		READ_ONCE(afa_limits.act));
	return 0;

out_period:
	afa_period_exit();
out_control:
	afa_control_exit();
out_topology:
	afa_topology_exit();
out_stream:
	afa_stream_exit();
	return err;
}

static void __exit afa_exit(void)
{
	afa_stats_exit();
	afa_probe_exit();
	afa_period_exit();
	afa_control_exit();
	afa_topology_exit();
	afa_stream_exit();
	pr_info("unloaded\n");
}

module_init(afa_init);
module_exit(afa_exit);

MODULE_DESCRIPTION("Self-tuning page-cache fault-around");
MODULE_AUTHOR("autofaultaround developers");
MODULE_LICENSE("GPL");
MODULE_VERSION("0.2");

// SPDX-License-Identifier: GPL-2.0
/*
 * How the module attaches to the kernel's fault path, and when.  The
 * probe on filemap_map_pages() (probe.c's afa_probe_map_enter()) is an
 * ftrace direct call where the kernel has one and direct_call says so
 * (direct.c: x86-64), else an fprobe, else (Debian's 6.1, and 7.x) a
 * kprobe, all three entry only; the ->fault hooks come with it
 * (tracepoints.c).  Both are attached while the module is enabled, and
 * at load for the cost measurement (cost.c); enabled=0 detaches them, so
 * that the kernel's fault path is its own again.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/errno.h>
#include <linux/fprobe.h>
#include <linux/kprobes.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include "afa.h"
#include "compat.h"

#if AFA_HAVE_FPROBE

static int afa_map_entry(struct fprobe *fp, unsigned long entry_ip,
			 unsigned long ret_ip, struct pt_regs *regs,
			 void *entry_data)
{
	afa_probe_map_enter(regs);
	return 0;
}

/* Entry only: no return hook, no per-call instance. */
static struct fprobe afa_map_probe;

/*
 * By address: filemap_map_pages() is exported.  A name filter would match
 * the name against every traceable function, some 0.2 s a load under
 * QEMU, ten times the rest of the module's start-up.
 */
static int afa_map_register_probe(void)
{
	unsigned long ip = (unsigned long)filemap_map_pages;

	/*
	 * A new fprobe at every attachment: one registered before keeps its
	 * ftrace_ops' state, which registering it again misreads (6.12: a
	 * filter of every function, then allocations until OOM).
	 */
	afa_map_probe = (struct fprobe){ .entry_handler = afa_map_entry };
	return register_fprobe_ips(&afa_map_probe, &ip, 1);
}

static int afa_map_unregister_probe(void)
{
	return unregister_fprobe(&afa_map_probe);
}

static unsigned long afa_map_nmissed_probe(void)
{
	return afa_map_probe.nmissed;
}

#else /* !AFA_HAVE_FPROBE */

static int afa_map_entry(struct kprobe *kp, struct pt_regs *regs)
{
	afa_probe_map_enter(regs);
	return 0;
}

static struct kprobe afa_map_probe = {
	.symbol_name	= "filemap_map_pages",
	.pre_handler	= afa_map_entry,
};

static int afa_map_register_probe(void)
{
	return afa_kprobe_register(&afa_map_probe);
}

static int afa_map_unregister_probe(void)
{
	unregister_kprobe(&afa_map_probe);
	return 0;
}

static unsigned long afa_map_nmissed_probe(void)
{
	return afa_map_probe.nmissed;
}

#endif /* AFA_HAVE_FPROBE */

#define AFA_MAP_PROBE_NAME	(AFA_HAVE_FPROBE ? "fprobe" : "kprobe")

/* Attached by direct.c's trampoline, not by the fprobe or kprobe. */
static bool afa_map_direct;

/*
 * By direct call where the kernel has one and direct_call says so, else
 * by fprobe or kprobe, saying why when a direct call was to be had.
 */
/* Who else modifies a function's entry through ftrace. */
#define AFA_DIRECT_BUSY \
	", it is held already: a BPF trampoline, a livepatch, a kprobe with a post_handler?"

static int afa_map_register(void)
{
	int err = -EOPNOTSUPP;

	afa_map_direct = false;
	if (READ_ONCE(afa_direct_call))
		err = afa_direct_register();
	if (!err) {
		afa_map_direct = true;
		return 0;
	}
	if (err != -EOPNOTSUPP)
		pr_info("no direct call on filemap_map_pages (error %d%s): attaching by %s\n",
			err, err == -EBUSY ? AFA_DIRECT_BUSY : "",
			AFA_MAP_PROBE_NAME);
	return afa_map_register_probe();
}

static int afa_map_unregister(void)
{
	if (afa_map_direct)
		return afa_direct_unregister();
	return afa_map_unregister_probe();
}

/* A direct call misses nothing: it has no recursion guard to refuse. */
static unsigned long afa_map_nmissed(void)
{
	return afa_map_direct ? 0 : afa_map_nmissed_probe();
}

/*
 * Attached: the probe and the ->fault hooks are registered.  They are
 * while the module is enabled, and at load for the cost measurement;
 * enabled=0 detaches them, so that the kernel's fault path is its own
 * and costs what it costs without the module.  afa_probe_lock serialises
 * attaching with the enabled parameter, load and unload; "live" is the
 * time between them, when the parameter attaches and detaches.
 */
static DEFINE_MUTEX(afa_probe_lock);
static bool afa_probe_live;
static bool afa_probe_attached;
static unsigned long afa_probe_missed_before;	/* of earlier attachments */

static int afa_probe_attach(void)
{
	int err;

	lockdep_assert_held(&afa_probe_lock);
	afa_probe_reset();
	afa_tracepoints_init();
	err = afa_map_register();
	if (err) {
		pr_err("cannot probe filemap_map_pages: error %d\n", err);
		afa_tracepoints_exit();
		return err;
	}
	afa_probe_attached = true;
	return 0;
}

/*
 * Returns with no handler running: both unregister calls wait for them.
 * Unless ftrace has shut itself down (design.md, "Unloading"): then the
 * call site still leads into the module, which stays attached and, while
 * it can (@pin: not unloading already), loaded for good.
 */
static void afa_probe_detach(bool pin)
{
	int err;

	lockdep_assert_held(&afa_probe_lock);
	err = afa_map_unregister();
	if (err) {
		pr_err("cannot detach from filemap_map_pages (error %d, ftrace off?): %s\n",
		       err, pin ? "it stays attached, and the module loaded" :
		       "unloading leaves its call site in freed code");
		if (pin) {
			__module_get(THIS_MODULE);
			return;
		}
	}
	afa_tracepoints_exit();
	afa_probe_missed_before += afa_map_nmissed();
	afa_probe_attached = false;
}

/**
 * afa_probe_init() - attach, measure the costs, detach at enabled=0
 *
 * The cost measurement needs the probe (it sets the window of its own
 * file), whatever enabled says; the lock keeps a write of enabled from
 * detaching it meanwhile.
 *
 * Return: 0, or the error of the probe, which is logged.
 */
int afa_probe_init(void)
{
	int err;

	mutex_lock(&afa_probe_lock);
	err = afa_probe_attach();
	if (!err) {
		afa_cost_calibrate();
		if (!READ_ONCE(afa_enabled))
			afa_probe_detach(true);
		afa_probe_live = true;
	}
	mutex_unlock(&afa_probe_lock);
	return err;
}

void afa_probe_exit(void)
{
	mutex_lock(&afa_probe_lock);
	afa_probe_live = false;
	if (afa_probe_attached)
		afa_probe_detach(false);
	mutex_unlock(&afa_probe_lock);
}

/**
 * afa_probe_enable() - the enabled parameter: set it, attach or detach
 * @on:	its new value
 *
 * Process context (the parameter's setter).  Before load and after
 * unload only the value changes.  Attaching comes before the value and
 * detaching after it, so that the handler never acts while the value
 * says 0.
 *
 * Return: 0, or the error of attaching (logged); enabled then stays 0.
 */
int afa_probe_enable(bool on)
{
	int err = 0;

	mutex_lock(&afa_probe_lock);
	if (afa_probe_live && on && !afa_probe_attached)
		err = afa_probe_attach();
	if (!err) {
		WRITE_ONCE(afa_enabled, on);
		afa_steer_changed();
	}
	if (afa_probe_live && !on && afa_probe_attached)
		afa_probe_detach(true);
	mutex_unlock(&afa_probe_lock);
	return err;
}

/**
 * afa_probe_attach_name() - how filemap_map_pages() is attached, for stats
 * @enabled:	set to the enabled parameter, read with it: a pair that
 *		afa_probe_enable() cannot split (detached exactly while 0)
 *
 * Return: "direct", "fprobe" or "kprobe"; "none" while detached.
 */
const char *afa_probe_attach_name(bool *enabled)
{
	const char *name = "none";

	mutex_lock(&afa_probe_lock);
	*enabled = READ_ONCE(afa_enabled);
	if (afa_probe_attached)
		name = afa_map_direct ? "direct" : AFA_MAP_PROBE_NAME;
	mutex_unlock(&afa_probe_lock);
	return name;
}

/**
 * afa_probe_nmissed() - calls the probe could not follow
 *
 * Return: the probe's missed count (recursion), over every attachment.
 */
unsigned long afa_probe_nmissed(void)
{
	unsigned long n;

	mutex_lock(&afa_probe_lock);
	n = afa_probe_missed_before;
	if (afa_probe_attached)
		n += afa_map_nmissed();
	mutex_unlock(&afa_probe_lock);
	return n;
}

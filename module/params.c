// SPDX-License-Identifier: GPL-2.0
/*
 * Module parameters, all writable at run time through
 * /sys/module/autofaultaround/parameters/.  Every write is validated: a
 * bad value (out of range, or breaking a relation such as
 * min_order <= max_order) is rejected with -EINVAL and leaves every
 * setting as it was.  An accepted write is traced (afa_param) and takes
 * effect at the next period.  docs/admin-guide.md describes each one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include "afa.h"
#include "control_law.h"
#include "trace.h"

static DEFINE_MUTEX(afa_params_lock);
static struct afa_ctl_params afa_law = AFA_CTL_PARAMS_DEFAULT;
static bool afa_law_changed;

/*
 * The window a new class or stream starts with: 64 KiB, the kernel's own
 * default, in pages of this machine (order 4 with 4 KiB pages, order 0
 * with 64 KiB pages).
 */
static unsigned int afa_initial_order = ilog2(SZ_64K / PAGE_SIZE);

unsigned int afa_period_ms = 200;
unsigned int afa_sample_every = 4;
unsigned int afa_page_price_ns;
bool afa_enabled = true;
unsigned int afa_classes = BIT(AFA_NR_CLASSES) - 1;

/*
 * Say why a write failed, without letting a script that keeps writing
 * bad values flood the log.
 */
static int afa_reject(const struct kernel_param *kp, const char *val)
{
	pr_warn_ratelimited("rejected %s=%.*s: not a number in range, or inconsistent with the other parameters (see modinfo)\n",
			    kp->name, (int)strcspn(val, "\n"), val);
	return -EINVAL;
}

/* Law parameters: one field of afa_law each, checked as a whole. */
static int afa_set_law(const char *val, const struct kernel_param *kp)
{
	size_t off = (u32 *)kp->arg - (u32 *)&afa_law;
	struct afa_ctl_params next;
	u32 v, old;
	int err;

	if (kstrtou32(val, 0, &v))
		return afa_reject(kp, val);
	mutex_lock(&afa_params_lock);
	next = afa_law;
	old = ((u32 *)&next)[off];
	((u32 *)&next)[off] = v;
	err = afa_ctl_params_check(&next);
	if (!err) {
		afa_law = next;
		afa_law_changed = true;
		trace_afa_param(kp->name, old, v);
	}
	mutex_unlock(&afa_params_lock);
	return err ? afa_reject(kp, val) : 0;
}

static const struct kernel_param_ops afa_law_ops = {
	.set = afa_set_law,
	.get = param_get_uint,
};

module_param_cb(kp, &afa_law_ops, &afa_law.kp, 0644);
MODULE_PARM_DESC(kp, "Proportional gain, orders per unit of predicted saving x1024, 0..16384 (4096)");

module_param_cb(ki, &afa_law_ops, &afa_law.ki, 0644);
MODULE_PARM_DESC(ki, "Integral gain, orders per unit of saving per step x1024, 0..16384 (1024)");

module_param_cb(kd, &afa_law_ops, &afa_law.kd, 0644);
MODULE_PARM_DESC(kd, "Derivative gain, orders per unit of saving change x1024, 0..16384 (0)");

module_param_cb(deadband, &afa_law_ops, &afa_law.deadband, 0644);
MODULE_PARM_DESC(deadband, "Predicted saving that moves nothing, x1024, < 512 (16)");

module_param_cb(hysteresis, &afa_law_ops, &afa_law.hysteresis, 0644);
MODULE_PARM_DESC(hysteresis, "Output past half an order needed to step, x1024, < 512 (256)");

module_param_cb(ewma_shift, &afa_law_ops, &afa_law.ewma_shift, 0644);
MODULE_PARM_DESC(ewma_shift, "Smoothing: a new batch of evidence weighs 1/2^shift, 0..16 (1)");

module_param_cb(min_samples, &afa_law_ops, &afa_law.min_samples, 0644);
MODULE_PARM_DESC(min_samples, "Faults (or trials) of evidence a step needs, >= 1 (8)");

module_param_cb(min_order, &afa_law_ops, &afa_law.min_order, 0644);
MODULE_PARM_DESC(min_order, "Smallest window order (2^order pages) (0)");

module_param_cb(max_order, &afa_law_ops, &afa_law.max_order, 0644);
MODULE_PARM_DESC(max_order, "Largest window order, <= 9: one page table (9)");

module_param_cb(max_step, &afa_law_ops, &afa_law.max_step, 0644);
MODULE_PARM_DESC(max_step, "Orders the window moves per step at most, 1..9 (1)");

static int afa_set_initial_order(const char *val,
				 const struct kernel_param *kp)
{
	unsigned int v, old;

	if (kstrtouint(val, 0, &v) || v > AFA_ORDER_MAX)
		return afa_reject(kp, val);
	mutex_lock(&afa_params_lock);
	old = afa_initial_order;
	afa_initial_order = v;
	trace_afa_param(kp->name, old, v);
	mutex_unlock(&afa_params_lock);
	return 0;
}

static const struct kernel_param_ops afa_initial_order_ops = {
	.set = afa_set_initial_order,
	.get = param_get_uint,
};

/* Read at load only (class states start at it): refused at run time. */
module_param_cb(initial_order, &afa_initial_order_ops, &afa_initial_order,
		0444);
MODULE_PARM_DESC(initial_order,
		 "Order new classes start at, <= 9, within bounds (64 KiB in pages)");

/* A plain unsigned parameter in [min, max], traced when accepted. */
struct afa_uint_range {
	unsigned int min, max;
};

static int afa_set_uint_range(const char *val, const struct kernel_param *kp,
			      const struct afa_uint_range *r)
{
	unsigned int old = *(unsigned int *)kp->arg;
	int err = param_set_uint_minmax(val, kp, r->min, r->max);

	if (err)
		return afa_reject(kp, val);
	trace_afa_param(kp->name, old, *(unsigned int *)kp->arg);
	return 0;
}

static int afa_set_period_ms(const char *val, const struct kernel_param *kp)
{
	static const struct afa_uint_range r = { 10, 60000 };
	int err = afa_set_uint_range(val, kp, &r);

	if (!err)
		afa_period_retime();
	return err;
}

static const struct kernel_param_ops afa_period_ms_ops = {
	.set = afa_set_period_ms,
	.get = param_get_uint,
};

module_param_cb(period_ms, &afa_period_ms_ops, &afa_period_ms, 0644);
MODULE_PARM_DESC(period_ms, "Longest time between folds while there are faults, ms, 10..60000 (200)");

static int afa_set_sample_every(const char *val,
				const struct kernel_param *kp)
{
	static const struct afa_uint_range r = { 1, 65536 };

	return afa_set_uint_range(val, kp, &r);
}

static const struct kernel_param_ops afa_sample_every_ops = {
	.set = afa_set_sample_every,
	.get = param_get_uint,
};

module_param_cb(sample_every, &afa_sample_every_ops, &afa_sample_every, 0644);
MODULE_PARM_DESC(sample_every, "Put one read fault in N on trial at half its window, 1..65536 (4)");

static int afa_set_page_price_ns(const char *val,
				 const struct kernel_param *kp)
{
	static const struct afa_uint_range r = { 0, AFA_COST_NS_MAX };

	return afa_set_uint_range(val, kp, &r);
}

static const struct kernel_param_ops afa_page_price_ns_ops = {
	.set = afa_set_page_price_ns,
	.get = param_get_uint,
};

module_param_cb(page_price_ns, &afa_page_price_ns_ops, &afa_page_price_ns,
		0644);
MODULE_PARM_DESC(page_price_ns, "Price on memory: ns added to the cost of every page mapped, 0..1048576 (0)");

/*
 * A boolean is exactly one of 0 1 n N y Y, with at most the newline
 * echo adds: param_set_bool() (kstrtobool()) reads the first character
 * only, and took "0x" or "1 junk".  A bare "enabled" at load time does
 * not get here: the ops have no KERNEL_PARAM_OPS_FL_NOARG.
 */
static int afa_parse_bool(const char *val, bool *res)
{
	size_t len = strlen(val);

	if (len == 2 && val[1] == '\n')
		len = 1;
	if (len != 1 || !strchr("01nNyY", val[0]))
		return -EINVAL;
	*res = val[0] == '1' || val[0] == 'y' || val[0] == 'Y';
	return 0;
}

/* Every boolean parameter: strict, traced. */
static int afa_set_bool(const char *val, const struct kernel_param *kp)
{
	bool *b = kp->arg, old = *b, v;

	if (afa_parse_bool(val, &v))
		return afa_reject(kp, val);
	WRITE_ONCE(*b, v);
	trace_afa_param(kp->name, old, v);
	return 0;
}

static const struct kernel_param_ops afa_bool_ops = {
	.set = afa_set_bool,
	.get = param_get_bool,
};

/*
 * enabled: 0 detaches the probes (attach.c), so it does not go through
 * afa_set_bool(): attaching them again can fail.
 */
static int afa_set_enabled(const char *val, const struct kernel_param *kp)
{
	bool old = READ_ONCE(afa_enabled), v;
	int err;

	if (afa_parse_bool(val, &v))
		return afa_reject(kp, val);
	err = afa_probe_enable(v);
	if (err)
		return err;
	trace_afa_param(kp->name, old, v);
	return 0;
}

static const struct kernel_param_ops afa_enabled_ops = {
	.set = afa_set_enabled,
	.get = param_get_bool,
};

module_param_cb(enabled, &afa_enabled_ops, &afa_enabled, 0644);
MODULE_PARM_DESC(enabled, "Set the window (1), or leave the fault path to the kernel, probes detached (0) (1)");

/*
 * direct.c, read at every attachment (load, enabled=1): 0 leaves
 * filemap_map_pages()'s one direct call to a BPF fentry or fexit
 * program, and the module attaches by fprobe or kprobe.  Read-only:
 * changing it means reloading the module.
 */
bool afa_direct_call = true;
module_param_cb(direct_call, &afa_bool_ops, &afa_direct_call, 0444);
MODULE_PARM_DESC(direct_call,
		 "Attach by ftrace direct call where the kernel has it (x86-64), else fprobe or kprobe (1)");

/*
 * Test knob of contract.c: when set, every kernel window counts as a
 * mismatch, so that the VM suite can see the module fall back to
 * observing.
 */
module_param_cb(test_contract_mismatch, &afa_bool_ops, &afa_contract_test,
		0644);
MODULE_PARM_DESC(test_contract_mismatch,
		 "Testing only: treat every kernel window as breaking the contract (0)");

/*
 * Test knob of contract.c, read at load: take the running release as
 * one whose contract is not known, so that the VM suite sees the module
 * observe on every kernel it boots, not only on a release outside the
 * list.
 */
module_param_cb(test_contract_unknown, &afa_bool_ops,
		&afa_contract_unknown_test, 0444);
MODULE_PARM_DESC(test_contract_unknown,
		 "Testing only: at load, take the kernel's contract as unknown (0)");

/* Per-class enable: a comma-separated list of class names, all or none. */
static int afa_parse_classes(char *s, unsigned int *mask)
{
	unsigned int class;
	char *tok;

	s = strim(s);
	*mask = 0;
	if (!strcmp(s, "all")) {
		*mask = BIT(AFA_NR_CLASSES) - 1;
		return 0;
	}
	if (!strcmp(s, "none"))
		return 0;
	while ((tok = strsep(&s, ","))) {
		tok = strim(tok);
		for (class = 0; class < AFA_NR_CLASSES; class++)
			if (!strcmp(tok, afa_class_name(class)))
				break;
		if (class == AFA_NR_CLASSES)
			return -EINVAL;
		*mask |= BIT(class);
	}
	return 0;
}

static int afa_set_classes(const char *val, const struct kernel_param *kp)
{
	unsigned int mask, old = afa_classes;
	char buf[96];

	if (strscpy(buf, val, sizeof(buf)) < 0 || afa_parse_classes(buf, &mask))
		return afa_reject(kp, val);
	WRITE_ONCE(afa_classes, mask);
	afa_steer_changed();
	trace_afa_param(kp->name, old, mask);
	return 0;
}

static int afa_get_classes(char *buf, const struct kernel_param *kp)
{
	unsigned int class, mask = READ_ONCE(afa_classes);
	int n = 0;

	for (class = 0; class < AFA_NR_CLASSES; class++)
		if (mask & BIT(class))
			n += sysfs_emit_at(buf, n, "%s%s", n ? "," : "",
					   afa_class_name(class));
	return n + sysfs_emit_at(buf, n, "%s\n", n ? "" : "none");
}

static const struct kernel_param_ops afa_classes_ops = {
	.set = afa_set_classes,
	.get = afa_get_classes,
};

module_param_cb(classes, &afa_classes_ops, NULL, 0644);
MODULE_PARM_DESC(classes, "Classes whose window is set: names, all or none (all)");

/**
 * afa_params_snapshot() - the law's parameters, for one period
 * @law:	filled with the current parameters
 *
 * Return: true when they changed since the last snapshot.
 */
bool afa_params_snapshot(struct afa_ctl_params *law)
{
	bool changed;

	mutex_lock(&afa_params_lock);
	*law = afa_law;
	changed = afa_law_changed;
	afa_law_changed = false;
	mutex_unlock(&afa_params_lock);
	return changed;
}

/**
 * afa_initial_order_get() - the order a new class state starts at
 * @law:	the bounds in force
 *
 * Return: initial_order, pulled inside [min_order, max_order].
 */
unsigned int afa_initial_order_get(const struct afa_ctl_params *law)
{
	return clamp(READ_ONCE(afa_initial_order), law->min_order,
		     law->max_order);
}

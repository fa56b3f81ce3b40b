// SPDX-License-Identifier: GPL-2.0
/*
 * What a fault and a page cost on this machine, measured at load: the
 * law's break-even (control_law.c) is a ratio of the two, and it differs
 * with the CPU, the architecture and the page size.
 *
 * At load, in the context of the process that loads the module, the
 * module maps a shmem file of AFA_COST_PAGES cached pages into that
 * process, reads one byte of every page (kernel-mode reads of user
 * addresses, which take real read faults through do_fault_around()), and
 * unmaps it; once with the window at order 0 and once at a larger order,
 * which the probe applies to this file only.  With f faults, M pages and
 * the time of a second read of the mapped pages R (the touches):
 *
 *	T_lo = f_lo * F + M * P_map + R
 *	T_hi = f_hi * F + M * P_map + R
 *	F = (T_lo - T_hi) / (f_lo - f_hi)
 *	P = (T_lo - f_lo * F - R) / M + unmap time / M
 *
 * Each time is the least of AFA_COST_REPS passes.  If the window cannot
 * be set (fault-around off, a kernel whose contract is unknown) the
 * fault counts agree and the module says so and uses defaults.  If they
 * differ and the times do not (every pass of the larger order stalled:
 * a busy host under a VM), it measures again, AFA_COST_TRIES times in
 * all.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/shmem_fs.h>
#include <linux/uaccess.h>
#include "afa.h"
#include "compat.h"

/* Pages mapped per pass: 1 MiB with 4 KiB pages, enough to average. */
#define AFA_COST_PAGES		256

/* Passes per order; the least time of each is kept (noise only adds). */
#define AFA_COST_REPS		3

/* The larger order: 64 pages per fault, one PTE table on any geometry. */
#define AFA_COST_ORDER_HI	6

/* Measurements before the defaults, where the window could be set. */
#define AFA_COST_TRIES		3

/*
 * Defaults when nothing could be measured: a minor fault of a few
 * hundred ns to a microsecond and about 100 ns to map and unmap a page,
 * the orders of magnitude of current x86-64 and arm64 machines.
 */
#define AFA_FAULT_NS_DEFAULT	1000
#define AFA_PAGE_NS_DEFAULT	100

static struct afa_ctl_costs afa_costs = {
	.fault_ns = AFA_FAULT_NS_DEFAULT,
	.page_ns = AFA_PAGE_NS_DEFAULT,
};

static bool afa_costs_measured;
static struct address_space *afa_cost_file;
static u8 afa_cost_order;

/**
 * afa_cost_mapping() - is this the calibration file, and at which order?
 * @mapping:	the file of a fault
 * @order:	set to the order to apply when it is
 *
 * Fault path.
 *
 * Return: true for the calibration file.
 */
bool afa_cost_mapping(struct address_space *mapping, u8 *order)
{
	if (likely(mapping != READ_ONCE(afa_cost_file)))
		return false;
	*order = READ_ONCE(afa_cost_order);
	return true;
}

struct afa_cost_pass {
	u64 fault_ns;		/* first read of every page */
	u64 touch_ns;		/* second read, all mapped */
	u64 unmap_ns;		/* munmap */
	unsigned long faults;	/* minor faults of the first read */
};

static int afa_cost_read(unsigned long addr)
{
	unsigned int i;
	char c;

	for (i = 0; i < AFA_COST_PAGES; i++)
		if (get_user(c, (const char __user *)(addr + i * PAGE_SIZE)))
			return -EFAULT;
	(void)c;
	return 0;
}

static int afa_cost_one(struct file *f, u8 order, struct afa_cost_pass *p)
{
	unsigned long len = AFA_COST_PAGES * PAGE_SIZE, addr, flt;
	u64 t0, t1, t2, t3;
	int err;

	WRITE_ONCE(afa_cost_order, order);
	addr = vm_mmap(f, 0, len, PROT_READ, MAP_SHARED, 0);
	if (IS_ERR_VALUE(addr))
		return addr;
	flt = current->min_flt;
	t0 = ktime_get_ns();
	err = afa_cost_read(addr);
	t1 = ktime_get_ns();
	p->faults = current->min_flt - flt;
	if (!err)
		err = afa_cost_read(addr);
	t2 = ktime_get_ns();
	vm_munmap(addr, len);
	t3 = ktime_get_ns();
	p->fault_ns = min(p->fault_ns, t1 - t0);
	p->touch_ns = min(p->touch_ns, t2 - t1);
	p->unmap_ns = min(p->unmap_ns, t3 - t2);
	return err;
}

static struct file *afa_cost_file_setup(void)
{
	struct file *f;
	struct page *page;
	unsigned int i;

	f = shmem_file_setup(KBUILD_MODNAME "-cost", AFA_COST_PAGES * PAGE_SIZE,
			     AFA_SHMEM_NORESERVE);
	if (IS_ERR(f))
		return f;
	for (i = 0; i < AFA_COST_PAGES; i++) {
		page = shmem_read_mapping_page(f->f_mapping, i);
		if (IS_ERR(page)) {
			fput(f);
			return ERR_CAST(page);
		}
		put_page(page);
	}
	return f;
}

/* Solve the two passes for the costs; false if they do not differ. */
static bool afa_cost_solve(const struct afa_cost_pass *lo,
			   const struct afa_cost_pass *hi)
{
	u64 fault_ns, page_ns, served;

	if (lo->faults <= hi->faults || lo->fault_ns <= hi->fault_ns)
		return false;
	fault_ns = div64_u64(lo->fault_ns - hi->fault_ns,
			     lo->faults - hi->faults);
	served = lo->faults * fault_ns + lo->touch_ns;
	page_ns = lo->fault_ns > served ? lo->fault_ns - served : 0;
	page_ns = div_u64(page_ns + hi->unmap_ns, AFA_COST_PAGES);
	/* clamped before they narrow to u32: a stalled pass is not cheap */
	afa_costs.fault_ns = min_t(u64, fault_ns, U32_MAX);
	afa_costs.page_ns = min_t(u64, page_ns, U32_MAX);
	afa_ctl_costs_clamp(&afa_costs);
	return true;
}

/* The larger order, within one page table of this geometry. */
static u8 afa_cost_order_hi(void)
{
	return min_t(u32, AFA_COST_ORDER_HI, ilog2(PTRS_PER_PTE));
}

static int afa_cost_measure(struct afa_cost_pass *lo, struct afa_cost_pass *hi)
{
	u8 order_hi = afa_cost_order_hi();
	struct file *f;
	int rep, err = 0;

	if (!current->mm)
		return -ESRCH;
	f = afa_cost_file_setup();
	if (IS_ERR(f))
		return PTR_ERR(f);
	WRITE_ONCE(afa_cost_file, f->f_mapping);
	for (rep = 0; rep < AFA_COST_REPS && !err; rep++) {
		err = afa_cost_one(f, 0, lo);
		if (!err)
			err = afa_cost_one(f, order_hi, hi);
	}
	WRITE_ONCE(afa_cost_file, NULL);
	fput(f);
	return err;
}

/**
 * afa_cost_calibrate() - measure the costs, or say why not
 *
 * Module init, after the probe is attached: the probe sets the window of
 * the calibration file.  Logs the costs, or why the defaults are used.
 */
void afa_cost_calibrate(void)
{
	const struct afa_cost_pass none = { .fault_ns = U64_MAX,
					    .touch_ns = U64_MAX,
					    .unmap_ns = U64_MAX };
	struct afa_cost_pass lo, hi;
	int err, try = 0;

	do {
		lo = none;
		hi = none;
		err = afa_cost_measure(&lo, &hi);
		if (!err && afa_cost_solve(&lo, &hi)) {
			afa_costs_measured = true;
			pr_info("costs measured: fault %u ns, page %u ns (map and unmap)\n",
				afa_costs.fault_ns, afa_costs.page_ns);
			return;
		}
	} while (!err && lo.faults > hi.faults && ++try < AFA_COST_TRIES);
	if (err)
		pr_info("cannot measure costs (error %d): using fault %u ns, page %u ns\n",
			err, afa_costs.fault_ns, afa_costs.page_ns);
	else
		pr_info("cannot measure costs (order 0 took %lu faults, order %u %lu, and was not the slower; fault-around off?): using fault %u ns, page %u ns\n",
			lo.faults, afa_cost_order_hi(), hi.faults,
			afa_costs.fault_ns, afa_costs.page_ns);
}

/**
 * afa_cost_get() - the costs the law steers by
 * @c:	filled with the measured costs, page_price_ns added to the page
 */
void afa_cost_get(struct afa_ctl_costs *c)
{
	*c = afa_costs;
	c->page_ns += READ_ONCE(afa_page_price_ns);
	afa_ctl_costs_clamp(c);
}

/**
 * afa_cost_show() - the costs, for the stats header
 * @m:	the stats file
 */
void afa_cost_show(struct seq_file *m)
{
	seq_printf(m, "# costs: fault_ns=%u page_ns=%u measured=%d page_price_ns=%u\n",
		   afa_costs.fault_ns, afa_costs.page_ns, afa_costs_measured,
		   READ_ONCE(afa_page_price_ns));
}

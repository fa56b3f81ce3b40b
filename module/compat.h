/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels the module builds for, in one place:
 * Debian 12's 6.1, 6.12 (Debian 12 and 13), and newer.
 */
#ifndef _AFA_COMPAT_H
#define _AFA_COMPAT_H

#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/version.h>

/*
 * The probe on filemap_map_pages() is an fprobe with an entry handler
 * only where the kernel has fprobe with the handler signature of 6.5 to
 * 6.13 (pt_regs and the return address): Debian's 6.12 on x86_64 and
 * ppc64le.  Elsewhere it is a kprobe, whose pre_handler gets the same
 * registers: Debian's 6.1 and arm64 6.12 are built without CONFIG_FPROBE,
 * and from 6.14 an fprobe handler gets ftrace_regs.  AFA_FORCE_KPROBE
 * (make AFA_PROBE=kprobe) takes the kprobe everywhere, to compare the two.
 */
#if IS_ENABLED(CONFIG_FPROBE) && LINUX_VERSION_CODE < KERNEL_VERSION(6, 14, 0) && \
	!defined(AFA_FORCE_KPROBE)
#define AFA_HAVE_FPROBE	1
#else
#define AFA_HAVE_FPROBE	0
#endif

/*
 * The cheaper attachment, an ftrace direct call (direct.c): x86-64, a
 * kernel built with direct calls, and not where the build forces a
 * kprobe.  The ops-based API it uses is register_ftrace_direct(ops,
 * addr) from 6.6, and the same under the names
 * register_ftrace_direct_multi() and unregister_ftrace_direct_multi()
 * in 6.1 (since 5.16), whose unregister leaves the ops' filter to free
 * (6.6's frees it when asked).  6.1's register_ftrace_direct(ip, addr)
 * is the older per-address API; the module does not use it.
 */
#if IS_ENABLED(CONFIG_X86_64) && \
	IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS) && \
	!defined(AFA_FORCE_KPROBE)
#define AFA_HAVE_DIRECT	1
#else
#define AFA_HAVE_DIRECT	0
#endif

#if AFA_HAVE_DIRECT
#include <linux/ftrace.h>
#endif

#if AFA_HAVE_DIRECT && LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
static inline int afa_register_ftrace_direct(struct ftrace_ops *ops,
					     unsigned long addr)
{
	return register_ftrace_direct(ops, addr);
}

static inline int afa_unregister_ftrace_direct(struct ftrace_ops *ops,
					       unsigned long addr)
{
	return unregister_ftrace_direct(ops, addr, true);
}
#elif AFA_HAVE_DIRECT
static inline int afa_register_ftrace_direct(struct ftrace_ops *ops,
					     unsigned long addr)
{
	return register_ftrace_direct_multi(ops, addr);
}

static inline int afa_unregister_ftrace_direct(struct ftrace_ops *ops,
					       unsigned long addr)
{
	int err = unregister_ftrace_direct_multi(ops, addr);

	if (!err)
		ftrace_free_filter(ops);
	return err;
}
#endif

/*
 * Kernels whose mm_filemap_fault tracepoint's arguments tracepoints.c
 * checks at build time: those the module was tested on with it (6.12 and
 * later; 6.1 has none, and gets a kprobe).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define AFA_CHECK_TP_FILEMAP_FAULT	1
#else
#define AFA_CHECK_TP_FILEMAP_FAULT	0
#endif

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
/*
 * 6.1 has no pmdp_get_lockless() (6.5 renamed pmd_read_atomic() so).  The
 * 64-bit architectures the module reads PTEs on load a PMD in one access.
 * By version, not #ifndef: from 6.5 the generic one is an inline without
 * a macro of its name, and would be shadowed.
 */
static inline pmd_t afa_pmdp_get_lockless(pmd_t *pmdp)
{
	return READ_ONCE(*pmdp);
}

#define pmdp_get_lockless afa_pmdp_get_lockless
#endif

/*
 * shmem_file_setup() takes vma_flags_t, made with mk_vma_flags(), where
 * the kernel has it (7.3); an unsigned long of VM_ flags before.
 */
#ifdef mk_vma_flags
#define AFA_SHMEM_NORESERVE	mk_vma_flags(VMA_NORESERVE_BIT)
#else
#define AFA_SHMEM_NORESERVE	VM_NORESERVE
#endif

/*
 * The per-CPU system workqueue is system_percpu_wq from 6.17; from 7.x
 * queueing on its old name, system_wq, logs a deprecation warning.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 17, 0)
#define afa_percpu_wq	system_wq
#else
#define afa_percpu_wq	system_percpu_wq
#endif

/*
 * Pages of files and shmem that @mm maps, as this CPU and the current
 * task see them: every change this task made on this CPU is in it,
 * while other CPUs' changes show only when they fold theirs in (probe.c's
 * span estimate compares two of these on one CPU, for one task).  From
 * 6.2 the counters are percpu_counters: the folded count plus this CPU's
 * part.  In 6.1 a task caches its own changes (SPLIT_RSS_COUNTING) and
 * moves them into the mm's atomics now and then, in its own context.
 */
static inline long afa_mm_file_pages(struct mm_struct *mm)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	long n = READ_ONCE(mm->rss_stat[MM_FILEPAGES].count) +
		 READ_ONCE(mm->rss_stat[MM_SHMEMPAGES].count);

#ifdef CONFIG_SMP
	n += this_cpu_read(*mm->rss_stat[MM_FILEPAGES].counters) +
	     this_cpu_read(*mm->rss_stat[MM_SHMEMPAGES].counters);
#endif
	return n;
#else
	long n = atomic_long_read(&mm->rss_stat.count[MM_FILEPAGES]) +
		 atomic_long_read(&mm->rss_stat.count[MM_SHMEMPAGES]);

#ifdef SPLIT_RSS_COUNTING
	if (current->mm == mm)
		n += READ_ONCE(current->rss_stat.count[MM_FILEPAGES]) +
		     READ_ONCE(current->rss_stat.count[MM_SHMEMPAGES]);
#endif
	return n;
#endif
}

#endif /* _AFA_COMPAT_H */

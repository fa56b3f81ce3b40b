/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VMA classes: kinds of file mapping that use fault-around differently.
 */
#ifndef _AFA_CLASSIFY_H
#define _AFA_CLASSIFY_H

#include <linux/types.h>

/*
 * The order is the precedence: an explicit madvise() hint says more about
 * the access pattern than the kind of mapping, and program text is program
 * text even when the binary lives on tmpfs.
 */
enum afa_class {
	AFA_CLASS_RAND,		/* MADV_RANDOM (VM_RAND_READ) */
	AFA_CLASS_SEQ,		/* MADV_SEQUENTIAL (VM_SEQ_READ) */
	AFA_CLASS_EXEC,		/* VM_EXEC: binaries and shared libraries */
	AFA_CLASS_SHMEM,	/* tmpfs, memfd, SysV shm */
	AFA_CLASS_SHARED,	/* MAP_SHARED file mapping (VM_MAYSHARE) */
	AFA_CLASS_RODATA,	/* private, read-only, non-exec file mapping */
	AFA_CLASS_PRIVATE,	/* private writable file mapping (e.g. .data) */
	AFA_NR_CLASSES
};

enum afa_class afa_classify(unsigned long vm_flags, bool is_shmem);
const char *afa_class_name(unsigned int class);

#endif /* _AFA_CLASSIFY_H */

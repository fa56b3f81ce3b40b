// SPDX-License-Identifier: GPL-2.0
/*
 * Put a file-backed VMA in its class.  A pure function of the VMA's flags
 * and of whether its file is shmem, so KUnit can feed it synthetic VMAs.
 */
#include <linux/mm.h>
#include "classify.h"

static const char * const afa_class_names[AFA_NR_CLASSES] = {
	[AFA_CLASS_RAND]	= "rand",
	[AFA_CLASS_SEQ]		= "seq",
	[AFA_CLASS_EXEC]	= "exec",
	[AFA_CLASS_SHMEM]	= "shmem",
	[AFA_CLASS_SHARED]	= "shared",
	[AFA_CLASS_RODATA]	= "rodata",
	[AFA_CLASS_PRIVATE]	= "private",
};

/**
 * afa_classify() - class of a file-backed VMA
 * @vm_flags:	the VMA's vm_flags
 * @is_shmem:	the VMA maps a shmem file (tmpfs, memfd, SysV shm)
 *
 * Return: the first matching class in enum afa_class order.
 */
enum afa_class afa_classify(unsigned long vm_flags, bool is_shmem)
{
	if (vm_flags & VM_RAND_READ)
		return AFA_CLASS_RAND;
	if (vm_flags & VM_SEQ_READ)
		return AFA_CLASS_SEQ;
	if (vm_flags & VM_EXEC)
		return AFA_CLASS_EXEC;
	if (is_shmem)
		return AFA_CLASS_SHMEM;
	if (vm_flags & VM_MAYSHARE)
		return AFA_CLASS_SHARED;
	if (!(vm_flags & VM_WRITE))
		return AFA_CLASS_RODATA;
	return AFA_CLASS_PRIVATE;
}

/**
 * afa_class_name() - short name of a class, as used in stats and traces
 * @class:	an enum afa_class value
 *
 * Return: the name, or "invalid" for an out-of-range value.
 */
const char *afa_class_name(unsigned int class)
{
	return class < AFA_NR_CLASSES ? afa_class_names[class] : "invalid";
}

// SPDX-License-Identifier: GPL-2.0
/*
 * afa-small-folios: keep ext4 files in the page cache as small folios,
 * for tests that count faults exactly.  From 6.16 ext4 caches a regular
 * file in large folios, and from 6.18 a read fault maps a large folio
 * whole whatever the fault-around window says; an ext4 inode that
 * journals its data (FS_JOURNAL_DATA_FL, chattr +j) is kept at the
 * smallest folio order (ext4_set_inode_mapping_order()).  Setting the
 * flag drops the file's page cache; the caller reads it in again.
 *
 * usage: afa-small-folios FILE...   (root: CAP_SYS_RESOURCE)
 * Exits 0 when every FILE has the flag, 1 otherwise, with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int small_folios(const char *path)
{
	int fd = open(path, O_RDONLY), flags, err = 0;

	if (fd < 0) {
		fprintf(stderr, "afa-small-folios: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags)) {
		err = errno;
	} else if (!(flags & FS_JOURNAL_DATA_FL)) {
		flags |= FS_JOURNAL_DATA_FL;
		if (ioctl(fd, FS_IOC_SETFLAGS, &flags))
			err = errno;
	}
	close(fd);
	if (err)
		fprintf(stderr, "afa-small-folios: %s: cannot set data journaling: %s\n",
			path, strerror(err));
	return !!err;
}

int main(int argc, char **argv)
{
	int i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: afa-small-folios FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++)
		rc |= small_folios(argv[i]);
	return rc;
}

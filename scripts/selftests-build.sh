#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the kernel's own mm selftests (tools/testing/selftests/mm of the
# cached Debian 6.12 source) for the test VM: statically linked, so that
# the busybox initramfs needs no C library, against the 6.12 uapi
# headers (Debian 12's linux-libc-dev is 6.1's).
#
# The source tree is only read: the parts the build needs are copied
# into $AFA_CACHE/selftests-mm-6.12/src (the Makefile writes its
# local_config.* next to the sources), the uapi headers are installed
# with O= into .../hdr, and the binaries land in .../bin.  A stamp of the
# source package version makes it rebuild only when that changes.
# Prints the binaries' directory.
# Also memfd_test, mincore_selftest and test_cachestat from their own
# folders: memfd and the page cache seen from userspace.
# usage: selftests-build.sh [--dir]
. "$(dirname "$0")/lib.sh"

dir=$AFA_CACHE/selftests-mm-$AFA_SRC_SERIES
[ "$1" = --dir ] && { echo "$dir/bin"; exit 0; }

# libcap, libnuma and liburing: static archives for mlock-random-test,
# memfd_secret, ksm_tests, migration and cow/gup_longterm's io_uring cases
need_pkgs build-essential flex bison bc libcap-dev libnuma-dev liburing-dev
tree=$("$AFA_TOP/scripts/srctree.sh") || exit 1
stamp="$(cat "$tree/.afa-unpacked") $(sha1sum <"$0" | cut -c1-12)"
if [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$dir/bin/mremap_test" ]; then
	echo "$dir/bin"
	exit 0
fi

log=$AFA_TOP/build/selftests-build.log
mkdir -p "$AFA_TOP/build"
rm -rf "$dir"
mkdir -p "$dir/src" "$dir/hdr" "$dir/bin" || die "cannot create $dir"
echo "selftests: building tools/testing/selftests/mm of $tree into $dir (log: $log)" >&2

# What the mm selftests include, relative to the tree's top.
parts=(
	tools/testing/selftests/lib.mk
	tools/testing/selftests/kselftest.h
	tools/testing/selftests/kselftest_harness.h
	tools/testing/selftests/kselftest
	tools/testing/selftests/mm
	tools/testing/selftests/memfd
	tools/testing/selftests/mincore
	tools/testing/selftests/cachestat
	tools/testing/selftests/x86/check_cc.sh
	tools/testing/selftests/x86/trivial_program.c
	tools/testing/selftests/x86/trivial_32bit_program.c
	tools/testing/selftests/x86/trivial_64bit_program.c
	tools/include
	tools/arch/x86/include
	mm/gup_test.h
	lib/test_hmm_uapi.h
	include/vdso
)
(cd "$tree" && tar -cf - "${parts[@]}") | tar -C "$dir/src" -xf - ||
	die "cannot copy the selftests' sources"
# Debian's 6.12.117 khugepaged.c returns KSFT_SKIP (a stable backport)
# without including kselftest.h, which defines it: include it in the copy.
st=$dir/src/tools/testing/selftests
grep -q 'kselftest.h' "$st/mm/khugepaged.c" ||
	sed -i 's|^#include "vm_util.h"$|#include "../kselftest.h"\n&|' "$st/mm/khugepaged.c"

{
	# the 6.12 uapi headers, out of tree (nothing is written into $tree)
	nice -n 19 make -C "$tree" O="$dir/hdr" -j2 -s headers &&
	nice -n 19 make -C "$st/mm" -j2 \
		OUTPUT="$dir/bin" KHDR_INCLUDES="-isystem $dir/hdr/usr/include" \
		USERLDFLAGS=-static EXTRA_CFLAGS=-static &&
	# memfd_test (not its FUSE test: no libfuse), mincore, cachestat
	for t in memfd/memfd_test mincore/mincore_selftest cachestat/test_cachestat; do
		nice -n 19 make -C "$st/${t%/*}" OUTPUT="$dir/bin" \
			KHDR_INCLUDES="-isystem $dir/hdr/usr/include" \
			USERLDFLAGS=-static "$dir/bin/${t#*/}" || exit 1
	done
} >"$log" 2>&1
rc=$?
# run_vmtests.sh's helper scripts, for the record of what upstream runs
cp "$st/mm/"*.sh "$dir/bin/" 2>/dev/null
[ $rc -eq 0 ] || { tail -n 30 "$log" >&2; die "the mm selftests did not build (see $log)"; }
for b in "$dir"/bin/*; do
	[ -x "$b" ] && [ ! -d "$b" ] || continue
	case "$b" in *.sh) continue ;; esac
	file -b "$b" | grep -q 'statically linked' ||
		die "$b is not statically linked"
done
echo "$stamp" >"$dir/.stamp"
echo "$dir/bin"

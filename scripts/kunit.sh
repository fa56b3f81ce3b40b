#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the KUnit suites in kunit/ through the kernel's kunit.py: on UML,
# or with AFA_KUNIT_ARCH=i386 on a 32-bit kernel in QEMU (the law must
# hold with 32-bit longs), each arch in its own cached build directory.
#
# The project's files stay the only copy of the tests: the unpacked tree
# gets a symlink to this checkout and one idempotent line in its top
# Kbuild and Kconfig.  The build directory is kept in the cache and
# reused; the project's own objects in it are removed first, because a
# checkout may hold files older than the cached objects.
. "$(dirname "$0")/lib.sh"

arch=${AFA_KUNIT_ARCH:-um}
need_pkgs build-essential flex bison bc python3 xz-utils
[ "$arch" = um ] || need_pkgs qemu-system-x86 libelf-dev
tree=$("$AFA_TOP/scripts/srctree.sh") || exit 1
if [ "$arch" = um ]; then
	build=$AFA_CACHE/kunit-$AFA_SRC_SERIES
	label=kunit
else
	build=$AFA_CACHE/kunit-$AFA_SRC_SERIES-$arch
	label=kunit-$arch
fi
log=$AFA_TOP/build/$label.log
mkdir -p "$build" "$AFA_TOP/build"

exec 9>"$tree/.afa-kunit.lock"
flock 9

ln -sfn "$AFA_TOP" "$tree/autofaultaround"
grep -qx 'obj-y += autofaultaround/kunit/' "$tree/Kbuild" ||
	echo 'obj-y += autofaultaround/kunit/' >>"$tree/Kbuild"
grep -qx 'source "autofaultaround/kunit/Kconfig"' "$tree/Kconfig" ||
	echo 'source "autofaultaround/kunit/Kconfig"' >>"$tree/Kconfig"
rm -rf "$build/autofaultaround"

cd "$tree" || exit 1
set -o pipefail
python3 tools/testing/kunit/kunit.py run --arch="$arch" \
	--kunitconfig="$AFA_TOP/kunit/.kunitconfig" \
	--build_dir="$build" --jobs="$(nproc)" "$@" 2>&1 | tee "$log"
rc=$?
# kunit.py's status is authoritative; the summary line must be there too.
grep -q '^\[[0-9:]*\] Testing complete\. Ran [0-9]* tests: passed: [0-9]*$' "$log" || rc=1

passed=$(grep -c '^\[[0-9:]*\] \[PASSED\]' "$log")
failed=$(grep -c '^\[[0-9:]*\] \[FAILED\]' "$log")
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] || rc=1
[ "$rc" -eq 0 ] || [ "$failed" -gt 0 ] || failed=1
echo "$label: $passed passed, $failed failed"
exit $rc

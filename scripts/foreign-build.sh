#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Cross-build what the test VM of another architecture needs, in the
# trixie root with Debian's cross compilers, against that Debian kernel's
# own headers (scripts/foreign-kernel.sh fetches them):
#
#   foreign-build.sh FLAVOUR       arm64 | powerpc64le | powerpc64le-64k
#
# into build/foreign-KVER/: autofaultaround.ko (modpost against Debian's
# Module.symvers, so the kernel accepts it), the test-only probe module
# vm/probetest (every probe type with the module's actuator), and the
# userspace tools, static (the VM suite's and afa-run, the benchmarks'
# runner).  Prints KVER.  The sources are copied first:
# the checkout's own module/ objects stay the x86 build's.
. "$(dirname "$0")/lib.sh"

flavour=$1
case "$flavour" in
arm64) karch=arm64 triplet=aarch64-linux-gnu ;;
powerpc64le | powerpc64le-64k) karch=powerpc triplet=powerpc64le-linux-gnu ;;
amd64) karch=x86_64 triplet=x86_64-linux-gnu ;;
*) die "usage: foreign-build.sh arm64|powerpc64le|powerpc64le-64k|amd64" ;;
esac
# AFA_FOREIGN_MODPOST_WARN=1: a symbol the kernel does not export is only
# a warning (listed), for a first look at a new kernel
modpost_warn=${AFA_FOREIGN_MODPOST_WARN:+KBUILD_MODPOST_WARN=1}
kver=$("$AFA_TOP/scripts/foreign-kernel.sh" "$flavour") || exit 1
out=$AFA_TOP/build/foreign-$kver
src=$out/src
# Nothing to do when the sources, this script and the toolchain root are
# as last built.
stamp=$(echo "$modpost_warn" | cat - "$0" "$AFA_TOP"/Kbuild "$AFA_TOP"/module/Kbuild "$AFA_TOP"/module/*.[ch] \
	"$AFA_TOP"/vm/probetest/Kbuild "$AFA_TOP"/vm/probetest/*.c \
	"$AFA_TOP"/userspace/*.[ch] "$AFA_TOP"/userspace/afa-fault-around "$("$AFA_TOP"/scripts/trixie-root.sh --dir)/.afa-root-ok" |
	sha256sum | cut -d' ' -f1)
if [ "$(cat "$out/.afa-built" 2>/dev/null)" = "$stamp" ] && [ -f "$out/autofaultaround.ko" ]; then
	echo "foreign-build: $kver: up to date" >&2
	echo "$kver"
	exit 0
fi
rm -rf "$src" "$out/.afa-built"
mkdir -p "$src/module" "$src/probetest"
cp "$AFA_TOP"/Kbuild "$src/" &&
	cp "$AFA_TOP"/module/Kbuild "$AFA_TOP"/module/*.[ch] "$src/module/" &&
	cp "$AFA_TOP"/vm/probetest/Kbuild "$AFA_TOP"/vm/probetest/*.c "$src/probetest/" ||
	die "cannot copy the sources"

# The module and the probe test; warnings are shown and counted.
"$AFA_TOP/scripts/trixie-root.sh" --run -- sh -c '
	set -e
	kdir=/usr/src/linux-headers-$1
	make -s -C "$kdir" M="$2" ARCH="$3" CROSS_COMPILE="$4-" W=1 $7 modules
	make -s -C "$kdir" M="$2/probetest" ARCH="$3" CROSS_COMPILE="$4-" \
		AFA_MODULE_DIR="$2/module" modules
	for p in afa-work afa-exec afa-stat afa-race afa-run afa-small-folios; do
		"$4-gcc" -O2 -g -Wall -Wextra -Werror -static -o "$5/$p" "$6/userspace/$p.c"
	done
' sh "$kver" "$src" "$karch" "$triplet" "$out" "$AFA_TOP" "$modpost_warn" >"$out/build.log" 2>&1
rc=$?
grep -v '^ *$' "$out/build.log" | grep -v 'Skipping BTF generation' >&2
[ "$rc" -eq 0 ] || die "cross build for $kver FAILED (log: $out/build.log)"
cp "$src/module/autofaultaround.ko" "$src/probetest/afa_probetest.ko" \
	"$AFA_TOP/userspace/afa-fault-around" "$out/" ||
	die "no module built"
nwarn=$(grep -c 'warning:' "$out/build.log")
echo "$stamp" >"$out/.afa-built"
echo "foreign-build: $kver: $(modinfo -F vermagic "$out/autofaultaround.ko"), $nwarn warnings" >&2
echo "$kver"

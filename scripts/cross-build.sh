#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the module for ppc64le with Debian's cross compiler, against the
# 6.12 source configured with ppc64le_defconfig: the POWER paths (small
# cores, observe-only arch helpers) must compile without a warning.
# The configured tree is cached; the module is built in a scratch copy.
# Exports are not checked: that needs a whole ppc64le vmlinux.
. "$(dirname "$0")/lib.sh"

need_pkgs gcc-powerpc64le-linux-gnu flex bison bc
tree=$("$AFA_TOP/scripts/srctree.sh") || exit 1
out=$AFA_CACHE/cross-ppc64le-$AFA_SRC_SERIES
cross=(ARCH=powerpc CROSS_COMPILE=powerpc64le-linux-gnu-)
stamp="$(cat "$tree/.afa-unpacked") $(powerpc64le-linux-gnu-gcc -dumpversion)"

if [ "$(cat "$out/.afa-prepared" 2>/dev/null)" != "$stamp" ]; then
	echo "cross: preparing $out (ppc64le_defconfig, modules_prepare) ..."
	rm -rf "$out"
	mkdir -p "$out"
	(
		flock 9
		make -s -C "$tree" O="$out" "${cross[@]}" ppc64le_defconfig &&
		make -s -C "$tree" O="$out" "${cross[@]}" -j"$(nproc)" modules_prepare
	) 9>"$tree/.afa-kunit.lock" || die "cannot prepare $out"
	echo "$stamp" >"$out/.afa-prepared"
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd "$AFA_TOP" && git ls-files Kbuild module | tar cf - -T -) | tar xf - -C "$scratch"
# Only modules_prepare ran, so there is no Module.symvers: modpost cannot
# resolve exports and is told to warn; the compiler must not.
make -s -C "$out" M="$scratch" "${cross[@]}" W=1 KBUILD_MODPOST_WARN=1 \
	modules >"$scratch/build.log" 2>&1
rc=$?
grep -v -e 'modpost: "[a-z_0-9]*" .* undefined!' -e 'Module.symvers is missing' \
	-e 'Modules may not have' -e 'You may get many' -e 'KBUILD_MODPOST_WARN' \
	-e 'if you want to proceed' -e 'suppressed .* unresolved' "$scratch/build.log"
if [ "$rc" -ne 0 ] || grep -q 'warning:' "$scratch/build.log"; then
	echo "cross: ppc64le build FAILED"
	exit 1
fi
file "$scratch/module/autofaultaround.ko" | sed "s|$scratch/||"
echo "cross: ppc64le build clean"

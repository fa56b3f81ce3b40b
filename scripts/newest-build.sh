#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the module (W=1) against the newest amd64 kernel headers Debian
# offers to trixie: trixie-backports' (7.3 today), built with trixie's
# own compiler, so the trixie root (scripts/trixie-root.sh) is the
# toolchain.  The headers and the amd64 linux-kbuild of the exact version
# are unpacked into the root once.  Prints the kernel release and the
# build's warnings; fails when the build does.
#
#   newest-build.sh [SERIES]     SERIES: 7 (default) picks the newest 7.x
. "$(dirname "$0")/lib.sh"

series=${1:-7}
root=$("$AFA_TOP/scripts/trixie-root.sh") || exit 1
in_root() {
	"$AFA_TOP/scripts/trixie-root.sh" --run --bind "$AFA_CACHE" -- "$@"
}
abi=$(in_root apt-cache pkgnames "linux-headers-$series." |
	sed -n 's/^linux-headers-\(.*+deb13\)-amd64$/\1/p' | sort -V | tail -n 1)
[ -n "$abi" ] || die "no linux-headers-$series.*-amd64 in the root's package lists"
kver=$abi-amd64
if [ ! -d "$root/usr/src/linux-headers-$kver" ]; then
	dl=$AFA_CACHE/newest-dl
	rm -rf "$dl" && mkdir -p "$dl" || exit 1
	in_root sh -c 'cd "$1" && shift && apt-get download -q "$@"' sh "$dl" \
		"linux-headers-$kver" "linux-headers-$abi-common" "linux-kbuild-$abi" \
		>"$dl/download.log" 2>&1 || die "cannot download the headers of $kver; see $dl/download.log"
	for d in "$dl"/*.deb; do
		dpkg-deb -x "$d" "$root" || die "cannot unpack $d"
	done
	rm -rf "$dl"
fi
out=$AFA_TOP/build/newest-$kver
rm -rf "$out"
mkdir -p "$out/module"
cp "$AFA_TOP"/Kbuild "$out/" && cp "$AFA_TOP"/module/Kbuild "$AFA_TOP"/module/*.[ch] "$out/module/" ||
	die "cannot copy the sources"
# modpost only warns, so that every missing export is listed, not the first
in_root make -s -C "/usr/src/linux-headers-$kver" M="$out" W=1 KBUILD_MODPOST_WARN=1 \
	modules >"$out/build.log" 2>&1
rc=$?
grep -v 'Skipping BTF generation' "$out/build.log"
nwarn=$(grep -c 'warning:' "$out/build.log")
undef=$(sed -n "s/.*symbol '\([a-z_0-9]*\)' undefined.*/\1/p; s/.*\"\([a-z_0-9]*\)\" .* undefined.*/\1/p" "$out/build.log" | sort -u | xargs)
[ -z "$undef" ] || rc=1
echo "newest-build: $kver: $([ $rc -eq 0 ] && echo built || echo FAILED), $nwarn compiler warnings, symbols not exported: ${undef:-none}"
exit $rc

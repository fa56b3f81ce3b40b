#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch a Debian 13 kernel of another architecture into the cache, and
# print its release (KVER):
#
#   foreign-kernel.sh FLAVOUR      arm64 | powerpc64le | powerpc64le-64k | amd64
#
# What it leaves, once (later calls only print KVER):
#   $AFA_CACHE/foreign/KVER/boot/vmlinu[xz]-KVER, lib/modules/KVER (depmod
#       run), bin/busybox (Debian's busybox-static of that architecture)
#   in the trixie root (scripts/trixie-root.sh): the kernel's headers,
#       /usr/src/linux-headers-KVER, and the amd64 linux-kbuild of the exact
#       version they point at, for cross-building modules there
#
# The newest 6.12 whose four packages (image, headers, headers-common,
# kbuild) all download wins: the archive we reach has listed ppc64el
# versions whose files answered 404.  AFA_FOREIGN_REFRESH=1 picks again.
. "$(dirname "$0")/lib.sh"

flavour=$1
case "$flavour" in
arm64) arch=arm64 ;;
powerpc64le | powerpc64le-64k) arch=ppc64el ;;
amd64) arch=amd64 ;;
*) die "usage: foreign-kernel.sh arm64|powerpc64le|powerpc64le-64k|amd64" ;;
esac
# AFA_FOREIGN_SERIES=7: the newest 7.x (trixie-backports), for amd64 too
series=${AFA_FOREIGN_SERIES:-6.12}
top=$AFA_CACHE/foreign
pick=$top/$flavour-$series.kver
mkdir -p "$top"

kver=$(cat "$pick" 2>/dev/null)
if [ -z "$AFA_FOREIGN_REFRESH" ] && [ -n "$kver" ] && [ -e "$top/$kver/.afa-ok" ]; then
	echo "$kver"
	exit 0
fi

root=$("$AFA_TOP/scripts/trixie-root.sh") || exit 1
exec 9>"$top/.lock"
flock 9
dl=$top/dl
mkdir -p "$dl"
in_root() {
	"$AFA_TOP/scripts/trixie-root.sh" --run --bind "$top" -- "$@"
}

# Candidates, newest first: linux-image-6.12.N+deb13-FLAVOUR
cands=$(in_root apt-cache pkgnames "linux-image-$series." |
	sed -n "s/^linux-image-\(.*+deb13\)-$flavour\$/\1/p" | sort -V -r)
[ -n "$cands" ] || die "no linux-image-$series.*-$flavour in trixie's package lists"
abi=
for c in $cands; do
	want=("linux-image-$c-$flavour:$arch" "linux-headers-$c-$flavour:$arch"
	      "linux-headers-$c-common" "linux-kbuild-$c")
	echo "foreign-kernel: trying $c-$flavour ..." >&2
	rm -f "$dl"/*.deb
	if in_root sh -c 'cd "$1" && shift && apt-get download -q "$@"' sh "$dl" "${want[@]}" \
		>"$dl/download.log" 2>&1; then
		abi=$c
		break
	fi
	grep -m1 -E '^(E|Err):' "$dl/download.log" | cut -c1-200 >&2
done
[ -n "$abi" ] || die "no $series kernel for $flavour downloads completely; see $dl/download.log"
kver=$abi-$flavour

dest=$top/$kver
rm -rf "$dest"
mkdir -p "$dest"
dpkg-deb -x "$dl"/linux-image-"$kver"_*.deb "$dest" || die "cannot unpack the image"
# From 7.x linux-image-KVER is a metapackage of linux-binary-KVER (the
# image, in /usr/lib/modules/KVER/), linux-modules-KVER and linux-base-KVER
# (config, System.map, modules.builtin*).
if ! find "$dest" -name '*.ko*' -print -quit | grep -q .; then
	in_root sh -c 'cd "$1" && shift && apt-get download -q "$@"' sh "$dl" \
		"linux-binary-$kver:$arch" "linux-modules-$kver:$arch" "linux-base-$kver:$arch" \
		>>"$dl/download.log" 2>&1 ||
		die "cannot download linux-binary-$kver, linux-modules-$kver, linux-base-$kver"
	for d in "$dl"/linux-binary-"$kver"_*.deb "$dl"/linux-modules-"$kver"_*.deb \
		"$dl"/linux-base-"$kver"_*.deb; do
		dpkg-deb -x "$d" "$dest" || die "cannot unpack $d"
	done
fi
# merged-/usr packages ship /usr/lib/modules: one place for both
if [ -d "$dest/usr/lib/modules/$kver" ] && [ ! -d "$dest/lib/modules/$kver" ]; then
	mkdir -p "$dest/lib/modules"
	mv "$dest/usr/lib/modules/$kver" "$dest/lib/modules/"
fi
[ -d "$dest/lib/modules/$kver" ] || die "no modules in the image package of $kver"
if ! ls "$dest"/boot/vmlinu[xz]-"$kver" >/dev/null 2>&1; then
	mkdir -p "$dest/boot"
	for i in vmlinuz vmlinux; do
		[ -f "$dest/lib/modules/$kver/$i" ] && cp "$dest/lib/modules/$kver/$i" "$dest/boot/$i-$kver"
	done
fi
depmod -b "$dest" "$kver" || die "depmod failed for $kver"
for d in linux-headers-"$kver" linux-headers-"$abi"-common linux-kbuild-"$abi"; do
	dpkg-deb -x "$dl/$d"_*.deb "$root" || die "cannot unpack $d into $root"
done
[ -d "$root/usr/src/linux-headers-$kver" ] || die "no headers for $kver in $root"
# the static busybox of that architecture, for the guest
rm -f "$dl"/busybox-static_*.deb
in_root sh -c 'cd "$1" && apt-get download -q busybox-static:"$2"' sh "$dl" "$arch" \
	>>"$dl/download.log" 2>&1 || die "cannot download busybox-static:$arch"
mkdir -p "$dest/bb"
dpkg-deb -x "$dl"/busybox-static_*.deb "$dest/bb" && mkdir -p "$dest/bin" &&
	mv "$(ls "$dest"/bb/{,usr/}bin/busybox 2>/dev/null | head -n 1)" "$dest/bin/busybox" ||
	die "cannot unpack busybox-static:$arch"
rm -rf "$dest/bb" "$dl"/*.deb
touch "$dest/.afa-ok"
echo "$kver" >"$pick"
echo "foreign-kernel: $kver cached in $dest ($(du -sh "$dest" | cut -f1))" >&2
echo "$kver"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A cached Debian 13 (trixie, amd64) root: QEMU 10, Debian's cross
# compilers for arm64 and ppc64le, and what kbuild needs, for the other
# architectures' VM runs and for anything that wants trixie's QEMU.
#
# usage:
#   trixie-root.sh            make the root if needed (root, flock), print its path
#   trixie-root.sh --dir      print its path only; creates nothing
#   trixie-root.sh --cached   exit 0 when the root is complete, 1 otherwise
#   trixie-root.sh --run [--bind DIR]... [--] CMD [ARG]...
#                             run CMD inside the root, in a private mount
#                             namespace (nothing stays mounted afterwards)
#                             with /proc, /sys, /dev, this checkout and
#                             every DIR bind-mounted at their own paths;
#                             CMD's exit code is returned
#
# The root is ${XDG_CACHE_HOME:-~/.cache}/autofaultaround/trixie-root
# (AFA_TRIXIE_ROOT overrides it), made by `debootstrap --variant=minbase`
# from deb.debian.org, with dpkg architectures arm64 and ppc64el added so
# that `apt-get download PKG:arm64` works in it.  Its stamp file
# (.afa-root-ok) holds the package list below: when the list changes, the
# next call installs what is missing instead of starting over.  Making it
# takes a few minutes and about 1.5 GiB; later calls take milliseconds.
# Needs root and the debootstrap package on the host.
. "$(dirname "$0")/lib.sh"

root=${AFA_TRIXIE_ROOT:-$AFA_CACHE/trixie-root}
mirror=${AFA_DEBIAN_MIRROR:-http://deb.debian.org/debian}
pkgs=(
	# QEMU 10: pseries, virt, and x86 for multi-threaded TCG
	qemu-system-x86 qemu-system-ppc qemu-system-arm
	# cross compilers and C libraries for the module and the static tools
	gcc-aarch64-linux-gnu gcc-powerpc64le-linux-gnu
	libc6-dev-arm64-cross libc6-dev-ppc64el-cross
	# kbuild against Debian's headers (linux-kbuild-VER is unpacked per kernel)
	make gcc libc6-dev bc flex bison libelf-dev libssl-dev dwarves
	# W=1 runs scripts/kernel-doc, which wants perl's Pod::Usage
	perl
	# initramfs and module handling
	kmod cpio xz-utils zstd e2fsprogs file
	ca-certificates
)
stamp="${pkgs[*]} +backports"

case "$1" in
--dir)
	echo "$root"
	exit 0
	;;
--cached)
	[ "$(cat "$root/.afa-root-ok" 2>/dev/null)" = "$stamp" ]
	exit
	;;
--run)
	shift
	[ "$(cat "$root/.afa-root-ok" 2>/dev/null)" = "$stamp" ] ||
		die "no complete root at $root: run $0 first"
	binds=("$AFA_TOP")
	while [ $# -gt 0 ]; do
		case "$1" in
		--bind) binds+=("$2"); shift 2 ;;
		--) shift; break ;;
		*) break ;;
		esac
	done
	[ $# -gt 0 ] || die "--run needs a command"
	# The mounts live in a private mount namespace: they vanish with it.
	exec unshare --mount --propagation private /bin/sh -c '
		root=$1; shift
		n=$1; shift
		for d in /proc /sys /dev; do
			mount --rbind "$d" "$root$d" || exit 125
		done
		while [ "$n" -gt 0 ]; do
			mkdir -p "$root$1" && mount --bind "$1" "$root$1" || exit 125
			shift; n=$((n - 1))
		done
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root TERM=dumb LC_ALL=C.UTF-8 "$@"
	' sh "$root" "${#binds[@]}" "${binds[@]}" "$@"
	;;
"") ;;
*)
	die "usage: $0 [--dir | --cached | --run [--bind DIR]... [--] CMD...]"
	;;
esac

if [ "$(cat "$root/.afa-root-ok" 2>/dev/null)" = "$stamp" ]; then
	echo "$root"
	exit 0
fi
[ "$(id -u)" -eq 0 ] || die "must be root to make $root"
need_pkgs debootstrap
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock 9
# Another caller may have finished it while this one waited.
if [ "$(cat "$root/.afa-root-ok" 2>/dev/null)" = "$stamp" ]; then
	echo "$root"
	exit 0
fi

in_root() {
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

t0=$(date +%s)
if [ ! -x "$root/usr/bin/apt-get" ] || [ ! -e "$root/.afa-debootstrap-ok" ]; then
	echo "trixie-root: debootstrap trixie into $root (a few minutes) ..." >&2
	rm -rf "$root"
	include=$(IFS=,; echo "${pkgs[*]}")
	debootstrap --variant=minbase --include="$include" trixie "$root" "$mirror" \
		>"$root.log" 2>&1 || die "debootstrap failed; see $root.log"
	touch "$root/.afa-debootstrap-ok"
fi
# apt and the foreign architectures; /proc for apt and dpkg while
# installing (unmounted again below)
mount -t proc proc "$root/proc" || die "cannot mount proc in $root"
trap 'umount "$root/proc"' EXIT
# trixie with its point-release updates and security archive (kernels
# come from both), and backports (its newer kernels, built with trixie's
# compiler)
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror trixie main
deb $mirror trixie-updates main
deb ${mirror%/debian}/debian-security trixie-security main
deb $mirror trixie-backports main
EOF
for a in arm64 ppc64el; do
	in_root dpkg --add-architecture "$a" || die "dpkg --add-architecture $a failed"
done
# The archive we reach has served inconsistent foreign indexes (ppc64el
# of trixie-updates and trixie-security: "File has unexpected size"):
# apt keeps the rest, and the install below fails if amd64's are missing.
if ! in_root apt-get update -q >"$root.update.log" 2>&1; then
	echo "trixie-root: apt-get update reported errors (kept going):" >&2
	grep '^E: Failed to fetch' "$root.update.log" | cut -c1-160 >&2
fi
cat "$root.update.log" >>"$root.log"
in_root apt-get install -y -q --no-install-recommends "${pkgs[@]}" >>"$root.log" 2>&1 ||
	die "apt-get install failed in $root; see $root.log"
in_root apt-get clean
echo "$stamp" >"$root/.afa-root-ok"
echo "trixie-root: ready in $(($(date +%s) - t0)) s: $(in_root qemu-system-ppc64 --version | head -n 1)" >&2
echo "$root"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install every Debian package the project needs.  Idempotent: installs
# only what is missing, and says what it installs.
. "$(dirname "$0")/lib.sh"

pkgs=(
	# the kernel the test VM boots, and headers of the same version
	"linux-image-$AFA_SRC_SERIES-amd64" "linux-headers-$AFA_SRC_SERIES-amd64"
	# KUnit (kunit.py on UML) and checkpatch come from the source tree
	"linux-source-$AFA_SRC_SERIES" build-essential flex bison bc python3
	libelf-dev
	# module and userspace builds
	gcc make libc6-dev kmod
	# the test VM
	qemu-system-x86 busybox-static trace-cmd e2fsprogs cpio xz-utils
	# make bench: the plots in docs/bench/, the real-programs root image
	gnuplot-nox debootstrap
	# afa-stat's tests: its man page must render cleanly
	groff-base
	# the POWER code paths are compile-tested with the cross compiler
	gcc-powerpc64le-linux-gnu
	# DKMS packaging, and Debian 12's default 6.1 kernel (compatibility)
	dkms linux-image-amd64 linux-headers-amd64
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages are installed"
	exit 0
fi
[ "$(id -u)" -eq 0 ] ||
	die "must be root to install: ${missing[*]} (run 'sudo make deps')"

echo "deps: updating the package lists"
apt-get update -q >/dev/null || die "apt-get update failed"
for p in "${missing[@]}"; do
	cand=$(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	[ -n "$cand" ] && [ "$cand" != "(none)" ] ||
		die "package $p is not available from the configured mirror"
done
echo "deps: installing ${missing[*]}"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" ||
	die "apt-get install failed"
echo "deps: installed ${#missing[@]} packages"

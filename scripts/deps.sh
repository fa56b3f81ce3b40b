#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages a target needs.  Idempotent: installs only
# what is missing, and says what it installs.  As another user than root
# it installs nothing: it names what is missing and the command to run.
#
#   deps.sh [all|demo|deb]   all (default): everything, make check's set;
#                            demo: what make demo needs;
#                            deb: what make deb needs
#
# make demo and make check call it first, so that on a fresh Debian 12
# machine the README's two commands are all the set-up.
. "$(dirname "$0")/lib.sh"

# make demo: build the module and userspace, boot Debian's 6.12 in QEMU
demo_pkgs=(
	# the kernel the test VM boots, and headers of the same version
	"linux-image-$AFA_SRC_SERIES-amd64" "linux-headers-$AFA_SRC_SERIES-amd64"
	# module and userspace builds
	gcc make libc6-dev kmod
	# the test VM
	qemu-system-x86 busybox-static trace-cmd e2fsprogs xfsprogs cpio xz-utils
)
# make deb: the Debian packages, and the chroot their test installs into
deb_pkgs=(
	gcc make libc6-dev dpkg-dev debhelper dh-dkms fakeroot debootstrap
)
pkgs=(
	"${demo_pkgs[@]}" "${deb_pkgs[@]}"
	# KUnit (kunit.py on UML) and checkpatch come from the source tree
	"linux-source-$AFA_SRC_SERIES" build-essential flex bison bc python3
	libelf-dev
	# make bench: the plots in docs/bench/
	gnuplot-nox
	# afa-stat's tests: its man page must render cleanly
	groff-base
	# the POWER code paths are compile-tested with the cross compiler
	gcc-powerpc64le-linux-gnu
	# make vmtest-arm64, vmtest-ppc64le: the trixie root (scripts/trixie-root.sh)
	debootstrap
	# the kernel's mm selftests, linked statically (scripts/selftests-build.sh)
	libcap-dev libnuma-dev liburing-dev
	# DKMS packaging, and Debian 12's default 6.1 kernel (compatibility)
	dkms linux-image-amd64 linux-headers-amd64
	# the PREEMPT_RT kernel the VM suite also runs on (issue 13)
	"linux-image-$AFA_SRC_SERIES-rt-amd64" "linux-headers-$AFA_SRC_SERIES-rt-amd64"
)

case "${1:-all}" in
all) ;;
demo) pkgs=("${demo_pkgs[@]}") ;;
deb) pkgs=("${deb_pkgs[@]}") ;;
*) die "usage: deps.sh [all|demo|deb]" ;;
esac
what=${1:-all}
mapfile -t pkgs < <(printf '%s\n' "${pkgs[@]}" | awk '!seen[$0]++')

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages for '$what' are installed"
	exit 0
fi
[ "$(id -u)" -eq 0 ] ||
	die "missing Debian packages: ${missing[*]}; install them with 'sudo make deps' (or: sudo apt-get install ${missing[*]})"

echo "deps: updating the package lists"
apt-get update -q >/dev/null || die "apt-get update failed"
for p in "${missing[@]}"; do
	cand=$(apt-cache policy "$p" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	[ -n "$cand" ] && [ "$cand" != "(none)" ] ||
		die "package $p is not available from the configured mirror"
done
echo "deps: installing ${missing[*]}"
# another apt may be running: wait for its lock rather than fail
DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	-o DPkg::Lock::Timeout=600 "${missing[@]}" ||
	die "apt-get install failed"
echo "deps: installed ${#missing[@]} packages"

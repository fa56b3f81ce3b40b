#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages of 'make deb' with apt into a minimal
# bookworm root, as a user would (apt install ./autofaultaround-dkms_*.deb),
# let DKMS build the module there for the root's kernels (Debian's 6.12
# and 6.1 headers), upgrade to a newer version, load the module DKMS
# built in the test VM, then purge both packages and check that no file
# is left behind.  Ends "deb-test: N passed, N failed".  Root.
#
#   deb-test.sh           the whole test (builds the packages first)
#   deb-test.sh --root    only make the cached root, print its path
#
# The root is made once with debootstrap into the cache
# ($AFA_CACHE/deb-root-bookworm, about 400 MB) and never changed: each
# run installs into an overlay over it, thrown away afterwards.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || die "must be root (debootstrap, chroot, mount)"
need_pkgs debootstrap dpkg-dev debhelper dh-dkms fakeroot
mirror=${AFA_DEB_MIRROR:-http://deb.debian.org/debian}
security=${AFA_DEB_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
base=$AFA_CACHE/deb-root-bookworm
# The kernels DKMS builds for: the headers of the host's 6.12 and 6.1
# (bookworm-security has them), so that the test VM can boot the host's
# image of the same release with the module DKMS built.
k612=$("$AFA_TOP/scripts/kver.sh" 6.12)
k61=$("$AFA_TOP/scripts/kver.sh" 6.1)
[ -n "$k612" ] && [ -n "$k61" ] || die "no Debian 6.12 or 6.1 kernel with headers installed (make deps)"
# what the root holds: DKMS (with gcc and make), openssl (DKMS makes its
# signing key with it) and those headers; bump the tail when the recipe
# changes
recipe="bookworm minbase dkms kmod openssl linux-headers-$k612 linux-headers-$k61 v2"

# in_root DIR CMD...: run CMD in the root DIR with /proc, /sys and /dev
in_root() {
	local dir=$1 rc
	shift
	mount -t proc proc "$dir/proc" && mount --rbind /sys "$dir/sys" &&
		mount --rbind /dev "$dir/dev" || { umount_root "$dir"; return 1; }
	chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"
	rc=$?
	umount_root "$dir"
	return $rc
}

umount_root() {
	umount -l "$1/dev" 2>/dev/null
	umount -l "$1/sys" 2>/dev/null
	umount "$1/proc" 2>/dev/null
	true
}

# make_root: debootstrap the cached root and install the headers, once
make_root() {
	local new=$base.new log=$AFA_CACHE/deb-root.log

	[ "$(cat "$base/.afa-root" 2>/dev/null)" = "$recipe" ] && return 0
	mkdir -p "$AFA_CACHE" || die "cannot create $AFA_CACHE"
	exec 8>"$AFA_CACHE/.deb-root.lock"
	flock 8
	[ "$(cat "$base/.afa-root" 2>/dev/null)" = "$recipe" ] && return 0
	echo "deb-test: debootstrap of a minimal bookworm with DKMS and the headers of $k612 and $k61 into $base (once; a few minutes, log in $log)" >&2
	rm -rf "$new"
	debootstrap --variant=minbase --include=dkms,kmod bookworm "$new" "$mirror" \
		>"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "debootstrap failed (log: $log)"; }
	cat >"$new/etc/apt/sources.list" <<EOS
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOS
	in_root "$new" sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends \
		openssl linux-headers-$k612 linux-headers-$k61 && apt-get clean" >>"$log" 2>&1 ||
		{ tail -n 20 "$log" >&2; die "installing the headers in the root failed (log: $log)"; }
	rm -rf "$base"
	mv "$new" "$base"
	echo "$recipe" >"$base/.afa-root"
}

make_root
if [ "$1" = --root ]; then
	echo "$base"
	exit 0
fi

passed=0
failed=0
log=$AFA_TOP/build/deb-test.log
mkdir -p "$AFA_TOP/build"
: >"$log"
# check WHAT CMD...: one PASS or FAIL line; CMD's output goes to the log
check() {
	local what=$1
	shift
	echo "--- $what: $*" >>"$log"
	if "$@" >>"$log" 2>&1; then
		echo "PASS: $what"
		passed=$((passed + 1))
	else
		echo "FAIL: $what (see build/deb-test.log)"
		failed=$((failed + 1))
	fi
}

# The packages: this version, and a later one to upgrade to.
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$AFA_TOP/dkms.conf")
up=$ver+upgradetest1
debs=$AFA_TOP/build/deb
updebs=$AFA_TOP/build/deb-upgrade
"$AFA_TOP/scripts/deb.sh" >/dev/null || die "make deb failed"
AFA_DEB_VERSION=$up AFA_DEB_OUT=$updebs "$AFA_TOP/scripts/deb.sh" >/dev/null ||
	die "building the upgrade packages failed"

# An overlay over the cached root: the run's changes go to $work/upper.
work=$AFA_TOP/build/deb-test
root=$work/root
cleanup() {
	umount_root "$root"
	umount "$root" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
cleanup
mkdir -p "$work"/{upper,ovl,root}
mount -t overlay overlay -o "lowerdir=$base,upperdir=$work/upper,workdir=$work/ovl" "$root" ||
	die "cannot mount an overlay over $base"

# the root's files, less what apt and dpkg keep as logs, caches and backups
files() {
	(cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev \
		-o -path ./tmp -o -path ./var/log -o -path ./var/cache \
		-o -path ./var/lib/apt/lists \) -prune -o -print |
		grep -v -e '^\./var/lib/dpkg/[a-z]*-old$' -e '^\./etc/ld\.so\.cache$' | sort)
}
R() { in_root "$root" "$@"; }
# depmod's indexes of both kernels, as their image packages leave them
# on a real machine: the root has only the headers of 6.1, and DKMS's
# depmod would otherwise create them for good
for k in "$k612" "$k61"; do
	R depmod -a "$k" >>"$log" 2>&1 || die "depmod -a $k in the root failed"
done
files >"$work/files.before"

mkdir -p "$root/tmp/debs" "$root/tmp/debs-up"
cp "$debs"/autofaultaround-*_"$ver"_*.deb "$root/tmp/debs/"
cp "$updebs"/autofaultaround-*_"$up"_*.deb "$root/tmp/debs-up/"
cp "$AFA_TOP"/userspace/tests/data/stats-2node.{txt,expected} "$root/tmp/"

echo "deb-test: apt install of autofaultaround-dkms $ver and -tools into a bookworm root with the headers of $k612 and $k61"
check "apt install ./autofaultaround-dkms_${ver}_all.deb ./autofaultaround-tools_${ver}_amd64.deb (DKMS builds)" \
	R sh -c "apt-get install -y -q /tmp/debs/*.deb"
# dkms_installed VERSION KVER: DKMS has built and installed VERSION for KVER
dkms_installed() {
	R dkms status -m autofaultaround -v "$1" -k "$2" | tee /dev/stderr |
		grep -q "^autofaultaround/$1, $2, x86_64: installed"
}
# ko_is VERSION KVER: the installed module is VERSION and built for KVER
ko_is() {
	local ko
	ko=$(cd "$root" && ls lib/modules/"$2"/updates/dkms/autofaultaround.ko* 2>/dev/null | head -n 1)
	[ -n "$ko" ] || { echo "no autofaultaround.ko in /lib/modules/$2/updates/dkms"; return 1; }
	echo "$ko"
	R modinfo -F vermagic "/$ko" | grep -q "^$2 " &&
		R modinfo -F version "/$ko" | grep -qx "$1"
}
# signed_by_dkms KVER: DKMS signed the module with the key it made
signed_by_dkms() {
	local ko
	ko=$(cd "$root" && ls lib/modules/"$1"/updates/dkms/autofaultaround.ko* | head -n 1)
	R modinfo -F signer "/$ko" | tee /dev/stderr | grep -qx 'DKMS module signing key'
}
for k in "$k612" "$k61"; do
	check "DKMS built and installed $ver for $k" dkms_installed "$ver" "$k"
	check "/lib/modules/$k/updates/dkms/autofaultaround.ko is version $ver for $k" ko_is "$ver" "$k"
	check "DKMS signed the module for $k with its own key (signer 'DKMS module signing key')" \
		signed_by_dkms "$k"
done
check "DKMS made its signing key, /var/lib/dkms/mok.key and the certificate mok.pub to enroll" \
	test -s "$root/var/lib/dkms/mok.key" -a -s "$root/var/lib/dkms/mok.pub"
check "afa-stat from autofaultaround-tools shows a saved stats file as make check's test expects" \
	R sh -c "afa-stat -f /tmp/stats-2node.txt >/tmp/out && cmp /tmp/out /tmp/stats-2node.expected"
check "afa-stat's man page is installed" test -f "$root/usr/share/man/man1/afa-stat.1.gz"

# Boot-time loading as the admin guide shows it: modprobe resolves the
# module with the options of modprobe.d
# (a minimal root has no systemd, so no modules-load.d: make it, and
# remove it again before the files are compared)
made_mld=
[ -d "$root/etc/modules-load.d" ] || { mkdir "$root/etc/modules-load.d" && made_mld=1; }
echo autofaultaround >"$root/etc/modules-load.d/autofaultaround.conf"
echo "options autofaultaround period_ms=100 max_order=7" >"$root/etc/modprobe.d/autofaultaround.conf"
check "modprobe (dry run) finds the DKMS module for $k612 with the options of /etc/modprobe.d" \
	R sh -c "modprobe -S $k612 --show-depends autofaultaround | tee /dev/stderr |
		 grep -q 'updates/dkms/autofaultaround.ko.* period_ms=100 max_order=7'"
rm -f "$root/etc/modules-load.d/autofaultaround.conf" "$root/etc/modprobe.d/autofaultaround.conf"
[ -z "$made_mld" ] || rmdir "$root/etc/modules-load.d"

echo "deb-test: upgrade to $up"
check "apt install of the $up packages upgrades both" \
	R sh -c "apt-get install -y -q /tmp/debs-up/*.deb && dpkg-query -W autofaultaround-dkms autofaultaround-tools | tee /dev/stderr | awk '\$2 != \"$up\" { exit 1 }'"
for k in "$k612" "$k61"; do
	check "after the upgrade DKMS has $up for $k" dkms_installed "$up" "$k"
	check "after the upgrade the module for $k is version $up" ko_is "$up" "$k"
done
old_gone() {
	! R dkms status -m autofaultaround -v "$ver" | grep -q . &&
		test ! -e "$root/usr/src/autofaultaround-$ver"
}
check "after the upgrade $ver is gone from DKMS and /usr/src" old_gone

# The module DKMS built, loaded in the test VM (00-load: modprobe, sysfs,
# rmmod, no kernel report).
ko=$(cd "$root" && ls lib/modules/"$k612"/updates/dkms/autofaultaround.ko* 2>/dev/null | head -n 1)
if [ -n "$ko" ]; then
	case "$ko" in
	*.xz) xz -dc "$root/$ko" >"$work/autofaultaround.ko" ;;
	*) cp "$root/$ko" "$work/autofaultaround.ko" ;;
	esac
	echo "deb-test: booting $k612 with the module DKMS built in the root"
	mkdir -p "$AFA_TOP/build"
	(
		flock 9
		make -s -C "$AFA_TOP" userspace >/dev/null &&
		AFA_VM_KO=$work/autofaultaround.ko AFA_VM_APPEND="afa_tests=00-" \
			"$AFA_TOP/vm/run.sh" test "$k612"
	) 9>"$AFA_TOP/build/.vm.lock" >"$work/vm.out" 2>&1
	cat "$work/vm.out" >>"$log"
	grep -E '^(PASS|FAIL): |^vm: FAIL' "$work/vm.out" | sed 's/^/  vm: /'
	check "the VM loads and unloads the DKMS-built module of $k612 ($(grep '^vmtest: ' "$work/vm.out"))" \
		grep -q '^vmtest: [1-9][0-9]* passed, 0 failed$' "$work/vm.out"
else
	check "a module for $k612 to load in the VM" false
fi

echo "deb-test: purge"
check "apt purge of autofaultaround-dkms and autofaultaround-tools" \
	R apt-get purge -y -q autofaultaround-dkms autofaultaround-tools
no_dkms() {
	! R dkms status -m autofaultaround | grep -q .
}
check "after the purge DKMS knows no autofaultaround" no_dkms
# DKMS's signing key is DKMS's, made on its first build: it stays
files | grep -v -x -e './var/lib/dkms/mok\.key' -e './var/lib/dkms/mok\.pub' >"$work/files.after"
check "the purge leaves no file behind (file lists before install and after purge are equal, less DKMS's own signing key)" \
	diff "$work/files.before" "$work/files.after"

echo "deb-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

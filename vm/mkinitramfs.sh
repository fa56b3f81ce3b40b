#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the test VM's initramfs for kernel KVER:
#   busybox-static, the ext4 and virtio_blk modules, autofaultaround.ko
#   under /lib/modules/KVER/extra with depmod run (so 'modprobe
#   autofaultaround' works), trace-cmd with its libraries, the userspace
#   tools, and the guest scripts from vm/.
# The kernel's modules come from /lib/modules/KVER, or from AFA_VM_MODDIR
# (a tree ending in lib/modules/KVER, as 'make modules_install
# INSTALL_MOD_PATH=' leaves it) for a kernel built elsewhere, such as
# scripts/debug-kernel.sh's; ext4 and virtio built in need no copy.
# AFA_VM_KO puts another autofaultaround.ko in its place (the one DKMS
# built in scripts/deb-test.sh).
# For another architecture (make vmtest-arm64, vmtest-ppc64le) the
# binaries come from elsewhere too: AFA_VM_KO (the module), AFA_VM_EXTRA_KO
# (more modules for extra/, each only if built for KVER), AFA_VM_TOOLS (a folder of afa-* tools),
# AFA_VM_BUSYBOX (a busybox that cannot run here: /init installs its
# applets at boot), AFA_VM_TRACECMD=0 (no trace-cmd).  AFA_VM_TESTS,
# names of vm/guest/tests files without .sh, puts only those tests in.
# AFA_VM_SELFTESTS, a folder of the kernel's selftest binaries
# (scripts/selftests-build.sh), goes to /selftests.
# usage: mkinitramfs.sh KVER OUTDIR
. "$(dirname "$0")/../scripts/lib.sh"

kver=$1
out=$2
[ -n "$kver" ] && [ -n "$out" ] || die "usage: mkinitramfs.sh KVER OUTDIR"
need_pkgs cpio kmod xz-utils
[ -n "$AFA_VM_BUSYBOX" ] || need_pkgs busybox-static
[ "$AFA_VM_TRACECMD" = 0 ] || need_pkgs trace-cmd
ko=${AFA_VM_KO:-$AFA_TOP/module/autofaultaround.ko}
[ -f "$ko" ] || die "$ko not built"
modinfo -F vermagic "$ko" | grep -q "^$kver " ||
	die "$ko was not built for $kver; run 'make KDIR=/lib/modules/$kver/build'"

root=$out/root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,mnt,run,etc} ||
	die "cannot create $root"

# busybox and its applets (a foreign busybox: /init runs its --install)
if [ -n "$AFA_VM_BUSYBOX" ]; then
	cp "$AFA_VM_BUSYBOX" "$root/bin/busybox" && ln -s busybox "$root/bin/sh" ||
		die "cannot copy $AFA_VM_BUSYBOX"
else
	cp /bin/busybox "$root/bin/busybox"
	for a in $(/bin/busybox --list-full); do
		[ -e "$root/$a" ] || ln -s /bin/busybox "$root/$a"
	done
fi

# kernel modules: what ext4 and virtio_blk need, decompressed, in order
# (none when they are built in: --show-depends says "builtin")
srcmod=${AFA_VM_MODDIR:-/lib/modules/$kver}
srcmod=${srcmod%/}
modbase=${srcmod%/lib/modules/"$kver"}
[ "$modbase" != "$srcmod" ] || die "AFA_VM_MODDIR=$srcmod does not end in /lib/modules/$kver"
modprobe_d=()
[ -n "$modbase" ] && modprobe_d=(-d "$modbase")
moddir=$root/lib/modules/$kver
mkdir -p "$moddir/extra" "$moddir/kernel"
# copy_mods FILE...: kernel module files into the initramfs, decompressed
copy_mods() {
	for m in "$@"; do
		rel=${m#"$srcmod"/}
		mkdir -p "$moddir/$(dirname "$rel")"
		case "$m" in
		*.xz) xz -dc "$m" >"$moddir/${rel%.xz}" ;;
		*) cp "$m" "$moddir/$rel" ;;
		esac || die "cannot copy module $m"
	done
}
# mod_deps NAME...: the module files modprobe would load for NAME, in
# order; fails if one is unknown (run it in a command substitution)
mod_deps() {
	set -o pipefail
	for n in "$@"; do
		modprobe "${modprobe_d[@]}" -S "$kver" --show-depends "$n" || return 1
	done | awk '$1 == "insmod" { print $2 }'
}
mods=$(mod_deps ext4 virtio_pci virtio_blk) || die "modprobe cannot resolve ext4 and virtio for $kver"
# shellcheck disable=SC2086
copy_mods $mods
# xfs for the test suite's second disk, where the kernel has it
# shellcheck disable=SC2086
copy_mods $(mod_deps xfs 2>/dev/null)
cp "$srcmod"/modules.builtin* "$moddir/"
cp "$ko" "$moddir/extra/" || die "cannot copy $ko"
# extra modules only when built for this kernel
for x in $AFA_VM_EXTRA_KO; do
	if [ -f "$x" ] && modinfo -F vermagic "$x" | grep -q "^$kver "; then
		cp "$x" "$moddir/extra/" || die "cannot copy $x"
	else
		echo "mkinitramfs: leaving out $x: not built for $kver"
	fi
done
(cd "$moddir" && find kernel extra -name '*.ko') >"$moddir/modules.order"
depmod -b "$root" "$kver" || die "depmod failed"

# trace-cmd and the shared libraries it loads
copy_with_libs() {
	cp "$1" "$root/usr/bin/"
	for lib in $(ldd "$1" | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
}
# and kmod's modprobe, for the modprobe.d example's install and remove
# lines, which busybox's modprobe does not run (16-fault-around-optin):
# this machine's binaries, for guests of its architecture only
if [ "$AFA_VM_TRACECMD" != 0 ]; then
	copy_with_libs /usr/bin/trace-cmd
	copy_with_libs /usr/bin/kmod
	mkdir -p "$root/usr/lib/afa-kmod"
	ln -s /usr/bin/kmod "$root/usr/lib/afa-kmod/modprobe"
fi

# userspace tools and the guest side of the harness
for p in "${AFA_VM_TOOLS:-$AFA_TOP/userspace}"/afa-*; do
	[ -x "$p" ] && [ ! -d "$p" ] && cp "$p" "$root/usr/bin/"
done
if [ -n "$AFA_VM_SELFTESTS" ]; then
	[ -x "$AFA_VM_SELFTESTS/mremap_test" ] ||
		die "AFA_VM_SELFTESTS=$AFA_VM_SELFTESTS holds no selftests"
	mkdir -p "$root/selftests"
	cp -p "$AFA_VM_SELFTESTS"/* "$root/selftests/" || die "cannot copy the selftests"
	# some selftests run commands as nobody
	echo 'root:x:0:0:root:/:/bin/sh' >"$root/etc/passwd"
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
fi
cp "$AFA_TOP/vm/init" "$root/init"
cp -r "$AFA_TOP/vm/guest" "$root/guest"
cp "$AFA_TOP/userspace/modprobe.d/autofaultaround.conf" "$root/guest/modprobe-example.conf"
if [ -n "$AFA_VM_TESTS" ]; then
	rm -f "$root"/guest/tests/*.sh
	for t in $AFA_VM_TESTS; do
		cp "$AFA_TOP/vm/guest/tests/$t.sh" "$root/guest/tests/" ||
			die "no test vm/guest/tests/$t.sh"
	done
fi
chmod +x "$root/init"

(cd "$root" && find . | cpio -o -H newc --quiet) >"$out/initramfs.cpio" ||
	die "cpio failed"

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot Debian's kernel KVER in QEMU (TCG) with the project's initramfs and
# an ext4 test disk, run the guest side in MODE (test or demo), and judge
# the console log.
#
# The run fails on any FAIL line, on a missing completion marker (hang,
# panic, timeout) and on any kernel report in the console.
# usage: run.sh MODE KVER
. "$(dirname "$0")/../scripts/lib.sh"

mode=$1
kver=$2
[ -n "$mode" ] && [ -n "$kver" ] || die "usage: run.sh test|demo KVER"
need_pkgs qemu-system-x86 e2fsprogs
kernel=/boot/vmlinuz-$kver
[ -r "$kernel" ] ||
	die "$kernel not found; install linux-image-$kver (see 'make deps')"

out=$AFA_TOP/build/vm-$kver
mkdir -p "$out"
"$AFA_TOP/vm/mkinitramfs.sh" "$kver" "$out" || exit 1

disk=$out/disk.img
rm -f "$disk"
truncate -s 512M "$disk" && mkfs.ext4 -q -F "$disk" ||
	die "cannot make the ext4 test disk"

log=$out/console-$mode.log
timeout=${AFA_VM_TIMEOUT:-600}
smp=${AFA_VM_SMP:-2}
echo "vm: booting $kver (mode=$mode, smp=$smp, timeout ${timeout}s), log in $log"
# Single-threaded TCG: with MTTCG, patching kernel text for a tracepoint
# while another vCPU faults gives spurious int3 oopses (platform notes).
timeout --foreground "$timeout" qemu-system-x86_64 \
	-accel tcg,thread=single -m 1024 -smp "$smp" \
	-kernel "$kernel" -initrd "$out/initramfs.cpio" \
	-append "console=ttyS0 quiet panic=-1 afa_mode=$mode" \
	-drive file="$disk",if=virtio,format=raw \
	-nic none -display none -serial stdio -monitor none -no-reboot \
	</dev/null 2>&1 | tr -d '\r' | tee "$log" |
	sed '/^AFA-DMESG-BEGIN$/,/^AFA-DMESG-END$/d'
qemu_rc=${PIPESTATUS[0]}

passed=$(grep -c '^PASS: ' "$log")
failed=$(grep -c '^FAIL: ' "$log")
harness=0
if [ "$qemu_rc" -eq 124 ]; then
	echo "vm: FAIL: QEMU timed out after ${timeout}s"
	harness=$((harness + 1))
fi
if ! grep -q '^AFA-VM-DONE$' "$log"; then
	echo "vm: FAIL: no completion marker (hang or panic)"
	harness=$((harness + 1))
fi
reports=$(grep -E 'BUG:|WARNING:|Oops|Call Trace|KASAN|possible .*locking|lockdep|general protection|Kernel panic' "$log" |
	  grep -v '^\(PASS\|FAIL\): ')
if [ -n "$reports" ]; then
	echo "vm: FAIL: kernel reports in the console log:"
	echo "$reports" | head -n 20
	harness=$((harness + 1))
fi
failed=$((failed + harness))
[ "$mode" = test ] && [ "$passed" -eq 0 ] && failed=$((failed + 1))
label=vm$mode; [ "$mode" = demo ] && label=demo
echo "$label: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

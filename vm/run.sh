#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot Debian's kernel KVER in QEMU (TCG) with the project's initramfs and
# an ext4 test disk, run the guest side in MODE (test, numa, demo, bench,
# debug, stress or selftests), and judge the console log.  AFA_VM_KERNEL
# (an image) and AFA_VM_MODDIR (its modules, see mkinitramfs.sh) boot a kernel built
# elsewhere instead, as make vmtest-debug does with the debug kernel of
# scripts/debug-kernel.sh.  bench mode counts no PASS lines: it boots with
# QEMU's instruction-counting clock (AFA_BENCH_CLOCK=wall: without it)
# and more memory, attaches the root image AFA_VM_ROOTFS as a second disk
# when set, and leaves its BENCH result lines in the console log for
# scripts/bench-report.sh.
#
# AFA_VM_ARCH=arm64 or ppc64le boots that architecture's Debian kernel
# (AFA_VM_KERNEL, required) on qemu-system-aarch64 -M virt -cpu cortex-a57
# or qemu-system-ppc64 -M pseries -cpu power9, the QEMU 10 of the trixie
# root (scripts/trixie-root.sh), with two vCPUs; make vmtest-arm64 and
# vmtest-ppc64le set it and mkinitramfs.sh's AFA_VM_* variables.
#
# AFA_VM_TCG=multi runs the vCPUs in parallel (multi-threaded TCG), and
# AFA_VM_QEMU, a command prefix, runs another x86_64 QEMU: bookworm's 7.2
# oopses on cross-modifying code under MTTCG, Debian 13's QEMU 10 does
# not (make vmtest-stress-mttcg runs that one from scripts/trixie-root.sh's
# root).
#
# The run fails on any FAIL line, on a missing completion marker (hang,
# panic, timeout) and on any kernel report in the console.  A kernel that
# does not reach the guest's /init (AFA_VM_BOOT_TIMEOUT, 300 s; 900 in
# debug mode) is booted once more, and fails the second time.
# usage: run.sh MODE KVER
. "$(dirname "$0")/../scripts/lib.sh"

mode=$1
kver=$2
[ -n "$mode" ] && [ -n "$kver" ] || die "usage: run.sh test|numa|lockdown|demo|bench|debug|stress|selftests KVER"
need_pkgs e2fsprogs xfsprogs procps
arch=${AFA_VM_ARCH:-x86_64}
kernel=${AFA_VM_KERNEL:-/boot/vmlinuz-$kver}
# QEMU from the trixie root sees the kernel's folder and the checkout
trixie_qemu=("$AFA_TOP/scripts/trixie-root.sh" --run --bind "$(dirname "$kernel")" --)
case "$arch" in
x86_64)
	need_pkgs qemu-system-x86
	qemu=(qemu-system-x86_64)
	console=ttyS0
	;;
arm64)
	qemu=("${trixie_qemu[@]}" qemu-system-aarch64 -M virt -cpu cortex-a57)
	console=ttyAMA0
	;;
ppc64le)
	# AFA_VM_MMU=hash: the hash MMU instead of radix (disable_radix).
	# Under TCG, its change_memory_range_fn() (rewriting the kernel's
	# hash PTEs under stop_machine) holds both vCPUs for 150 s in
	# mark_rodata_ro() and 28 s more in mark_initmem_nx(), and the
	# watchdogs report soft lockups.  Test-only concessions: rodata=off
	# skips the first; the watchdog is off and RCU waits 60 s before it
	# calls a stall.
	qemu=("${trixie_qemu[@]}" qemu-system-ppc64 -M pseries -cpu power9)
	console=hvc0
	[ "$AFA_VM_MMU" = hash ] &&
		console="$console disable_radix rodata=off nowatchdog rcupdate.rcu_cpu_stall_timeout=60"
	;;
*)
	die "AFA_VM_ARCH=$arch: x86_64, arm64 or ppc64le"
	;;
esac
[ -r "$kernel" ] ||
	die "$kernel not found; ${AFA_VM_KERNEL:+check AFA_VM_KERNEL or }install linux-image-$kver (see 'make deps')"

out=$AFA_TOP/build/vm-$kver${AFA_VM_MMU:+-$AFA_VM_MMU}
mkdir -p "$out"
"$AFA_TOP/vm/mkinitramfs.sh" "$kver" "$out" || exit 1

disk=$out/disk.img
rm -f "$disk"
# 512 MiB, and twice that for debug mode, whose one boot runs the suite
# and then the stress suite on the same disk: the suite's files left
# 80-hotset no room for its 136 MiB (the first PREEMPT_RT debug run)
disk_mb=512
[ "$mode" != debug ] || disk_mb=1024
truncate -s "${disk_mb}M" "$disk" && mkfs.ext4 -q -F "$disk" ||
	die "cannot make the ext4 test disk"
# the test suite's second disk, /dev/vdb: xfs (large folios; 17-span)
xdisk=$out/xfs.img
rm -f "$xdisk"
if [ "$mode" = test ]; then
	truncate -s 320M "$xdisk" && mkfs.xfs -q -f "$xdisk" ||
		die "cannot make the xfs test disk"
fi

log=$out/console-$mode.log
timeout=${AFA_VM_TIMEOUT:-600}
smp=${AFA_VM_SMP:-2}
mem=${AFA_VM_MEM:-1024}
extra=()
disks=()
append="afa_mode=$mode"
case "$mode" in
test)
	# One socket of two cores of two SMT threads: the whole suite runs
	# with SMT siblings to choose from (issue 5).
	smp=${AFA_VM_SMP:-4,sockets=1,cores=2,threads=2}
	;;
numa)
	# Two NUMA nodes of one SMT2 core each (a socket per node: a socket
	# split across nodes makes the kernel warn); the topology tests only,
	# with CPU 3 isolated from the scheduler's domains (its test at the
	# end of 50-topology).
	smp=${AFA_VM_SMP:-4,sockets=2,cores=1,threads=2}
	extra=(-object memory-backend-ram,id=m0,size=$((mem / 2))M
	       -numa node,nodeid=0,cpus=0-1,memdev=m0
	       -object memory-backend-ram,id=m1,size=$((mem / 2))M
	       -numa node,nodeid=1,cpus=2-3,memdev=m1)
	append="afa_mode=test afa_tests=50- isolcpus=domain,3"
	;;
lockdown)
	# The lockdown test only: it raises lockdown to integrity, as
	# Secure Boot sets it, once the module is loaded
	# (scripts/lockdown-test.sh).
	append="afa_mode=test afa_tests=05- afa_lockdown=1"
	;;
stress)
	# The stress suite: the test topology (SMT siblings to take offline),
	# and time for it (about 15 minutes under TCG at the default counts).
	smp=${AFA_VM_SMP:-4,sockets=1,cores=2,threads=2}
	timeout=${AFA_VM_TIMEOUT:-1800}
	;;
debug)
	# The debug kernel (KASAN, lockdep, kmemleak): the test topology, the
	# whole suite, the stress suite and a kmemleak scan; KASAN under TCG
	# is slow and wants memory.  Warnings (lockdep, WARN) go to the
	# console too, so that a hang still leaves its report in the log.
	# Half the load/unload cycles (100, each parameter line about 17
	# times), to keep make check's budget: 200 took 640 to 680 s on this
	# kernel alone (2026-12-03), 100 took 463 s (2026-12-07).  The
	# stress tests run all their cycles, however slow the host; this
	# timeout is what stops a hang.
	smp=${AFA_VM_SMP:-4,sockets=1,cores=2,threads=2}
	mem=${AFA_VM_MEM:-2048}
	timeout=${AFA_VM_TIMEOUT:-4800}
	append="$append loglevel=5 stress_loads=100"
	;;
selftests)
	# The kernel's mm selftests without and with the module
	# (scripts/selftests-build.sh builds them; vm/guest/selftests.sh):
	# memory for the hugetlb tests' 320 MiB of huge pages and for
	# compaction_test, time for four runs of them.
	smp=${AFA_VM_SMP:-2}
	mem=${AFA_VM_MEM:-2048}
	timeout=${AFA_VM_TIMEOUT:-2400}
	# uffd-unit-tests' poison test makes the kernel log an MCE line per
	# page (pr_err): keep them off the slow serial console (loglevel=3:
	# only crit and worse; the dmesg dump at the end has them all)
	append="$append log_buf_len=8M loglevel=3"
	[ -n "$AFA_VM_SELFTESTS" ] || die "selftests mode needs AFA_VM_SELFTESTS (make vmtest-selftests)"
	;;
esac
# other architectures: two vCPUs, no x86 topology
[ "$arch" = x86_64 ] || smp=${AFA_VM_SMP:-2}
if [ "$mode" = bench ]; then
	# Guest time advances 1 ns per instruction: repeatable timings on a
	# busy host (platform notes); 2 GiB for a cached 1 GiB sparse file
	# and the root image's programs.  AFA_BENCH_CLOCK=wall boots without
	# the instruction clock: guest time is the host's, noisy but with
	# the cost of memory accesses in it; its log is console-bench-wall.log.
	extra=(-icount shift=0,sleep=off)
	if [ "${AFA_BENCH_CLOCK:-icount}" = wall ]; then
		extra=()
		log=$out/console-bench-wall.log
	fi
	append="$append bench_clock=${AFA_BENCH_CLOCK:-icount}"
	timeout=${AFA_VM_TIMEOUT:-3600}
	mem=${AFA_VM_MEM:-2048}
	# the real-programs family's Debian root (scripts/rootfs.sh), as the
	# second disk (/dev/vdb, after the test disk); snapshot=on: the guest's writes never reach the image
	if [ -n "$AFA_VM_ROOTFS" ]; then
		[ -r "$AFA_VM_ROOTFS" ] || die "no root image at $AFA_VM_ROOTFS"
		disks=(-drive "file=$AFA_VM_ROOTFS,if=virtio,format=raw,snapshot=on")
	fi
fi
[ "$mode" != test ] || disks+=(-drive "file=$xdisk,if=virtio,format=raw")
# Single-threaded TCG by default: with bookworm's QEMU 7.2 and MTTCG,
# patching kernel text for a tracepoint while another vCPU faults gives
# spurious int3 oopses (platform notes).  The instruction clock needs
# single-threaded TCG.
tcg=${AFA_VM_TCG:-single}
case "$tcg" in
single) ;;
multi) [ "$mode" != bench ] || die "bench mode's -icount needs AFA_VM_TCG=single" ;;
*) die "AFA_VM_TCG=$tcg: single or multi" ;;
esac
[ -z "$AFA_VM_QEMU" ] || read -r -a qemu <<<"$AFA_VM_QEMU"
echo "vm: booting $kver ($arch, mode=$mode, smp=$smp, mem ${mem}M, tcg $tcg, timeout ${timeout}s${extra:+, ${extra[*]}}), log in $log"
[ -z "$AFA_VM_QEMU" ] || echo "vm: QEMU: ${qemu[*]} ($("${qemu[@]}" --version | head -n 1))"
# boot: QEMU once, its console into $log.  A watchdog stops it when the
# guest's /init has not started within $boot_timeout seconds: a kernel
# that fails while booting otherwise hangs until $timeout.
# (the debug kernel, KASAN and lockdep under TCG, boots slowest)
boot_timeout=${AFA_VM_BOOT_TIMEOUT:-300}
[ "$mode" != debug ] || boot_timeout=${AFA_VM_BOOT_TIMEOUT:-900}
case "$boot_timeout" in
'' | *[!0-9]* | 0) die "AFA_VM_BOOT_TIMEOUT=$boot_timeout: seconds, above 0" ;;
esac
boot() {
	rm -f "$out/.qemu-done"
	( i=0
	  while [ $i -lt "$boot_timeout" ]; do
		sleep 1
		[ ! -e "$out/.qemu-done" ] || exit 0
		i=$((i + 1))
	  done
	  grep -q '^AFA-VM-START' "$log" 2>/dev/null && exit 0
	  echo "vm: /init did not start within ${boot_timeout}s: stopping QEMU"
	  pkill -TERM -P $$ -x timeout ) &
	watchdog=$!
	timeout --foreground "$((deadline - SECONDS))" "${qemu[@]}" \
		-accel tcg,thread="$tcg" -m "$mem" -smp "$smp" "${extra[@]}" \
		-kernel "$kernel" -initrd "$out/initramfs.cpio" \
		-append "console=$console quiet panic=-1 $append $AFA_VM_APPEND" \
		-drive file="$disk",if=virtio,format=raw "${disks[@]}" \
		-nic none -display none -serial stdio -monitor none -no-reboot \
		</dev/null 2>&1 | sed -u 's/\r//g' | tee "$log" |
		sed -e '/^AFA-DMESG-BEGIN$/,/^AFA-DMESG-END$/d' -e '/^BENCH/d'
	qemu_rc=${PIPESTATUS[0]}
	# the watchdog looks every second, and ends when QEMU is done
	touch "$out/.qemu-done"
	wait "$watchdog"
	rm -f "$out/.qemu-done"
}

# A kernel that failed before /init ran failed with no module loaded and
# no test run: bookworm's QEMU 7.2 once took a general protection fault
# in the kernel's own text patching at 1.6 s (docs/testing.md, the CI at
# 989e788).  Boot once more, saying so, within the run's one timeout; a
# second such boot fails.  Not when QEMU itself failed (its status), nor
# when the guest printed anything of its own.
deadline=$((SECONDS + timeout))
rm -f "$log.boot1"
boot
if [ "$qemu_rc" -eq 0 ] && [ $((deadline - SECONDS)) -gt 0 ] &&
   ! grep -qE '^(AFA-VM-START|AFA-VM-DONE$|--- |PASS: |FAIL: )' "$log"; then
	echo "vm: the kernel did not reach /init (no module loaded, no test run): booting once more; the first boot's console is in $log.boot1"
	grep -E 'BUG:|WARNING:|Oops|general protection|Kernel panic' "$log" | head -n 5 | sed 's/^/vm:   /'
	mv "$log" "$log.boot1"
	boot
fi

passed=$(grep -c '^PASS: ' "$log")
failed=$(grep -c '^FAIL: ' "$log")
harness=0
if [ "$qemu_rc" -eq 124 ]; then
	echo "vm: FAIL: QEMU timed out after ${timeout}s"
	harness=$((harness + 1))
fi
if ! grep -q '^AFA-VM-DONE$' "$log"; then
	echo "vm: FAIL: no completion marker (hang or panic); the log's last lines:"
	tail -n 30 "$log" | sed 's/^/vm:   /'
	harness=$((harness + 1))
fi
# (a lockdep kernel's boot banner "RCU lockdep checking is enabled" is
# no report)
reports=$(grep -E 'BUG:|WARNING:|Oops|Call Trace|KASAN|possible .*locking|lockdep|general protection|Kernel panic' "$log" |
	  grep -v -e '^\(PASS\|FAIL\): ' -e '^rcu:[[:space:]]*RCU lockdep checking is enabled\.$')
if [ -n "$reports" ]; then
	echo "vm: FAIL: kernel reports in the console log:"
	echo "$reports" | head -n 20
	harness=$((harness + 1))
fi
failed=$((failed + harness))
case "$mode" in
test | numa | debug | stress | lockdown | selftests)
	[ "$passed" -eq 0 ] && failed=$((failed + 1))
	label=vmtest
	[ "$mode" = stress ] && label=vmtest-stress
	[ "$mode" = selftests ] && label=vmtest-selftests
	;;
*)
	label=$mode
	;;
esac
# other architectures: two vCPUs, no x86 topology
[ "$arch" = x86_64 ] || smp=${AFA_VM_SMP:-2}
if [ "$mode" = bench ]; then
	echo "bench: $(grep -c '^BENCH' "$log") result lines, $failed failed"
else
	echo "$label: $passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]

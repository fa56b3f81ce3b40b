#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The VM suite, or the benchmarks, on another architecture's Debian 13
# kernel, in one boot:
#
#   vmtest-foreign.sh FLAVOUR [TEST...]   arm64 | powerpc64le | powerpc64le-64k
#   vmtest-foreign.sh --bench FLAVOUR     the same kernel in bench mode
#   vmtest-foreign.sh --numa FLAVOUR      the topology tests on two nodes
#
# fetches the kernel (foreign-kernel.sh), cross-builds the module, the
# probe test module and the tools (foreign-build.sh), and boots it with
# vm/run.sh (AFA_VM_ARCH) running the tests named (vm/guest/tests/NAME.sh;
# the Makefile's FOREIGN_TESTS).  Ends with "vmtest: N passed, N failed".
# AFA_VM_MMU=hash boots a ppc64le kernel with the hash MMU (vm/run.sh).
# --numa boots run.sh's numa mode instead (two NUMA nodes, the topology
# tests only; no TEST names).
# --bench boots in run.sh's bench mode instead (make bench-ppc64le:
# AFA_VM_APPEND carries the bench_* knobs, AFA_BENCH_CLOCK the clock);
# its console log is build/vm-KVER/console-bench.log (-wall.log on the
# wall clock), and it ends with "bench: N result lines, N failed".
. "$(dirname "$0")/lib.sh"

mode=test
case "$1" in
--bench | --numa)
	mode=${1#--}
	shift
	;;
esac
flavour=$1
shift
case "$flavour" in
arm64) arch=arm64 ;;
powerpc64le | powerpc64le-64k) arch=ppc64le ;;
amd64) arch=x86_64 ;;
*) die "usage: vmtest-foreign.sh [--bench|--numa] arm64|powerpc64le|powerpc64le-64k|amd64 [TEST...]" ;;
esac
t0=$(date +%s)
kver=$("$AFA_TOP/scripts/foreign-build.sh" "$flavour") || {
	if [ $mode = bench ]; then
		echo "bench: 0 result lines, 1 failed"
	else
		echo "vmtest: 0 passed, 1 failed"
	fi
	exit 1
}
t1=$(date +%s)
k=$AFA_CACHE/foreign/$kver
# vmlinux on ppc64el's 6.12, vmlinuz elsewhere and from 7.x
image=$(ls "$k"/boot/vmlinu[xz]-"$kver" 2>/dev/null | head -n 1)
out=$AFA_TOP/build/foreign-$kver
# this machine's trace-cmd and its libraries run in an amd64 guest only
tracecmd=0
[ "$arch" = x86_64 ] && tracecmd=1
AFA_VM_ARCH=$arch AFA_VM_KERNEL=$image \
	AFA_VM_MODDIR=$k/lib/modules/$kver AFA_VM_KO=$out/autofaultaround.ko \
	AFA_VM_EXTRA_KO=$out/afa_probetest.ko AFA_VM_TOOLS=$out \
	AFA_VM_BUSYBOX=$k/bin/busybox AFA_VM_TRACECMD=$tracecmd AFA_VM_TESTS="$*" \
	"$AFA_TOP/vm/run.sh" $mode "$kver"
rc=$?
what=suite
[ $mode = bench ] && what=bench
echo "vmtest-foreign: $kver${AFA_VM_MMU:+ ($AFA_VM_MMU MMU)}: fetch and build $((t1 - t0)) s, boot and $what $(($(date +%s) - t1)) s"
exit $rc

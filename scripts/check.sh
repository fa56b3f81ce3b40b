#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# 'make check': every test that can run on this machine, then one line
# "N passed, N failed" over all of them.
#
# A phase that prints its own "<name>: N passed, N failed" line is counted
# case by case; any other phase counts as one check, by its exit status.
. "$(dirname "$0")/lib.sh"

cd "$AFA_TOP" || exit 1
mkdir -p build
# What is missing first (as root; otherwise it says what to run and stops).
scripts/deps.sh || exit 1
k612=$(scripts/kver.sh 6.12)
k61=$(scripts/kver.sh 6.1)
krt=$(scripts/kver.sh 6.12 rt-amd64)
echo "check: kernels: 6.12 is ${k612:-missing}, 6.1 is ${k61:-missing} (scripts/kver.sh: the running kernel's flavour, else the generic one; AFA_KFLAVOUR= picks another)"
passed=0
failed=0
summary=()

# phase NAME[:LABEL] COMMAND...: LABEL is what the command's count lines
# start with, NAME by default.
#   KNOTE=WHAT phase ...: the kernel the phase uses, in its header and
#   in the summary.
phase() {
	local name=${1%%:*} label=${1#*:} log=build/check-${1%%:*}.log rc line p f
	shift
	echo "=== $name: $*${KNOTE:+ [kernel: $KNOTE]}"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	# a phase may print several such lines (one per VM boot): add them up
	line=$(grep -E "^$label: [0-9]+ passed, [0-9]+ failed$" "$log" |
	       awk '{ p += $2; f += $4 } END { if (NR) print p, f }')
	if [ -n "$line" ]; then
		p=${line% *}
		f=${line#* }
		[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	elif [ "$rc" -eq 0 ]; then
		p=1 f=0
	else
		p=0 f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	summary+=("$(printf '%-14s %4d passed, %d failed%s' "$name" "$p" "$f" "${KNOTE:+  ($KNOTE)}")")
}

# The module must build without a single warning at W=1, for 6.12 and 6.1.
build_w1() {
	local series kver rc=0
	for series in 6.12 6.1; do
		kver=$(scripts/kver.sh $series)
		[ -n "$kver" ] || { echo "no Debian $series headers: make deps"; rc=1; continue; }
		echo "W=1 build against $kver"
		make -s modules KDIR="/lib/modules/$kver/build" W=1 >build/w1.log 2>&1 || rc=1
		cat build/w1.log
		! grep -q 'warning:' build/w1.log || rc=1
	done
	return $rc
}

KNOTE="$k612 and $k61 headers" phase build-w1 build_w1
phase userspace make -s userspace
phase afa-stat-test userspace/tests/afa-stat-test.sh
phase kver-test scripts/kver-test.sh
phase checkpatch scripts/checkpatch.sh
phase doc-logs scripts/doc-logs.sh
KNOTE="ppc64le_defconfig of linux-source-$AFA_SRC_SERIES" phase cross-ppc64le scripts/cross-build.sh
KNOTE="UML, linux-source-$AFA_SRC_SERIES" phase kunit scripts/kunit.sh
KNOTE="i386, linux-source-$AFA_SRC_SERIES" phase kunit-i386 env AFA_KUNIT_ARCH=i386 scripts/kunit.sh
KNOTE="$k612 and $k61" phase dkms scripts/dkms-test.sh
KNOTE="$k612 and $k61 headers in a bookworm root; the VM boots $k612" phase deb-test scripts/deb-test.sh
KNOTE=$k612 phase vmtest-6.12:vmtest make -s vmtest KVER="$k612"
KNOTE=$k61 phase vmtest-6.1:vmtest make -s vmtest KVER="$k61"
KNOTE=$krt phase vmtest-rt:vmtest make -s vmtest KVER="$krt"
KNOTE="$k612 and $k61" phase vmtest-lockdown:vmtest scripts/lockdown-test.sh
# Debian 13's arm64 and ppc64le kernels under the trixie root's QEMU 10:
# about 2.5 minutes cold for the root, 20 s per kernel to fetch, then a
# few minutes of boots (docs/testing.md)
KNOTE="Debian 13 arm64" phase vmtest-arm64:vmtest make -s vmtest-arm64
KNOTE="Debian 13 amd64 6.12" phase vmtest-trixie:vmtest make -s vmtest-trixie
KNOTE="Debian 13 ppc64le, 64k and 4k pages" phase vmtest-ppc64le:vmtest make -s vmtest-ppc64le
# The kernel's own mm selftests, without and with the module (6.12)
KNOTE=$k612 phase vmtest-selftests make -s vmtest-selftests KVER="$k612"
KNOTE="the newest amd64 kernel of trixie(-backports)" phase vmtest-newest:vmtest make -s vmtest-newest
# The debug kernels' runs only when the kernel is cached (a cold build
# and its run do not fit CI's budget), and only when the time left in
# CI's 90 minutes holds the run: the KASAN/lockdep kernel's measured 34
# minutes (40 with a margin; the phases before it take 45-60 minutes on
# a loaded 2-core machine, so with every cache warm it is skipped rather
# than let the run overrun), 75 for its PREEMPT_RT flavour (its first
# run, 2026-12-02: 68 minutes, the last 35 beside a CI run).  So on a
# 2-core machine CI skips that one for time, saying so, and 'make
# vmtest-debug-rt' runs it alone.  AFA_CHECK_BUDGET_S sets the budget (README,
# docs/testing.md).
budget=${AFA_CHECK_BUDGET_S:-5400}

# debug_phase NAME SECONDS [AFA_DEBUG_RT=1]
debug_phase() {
	local name=$1 secs=$2 why
	shift 2
	if ! why=$(env "$@" scripts/debug-kernel.sh --cached 2>&1 >/dev/null); then
		echo "=== $name: skipped: ${why#debug-kernel: }; 'make ${name/vmtest-debug/debug-kernel}' builds it (10 to 16 minutes on 2 cores), then make check runs it"
		summary+=("$(printf '%-14s skipped (make %s)' "$name" "${name/vmtest-debug/debug-kernel}")")
	elif [ $((SECONDS + secs)) -gt "$budget" ]; then
		echo "=== $name: skipped: $SECONDS s so far, and its $secs s would pass the budget of $budget s (AFA_CHECK_BUDGET_S); 'make $name' runs it alone"
		summary+=("$(printf '%-14s skipped (time budget)' "$name")")
	else
		KNOTE="debug kernel in $(env "$@" scripts/debug-kernel.sh --dir)" phase "$name":vmtest make -s "$name"
	fi
}
debug_phase vmtest-debug 2400
debug_phase vmtest-debug-rt 4500 AFA_DEBUG_RT=1

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

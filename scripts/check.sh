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
failures=()

# The debug kernels' runs (KASAN, lockdep, kmemleak; its PREEMPT_RT
# flavour) take 34 to 54 minutes and 68 minutes alone: after the other
# phases (43 to 60 minutes warm on a 2-core machine) they would not fit
# CI's 90.  Each is one single-threaded TCG VM, as is every other VM
# phase, so they run in a lane of their own beside the others, each core
# busy with one VM (docs/testing.md, "Two lanes").  The lane works in a
# copy of this checkout, outside it: its module is built for the debug
# kernel, it takes its own VM lock, and no phase here cleans it (kbuild's
# clean of an external module deletes every *.ko and *.o below M=).  A debug kernel
# runs only when it is cached (a cold build and its run do not fit the
# budget) and only when its reserve still fits in what is left of
# AFA_CHECK_BUDGET_S (5400 s, CI's 90 minutes): that holds for the
# first run of the lane; a second one (both kernels cached) is skipped
# for time, saying so.
budget=${AFA_CHECK_BUDGET_S:-5400}
t0=$(date +%s)
lane=$AFA_CACHE/check-lane-$(echo "$AFA_TOP" | sha256sum | cut -c1-12)
debug_runs=("vmtest-debug 3300" "vmtest-debug-rt 4500 AFA_DEBUG_RT=1")

# debug_lane: run each cached debug kernel's phase in the copy, one after
# the other; each leaves build/check-NAME.{log,rc}, or .skip with why not
debug_lane() {
	local run name secs why vm_s
	for run in "${debug_runs[@]}"; do
		# shellcheck disable=SC2086 # a run is words without blanks
		set -- $run
		name=$1 secs=$2
		shift 2
		rm -f "build/check-$name".*
		if ! why=$(env "$@" scripts/debug-kernel.sh --cached 2>&1 >/dev/null); then
			printf 'make %s\n%s\n' "${name/vmtest-debug/debug-kernel}" "${why#debug-kernel: }; 'make ${name/vmtest-debug/debug-kernel}' builds it (10 to 16 minutes on 2 cores), then make check runs it" >"build/check-$name.skip"
		elif [ $(($(date +%s) - t0 + secs)) -gt "$budget" ]; then
			printf 'time budget\n%s\n' "$(($(date +%s) - t0)) s so far, and its $secs s would pass the budget of $budget s (AFA_CHECK_BUDGET_S); 'make $name' runs it alone" >"build/check-$name.skip"
		else
			date +%s >"build/check-$name.start"
			# a VM that hangs must not take the run past the budget
			vm_s=$((t0 + budget - 120 - $(date +%s)))
			[ "$vm_s" -le 4800 ] || vm_s=4800
			env "$@" AFA_VM_TIMEOUT=$vm_s \
				make -s -C "$lane" "$name" >"build/check-$name.log" 2>&1
			echo $? >"build/check-$name.rc"
		fi
	done
}

# debug_phases: wait for the lane, then print and count its phases
debug_phases() {
	local run name t1 t2
	wait "$lane_pid"
	trap - EXIT
	for run in "${debug_runs[@]}"; do
		# shellcheck disable=SC2086
		set -- $run
		name=$1
		shift 2
		if [ -f "build/check-$name.skip" ]; then
			echo "=== $name: skipped: $(sed -n 2p "build/check-$name.skip")"
			summary+=("$(printf '%-14s skipped (%s)' "$name" "$(sed -n 1p "build/check-$name.skip")")")
			continue
		fi
		t1=$(cat "build/check-$name.start")
		t2=$(stat -c %Y "build/check-$name.rc")
		echo "=== $name: make -s $name, beside the other phases from $((t1 - t0)) s to $((t2 - t0)) s [kernel: debug kernel in $(env "$@" scripts/debug-kernel.sh --dir)]"
		cat "build/check-$name.log"
		KNOTE="debug kernel in $(env "$@" scripts/debug-kernel.sh --dir)" \
			count "$name" vmtest "build/check-$name.log" \
			"$(cat "build/check-$name.rc")" $((t2 - t1))
	done
}

# The lanes of checkouts that are gone (a CI clones afresh, each time
# somewhere else) would pile up in the cache, about 0.9 GB each with
# their VM's disk; each lane names its checkout.
for old in "$AFA_CACHE"/check-lane-*; do
	[ -f "$old/.afa-checkout" ] || continue
	[ -d "$(cat "$old/.afa-checkout")" ] && continue
	echo "check: removing $old, the lane of $(cat "$old/.afa-checkout"), which is gone"
	rm -rf "$old"
done
# the sources, without what builds leave: git's list where there is one
rm -rf "$lane"
mkdir -p "$lane" || exit 1
echo "$AFA_TOP" >"$lane/.afa-checkout"
if git -C "$AFA_TOP" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$AFA_TOP" ls-files -z -co --exclude-standard |
		tar -C "$AFA_TOP" --null -T - --ignore-failed-read -cf - 2>/dev/null
else
	tar -C "$AFA_TOP" --exclude=./build --exclude='*.o' --exclude='*.ko' -cf - .
fi | tar -C "$lane" -xf -
# its own process group (set -m), so that an interrupted make check
# takes the lane's VM down with it
set -m
debug_lane &
lane_pid=$!
set +m
trap 'kill -- -$lane_pid 2>/dev/null' EXIT
trap 'exit 143' INT TERM
echo "check: the debug kernels' lane runs beside the other phases in a copy of this checkout, $lane (logs: build/check-vmtest-debug*.log, its VM's in $lane/build)"

# count NAME LABEL LOG RC SECONDS: add a finished phase's checks to the
#   total.  A phase may print several "LABEL: N passed, N failed" lines
#   (one per VM boot): they add up.
count() {
	local name=$1 label=$2 log=$3 rc=$4 secs=$5 line p f
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
	[ "$f" -gt 0 ] && failing "$name" "$log"
	summary+=("$(printf '%-14s %4d passed, %d failed %5d s%s' "$name" "$p" "$f" "$secs" "${KNOTE:+  ($KNOTE)}")")
}

# failing NAME LOG: a failed phase's first FAIL lines, for the list that
# ends the output (CI keeps only the output's head and tail)
failing() {
	local line n=0
	while IFS= read -r line; do
		failures+=("$1: $line")
		n=$((n + 1))
	done < <(grep -E 'FAIL|\[FAILED\]|not ok ' "$2" | grep -v '^\(PASS\|ok\) ' | head -n 10)
	[ "$n" -gt 0 ] || failures+=("$1: no FAIL line; its log is $2")
}

# phase NAME[:LABEL] COMMAND...: LABEL is what the command's count lines
# start with, NAME by default.
#   KNOTE=WHAT phase ...: the kernel the phase uses, in its header and
#   in the summary.
phase() {
	local name=${1%%:*} label=${1#*:} log=build/check-${1%%:*}.log
	local start=$SECONDS rc
	shift
	echo "=== $name: $*${KNOTE:+ [kernel: $KNOTE]} (at $SECONDS s)"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	count "$name" "$label" "$log" "$rc" $((SECONDS - start))
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
phase sh-syntax scripts/sh-syntax.sh
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
debug_phases
echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
if [ "${#failures[@]}" -gt 0 ]; then
	echo
	echo "=== failed checks (a phase's first 10)"
	printf '%s\n' "${failures[@]}"
fi
echo "check: $SECONDS s in all, the budget $budget s (AFA_CHECK_BUDGET_S)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

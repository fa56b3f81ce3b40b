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
passed=0
failed=0
summary=()

phase() {
	local name=$1 log=build/check-$1.log rc line p f
	shift
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed$" "$log" | tail -n 1)
	if [ -n "$line" ]; then
		p=$(echo "$line" | awk '{ print $2 }')
		f=$(echo "$line" | awk '{ print $4 }')
		[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	elif [ "$rc" -eq 0 ]; then
		p=1 f=0
	else
		p=0 f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	summary+=("$(printf '%-12s %4d passed, %d failed' "$name" "$p" "$f")")
}

# The module must build without a single warning at W=1.
build_w1() {
	make -s modules KDIR="/lib/modules/$(scripts/kver.sh 6.12)/build" \
		W=1 >build/w1.log 2>&1
	local rc=$?
	cat build/w1.log
	[ "$rc" -eq 0 ] && ! grep -q 'warning:' build/w1.log
}

phase build-w1 build_w1
phase userspace make -s userspace
phase checkpatch scripts/checkpatch.sh
phase kunit scripts/kunit.sh
phase vmtest make -s vmtest

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

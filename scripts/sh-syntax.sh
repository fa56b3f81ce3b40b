#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Parse every shell script without running it: the guest's with the
# guest's own shell (busybox sh), the host's with bash or sh as their
# first line says.  A syntax error in a VM test otherwise shows only
# minutes into a boot, as a test that stopped before its end.
# Ends "sh-syntax: N passed, N failed".
. "$(dirname "$0")/lib.sh"

need_pkgs busybox-static
cd "$AFA_TOP" || exit 1
passed=0
failed=0
for f in $(git ls-files vm scripts userspace .ci | grep -vE '\.(c|h|md|txt|json|config|1)$'); do
	[ -f "$f" ] || continue
	case "$f" in
	vm/guest/* | vm/init) sh="busybox sh" ;;
	*)
		case "$(head -n 1 "$f")" in
		'#!/bin/bash'* | '#!/usr/bin/env bash'*) sh=bash ;;
		'#!/bin/sh'*) sh=sh ;;
		*) continue ;;
		esac
		;;
	esac
	# shellcheck disable=SC2086 # "busybox sh" is two words
	if $sh -n "$f" 2>/tmp/sh-syntax.err; then
		passed=$((passed + 1))
	else
		echo "FAIL: $f: $(head -n 1 /tmp/sh-syntax.err)"
		failed=$((failed + 1))
	fi
done
rm -f /tmp/sh-syntax.err
echo "sh-syntax: $passed passed, $failed failed"
[ "$failed" = 0 ]

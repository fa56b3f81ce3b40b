#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the newest installed Debian kernel release whose image and
# headers are both present, preferring the series given as $1 (default
# 6.12), and the plain flavour over -rt.  Prints nothing when there is none.
series=${1:-6.12}
best=
for img in /boot/vmlinuz-*; do
	[ -e "$img" ] || continue
	k=${img#/boot/vmlinuz-}
	[ -d "/lib/modules/$k/build" ] || continue
	case "$k" in
	"$series".*) best="$best$k
" ;;
	esac
done
# the plain flavour before -rt (sort -V puts "+deb12-rt-amd64" after
# "+deb12-amd64"): the VM suites and the benchmarks mean Debian's own
# default kernel; an -rt one is booted by naming it (KVER=)
plain=$(printf '%s' "$best" | grep -v -e '-rt-')
[ -n "$plain" ] && best=$plain
printf '%s\n' "$best" | sort -V | tail -n 1

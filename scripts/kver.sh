#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the newest installed Debian kernel release whose image and
# headers are both present, preferring the series given as $1 (default
# 6.12).  Prints nothing when there is none.
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
printf '%s' "$best" | sort -V | tail -n 1

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Print the installed Debian kernel release of series $1 (default 6.12)
# whose image and headers are both present, or nothing when there is none.
#
#   kver.sh [SERIES [FLAVOUR]]
#
# Debian builds each series in flavours: the release's tail after the ABI
# (6.12.117+deb12-amd64 is "amd64", 6.12.117+deb12-rt-amd64 "rt-amd64",
# 6.1.0-57-cloud-amd64 "cloud-amd64").  With FLAVOUR (or $AFA_KFLAVOUR)
# only that flavour counts.  Without it the pick is, in this order: the
# running kernel's flavour, the generic one (dpkg's architecture name,
# "amd64"), then any other; the newest release of the first flavour
# that has one.  Version order alone would pick -rt over the generic
# kernel, since "rt-amd64" sorts after "amd64".
#
# AFA_KVER_ROOT (a directory holding boot/ and lib/modules/) and
# AFA_KVER_RUNNING (a release to take as the running one) are for
# scripts/kver-test.sh.
series=${1:-6.12}
want=${2:-$AFA_KFLAVOUR}
root=${AFA_KVER_ROOT:-}
running=${AFA_KVER_RUNNING:-$(uname -r)}

# flavour RELEASE: the flavour of a Debian release, empty for others
flavour() {
	sed -n 's/^[0-9][0-9]*\.[0-9][0-9]*\(\.[0-9][0-9]*\)\{0,1\}\(+[a-z0-9.~]*\|-[0-9][0-9]*\)-\([a-z0-9-]*\)$/\3/p' <<<"$1"
}

cands=
for img in "$root"/boot/vmlinuz-*; do
	[ -e "$img" ] || continue
	k=${img#"$root"/boot/vmlinuz-}
	[ -d "$root/lib/modules/$k/build" ] || continue
	case "$k" in
	"$series".*) cands="$cands$(flavour "$k") $k
" ;;
	esac
done

if [ -n "$want" ]; then
	order=$want
else
	generic=$(dpkg --print-architecture 2>/dev/null || echo amd64)
	order="$(flavour "$running") $generic $(printf '%s' "$cands" | awk '{ print $1 }' | sort -u)"
fi
for f in $order; do
	pick=$(printf '%s' "$cands" | awk -v f="$f" '$1 == f { print $2 }' | sort -V | tail -n 1)
	[ -n "$pick" ] && { echo "$pick"; exit 0; }
done
exit 0

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Which kernel scripts/kver.sh picks, on fake /boot and /lib/modules
# trees: the generic flavour over -rt, each flavour by name, the running
# kernel's flavour first, images without headers skipped.
# Ends "kver-test: N passed, N failed".
. "$(dirname "$0")/lib.sh"

passed=0
failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# install REL...: a fake image and headers of each release ('-noheaders'
# suffix: image only)
install() {
	local k
	for k in "$@"; do
		case "$k" in
		*-noheaders)
			k=${k%-noheaders}
			mkdir -p "$tmp/lib/modules/$k"
			;;
		*) mkdir -p "$tmp/lib/modules/$k/build" ;;
		esac
		mkdir -p "$tmp/boot"
		: >"$tmp/boot/vmlinuz-$k"
	done
}

# expect WANT RUNNING ARGS...: kver.sh ARGS, with RUNNING as uname -r
expect() {
	local want=$1 running=$2 got
	shift 2
	got=$(AFA_KVER_ROOT=$tmp AFA_KVER_RUNNING=$running AFA_KFLAVOUR= \
	      "$AFA_TOP/scripts/kver.sh" "$@")
	if [ "$got" = "$want" ]; then
		echo "PASS: kver.sh $* (running $running) -> '${want}'"
		passed=$((passed + 1))
	else
		echo "FAIL: kver.sh $* (running $running) -> '$got', want '$want'"
		failed=$((failed + 1))
	fi
}

g612=6.12.117+deb12-amd64
rt612=6.12.117+deb12-rt-amd64
g61=6.1.0-57-amd64
rt61=6.1.0-57-rt-amd64
cl61=6.1.0-57-cloud-amd64
other=6.18.44-fc-v973

install $rt612 $g612 $g61 $rt61 $cl61 6.1.0-60-rt-amd64 6.1.0-40-amd64
expect $g612 $other 6.12
expect $g612 $other
expect $g61 $other 6.1
expect $rt612 $other 6.12 rt-amd64
expect $g612 $other 6.12 amd64
expect 6.1.0-60-rt-amd64 $other 6.1 rt-amd64
expect $cl61 $other 6.1 cloud-amd64
expect "" $other 6.12 cloud-amd64
expect "" $other 6.6
# the running kernel's flavour first, in every series
expect $rt612 $rt61 6.12
expect 6.1.0-60-rt-amd64 $rt612 6.1
expect $cl61 $cl61 6.1
expect $g612 $g61 6.12
# AFA_KFLAVOUR is the default flavour
got=$(AFA_KVER_ROOT=$tmp AFA_KVER_RUNNING=$other AFA_KFLAVOUR=rt-amd64 \
      "$AFA_TOP/scripts/kver.sh" 6.12)
if [ "$got" = $rt612 ]; then
	echo "PASS: AFA_KFLAVOUR=rt-amd64 kver.sh 6.12 -> $rt612"
	passed=$((passed + 1))
else
	echo "FAIL: AFA_KFLAVOUR=rt-amd64 kver.sh 6.12 -> '$got', want $rt612"
	failed=$((failed + 1))
fi

# only -rt has headers: the -rt one rather than nothing
rm -rf "${tmp:?}"/*
install $rt612 ${g612}-noheaders 6.12.90+deb12-amd64-noheaders
expect $rt612 $other 6.12
expect "" $other 6.12 amd64
# no headers anywhere
rm -rf "${tmp:?}"/*
install ${g612}-noheaders
expect "" $other 6.12

echo "kver-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Package the checkout with DKMS and build it for every installed Debian
# kernel with headers (6.1 and 6.12), as a user would: dkms add, build,
# then remove.  Needs root; leaves /usr/src and the DKMS tree as found.
. "$(dirname "$0")/lib.sh"

need_pkgs dkms
[ "$(id -u)" -eq 0 ] || die "must be root to run dkms (sudo make dkms-test)"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$AFA_TOP/dkms.conf")
src=/usr/src/autofaultaround-$ver
[ -n "$ver" ] || die "no PACKAGE_VERSION in dkms.conf"
# ours: a symlink, or a copy with our mark (left by an interrupted run)
[ ! -e "$src" ] || [ -L "$src" ] || [ -f "$src/.afa-dkms-test" ] ||
	die "$src exists and is not ours: remove it first"

nparams=$(grep -c '^module_param_\(cb\|named\)(' "$AFA_TOP/module/params.c")
passed=0
failed=0
check() {
	local desc=$1
	shift
	if "$@" >>"$AFA_TOP/build/dkms.log" 2>&1; then
		echo "PASS: $desc"
		passed=$((passed + 1))
	else
		echo "FAIL: $desc (see build/dkms.log)"
		failed=$((failed + 1))
	fi
}

cleanup() {
	dkms remove "autofaultaround/$ver" --all >/dev/null 2>&1
	rm -rf "$src"
}

mkdir -p "$AFA_TOP/build"
: >"$AFA_TOP/build/dkms.log"
cleanup
mkdir -p "$src"
: >"$src/.afa-dkms-test"
(cd "$AFA_TOP" && git ls-files | tar cf - -T -) | tar xf - -C "$src"
check "dkms add autofaultaround/$ver" dkms add "autofaultaround/$ver"
for series in 6.12 6.1; do
	kver=$("$AFA_TOP/scripts/kver.sh" "$series")
	if [ -z "$kver" ]; then
		echo "FAIL: no Debian $series kernel with headers installed (make deps)"
		failed=$((failed + 1))
		continue
	fi
	check "dkms build for $kver" dkms build "autofaultaround/$ver" -k "$kver"
	ko=$(find /var/lib/dkms/autofaultaround/"$ver"/"$kver" -name 'autofaultaround.ko*' | head -n 1)
	check "the module built for $kver carries its vermagic" \
		sh -c "modinfo -F vermagic '$ko' | grep -q '^$kver '"
	check "modinfo shows version $ver and all $nparams parameters with their defaults for $kver" \
		sh -c "modinfo -F version '$ko' | grep -qx '$ver' &&
		       test \$(modinfo -F parm '$ko' | grep -c ' (.*)\$') = $nparams"
done
cleanup
check "dkms remove leaves no trace" sh -c "! dkms status autofaultaround | grep -q . && test ! -e '$src'"
echo "dkms: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

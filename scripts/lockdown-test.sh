#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot Debian's 6.12 and 6.1 with lockdown=integrity, as Secure Boot
# does, and run vm/guest/tests/05-lockdown.sh there: the module loads,
# logs what lockdown restricts, and that is what the guest sees.  One
# "vmtest: N passed, N failed" line per boot.
. "$(dirname "$0")/lib.sh"

cd "$AFA_TOP" || exit 1
mkdir -p build
rc=0
for series in 6.12 6.1; do
	kver=$(scripts/kver.sh "$series")
	[ -n "$kver" ] || { echo "vmtest: 0 passed, 1 failed (no Debian $series kernel with headers: make deps)"; rc=1; continue; }
	(
		flock 9
		make -s --no-print-directory userspace KDIR="/lib/modules/$kver/build" modules &&
		vm/run.sh lockdown "$kver"
	) 9>build/.vm.lock || rc=1
done
exit $rc

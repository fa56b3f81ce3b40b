# SPDX-License-Identifier: GPL-2.0
# The module loads with modprobe, appears in sysfs, and unloads cleanly.
. /guest/lib.sh

check "modprobe autofaultaround succeeds" modprobe autofaultaround
check "module is listed in /sys/module" test -d /sys/module/autofaultaround
check "the stats file is in /proc, root only" \
	test "$(stat -c %a $STATS 2>/dev/null)" = 400
# An open stats file does not hold the module (stats.c): rmmod succeeds,
# and a read afterwards gets an error, not the module's code.
[ -r $STATS ] && exec 3<$STATS
check "rmmod autofaultaround succeeds with the stats file open" rmmod autofaultaround
check "module is gone from /sys/module after rmmod" test ! -d /sys/module/autofaultaround
check "the stats file open across rmmod reads nothing more" \
	sh -c '! cat <&3 >/tmp/stats-after 2>/dev/null && test ! -s /tmp/stats-after'
exec 3<&-
check "the stats file is gone with the module" test ! -e $STATS
check "dmesg has no kernel report after load and unload" dmesg_clean

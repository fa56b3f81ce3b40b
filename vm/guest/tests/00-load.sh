# SPDX-License-Identifier: GPL-2.0
# The module loads with modprobe, appears in sysfs, and unloads cleanly.
. /guest/lib.sh

check "modprobe autofaultaround succeeds" modprobe autofaultaround
check "module is listed in /sys/module" test -d /sys/module/autofaultaround
check "rmmod autofaultaround succeeds" rmmod autofaultaround
check "module is gone from /sys/module after rmmod" test ! -d /sys/module/autofaultaround
check "dmesg has no kernel report after load and unload" dmesg_clean

# SPDX-License-Identifier: GPL-2.0
# After every stress: the module still loads, takes faults with sane
# figures, and unloads; the kernel is as it found it.
. /guest/stress/lib
prepare

loaded && rmmod_retry
check "final: modprobe autofaultaround succeeds" modprobe autofaultaround period_ms=20 sample_every=1
afa-work -S -p seq -H 100 $SEQ >/dev/null
wait_periods 3
stats_sane >/tmp/sane.out
r=$?
cat /tmp/sane.out
check "final: stats sane" test $r = 0
check "final: rmmod autofaultaround succeeds" rmmod_retry
check "final: the module is gone" test ! -d /sys/module/autofaultaround
check "final: fault_around_bytes is 65536" test "$(cat $FAB)" = 65536
check "final: no kernel report in the whole run" dmesg_clean

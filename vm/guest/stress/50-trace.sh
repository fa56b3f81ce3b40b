# SPDX-License-Identifier: GPL-2.0
# Trace events enabled and disabled in a loop while workloads run: the
# module's own events, the kernel's filemap events (whose tracepoints the
# module also attaches to on 6.12) and, on x86, exceptions:page_fault_user,
# with a reader draining the buffer.  Then the same loop in the background
# while the module is unloaded and loaded again, so that its event
# directory comes and goes under the writes.
. /guest/stress/lib
prepare

T=/sys/kernel/tracing
EV="autofaultaround filemap"
[ -d $T/events/exceptions/page_fault_user ] && EV="$EV exceptions/page_fault_user"
echo "stress: $stress_toggles enable/disable cycles of $EV, then reloads under the toggles"

# toggle V: write V to every event's enable; count failed writes
toggle() {
	for e in $EV; do
		echo "$1" >$T/events/$e/enable || tbad=$((tbad + 1))
	done
}

modprobe autofaultaround period_ms=10 sample_every=1
echo 256 >$T/buffer_size_kb
cat $T/trace_pipe >/dev/null &
reader=$!
start_loads seq sparse exec fork
start_clock
tbad=0
i=0
while [ $i -lt "$stress_toggles" ]; do
	toggle 1
	sleep 0.03
	toggle 0
	i=$((i + 1))
done
t=$(elapsed)
echo "stress: trace: $i of $stress_toggles cycles in ${t}s, $tbad failed writes"
check "trace: $i enable/disable cycles of $EV, every write succeeded ($tbad failed)" \
	test "$tbad" = 0

# the toggles in the background, the module unloaded and loaded under them
n=$((stress_toggles / 5))
sh -c "while [ ! -e /tmp/toggle.stop ]; do
	for v in 1 0; do
		for e in $EV; do echo \$v >$T/events/\$e/enable; done 2>/dev/null
		sleep 0.02
	done
done" &
toggler=$!
reloads=0
reload_fail=0
while [ $reloads -lt $n ]; do
	{ rmmod_retry && modprobe autofaultaround period_ms=10 sample_every=1; } ||
		reload_fail=$((reload_fail + 1))
	sleep 0.1
	reloads=$((reloads + 1))
done
touch /tmp/toggle.stop
wait $toggler
rm -f /tmp/toggle.stop
stop_loads "trace"
for e in $EV; do echo 0 >$T/events/$e/enable; done
kill $reader
wait $reader 2>/dev/null
check "trace: $reloads reloads under the toggles, none failed ($reload_fail)" \
	test "$reloads" -gt 0 -a "$reload_fail" = 0
wait_periods 3
stats_sane >/tmp/sane.out
r=$?
cat /tmp/sane.out
check "trace: stats sane after the toggles" test $r = 0
check "trace: rmmod succeeds" rmmod_retry
echo 1408 >$T/buffer_size_kb
check "trace: no kernel report" dmesg_clean

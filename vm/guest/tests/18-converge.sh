# SPDX-License-Identifier: GPL-2.0
# The law at work on any architecture and page size (FOREIGN_TESTS:
# arm64, ppc64le with 4 KiB and 64 KiB pages; and every x86 kernel):
# a sequential and a sparse stream converge from fresh processes, bad
# parameter writes are refused, and the decisions show as trace events,
# read from tracefs (the foreign guests have no trace-cmd).  Counts are
# in pages of this kernel; with 64 KiB pages the kernel's window is one
# page and map_pages never runs, so the test raises it with the opt-in
# (16-fault-around-optin) and puts it back.
. /guest/lib.sh

T=/sys/kernel/tracing
P=/sys/module/autofaultaround/parameters
page=$(page_bytes)
orig=$(cat $FAB)
if [ "$orig" -le "$page" ]; then
	afa-fault-around raise
	echo "converge: fault_around_bytes is one page of $page bytes: raised to $(cat $FAB) for the test"
fi
seq=/mnt/conv-seq64
sparse=/mnt/conv-sparse1g
make_file $seq 64
make_sparse $sparse
small_folios $seq $sparse
cat $seq >/dev/null
pages=$((67108864 / page))
# the pages around each touched one of the sparse file (3 either side:
# every window of order 2 or less maps its N pages, so that a smaller
# window saves pages; 14 MiB with 4 KiB pages, 224 MiB with 64 KiB)
i=0
per=$((2097152 / page))
while [ $i -lt 512 ]; do
	skip=$((i * per - 3))
	[ $skip -lt 0 ] && skip=0
	dd if=$sparse of=/dev/null bs=$page skip=$skip count=7 status=none
	i=$((i + 1))
done

# Trace events on, from the load on: tracefs lists the module's events
# only while it is loaded.
modprobe autofaultaround initial_order=0
echo 0 >$T/tracing_on
echo >$T/trace
for e in afa_order_change afa_ctl_step; do
	echo 1 >$T/events/autofaultaround/$e/enable
done
echo 1 >$T/tracing_on

# A scan from order 0: three fresh processes take its stream up (orders
# 5 to 9 seen; 5 with 64 KiB pages, whose scans are 1,024 faults: fewer
# batches and folds a process).  A fold moves an order at most once, and
# how many fall in a process depends on the host: up to six processes,
# until order 3.
n=0 sorder=0
while [ $n -lt 3 ] || { [ $n -lt 6 ] && [ "${sorder:-0}" -lt 3 ]; }; do
	afa-work -p seq $seq >/dev/null
	n=$((n + 1))
	[ $n -ge 3 ] || continue
	wait_periods 1
	sorder=$(stream_class_col "$(fid $seq)" rodata order)
done
out=$(afa-work -p seq $seq)
flt=$(kv minflt "$out")
echo "converge: the scan's stream at order $sorder after $n processes; the next took $flt faults ($((pages + 1)) at order 0)"
check "converge: fresh scans take the stream from order 0 to 3 or more within six (order $sorder after $n)" \
	test "${sorder:-0}" -ge 3
check "converge: the next scan maps at that window: $flt faults <= 4/3 * $((pages >> 3)) + 16" \
	test "${flt:-999999}" -le $(((pages >> 3) * 4 / 3 + 16))

echo 0 >$T/tracing_on
cp $T/trace /tmp/conv-trace.txt
for e in afa_order_change afa_ctl_step; do
	echo 0 >$T/events/autofaultaround/$e/enable
done
up=$(grep -c 'afa_order_change:.* old_order=0 new_order=1 .*reason=grow' /tmp/conv-trace.txt)
steps=$(grep -c 'afa_ctl_step:.* reason=[a-z_]*' /tmp/conv-trace.txt)
echo "converge: trace: $up afa_order_change 0 -> 1 by growth, $steps afa_ctl_step"
check "converge: tracefs shows the scan's first growth, afa_order_change old_order=0 new_order=1 reason=grow ($up)" \
	test "$up" -ge 1
check "converge: ... and the steps that led there, afa_ctl_step with a reason ($steps)" \
	test "$steps" -ge 1

# A sparse reader of another file: one page per 2 MiB, 512 a process,
# goes to order 0.  Folds come late under a slow TCG: more processes
# then, within the law's bound in evidence (about 13,000 faults from any
# order down to 0; docs/control-law.md, "Convergence, in faults").
n=0
while :; do
	afa-work -p stride $sparse >/dev/null
	n=$((n + 1))
	wait_periods 1
	porder=$(stream_class_col "$(fid $sparse)" rodata order)
	pf=$(stream_class_col "$(fid $sparse)" rodata faults)
	[ "${porder:-9}" = 0 ] && [ $n -ge 3 ] && break
	[ "${pf:-0}" -ge 13000 ] && break
	# a row that went away counts no faults: stop, and fail below
	[ $n -ge 40 ] && break
done
echo "converge: the sparse stream at order $porder after $n processes, $pf faults"
check "converge: the sparse reader's stream goes to order 0 within 13000 of its faults (order $porder, $pf faults)" \
	test "${porder:-9}" = 0 -a "${pf:-0}" -le 14300
out=$(afa-work -p stride $sparse)
check "converge: ... and a fresh process maps one page a fault (513 +-4, got $(kv minflt "$out"))" \
	within "$(kv minflt "$out")" 513 4
check "converge: the scan's stream keeps its window meanwhile (order $(stream_class_col "$(fid $seq)" rodata order) >= 3)" \
	test "$(stream_class_col "$(fid $seq)" rodata order)" -ge 3

# Parameters: out-of-range writes are refused and change nothing; a good
# one is taken.
for w in "max_order 10" "kp 999999" "sample_every 0" "period_ms 5"; do
	check_rejected "converge: " $w
done
echo 2048 >$P/kp
check "converge: kp=2048 is taken ($(cat $P/kp))" test "$(cat $P/kp)" = 2048
rmmod autofaultaround
check "converge: the module unloads" test ! -d /sys/module/autofaultaround
if [ "$orig" -le "$page" ]; then
	afa-fault-around restore
	check "converge: fault_around_bytes back to $orig ($(cat $FAB))" test "$(cat $FAB)" = "$orig"
fi
check "converge: dmesg has no kernel report" dmesg_clean

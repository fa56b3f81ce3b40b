# SPDX-License-Identifier: GPL-2.0
# The README's first command, guest side: load the module as a user
# would, run two workloads that want opposite windows, and show what the
# module did: its trace events and its statistics.  Only real output.
. /guest/lib.sh

step() {
	echo
	echo "==> $*"
}

step "modprobe autofaultaround period_ms=100"
modprobe autofaultaround period_ms=100 || fail "modprobe autofaultaround"
grep -H . /sys/module/autofaultaround/parameters/* | sed 's|.*/parameters/||'

seq=/mnt/demo-seq64
sparse=/mnt/demo-sparse256
make_file $seq 64
truncate -s 256M $sparse
cat $sparse >/dev/null

step "the kernel's window alone: fault_around_bytes=$(cat $FAB), module enabled=0"
echo 0 >/sys/module/autofaultaround/parameters/enabled
echo "sequential 64 MiB:       $(afa-work -p seq $seq | sed 's/^phase=0 pass=0 //')"
echo "one page per 2 MiB:      $(afa-work -p stride $sparse | sed 's/^phase=0 pass=0 //')"
echo 1 >/sys/module/autofaultaround/parameters/enabled

step "both at once with the module, 6 fresh processes each (no holds), recorded by trace-cmd"
trace-cmd record -q -o /tmp/demo.dat -e autofaultaround:afa_order_change \
	-e autofaultaround:afa_stream -e autofaultaround:afa_work_cpu sh -c "
	for i in 1 2 3 4 5 6; do afa-work -p seq $seq; done >/tmp/seq.out &
	for i in 1 2 3 4 5 6; do afa-work -p stride $sparse; done >/tmp/sparse.out
	wait
	cat $STATS >/tmp/stats.txt" >/dev/null
echo "sequential, first and last process: $(head -n 1 /tmp/seq.out | sed 's/^phase=0 pass=0 //'); $(tail -n 1 /tmp/seq.out | sed 's/^phase=0 pass=0 //')"
echo "one page per 2 MiB, first and last: $(head -n 1 /tmp/sparse.out | sed 's/^phase=0 pass=0 //'); $(tail -n 1 /tmp/sparse.out | sed 's/^phase=0 pass=0 //')"

step "trace-cmd report: the window of each stream (afa_order_change)"
trace-cmd report -i /tmp/demo.dat 2>/dev/null >/tmp/demo.txt
for f in $seq $sparse; do
	grep "afa_order_change:.* ino=$(ino $f) " /tmp/demo.txt >/tmp/demo.one
	if [ "$(wc -l </tmp/demo.one)" -le 5 ]; then
		cat /tmp/demo.one
	else
		head -n 3 /tmp/demo.one
		echo "   ..."
		tail -n 2 /tmp/demo.one
	fi
done
echo "(plus $(grep -c 'afa_work_cpu:' /tmp/demo.txt) afa_work_cpu events, e.g.:)"
grep 'afa_work_cpu:' /tmp/demo.txt | tail -n 1

step "statistics, as afa-stat shows them (from the end of the run)"
afa-stat -f /tmp/stats.txt

step "rmmod autofaultaround"
rmmod autofaultaround || fail "rmmod autofaultaround"
dmesg | grep 'autofaultaround:' | tail -n 3

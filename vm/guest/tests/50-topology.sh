# SPDX-License-Identifier: GPL-2.0
# Topology (issue 5): per-domain state in stats, the period work moved to
# an idle core, CPU hotplug during a workload.  The host boots this suite
# with SMT (AFA_VM_SMP) and two NUMA nodes; what it checks adapts to the
# topology it finds.
. /guest/lib.sh

f=/mnt/seq64
make_file $f 64
# CPUs online, isolated ones too (nproc counts those this shell may run
# on, which leaves out a CPU isolcpus took from the scheduler)
online_cpus() {
	grep -c '^processor' /proc/cpuinfo
}
ncpu=$(online_cpus)
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
smt=$(cat /sys/devices/system/cpu/cpu0/topology/thread_siblings_list)
echo "topology: $ncpu CPUs, $nodes nodes, cpu0 siblings $smt"

# the window held at order 4 (16 pages): a pass over 64 MiB takes 1024
# faults whatever the speed of the kernel
modprobe autofaultaround period_ms=50 sample_every=1 min_order=4 max_order=4

# per-domain rows: one block of classes per node (and core type)
rows=$(awk '$1 == "class" { on = 1; next } /^#/ { on = 0 } on' $STATS | wc -l)
check "stats has one row per class and domain ($rows rows, $nodes nodes)" \
	test "$rows" = $((7 * nodes))
check "stats rows name node and core type" \
	sh -c "awk '\$1 == \"exec\"' $STATS | grep -q ' big '"

# a workload pinned to the last CPU counts in that CPU's domain
last=$((ncpu - 1))
lnode=$(ls -d /sys/devices/system/cpu/cpu$last/node[0-9]* 2>/dev/null | sed 's/.*node//')
lnode=${lnode:-0}
taskset -c $last afa-work -S -p seq $f >/dev/null
wait_periods 2
got=$(awk -v n="$lnode" '$1 == "class" { for (i = 1; i <= NF; i++) col[$i] = i }
	$1 == "shared" && $2 == n { print $col["faults"] }' $STATS)
echo "shared faults in node $lnode after a run pinned to CPU $last: $got"
# the file's faults count in its class until it has a stream of its own
check "faults count in the domain of the faulting CPU (node $lnode: $got >= 1)" \
	test "${got:-0}" -ge 1

# folds run only while there are faults: an idle machine is left idle.
# The commands of the check itself (sleep, head) fault and wake the
# worker a few times (each move of a window lets 8 more folds run at
# once, period.c); what must not happen is folds that grow with the
# idle time (this module's 50 ms period would add 120 over 6 s).
# Measured: 0 to 3 more over the 6 s, 4 once in CI.  Up to three tries,
# for a burst of outside faults in one of them: a worker that folds
# while idle adds its 120 to every try.
idle_folds() {
	a=$(periods)
	sleep "$1"
	b=$(periods)
	echo $((b - a))
}
sleep 1
try=0 short=0 long=999
while [ $try -lt 3 ] && [ "$long" -gt $((short + 6)) ]; do
	try=$((try + 1))
	short=$(idle_folds 1)
	long=$(idle_folds 7)
	echo "idle: try $try: $short folds around 1 idle second, $long around 7"
done
check "an idle machine is left idle: $short folds around 1 idle second, $long around 7 (at most 6 more; try $try of 3)" \
	test "$long" -le $((short + 6))

# a light fault load for the recordings below: the worker runs only then
cat >/tmp/faulting.sh <<EOS
i=0
while [ \$i -lt 15 ]; do
	afa-work -p stride -s 65536 $f >/dev/null
	sleep 0.07
	i=\$((i + 1))
done
EOS

# the work lands on an idle core: with the machine idle, the pick is an
# idle core (or the previous CPU, still idle), else an idle CPU of a
# partly busy core, and rarely the fallback.  The machine is not quite
# idle: the faulting loop and trace-cmd's per-CPU readers run, so at
# some picks no core is wholly idle (measured: 80% to 97% idle_core or
# previous, up to 3 fallbacks in 143); a pick that ignored idleness
# (always local) or preferred busy CPUs fails both bounds.
# The premise is measured: the machine's idle share over the recording
# (/proc/stat, idle and iowait of all CPUs; 88% on Debian's 6.12).  On
# the PREEMPT_RT debug kernel under TCG the same light load keeps the
# CPUs mostly busy (9% to 69% idle at the picks), and at 83% (7.3, a
# fresh-clone check beside a bench on the host) 16 of 133 picks fell
# back; below 85% the two checks are skipped, saying so.
cpu_ticks() {
	awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print $5 + $6, t }' /proc/stat
}
t0=$(cpu_ticks)
trace-cmd record -q -e autofaultaround:afa_work_cpu -o /tmp/work.dat sh /tmp/faulting.sh >/dev/null
t1=$(cpu_ticks)
idle_pct=$(echo "$t0 $t1" | awk '{ t = $4 - $2; print (t > 0 ? int(100 * ($3 - $1) / t) : 0) }')
trace-cmd report -i /tmp/work.dat 2>/dev/null >/tmp/work.txt
n=$(grep -c 'afa_work_cpu:' /tmp/work.txt)
idle=$(grep -c 'reason=\(idle_core\|previous\)' /tmp/work.txt)
fb=$(grep -c 'reason=fallback_' /tmp/work.txt)
echo "afa_work_cpu: $n events, $idle on an idle core or the previous idle CPU, $fb fallbacks; the machine $idle_pct% idle"
grep 'afa_work_cpu:' /tmp/work.txt | tail -n 3
if [ "$idle_pct" -ge 85 ]; then
	check "the work runs on an idle core when the machine is idle ($idle of $n, at least half)" \
		test "$n" -gt 5 -a $((idle * 2)) -ge "$n"
	check "... and falls back rarely ($fb of $n, at most 1 in 10)" \
		test "$n" -gt 5 -a $((fb * 10)) -le "$n"
else
	echo "topology: SKIP the idle-core picks: the machine was $idle_pct% idle during the recording, not idle (85% or more)"
fi
# with both threads of CPU 0's core busy, the work moves to another,
# idle core
if [ "$(echo "$smt" | tr ',-' '  ' | wc -w)" -ge 2 ] && [ "$ncpu" -ge 4 ]; then
	for c in $(echo "$smt" | tr ',-' '  '); do
		taskset -c "$c" sh -c 'while :; do :; done' &
	done
	sleep 0.3
	trace-cmd record -q -e autofaultaround:afa_work_cpu -o /tmp/core.dat sh /tmp/faulting.sh >/dev/null
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	trace-cmd report -i /tmp/core.dat 2>/dev/null >/tmp/core.txt
	n=$(grep -c 'afa_work_cpu:' /tmp/core.txt)
	away=$(awk -v s=" $(echo "$smt" | tr ',-' '  ') " '/afa_work_cpu:/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^cpu=/) c = substr($i, 5)
		if (index(s, " " c " ") == 0) n++ } END { print n + 0 }' /tmp/core.txt)
	grep 'afa_work_cpu:' /tmp/core.txt | tail -n 2
	check "with core of CPU 0 busy, the work runs on another core ($away of $n)" \
		test "$n" -gt 5 -a $((away * 10)) -ge $((n * 8))
fi

# with every CPU busy, it falls back to staying where it is: a loop
# pinned to each CPU (unpinned, the guest's scheduler left one CPU 68%
# idle for a whole recording on the -rt kernel, and the picks found it)
cpu_stat() {
	awk '$1 ~ /^cpu[0-9]+$/ { t = 0; for (i = 2; i <= NF; i++) t += $i; print $1, $5 + $6, t }' /proc/stat
}
for c in $(seq 0 $((ncpu - 1))); do
	taskset -c "$c" sh -c 'while :; do :; done' &
done
sleep 0.3
cpu_stat >/tmp/busy.t0
t0=$(cpu_ticks)
trace-cmd record -q -e autofaultaround:afa_work_cpu -o /tmp/busy.dat sh /tmp/faulting.sh >/dev/null
t1=$(cpu_ticks)
cpu_stat >/tmp/busy.t1
kill $(jobs -p) 2>/dev/null
wait 2>/dev/null
idle_pct=$(echo "$t0 $t1" | awk '{ t = $4 - $2; print (t > 0 ? int(100 * ($3 - $1) / t) : 100) }')
# the premise is every CPU busy: the idlest CPU's share, not the mean
idle_max=$(awk 'NR == FNR { i[$1] = $2; t[$1] = $3; next }
	{ d = $3 - t[$1]; p = d > 0 ? int(100 * ($2 - i[$1]) / d) : 100; if (p > m) m = p }
	END { print m + 0 }' /tmp/busy.t0 /tmp/busy.t1)
trace-cmd report -i /tmp/busy.dat 2>/dev/null >/tmp/busy.txt
n=$(grep -c 'afa_work_cpu:' /tmp/busy.txt)
fb=$(grep -c 'reason=fallback_' /tmp/busy.txt)
# A pick other than a fallback names a CPU idle by the rule (7/8).
notidle=$(awk '/afa_work_cpu:/ && !/reason=fallback_/ {
	for (i = 1; i <= NF; i++) if ($i ~ /^idle_permille=/) p = substr($i, 15)
	if (p + 0 < 875) n++ } END { print n + 0 }' /tmp/busy.txt)
echo "busy: $n events, $fb fallbacks, the machine $idle_pct% idle with a loop per CPU, its idlest CPU $idle_max%"
check "with a loop per CPU, every idle pick names a CPU idle 7/8 of the period ($notidle of $((n - fb)) not)" \
	test "$n" -gt 0 -a "$notidle" -eq 0
# Under TCG on a loaded host a loop per CPU does not always keep the
# guest's CPUs busy (on the rt kernel a fallback's own CPU was 75% idle,
# idle_permille=749): the fallback is judged only when the guest saw
# every CPU busy.
if [ "$idle_max" -le 25 ]; then
	check "with every CPU busy the work stays local, or where allowed ($fb of $n fall back)" \
		test "$n" -gt 0 -a $((fb * 2)) -ge "$n"
else
	echo "topology: SKIP the fallback: the guest's idlest CPU was $idle_max% idle with a loop per CPU, not busy (25% idle or less)"
fi

# CPU offline/online cycles during a workload
if [ -w /sys/devices/system/cpu/cpu1/online ]; then
	(afa-work -p seq -n 20 -H 20 $f; afa-work -p stride -n 20 -H 20 $f) >/dev/null &
	w=$!
	bad=0
	for i in $(seq 1 10); do
		for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
			echo 0 >"$c" || bad=1
		done
		sleep 0.05
		for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
			echo 1 >"$c" || bad=1
		done
		sleep 0.05
	done
	wait $w
	check "10 offline/online cycles of every secondary CPU during a workload" test $bad = 0
	check "all CPUs online again" test "$(online_cpus)" = "$ncpu"
else
	fail "CPU hotplug: /sys/devices/system/cpu/cpu1/online not writable"
fi
check "stats still readable after hotplug" test -n "$(stat_col shared faults)"

# An isolated CPU (the numa boot isolates CPU 3, isolcpus=domain,3) never
# gets the periodic fold: faults there bring folds forward, which run
# there, and with every housekeeping CPU busy the next pick finds
# nothing idle; it falls back to the previous or another housekeeping
# CPU, not to the isolated one it runs on (until 2026-12-08 it did: 121
# of 124 picks in this recording).
iso=$(cat /sys/devices/system/cpu/isolated 2>/dev/null)
if [ "$iso" = 3 ]; then
	for c in 0 1 2; do
		taskset -c $c sh -c 'while :; do :; done' &
	done
	sleep 0.3
	trace-cmd record -q -e autofaultaround:afa_work_cpu -o /tmp/iso.dat \
		taskset -c 3 sh /tmp/faulting.sh >/dev/null
	kill $(jobs -p) 2>/dev/null
	wait 2>/dev/null
	trace-cmd report -i /tmp/iso.dat 2>/dev/null >/tmp/iso.txt
	n=$(grep -c 'afa_work_cpu:' /tmp/iso.txt)
	on3=$(grep -c 'afa_work_cpu:.* cpu=3 ' /tmp/iso.txt)
	fa=$(grep -c 'reason=fallback_allowed' /tmp/iso.txt)
	grep 'afa_work_cpu:' /tmp/iso.txt | tail -n 2
	check "isolated CPU 3 faulting, the others busy: no periodic fold picked there ($on3 of $n; $fa fell back to another)" \
		test "$n" -gt 3 -a "$on3" = 0
else
	echo "topology: SKIP the isolated CPU: none isolated here ('$iso'; the numa boot isolates CPU 3)"
fi
rmmod autofaultaround
check "dmesg has no kernel report after the topology tests" dmesg_clean

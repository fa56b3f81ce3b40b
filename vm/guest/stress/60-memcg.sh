# SPDX-License-Identifier: GPL-2.0
# Memory pressure: fault-around while the page cache is reclaimed under a
# cgroup v2 memory limit (stress_memcg_mib) well below the files, from a
# cold cache (drop_caches; ext4 only, and last: on tmpfs, drop_caches
# stops fault-around for good).
. /guest/stress/lib
prepare

CG=/sys/fs/cgroup
G=$CG/afa-stress
lim=$stress_memcg_mib
echo "stress: memcg: ${stress_memcg_s}s of workloads under memory.max ${lim}M, two 128 MiB ext4 files, cold cache, every fault sampled"
mkdir -p $CG
grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG
if ! grep -q memory $CG/cgroup.controllers 2>/dev/null; then
	fail "memcg: no memory controller in cgroup v2 (CONFIG_MEMCG?)"
	exit 0
fi
echo +memory >$CG/cgroup.subtree_control
mkdir -p $G
echo "${lim}M" >$G/memory.max
check "memcg: memory.max is ${lim} MiB" test "$(cat $G/memory.max)" = $((lim * 1024 * 1024))
for f in /mnt/big1 /mnt/big2; do
	[ -f $f ] || dd if=/dev/zero of=$f bs=1M count=128 status=none
done
sync
echo 3 >/proc/sys/vm/drop_caches

# in_group CMD...: run CMD inside the cgroup
in_group() {
	sh -c 'echo $$ >'$G'/cgroup.procs && exec "$@"' sh "$@"
}

# in_loop NAME CMD...: CMD repeated in the cgroup until /tmp/mcg.stop;
# its rounds in /tmp/mcg.NAME, its failures in /tmp/mcg.NAME.err
in_loop() {
	_n=$1
	shift
	in_group sh -c 'n=0
		while [ ! -e /tmp/mcg.stop ]; do
			"$@" >/dev/null 2>>/tmp/mcg.'$_n'.err || exit 1
			n=$((n + 1))
		done
		echo $n >/tmp/mcg.'$_n sh "$@" &
}

modprobe autofaultaround period_ms=20 sample_every=1
rm -f /tmp/mcg.*
deadline "$stress_memcg_s"
in_loop seq afa-work -S -p seq /mnt/big1
p1=$!
in_loop stride afa-work -p stride -s 65536 -p stride -s 16384 /mnt/big2
p2=$!
in_loop sparse afa-work -S -p stride -s 1048576 -n 3 -H 50 /mnt/big1
p3=$!
in_loop race afa-race -d 10 -s 8 -f 2 -m 1 -k 1 -r "$stress_seed" /mnt/big2
p4=$!
# and reclaim on demand, from outside the group, while they run
rec=0
while ! past_deadline; do
	[ -w $G/memory.reclaim ] && echo 4M >$G/memory.reclaim 2>/dev/null
	rec=$((rec + 1))
	sleep 0.5
done
touch /tmp/mcg.stop
wait $p1; r1=$?
wait $p2; r2=$?
wait $p3; r3=$?
wait $p4; r4=$?
t=$(elapsed)
cat /tmp/mcg.*.err 2>/dev/null | tail -n 5
echo "stress: memcg: rounds: seq $(cat /tmp/mcg.seq) stride $(cat /tmp/mcg.stride) sparse $(cat /tmp/mcg.sparse) race $(cat /tmp/mcg.race) in ${t}s (exit $r1 $r2 $r3 $r4), $rec memory.reclaim writes"
grep -E '^(max|oom|oom_kill) ' $G/memory.events
peak=$(cat $G/memory.peak 2>/dev/null || echo n/a)
scan=$(awk '$1 == "pgscan" { print $2 }' $G/memory.stat)
echo "stress: memcg: memory.peak $peak, pgscan ${scan:-n/a}, memory.current $(cat $G/memory.current)"
check "memcg: the workloads in the group ran and completed (exit $r1 $r2 $r3 $r4)" \
	test "$r1$r2$r3$r4" = 0000 -a -s /tmp/mcg.seq -a -s /tmp/mcg.race
check "memcg: no OOM kill in the group" \
	test "$(awk '$1 == "oom_kill" { print $2 }' $G/memory.events)" = 0
check "memcg: the page cache was reclaimed in the group (pgscan ${scan:-none})" \
	test "${scan:-0}" -gt 0
wait_periods 3
stats_sane >/tmp/sane.out
r=$?
cat /tmp/sane.out
check "memcg: stats sane after reclaim" test $r = 0
check "memcg: rmmod succeeds" rmmod_retry
rmdir $G
check "memcg: no kernel report" dmesg_clean

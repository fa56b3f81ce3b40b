# SPDX-License-Identifier: GPL-2.0
# A hot set under a memcg limit (issue 13, item 4): afa-hotset keeps
# touching an 8 MiB ext4 file (one read per page, every 0.1 s) while
# sequential mmap scans of a 128 MiB file stream through the same
# memory.max of 24 MiB, for stress_hotset_s seconds; four times, without
# the module, with it, without, with it (its defaults: the scans' window
# is free to grow).  The limit is on the group afa-hot; the hot set and
# the scan run in its children hot and scan, which share that memory
# and only keep the counts apart: the hot set's refaults are hot's
# workingset_refault_file (memory.stat), its evictions the pages
# afa-hotset's mincore() finds missing at the start of a round.
# Passes when, with the module, neither exceeds the larger of the two
# runs without it by more than a quarter plus 256 pages (1 MiB): the
# module must not make reclaim take the hot set more often.
. /guest/stress/lib
prepare

CG=/sys/fs/cgroup
G=$CG/afa-hot
LIM=24
BIG=/mnt/big1
echo "stress: hotset: 4 x ${stress_hotset_s}s of an 8 MiB hot set against 128 MiB mmap scans under memory.max ${LIM}M"
mkdir -p $CG
grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG
if ! grep -q memory $CG/cgroup.controllers 2>/dev/null; then
	fail "hotset: no memory controller in cgroup v2 (CONFIG_MEMCG?)"
	exit 0
fi
echo +memory >$CG/cgroup.subtree_control
mkdir -p $G
echo "${LIM}M" >$G/memory.max
echo +memory >$G/cgroup.subtree_control
mkdir -p $G/hot $G/scan
[ -f $BIG ] || dd if=/dev/zero of=$BIG bs=1M count=128 status=none

# in_group GROUP CMD...: run CMD in the cgroup
in_group() {
	_g=$1
	shift
	sh -c 'echo $$ >'"$_g"'/cgroup.procs && exec "$@"' sh "$@"
}

# mstat GROUP KEY: a memory.stat counter
mstat() {
	awk -v k="$2" '$1 == k { print $2 }' "$1/memory.stat"
}

# measure RUN: one measurement, "RUN refaults evicted majflt scans
# scan_pgscan exits" in
# /tmp/hot.res; a fresh hot file, so that no shadow entry of an earlier
# run counts as a refault, and a cold cache charged to the group
measure() {
	hot=/mnt/hot-$1
	dd if=/dev/urandom of=$hot bs=1M count=8 status=none
	sync
	echo 3 >/proc/sys/vm/drop_caches
	rf0=$(mstat $G/hot workingset_refault_file)
	sc0=$(mstat $G/scan pgscan)
	rm -f /tmp/hot.stop
	in_group $G/scan sh -c 'n=0
		while [ ! -e /tmp/hot.stop ]; do
			afa-work -S -p seq '$BIG' >/dev/null || exit 1
			n=$((n + 1))
		done
		echo $n >/tmp/hot.scans' &
	sp=$!
	out=$(in_group $G/hot afa-hotset -d "$stress_hotset_s" -p 100 $hot)
	hr=$?
	touch /tmp/hot.stop
	wait $sp
	scr=$?
	sleep 2	# let memcg's stats flush
	rf=$(($(mstat $G/hot workingset_refault_file) - rf0))
	sc=$(($(mstat $G/scan pgscan) - sc0))
	ev=$(kv evicted "$out")
	echo "stress: hotset: $1: $out; hot refaults $rf, scan pgscan $sc, $(cat /tmp/hot.scans) scans (exit $hr $scr)"
	echo "$1 $rf $ev $(kv majflt "$out") $(cat /tmp/hot.scans) $sc $hr$scr" >>/tmp/hot.res
	rm -f $hot
}

rm -f /tmp/hot.res
measure none1
modprobe autofaultaround && measure module1 && rmmod_retry
measure none2
modprobe autofaultaround && measure module2 && rmmod_retry
cat /tmp/hot.res

# worst of the runs without the module, and with it, per column
worst() {
	awk -v p="$1" -v c="$2" 'index($1, p) == 1 && $c > m { m = $c } END { print m + 0 }' /tmp/hot.res
}
check "hotset: all four measurements ran (hot set and scans exit 0)" \
	test "$(awk '$7 == "00"' /tmp/hot.res | wc -l)" = 4
check "hotset: the scans forced reclaim in every measurement (pgscan of scan: $(awk '{ printf "%s ", $6 }' /tmp/hot.res))" \
	test "$(awk '$6 > 0' /tmp/hot.res | wc -l)" = 4
for col in 2:refaults 3:evictions; do
	c=${col%:*}
	n=${col#*:}
	base=$(worst none "$c")
	mod=$(worst module "$c")
	lim=$((base + base / 4 + 256))
	check "hotset: hot-set $n with the module ($mod, worst of 2) within a quarter + 256 pages of without ($base, worst of 2; limit $lim)" \
		test "$mod" -le "$lim"
done
rmdir $G/hot $G/scan $G
check "hotset: no kernel report" dmesg_clean

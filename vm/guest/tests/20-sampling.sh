# SPDX-License-Identifier: GPL-2.0
# Sampling: per-class fault, hit and usefulness figures (issue 3).
# Workloads use the 'shared' class (MAP_SHARED) where exact figures are
# checked, because no busybox process maps a file shared.
. /guest/lib.sh

f=/mnt/seq64
make_file $f 64
load() {
	modprobe autofaultaround period_ms=100 "$@"
}

# seq: one sequential pass, mapping held for 4 periods so samples are
# checked; one fault in 32 sampled spreads the samples over the pass.
load sample_every=32
out=$(afa-work -S -p seq -H 400 $f)
sleep 0.3
flt=$(kv minflt "$out")
faults=$(stat_col shared faults)
hits=$(stat_col shared hits)
checked=$(stat_col shared checked)
used=$(stat_col shared used)
echo "seq: $out; stats: faults=$faults hits=$hits checked=$checked used=$used"
check "seq: map_pages calls of class shared match the minor faults ($faults vs $flt)" \
	within "$faults" "$flt" 2
check "seq: hits = faults, within 2 ($hits of $faults)" within "$hits" "$faults" 2
check "seq: usefulness >= 0.9 ($used of $checked sampled pages used)" \
	test "$checked" -gt 200 -a $((used * 10)) -ge $((checked * 9))
check "stats file is root-only (mode 0400)" test "$(stat -c %a $STATS)" = 400
rmmod autofaultaround

# sparse: one page per 2 MiB, every fault sampled
load sample_every=1
out=$(afa-work -S -p stride -s 2097152 -H 400 $f)
sleep 0.3
checked=$(stat_col shared checked)
used=$(stat_col shared used)
echo "sparse: $out; stats: checked=$checked used=$used"
check "sparse: usefulness <= 0.1 ($used of $checked sampled pages used)" \
	test "$checked" -ge 45 -a $((used * 10)) -le "$checked"
rmmod autofaultaround

# classes
load
cp /usr/bin/afa-work /mnt/afa-work-ext4
dd if=/dev/zero of=/tmp/shm16 bs=1M count=16 status=none
afa-work -a rand $f >/dev/null
afa-work -a seq $f >/dev/null
afa-work -p seq /tmp/shm16 >/dev/null
/mnt/afa-work-ext4 -p stride $f >/dev/null
sleep 0.3
for c in rand seq shmem; do
	n=$(stat_col $c faults)
	check "class $c: its workload's faults land in it ($n >= 257)" test "$n" -ge 257
done
check "class exec: program text faults land in it" test "$(stat_col exec faults)" -gt 0
check "class rodata: MADV_RANDOM/SEQUENTIAL faults stay out of it" \
	test "$(stat_col rodata faults)" -lt 257
rmmod autofaultaround

# trace-cmd's afa_sample events add up to the debugfs totals
load sample_every=32
trace-cmd record -q -e autofaultaround:afa_sample -o /tmp/sample.dat \
	sh -c "afa-work -S -p seq -H 300 $f; sleep 0.3" >/dev/null
ev=$(trace-cmd report -i /tmp/sample.dat 2>/dev/null |
	awk '/afa_sample/ && / class=shared / {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^(faults|hits|checked|used)=/) { split($i, kv, "="); s[kv[1]] += kv[2] }
	} END { printf "%d %d %d %d", s["faults"], s["hits"], s["checked"], s["used"] }')
st="$(stat_col shared faults) $(stat_col shared hits) $(stat_col shared checked) $(stat_col shared used)"
echo "afa_sample sums: $ev; stats totals: $st"
check "afa_sample events sum to the stats totals (faults hits checked used)" \
	test "$ev" = "$st" -a "${ev%% *}" -gt 0
rmmod autofaultaround

# fault-around turned off by the administrator: the module says so and
# does not override it
load
echo 4096 >$FAB
sleep 0.3
flt=$(last_minflt "$(afa-work -S -p seq -n 3 -H 150 $f)")
check "fault-around off: the module logs it" \
	sh -c "dmesg | grep -q 'fault-around looks off'"
check "fault-around off: every page faults, no window from the module ($flt of 16385)" \
	within "$flt" 16385 2
check "fault-around off: the module sees no map_pages call" \
	test "$(stat_col shared faults)" = 0
echo 65536 >$FAB
afa-work -S -p seq $f >/dev/null
sleep 0.3
check "fault-around on again: the module logs it" \
	sh -c "dmesg | grep -q 'fault-around is on again (the kernel asked for windows up to 65536 bytes)'"
rmmod autofaultaround

# rmmod in the middle of a workload
orig=$(cat $FAB)
load
(for i in 1 2 3 4 5 6; do afa-work -p rand $f; afa-work -S -p seq $f; done) >/dev/null &
sleep 1
check "rmmod in the middle of a workload succeeds" rmmod autofaultaround
wait
check "fault_around_bytes is as the module found it" test "$(cat $FAB)" = "$orig"
check "dmesg has no kernel report after the sampling tests" dmesg_clean

# SPDX-License-Identifier: GPL-2.0
# munmap, mremap, MAP_FIXED replacement, mprotect splits, madvise and exit
# racing with sampled windows (afa-race), for stress_race_s seconds in all:
#   half: ext4 and tmpfs files at once, every fault sampled, 10 ms period
#   a quarter: the default 200 ms period, so more samples outlive their VMA
#   a quarter: afa-race killed at random moments, and the module
#     reloaded, while samples are pending
. /guest/stress/lib
prepare

d1=$((stress_race_s / 2))
d2=$((stress_race_s / 4))
d3=$((stress_race_s - d1 - d2))
echo "stress: afa-race for ${stress_race_s}s: ${d1}s ext4+tmpfs at period_ms=10, ${d2}s at period_ms=200, ${d3}s of kills and reloads (seed $stress_seed)"
dd if=/dev/zero of=/tmp/race.shm bs=1M count=16 status=none
[ -f /mnt/race32 ] || dd if=/dev/zero of=/mnt/race32 bs=1M count=32 status=none
cat /mnt/race32 >/dev/null

# race_ok OUT: afa-race exited 0 and did munmaps, mremaps and forks
race_ok() {
	[ "$1" = 0 ] && grep -q 'munmaps=[1-9]' "$2" && grep -q 'mremaps=[1-9]' "$2" &&
		grep -q 'forks=[1-9]' "$2"
}

modprobe autofaultaround period_ms=10 sample_every=1
afa-race -d "$d1" -s 8 -f 2 -m 2 -k 2 -r "$stress_seed" /mnt/race32 >/tmp/race1.out 2>&1 &
p1=$!
afa-race -d "$d1" -s 4 -f 1 -m 1 -k 1 -r $((stress_seed + 1)) /tmp/race.shm >/tmp/race2.out 2>&1
r2=$?
wait $p1
r1=$?
cat /tmp/race1.out /tmp/race2.out
check "race: afa-race on ext4 ran ${d1}s, munmapped, mremapped and forked (exit $r1)" race_ok $r1 /tmp/race1.out
check "race: afa-race on tmpfs ran ${d1}s, munmapped, mremapped and forked (exit $r2)" race_ok $r2 /tmp/race2.out
wait_periods 3
stats_sane >/tmp/sane.out
r=$?
cat /tmp/sane.out
check "race: stats sane after the races at period_ms=10" test $r = 0
rmmod_retry

modprobe autofaultaround sample_every=1
afa-race -d "$d2" -s 8 -f 2 -m 2 -k 2 -r $((stress_seed + 2)) /mnt/race32 >/tmp/race3.out 2>&1
r3=$?
cat /tmp/race3.out
check "race: afa-race at period_ms=200 ran ${d2}s (exit $r3)" race_ok $r3 /tmp/race3.out
wait_periods 2
stats_sane >/tmp/sane.out
r=$?
cat /tmp/sane.out
check "race: stats sane after the races at period_ms=200" test $r = 0
rmmod_retry

# kills and reloads: afa-race dies with SIGKILL in the middle of its
# races, and the module goes away and comes back with samples pending
modprobe autofaultaround period_ms=50 sample_every=1
deadline "$d3"
kills=0
reloads=0
reload_fail=0
set -- $(awk -v s="$stress_seed" 'BEGIN { srand(s + 3); for (i = 0; i < 200; i++) printf "%.2f ", 0.3 + rand() * 1.5 }')
while [ $# -gt 0 ] && ! past_deadline; do
	afa-race -d 3600 -s 4 -f 2 -m 1 -k 2 -r $((kills + 100)) /mnt/race32 >/dev/null 2>&1 &
	p=$!
	sleep "$1"
	shift
	kill -KILL $p
	wait $p 2>/dev/null
	kills=$((kills + 1))
	if [ $((kills % 2)) = 0 ]; then
		{ rmmod_retry && modprobe autofaultaround period_ms=50 sample_every=1; } ||
			reload_fail=$((reload_fail + 1))
		reloads=$((reloads + 1))
	fi
done
echo "stress: race: afa-race killed $kills times, module reloaded $reloads times in ${d3}s"
check "race: afa-race killed mid-race $kills times, module reloaded $reloads times ($reload_fail failed)" \
	test "$kills" -gt 0 -a "$reload_fail" = 0
wait_periods 3
stats_sane >/tmp/sane.out
r=$?
cat /tmp/sane.out
check "race: stats sane after the kills" test $r = 0
check "race: rmmod succeeds" rmmod_retry
check "race: no kernel report" dmesg_clean

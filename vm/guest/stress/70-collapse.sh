# SPDX-License-Identifier: GPL-2.0
# Shmem THP collapse under read faults (issue 13, item 3): with shmem THP
# at "advise", afa-collapse read-faults a 2 MiB-aligned memfd in three
# threads while a thread of its own and a child process MADV_COLLAPSE it
# and split it again (MADV_DONTNEED, hole punches), for
# stress_collapse_s seconds; the module is loaded throughout and its
# windows move: every half second the pinned window changes (min_order =
# max_order, from 0 to 9 and back, or the whole range), and every tenth
# change the module is reloaded.  Every page afa-collapse reads must hold
# its own tag, and the kernel must report nothing.
. /guest/stress/lib
prepare

SHM=/sys/kernel/mm/transparent_hugepage/shmem_enabled
echo "stress: collapse: ${stress_collapse_s}s of afa-collapse (3 readers, a collapser thread and a collapsing child) under moving windows, seed $stress_seed"
if [ ! -w $SHM ]; then
	# no THP (Debian's -rt kernel: TRANSPARENT_HUGEPAGE depends on
	# !PREEMPT_RT): nothing to collapse, no check
	echo "stress: collapse: skipped: no $SHM in this kernel (CONFIG_TRANSPARENT_HUGEPAGE off)"
	exit 0
fi
shm0=$(sed 's/.*\[\(.*\)\].*/\1/' $SHM)
echo advise >$SHM
check "collapse: shmem_enabled is advise" grep -q '\[advise\]' $SHM

# vmstat COUNTER: a /proc/vmstat counter
vmstat() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat
}

# set_window LO HI: pin the window to [LO, HI], in the order that keeps
# min_order <= max_order at every write
set_window() {
	if [ "$1" -gt "$(cat $PDIR/max_order)" ]; then
		echo "$2" >$PDIR/max_order && echo "$1" >$PDIR/min_order
	else
		echo "$1" >$PDIR/min_order && echo "$2" >$PDIR/max_order
	fi
}

collapse0=$(vmstat thp_collapse_alloc)
modprobe autofaultaround
afa-collapse -d "$stress_collapse_s" -s 4 -f 3 -c 1 -r "$stress_seed" >/tmp/collapse.out 2>&1 &
pid=$!
# the windows the module is held to, in turn: each order pinned, up and
# down, and the whole range
set -- 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7 8:8 9:9 8:8 6:6 4:4 2:2 0:9
deadline $((stress_collapse_s + 60))
changes=0
bad=0
reloads=0
reload_fail=0
while kill -0 $pid 2>/dev/null && ! past_deadline; do
	[ $# -eq 0 ] && set -- 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7 8:8 9:9 8:8 6:6 4:4 2:2 0:9
	w=$1
	shift
	set_window "${w%:*}" "${w#*:}" || bad=$((bad + 1))
	changes=$((changes + 1))
	if [ $((changes % 10)) = 0 ]; then
		{ rmmod_retry && modprobe autofaultaround min_order="${w%:*}" max_order="${w#*:}"; } ||
			reload_fail=$((reload_fail + 1))
		reloads=$((reloads + 1))
	fi
	sleep 0.5
done
past_deadline && kill -KILL $pid
wait $pid
r=$?
t=$(elapsed)
cat /tmp/collapse.out
collapsed=$(($(vmstat thp_collapse_alloc) - collapse0))
echo "stress: collapse: afa-collapse exit $r after ${t}s; $changes window changes ($bad refused), $reloads reloads ($reload_fail failed); thp_collapse_alloc +$collapsed; $(grep ShmemPmdMapped /proc/meminfo)"
out=$(cat /tmp/collapse.out)
check "collapse: afa-collapse ran ${stress_collapse_s}s and every page read held its own tag (exit $r, $(kv bad_tags "$out") bad tags)" \
	test "$r" = 0 -a "$(kv bad_tags "$out")" = 0
check "collapse: MADV_COLLAPSE collapsed the memfd ($(kv collapsed "$out") calls succeeded, the kernel allocated $collapsed huge pages)" \
	test "$(kv collapsed "$out")" -gt 0 -a "$collapsed" -gt 0
check "collapse: the collapses were split again ($(kv dontneed_part "$out") partial and $(kv dontneed_all "$out") whole MADV_DONTNEED, $(kv punches "$out") punches)" \
	test "$(kv dontneed_part "$out")" -gt 0 -a "$(kv punches "$out")" -gt 0
check "collapse: $changes window changes, every write accepted ($bad refused), $reloads reloads ($reload_fail failed)" \
	test "$changes" -ge 10 -a "$bad" = 0 -a "$reload_fail" = 0
check "collapse: rmmod succeeds" rmmod_retry
echo "$shm0" >$SHM
check "collapse: no kernel report" dmesg_clean

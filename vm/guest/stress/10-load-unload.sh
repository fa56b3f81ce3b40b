# SPDX-License-Identifier: GPL-2.0
# stress_loads modprobe/rmmod cycles, some with parameters, while
# sequential, sparse, exec-heavy and fork/exit-storm workloads and a stats
# reader run in the background; the time a module stays loaded is drawn
# from the seed.
. /guest/stress/lib
prepare

# cycle i loads with the parameters of line i % 6
params() {
	case $(($1 % 6)) in
	0) echo "" ;;
	1) echo "period_ms=10 sample_every=1" ;;
	2) echo "period_ms=10 sample_every=1 min_order=2 max_order=6" ;;
	3) echo "enabled=0 sample_every=2 period_ms=20" ;;
	4) echo "classes=exec,shared,private period_ms=15 kp=2048 ki=1024" ;;
	5) echo "period_ms=10 sample_every=1 max_step=3 initial_order=9" ;;
	esac
}
holds=$(awk -v s="$stress_seed" -v n="$stress_loads" 'BEGIN {
	srand(s); for (i = 0; i < n; i++) printf "%.2f ", rand() * 0.2 }')
echo "stress: $stress_loads load/unload cycles, loaded 0-0.2 s each (seed $stress_seed)"

start_loads seq sparse exec fork stats
start_clock
i=0
load_fail=0
unload_fail=0
sane_fail=0
load_cs=0
unload_cs=0
for hold in $holds; do
	now_cs
	t0=$NOW_CS
	if ! modprobe autofaultaround $(params $i); then
		echo "stress: cycle $i: modprobe autofaultaround $(params $i) failed"
		load_fail=$((load_fail + 1))
	fi
	now_cs
	load_cs=$((load_cs + NOW_CS - t0))
	sleep "$hold"
	# every 20th cycle: a few periods, then the figures must be sane
	# (at enabled=0 the probes are detached: no folds to wait for)
	if [ $((i % 20)) = 19 ] && loaded; then
		case " $(params $i) " in
		*" enabled=0 "*) ;;
		*) wait_periods 3 ;;
		esac
		stats_sane >/tmp/sane.out || { sane_fail=$((sane_fail + 1)); cat /tmp/sane.out; }
	fi
	now_cs
	t0=$NOW_CS
	if ! rmmod_retry; then
		echo "stress: cycle $i: rmmod failed"
		unload_fail=$((unload_fail + 1))
		loaded && break
	fi
	now_cs
	unload_cs=$((unload_cs + NOW_CS - t0))
	i=$((i + 1))
done
t=$(elapsed)
stop_loads "load/unload"
echo "stress: load/unload: $i of $stress_loads cycles in ${t}s (modprobe $((load_cs / 100))s, rmmod $((unload_cs / 100))s in all), rmmod retried $RMMOD_RETRIES times while the module was in use"
check "load/unload: $i of $stress_loads cycles ran, every modprobe succeeded ($load_fail failed)" \
	test "$load_fail" = 0 -a "$i" = "$stress_loads"
check "load/unload: every rmmod succeeded ($unload_fail failed)" test "$unload_fail" = 0
check "load/unload: stats sane in every 20th cycle ($sane_fail not)" test "$sane_fail" = 0
check "load/unload: the module is not loaded at the end" test ! -d /sys/module/autofaultaround
check "load/unload: fault_around_bytes untouched (65536)" test "$(cat $FAB)" = 65536
check "load/unload: no kernel report" dmesg_clean

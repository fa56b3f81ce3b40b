# SPDX-License-Identifier: GPL-2.0
# stress_hotplug cycles of taking every secondary CPU offline and back
# online while workloads run and the module samples every fault with a
# 10 ms period; every 10th cycle also reloads the module while only CPU 0
# is online and checks the figures then.
. /guest/stress/lib
prepare

ncpu=$(nproc)
cpus=$(ls -d /sys/devices/system/cpu/cpu[1-9]* 2>/dev/null | sed 's,.*/cpu,,' | sort -n | tr '\n' ' ')
echo "stress: $stress_hotplug offline/online cycles of CPUs $cpus($ncpu online)"
if [ -z "$cpus" ] || [ ! -w /sys/devices/system/cpu/cpu1/online ]; then
	fail "hotplug: no secondary CPU can go offline (cpus: $cpus)"
	exit 0
fi

# set_online 0|1: every secondary CPU; count the writes that fail
set_online() {
	for c in $cpus; do
		echo "$1" >/sys/devices/system/cpu/cpu$c/online || bad=$((bad + 1))
	done
}

modprobe autofaultaround period_ms=10 sample_every=1
start_loads seq sparse exec fork race
start_clock
bad=0
i=0
reload_fail=0
sane_fail=0
while [ $i -lt "$stress_hotplug" ]; do
	set_online 0
	if [ $((i % 10)) = 9 ]; then
		n=$(nproc)
		[ "$n" = 1 ] || echo "stress: hotplug: cycle $i: $n CPUs online, want 1"
		stats_sane >/tmp/sane.out || { sane_fail=$((sane_fail + 1)); cat /tmp/sane.out; }
		{ rmmod_retry && modprobe autofaultaround period_ms=10 sample_every=1; } ||
			reload_fail=$((reload_fail + 1))
	fi
	sleep 0.05
	set_online 1
	sleep 0.05
	i=$((i + 1))
done
t=$(elapsed)
stop_loads "hotplug"
echo "stress: hotplug: $i of $stress_hotplug cycles in ${t}s, $bad failed online writes"
check "hotplug: $i offline/online cycles of every secondary CPU, no write failed ($bad)" \
	test "$bad" = 0
check "hotplug: all $ncpu CPUs online again" test "$(nproc)" = "$ncpu"
check "hotplug: module reloaded with only CPU 0 online every 10th cycle ($reload_fail failed)" \
	test "$reload_fail" = 0
wait_periods 3
stats_sane >>/tmp/sane.out || sane_fail=$((sane_fail + 1))
tail -n 1 /tmp/sane.out
check "hotplug: stats sane with one CPU and after all are back ($sane_fail not)" test "$sane_fail" = 0
check "hotplug: rmmod succeeds" rmmod_retry
check "hotplug: no kernel report" dmesg_clean

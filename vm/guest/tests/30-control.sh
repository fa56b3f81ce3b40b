# SPDX-License-Identifier: GPL-2.0
# Actuation and control (issues 4, 12, 13): the window the module sets is
# exact at every order; observe-only modes leave the kernel's; the price
# on memory moves windows the right way; a broken contract falls back to
# observing; the law traces its terms.  Fault counts only.
. /guest/lib.sh

seq=/mnt/seq64
make_file $seq 64
small_folios $seq
cat $seq >/dev/null

# Every order, pinned with min_order = max_order: the module's window is
# exact (16384 >> order faults, plus the first), trials off (no order
# below min_order to try).
# A count off by more than 4 is taken again once, with what /proc/vmstat
# says moved (check_faults): faults from outside the module (compaction,
# a cache drop) were seen in CI, 6 in 33 once on -rt.
seq_faults() {
	kv minflt "$(afa-work -p seq $seq)"
}
for order in 0 2 4 6 9; do
	modprobe autofaultaround min_order=$order max_order=$order
	check_faults "pinned order $order" $(((16384 >> order) + 1)) seq_faults
	rmmod autofaultaround
done

# Observing only: enabled=0, or the class not enabled: the kernel's 64 KiB.
modprobe autofaultaround enabled=0 min_order=9
check_faults "enabled=0: the kernel's window" 1025 seq_faults
echo 1 >/sys/module/autofaultaround/parameters/enabled
check_faults "enabled=1 at run time: order 9" 33 seq_faults
echo rand,seq >/sys/module/autofaultaround/parameters/classes
check_faults "classes=rand,seq: rodata keeps the kernel's window" 1025 seq_faults
rmmod autofaultaround

# enabled=0 detaches the probes (issue 13): a file first mapped while it
# is 0 gets no stream, however long the module waits; after enabled=1
# it does.  Where ftrace lists the probe (fprobe, kprobe on ftrace), it
# is listed at 1 and not at 0.  Loaded at 0, attached for the cost
# measurement only: the costs are measured as when loaded at 1.
off=/mnt/seq-off
make_file $off 4
small_folios $off
cat $off >/dev/null
EF=/sys/kernel/tracing/enabled_functions
listed() {
	grep -q '^filemap_map_pages' $EF 2>/dev/null
}
modprobe autofaultaround
costs_on=$(kv measured "$(sed -n 2p $STATS)")
rmmod autofaultaround
modprobe autofaultaround enabled=0 period_ms=20
costs_off=$(kv measured "$(sed -n 2p $STATS)")
check "loaded at enabled=0: costs measured as at enabled=1 (measured=$costs_off, $costs_on)" \
	test "$costs_off" = "$costs_on"
ftrace_off=$(listed && echo 1 || echo 0)
afa-work -p seq $off >/dev/null
sleep 0.5
check "enabled=0: no stream for a file mapped meanwhile (rows: $(stream_rows $(fid $off) rodata))" \
	test "$(stream_rows $(fid $off) rodata)" = 0
echo 1 >/sys/module/autofaultaround/parameters/enabled
ftrace_on=$(listed && echo 1 || echo 0)
afa-work -p seq $off >/dev/null
wait_periods 2
check "enabled=1 again: the file has its stream (rows: $(stream_rows $(fid $off) rodata))" \
	test "$(stream_rows $(fid $off) rodata)" -ge 1
if [ "$ftrace_on" = 1 ]; then
	check "ftrace lists filemap_map_pages at enabled=1 and not at enabled=0 ($ftrace_off)" \
		test "$ftrace_off" = 0
	echo 0 >/sys/module/autofaultaround/parameters/enabled
	check "enabled=0 at run time: ftrace no longer lists filemap_map_pages" \
		sh -c "! grep -q '^filemap_map_pages' $EF"
else
	echo "30-control: ftrace does not list the probe here (kprobe not on ftrace): its check skipped"
fi
rmmod autofaultaround

# Bad writes are rejected and change nothing.
modprobe autofaultaround
P=/sys/module/autofaultaround/parameters
for w in "min_order 10" "max_order 10" "kp 999999" "deadband 512" \
	 "hysteresis 512" "min_samples 0" "max_step 0" "page_price_ns 2000000" \
	 "sample_every 0" "period_ms 5"; do
	check_rejected "" $w
done
echo 3 >$P/max_order
echo 4 >$P/min_order 2>/dev/null
check "min_order above max_order is rejected (min_order $(cat $P/min_order))" \
	test "$(cat $P/min_order)" = 0
rmmod autofaultaround
# The read-only booleans are as strict at load as the others: "0x" is
# not 0 (the kernel's own bool parser reads the first character only).
for w in direct_call=0x test_contract_unknown=1junk enabled=yes; do
	if modprobe autofaultaround $w 2>/dev/null; then
		rmmod autofaultaround
		fail "load with $w is refused (it loaded)"
	else
		check "load with $w is refused, with a line that names it" \
			sh -c "dmesg | tail -n 20 | grep -q '${w%%=*}'"
	fi
done

# The law traces every step with its evidence and terms; a sequential
# file grows, and each step is consistent: P = kp * error / 1024 within
# the law's rounding (truncation toward zero, so |P - kp*e/1024| < 1).
modprobe autofaultaround
db=$(cat $P/deadband)
maxo=$(cat $P/max_order)
trace-cmd record -q -e autofaultaround:afa_ctl_step -e autofaultaround:afa_order_change \
	-o /tmp/law.dat sh -c "afa-work -p seq $seq; afa-work -p seq $seq" >/dev/null
trace-cmd report -i /tmp/law.dat 2>/dev/null >/tmp/law.txt
steps=$(grep -c 'afa_ctl_step:' /tmp/law.txt)
grows=$(grep "dev=$(devno $seq) ino=$(ino $seq) " /tmp/law.txt | grep -c 'afa_order_change:.*reason=grow')
check "afa_ctl_step events are traced ($steps)" test "$steps" -gt 0
check "the sequential file's window grows in traced steps ($grows)" test "$grows" -gt 0
# A stream serves every domain, a class state one (trace.h): a stream's
# events read node=-1 core=none, a class state's (any here: these files'
# faults reach the table at once) its node and core.
sev=$(grep -c "dev=$(devno $seq) ino=$(ino $seq) " /tmp/law.txt)
snd=$(grep "dev=$(devno $seq) ino=$(ino $seq) " /tmp/law.txt | grep -vc ' node=-1 core=none ')
ctot=$(grep -c ' slot=-1 ' /tmp/law.txt)
cdom=$(grep ' slot=-1 ' /tmp/law.txt | grep -Ec ' node=[0-9]+ core=(big|little) ')
check "a stream's events carry no domain ($snd of $sev with one), a class state's its own ($cdom of $ctot)" \
	test "$sev" -gt 0 -a "$snd" = 0 -a "$cdom" = "$ctot"
bad=$(awk -v db="$db" -v maxo="$maxo" '/afa_ctl_step:/ && /reason=(grow|shrink|pending)/ {
	for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	if (v["p"] == "") next
	# the savings in the units of the law (1024 is 1.0); the trace rounds
	# them to permille, so a saving within one unit of the deadband
	# (db, read from the module) cannot tell which side the law took:
	# such steps are skipped
	g = v["save_grow_permille"] * 1.024
	sh = v["save_shrink_permille"] * 1.024
	# the law acts on S+ past the deadband (on twice the deadband if
	# that is more and the step is free too), else on -S- past it,
	# else on a free step (S+ > 0 at g >= 1/2 below max_order) at
	# twice the deadband, else 0; a saving under one unit prints as 0
	# permille
	free = v["grow_permille"] >= 500 && v["order"] < maxo
	if (g > db + 1) {
		e = g
		if (free && g < 2 * db - 1) e = 2 * db
		else if (free && g <= 2 * db + 1) next
	}
	else if (g >= db - 1) next
	else if (sh > db + 1) e = -sh
	else if (sh >= db - 1) next
	else if (free && g > 1) e = 2 * db
	else if (free && g >= 0) next
	else e = 0
	# P = kp * e / 1024 at kp = 4096; rounding: 8 units of slack
	want = 4 * e
	if (v["p"] - want > 8 || want - v["p"] > 8) bad++
} END { print bad + 0 }' /tmp/law.txt)
check "P = kp * saving in every traced step ($bad off)" test "$bad" = 0
rmmod autofaultaround

# A price on memory.  Runs of 3 pages in every 4 (g = 1/3 at order 0):
# growing to order 1 saves a third of the faults and maps a page in four
# that is never read.  Without a price that pays (S+ = 0.18 at r = F/P
# = 3.26; from order 1 on g = 1/2, as in a scan), and the runs grow;
# at 1 ms a page the unread page costs more than the faults saved (S+ =
# 1 - 2/3 (F + 2P) / (F + P) < 0 while F < P, so on every kernel here),
# and they stay at order 0.  A scan maps no page more at a larger window
# (g = 1/2: free steps, docs/control-law.md), so with the same price it
# still grows.  A fold moves an order at most once, and how many fall in
# a process depends on the host: without a price the runs go on until
# order 2, six processes at most (once in about 25 debug-kernel runs two
# did not get there, the cause not found: the costs and the stream's row
# are shown at each round); with the price, as many processes, two at
# least.
modprobe autofaultaround initial_order=0 page_price_ns=0
n=0 r0=0
while [ $n -lt 6 ] && [ "${r0:-0}" -lt 2 ]; do
	afa-work -p stride -s 16384 -R 3 $seq >/dev/null
	wait_periods 1
	r0=$(stream_class_col "$(fid $seq)" rodata order)
	n=$((n + 1))
	echo "price 0: after $n: $(sed -n 2p $STATS)"
	awk -v id="$(fid $seq)" '$3 ":" $4 == id' $STATS
done
rmmod autofaultaround
modprobe autofaultaround initial_order=0 page_price_ns=1048576
i=0
while [ $i -lt $n ] || [ $i -lt 2 ]; do
	afa-work -p stride -s 16384 -R 3 $seq >/dev/null
	i=$((i + 1))
done
wait_periods 1
r1048576=$(stream_class_col "$(fid $seq)" rodata order)
rmmod autofaultaround
check "page_price_ns=0: runs of 3 pages in 4 grow from order 0 to 2 or more within six processes (order $r0 after $n)" \
	test "${r0:-0}" -ge 2
check "page_price_ns=1048576: the same runs stay at order 0 ($r1048576 after $i)" \
	test -n "$r1048576" -a "${r1048576:-9}" = 0
# A fold moves an order at most once, and at that price only free steps
# move it: how far two scans take it depends on the folds that fall in
# them (2 to 7 measured on 6.12, the CI's loaded machine included), so
# the priced scan runs until order 3, six times at most, and the scan
# without a price until order 5 (6 the lowest seen after two).
# scan_until PRICE ORDER: loaded at order 0 with page_price_ns=PRICE,
# scans until the file's stream is at ORDER or above, six at most;
# prints the order and the scans
scan_until() {
	local n=0 o=0
	modprobe autofaultaround initial_order=0 page_price_ns="$1"
	while [ $n -lt 6 ] && [ "${o:-0}" -lt "$2" ]; do
		afa-work -p seq $seq >/dev/null
		wait_periods 1
		o=$(stream_class_col "$(fid $seq)" rodata order)
		n=$((n + 1))
	done
	rmmod autofaultaround
	echo "${o:-0} $n"
}
set -- $(scan_until 0 5)
o0=$1 n0=$2
set -- $(scan_until 1048576 3)
op=$1 n=$2
check "page_price_ns=0: a scan from order 0 grows to 5 or more within six scans (order $o0 after $n0)" \
	test "${o0:-0}" -ge 5
check "page_price_ns=1048576: a scan still grows, by free steps, to 3 or more within six scans (order $op after $n)" \
	test "${op:-0}" -ge 3

# New order bounds: a state outside them takes no step in the fold that
# pulls it inside (its evidence was gathered at its old order, and a
# step's clamp would judge it at the new one, traced as a move from the
# old order); the pull, untraced, drops it.  A sparse reader (a page in
# 16) at order 0; min_order 3 written right after a pass, whose tested
# faults then wait for the next fold (period_ms 1000), a batch being
# one of them.
modprobe autofaultaround initial_order=0 period_ms=1000 min_samples=1
afa-work -p stride -s 65536 -R 1 $seq >/dev/null
afa-work -p stride -s 65536 -R 1 $seq >/dev/null
ob=$(stream_class_col "$(fid $seq)" rodata order)
trace-cmd record -q -e autofaultaround:afa_order_change -o /tmp/bounds.dat \
	sh -c "afa-work -p stride -s 65536 -R 1 $seq >/dev/null; echo 3 >$P/min_order; sleep 3" >/dev/null
trace-cmd report -i /tmp/bounds.dat 2>/dev/null >/tmp/bounds.txt
below=$(grep "dev=$(devno $seq) ino=$(ino $seq) " /tmp/bounds.txt |
	grep -c 'afa_order_change:.*old_order=[0-2] ')
oa=$(stream_class_col "$(fid $seq)" rodata order)
rmmod autofaultaround
check "min_order 3 under a sparse reader at order $ob: no step from below it ($below traced), order $oa after" \
	test -n "$ob" -a "${ob:-9}" -lt 3 -a "$below" = 0 -a "$oa" = 3

# A lower period_ms brings forward the fold queued at the old one.  With
# classes=none no evidence kicks a fold: after a scan at period_ms 60000
# the next fold waits a minute; written 10, it runs at once (looked for
# once a second, 20 seconds at most: a slow guest's second is not the
# fold's).
modprobe autofaultaround period_ms=60000 classes=none
afa-work -p seq $seq >/dev/null
sleep 1
f0=$(periods)
echo 10 >$P/period_ms
i=0
f1=$f0
while [ "$f1" -le "$f0" ] && [ $i -lt 20 ]; do
	sleep 1
	f1=$(periods)
	i=$((i + 1))
done
rmmod autofaultaround
check "period_ms 60000 then 10: the fold queued at a minute runs long before it (folds $f0, then $f1 after $i s)" \
	test "$f1" -gt "$f0"

# A broken kernel contract: the module stops setting windows, says so
# once, and observes (the kernel's window from then on).
modprobe autofaultaround min_order=9 test_contract_mismatch=1
afa-work -p seq $seq >/dev/null
wait_periods 2
check_faults "contract mismatch: the kernel's window from then on" 1025 seq_faults
check "contract mismatch: stats show acting=0" \
	test "$(kv acting "$(head -n 1 $STATS)")" = 0
check "contract mismatch: logged once" \
	test "$(dmesg | grep -c 'do not match do_fault_around() as this module knows it')" = 1
rmmod autofaultaround

# A kernel whose contract the module does not know (test_contract_unknown
# takes this one as such): one log line at load, and it observes from
# the first fault (the kernel's window at every pinned order).
modprobe autofaultaround min_order=9 test_contract_unknown=1
check_faults "unknown contract: the kernel's window" 1025 seq_faults
check "unknown contract: stats show acting=0" \
	test "$(kv acting "$(head -n 1 $STATS)")" = 0
check "unknown contract: says why, once" \
	test "$(dmesg | grep -c "autofaultaround: kernel $(uname -r): the filemap_map_pages() window contract is known for .* only; observing, not setting windows")" = 1
rmmod autofaultaround
check "no kernel report after the control tests" dmesg_clean

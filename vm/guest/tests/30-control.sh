# SPDX-License-Identifier: GPL-2.0
# The controller (issue 4): windows per stream converge where the law says,
# react to phase changes and to parameter writes, and traces agree with
# the stats file.  Each workload repeats passes over one mapping, held two
# periods each so that its samples are checked.
. /guest/lib.sh

seq=/mnt/seq64
sparse=/mnt/sparse256
make_file $seq 64
[ -f $sparse ] || truncate -s 256M $sparse
cat $sparse >/dev/null
P=50
HOLD=100
load() {
	modprobe autofaultaround period_ms=$P sample_every=1 "$@"
}

# the static reference: fault_around_bytes at max_order, without the module
echo 2097152 >$FAB
static9=$(last_minflt "$(afa-work -S -p seq $seq)")
echo 65536 >$FAB

# sequential: reaches max_order, faults within 10% of static order 9
load
out=$(afa-work -S -p seq -n 30 -H $HOLD $seq)
flt=$(last_minflt "$out")
order=$(stream_col "$(ino $seq)" order)
echo "seq: stream order $order, last pass $flt faults, static order 9: $static9"
check "seq: the stream reaches max_order 9 (at $order)" test "$order" = 9
check "seq: class shared reaches max_order 9" test "$(stat_col shared order)" = 9
check "seq: minor faults within 10% of static max_order ($flt vs $static9)" \
	test $((flt * 10)) -le $((static9 * 11))
rmmod autofaultaround

# sparse: one page per 2 MiB reaches min_order (traced new=0)
load
trace-cmd record -q -e autofaultaround:afa_order_change -o /tmp/sparse.dat \
	sh -c "afa-work -S -p stride -n 30 -H $HOLD $sparse; cat $STATS >/tmp/stats.txt" \
	>/dev/null
trace-cmd report -i /tmp/sparse.dat 2>/dev/null >/tmp/sparse.txt
low=$(trace_orders /tmp/sparse.txt "$(ino $sparse)" | sort -n | head -n 1)
order=$(stream_col "$(ino $sparse)" order /tmp/stats.txt)
echo "sparse: lowest order $low, at the end $order"
check "sparse: the stream reaches min_order 0 (lowest $low)" test "$low" = 0
check "sparse: the stream ends within one order of min_order ($order)" \
	test -n "$order" -a "$order" -le 1
rmmod autofaultaround

# phase change on one mapping: sequential, then sparse, then sequential
load
trace-cmd record -q -e autofaultaround -o /tmp/phase.dat \
	afa-work -p seq -n 25 -p stride -n 60 -p seq -n 25 -H $HOLD $sparse \
	>/tmp/phase.out
trace-cmd report -i /tmp/phase.dat 2>/dev/null >/tmp/phase.txt
path=$(trace_orders /tmp/phase.txt "$(ino $sparse)" |
	awk 'BEGIN { s = 0 } s == 0 && $1 == 9 { s = 1 } s == 1 && $1 <= 1 { s = 2 }
	     s == 2 && $1 == 9 { s = 3 } END { print s }')
flt_seq1=$(kv minflt "$(awk '/^phase=0 pass=24 /' /tmp/phase.out)")
flt_seq2=$(kv minflt "$(awk '/^phase=2 pass=24 /' /tmp/phase.out)")
echo "phase change: $(trace_orders /tmp/phase.txt "$(ino $sparse)" | tr '\n' ' ')"
check "phase change: the window goes to 9, down to <= 1, back to 9 (reached step $path of 3)" \
	test "$path" = 3
[ "$path" = 3 ] ||
	awk -v ino="ino=$(ino $sparse)" '/afa_ctl_step/ && $0 ~ ino {
		for (i = 1; i <= NF; i++) if ($i ~ /^(faults|sampled|used|order|reason)=/) printf "%s ", $i
		print "" }' /tmp/phase.txt
check "phase change: sequential after sparse re-converges ($flt_seq2 vs $flt_seq1 faults)" \
	test $((flt_seq2 * 10)) -le $((flt_seq1 * 11))
rmmod autofaultaround

# mixed: both at once, in two processes, two files of class rodata; each
# run starts from a fresh module, so from the same class state
load
afa-work -p seq -n 40 -H $HOLD $seq >/dev/null
alone_seq=$(stream_col "$(ino $seq)" order)
rmmod autofaultaround
load
afa-work -p stride -n 40 -H $HOLD $sparse >/dev/null
alone_sparse=$(stream_col "$(ino $sparse)" order)
rmmod autofaultaround
# Each stream is read as soon as its own workload ends: the shorter one
# may otherwise sit idle long enough to be evicted (on a slow kernel).
load
(afa-work -p seq -n 40 -H $HOLD $seq >/dev/null; cat $STATS >/tmp/mixed-seq.txt) &
afa-work -p stride -n 40 -H $HOLD $sparse >/dev/null
cat $STATS >/tmp/mixed-sparse.txt
wait
mixed_seq=$(stream_col "$(ino $seq)" order /tmp/mixed-seq.txt)
mixed_sparse=$(stream_col "$(ino $sparse)" order /tmp/mixed-sparse.txt)
echo "mixed: seq $mixed_seq (alone $alone_seq), sparse $mixed_sparse (alone $alone_sparse)"
check "mixed: each mapping has its own window ($mixed_seq vs $mixed_sparse)" \
	test "$mixed_seq" -gt "$mixed_sparse"
check "mixed: seq within one order of alone" within "$mixed_seq" "$alone_seq" 1
check "mixed: sparse within one order of alone" within "$mixed_sparse" "$alone_sparse" 1
rmmod autofaultaround

# kp at run time shows in afa_ctl_step; the orders traced match stats.
# No rate weight (ref_faults_per_s=0) and max_order 5 (512 faults a
# pass): every step at any speed has its samples and a full-weight error.
load ref_faults_per_s=0 max_order=5
trace-cmd record -q -e autofaultaround -o /tmp/kp.dat sh -c "
	afa-work -S -p seq -n 6 -H $HOLD $seq
	echo 2048 >/sys/module/autofaultaround/parameters/kp
	afa-work -S -p seq -n 6 -H $HOLD $seq
	cat $STATS >/tmp/stats.txt" >/dev/null
trace-cmd report -i /tmp/kp.dat 2>/dev/null >/tmp/kp.txt
check "a kp write is traced (afa_param name=kp old=512 new=2048)" \
	grep -q 'afa_param: *name=kp old=512 new=2048' /tmp/kp.txt
# P = kp * error / 1024 in each step that computed its terms (not held
# for samples, probing or in the deadband), at full rate weight
pk=$(awk '/afa_param: *name=kp/ { after = 1 }
	/afa_ctl_step/ {
		for (i = 1; i <= NF; i++) { split($i, f, "="); v[f[1]] = f[2] }
		if (v["error"] != 0 && v["rate_weight"] == 1024 &&
		    v["reason"] ~ /^(pending|grow|shrink|saturated)$/) {
			k = int(v["p"] * 1024 / v["error"] + (v["p"] * v["error"] > 0 ? 0.5 : -0.5))
			if (after) a = k; else b = k
		}
	} END { print b + 0, a + 0 }' /tmp/kp.txt)
echo "effective kp in afa_ctl_step before and after the write: $pk"
check "afa_ctl_step shows P = kp * error, with kp 512 then 2048 ($pk)" \
	test "$pk" = "512 2048"
# every stream (slot) in the stats file shows the order of its last
# traced decision (afa_stream new, or afa_order_change)
cmp=$(awk '
	FNR == NR && /afa_order_change|afa_stream:/ {
		delete v
		for (i = 1; i <= NF; i++) { split($i, f, "="); v[f[1]] = f[2] }
		if (v["stream"] < 0) next
		if (v["action"] == "evict") delete last[v["stream"]]
		else last[v["stream"]] = ("new" in v) ? v["new"] : v["order"]
		next
	}
	FNR == NR { next }
	$1 == "stream" { for (i = 1; i <= NF; i++) col[$i] = i; on = 1; next }
	on && ($col["stream"] in last) {
		n++
		if (last[$col["stream"]] != $col["order"]) {
			bad++
			print "mismatch: " $0 " traced " last[$col["stream"]] >"/dev/stderr"
		}
	}
	END { printf "%d %d", n, bad }' /tmp/kp.txt /tmp/stats.txt)
check "traced orders match the stats file for every stream (compared, mismatched: $cmp)" \
	test "${cmp% *}" -gt 0 -a "${cmp#* }" = 0
rmmod autofaultaround

# invalid parameter writes fail with EINVAL and change nothing
load
P_DIR=/sys/module/autofaultaround/parameters
before=$(grep -H . $P_DIR/* | sort)
bad=0
for w in "kp 99999" "ki -1" "setpoint 0" "setpoint 1024" "min_order 10" \
	"max_order 10" "period_ms 0" "period_ms 5" "sample_every 0" \
	"ewma_shift 17" "max_step 0" "enabled 2" "classes bogus" \
	"initial_order 12" "kp abc" "hysteresis 512"; do
	set -- $w
	err=$( (echo "$2" >$P_DIR/$1) 2>&1)
	case "$err" in
	*"Invalid argument"*) ;;
	*) echo "write $1=$2 was not rejected with EINVAL: '$err'"; bad=1 ;;
	esac
done
check "max_order 3 is accepted" sh -c "echo 3 >$P_DIR/max_order"
err=$( (echo 4 >$P_DIR/min_order) 2>&1)
case "$err" in *"Invalid argument"*) ;; *) echo "min_order 4 > max_order 3 accepted"; bad=1 ;; esac
echo 9 >$P_DIR/max_order
after=$(grep -H . $P_DIR/* | sort)
check "16 invalid writes and min_order > max_order fail with EINVAL" test $bad = 0
check "rejected writes change no parameter" test "$before" = "$after"
check "a rejected write is logged with the parameter's name" \
	sh -c "dmesg | grep -q 'autofaultaround: rejected kp=99999: '"
rmmod autofaultaround

check "fault_around_bytes is back at 65536 after the controller tests" \
	test "$(cat $FAB)" = 65536
check "dmesg has no kernel report after the controller tests" dmesg_clean

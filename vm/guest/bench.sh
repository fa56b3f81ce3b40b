# SPDX-License-Identifier: GPL-2.0
# 'make bench', guest side: three families of workloads at static
# windows with the module unloaded and with the module loaded, each
# workload's configurations interleaved round-robin within each
# repetition, then the probe overhead, then one traced adaptive run.
# The families: held (below: the seeds' workloads, many passes in one
# process, each holding its mapping), fresh (bench-fresh.sh: every run a
# new process) and real (bench-real.sh: Debian's own programs in the
# root image on /dev/vdb).  Results are console lines for
# scripts/bench-report.sh:
#
#   BENCH wl=WORKLOAD cfg=oN|afa rep=R minflt=N ns=N lines=N
#   BENCH-RUN fam=fresh|real wl=WORKLOAD cfg=oN|afa rep=R run=I starts=N minflt=N majflt=N ns=N wall_ns=N
#   BENCH-REAL-PREP wl=WORKLOAD ...: the real workloads' cache-filling runs
#   BENCH-OVH win=BYTES cfg=off|afa0|afacn|afacnf rep=R minflt=N ns=N lines=N fab=BYTES
#   BENCH-STATE wl=WORKLOAD rep=R what=class|stream name=CLASS[/FILE] [lane=N] order=N faults=N
#   BENCH-FOLDS wl=WORKLOAD rep=R folds=N kicked=N  (the module's, at the end of a block)
#   BENCH-INFO ... page=BYTES table_pages=N base=oN ...: parameters
#   BENCH-MARK, BENCH-TRACE-OUT: phases, output
#   BENCH-TRACE <trace-cmd report line: afa_order_change, afa_stream, or
#               afa_ctl_step of a class or of the two files' streams>
#   BENCH-INO ino=N name=NAME
#
# cfg=oN: fault_around_bytes = PAGE << N (orders are of this kernel's
# pages), module unloaded; the baseline is the kernel's default window,
# 65536 bytes (o4 with 4 KiB pages, o0 with 64 KiB pages, where it is one
# page and fault-around is off), and runs twice per repetition.  cfg=afa:
# 'modprobe autofaultaround' with its defaults at the kernel default
# window; where that is one page, inside the documented opt-in
# (afa-fault-around raise before, restore after: the admin guide's
# modprobe.d lines), without which the module cannot act.  The overhead
# family is for 4 KiB pages only, the traced run needs trace-cmd.  In the
# held family every configuration runs the same command:
# WARM passes, each holding its mapping one period so that the module can
# check its samples, then the measured ones; only those are reported.
# Kernel command line knobs: bench_reps=N, bench_only=a,b,... (families
# held, fresh, real; workloads; overhead, trace), bench_cfgs=o4,afa,...
# (the configurations of a repetition, for trying the harness),
# bench_warm=N, bench_warm_exec=N, bench_fresh_procs=N,
# bench_fresh_learn=N, bench_real_runs=N, bench_real_make_runs=N,
# bench_real_learn=N, bench_real_reps=N, bench_clock=icount|wall (set by
# run.sh).
. /guest/lib.sh

REPS=${bench_reps:-5}
ONLY=${bench_only:-}
WARM=${bench_warm:-16}		# warm-up passes (afa-work)
WARM_EXEC=${bench_warm_exec:-3}	# warm-up batches (afa-exec)
# ms a pass holds its mapping: the module checks a sample at the first
# period end (200 ms) at least half a period after taking it, so within
# 300 ms: before the next pass maps the same addresses again, whose
# fault-around would show it as used
HOLD=300
EXEC_HOLD=500			# ms a child lives after its touches

SEQ=/mnt/seq64
SPARSE=/mnt/sparse1g
EXE=/mnt/afa-exec
# one entry per measurement of a repetition, the baseline twice: set
# below (default_cfgs) once the page size is known
CFGS=$(echo "${bench_cfgs:-}" | tr , " ")
WORKLOADS="seq-t1 seq-t2 rand-t1 rand-t2 sparse2m-t1 sparse2m-t2 sparse16m-t1 sparse16m-t2 mixed exec"

say() {
	echo "bench: $*"
}

want() {
	[ -z "$ONLY" ] && return 0
	case ",$ONLY," in *",$1,"*) return 0 ;; esac
	return 1
}

# want_wl FAMILY WL: the workload is selected, by its name or its
# family's (held, fresh, real)
want_wl() {
	[ -z "$ONLY" ] && return 0
	case ",$ONLY," in *",$1,"* | *",$2,"*) return 0 ;; esac
	return 1
}

. /guest/bench-fresh.sh
. /guest/bench-real.sh

# order_of N: log2 of N, a power of two
order_of() {
	o=0
	while [ $((1 << o)) -lt "$1" ]; do
		o=$((o + 1))
	done
	echo $o
}

# default_cfgs: the configurations of a repetition.  4 KiB pages: the
# orders to 6 and 8 (1 MiB); other page sizes: every order the kernel
# accepts, up to one page table (64 KiB pages: 0 to 5 on radix, whose
# table holds 32 pages).  The baseline first and again after the module.
default_cfgs() {
	if [ "$PAGE" = 4096 ]; then
		echo "o4 o0 o1 o2 o3 afa o4 o5 o6 o8"
		return
	fi
	awk -v b="${BASE#o}" -v m="$(order_of "$TABLE")" 'BEGIN {
		for (o = 0; o <= m; o++) if (o != b) rest[n++] = o
		printf "o%d", b
		for (i = 0; i < n; i++) {
			if (i == int(n / 2)) printf " afa o%d", b
			printf " o%d", rest[i]
		}
		print ""
	}'
}

# module_load ARGS...: modprobe autofaultaround ARGS, inside the opt-in
# where the kernel's default window is one page; module_unload: rmmod,
# then the opt-in's restore.  afa-fault-around logs both to the kernel
# log (the console gets the dmesg dump).
module_load() {
	if [ -n "$OPTIN" ]; then
		afa-fault-around raise 2>/dev/null || return 1
	fi
	modprobe autofaultaround "$@"
}

module_unload() {
	rmmod autofaultaround || return 1
	[ -z "$OPTIN" ] || afa-fault-around restore 2>/dev/null
}

# work K ARGS... FILE: afa-work, WARM passes and K more; prints the
# last K.
work() {
	k=$1
	shift
	afa-work -H $HOLD "$@" -n $((WARM + k)) | tail -n "$k"
}

# The workloads: print the afa-work/afa-exec lines that are measured.
wl_run() {
	case $1 in
	seq-t*) work 2 -p seq -t "${1#*-t}" $SEQ ;;
	rand-t*) work 2 -p rand -t "${1#*-t}" $SEQ ;;
	sparse2m-t*) work 2 -p stride -s 2097152 -t "${1#*-t}" $SPARSE ;;
	sparse16m-t*) work 8 -p stride -s 16777216 -t "${1#*-t}" $SPARSE ;;
	mixed)
		# two processes, two files, one class (rodata), at once
		work 2 -p seq $SEQ >/tmp/mixed.seq &
		work 2 -p stride -s 2097152 $SPARSE >/tmp/mixed.sparse
		wait
		cat /tmp/mixed.seq /tmp/mixed.sparse
		;;
	exec)
		# build-like: batches of 8 execs of a 17 MiB static binary on
		# ext4; each touches 1/4 of its 8 MiB of padded text and 8 MiB
		# of rodata in runs of 8 pages.  One at a time: under icount a
		# second busy vCPU would add its instructions to the first's
		# clock (see docs/benchmarks.md).
		afa-exec -c 8 -j 1 -H $EXEC_HOLD -n $((WARM_EXEC + 2)) $EXE |
			tail -n 2
		;;
	esac
}

# sum_lines: total minflt and ns of afa-work/afa-exec lines
sum_lines() {
	awk '{ for (i = 1; i <= NF; i++) {
			split($i, f, "=")
			if (f[1] == "minflt") m += f[2]
			if (f[1] == "ns") n += f[2]
		}
		c++
	} END { printf "minflt=%d ns=%d lines=%d", m, n, c }'
}

# state WL REP: the orders the module holds at the end of a run, by
# class and for the streams of the bench's files (their inode numbers on
# the test disk's device: the initramfs has files of the same numbers)
state() {
	[ -r $STATS ] || return 0
	awk -v wl="$1" -v rep="$2" -v inos="$INOS" -v dev="$TESTDEV" '
		BEGIN { n = split(inos, a, " "); for (i = 1; i <= n; i += 2) name[a[i]] = a[i + 1] }
		$1 == "class" { for (i = 1; i <= NF; i++) cc[$i] = i; mode = "c"; next }
		$1 == "stream" { for (i = 1; i <= NF; i++) sc[$i] = i; mode = "s"; next }
		$1 == "#" && $2 ~ /^folds=/ {
			printf "BENCH-FOLDS wl=%s rep=%s %s %s\n", wl, rep, $2, $3 }
		/^#/ { next }
		mode == "c" && $cc["faults"] > 0 {
			printf "BENCH-STATE wl=%s rep=%s what=class name=%s order=%s faults=%s\n",
				wl, rep, $1, $cc["order"], $cc["faults"] }
		mode == "s" && ($sc["ino"] in name) && $sc["dev"] == dev {
			printf "BENCH-STATE wl=%s rep=%s what=stream name=%s/%s lane=%s order=%s faults=%s grow=%s trial=%s\n",
				wl, rep, $sc["class"], name[$sc["ino"]], $sc["lane"], $sc["order"], $sc["faults"], $sc["grow%"], $sc["trial%"] }
	' $STATS
}

# cfg_enter CFG: set a configuration up: the window, or the module
# loaded with its defaults at the kernel default window
cfg_enter() {
	MODE=static
	case $1 in
	afa)
		MODE=afa
		echo 65536 >$FAB
		module_load || fail "bench: modprobe autofaultaround"
		;;
	afaw)
		# kept loaded across blocks, workloads and repetitions, as an
		# administrator's module is: each block starts from what the
		# ones before learned; enabled=0 (probes detached) between
		rep_afaw=1
		echo 65536 >$FAB
		if [ -d /sys/module/autofaultaround ]; then
			echo 1 >/sys/module/autofaultaround/parameters/enabled ||
				fail "bench: enabled=1 for afaw"
		else
			module_load || fail "bench: modprobe autofaultaround for afaw"
		fi
		;;
	afa0)
		# observing only: the probe's cost at the kernel's window (at
		# the opt-in's two pages where the default is one page)
		MODE=afa
		echo 65536 >$FAB
		module_load enabled=0 ||
			fail "bench: modprobe autofaultaround enabled=0"
		;;
	afad*)
		# its defaults but the law's deadband: what that tunable
		# decides on the workloads
		MODE=afa
		echo 65536 >$FAB
		module_load deadband=${1#afad} ||
			fail "bench: modprobe autofaultaround deadband=${1#afad}"
		;;
	afap*)
		# pinned at one order: the module's cost at that static window
		MODE=afa
		echo 65536 >$FAB
		o=${1#afap}
		module_load min_order=$o max_order=$o initial_order=$o ||
			fail "bench: modprobe autofaultaround pinned at $o"
		;;
	o*)
		# past one page table the kernel refuses the write
		echo $((PAGE << ${1#o})) >$FAB ||
			fail "bench: fault_around_bytes $((PAGE << ${1#o})) refused for $1"
		;;
	esac
}

# cfg_leave CFG WL REP: the module's orders, unload it; the default window
cfg_leave() {
	case $1 in
	afaw)
		state "$2" "$3"
		echo 0 >/sys/module/autofaultaround/parameters/enabled ||
			fail "bench: enabled=0 after afaw"
		;;
	afa*)
		[ "$1" != afa ] || state "$2" "$3"
		module_unload || fail "bench: rmmod autofaultaround"
		;;
	esac
	echo 65536 >$FAB
}

# measure WL CFG REP: one result line
measure() {
	cfg_enter "$2"
	out=$(wl_run "$1")
	cfg_leave "$2" "$1" "$3"
	echo "BENCH wl=$1 cfg=$2 rep=$3 $(echo "$out" | sum_lines)"
}

# overhead REP: probe cost per fault, module not loaded vs loaded with
# enabled=0 (the probes detached) at the same window; sequential 64 MiB,
# so every page faults at 4096 and every fault calls map_pages at 8192.
# afacn loads it with classes=none: the probes attached, counting,
# steering nothing (what enabled=0 cost before it detached them);
# afacnf the same attached by fprobe or kprobe (direct_call=0), to
# compare the hooks.
overhead() {
	for cfg in off afa0 off afacn afacnf; do
		case $cfg in
		afa0) modprobe autofaultaround enabled=0 ;;
		afacn) modprobe autofaultaround classes=none ;;
		afacnf) modprobe autofaultaround classes=none direct_call=0 ;;
		esac || fail "bench: modprobe autofaultaround for $cfg"
		for win in 4096 8192 65536; do
			echo $win >$FAB
			out=$(afa-work -p seq -n 4 $SEQ)
			echo "BENCH-OVH win=$win cfg=$cfg rep=$1 $(echo "$out" | sum_lines) fab=$(cat $FAB)"
		done
		echo 65536 >$FAB
		[ $cfg != off ] && rmmod autofaultaround
	done
}

# mark TEXT: a phase boundary, in the trace and on the console
mark() {
	echo "bench-mark: $*" >/sys/kernel/tracing/trace_marker 2>/dev/null
	echo "BENCH-MARK t=$(cut -d' ' -f1 /proc/uptime) what=$*"
}

# Under trace-cmd record (below): the traced adaptive run itself.
if [ "$1" = traced ]; then
	MODE=afa
	mark "mixed start"
	wl_run mixed
	mark "exec start"
	wl_run exec
	mark "end"
	exit 0
fi

# the page size, the pages of a page table (the largest window the
# kernel accepts), the baseline's order and, unless given, the
# configurations; the opt-in where the default window is one page
PAGE=$(page_bytes)
TABLE=$(table_pages)
BASE=o$(order_of $((65536 / PAGE)))
[ -n "$CFGS" ] || CFGS=$(default_cfgs)
OPTIN=
[ "$PAGE" -lt 65536 ] || OPTIN=1

# the test disk's files, unless only real programs run
if [ -z "$ONLY" ] || echo ",$ONLY," | grep -q ',[^r]'; then
	say "preparing files"
	make_file $SEQ 64
	[ -f $SPARSE ] || truncate -s 1G $SPARSE
	cat $SPARSE >/dev/null
	cp /usr/bin/afa-exec $EXE
	cat $EXE >/dev/null
fi
TESTDEV=$(awk '$5 == "/mnt" { print $3 }' /proc/self/mountinfo)
INOS="$(ino $SEQ 2>/dev/null) seq64 $(ino $SPARSE 2>/dev/null) sparse1g $(ino $EXE 2>/dev/null) afa-exec"
for f in $SEQ $SPARSE $EXE; do
	[ -e $f ] && echo "BENCH-INO ino=$(ino $f) name=${f#/mnt/}"
done
REAL_OK=
if [ -z "$ONLY" ] || echo ",$ONLY," | grep -q ',real'; then
	say "preparing the root image"
	real_prepare
fi
echo "BENCH-INFO reps=$REPS warm=$WARM warm_exec=$WARM_EXEC hold_ms=$HOLD exec_hold_ms=$EXEC_HOLD fresh_procs=$FRESH_PROCS fresh_learn=$FRESH_LEARN real_reps=$REAL_REPS real_runs=$REAL_RUNS real_make_runs=$REAL_MAKE_RUNS real_learn=$REAL_LEARN clock=${bench_clock:-icount} page=$PAGE table_pages=$TABLE base=$BASE arch=$(uname -m) kernel=$(uname -r) cpus=$(nproc) mem_kb=$(awk '/MemTotal/ { print $2 }' /proc/meminfo) clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
[ "$(cat $FAB)" = 65536 ] || fail "bench: kernel default fault_around_bytes is not 65536"
# afaw keeps the module loaded from its first block to the end: nothing
# else in the boot may load or unload it
if echo " $CFGS " | grep -q ' afaw '; then
	echo " $CFGS " | grep -q ' afa[0-9pd]* ' &&
		fail "bench: afaw keeps the module loaded; it cannot share a boot with afa, afa0, afapN or afadN, which load and unload it"
	case ",${ONLY:-held}," in
	*,held,* | *,overhead,* | *,trace,* | *,seq-t* | *,rand-t* | *,sparse2m-t* | *,sparse16m-t* | *,mixed,* | *,exec,*)
		fail "bench: afaw runs with BENCH_ONLY=fresh,real (or their workloads) only: held, overhead and trace load the module themselves"
		;;
	esac
fi

t0=$(cut -d. -f1 /proc/uptime)
rep=0
n=$(echo $CFGS | wc -w)
while [ $rep -lt "$REPS" ]; do
	# rotate the configurations by three places per repetition, so that
	# none always runs first or last, nor always right after the same one
	cfgs=$(echo $CFGS | awk -v s=$((rep * 3 % n)) '{
		for (i = 0; i < NF; i++) printf "%s ", $((i + s) % NF + 1) }')
	for wl in $WORKLOADS; do
		want_wl held $wl || continue
		say "repetition $((rep + 1)) of $REPS: $wl"
		for cfg in $cfgs; do
			measure $wl $cfg $rep
		done
	done
	for wl in $FRESH_WORKLOADS; do
		want_wl fresh $wl || continue
		say "repetition $((rep + 1)) of $REPS: $wl"
		for cfg in $cfgs; do
			fresh_block $wl $cfg $rep
		done
	done
	for wl in $REAL_WORKLOADS; do
		[ -n "$REAL_OK" ] && [ $rep -lt "$REAL_REPS" ] && want_wl real $wl || continue
		say "repetition $((rep + 1)) of $REPS: $wl"
		for cfg in $cfgs; do
			real_block $wl $cfg $rep
		done
	done
	if want overhead; then
		if [ "$PAGE" = 4096 ]; then
			overhead $rep
		elif [ $rep = 0 ]; then
			say "overhead: for 4 KiB pages only (its windows are 4096, 8192 and 65536 bytes), not run with $PAGE-byte pages"
		fi
	fi
	rep=$((rep + 1))
	[ -z "${rep_afaw:-}" ] || [ "$rep" -lt "$REPS" ] ||
		module_unload || fail "bench: rmmod autofaultaround after afaw"
	say "repetition $rep of $REPS done at $(($(cut -d. -f1 /proc/uptime) - t0)) s (guest clock)"
done

# One adaptive run of the mixed and the exec workload, traced: the order
# over time per class and per stream.
if want trace && ! command -v trace-cmd >/dev/null; then
	say "traced adaptive run: no trace-cmd in this VM, not run"
elif want trace; then
	say "traced adaptive run"
	echo 65536 >$FAB
	module_load || fail "bench: modprobe autofaultaround"
	trace-cmd record -q -o /tmp/bench.dat \
		-e autofaultaround:afa_order_change \
		-e autofaultaround:afa_stream \
		-e autofaultaround:afa_ctl_step \
		sh /guest/bench.sh traced >/tmp/traced.out 2>&1
	state trace 0
	module_unload
	sed '/^BENCH/!s/^/BENCH-TRACE-OUT /' /tmp/traced.out
	# the law's steps of the classes and of the two files' streams only:
	# the exec children's are many
	trace-cmd report -i /tmp/bench.dat 2>/dev/null |
		grep -E "afa_order_change|afa_stream:|bench-mark|afa_ctl_step:.* (pid=0|ino=$(ino $SEQ)|ino=$(ino $SPARSE)) " |
		sed 's/^ */BENCH-TRACE /'
fi
say "done"

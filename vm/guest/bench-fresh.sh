# SPDX-License-Identifier: GPL-2.0
# 'make bench', the fresh-processes family; sourced by bench.sh.
#
# Every run is a new process that maps a file, touches it and exits: no
# holds, no sleeps, nothing that waits for the module.  A block is one
# configuration of one workload in one repetition: the window is set (or
# the module loaded) once, FRESH_PROCS processes run one after the other
# (each workload's process, or pair of processes, started by afa-run),
# then the module is unloaded.  The module's learning is per file and
# must outlive processes, so it stays loaded across the block; the first
# FRESH_LEARN processes of a block are reported apart (learning) from
# the rest.  Static windows run the very same block.
#
#   BENCH-RUN fam=fresh wl=WL cfg=CFG rep=R run=I starts=N minflt=N majflt=N ns=N wall_ns=N
#
# ns is the CPU time (user + system) of the run's processes from
# getrusage(RUSAGE_CHILDREN), so it includes their exec, mmap, faults,
# munmap and exit; wall_ns is from the first start to the last exit.

FRESH_PROCS=${bench_fresh_procs:-12}
FRESH_LEARN=${bench_fresh_learn:-4}
FRESH_WORKLOADS="fresh-seq fresh-rand fresh-sparse fresh-mixed fresh-exec"

# fresh_run WL: FRESH_PROCS runs of the workload, one afa-run line each
fresh_run() {
	case $1 in
	fresh-seq)
		# one byte of every page of the cached 64 MiB file, in order
		afa-run -n "$FRESH_PROCS" afa-work -p seq $SEQ
		;;
	fresh-rand)
		# every page of the same file in a random order (drawn by the
		# process before it touches)
		afa-run -n "$FRESH_PROCS" afa-work -p rand $SEQ
		;;
	fresh-sparse)
		# one page per 2 MiB of the cached 1 GiB file: 512 touches
		afa-run -n "$FRESH_PROCS" afa-work -p stride -s 2097152 $SPARSE
		;;
	fresh-mixed)
		# two processes at once, two files of one class (rodata)
		afa-run -n "$FRESH_PROCS" afa-work -p seq $SEQ :: \
			afa-work -p stride -s 2097152 $SPARSE
		;;
	fresh-exec)
		# one exec of the 17 MiB static binary, touching a quarter of
		# its 8 MiB of padded text and of its 8 MiB of rodata, in runs
		# of 8 pages, then exiting
		afa-run -n "$FRESH_PROCS" $EXE --child -f 25 -R 8
		;;
	esac
}

# fresh_block WL CFG REP: one block, its BENCH-RUN lines
fresh_block() {
	cfg_enter "$2"
	out=$(fresh_run "$1")
	cfg_leave "$2" "$1" "$3"
	echo "$out" | sed -n "s/^run=/BENCH-RUN fam=fresh wl=$1 cfg=$2 rep=$3 run=/p"
}

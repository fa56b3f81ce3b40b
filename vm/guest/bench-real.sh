# SPDX-License-Identifier: GPL-2.0
# 'make bench', the real-programs family; sourced by bench.sh.
#
# Everyday programs nobody here wrote (Debian's make, gcc, python3, perl,
# git, find, xargs, grep, ls, cat, sed, dash), run from the Debian root
# filesystem of scripts/rootfs.sh, which the host attaches as the second
# disk (copy-on-write: the cached image is never written).  afa-run, from
# the initramfs, chroots into it and runs each workload; the module and
# its tools stay in the initramfs.  A block is one configuration of one
# workload in one repetition: the window is set (or the module loaded)
# once, REAL_RUNS runs follow (real-make: REAL_MAKE_RUNS), then the
# module is unloaded; the first REAL_LEARN runs of a block are reported
# apart (learning).
#
#   BENCH-RUN fam=real wl=WL cfg=CFG rep=R run=I starts=N minflt=N majflt=N ns=N wall_ns=N
#
# ns is the CPU time (user + system) of every process of the run,
# wall_ns the elapsed time; minflt their minor faults.

REAL_RUNS=${bench_real_runs:-3}
REAL_LEARN=${bench_real_learn:-1}
# a build takes about 1.4 s of guest time, ten times any other run: two
# runs a block, the first of them learning, keep the family's time down
REAL_MAKE_RUNS=${bench_real_make_runs:-2}
# the family runs in the first REAL_REPS repetitions only (at most 3 by
# default): its runs are long, and their spread under the instruction
# clock small (docs/benchmarks.md)
REAL_REPS=${bench_real_reps:-$((REPS < 3 ? REPS : 3))}
REAL_WORKLOADS="real-make real-python real-perl real-git-status real-git-log real-find-grep real-exec real-git-archive"
ROOT=/real

# real_run WL N: N runs of the workload, one afa-run line each
real_run() {
	n=$2
	case $1 in
	real-make)
		# a 4-file C project: make -j2 with gcc -O2, from clean
		# (the clean is not measured)
		afa-run -r $ROOT -C /bench/cproj -n "$n" -s 'make -s clean' \
			make -s -j2
		;;
	real-python)
		# interpreter start-up
		afa-run -r $ROOT -n "$n" python3 -c pass
		;;
	real-perl)
		afa-run -r $ROOT -n "$n" -k 4 perl -e 1
		;;
	real-git-status)
		# git status over the standard library's 500-odd files (git
		# mmaps its index)
		afa-run -r $ROOT -C /bench/repo -n "$n" git status --porcelain
		;;
	real-git-log)
		# the last 10 commits with the files each changed: commits,
		# trees and blobs from the mmapped pack
		afa-run -r $ROOT -C /bench/repo -n "$n" git log --stat -n 10
		;;
	real-find-grep)
		# a shell pipeline over a source tree
		afa-run -r $ROOT -n "$n" -i sh -c \
			"find /usr/lib/python3.11 -name '*.py' | xargs grep -l 'import os' | wc -l"
		;;
	real-exec)
		# an exec loop of common binaries from a shell script (twice
		# round: TCG pays dearly for exec-heavy runs in host time)
		afa-run -r $ROOT -n "$n" sh -c \
			'for i in 1 2; do ls -l /usr/bin >/dev/null; cat /etc/passwd >/dev/null; /bin/true; sed -n 1p /etc/passwd >/dev/null; done'
		;;
	real-git-archive)
		# the long-lived scan: one process reads every blob of HEAD
		# through git's mapping of the pack
		afa-run -r $ROOT -C /bench/repo -n "$n" git archive HEAD
		;;
	esac
}

# real_prepare: mount the root image and run every workload once at the
# kernel default, to fill the page cache (and let git refresh its index)
real_prepare() {
	REAL_OK=
	if [ ! -b /dev/vdb ]; then
		fail "bench: no root image disk (/dev/vdb): the real-programs family needs scripts/rootfs.sh's image"
		return 1
	fi
	mkdir -p $ROOT
	mount -t ext4 /dev/vdb $ROOT || { fail "bench: mount the root image"; return 1; }
	mount -t proc proc $ROOT/proc
	mount -t tmpfs tmpfs $ROOT/tmp
	mount -t devtmpfs devtmpfs $ROOT/dev
	echo 65536 >$FAB
	for wl in $REAL_WORKLOADS; do
		want_wl real "$wl" || continue
		out=$(real_run "$wl" 1 2>&1) || { fail "bench: $wl does not run: $out"; return 1; }
		echo "BENCH-REAL-PREP wl=$wl ${out#run=0 }"
	done
	REAL_OK=1
}

# real_block WL CFG REP: one block, its BENCH-RUN lines
real_block() {
	n=$REAL_RUNS
	[ "$1" = real-make ] && n=$REAL_MAKE_RUNS
	cfg_enter "$2"
	out=$(real_run "$1" "$n")
	cfg_leave "$2" "$1" "$3"
	echo "$out" | sed -n "s/^run=/BENCH-RUN fam=real wl=$1 cfg=$2 rep=$3 run=/p"
}

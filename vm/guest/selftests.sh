# SPDX-License-Identifier: GPL-2.0
# The kernel's own mm selftests (make vmtest-selftests), run several
# times in one boot: without the module, then with it loaded at pinned
# windows and at its defaults.  A check per selftest and module run:
# its result (exit status, kselftest totals, the names of its failing
# cases) is the same as without the module.  Results of each run are in
# "selftest: RUN NAME ..." lines; the binaries are in /selftests
# (scripts/selftests-build.sh).
#
# Kernel command line: selftests_runs= (default "none order0 order9
# default"), selftests_only= (a space-free comma list of names: only
# those), selftests_timeout_scale= (multiply every timeout, for slower
# kernels).
. /guest/lib.sh

ST=/selftests
: "${selftests_runs:=none,order0,order9,default}"
: "${selftests_only:=}"
: "${selftests_timeout_scale:=1}"
OUT=/tmp/selftests
WORK=/mnt/selftests
SEQ=/mnt/seq64

# The selftests, in run_vmtests.sh's order: NAME TIMEOUT_S COMMAND...
# Left out, with the reasons, in docs/testing.md.
list() {
	t hugepage-mmap 60 ./hugepage-mmap
	t hugepage-shm 60 ./hugepage-shm
	t map_hugetlb 60 ./map_hugetlb
	t hugepage-mremap 60 ./hugepage-mremap
	t hugepage-vmemmap 60 ./hugepage-vmemmap
	t hugetlb-madvise 60 ./hugetlb-madvise
	t hugetlb_dio 60 ./hugetlb_dio
	t hugetlb_madv_vs_map 60 ./hugetlb_madv_vs_map
	t map_fixed_noreplace 60 ./map_fixed_noreplace
	t gup_longterm 120 ./gup_longterm
	t uffd-unit-tests 300 ./uffd-unit-tests
	t uffd-stress-anon 120 ./uffd-stress anon 20 16
	t uffd-stress-shmem 120 ./uffd-stress shmem 20 16
	t uffd-stress-shmem-private 120 ./uffd-stress shmem-private 20 16
	t compaction_test 120 ./compaction_test
	t map_populate 60 ./map_populate
	t mlock-random-test 120 ./mlock-random-test
	t mlock2-tests 60 ./mlock2-tests
	t mrelease_test 60 ./mrelease_test
	t mremap_test 120 ./mremap_test
	t mremap_dontunmap 60 ./mremap_dontunmap
	t madv_populate 60 ./madv_populate
	t memfd_secret 60 ./memfd_secret
	t protection_keys_64 60 ./protection_keys_64
	t soft-dirty 60 ./soft-dirty
	t pagemap_ioctl 120 ./pagemap_ioctl
	t cow 300 ./cow
	t khugepaged-anon 120 ./khugepaged madvise:anon
	t khugepaged-shmem 120 ./khugepaged madvise:shmem
	t transhuge-stress 60 ./transhuge-stress -d 10
	t mkdirty 60 ./mkdirty
	t mdwe_test 60 ./mdwe_test
	t mseal_test 60 ./mseal_test
	t seal_elf 60 ./seal_elf
	t droppable 60 ./droppable
	t memfd_test 120 ./memfd_test
	t mincore_selftest 60 ./mincore_selftest
	t test_cachestat 60 ./test_cachestat
}

# What run_vmtests.sh sets around some tests; undone after each.
setup() {
	case "$1" in
	hugepage-shm)
		SAVE="$(cat /proc/sys/kernel/shmmax) $(cat /proc/sys/kernel/shmall)"
		echo 268435456 >/proc/sys/kernel/shmmax
		echo 4194304 >/proc/sys/kernel/shmall
		;;
	mremap_test)
		# its 2 GiB PUD-aligned cases map 3 GiB: more than the guest's
		# RAM, which the heuristic overcommit refuses (it validates 4 MiB)
		SAVE=$(cat /proc/sys/vm/overcommit_memory)
		echo 1 >/proc/sys/vm/overcommit_memory
		;;
	hugetlb_madv_vs_map)
		echo 1 >/proc/sys/vm/nr_hugepages
		;;
	esac
}

undo() {
	case "$1" in
	hugepage-shm)
		set -- $SAVE
		echo "$1" >/proc/sys/kernel/shmmax
		echo "$2" >/proc/sys/kernel/shmall
		;;
	mremap_test)
		echo "$SAVE" >/proc/sys/vm/overcommit_memory
		;;
	hugetlb_madv_vs_map)
		pool_refill
		;;
	esac
}

hp() {
	awk -v k="HugePages_$1:" '$1 == k { print $2 }' /proc/meminfo
}

# pool_refill: the huge page pool back to NR_HUGEPAGES pages.  Growing
# it needs free 2 MiB blocks; after minutes of selftests the memory may
# be too fragmented for that without dropping the page cache and a
# compaction first, which are tried three times.
pool_refill() {
	n=0
	while :; do
		echo $NR_HUGEPAGES >/proc/sys/vm/nr_hugepages
		if [ "$(hp Total)" -ge $NR_HUGEPAGES ] || [ $n = 3 ]; then
			[ $n = 0 ] || echo "selftests: huge page pool: $(hp Total) of $NR_HUGEPAGES pages after $n compactions"
			return 0
		fi
		n=$((n + 1))
		echo 3 >/proc/sys/vm/drop_caches
		echo 1 >/proc/sys/vm/compact_memory
	done
}

# pool_check NAME: before a selftest, the pool is whole and free.  A
# short pool changes the hugetlb cases' results whatever the module does
# (gup_longterm's MAP_PRIVATE cases skip: "need more free huge pages"),
# so it is refilled; pages still in use are given 5 s to come back (an
# io_uring's buffers are unpinned by a worker after its process exits).
# A pool still short, or still in use (a selftest before left a hugetlb
# file or segment), fails the run, once a run.
pool_check() {
	[ "$(hp Total)" = $NR_HUGEPAGES ] || pool_refill
	n=0
	while [ "$(hp Free)" != "$(hp Total)" ] && [ $n -lt 5 ]; do
		sleep 1
		n=$((n + 1))
	done
	tot=$(hp Total) free=$(hp Free)
	[ "$tot" = $NR_HUGEPAGES ] && [ "$free" = $NR_HUGEPAGES ] && return 0
	[ "$POOL_FAILED" = "$RUN" ] && return 0
	POOL_FAILED=$RUN
	fail "selftests: $RUN: before $1, the huge page pool is $free free of $tot, not $NR_HUGEPAGES"
}

selected() {
	[ -z "$selftests_only" ] && return 0
	case ",$selftests_only," in
	*,"$1",*) return 0 ;;
	esac
	return 1
}

# result FILE RC: one line that says how the test ended: its exit status,
# its kselftest totals, its failing cases by name (numbers stripped)
result() {
	tot=$(grep -o 'Totals: pass:[0-9]* fail:[0-9]* xfail:[0-9]* xpass:[0-9]* skip:[0-9]* error:[0-9]*' "$1" | tail -n 1)
	nfail=$(grep '^not ok ' "$1" | sed 's/^not ok [0-9]* *//' | sort | md5sum | cut -c1-8)
	case "$2" in
	0) r=pass ;;
	4) r=skip ;;
	*) r=fail ;;
	esac
	echo "$r rc=$2 ${tot:-no-totals} notok=$(grep -c '^not ok ' "$1")/$nfail"
}

# cases FILE: the selftest's case results, numbers stripped
cases() {
	grep -E '^(not )?ok [0-9]' "$1" | sed -E 's/^(not )?ok [0-9]+ */\1ok /'
}

# t NAME TIMEOUT COMMAND...: run one selftest in the current run
t() {
	name=$1
	tmo=$(($2 * selftests_timeout_scale))
	shift 2
	selected "$name" || return 0
	o=$OUT/$RUN/$name
	pool_check "$name"
	setup "$name"
	rm -rf "$WORK"
	mkdir -p "$WORK"
	read -r t0 _ </proc/uptime
	cmd=$ST/${1#./}
	shift
	(cd "$WORK" && PATH=$ST:$PATH exec timeout "$tmo" "$cmd" "$@") \
		</dev/null >"$o.out" 2>&1
	rc=$?
	read -r t1 _ </proc/uptime
	undo "$name"
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	res=$(result "$o.out" $rc)
	echo "$res" >"$o.res"
	echo "selftest: $RUN $name $res ${secs}s"
	if [ "$RUN" = none ]; then
		# the baseline: show how it failed, once
		case "$res" in
		fail*)
			{
				grep -E '^not ok |Fail|FAIL|Bail out' "$o.out" | head -n 10
				echo "(last lines:)"
				tail -n 5 "$o.out"
			} | sed "s/^/selftest: $name: /"
			;;
		esac
		return 0
	fi
	base=$(cat $OUT/none/$name.res 2>/dev/null)
	if [ "$res" = "$base" ]; then
		pass "selftests: $name: same result with the module ($RUN) as without (${res%% *}, ${res#* })"
	else
		fail "selftests: $name: with the module ($RUN): $res; without: $base"
		grep -E '^(not ok|# (FAIL|ERROR))' "$o.out" | head -n 10 | sed "s/^/selftest: $RUN $name: /"
		# the cases that ended otherwise than in the baseline (skips
		# too: a skip's reason is on its line), numbers stripped; '#'
		# is a line no case has: busybox grep -f with an empty file
		# matches nothing, and -v would then print nothing
		{ echo '#'; cases $OUT/none/$name.out; } >"$o.base"
		cases "$o.out" | grep -vxF -f "$o.base" | head -n 10 |
			sed "s/^/selftest: $RUN $name: not in the baseline: /"
		echo "selftest: $RUN $name: huge pages $(hp Free) free of $(hp Total)"
	fi
}

# load RUN: the module as that run wants it; checks that the window it
# pins takes effect (a pass over a cached 64 MiB file: 16384 / window
# pages + 1 faults)
load() {
	rmmod autofaultaround 2>/dev/null
	case "$1" in
	none) return 0 ;;
	order0) args="min_order=0 max_order=0" want=16385 ;;
	order9) args="min_order=9 max_order=9 initial_order=9" want=33 ;;
	default) args= want= ;;
	*) fail "selftests: unknown run $1"; return 1 ;;
	esac
	modprobe autofaultaround $args
	if [ ! -d /sys/module/autofaultaround ]; then
		fail "selftests: $1: modprobe autofaultaround $args"
		return 1
	fi
	pass "selftests: $1: modprobe autofaultaround $args"
	[ -n "$want" ] || return 0
	# (the selftests before may have pushed the file out of the cache:
	# read it in again, so that no read-around hides the window)
	cat $SEQ >/dev/null
	got=$(kv minflt "$(afa-work -p seq $SEQ)")
	check "selftests: $1: the window is pinned (seq 64 MiB: $got faults, want $want +-4)" \
		within "$got" "$want" 4
}

make_file $SEQ 64
# hugetlb tests: 2 MiB pages, as many as run_vmtests.sh's 256 MiB maps
NR_HUGEPAGES=160
echo $NR_HUGEPAGES >/proc/sys/vm/nr_hugepages
# No address-space randomisation: mremap_test maps at addresses derived
# from an earlier mapping's with MAP_FIXED_NOREPLACE, and fails when a
# random layout has something there ("Failed to map dest preamble
# region: File exists": once in the four runs of a boot, in the
# baseline); the same layout in every run makes such results repeat.
echo 0 >/proc/sys/kernel/randomize_va_space
# shm_open() and O_TMPFILE tests want a tmpfs at /dev/shm
mkdir -p /dev/shm
grep -q ' /dev/shm ' /proc/mounts || mount -t tmpfs tmpfs /dev/shm
echo "selftests: THP enabled $(cat /sys/kernel/mm/transparent_hugepage/enabled), shmem_enabled $(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled)"
echo "selftests: runs $selftests_runs, $(grep HugePages_Total /proc/meminfo), binaries $(ls $ST | wc -l)"
for RUN in $(echo "$selftests_runs" | tr , ' '); do
	echo "--- selftests run $RUN"
	mkdir -p $OUT/$RUN
	read -r r0 _ </proc/uptime
	load "$RUN" || continue
	list
	if [ "$RUN" != none ]; then
		check "selftests: $RUN: the module is still loaded after the selftests" \
			test -d /sys/module/autofaultaround
		rmmod autofaultaround
	fi
	read -r r1 _ </proc/uptime
	echo "selftests: run $RUN took $(awk -v a="$r0" -v b="$r1" 'BEGIN { printf "%d", b - a }')s"
done
rm -rf "$WORK"
check "selftests: no kernel report" dmesg_clean

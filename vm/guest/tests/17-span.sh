# SPDX-License-Identifier: GPL-2.0
# The span a fault maps, measured (probe.c, afa_span_note()), against the
# window asked for.  On ext4 (small folios up to 6.17) a fault maps its
# window; on xfs (large folios) its window up to 6.17 and whole folios
# from 6.18; on tmpfs with huge=within_size a fault maps a 2 MiB folio whole
# with one PMD (filemap_map_pmd(), every kernel), whatever the window:
# the stats' span_kib shows what was mapped, window_kib what was asked.
# With 64 KiB pages the kernel's window is one page and map_pages runs
# only after the opt-in (16-fault-around-optin): the test raises it and
# puts it back.
. /guest/lib.sh

page=$(page_bytes)
orig=$(cat $FAB)
if [ "$orig" -le "$page" ]; then
	afa-fault-around raise
	echo "span: fault_around_bytes is one page of $page bytes: raised to $(cat $FAB) for the test"
fi
order=2
win_kib=$(((page << order) >> 10))
f=/mnt/span64
make_file $f 64
# tmpfs huge= needs transparent huge pages: not on PREEMPT_RT kernels
# (not built), nor on ppc64's hash MMU with 64 KiB pages under QEMU (no
# 16 MiB pages: the kernel leaves out /sys/kernel/mm/transparent_hugepage);
# a huge page is one PMD, 2 MiB with 4 KiB pages and on radix with 64 KiB
huge=/tmp/huge
thp=
if [ -d /sys/kernel/mm/transparent_hugepage ]; then
	mkdir -p $huge
	mount -t tmpfs -o huge=within_size,size=80m none $huge
	# i_size first: within_size allocates huge folios inside i_size only
	truncate -s 64M $huge/span64
	dd if=/dev/zero of=$huge/span64 bs=1M count=64 conv=notrunc status=none
	thp=$(awk '/^ShmemHugePages:/ { print $2 }' /proc/meminfo)
	echo "span: tmpfs huge=within_size file of 64 MiB, ShmemHugePages ${thp} kB"
fi

# pinned at one order, so that the window asked for is known; a kernel
# whose contract the module does not know keeps its own window (observe)
modprobe autofaultaround min_order=$order max_order=$order initial_order=$order
if [ "$(kv acting "$(head -n 1 $STATS)")" = 0 ]; then
	asked=$(($(cat $FAB) >> 10))
else
	asked=$win_kib
fi
afa-work -p seq $f >/dev/null
out=$(afa-work -p seq $f)
wait_periods 1
span=$(stream_class_col "$(fid $f)" rodata span_kib)
echo "span: ext4 scan: $(kv minflt "$out") faults, window asked $asked KiB, span_kib $span"
rel=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
if [ "$rel" -lt 6018 ]; then
	check "span: an ext4 scan maps the window asked a fault (span $span KiB, window $asked KiB)" \
		test "${span:-0}" -ge $((asked * 3 / 4)) -a "${span:-0}" -le $((asked * 5 / 4))
else
	# 6.18+: ext4's large folios are mapped whole (10-faults)
	check "span: on $(uname -r) an ext4 scan maps more than the window asked: its large folios (span $span KiB > $asked KiB)" \
		test "${span:-0}" -gt "$asked"
fi

# xfs: large folios on every kernel here; mapped whole from 6.18, within
# the window before (except PMD-sized ones)
modprobe xfs 2>/dev/null
if ! grep -qw xfs /proc/filesystems; then
	echo "span: this kernel has no xfs: xfs not measured"
elif ! mkdir -p /xfs || ! mount -t xfs /dev/vdb /xfs; then
	check "span: the xfs test disk /dev/vdb mounts" false
else
	make_file /xfs/span64 64
	afa-work -p seq /xfs/span64 >/dev/null
	out=$(afa-work -p seq /xfs/span64)
	wait_periods 1
	span=$(stream_class_col "$(fid /xfs/span64)" rodata span_kib)
	echo "span: xfs scan: $(kv minflt "$out") faults, window asked $asked KiB, span_kib $span"
	if [ "$rel" -lt 6018 ]; then
		check "span: an xfs scan maps at least the window asked a fault (span $span KiB, window $asked KiB)" \
			test "${span:-0}" -ge $((asked * 3 / 4))
	else
		check "span: on $(uname -r) an xfs scan maps more than the window asked: its large folios (span $span KiB > $asked KiB)" \
			test "${span:-0}" -gt "$asked"
	fi
	umount /xfs
fi

if [ -z "$thp" ]; then
	echo "span: no transparent huge pages on this kernel (not built, or not supported by its MMU): tmpfs huge= not measured"
else
	afa-work -p seq $huge/span64 >/dev/null
	# Its 33 faults take about a millisecond: both scans could end
	# before the fold that admits the new file, and count in the class
	# (CI saw the stream with 0 faults once, 325086a).  The span is the
	# stream's: let a fold admit the file first.
	wait_periods 1
	out=$(afa-work -p seq $huge/span64)
	flt=$(kv minflt "$out")
	wait_periods 1
	span=$(stream_class_col "$(fid $huge/span64)" shmem span_kib)
	echo "span: huge tmpfs scan: $flt faults, window asked $asked KiB, span_kib $span"
	awk '$1 == "stream" || $2 == "shmem"' $STATS
	if [ "${thp:-0}" -ge 32768 ]; then
		# a fault per huge folio, per window asked in the small
		# folios of a file that got only some huge ones (at least
		# half: a fragmented guest's), 32 more: 64 when all are huge
		h=$((thp / 2048))
		[ $h -gt 32 ] && h=32
		bound=$((h + (32 - h) * 2048 / asked + 32))
		check "span: a huge tmpfs scan takes a fault per 2 MiB folio, not per window ($flt <= $bound: $h of 32 folios huge)" \
			test "${flt:-99999}" -le $bound
		check "span: ... and the stats show the folio mapped, not the window (span $span KiB >= 1024, window $asked KiB)" \
			test "${span:-0}" -ge 1024
	else
		check "span: tmpfs huge=within_size gave the 64 MiB file huge folios (ShmemHugePages $thp kB >= 32768)" \
			false
	fi
	umount $huge
fi
rmmod autofaultaround
if [ "$orig" -le "$page" ]; then
	afa-fault-around restore
	check "span: fault_around_bytes is back at $orig bytes" test "$(cat $FAB)" = "$orig"
fi
check "no kernel report after the span tests" dmesg_clean

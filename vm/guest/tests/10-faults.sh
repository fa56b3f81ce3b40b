# SPDX-License-Identifier: GPL-2.0
# The harness measures faults: sequential reads of a cached 64 MiB ext4
# file take (file pages) / (window pages) minor faults, plus one, with
# the window at least one page: 16384 / 16 + 1 = 1025 at the default
# 64 KiB with 4 KiB pages, and 1024 / 1 + 1 with 64 KiB pages, where the
# default window is the faulting page alone.
. /guest/lib.sh

# afa_act_dir=/tmp: the file on tmpfs, for kernels whose ext4 maps large
# folios whole (6.18+); the ext4 file is then measured below
f=${afa_act_dir:-/mnt}/seq64
make_file $f 64
orig=$(cat $FAB)
page=$(page_bytes)
pages=$((67108864 / page))
seq_faults() {
	kv minflt "$(afa-work -p seq $f)"
}
echo "faults: page size $page bytes, $pages pages in the file, page table $(table_pages) pages"
check "kernel default fault_around_bytes is 65536" test "$orig" = 65536

for bytes in 65536 4096 1048576 $((page * $(table_pages))); do
	echo $bytes >$FAB
	win=$((bytes / page))
	[ $win -ge 1 ] || win=1
	want=$((pages / win + 1))
	echo "fault_around_bytes=$bytes want=$want"
	check_faults "seq 64 MiB at fault_around_bytes=$bytes takes $want minor faults" \
		$want seq_faults
done
echo "$orig" >$FAB

# From 6.18 filemap_map_pages() maps a large folio whole whatever the
# window asks: on such a kernel the ext4 file shows the span mapped, not
# the window, and no window (the kernel's or the module's) controls it.
if [ -n "${afa_act_dir:-}" ]; then
	g=/mnt/seq64
	make_file $g 64
	echo $page >$FAB
	got=$(kv minflt "$(afa-work -p seq $g)")
	echo "$orig" >$FAB
	echo "faults: ext4 at a one-page window: $got faults for $pages pages, $((pages / got)) pages mapped a fault"
	check "ext4 on $(uname -r) maps large folios whole: a one-page window takes fewer faults than 64 KiB windows would ($got < $((pages * page / 65536)))" \
		test "$got" -lt $((pages * page / 65536))
fi

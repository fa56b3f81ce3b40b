# SPDX-License-Identifier: GPL-2.0
# Misses: a read of an uncached ext4 file falls through to ->fault where
# fault-around found the page not read yet.  The probe sees no return: it
# learns each miss from the ->fault hook that follows its map_pages call
# on the same CPU.  Last of the suite: it drops the page cache, which
# stops fault-around on dirty tmpfs files for good (platform notes).
. /guest/lib.sh

f=/mnt/cold16
make_file $f 16
modprobe autofaultaround period_ms=100
sync
echo 1 >/proc/sys/vm/drop_caches
hdr=$(head -n 1 $STATS)
fm0=$(kv filemap_faults "$hdr")
um0=$(kv unmatched_faults "$hdr")
out=$(afa-work -S -p seq -H 300 $f)
wait_periods 2
hdr=$(head -n 1 $STATS)
fm=$(($(kv filemap_faults "$hdr") - fm0))
um=$(($(kv unmatched_faults "$hdr") - um0))
faults=$(stat_col shared faults)
hits=$(stat_col shared hits)
misses=$((faults - hits))
echo "cold: $out; stats: faults=$faults hits=$hits ->fault=$fm unmatched=$um"
check "cold read: misses and hits both seen ($misses misses, $hits hits)" \
	test "$misses" -gt 0 -a "$hits" -gt 0
# Nothing else reads ext4 meanwhile; unmatched ->fault calls are those of
# tmpfs (program data copied on write), shown for information.
check "cold read: every filemap ->fault is a miss of the file ($misses misses, $fm ->fault calls)" \
	within "$misses" "$fm" 2
rmmod autofaultaround

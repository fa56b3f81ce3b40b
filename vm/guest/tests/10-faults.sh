# SPDX-License-Identifier: GPL-2.0
# The harness measures faults: sequential reads of a cached 64 MiB ext4
# file take 16384 / (window pages) minor faults, plus one.
. /guest/lib.sh

f=/mnt/seq64
make_file $f 64
orig=$(cat $FAB)
check "kernel default fault_around_bytes is 65536" test "$orig" = 65536

for bytes in 65536 4096 1048576; do
	echo $bytes >$FAB
	want=$((16384 / (bytes / 4096) + 1))
	out=$(afa-work -p seq $f)
	got=$(kv minflt "$out")
	echo "fault_around_bytes=$bytes want=$want $out"
	check "seq 64 MiB at fault_around_bytes=$bytes takes $want +-4 minor faults (got $got)" \
		within "$got" $want 4
done
echo "$orig" >$FAB

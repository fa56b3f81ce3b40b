# SPDX-License-Identifier: GPL-2.0
# The README's first command, guest side: load the module as a user
# would, run a workload, show the module's trace events and statistics.
# Only real output: what the module does not provide yet is said so.
. /guest/lib.sh


step() {
	echo
	echo "==> $*"
}

step "modprobe autofaultaround"
modprobe autofaultaround || fail "modprobe autofaultaround"
ls /sys/module/autofaultaround/
if [ -d /sys/module/autofaultaround/parameters ]; then
	grep -H . /sys/module/autofaultaround/parameters/*
fi

f=/mnt/demo64
make_file $f 64
events=$(trace-cmd list -e autofaultaround)
step "trace events of the module: ${events:-none yet}"

step "workload: sequential, then one page per 2 MiB, over a cached 64 MiB ext4 file"
if [ -n "$events" ]; then
	trace-cmd record -q -o /tmp/demo.dat -e autofaultaround \
		sh -c "afa-work -p seq $f; afa-work -p stride -s 2097152 $f" |
		sed 's/^/workload: /'
	step "trace-cmd report"
	trace-cmd report -i /tmp/demo.dat 2>/dev/null | head -n 40
else
	echo "seq:    $(afa-work -p seq $f)"
	echo "sparse: $(afa-work -p stride -s 2097152 $f)"
fi

step "statistics ($STATS)"
if [ -r $STATS ]; then
	cat $STATS
else
	echo "the module has no statistics file yet"
fi

step "rmmod autofaultaround"
rmmod autofaultaround || fail "rmmod autofaultaround"
dmesg | grep autofaultaround

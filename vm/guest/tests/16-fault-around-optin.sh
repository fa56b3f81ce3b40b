# SPDX-License-Identifier: GPL-2.0
# 64 KiB pages: the kernel's default window (65536 bytes) is one page,
# fault-around never runs and the module cannot act.  The opt-in,
# afa-fault-around raise/restore (run by the modprobe.d example's install
# and remove lines), raises it to two pages and puts it back, logged in
# bytes.  With 4 KiB pages it must change nothing, and leave a window of
# one page (fault-around turned off) off; AFA_FAULT_AROUND_DEFAULT set to
# one page stands for the 64 KiB pages' default there.  A restore leaves
# a window written since the raise as it is.  The stats show the window
# in bytes of this page size.
. /guest/lib.sh

f=/mnt/seq64
make_file $f 64
orig=$(cat $FAB)
page=$(page_bytes)
pages=$((67108864 / page))
order=3
seq_faults() {
	kv minflt "$(afa-work -p seq $f)"
}

# The modprobe.d example's install and remove lines, uncommented, run by
# kmod's modprobe (busybox's runs no install line), on a window of one
# page (64 KiB pages' default; set by hand with 4 KiB): a load that fails
# after the raise puts the window back.
optin_lines() {
	kmod_modprobe=/usr/lib/afa-kmod/modprobe
	if [ ! -x $kmod_modprobe ]; then
		echo "16: no kmod in this guest: the modprobe.d example's lines are checked in amd64 guests"
		return 0
	fi
	conf=/etc/modprobe.d/autofaultaround.conf
	mkdir -p /etc/modprobe.d
	sed -n 's/^#\(install\|remove\) autofaultaround /\1 autofaultaround /p' \
		/guest/modprobe-example.conf |
		sed "s|/usr/local/sbin/|/usr/bin/|g; s|/sbin/modprobe|$kmod_modprobe|g" >$conf
	check "the modprobe.d example has an install and a remove line" \
		test "$(grep -c '^install autofaultaround \|^remove autofaultaround ' $conf)" = 2
	export AFA_FAULT_AROUND_DEFAULT=$page
	echo "$page" >$FAB
	$kmod_modprobe autofaultaround max_order=12 2>/dev/null
	rc=$?
	check "with the example's lines, a load with a bad option fails (exit $rc)" \
		test $rc -ne 0 -a ! -d /sys/module/autofaultaround
	check "and leaves the window at one page, $page bytes (got $(cat $FAB))" \
		test "$(cat $FAB)" = "$page"
	$kmod_modprobe autofaultaround
	check "a load that succeeds raises it to two pages (got $(cat $FAB))" \
		test "$(cat $FAB)" = $((2 * page)) -a -d /sys/module/autofaultaround
	$kmod_modprobe -r autofaultaround
	check "and the unload puts one page back (got $(cat $FAB))" \
		test "$(cat $FAB)" = "$page" -a ! -d /sys/module/autofaultaround
	rm -f $conf
	unset AFA_FAULT_AROUND_DEFAULT
	echo "$orig" >$FAB
}
optin_lines

if [ "$orig" -gt "$page" ]; then
	afa-fault-around raise
	check "afa-fault-around raise leaves $orig bytes alone with $page-byte pages" \
		test "$(cat $FAB)" = "$orig"
	afa-fault-around restore
	check "afa-fault-around restore after a raise that did nothing leaves $orig bytes" \
		test "$(cat $FAB)" = "$orig"
	# fault-around turned off by hand: one page, not the kernel's default
	echo "$page" >$FAB
	afa-fault-around raise 2>/dev/null
	check "afa-fault-around raise leaves fault-around off ($page bytes, one page, set by hand; got $(cat $FAB))" \
		test "$(cat $FAB)" = "$page" -a ! -f /run/autofaultaround/fault_around_bytes
	check "and says so in the kernel log" \
		sh -c "dmesg | grep -q 'autofaultaround: fault_around_bytes is $page bytes, one page: fault-around is off, as the administrator set it; left off'"
	# a window written between raise and restore stays
	AFA_FAULT_AROUND_DEFAULT=$page afa-fault-around raise 2>/dev/null
	echo $((4 * page)) >$FAB
	afa-fault-around restore 2>/dev/null
	check "afa-fault-around restore leaves a window written after the raise, $((4 * page)) bytes (got $(cat $FAB))" \
		test "$(cat $FAB)" = $((4 * page)) -a ! -f /run/autofaultaround/fault_around_bytes
	echo "$orig" >$FAB
	exit 0
fi

# out of the box: the module is loaded but map_pages is never called
modprobe autofaultaround min_order=$order max_order=$order initial_order=$order
got=$(seq_faults)
rmmod autofaultaround
check "window of one page ($orig bytes): the module cannot act, $((pages + 1)) +-4 faults (got $got)" \
	within "$got" $((pages + 1)) 4

afa-fault-around raise
check "afa-fault-around raise sets two pages, $((2 * page)) bytes (got $(cat $FAB))" \
	test "$(cat $FAB)" = $((2 * page))
check "the raise is in the kernel log, in bytes" \
	sh -c "dmesg | grep -q 'autofaultaround: fault_around_bytes raised from $orig to $((2 * page)) bytes'"
modprobe autofaultaround min_order=$order max_order=$order initial_order=$order
got=$(seq_faults)
want=$((pages / (1 << order) + 1))
check "after the raise the module sets order $order ($(((1 << order) * page)) bytes): $want +-4 faults (got $got)" \
	within "$got" $want 4
# rand's rows are at MADV_RANDOM's ceiling, the kernel's window (two
# pages now, one assumed until a fold has seen it), whatever the bounds
kib=$(awk -v k=$(((1 << order) * page / 1024)) -v rk=$((2 * page / 1024)) '
	$1 == "class" { for (i = 1; i <= NF; i++) col[$i] = i; on = 1; next }
	/^#/ || $1 == "stream" { on = 0 }
	on && NF > 5 && $col["order"] ~ /^[0-9]+$/ {
		n++
		if ($1 == "rand" ? $col["window_kib"] > rk : $col["window_kib"] != k)
			bad++ }
	END { print n + 0, bad + 0 }' $STATS)
check "every stats class row shows $(((1 << order) * page / 1024)) KiB at order $order with $page-byte pages, rand's at most the kernel's $((2 * page / 1024)) KiB (rows, wrong: $kib)" \
	test "${kib#* }" = 0 -a "${kib% *}" -gt 0
rmmod autofaultaround
afa-fault-around restore
check "afa-fault-around restore puts $orig bytes back (got $(cat $FAB))" \
	test "$(cat $FAB)" = "$orig"
check "the restore is in the kernel log, in bytes" \
	sh -c "dmesg | grep -q 'autofaultaround: fault_around_bytes restored from $((2 * page)) to $orig bytes'"

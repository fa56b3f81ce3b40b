# SPDX-License-Identifier: GPL-2.0
# The actuator, afa_arch_set_window() in module/arch.h, takes effect on
# this architecture and kernel, by exact fault counts at every order:
#  - under each probe type the module may use (vm/probetest: kretprobe
#    and kprobe entry handlers, fprobe where the kernel has it), with the
#    kernel's own window in the middle, so that orders below it narrow
#    and orders above it widen;
#  - driven by the module itself, its order pinned by
#    min_order=max_order=N; on a kernel whose contract the module does not
#    know, it observes instead, says why, and the kernel's window stays.
# A 64 MiB cached file read in sequence takes pages / min(2^N, table) + 1
# minor faults.  Skipped where the test module is not in the initramfs.
. /guest/lib.sh

# afa_act_dir=/tmp on the kernel command line: a tmpfs file, for kernels
# whose ext4 maps large folios whole (6.18+), hiding the window
f=${afa_act_dir:-/mnt}/seq64
make_file $f 64
orig=$(cat $FAB)
page=$(page_bytes)
pages=$((67108864 / page))
table=$(table_pages)
max_order=0
while [ $((1 << (max_order + 1))) -le "$table" ]; do
	max_order=$((max_order + 1))
done
# the kernel's window: half the orders, at least 2 pages so that
# do_fault_around() runs and calls map_pages at all
kwin=$((1 << ((max_order + 1) / 2)))
[ $kwin -ge 2 ] || kwin=2
echo "actuator: page $page bytes, table $table pages (orders 0-$max_order), kernel window $((kwin * page)) bytes"

# seq_faults: minor faults of one sequential pass
seq_faults() {
	kv minflt "$(afa-work -p seq $f)"
}

want_faults() {
	w=$((1 << $1))
	[ $w -le "$table" ] || w=$table
	echo $((pages / w + 1))
}

echo $((kwin * page)) >$FAB
if modinfo afa_probetest >/dev/null 2>&1; then
	for type in kretprobe kprobe fprobe; do
		if ! modprobe afa_probetest type=$type order=0 2>/dev/null; then
			echo "actuator: SKIP $type: cannot register on this kernel: $(dmesg | grep "afa_probetest: type=$type" | tail -n 1)"
			continue
		fi
		rmmod afa_probetest
		dmesg | grep -e 'afa_probetest: .*probe at' -e 'afa_probetest: fprobe on' | tail -n 1 | sed 's/.*afa_probetest: /actuator: /'
		o=0
		while [ $o -le $max_order ]; do
			modprobe afa_probetest type=$type order=$o
			check_faults "$type entry handler sets order $o ($(((1 << o) * page)) bytes)" \
				"$(want_faults $o)" seq_faults
			rmmod afa_probetest
			o=$((o + 1))
		done
	done
else
	echo "actuator: SKIP probe types: afa_probetest is not in this initramfs"
fi

# A kernel whose filemap_map_pages() contract the module does not know
# (module/contract.c) gets no window written: the module says so once and
# observes, and every pinned order leaves the kernel's own window.
kwin_order=0
while [ $((1 << kwin_order)) -lt $kwin ]; do
	kwin_order=$((kwin_order + 1))
done
modprobe autofaultaround
acting=$(kv acting "$(head -n 1 $STATS)")
rmmod autofaultaround
observe=
if [ "$acting" = 0 ]; then
	observe=1
	check "the module says why it observes on $(uname -r)" \
		sh -c "dmesg | grep -q 'autofaultaround: kernel $(uname -r): the filemap_map_pages() window contract is known for .* only; observing, not setting windows'"
fi
o=0
while [ $o -le $max_order ]; do
	modprobe autofaultaround min_order=$o max_order=$o initial_order=$o
	if [ -n "$observe" ]; then
		check_faults "autofaultaround observing, pinned at order $o: the kernel's window stays" \
			"$(want_faults $kwin_order)" seq_faults
	else
		check_faults "autofaultaround at min_order=max_order=$o ($(((1 << o) * page)) bytes)" \
			"$(want_faults $o)" seq_faults
	fi
	rmmod autofaultaround
	o=$((o + 1))
done

# How the module attaches to filemap_map_pages(): by ftrace direct call
# on x86-64 (Debian's 6.1, 6.12 and 7.x: module/direct.c), else by
# fprobe or kprobe.  With direct_call=0, or with the one direct
# call held by another (a BPF fentry program would; here afa_probetest
# type=direct), it attaches by fprobe or kprobe, the log says why in the
# second case, and the window is set all the same (exact fault counts at
# two orders).
attach_of() {
	kv attach "$(head -n 1 $STATS)"
}
if [ "$(uname -m)" = x86_64 ]; then
	want_attach=direct
else
	want_attach=
fi
# attach_pinned DESCRIPTION ORDER WANT_ATTACH [PARAMS...]
attach_pinned() {
	what=$1 o=$2 want=$3
	shift 3
	modprobe autofaultaround min_order=$o max_order=$o initial_order=$o "$@"
	got=$(attach_of)
	if [ -n "$want" ]; then
		check "$what: attached by $want (got $got)" [ "$got" = "$want" ]
	else
		check "$what: attached by fprobe or kprobe (got $got)" \
			sh -c "[ '$got' = fprobe ] || [ '$got' = kprobe ]"
	fi
	[ -n "$observe" ] ||
		check_faults "$what, order $o" "$(want_faults $o)" seq_faults
	rmmod autofaultaround
}
attach_pinned "by default" 1 "$want_attach"
attach_pinned "with direct_call=0" 2 "" direct_call=0
if [ -n "$want_attach" ] && modinfo afa_probetest >/dev/null 2>&1 &&
	modprobe afa_probetest type=direct; then
	attach_pinned "with the direct call held by another" 3 ""
	check "the module says it has no direct call, and why" \
		sh -c "dmesg | grep -q 'autofaultaround: no direct call on filemap_map_pages (error -16, it is held already: a BPF trampoline, a livepatch, a kprobe with a post_handler?): attaching by'"
	rmmod afa_probetest
	attach_pinned "with the direct call free again" 1 direct
else
	echo "actuator: SKIP a held direct call: no direct call here, or no afa_probetest"
fi

echo "$orig" >$FAB
check "dmesg has no kernel report after the actuator tests" dmesg_clean

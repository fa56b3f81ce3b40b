# SPDX-License-Identifier: GPL-2.0
# Kernel lockdown, as Secure Boot sets it (integrity).  Only in the
# lockdown boot (afa_lockdown=1: scripts/lockdown-test.sh) does this
# test raise it, since lockdown cannot be lifted: with the module
# loaded, it checks what the module's load-time line says about
# debugfs, then that the module attaches again under confidentiality,
# then that an unsigned module no longer loads.  Debian's
# kernels trust only signed modules under lockdown, so the line itself
# is checked only where the module loads without lockdown: it must not
# appear.
. /guest/lib.sh

n0=$(dmesg | wc -l)
check "modprobe autofaultaround succeeds" modprobe autofaultaround
msg=$(dmesg | tail -n +$((n0 + 1)) | grep 'autofaultaround: kernel lockdown')
check "without lockdown the module says nothing about it" test -z "$msg"
if [ "${afa_lockdown:-0}" != 1 ]; then
	check "rmmod autofaultaround succeeds" rmmod autofaultaround
	return 0 2>/dev/null || exit 0
fi

mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
check "lockdown raised to integrity" sh -c 'echo integrity >/sys/kernel/security/lockdown'
echo "lockdown: $(cat /sys/kernel/security/lockdown)"
cat /sys/kernel/debug/fault_around_bytes >/tmp/fab 2>/tmp/fab.err
check "under lockdown fault_around_bytes cannot be read ($(cat /tmp/fab.err))" \
	grep -q 'Operation not permitted' /tmp/fab.err
# what the module's line says about the stats file (read-only)
if cat "$STATS" >/tmp/st 2>/tmp/st.err; then
	got=readable
else
	got="refused ($(cat /tmp/st.err))"
fi
echo "lockdown: the stats file is $got on $(uname -r)"
check "under lockdown the stats file stays readable on $(uname -r), as the module's line says ($got)" \
	test "$got" = readable

# confidentiality closes tracefs and the tracing kprobes (LOCKDOWN_KPROBES
# is checked by trace_kprobe and trace_fprobe only): the module's own
# probes are kernel users of ftrace and kprobes, and attach again there
faults_counted() {
	awk '$1 == "class" || $1 == "stream" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		/^#/ { next }
		NF > 5 && col["faults"] { n += $col["faults"] }
		END { print n + 0 }' $STATS
}
P=/sys/module/autofaultaround/parameters
check "lockdown raised to confidentiality" \
	sh -c 'echo confidentiality >/sys/kernel/security/lockdown'
echo "lockdown: $(cat /sys/kernel/security/lockdown)"
check "under confidentiality enabled=0 then 1 detach and attach again" \
	sh -c "echo 0 >$P/enabled && echo 1 >$P/enabled"
make_file /mnt/lockdown16 16
f0=$(faults_counted)
afa-work -p seq /mnt/lockdown16 >/dev/null
wait_periods 2
f1=$(faults_counted)
check "and count the faults of a read ($f0 then $f1), attached by $(kv attach "$(head -n 1 $STATS)")" \
	test "$f1" -gt "$f0"
rm -f /mnt/lockdown16
check "rmmod autofaultaround succeeds under lockdown" rmmod autofaultaround
modprobe autofaultaround 2>/tmp/mp.err
r=$?
check "under lockdown the unsigned module is refused ($(cat /tmp/mp.err))" test $r != 0
check "no kernel report" dmesg_clean

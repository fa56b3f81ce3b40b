# SPDX-License-Identifier: GPL-2.0
# Helpers for guest tests; sourced.  Each check prints exactly one
# "PASS: what" or "FAIL: what" line, which the host counts.

FAB=/sys/kernel/debug/fault_around_bytes

pass() {
	echo "PASS: $*"
}

fail() {
	echo "FAIL: $*"
}

# check DESCRIPTION COMMAND...: PASS when the command succeeds.
check() {
	desc=$1
	shift
	if "$@"; then
		pass "$desc"
	else
		fail "$desc"
	fi
}

# within VALUE WANT TOLERANCE
within() {
	d=$(($1 - $2))
	[ ${d#-} -le "$3" ]
}

# kv KEY "k1=v1 k2=v2": print the value of KEY
kv() {
	for f in $2; do
		case "$f" in
		"$1"=*) echo "${f#*=}" ;;
		esac
	done
}

# Kernel reports that fail a run; the host checks the whole console too.
dmesg_clean() {
	! dmesg | grep -E 'BUG:|WARNING:|Oops|Call Trace|KASAN|possible .*locking|general protection'
}

# make_file PATH MIB: a file of MIB mebibytes on the ext4 disk, cached
make_file() {
	[ -f "$1" ] || dd if=/dev/zero of="$1" bs=1M count="$2" status=none
	cat "$1" >/dev/null
}

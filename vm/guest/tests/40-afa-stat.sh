# SPDX-License-Identifier: GPL-2.0
# afa-stat (issue 6): one-line errors and distinct exit codes without the
# module, /proc or root; its header, costs, tables and JSON agree with
# the stats file, whose streams are files (dev:ino); --from-trace lists
# the orders of a trace-cmd report, by class state or file.
. /guest/lib.sh

f=/mnt/seq64
make_file $f 64

# run_stat CMD...: run, leaving stdout in $out, stderr in $err, status in $rc
run_stat() {
	"$@" >/tmp/afa-stat.out 2>/tmp/afa-stat.err
	rc=$?
	out=$(cat /tmp/afa-stat.out)
	err=$(cat /tmp/afa-stat.err)
}

# has TEXT WORDS: TEXT contains WORDS
has() {
	case "$1" in *"$2"*) return 0 ;; esac
	return 1
}

# one_error WANT_RC WORDS: the last run_stat exited WANT_RC with one line
# on stderr that contains WORDS, and nothing on stdout
one_error() {
	[ "$rc" = "$1" ] && [ -z "$out" ] && has "$err" "$2" &&
		[ "$(echo "$err" | wc -l)" = 1 ]
}

# tsum FILE COLUMN: a column of the class table summed over all its rows,
# by the name in its header row, from a stats file or afa-stat's output
tsum() {
	awk -v k="$2" '
		$1 == "class" { for (i = 1; i <= NF; i++) col[$i] = i; on = 1; next }
		/^#/ { on = 0 }
		on { s += $col[k]; n++ }
		END { if (n) print s }' "$1"
}

# class_rows FILE: "class node core" of every class row, sorted
class_rows() {
	awk '$1 == "class" { for (i = 1; i <= NF; i++) col[$i] = i; on = 1; next }
		/^#/ { on = 0 }
		on { print $col["class"], $col["node"], $col["core"] }' "$1" | sort
}

# stream_rows FILE: how many rows the stream table of FILE has
stream_rows() {
	awk '$1 == "stream" { on = 1; next } on && !/^#/ { n++ } END { print n + 0 }' "$1"
}

# fcol FILE CLASS DEV INO COLUMN: a column of the stream of the file DEV:INO
# in CLASS, by the name in the stream header row; empty if there is none
fcol() {
	awk -v c="$2" -v d="$3" -v ino="$4" -v k="$5" '
		$1 == "stream" { for (i = 1; i <= NF; i++) col[$i] = i; on = 1; next }
		on && $col["class"] == c && $col["dev"] == d && $col["ino"] == ino { v = $col[k] }
		END { print v }' "$1"
}

# jcol FILE MATCH KEY: KEY of the objects in afa-stat's JSON that contain
# MATCH, one per line: '{"class":"shared",' are the rows of class shared
# (a stream's object starts with "stream"), '"costs":{' the costs
jcol() {
	grep -o '"*[a-z]*"*:*{[^{}]*}' "$1" | grep -F "$2" | grep -o "\"$3\":[^,}]*" | cut -d: -f2
}

# json_ok FILE: FILE holds exactly one JSON value (a validating parser
# in awk, since busybox has no jq)
json_ok() {
	awk '
	function fail(what) {
		printf "json: %s at offset %d: %s\n", what, pos, substr(s, pos, 20) >"/dev/stderr"
		bad = 1
		exit 1
	}
	function ws() {
		while (pos <= n && index(" \t\r\n", substr(s, pos, 1)))
			pos++
	}
	function str(   c) {
		pos++
		for (;;) {
			if (pos > n)
				fail("unterminated string")
			c = substr(s, pos, 1)
			if (c == "\"") {
				pos++
				return
			}
			if (c == "\\") {
				c = substr(s, pos + 1, 1)
				if (c == "u") {
					if (substr(s, pos + 2, 4) !~ /^[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]$/)
						fail("bad \\u escape")
					pos += 6
				} else if (index("\"\\/bfnrt", c)) {
					pos += 2
				} else {
					fail("bad escape")
				}
				continue
			}
			if (c < " ")
				fail("control character in string")
			pos++
		}
	}
	function value(   c) {
		ws()
		c = substr(s, pos, 1)
		if (c == "{") {
			pos++
			ws()
			if (substr(s, pos, 1) == "}") {
				pos++
				return
			}
			for (;;) {
				ws()
				if (substr(s, pos, 1) != "\"")
					fail("key expected")
				str()
				ws()
				if (substr(s, pos++, 1) != ":")
					fail("colon expected")
				value()
				ws()
				c = substr(s, pos++, 1)
				if (c == "}")
					return
				if (c != ",")
					fail("comma or } expected")
			}
		}
		if (c == "[") {
			pos++
			ws()
			if (substr(s, pos, 1) == "]") {
				pos++
				return
			}
			for (;;) {
				value()
				ws()
				c = substr(s, pos++, 1)
				if (c == "]")
					return
				if (c != ",")
					fail("comma or ] expected")
			}
		}
		if (c == "\"")
			return str()
		if (match(substr(s, pos), /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) {
			pos += RLENGTH
			return
		}
		if (substr(s, pos, 4) == "true" || substr(s, pos, 4) == "null") {
			pos += 4
			return
		}
		if (substr(s, pos, 5) == "false") {
			pos += 5
			return
		}
		fail("value expected")
	}
	{ s = s $0 "\n" }
	END {
		if (bad)
			exit 1
		n = length(s)
		pos = 1
		value()
		ws()
		if (pos <= n)
			fail("trailing text")
	}' "$1"
}

[ -d /sys/module/autofaultaround ] && rmmod autofaultaround

run_stat afa-stat --bogus
check "afa-stat --bogus exits 2 (got $rc)" test "$rc" = 2
run_stat afa-stat
echo "no module: exit $rc: $err"
check "without the module: exit 3 and one line saying to modprobe (got $rc)" \
	one_error 3 "modprobe autofaultaround"

modprobe autofaultaround period_ms=50 sample_every=8
afa-work -S -p seq -n 3 -H 100 $f >/dev/null
wait_periods 2
dev=$(devno $f)
fino=$(ino $f)
cat $STATS >/tmp/stats.txt
cat /tmp/stats.txt
run_stat afa-stat
cp /tmp/afa-stat.out /tmp/afa-stat.txt
cat /tmp/afa-stat.txt
check "afa-stat exits 0 with nothing on stderr (got $rc)" test "$rc" = 0 -a -z "$err"
check "afa-stat: one row per class and domain (node, core), as in the stats file" \
	test -n "$(class_rows /tmp/stats.txt)" -a \
	"$(class_rows /tmp/afa-stat.txt)" = "$(class_rows /tmp/stats.txt)"
so=$(fcol /tmp/stats.txt shared $dev $fino order)
sf=$(fcol /tmp/stats.txt shared $dev $fino faults)
ao=$(fcol /tmp/afa-stat.txt shared $dev $fino order)
af=$(fcol /tmp/afa-stat.txt shared $dev $fino faults)
check "afa-stat: the stream of $f ($dev ino $fino, shared) has the stats file's order and faults ($ao $af vs $so $sf)" \
	test -n "$so" -a "${sf:-0}" -gt 0 -a "$ao" = "$so" -a "$af" = "$sf"
check "afa-stat: a '# costs:' line of four fields" \
	grep -qE '^# costs: fault_ns=[0-9]+ page_ns=[0-9]+ measured=[01] page_price_ns=0$' /tmp/afa-stat.txt
run_stat afa-stat -f /tmp/stats.txt
echo "$out" >/tmp/afa-stat-f1.txt
st=$(tsum /tmp/stats.txt faults)
at=$(tsum /tmp/afa-stat-f1.txt faults)
check "afa-stat -f: the classes' faults add up as in the stats file ($at vs $st)" \
	test -n "$st" -a "${st:-0}" -gt 0 -a "$at" = "$st"
check "afa-stat -f: the header, costs and streams lines of the stats file, unchanged" \
	test "$(grep '^#' /tmp/afa-stat-f1.txt)" = "$(grep '^#' /tmp/stats.txt)"
check "afa-stat -f: as many stream rows as the stats file ($(stream_rows /tmp/stats.txt))" \
	test "$(stream_rows /tmp/afa-stat-f1.txt)" = "$(stream_rows /tmp/stats.txt)"
afa-stat -f /tmp/afa-stat-f1.txt >/tmp/afa-stat-f2.txt
check "afa-stat -f reads its own output back to the same table" \
	cmp -s /tmp/afa-stat-f1.txt /tmp/afa-stat-f2.txt

# JSON of the same saved figures, and live
run_stat afa-stat --json -f /tmp/stats.txt
echo "$out" >/tmp/afa-stat.json
head -c 400 /tmp/afa-stat.json; echo
check "afa-stat --json exits 0 and prints one line (got $rc)" \
	test "$rc" = 0 -a "$(wc -l </tmp/afa-stat.json)" = 1
check "afa-stat --json prints valid JSON" json_ok /tmp/afa-stat.json
jt=$(jcol /tmp/afa-stat.json '{"class":' faults | awk '{ s += $1 } END { print s }')
check "afa-stat --json: the classes' faults add up as in the stats file ($jt vs $st)" \
	test -n "$st" -a "$jt" = "$st"
jo=$(jcol /tmp/afa-stat.json "\"class\":\"shared\",\"dev\":\"$dev\",\"ino\":$fino," order)
jf=$(jcol /tmp/afa-stat.json "\"class\":\"shared\",\"dev\":\"$dev\",\"ino\":$fino," faults)
check "afa-stat --json: the stream of $f has the stats file's order and faults ($jo $jf vs $so $sf)" \
	test -n "$so" -a "$jo" = "$so" -a "$jf" = "$sf"
check "afa-stat --json: header fields period_ms=50 and sample_every=8" \
	grep -q '"period_ms":50,"sample_every":8,' /tmp/afa-stat.json
sfn=$(kv fault_ns "$(grep '^# costs:' /tmp/stats.txt)")
jfn=$(jcol /tmp/afa-stat.json '"costs":{' fault_ns)
check "afa-stat --json: a costs object with the stats file's fault_ns ($jfn vs $sfn)" \
	test -n "$sfn" -a "$jfn" = "$sfn"
check "afa-stat --json: as many classes objects as class rows" \
	test "$(grep -o '"classes":\[[^]]*\]' /tmp/afa-stat.json | grep -o '{' | wc -l)" = \
	"$(class_rows /tmp/stats.txt | wc -l)"
check "afa-stat --json: as many streams objects as stream rows" \
	test "$(grep -o '{"stream":' /tmp/afa-stat.json | wc -l)" = "$(stream_rows /tmp/stats.txt)"
echo 100 >/sys/module/autofaultaround/parameters/page_price_ns
run_stat afa-stat --json
echo "$out" >/tmp/afa-stat.json
echo 0 >/sys/module/autofaultaround/parameters/page_price_ns
check "afa-stat --json from /proc is valid JSON" json_ok /tmp/afa-stat.json
check "afa-stat --json from /proc: page_price_ns=100 as just set, in costs" \
	test "$(jcol /tmp/afa-stat.json '"costs":{' page_price_ns)" = 100

# --watch: one JSON line per refresh, no screen control codes into a pipe
# (lines counted, not seconds: a slow guest's refreshes come later; 10
# s at most.  The file is made first: the loop may look before the
# background command's redirection has made it, and found none once.)
: >/tmp/afa-stat-w.json
afa-stat --watch 0.2 --json >/tmp/afa-stat-w.json &
pid=$!
i=0
while [ "$(wc -l </tmp/afa-stat-w.json)" -lt 4 ] && [ $i -lt 50 ]; do
	sleep 0.2
	i=$((i + 1))
done
kill $pid
wait $pid 2>/dev/null
n=$(wc -l </tmp/afa-stat-w.json)
bad=0
i=0
while [ $i -lt "$n" ]; do
	i=$((i + 1))
	sed -n "${i}p" /tmp/afa-stat-w.json >/tmp/afa-stat-line.json
	json_ok /tmp/afa-stat-line.json || bad=$((bad + 1))
done
check "afa-stat --watch 0.2 --json: 4+ lines within 10 s, each valid JSON ($n lines, $bad bad)" \
	test "$n" -ge 4 -a "$bad" = 0
: >/tmp/afa-stat-w.txt
afa-stat -w 0.2 >/tmp/afa-stat-w.txt &
pid=$!
i=0
while [ "$(grep -c '^class ' /tmp/afa-stat-w.txt)" -lt 3 ] && [ $i -lt 50 ]; do
	sleep 0.2
	i=$((i + 1))
done
kill $pid
wait $pid 2>/dev/null
check "afa-stat -w into a pipe: several tables, no escape codes" \
	test "$(grep -c '^class ' /tmp/afa-stat-w.txt)" -ge 3 -a \
	"$(grep -c "$(printf '\033')" /tmp/afa-stat-w.txt)" = 0

# permission: the stats file is root-only
grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
run_stat su -s /bin/sh nobody -c afa-stat
echo "not root: exit $rc: $err"
check "not root: exit 5 and one line saying to run as root (got $rc)" \
	one_error 5 "as root"

# The stats are in /proc: debugfs not mounted changes nothing
umount /sys/kernel/debug/tracing 2>/dev/null
if umount /sys/kernel/debug; then
	run_stat afa-stat
	mount -t debugfs debugfs /sys/kernel/debug
	echo "no debugfs: exit $rc: $err"
	check "no debugfs: afa-stat reads the stats all the same (exit $rc)" \
		test "$rc" = 0 -a -z "$err"
else
	fail "umount /sys/kernel/debug for afa-stat without debugfs"
fi
# /proc not mounted, in a mount namespace of its own
run_stat unshare -m sh -c 'umount -l /proc && exec afa-stat'
echo "no /proc: exit $rc: $err"
check "no /proc: exit 4 and one line saying to mount it (got $rc)" \
	one_error 4 "mount -t proc"
run_stat afa-stat
check "/proc as before: afa-stat reads the stats (exit $rc)" test "$rc" = 0

# --from-trace: the events of a short run, against an awk reading of them;
# a fresh module, so that the stream of $f is new and climbs
rmmod autofaultaround
modprobe autofaultaround period_ms=50 sample_every=8
trace-cmd record -q -e autofaultaround:afa_order_change \
	-e autofaultaround:afa_stream -o /tmp/afa-stat.dat \
	afa-work -S -p seq -n 6 -H 100 $f >/dev/null
trace-cmd report -i /tmp/afa-stat.dat 2>/dev/null >/tmp/afa-stat-trace.txt
cat $STATS >/tmp/stats.txt
grep -E 'afa_order_change:|afa_stream:' /tmp/afa-stat-trace.txt | head -n 3
run_stat afa-stat --from-trace /tmp/afa-stat-trace.txt
echo "$out" | head -n 12
echo "$out" | grep -v '^#' >/tmp/afa-stat-orders.txt
awk '{
	for (e = 2; e <= NF; e++)
		if ($e == "afa_order_change:" || $e == "afa_stream:")
			break
	if (e > NF)
		next
	delete v
	for (i = e + 1; i <= NF; i++) {
		split($i, kv, "=")
		v[kv[1]] = kv[2]
	}
	stream = $e == "afa_stream:"
	if (v["slot"] == -1)
		v["slot"] = v["dev"] = v["ino"] = "-"
	else
		v["node"] = v["core"] = "-"
	print substr($(e - 1), 1, length($(e - 1)) - 1), v["class"], v["slot"],
		v["node"], v["core"], v["dev"], v["ino"],
		stream ? v["order"] : v["new_order"], stream ? v["event"] : v["reason"]
}' /tmp/afa-stat-trace.txt >/tmp/afa-stat-want.txt
n=$(wc -l </tmp/afa-stat-orders.txt)
awk -v d="$dev" -v i="$fino" '$2 == "shared" && $6 == d && $7 == i' \
	/tmp/afa-stat-orders.txt >/tmp/afa-stat-file.txt
cat /tmp/afa-stat-file.txt
ns=$(wc -l </tmp/afa-stat-file.txt)
check "afa-stat --from-trace exits 0 (got $rc: $err)" test "$rc" = 0
check "afa-stat --from-trace: one line per event, as the report has them ($n lines)" \
	cmp -s /tmp/afa-stat-orders.txt /tmp/afa-stat-want.txt
check "afa-stat --from-trace: the columns are time class slot node core dev ino order event" \
	test "$(echo "$out" | head -n 1)" = "# time class slot node core dev ino order event"
check "afa-stat --from-trace: each line a class state (slot -, a domain) or a stream (a slot, a file)" \
	awk '$1 !~ /^[0-9]+\.[0-9]+$/ || $8 !~ /^[0-9]+$/ || NF != 9 ||
		$9 !~ /^(grow|shrink|added|evicted)$/ { bad = 1 }
		$3 == "-" && ($4 == "-" || $5 == "-" || $6 != "-" || $7 != "-") { bad = 1 }
		$3 != "-" && ($3 !~ /^[0-9]+$/ || $4 != "-" || $5 != "-" || $6 !~ /:/) { bad = 1 }
		END { exit bad || !NR }' /tmp/afa-stat-orders.txt
check "afa-stat --from-trace: the stream of $f is added, then grows ($ns lines)" \
	awk 'NR == 1 { first = $9; o = $8 } $9 == "grow" { g++ }
		END { exit first != "added" || !g || $8 <= o }' /tmp/afa-stat-file.txt
to=$(tail -n 1 /tmp/afa-stat-file.txt | cut -d' ' -f8)
so=$(fcol /tmp/stats.txt shared $dev $fino order)
check "afa-stat --from-trace: the last order of $f's stream is the stats file's ($to vs $so)" \
	test -n "$so" -a "$to" = "$so"
run_stat afa-stat --from-trace /tmp/afa-stat.dat
check "afa-stat --from-trace on trace.dat: exit 1, says to run trace-cmd report (got $rc)" \
	one_error 1 "trace-cmd report"
rmmod autofaultaround

# Watching across an unload, six times: the refreshes before it show the
# statistics, and the one the unload cuts short (a read that fails with
# EIO, an open that finds no file while the module goes, or no module
# left) ends afa-stat with exit 3 and one line saying which.  Which one
# depends on where the unload lands, and is logged: on 6.12 under TCG
# the six runs all met the module going at the open (ENOENT, then
# initstate; without the initstate look all six exit 1, "no such file").
unload_re='unloaded while afa-stat read|is going, not live|is not loaded'
bad=0
for i in 1 2 3 4 5 6; do
	modprobe autofaultaround period_ms=50
	: >/tmp/afa-stat-w.txt
	afa-stat --watch 0.01 >/tmp/afa-stat-w.txt 2>/tmp/afa-stat-w.err &
	pid=$!
	n=0
	while ! grep -q '^class ' /tmp/afa-stat-w.txt && [ $n -lt 50 ]; do
		sleep 0.2
		n=$((n + 1))
	done
	# a module that would not unload leaves afa-stat watching: stop it
	rmmod autofaultaround || kill $pid
	wait $pid
	rc=$?
	err=$(cat /tmp/afa-stat-w.err)
	echo "unload $i: exit $rc: $err"
	if [ "$rc" != 3 ] || [ "$(echo "$err" | wc -l)" != 1 ] ||
	   ! echo "$err" | grep -qE "$unload_re" ||
	   ! grep -q '^class ' /tmp/afa-stat-w.txt; then
		bad=$((bad + 1))
	fi
done
check "afa-stat --watch across 6 unloads: tables, then exit 3 and one line each ($bad not)" \
	test "$bad" = 0
check "dmesg has no kernel report after the afa-stat tests" dmesg_clean

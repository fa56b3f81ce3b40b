#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of afa-stat on saved samples: the table, JSON and trace
# outputs against expected files and against independent readings of the
# same input, the errors and exit codes that need no kernel, and the man
# page against the program.  Prints PASS/FAIL lines, then
# "afa-stat-test: N passed, N failed"; exits non-zero on any failure.
#
# Samples in data/: stats-vm.txt, a stats file of the module in the test
# VM; stats-vm-numa.txt, one of 40-afa-stat.sh in the two-node VM (make
# vmtest); stats-2node.txt, three domains on two NUMA nodes (one with little
# cores) and five streams, with edge values, written with the module's own
# formats (period.c, cost.c, control.c, stream.c); trace-report.txt, the
# module's trace events as trace-cmd report prints them (trace.h), with
# lines of other events, by hand.  *.expected are afa-stat's outputs,
# checked by hand once.
#
# usage: afa-stat-test.sh [AFA_STAT]   (default: ../afa-stat, built first)

cd "$(dirname "$0")" || exit 1
data=data
stat=${1:-../afa-stat}
if [ -z "$1" ]; then
	make -s -C .. afa-stat || exit 1
fi
[ -x "$stat" ] || { echo "afa-stat-test: no $stat" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

check() {
	local desc=$1

	shift
	if "$@"; then
		echo "PASS: $desc"
		passed=$((passed + 1))
	else
		echo "FAIL: $desc"
		failed=$((failed + 1))
	fi
}

# same FILE EXPECTED: equal, else show the difference
same() {
	diff -u "$2" "$1" >&2
}

# run ARGS...: afa-stat with stdout in $tmp/out, stderr in $tmp/err, $rc
run() {
	"$stat" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# one_error RC WORDS: the last run exited RC with one line on stderr that
# contains WORDS, and printed nothing
one_error() {
	[ "$rc" = "$1" ] && [ ! -s "$tmp/out" ] &&
		[ "$(wc -l <"$tmp/err")" = 1 ] && grep -qF -- "$2" "$tmp/err" ||
		{ echo "exit $rc, stderr: $(cat "$tmp/err")" >&2; return 1; }
}

# json_agrees JSON STATS: JSON holds the header fields, the named lines of
# fields (costs) as objects, and every row of the stats file, each column
# under its name, and nothing else
json_agrees() {
	python3 - "$1" "$2" <<'EOF'
import json, sys

doc = json.load(open(sys.argv[1]))
want = {"classes": [], "streams": []}
cols = None
for line in open(sys.argv[2]):
    f = line.split()
    if not f:
        continue
    if line.startswith("# streams:"):
        want["streams_used"], want["stream_slots"] = int(f[2]), int(f[4])
    elif line.startswith("#") and f[1].endswith(":"):
        want[f[1][:-1]] = dict(kv.split("=", 1) for kv in f[2:])
    elif line.startswith("#"):
        for kv in f[1:]:
            k, v = kv.split("=", 1)
            want[k] = v
    elif "class" in f:
        cols, table = f, want["streams" if "stream" in f else "classes"]
    else:
        table.append(dict(zip(cols, f)))

def norm(v):
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    return "-" if v is None else str(v)

got = {k: norm(v) for k, v in doc.items() if k not in ("classes", "streams")}
exp = {k: norm(v) for k, v in want.items() if k not in ("classes", "streams")}
ok = got == exp and isinstance(doc.get("costs"), dict)
for t in ("classes", "streams"):
    g = sorted(sorted((k, norm(v)) for k, v in o.items()) for o in doc[t])
    e = sorted(sorted(o.items()) for o in want[t])
    ok = ok and g == e
if not ok:
    print("json and stats file differ", file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
}

# The class and stream tables
run -f $data/stats-2node.txt
check "-f: the two-node sample, classes by class then domain (exit $rc)" \
	same "$tmp/out" $data/stats-2node.expected
"$stat" -f - <$data/stats-2node.txt >"$tmp/stdin.txt"
check "-f -: standard input reads the same" same "$tmp/stdin.txt" $data/stats-2node.expected
"$stat" -f "$tmp/out" >"$tmp/again.txt"
check "-f reads its own output back to the same table" same "$tmp/again.txt" "$tmp/out"
for s in stats-vm stats-vm-numa stats-2node; do
	run -f $data/$s.txt
	check "-f $s: exit 0, nothing on stderr" test "$rc" = 0 -a ! -s "$tmp/err"
	check "-f $s: every class row and stream row is shown" \
		test "$(grep -vc '^#' "$tmp/out")" = "$(grep -vc '^#' $data/$s.txt)"
	check "-f $s: the header, costs and streams lines come through unchanged" \
		test "$(grep '^#' "$tmp/out")" = "$(grep '^#' $data/$s.txt)"
done
run -f $data/stats-vm.txt
check "-f: the header fields come through (folds=233 ... acting=1 kernel_window=65536)" \
	grep -q '^# folds=233 kicked=231 last_fold_ms=8 period_ms=200 sample_every=4 enabled=1 acting=1 kernel_window=65536 ' "$tmp/out"
check "-f: the costs line comes through (fault_ns=8474 ... page_price_ns=0)" \
	grep -qx '# costs: fault_ns=8474 page_ns=2602 measured=1 page_price_ns=0' "$tmp/out"
check "-f: the stream table has dev and ino, no pid" \
	sh -c "grep -q '^stream  *class  *dev  *ino  *order ' '$tmp/out' && ! grep -qw pid '$tmp/out'"
# A later module's header field, costs field, line of fields, remark and
# stream column
awk '/^# folds=/ { $0 = $0 " new_field=1" }
	/^# costs:/ { $0 = $0 " extra_ns=5" }
	/^# streams:/ { print "# contract: mismatches=0 known=1"; print "# a remark, which afa-stat skips"; on = 1 }
	on && !/^#/ { $0 = $0 ($1 == "stream" ? " new_col" : " 3") }
	{ print }' $data/stats-vm.txt >"$tmp/more.txt"
run --json -f "$tmp/more.txt"
check "--json of a later module's field, group of fields and column: each under its name" \
	sh -c "test $rc = 0 && grep -qF '\"filemap_faults\":978,\"new_field\":1,\"costs\":{\"fault_ns\":8474,\"page_ns\":2602,\"measured\":1,\"page_price_ns\":0,\"extra_ns\":5},\"contract\":{\"mismatches\":0,\"known\":1},\"streams_used\":6,' '$tmp/out' &&
		test \"\$(grep -o '\"idle_ms\":[0-9]*,\"new_col\":3}' '$tmp/out' | wc -l)\" = 2"
run -f "$tmp/more.txt"
check "text of the same: the group line kept, the remark left out, new_col shown" \
	sh -c "test $rc = 0 && grep -qx '# contract: mismatches=0 known=1' '$tmp/out' &&
		! grep -q remark '$tmp/out' && grep -q '^stream .* idle_ms new_col$' '$tmp/out'"

# JSON
for s in stats-2node stats-vm stats-vm-numa; do
	run --json -f $data/$s.txt
	cp "$tmp/out" "$tmp/$s.json"
	check "--json $s: one line of valid JSON" \
		sh -c "test $rc = 0 -a \"\$(wc -l <'$tmp/out')\" = 1 && python3 -m json.tool '$tmp/out' >/dev/null"
	check "--json $s: every field and row of the stats file, by column name" \
		json_agrees "$tmp/$s.json" $data/$s.txt
done
check "--json: the two-node sample as expected" \
	same "$tmp/stats-2node.json" $data/stats-2node.json.expected

# Columns by name: reversed, with an unknown column added to each table
awk '/^#/ { print; next }
	{ $(NF + 1) = $1 == "class" || $1 == "stream" ? "new_col" : NR
	  for (i = NF; i > 1; i--) printf "%s ", $i; print $1 }' \
	$data/stats-2node.txt >"$tmp/permuted.txt"
run --json -f "$tmp/permuted.txt"
check "--json of permuted columns plus new_col: every value under its name" \
	json_agrees "$tmp/out" "$tmp/permuted.txt"
python3 - "$tmp/out" "$tmp/stats-2node.json" <<'EOF' >"$tmp/cmp" 2>&1
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for t in ("classes", "streams"):
    for o in a[t]:
        del o["new_col"]
    for d in a, b:
        d[t].sort(key=lambda o: (o["class"], o.get("node"), o.get("core"),
                                 o.get("stream")))
sys.exit(a != b)
EOF
check "--json of permuted columns: the same figures as the original" test $? = 0
run -f "$tmp/permuted.txt"
check "text of permuted columns: new_col shown in both tables" \
	test "$(grep -c '^new_col ' "$tmp/out")" = 2
sed '4s/^rand        0 big        4 /rand        0 big        - /' $data/stats-2node.txt >"$tmp/dash.txt"
run --json -f "$tmp/dash.txt"
check "--json: a '-' (no value) is null" \
	grep -q '{"class":"rand","node":0,"core":"big","order":null,"window_kib":64,' "$tmp/out"

# Watch: into a file, no screen control; JSON one line per reading
"$stat" -w 0.2 -f $data/stats-2node.txt >"$tmp/w.txt" &
pid=$!
sleep 1
kill $pid
wait $pid 2>/dev/null
check "-w 0.2 into a file: 3+ readings, blank line between, no escape codes" \
	test "$(grep -c '^# folds=' "$tmp/w.txt")" -ge 3 -a \
	"$(grep -c '^$' "$tmp/w.txt")" -ge 2 -a \
	"$(grep -c $'\033' "$tmp/w.txt")" = 0
"$stat" --watch=0.2 --json -f $data/stats-2node.txt >"$tmp/w.json" &
pid=$!
sleep 1
kill $pid
wait $pid 2>/dev/null
bad=$(python3 -c '
import json, sys
n = bad = 0
for line in open(sys.argv[1]):
    n += 1
    try:
        json.loads(line)
    except ValueError:
        bad += 1
print(bad if n >= 3 else "too few")' "$tmp/w.json")
check "--watch=0.2 --json: 3+ lines, each one valid JSON ($bad bad)" test "$bad" = 0
if command -v script >/dev/null; then
	script -qec "timeout -s INT 0.5 $stat -w 0.2 -f $data/stats-2node.txt" /dev/null >"$tmp/tty.txt"
	check "-w on a terminal: clears the screen before each reading" \
		test "$(grep -o $'\033\\[H\033\\[2J' "$tmp/tty.txt" | wc -l)" -ge 2
fi

# --from-trace
run --from-trace $data/trace-report.txt
check "--from-trace: one line per afa_order_change or afa_stream event (exit $rc)" \
	same "$tmp/out" $data/trace-report.expected
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
}' $data/trace-report.txt >"$tmp/want.txt"
grep -v '^#' "$tmp/out" >"$tmp/got.txt"
check "--from-trace: agrees with an awk reading of the report" same "$tmp/got.txt" "$tmp/want.txt"
check "--from-trace: a class state has its domain and no file, a stream its file and no domain" \
	awk '!/^#/ && !(($3 == "-") == ($6 == "-" && $7 == "-" && $4 != "-" && $5 != "-") &&
		($3 == "-") != ($4 == "-" && $5 == "-" && $6 != "-")) { bad = 1 }
		END { exit bad || !NR }' "$tmp/out"
check "--from-trace: the columns are the man page's" \
	grep -qx '# time class slot node core dev ino order event' "$tmp/out"
"$stat" --from-trace - <$data/trace-report.txt >"$tmp/stdin.txt"
check "--from-trace -: standard input reads the same" same "$tmp/stdin.txt" "$tmp/out"
grep -v 'afa_order_change\|afa_stream:' $data/trace-report.txt >"$tmp/none.txt"
run --from-trace "$tmp/none.txt"
check "--from-trace without events: exit 1, one line naming trace-cmd record" \
	one_error 1 "trace-cmd record -e autofaultaround"
printf '\027\010\104tracing6\0\0\0' >"$tmp/trace.dat"
run --from-trace "$tmp/trace.dat"
check "--from-trace on a trace.dat: exit 1, one line naming trace-cmd report" \
	one_error 1 "trace-cmd report -i"
# the first afa_stream event, without order=
n=$(grep -n 'afa_stream:' $data/trace-report.txt | head -n 1 | cut -d: -f1)
sed "${n}s/ order=4 / /" $data/trace-report.txt >"$tmp/bad.txt"
run --from-trace "$tmp/bad.txt"
check "--from-trace, an event without order=: exit 1, one line with the line number" \
	one_error 1 "bad.txt:$n: afa_stream: without order="
# the rand class state's shrink, after 7 events
n=$(grep -n 'afa_order_change:.* new_order=2 ' $data/trace-report.txt | cut -d: -f1)
sed "${n}s/ new_order=2 / /" $data/trace-report.txt >"$tmp/bad.txt"
run --from-trace "$tmp/bad.txt"
check "--from-trace, a later event without new_order=: the events before it, then exit 1" \
	sh -c "test $rc = 1 && grep -q 'bad.txt:$n: afa_order_change: without new_order=' '$tmp/err' &&
		test \"\$(grep -vc '^#' '$tmp/out')\" = 7"
sed 's/ slot=248 / slot=x /' $data/trace-report.txt >"$tmp/bad.txt"
run --from-trace "$tmp/bad.txt"
check "--from-trace, slot=x: exit 1, says it is no slot" \
	sh -c "test $rc = 1 && grep -q 'afa_stream: with slot=x: not -1 or a slot number' '$tmp/err'"
sed 's/ new_order=6 / new_order=six /' $data/trace-report.txt >"$tmp/bad.txt"
run --from-trace "$tmp/bad.txt"
check "--from-trace, new_order=six: exit 1, says it is no order" \
	sh -c "test $rc = 1 && grep -q 'afa_order_change: with new_order=six: not an order' '$tmp/err'"
sed 's/ event=added$/ event=/' $data/trace-report.txt >"$tmp/bad.txt"
run --from-trace "$tmp/bad.txt"
check "--from-trace, an empty event=: exit 1" \
	sh -c "test $rc = 1 && grep -q 'afa_stream: with an empty event=' '$tmp/err'"
printf '%s\n' '     kworker/0:1-10    [000]    76.069636: afa_stream:           class=shmem node=0 pid=518 dev=0:2 ino=49 order=4 action=new' >"$tmp/old.txt"
run --from-trace "$tmp/old.txt"
check "--from-trace of an older module's trace (pid=, no slot=): exit 1, one line saying so" \
	one_error 1 "old.txt:1: afa_stream: with pid= and no slot=: a trace of an older module"

# Errors that need no kernel
run -f "$tmp/missing"
check "-f of a missing file: exit 1, one line" one_error 1 "No such file"
run -f $data/trace-report.txt
check "-f of a file that is no stats file: exit 1, one line" one_error 1 "not an autofaultaround stats file"
sed '5s/ [0-9]* *$//' $data/stats-2node.txt >"$tmp/short.txt"
run -f "$tmp/short.txt"
check "-f of a row with a field missing: exit 1, one line with the line number" \
	one_error 1 "short.txt:5: 9 fields, but the header row names 10 columns"
n=$(grep -n '^stream ' $data/stats-2node.txt | cut -d: -f1)
sed "$((n + 1))s/ [0-9]* *\$//" $data/stats-2node.txt >"$tmp/short.txt"
run -f "$tmp/short.txt"
check "-f of a stream row with a field missing: exit 1, one line with the line number" \
	one_error 1 "short.txt:$((n + 1)): 9 fields, but the header row names 10 columns"
sed 's/^# costs: fault_ns=1000 /# costs: fault_ns 1000 /' $data/stats-2node.txt >"$tmp/bad.txt"
run -f "$tmp/bad.txt"
check "-f of a costs line with a word not key=value: exit 1, one line naming it" \
	one_error 1 "bad.txt:2: 'fault_ns' in a line of fields is not key=value"
sed 's/ page_ns=100 / page_ns= /' $data/stats-2node.txt >"$tmp/bad.txt"
run -f "$tmp/bad.txt"
check "-f of a field without a value: exit 1, one line naming it" \
	one_error 1 "bad.txt:2: 'page_ns=' in a line of fields is not key=value"
sed 's/ kicked=3977 / folds=1 /' $data/stats-2node.txt >"$tmp/bad.txt"
run -f "$tmp/bad.txt"
check "-f of a header with a field twice: exit 1, one line" \
	one_error 1 "bad.txt:1: field folds twice"
sed '2p' $data/stats-2node.txt >"$tmp/bad.txt"
run -f "$tmp/bad.txt"
check "-f of two costs lines: exit 1, one line" one_error 1 "bad.txt:3: a second '# costs:' line"
sed '1p' $data/stats-2node.txt >"$tmp/bad.txt"
run -f "$tmp/bad.txt"
check "-f of two header lines: exit 1, one line" \
	one_error 1 "bad.txt:2: a second header line of key=value fields"
for bad in "streams: 5 of" "streams: 300 of 256 slots in use" "streams: five of 256 slots in use" \
	   "streams: 5 of 256 slots in use, 2 stale"; do
	sed "s/^# streams: .*/# $bad/" $data/stats-2node.txt >"$tmp/bad.txt"
	run -f "$tmp/bad.txt"
	check "-f of '# $bad': exit 1, one line" \
		one_error 1 "bad.txt:$((n - 1)): not '# streams: USED of SLOTS slots in use'"
done
sed "$((n - 1))p" $data/stats-2node.txt >"$tmp/bad.txt"
run -f "$tmp/bad.txt"
check "-f of two streams lines: exit 1, one line" one_error 1 "bad.txt:$n: a second '# streams:' line"
sed "${n}d" $data/stats-2node.txt >"$tmp/bad.txt"
run -f "$tmp/bad.txt"
check "-f of stream rows without their header row: exit 1, one line" \
	one_error 1 "bad.txt:$n: a row before any header row"
sed 's/^# costs: /# costs /' $data/stats-2node.txt >"$tmp/bad.txt"
run -f "$tmp/bad.txt"
check "-f of a group of fields without ':' after its name: exit 1, one line" \
	one_error 1 "bad.txt:2: fields after 'costs', not after a name and ':'"
: >"$tmp/empty.txt"
run -f "$tmp/empty.txt"
check "-f of an empty file: exit 1, one line" one_error 1 "not an autofaultaround stats file"
run --bogus
check "--bogus: exit 2" test "$rc" = 2
run -f $data/stats-2node.txt extra
check "an argument: exit 2" one_error 2 "unexpected argument 'extra'"
run -w 0
check "-w 0: exit 2" one_error 2 "invalid watch interval '0'"
run --from-trace $data/trace-report.txt --json
check "--from-trace with --json: exit 2" one_error 2 "--from-trace goes alone"
run -w -f -
check "--watch on standard input: exit 2" one_error 2 "cannot read standard input again"
run -h
check "-h: usage on stdout, exit 0" test "$rc" = 0 -a -s "$tmp/out" -a ! -s "$tmp/err"
if [ ! -e /sys/module/autofaultaround ]; then
	run
	check "without the module (this host): exit 3, one line saying modprobe" \
		one_error 3 "modprobe autofaultaround"
fi

# The man page: renders cleanly, documents every option, field and column
if ! command -v groff >/dev/null; then
	check "groff is installed, to check afa-stat.1 (run 'make deps')" false
else
	groff -man -ww -z ../afa-stat.1 2>"$tmp/groff"
	check "afa-stat.1 renders without groff warnings" test ! -s "$tmp/groff"
	MANWIDTH=200 groff -man -Tascii -P-cbou ../afa-stat.1 >"$tmp/man.txt" 2>/dev/null
	missing=
	for name in $(awk '$1 == "class" || $1 == "stream" { print }
			/^# [a-z_]*=/ { for (i = 2; i <= NF; i++) print substr($i, 1, index($i, "=") - 1) }
			/^# [a-z_]*: [a-z_]*=/ { for (i = 3; i <= NF; i++) print substr($i, 1, index($i, "=") - 1) }' \
			$data/stats-vm.txt $data/stats-vm-numa.txt $data/stats-2node.txt | tr ' ' '\n' | sort -u) \
		    $(sed -n 's/^#define TRACE_COLUMNS\t"# \(.*\)"$/\1/p' ../afa-stat.c) \
		    $(sed -n 's/^\tEXIT_[A-Z_]* = \([0-9]*\),.*/\1/p' ../afa-stat.c) 0; do
		grep -qE "^ {7}([^ ]+, )*$(printf '%s' "$name" | sed 's/[./]/\\&/g')(,| |$)" "$tmp/man.txt" ||
			missing="$missing $name"
	done
	for name in streams_used stream_slots costs; do
		grep -qw $name "$tmp/man.txt" || missing="$missing $name"
	done
	cols=$(sed -n 's/^#define TRACE_COLUMNS\t"\(.*\)"$/\1/p' ../afa-stat.c)
	tr -s ' \n' '  ' <"$tmp/man.txt" | grep -qF -- "$cols" || missing="$missing TRACE_COLUMNS"
	"$stat" -h | grep -qF -- "${cols#\# }" || missing="$missing TRACE_COLUMNS-in-usage"
	check "afa-stat.1 explains every header field, column and exit status of afa-stat.c (missing:${missing:- none})" \
		test -z "$missing"
	missing=
	for o in $(sed -n 's/^\t{ "\([a-z-]*\)",.*/\1/p' ../afa-stat.c); do
		grep -q -- "--$o" "$tmp/man.txt" || missing="$missing --$o"
	done
	check "afa-stat.1 documents every long option (missing:${missing:- none})" test -z "$missing"
fi

echo "afa-stat-test: $passed passed, $failed failed"
[ "$failed" = 0 ]

# SPDX-License-Identifier: GPL-2.0
# stress_writes random writes, valid and invalid, to every parameter in
# /sys/module/autofaultaround/parameters/ while workloads run.  awk draws
# them from the seed and models the module's rules (admin-guide.md,
# afa_ctl_params_check()), so it knows which must succeed and which must
# fail with EINVAL; the writes run from one generated script, builtins
# only (no fork per write).  At the end the parameters must be what the
# model says, consistent, and the log must not have flooded.
. /guest/stress/lib
prepare

modprobe autofaultaround period_ms=50 sample_every=4

# The parameters a write may change (owner-writable, 0644); a load-time
# one (0444: test_contract_unknown) refuses every write, and is checked
# for that alone, not fed to the model.
WPARAMS=$(find $PDIR -type f -perm -u+w | sort)
RPARAMS=$(find $PDIR -type f ! -perm -u+w | sort)
ro_bad=0
for f in $RPARAMS; do
	read -r was <"$f"
	if echo 1 2>/dev/null >"$f"; then
		ro_bad=$((ro_bad + 1))
		echo "stress: params: ${f##*/} (read-only) accepted a write"
	fi
	read -r now <"$f"
	[ "$now" = "$was" ] || { ro_bad=$((ro_bad + 1)); echo "stress: params: ${f##*/} (read-only) changed: $was -> $now"; }
done
check "params: the $(echo $RPARAMS | wc -w) read-only parameters refuse writes and keep their values ($ro_bad did not)" \
	test "$ro_bad" = 0

# A table of bad inputs, written to every parameter there is (found at
# run time: parameters come and go): each must fail with EINVAL and
# leave every parameter as it was.  sysfs hands the module a C string,
# so bytes after a NUL are invisible to it: the NUL row puts the NUL
# first, before a value valid alone, which must then not count.
snapshot() {
	SNAP=
	for f in $WPARAMS; do
		read -r v <"$f"
		SNAP="$SNAP ${f##*/}=$v"
	done
}
# 4 KiB of "1 1 1 ...": 2 bytes doubled 11 times
junk="1 "
i=0
while [ $i -lt 11 ]; do
	junk="$junk$junk"
	i=$((i + 1))
done
# bad NAME ROW STRING: echo -ne STRING into NAME must fail with EINVAL
# (the shell's error: echo, unlike printf, reports it) and change nothing
tbad=0 tn=0
bad() {
	tn=$((tn + 1))
	snapshot
	before=$SNAP
	if echo -ne "$3" 2>/tmp/werr >"$PDIR/$1"; then
		e="accepted"
	else
		read -r e </tmp/werr
	fi
	snapshot
	case "$e" in
	*"Invalid argument"*) [ "$SNAP" = "$before" ] && return ;;
	esac
	tbad=$((tbad + 1))
	echo "stress: params: table: $1 <- $2: $e; before:$before; after:$SNAP"
}
np=0
for f in $WPARAMS; do
	name=${f##*/}
	read -r cur <"$f"
	np=$((np + 1))
	bad $name "empty" '\n'
	bad $name "-1" '-1\n'
	bad $name "2^64" '18446744073709551616\n'
	bad $name "2^64+1 without newline" '18446744073709551617'
	bad $name "0x" '0x\n'
	bad $name "trailing garbage after its value" "${cur}zz\n"
	bad $name "its value, a space, garbage" "$cur 1\n"
	bad $name "a NUL, then its value" "\\0000$cur\n"
	bad $name "4 KiB of junk" "$junk"
done
# values valid alone that break a relation, where both parameters exist
rel() {
	[ -e $PDIR/$1 ] && [ -e $PDIR/$3 ] || { echo "stress: params: table: no $1 or $3: relation not tried"; return; }
	read -r o1 <$PDIR/$1
	read -r o3 <$PDIR/$3
	echo $2 >$PDIR/$1 || { tbad=$((tbad + 1)); echo "stress: params: table: $1=$2 refused"; }
	bad $3 "$4 with $1=$2" "$4\n"
	echo $o1 >$PDIR/$1
	echo $o3 >$PDIR/$3
}
rel max_order 5 min_order 6
rel min_order 3 max_order 2
rel kp 0 ki 0
rel ki 0 kp 0
check "params: the $tn bad inputs of the table (empty, -1, 2^64, 0x, trailing garbage, a NUL, 4 KiB of junk, broken relations) to each of the $np parameters fail with EINVAL and change nothing ($tbad did not)" \
	test "$tbad" = 0 -a "$np" -gt 0

# a leading 0 is octal, as the admin guide says: 010 is 8, 08 refused
read -r db0 <$PDIR/deadband
echo 010 >$PDIR/deadband
read -r db8 <$PDIR/deadband
bad deadband "08 (not octal)" '08\n'
echo $db0 >$PDIR/deadband
check "params: deadband=010 reads back as 8 (octal), 08 fails with EINVAL ($db8)" \
	test "$db8" = 8 -a "$tbad" = 0

start_loads seq sparse exec
rejected0=$(dmesg | grep -c 'autofaultaround: rejected')
lines0=$(dmesg | wc -l)

init=
for f in $WPARAMS; do
	init="$init ${f##*/}=$(cat $f)"
done
CHUNK=250
awk -v seed="$stress_seed" -v n="$stress_writes" -v init="$init" \
	-v chunk=$CHUNK -v pdir=$PDIR '
# kstrtou32()/kstrtouint() with base 0 as the generator writes them:
# decimal without a leading 0, or 0x hex; -1 when the kernel refuses it
function u32(v,   x, i, d) {
	if (v ~ /^(0|[1-9][0-9]*)$/) {
		if (length(v) > 10 || v + 0 > 4294967295)
			return -1
		return v + 0
	}
	if (v ~ /^0[xX][0-9a-fA-F]+$/) {
		x = 0
		for (i = 3; i <= length(v); i++) {
			d = index("0123456789abcdef", tolower(substr(v, i, 1))) - 1
			x = x * 16 + d
			if (x > 4294967295)
				return -1
		}
		return x
	}
	return -1
}

# afa_ctl_params_check() on the law parameters in p[]
function law_ok(p,   m) {
	if (p["max_order"] > 9 || p["min_order"] > p["max_order"])
		return 0
	if (!p["max_step"] || p["max_step"] > 9)
		return 0
	if (p["deadband"] >= 512 || p["hysteresis"] >= 512)
		return 0
	if (p["kp"] > 16384 || p["ki"] > 16384 || p["kd"] > 16384 ||
	    (!p["kp"] && !p["ki"]))
		return 0
	if (p["ewma_shift"] > 16 || !p["min_samples"])
		return 0
	return 1
}

# the class list as the module prints it, from a bit mask
function class_str(mask,   s, i) {
	s = ""
	for (i = 0; i < 7; i++)
		if (int(mask / bit[i]) % 2)
			s = s (s == "" ? "" : ",") cls[i]
	return s == "" ? "none" : s
}

# the mask of a classes= value, or -1 when the module refuses it
function class_mask(v,   t, k, i, j, m) {
	if (length(v) >= 95)
		return -1
	gsub(/^ +| +$/, "", v)
	if (v == "all")
		return 127
	if (v == "none")
		return 0
	k = split(v, t, ",")
	if (k == 0)
		return -1
	m = 0
	for (i = 1; i <= k; i++) {
		gsub(/^ +| +$/, "", t[i])
		for (j = 0; j < 7; j++)
			if (t[i] == cls[j])
				break
		if (j == 7)
			return -1
		if (int(m / bit[j]) % 2 == 0)
			m += bit[j]
	}
	return m
}

# try NAME VALUE: 1 and the new state in cur[] when the module accepts it
function try(name, v,   x, p, k, b) {
	if (name == "enabled" || name == "test_contract_mismatch") {
		# exactly one of 0 1 n N y Y (and the newline echo adds)
		if (v ~ /^[yY1]$/) { cur[name] = "Y"; return 1 }
		if (v ~ /^[nN0]$/) { cur[name] = "N"; return 1 }
		return 0
	}
	if (name == "classes") {
		x = class_mask(v)
		if (x < 0)
			return 0
		cur[name] = class_str(x)
		return 1
	}
	x = u32(v)
	if (x < 0)
		return 0
	if (name in law) {
		for (k in law)
			p[k] = cur[k]
		p[name] = x
		for (k in p)
			p[k] += 0
		if (!law_ok(p))
			return 0
	} else if (x < lo[name] || x > hi[name]) {
		return 0
	}
	cur[name] = x
	return 1
}

# busybox awk: no ^ (no math library), printf %x wraps at 2^31
function hex(v,   s) {
	s = ""
	do {
		s = substr("0123456789abcdef", v % 16 + 1, 1) s
		v = int(v / 16)
	} while (v > 0)
	return "0x" s
}

function rnd(k) {
	return int(rand() * k)
}

# a value to write to NAME: mostly plausible, often invalid
function value(name,   r, a, b, k, i, s, g) {
	r = rand()
	if (name == "enabled" || name == "test_contract_mismatch") {
		split("0 1 y n Y N yes no on off 2 x -1 o of On 0x 1x t f", g, " ")
		if (r < 0.1)
			return ""
		return g[1 + rnd(20)]
	}
	if (name == "classes") {
		if (r < 0.15)
			return "all"
		if (r < 0.25)
			return "none"
		if (r < 0.7) {
			k = 1 + rnd(4)
			s = ""
			for (i = 0; i < k; i++)
				s = s (i ? (rnd(3) ? "," : ", ") : "") cls[rnd(7)]
			return s
		}
		split("bogus|seq,bogus|seq,,rand|all,seq|SEQ|,|none,|exec;seq", g, "|")
		if (r < 0.75)
			return ""
		if (r < 0.8) {
			s = "seq"
			while (length(s) < 120)
				s = s ",seq"
			return s
		}
		return g[1 + rnd(8)]
	}
	a = lo[name]
	b = span[name]
	if (r < 0.55)
		return a + rnd(b - a + 1)
	if (r < 0.65)
		return hex(a + rnd(b - a + 1))
	if (r < 0.75) {
		k = rnd(4)
		if (k == 0)
			return a
		if (k == 1)
			return name == "period_ms" ? 1000 : hi[name]
		if (k == 2)
			return a > 0 ? a - 1 : "-1"
		return hi[name] + 1
	}
	if (r < 0.85) {
		split("4294967296 18446744073709551616 99999999999 4294967295", g, " ")
		return g[1 + rnd(4)]
	}
	split("abc| |1.5|12abc|0x| 7|7 7|-3|1e3|0x1g|+-1", g, "|")
	s = g[1 + rnd(11)]
	return s == " " ? "" : s
}

BEGIN {
	srand(seed)
	split("rand seq exec shmem shared rodata private", t, " ")
	for (i = 1; i <= 7; i++) {
		cls[i - 1] = t[i]
		bit[i - 1] = i == 1 ? 1 : bit[i - 2] * 2
	}
	split("kp ki kd deadband hysteresis ewma_shift min_samples min_order max_order max_step", t, " ")
	for (i in t)
		law[t[i]] = 1
	# individually valid ranges, and how far random values go
	split("kp 0 16384 16384|ki 0 16384 16384|kd 0 16384 16384|deadband 0 511 600|hysteresis 0 511 600|ewma_shift 0 16 17|min_samples 1 4294967295 64|min_order 0 9 10|max_order 0 9 10|max_step 1 9 10|period_ms 10 60000 500|sample_every 1 65536 64|page_price_ns 0 1048576 2000000|initial_order 0 9 10", t, "|")
	for (i in t) {
		split(t[i], f, " ")
		lo[f[1]] = f[2] + 0; hi[f[1]] = f[3] + 0; span[f[1]] = f[4] + 0
	}
	nn = split(init, t, " ")
	for (i = 1; i <= nn; i++) {
		split(t[i], f, "=")
		name[i] = f[1]
		cur[f[1]] = f[2] ~ /^[0-9]+$/ ? f[2] + 0 : f[2]
		if (!(f[1] in lo) && f[1] != "enabled" && f[1] != "classes" &&
		    f[1] != "test_contract_mismatch")
			unknown = unknown " " f[1]
	}
	if (unknown != "") {
		print "echo \"FAIL: params: the model does not know" unknown ": teach 20-params.sh\""
		print "nw=0"
		exit
	}
	print "P=" pdir
	print "ok=0 rej=0 wrong_ok=0 wrong_rej=0 other=0 nw=0 done_chunks=0"
	print "w() {"
	print "	nw=$((nw + 1))"
	print "	if echo \"$2\" 2>/tmp/werr >\"$P/$1\"; then"
	print "		ok=$((ok + 1))"
	print "		[ $3 = 1 ] && return"
	print "		wrong_ok=$((wrong_ok + 1))"
	print "		[ $wrong_ok -le 10 ] && echo \"stress: params: write $1=\x27$2\x27 succeeded, the model says EINVAL\""
	print "		return"
	print "	fi"
	print "	read -r e </tmp/werr"
	print "	case \"$e\" in"
	print "	*\"Invalid argument\"*) rej=$((rej + 1)) ;;"
	print "	*) other=$((other + 1)); echo \"stress: params: write $1=\x27$2\x27: $e\"; return ;;"
	print "	esac"
	print "	[ $3 = 0 ] && return"
	print "	wrong_rej=$((wrong_rej + 1))"
	print "	[ $wrong_rej -le 10 ] && echo \"stress: params: write $1=\x27$2\x27 failed with EINVAL, the model says valid\""
	print "}"
	# tl K: K chunks done
	print "tl() {"
	print "	done_chunks=$1"
	print "}"
	for (w = 1; w <= n; w++) {
		p = name[1 + rnd(nn)]
		v = value(p)
		e = try(p, v)
		printf "w %s \x27%s\x27 %d\n", p, v, e
		if (w % chunk == 0 || w == n) {
			k = int((w + chunk - 1) / chunk)
			printf "tl %d\n", k
			for (i = 1; i <= nn; i++)
				print k, name[i] "=" cur[name[i]] >"/tmp/pw.expect"
		}
		nvalid += e
	}
	printf "stress: params: %d writes generated, %d valid by the model\n", n, nvalid >"/dev/stderr"
}' >/tmp/pw.sh
echo "stress: $stress_writes random parameter writes (seed $stress_seed, $CHUNK a chunk)"
start_clock
. /tmp/pw.sh
t=$(elapsed)
stop_loads "params"
echo "stress: params: $nw writes in ${t}s ($done_chunks chunks): $ok accepted, $rej rejected with EINVAL, $other other errors; accepted but invalid $wrong_ok, rejected but valid $wrong_rej"
check "params: $nw random writes ran ($stress_writes asked)" \
	test "$nw" = "$stress_writes"
check "params: every invalid write failed with EINVAL ($rej rejected, $wrong_ok invalid accepted, $other other errors)" \
	test "$wrong_ok" = 0 -a "$other" = 0
check "params: every valid write succeeded ($ok accepted, $wrong_rej valid rejected)" \
	test "$wrong_rej" = 0

# the parameters are what the model says after the last chunk run
got=$(for f in $WPARAMS; do echo "${f##*/}=$(cat $f)"; done)
want=$(awk -v k="$done_chunks" '$1 == k { print $2 }' /tmp/pw.expect)
[ "$got" = "$want" ] || { echo "stress: params: got:"; echo "$got"; echo "model:"; echo "$want"; }
check "params: the parameters are what the model says after the writes" test "$got" = "$want"
p() { cat $PDIR/$1; }
db=$(p deadband)
check "params: consistent: min_order $(p min_order) <= max_order $(p max_order) <= 9, deadband $db < 512, hysteresis $(p hysteresis) < 512, kp $(p kp) or ki $(p ki) non-zero" \
	test "$(p min_order)" -le "$(p max_order)" -a "$(p max_order)" -le 9 \
	-a "$db" -lt 512 -a "$(p hysteresis)" -lt 512 \
	-a $(($(p kp) + $(p ki))) -gt 0

# the log: the module's rejected lines are rate-limited (printk's
# default: 10 lines per 5 s, then "callbacks suppressed"), so they may
# grow with time but never with the number of writes: at most 100, or
# 2 a second on a kernel slow enough (a debug kernel) to take longer
rejected=$(($(dmesg | grep -c 'autofaultaround: rejected') - rejected0))
lines=$(($(dmesg | wc -l) - lines0))
most=$((10 * (t / 5 + 2)))
[ $most -lt 100 ] && most=100
echo "stress: params: $rejected 'autofaultaround: rejected' lines and $lines kernel log lines in all for $rej rejected writes in ${t}s"
check "params: the log does not flood ($rejected 'rejected' lines <= $most for $rej rejected writes in ${t}s, $lines lines in all <= $((2 * most)))" \
	test "$rejected" -le $most -a "$lines" -le $((2 * most)) -a $((4 * rejected)) -le "$rej"

# a quick period again: the figures must be sane once the bounds are
# applied, which a fold does; the writes may have left enabled=0, whose
# detached probes wake no fold (STRESS_WRITES=500 does)
echo 1 >$PDIR/enabled
echo 20 >$PDIR/period_ms
sleep 1.2
wait_periods 3
stats_sane >/tmp/sane.out
r=$?
cat /tmp/sane.out
check "params: stats sane after the writes" test $r = 0
check "params: rmmod succeeds" rmmod_retry
check "params: no kernel report" dmesg_clean

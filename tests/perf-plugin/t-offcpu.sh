#!/usr/bin/env bash
# Off-CPU time: perf flame record --off-cpu records sched:sched_switch with
# callchains; the dlfilter pairs switch-out with switch-in and weights in us.
. "$(dirname "$0")/lib-perf.sh"
build_wl sleepy
cd "$TMP"
# -a records every process: a unique comm keeps a concurrent run's sleepy out
W=sl$$
mv sleepy "$W"
perf record -q -a -e sched:sched_switch -o probe2.data true > /dev/null 2>&1 ||
	skip "sched:sched_switch cannot be recorded system-wide here"
# ref FILE: an independent pairing of FILE's switches of $W's threads in nap (offcpu-ref.py),
# "N US ESTIMATED PREEMPTED" (ESTIMATED: intervals whose switch-in perf left out unsaid, ended
# by the documented rule; PREEMPTED: those begun runnable); the intervals go to stderr
ref() {
	[ -s "$1.ref" ] || perf script -i "$1" --ns -F comm,tid,cpu,time,event,trace,ip,sym 2> /dev/null |
		python3 "$HERE/offcpu-ref.py" "$W" nap > "$1.ref" || fail "offcpu-ref.py on $1"
	sed 1d "$1.ref" >&2
	head -1 "$1.ref"
}
# record_nap FILE OUT MODE ARGS...: perf flame record MODE -o FILE -- ./$W ARGS (output in OUT),
# again up to 3 times while perf left switch-ins of nap out unsaid, as on a loaded machine
# (the pairing is compared to the reference's to the microsecond, and for such intervals
# the two once ended 1.1 ms apart; the rule for them is test-offcpu.c's). Sets wall (us).
record_nap() {
	local f=$1 out=$2 mode=$3 try t0 est
	shift 3
	for try in 1 2 3; do
		rm -f "$f" "$f.ref"
		t0=$(date +%s%N)
		"$PERF_FLAME" record "$mode" -q -o "$f" -- "./$W" "$@" > "$out" 2>&1 ||
			{ cat "$out"; fail "perf flame record $mode"; }
		wall=$((($(date +%s%N) - t0) / 1000))
		est=$(ref "$f" 2> /dev/null | awk '{ print $3 }')
		[ "$est" = 0 ] && return
		echo "note: perf left out $est switch-in(s) of nap unsaid (try $try)" >&2
	done
}
record_nap off.data rec.out --off-cpu
off_wall=$wall
perf evlist -i off.data | grep -q 'sched:sched_switch' || fail "sched_switch not recorded"
"$PERF_FLAME" report -i off.data --folded off.folded -o off.svg 2> rep.err || { cat rep.err; fail "report"; }
assert_contains rep.err "folding inside perf script"
# nap() blocks 5 x 100 ms in nanosleep: ~500000 us on the stack through nap, plus
# the wait for a CPU after each wakeup (off-CPU time ends at the switch-in)
# (all of nap's off-CPU time, as the reference counts it: on a loaded machine nap is also
# preempted outside do_nanosleep, 30 us of 555 ms beside two busy loops)
nap=$(weight_of off.folded "^$W;"'.*;main;nap(;|$)')
# low FILE BOUND: the lower bound of nap's off-CPU time, unless perf says it lost records
# of FILE (a lost switch-in can only undercount an interval): then 0, said
lost() { perf report -i "$1" --stats 2> /dev/null | awk '/^ *LOST(_SAMPLES)? events:/ { s += $3 } END { print s + 0 }'; }
low() {
	local lost
	lost=$(lost "$1")
	if [ "${lost:-0}" -gt 0 ]; then
		echo "note: perf lost $lost records of $1 (machine busy): no lower bound for nap" >&2
		echo 0
	else
		echo "$2"
	fi
}
# high FILE BOUND WALL_US: the upper bound, unless perf lost records of FILE (an interval
# whose switch-in is missing ends at a later switch seen on that CPU) or the machine is
# so busy that waking threads wait long for a CPU: then the recording's wall time, which
# no interval of the program can exceed
high() {
	local lost load
	lost=$(lost "$1")
	load=$(awk '{ print int($1) }' /proc/loadavg)
	if [ "${lost:-0}" -gt 0 ] || [ "$load" -ge "$(nproc)" ]; then
		echo "note: perf lost $lost records of $1, load $load: upper bound the wall time" >&2
		echo "$3"
	else
		echo "$2"
	fi
}
echo "nap blocked $nap us"
# nap_low FILE: nanosleep never returns early, so each nap whose switch-in perf recorded is
# at least 100 ms off-CPU (arming the timer to the switch-out takes microseconds: 0.2 ms
# left for it); one whose switch-in perf left out may end early (said, and not counted)
nap_low() {
	local r
	r=$(ref "$1" 2> /dev/null)
	set -- $r
	[ "$4" = 0 ] || echo "note: nap preempted $4 time(s) (not a nap each)" >&2
	[ "$(($1 - $4))" = 5 ] || echo "note: perf delivered $(($1 - $4)) of the 5 naps" >&2
	[ "$3" = 0 ] || echo "note: perf left out $3 switch-in(s) unsaid: those naps not bounded below" >&2
	echo $((($1 - $3 - $4) * 99800))
}
# check_nap WHAT FILE GOT WALL: the pairing is the reference's to the microsecond, and
# within [nap_low, 650 ms] (waiting for a CPU after each wakeup adds to it; under load,
# at most the recording's wall time)
check_nap() {
	local r
	r=$(ref "$2")
	set -- "$@" $r
	assert_eq "$1: flamekit's pairing vs the reference's (us)" "$6" "$3"
	assert_between "$1 (us)" "$(nap_low "$2")" "$(high "$2" 650000 "$4")" "$3"
}
check_nap "off-CPU time in nap" off.data "$nap" "$off_wall"
grep -q "$W" off.svg || fail "no $W in SVG"
# the off-CPU preset: counts called us, the title, the io palette (blues: red == green < blue)
FKF="$FK_TOP/tests/svg/fkframes.py"
python3 "$FKF" off.svg --config > off.cfg || fail "fkframes off.svg"
assert_contains off.cfg '"cn": "us"'
assert_contains off.svg '>Off-CPU Time Flame Graph</text>'
python3 "$FKF" off.svg --rgb | awk -F '\t' '{ split($5, c, /[(,)]/); r = c[2]; g = c[3]; b = c[4]
	if (!(r == g && b > r)) { print; bad = 1 } } END { exit bad }' ||
	fail "off-CPU graph not in the io palette"

# the text route: `perf script | flamekit` pairs the same sched_switch events into the
# same off-CPU stacks (perf script prints microseconds: each interval within 1 us)
perf script -i off.data > off.txt 2> /dev/null || fail "perf script (text)"
"$FLAMEKIT" collapse off.txt > text.folded 2> text.err
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 3 ] || { cat text.err; fail "collapse of sched_switch text (exit $rc)"; }
perf script -i off.data --dlfilter "$DLF" --dlarg exact-ret > dlx.folded 2> /dev/null || fail "dlfilter exact-ret"
tnap=$(weight_of text.folded "^$W;"'.*;main;nap(;|$)')
echo "text route: nap blocked $tnap us"
assert_between "text route nap vs dlfilter (us)" $((nap - 10)) $((nap + 10)) "$tnap"
grep "^$W;" text.folded | sed 's/ [0-9]*$//' > text.stacks
grep "^$W;" dlx.folded | sed 's/ [0-9]*$//' > dl.stacks
assert_files_eq dl.stacks text.stacks
# all processes (-a): the totals agree too; the dlfilter also folds ":-1" (perf's lost
# tasks, whose headers the perl's regex does not take), left out here
grep -v '^:-1' dlx.folded > dlx-named.folded
tt=$(weight_of text.folded .)
dt=$(weight_of dlx-named.folded .)
echo "totals: text $tt us, dlfilter $dt us"
assert_between "text total vs dlfilter total (us)" $((dt - dt / 200)) $((dt + dt / 200)) "$tt"
# and it says so: us, the off-CPU title, the io palette
"$FLAMEKIT" svg off.txt -o text.svg 2> /dev/null
python3 "$FKF" text.svg --config | grep -q '"cn": "us"' || fail "text route does not count us"
assert_contains text.svg '>Off-CPU Time Flame Graph</text>'
python3 "$FKF" text.svg --rgb | awk -F '\t' '{ split($5, c, /[(,)]/); if (!(c[2] == c[3] && c[4] > c[2])) bad = 1 } END { exit bad }' ||
	fail "text route graph not in the io palette"

# combined on/off-CPU: burn() runs 5 x 150 ms; both in microseconds
record_nap both.data rec2.out --combined 150
both_wall=$wall
"$PERF_FLAME" report -i both.data --folded both.folded 2> rep2.err || { cat rep2.err; fail "report combined"; }
off_nap=$(weight_of both.folded "^$W;"'.*;main;nap;.*\[off-cpu\]$')
on_burn=$(weight_of both.folded "^$W;"'.*;main;burn$')
all_burn=$(weight_of both.folded "^$W;"'.*;main;burn(;|$)')
echo "combined: nap off-CPU $off_nap us, burn on-CPU $on_burn us, burn wall $all_burn us"
check_nap "combined off-CPU nap" both.data "$off_nap" "$both_wall"
[ "$on_burn" -gt 0 ] || fail "no on-CPU time in burn"
# burn() runs 5 x 150 ms of wall time: on-CPU (cpu-clock at 99 Hz, coarse) plus
# the time it was preempted (off-CPU) add up to it. Sharing a CPU, burn is on it at
# a tick as a coin falls: at half a CPU, 5 x 60 ms held ~15 of its 30 ticks, sd 2.7,
# and 6 or fewer (under 220 ms in all) came once in ~1,400 runs; 5 x 150 ms: ~37 of
# 74, sd 4.3, and under 550 ms takes 17 or fewer, 4.5 sd (1 in 600,000). At rest the
# ticks come every 10.1 ms of its run: 14-15 a burn, 707-757 ms in all
assert_between "combined wall time of burn (us)" "$(low both.data 550000)" "$(high both.data 1200000 $both_wall)" "$all_burn"

# the combined graph: counts in us, its own title; a frame is blue exactly when all of its
# time lies under [off-cpu] marks (the mark itself; the kernel's sleep path unless an
# on-CPU sample landed there too), the others keep the hot palette (every frame drawn)
"$PERF_FLAME" report -i both.data --minwidth 0 -o both.svg 2> rep3.err || { cat rep3.err; fail "report combined svg"; }
python3 "$FKF" both.svg --config | grep -q '"cn": "us"' || fail "combined graph does not count us"
assert_contains both.svg '>On/Off-CPU Time Flame Graph</text>'
python3 "$FKF" both.svg --rgb > both.tsv || fail "fkframes both.svg"
python3 - both.tsv <<'PY' || fail "off-CPU colours of the combined graph"
import re, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
par, stack, off = [], [], [0.0] * len(rows)
for i, r in enumerate(rows):
    d = int(r[1])
    del stack[d:]
    par.append(stack[-1] if stack else None)
    stack.append(i)
for i in reversed(range(len(rows))):
    if rows[i][6] == "[off-cpu]":
        off[i] = float(rows[i][5])
    if par[i] is not None:
        off[par[i]] += off[i]
bad = nblue = 0
for i, r in enumerate(rows[1:], 1):
    R, G, B = map(int, re.findall(r"\d+", r[4]))
    blue = R == G and B > R
    want = off[i] >= float(r[5])
    nblue += blue
    if blue != want:
        print("frame %s (%s of %s us off-CPU) drawn %s" % (r[6], off[i], r[5], r[4]))
        bad = 1
if nblue == 0 or not any(r[6] == "burn" for r in rows):
    print("no off-CPU frames or no burn")
    bad = 1
sys.exit(bad)
PY

# offcpu-min drops short intervals (all of nap's are ~100 ms); blocked-only
# keeps nap (state S) and drops burn's preemptions (state R)
perf script -i both.data --dlfilter "$DLF" --dlarg mode=offcpu --dlarg offcpu-min=50000 > min.folded 2> /dev/null ||
	fail "offcpu-min"
assert_between "nap with offcpu-min=50ms (us)" "$(nap_low both.data)" "$(high both.data 650000 $both_wall)" \
	"$(weight_of min.folded "^$W;.*;main;nap;")"
awk '{ if ($NF < 50000) { print; bad = 1 } } END { exit bad }' min.folded || fail "offcpu-min kept a short interval"
perf script -i both.data --dlfilter "$DLF" --dlarg mode=offcpu --dlarg blocked-only > blk.folded 2> /dev/null ||
	fail "blocked-only"
assert_between "nap with blocked-only (us)" "$(nap_low both.data)" "$(high both.data 650000 $both_wall)" \
	"$(weight_of blk.folded "^$W;.*;main;nap;")"
grep -q "^$W;.*;main;burn;" blk.folded && fail "blocked-only kept burn's preemptions"
# the off-CPU samples file carries the blocked time per interval
perf script -i off.data --dlfilter "$DLF" --dlarg samples=off.samples > /dev/null 2>&1 || fail "off-CPU samples"
assert_between "nap in the samples file (us)" "$(nap_low off.data)" "$(high off.data 650000 $off_wall)" \
	"$(awk -F '\t' -v w="$W" '$5 == w && $7 ~ /;main;nap;/ { s += $6 } END { print s + 0 }' off.samples)"

# on-CPU only mode on the same file ignores sched_switch
perf script -i both.data --dlfilter "$DLF" --dlarg mode=cpu > cpu.folded 2> /dev/null || fail "mode=cpu"
grep -q '\[off-cpu\]' cpu.folded && fail "mode=cpu kept off-CPU stacks"
# a wrong format file is a clear error, not garbage
echo "name: nonsense" > bad.format
run_fails perf script -i off.data --dlfilter "$DLF" --dlarg sched-format=bad.format > /dev/null 2> fmt.err
assert_contains fmt.err "bad.format"
echo ok

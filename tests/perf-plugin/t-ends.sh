#!/usr/bin/env bash
# How a perf flame run ends (docs/exit-status.md): a workload's own failure or
# Ctrl-C is not perf flame's (samples drawn, one note, status 0); INT/TERM/HUP to
# perf flame while it records = stop and draw, a second signal aborts; a reader
# that closes stdout ends it quietly; -i - reads a pipe-mode recording from stdin;
# nothing folded = status 1 naming the input, no output file (never a temp name).
. "$(dirname "$0")/lib-perf.sh"
build_wl work
cd "$TMP"
export PATH=$BUILD:$PATH

# wait_for FILE: poll (generous: two suites may share two cores)
wait_for() { local i; for i in $(seq 600); do [ -s "$1" ] && return 0; sleep 0.1; done; fail "$1 never appeared"; }
# wait_ran PIDFILE TICKS: until the workload has run TICKS clock ticks (1/100 s)
# on a CPU, so perf record has samples however loaded the machine is
wait_ran() { wait_for "$1"; wait_cpu "$(cat "$1")" "$2"; }
# a long workload that says when it runs and which pid it has
cat > wl.sh <<'SH'
echo $$ > "$1"
exec ./work 120000
SH

# --- the workload exits 7: drawn, one note, status 0
perf flame -q -o w7.svg --folded w7.folded -- sh -c './work 1500; exit 7' > w7.out 2> w7.err
rc=$?
[ $rc = 0 ] || { cat w7.err; fail "perf flame on a workload exiting 7: status $rc"; }
grep -q '<svg' w7.svg || fail "no SVG for a workload exiting 7"
grep -q ';main;a;b;spin ' w7.folded || fail "exit 7: main;a;b;spin not drawn"
assert_contains w7.err "the workload exited with status 7"
assert_not_contains w7.err "failed"
# perf itself failing is still a failure: no recording written
run_rc 1 perf flame -q -o bad.svg -e no_such_event -- ./work 10 > /dev/null 2> bad.err
assert_contains bad.err "perf record failed"
[ -e bad.svg ] && fail "an SVG for a recording perf could not make"

# perf record killed mid-recording: its file has no final header, perf's own failure
"$PERF_FLAME" -q -i k.data -o k.svg -- sh wl.sh k.pid > k.out 2> k.err &
pf=$!
wait_ran k.pid 30
pr=$(pgrep -P "$pf" -x perf) || fail "no perf record under perf flame"
kill -9 "$pr"
wait "$pf"
rc=$?
kill "$(cat k.pid)" 2> /dev/null   # perf's workload outlives it
[ $rc = 1 ] || { cat k.err; fail "perf record killed: status $rc"; }
assert_contains k.err "perf record failed"
[ -e k.svg ] && fail "perf record killed: an SVG was drawn"

# --- Ctrl-C: SIGINT to the whole process group, as a terminal sends it
setsid perf flame -q -o int.svg --folded int.folded -- sh wl.sh int.pid > int.out 2> int.err &
pf=$!
wait_ran int.pid 50
kill -INT -- -"$pf"
wait "$pf"
rc=$?
[ $rc = 0 ] || { cat int.err; fail "Ctrl-C: status $rc"; }
grep -q '<svg' int.svg || fail "Ctrl-C: no SVG"
grep -q ';main;' int.folded || fail "Ctrl-C: main not drawn"
assert_contains int.err "SIGINT"
kill -0 "$(cat int.pid)" 2> /dev/null && fail "Ctrl-C: the workload still runs"

# --- SIGTERM and SIGHUP to perf flame alone (a supervisor, timeout, a closed terminal)
for sig in TERM HUP; do
	"$PERF_FLAME" -q -o $sig.svg --folded $sig.folded -- sh wl.sh $sig.pid > $sig.out 2> $sig.err &
	pf=$!
	wait_ran $sig.pid 50
	kill -$sig "$pf"
	wait "$pf"
	rc=$?
	[ $rc = 0 ] || { cat $sig.err; fail "SIG$sig: status $rc"; }
	grep -q '<svg' $sig.svg && grep -q ';main;' $sig.folded || fail "SIG$sig: nothing drawn"
	assert_contains $sig.err "recording stopped by SIG$sig"
	assert_not_contains $sig.err "failed"
	kill -0 "$(cat $sig.pid)" 2> /dev/null && fail "SIG$sig: the workload still runs"
done
# a second signal aborts: nothing drawn, status 1 (two kinds: one kind would merge)
"$PERF_FLAME" -q -o two.svg -- sh wl.sh two.pid > two.out 2> two.err &
pf=$!
wait_ran two.pid 30
kill -TERM "$pf"
kill -HUP "$pf"
wait "$pf"
rc=$?
kill "$(cat two.pid)" 2> /dev/null   # perf record was killed: its workload is left running
[ $rc = 1 ] || { cat two.err; fail "two signals: status $rc"; }
assert_contains two.err "second signal"
[ -e two.svg ] && fail "two signals: an SVG was drawn"
# the two requests span the children: the first stops perf record, the second
# comes while perf script runs (PERF: a perf that holds perf script until told,
# saying when it started) and aborts it; one request alone lets it draw
cat > holdperf <<SH
#!/bin/sh
if [ "\$1" = script ]; then
	echo \$\$ > "\$HOLD.script"
	i=0
	while [ ! -e "\$HOLD.go" ] && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done
fi
exec ${PERF:-$(command -v perf)} "\$@"
SH
chmod +x holdperf
for n in 1 2; do
	rm -f held$n.*
	HOLD=$TMP/held$n PERF=$TMP/holdperf "$PERF_FLAME" -q -o held$n.svg -- sh wl.sh held$n.pid > held$n.out 2> held$n.err &
	pf=$!
	wait_ran held$n.pid 30
	kill -TERM "$pf"
	wait_for held$n.script
	[ $n = 2 ] && kill -HUP "$pf"
	touch held$n.go
	wait "$pf"
	rc=$?
	if [ $n = 1 ]; then
		[ $rc = 0 ] || { cat held1.err; fail "TERM, then perf script: status $rc"; }
		grep -q '<svg' held1.svg || fail "TERM, then perf script: nothing drawn"
		assert_contains held1.err "recording stopped by SIGTERM"
	else
		[ $rc = 1 ] || { cat held2.err; fail "TERM, then HUP during perf script: status $rc"; }
		assert_contains held2.err "second signal"
		[ -e held2.svg ] && fail "TERM, then HUP during perf script: an SVG was drawn"
	fi
	kill -0 "$(cat held$n.pid)" 2> /dev/null && fail "held$n: the workload still runs"
done
ls held*.part.* 2> /dev/null && fail "a second signal left a part file"

# --- a reader that stops reading: quiet, status 0 (both report paths)
perf record -q -F 999 -g -o r.data ./work 300 > /dev/null 2>&1 || fail "perf record"
for path in "" --text; do
	for out in "--folded -" "-o /dev/stdout"; do
		perf flame report -q $path -i r.data $out 2> pipe.err | true
		rc=${PIPESTATUS[0]}
		[ "$rc" = 0 ] || fail "report $path $out | true: status $rc: $(cat pipe.err)"
		[ -s pipe.err ] && fail "report $path $out | true printed: $(cat pipe.err)"
	done
done

# --- -i -: a pipe-mode recording on standard input, as perf script -i - reads it
perf record -q -F 999 -g -o - ./work 300 2> /dev/null > pipe.data || fail "perf record -o -"
perf flame report -q -i pipe.data --folded file.folded 2> /dev/null || fail "report -i pipe.data"
cat pipe.data | perf flame report -i - --folded stdin.folded 2> stdin.err ||
	{ cat stdin.err; fail "report -i - from a pipe"; }
assert_contains stdin.err "standard input: folding inside perf script"
assert_files_eq file.folded stdin.folded
grep -q ';main;a;b;spin ' stdin.folded || fail "-i -: main;a;b;spin missing"
# live, and a --call-graph dwarf stream (the text path: perf script reads the same stdin)
perf record -q -F 999 -g -o - ./work 200 2> /dev/null | perf flame report -q -i - -o live.svg --folded live.folded ||
	fail "perf record -o - | perf flame report -i -"
grep -q ';main;c;spin ' live.folded && grep -q '<svg' live.svg || fail "live pipe: main;c;spin missing"
perf record -q -F 999 --call-graph dwarf -o - ./work 200 2> /dev/null |
	perf flame report -i - --folded dw.folded 2> dw.err || { cat dw.err; fail "dwarf stream on stdin"; }
assert_contains dw.err "perf script\` text"
grep -q ';main;' dw.folded || fail "dwarf stream: main missing"
run_rc 1 perf flame report -i - -o x.svg < r.data 2> notpipe.err
assert_contains notpipe.err "give it as -i FILE"
echo "not perf" | run_rc 1 perf flame report -i - -o x.svg 2> junk.err
assert_contains junk.err "standard input is not a perf.data stream"

# --- nothing folds: status 1 for every output, the input named, no file left
perf record -q -e cpu-clock -c 100000000000 -o none.data true > /dev/null 2>&1 || fail "perf record (no samples)"
for out in "--folded none.folded" "-o none.svg" "-o none.html" "--text --folded none.folded" "--text -o none.svg"; do
	run_rc 1 perf flame report -i none.data $out 2> none.err
	assert_contains none.err "none.data"
	assert_contains none.err "nothing written"
	assert_not_contains none.err ".part."
	ls none.* 2> /dev/null | grep -v '^none\.\(data\|err\)$' && fail "$out: an output was left"
done
run_rc 1 perf flame report -i r.data --event no-such-event --folded f.folded 2> filt.err
assert_contains filt.err "all were filtered out"
[ -e f.folded ] && fail "an empty folded file was left"
ls ./*.part.* ./*.tmp.* 2> /dev/null && fail "temporary files left behind"
echo ok

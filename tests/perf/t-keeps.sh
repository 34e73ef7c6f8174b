#!/usr/bin/env bash
# t-keeps.sh - perf script text that the perl loses and flamekit (like inferno) keeps, on real
# recordings: a recording without -g (each sample folded as comm;symbol), a last sample with
# no blank line after it, frame lines orphaned by a missing header (warned, file:line, exit
# 3), --event-filter EVENT matching EVENT:modifiers, --show-task-events/--show-mmap-events.
. "$(dirname "$0")/../lib.sh"
command -v perf > /dev/null || skip "perf not installed"
command -v gcc > /dev/null || skip "gcc not installed"
P=$FK_TOP/tests/perf/prog
cd "$TMP" || fail "cd"
gcc -O1 -g -fno-omit-frame-pointer -o fk-perf-fp "$P/fk-perf-fp.c" || fail "gcc"
perf record -q -F 499 -e cpu-clock -o nog.data ./fk-perf-fp 0.5 > rec.log 2>&1 ||
	skip "perf record does not work here: $(tail -1 rec.log)"
perf record -q -F 499 -e cpu-clock:ppp -g -o g.data ./fk-perf-fp 0.5 > rec.log 2>&1 || fail "perf record -g"
perf script -i nog.data > nog.txt 2> /dev/null || fail "perf script"
perf script -i g.data > g.txt 2> /dev/null || fail "perf script"
n=$(grep -c ' fk-perf-fp ' nog.txt)
ng=$(grep -c ' cpu-clock:ppp: $' g.txt)
[ "$n" -ge 10 ] && [ "$ng" -ge 10 ] || skip "only $n and $ng samples recorded (machine too busy?)"

# without -g: one line per sample, comm right-aligned, no blank lines
grep -q '^ *fk-perf-fp  *[0-9].* cpu-clock: .* leaf_hot+0x[0-9a-f]* (' nog.txt || fail "unexpected perf script layout: $(head -1 nog.txt)"
run_rc 0 "$FLAMEKIT" collapse --samples nog.txt > nog.folded 2> err
[ -s err ] && { cat err >&2; fail "warnings on a recording without -g"; }
assert_eq "every sample counted once" "$(wc -l < nog.txt)" "$(awk '{s += $NF} END {print s}' nog.folded)"
grep -q '^fk-perf-fp;leaf_hot [0-9]' nog.folded || fail "no fk-perf-fp;leaf_hot: $(head -3 nog.folded)"
awk '{n = split($1, f, ";"); if (n != 2) exit 1}' nog.folded || fail "not comm;symbol: $(head -3 nog.folded)"
# the same as the header and its frame written as a sample with a callchain
awk '{ if (match($0, /cpu-clock: +/)) { h = substr($0, 1, RSTART + 10); sub(/^ +/, "", h);
	print h " "; print "\t" substr($0, RSTART + RLENGTH); print "" } }' nog.txt > nog-g.txt
run_rc 0 "$FLAMEKIT" collapse nog.txt > a.folded
run_rc 0 "$FLAMEKIT" collapse nog-g.txt > b.folded
assert_files_eq b.folded a.folded
# also through a pipe, with --show-task-events --show-mmap-events lines among the samples
perf script -i nog.data --show-task-events --show-mmap-events 2> /dev/null > nogt.txt
grep -q 'PERF_RECORD_COMM' nogt.txt || fail "no PERF_RECORD_COMM line"
cat nogt.txt | run_rc 0 "$FLAMEKIT" collapse > c.folded
assert_files_eq a.folded c.folded

# --event-filter cpu-clock keeps cpu-clock:ppp (the event with its modifiers)
grep -q ' cpu-clock:ppp: $' g.txt || fail "no cpu-clock:ppp events: $(head -1 g.txt)"
run_rc 0 "$FLAMEKIT" collapse g.txt > g.folded
run_rc 0 "$FLAMEKIT" collapse --event-filter cpu-clock g.txt > gf.folded
assert_files_eq g.folded gf.folded
# an event that is not there: the advice names the events that are (not "record with -g")
run_rc 1 "$FLAMEKIT" collapse --event-filter cpu-cloc g.txt > /dev/null 2> err
assert_contains err "g.txt:1: no sample has the event 'cpu-cloc' (--event-filter); the first other event is 'cpu-clock:ppp'"
assert_not_contains err "record with -g"

# --show-task-events / --show-mmap-events with callchains: detected, same stacks
perf script -i g.data --show-task-events --show-mmap-events 2> /dev/null > gt.txt
grep -q 'PERF_RECORD_MMAP' gt.txt || fail "no PERF_RECORD_MMAP line"
run_rc 0 "$FLAMEKIT" collapse gt.txt > gt.folded 2> err
[ -s err ] && { cat err >&2; fail "warnings on --show-task-events output"; }
assert_files_eq g.folded gt.folded

# the last sample with no blank line after it is kept (also when the input is split)
head -c -1 g.txt > cut.txt
[ "$(tail -c 1 cut.txt | od -An -c | tr -d ' ')" = '\n' ] && [ -n "$(tail -n 1 cut.txt)" ] || fail "cut.txt"
run_rc 0 "$FLAMEKIT" collapse cut.txt > cut.folded
assert_files_eq g.folded cut.folded
FLAMEKIT_SPLIT_MIN=1 run_rc 0 "$FLAMEKIT" collapse --threads 2 cut.txt > cut2.folded
assert_files_eq g.folded cut2.folded

# a header missing in the middle: its frame lines are skipped with a warning at the first
hl=$(grep -n ' cpu-clock:ppp: $' g.txt | sed -n '5p' | cut -d: -f1)
sed "${hl}d" g.txt > orphan.txt
run_rc 3 "$FLAMEKIT" collapse orphan.txt > orphan.folded 2> err
assert_contains err "orphan.txt:$hl: frame line with no sample header before it"
assert_eq "one warning" 1 "$(grep -c 'frame line with no sample header' err)"
# the other samples are all there: one sample less than the whole recording
run_rc 0 "$FLAMEKIT" collapse --samples g.txt > s1.folded
run_rc 3 "$FLAMEKIT" collapse --samples orphan.txt > s2.folded 2> /dev/null
assert_eq "samples kept" "$(($(awk '{s += $NF} END {print s}' s1.folded) - 1))" "$(awk '{s += $NF} END {print s}' s2.folded)"
echo "ok: no -g ($n samples), last sample, orphaned frames, event modifiers, task/mmap events"

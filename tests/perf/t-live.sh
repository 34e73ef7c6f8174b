#!/usr/bin/env bash
# t-live.sh - real perf on real programs: record fresh frame-pointer and --inline runs of the
# programs in tests/perf/prog, fold them, and check the call chains the code has.
. "$(dirname "$0")/../lib.sh"
command -v perf > /dev/null || skip "perf not installed"
command -v gcc > /dev/null || skip "gcc not installed"
P=$FK_TOP/tests/perf/prog
cd "$TMP" || fail "cd"
gcc -O1 -g -fno-omit-frame-pointer -o fk-perf-fp "$P/fk-perf-fp.c" || fail "gcc"
perf record -q -F 499 -e cpu-clock -g -o fp.data ./fk-perf-fp 0.5 > rec.log 2>&1 ||
	skip "perf record does not work here: $(tail -1 rec.log)"
perf script -i fp.data > fp.txt 2> /dev/null || fail "perf script"
hdrs=$(grep -c '^fk-perf-fp ' fp.txt)
[ "$hdrs" -ge 20 ] || skip "only $hdrs samples recorded (machine too busy?)"

run_rc 0 "$FLAMEKIT" collapse --samples fp.txt > fp.folded 2> err
[ -s err ] && { cat err >&2; fail "warnings on a clean recording"; }
total=$(awk '{s += $NF} END {print s}' fp.folded)
all=$(grep -c ':' <(grep -v '^\s' fp.txt | grep -v '^$'))
assert_eq "every sample counted once" "$all" "$total"
# the recursion: recurse(k % 5) is 1 to 5 frames deep; which depths a short run samples is
# chance (a busy machine gives few samples; a sample at a function's first instruction
# misses its caller's frame), that some leaf_hot is under 1 to 5 of them is not
grep -Eq '^fk-perf-fp;__libc_start_call_main;main;middle;(recurse;){1,5}leaf_hot ' fp.folded ||
	fail "no main;middle;recurse...;leaf_hot stack"
grep -q 'fk-perf-fp;__libc_start_call_main;main;leaf_cold ' fp.folded ||
	grep -q 'fk-perf-fp;__libc_start_call_main;main;middle;leaf_cold ' fp.folded || fail "no leaf_cold stack"
# periods: with a fixed -F every count is a multiple of the first sample's period
period=$(grep -m1 '^fk-perf-fp ' fp.txt | awk '{print $(NF-1)}')
run_rc 0 "$FLAMEKIT" collapse fp.txt > fpw.folded
awk -v p="$period" '$NF % p != 0 {bad = 1} END {exit bad}' fpw.folded || fail "counts are not periods"
# --all marks kernel frames, and they exist in a recording with system calls
run_rc 0 "$FLAMEKIT" collapse --all fp.txt > fpk.folded
grep -q '_\[k\]' fpk.folded || fail "no kernel frames marked with --all"
# --pid/--tid
run_rc 0 "$FLAMEKIT" collapse --tid fp.txt > fpt.folded
grep -q '^fk-perf-fp-?/[0-9][0-9]*;' fpt.folded || fail "--tid process names"

# --inline: perf prints no inline frames here (--no-inline); addr2line recovers them
command -v addr2line > /dev/null || skip "addr2line not installed"
gcc -O2 -g -fno-omit-frame-pointer -o fk-perf-inline "$P/fk-perf-inline.c" || fail "gcc"
perf record -q -F 499 -e cpu-clock -g -o in.data ./fk-perf-inline 0.4 > /dev/null 2>&1 || fail "perf record"
perf script --no-inline -i in.data > in.txt 2> /dev/null || fail "perf script"
run_rc 0 "$FLAMEKIT" collapse in.txt > plain.folded
run_rc 0 "$FLAMEKIT" collapse --inline in.txt > inl.folded
assert_not_contains plain.folded 'inner_loop'
grep -q ';outer;inner_loop;mix ' inl.folded || { head inl.folded >&2; fail "--inline did not expand outer;inner_loop;mix (addr2line)"; }
echo "ok: $hdrs samples, chains, periods, annotations and --inline checked"

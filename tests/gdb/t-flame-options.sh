#!/usr/bin/env bash
# flame's options reach where they should: --max-depth bounds the unwinding
# (innermost frames kept), SVG options reach the renderer through `flamekit gdb`,
# --samples carries one line per thread per stop.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-gdb.sh"
probe_ptrace
start_target "$TARGET" deep 40 2
run_flame "$TPID" -d 1 -F 100 --max-depth 5 --folded "$TMP/d.folded"
[ $GDB_RC -eq 0 ] || { cat "$TMP/gdb.out"; fail "gdb exit $GDB_RC"; }
assert_running "$TPID"
cat "$TMP/d.folded"
awk '{ if (split($1, a, ";") > 5) { print "too deep: " $0; bad = 1 } } END { exit bad }' "$TMP/d.folded" ||
	fail "--max-depth 5 not honoured"
grep -q ';recurse;recurse;leaf_loop;' "$TMP/d.folded" || grep -q 'recurse;leaf_loop;' "$TMP/d.folded" ||
	fail "innermost frames not kept"
# without the limit the whole 40-deep recursion is there
run_flame "$TPID" -d 1 -F 100 --folded "$TMP/full.folded"
[ $GDB_RC -eq 0 ] || fail "gdb exit $GDB_RC"
max=$(awk '{ n = split($1, a, ";"); if (n > m) m = n } END { print m }' "$TMP/full.folded")
[ "$max" -ge 44 ] || fail "full stacks only $max deep"
# SVG options through the CLI
"$FLAMEKIT" gdb -p "$TPID" -d 1 -q -o "$TMP/o.svg" --title 'T<1>' --inverted --width 900 --colors blue ||
	fail "flamekit gdb -o failed"
assert_running "$TPID"
assert_contains "$TMP/o.svg" 'T&lt;1&gt;'
assert_contains "$TMP/o.svg" 'width="900"'
assert_contains "$TMP/o.svg" "leaf_loop"
# every option is checked before sampling starts (the same tables as flamekit svg):
# a bad one fails at once, nothing attached or written; -d 60 would show as a timeout
run_flame "$TPID" -d 60 --folded "$TMP/x.folded" -o "$TMP/x.svg" --sort sideways
[ $GDB_RC -ne 0 ] && [ $GDB_RC -ne 124 ] || fail "bad --sort accepted (exit $GDB_RC)"
assert_contains "$TMP/gdb.out" "flame: --sort: expected one of name weight, got 'sideways'"
assert_not_contains "$TMP/gdb.out" "sampling process"
[ -e "$TMP/x.folded" ] || [ -e "$TMP/x.svg" ] && fail "output written despite a bad option"
assert_running "$TPID"
run_flame "$TPID" -d 60 --colors javaa --folded "$TMP/x.folded"
[ $GDB_RC -ne 0 ] && [ $GDB_RC -ne 124 ] || fail "bad --colors accepted (exit $GDB_RC)"
assert_contains "$TMP/gdb.out" "unknown palette 'javaa'"
timeout 60 "$FLAMEKIT" gdb -p "$TPID" -d 60 --colors javaa -o "$TMP/x.svg" 2> "$TMP/cli.err"
rc=$?
assert_eq "flamekit gdb with a bad palette: usage error before gdb starts" 2 $rc
assert_contains "$TMP/cli.err" "unknown palette 'javaa'"
timeout 60 "$FLAMEKIT" gdb -p "$TPID" -d 60 -F 0 2> "$TMP/cli.err"
assert_eq "flamekit gdb -F 0" 2 $?
assert_contains "$TMP/cli.err" "flamekit: -F: expected a number from 0.01 to 10000, got '0'"
assert_running "$TPID"
# abbreviations and one-dash names, resolved by flamekit gdb and by flame alike
"$FLAMEKIT" gdb -p "$TPID" -d 0.5 -q -o "$TMP/a.svg" --tit Abbrev -countname stops ||
	fail "flamekit gdb with abbreviated options failed"
assert_contains "$TMP/a.svg" '>Abbrev<'
assert_contains "$TMP/a.svg" 'stops'
run_flame "$TPID" -d 0.5 -q -o "$TMP/b.svg" -title Dash --wid 700
[ $GDB_RC -eq 0 ] || { cat "$TMP/gdb.out"; fail "flame with -title --wid failed"; }
assert_contains "$TMP/b.svg" '>Dash<'
assert_contains "$TMP/b.svg" 'width="700"'
assert_running "$TPID"
echo PASS

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
# a bad SVG option value is a clear error, the folded output is still written
run_flame "$TPID" -d 0.5 --folded "$TMP/x.folded" -o "$TMP/x.svg" --sort sideways
[ $GDB_RC -ne 0 ] || fail "bad --sort accepted"
grep -q "sort" "$TMP/gdb.out" || fail "error does not name the option"
[ -s "$TMP/x.folded" ] || fail "folded output lost"
[ -e "$TMP/x.svg" ] && fail "a half-made SVG was left"
assert_running "$TPID"
echo PASS

#!/usr/bin/env bash
# flame -o FILE.html: the gdb command writes the flamekit html page (the extension chooses
# it, as for flamekit svg), atomically, holding exactly the stacks of the --folded output
# of the same run (read back by the page's own decoder); the process is left running.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-gdb.sh"
probe_ptrace
start_target "$TARGET" split
run_flame "$TPID" -d 2 -F 100 -o "$TMP/g.html" --folded "$TMP/g.folded"
cat "$TMP/gdb.out"
[ $GDB_RC -eq 0 ] || fail "gdb exit $GDB_RC"
assert_running "$TPID"
[ "$(head -c 15 "$TMP/g.html")" = "<!DOCTYPE html>" ] || fail "-o g.html is not an HTML page"
assert_contains "$TMP/g.html" 'id="fkdata"'
assert_not_contains "$TMP/g.html" '<svg'
ls "$TMP" | grep -q 'g\.html\.' && fail "a temporary file was left: $(ls "$TMP")"
grep -q ';path_a;' "$TMP/g.folded" || fail "no samples in path_a: $(head -3 "$TMP/g.folded")"
assert_page_holds "$TMP/g.html" "$TMP/g.folded"
echo PASS

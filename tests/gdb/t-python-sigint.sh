#!/usr/bin/env bash
# Ctrl-C (SIGINT) to `flamekit gdb --python` sampling a python3.11 program with no -d:
# sampling stops, the Python-land graph and folded stacks are written, exit 0, and the
# program is left running.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-gdb.sh"
. "$(dirname "$0")/lib-python.sh"
probe_ptrace
F=$PYDIR/split.py
start_target "$PY" "$F"
"$FLAMEKIT" gdb --python -p "$TPID" -F 200 -o "$TMP/i.svg" --folded "$TMP/i.folded" < /dev/null \
	> "$TMP/i.out" 2> "$TMP/i.err" &
c=$!
# sampling has begun once flame says so (gdb attached, the interpreter accepted)
for _ in $(seq 1200); do grep -qs "sampling process" "$TMP/i.err" && break; sleep 0.05; done
grep -qs "sampling process" "$TMP/i.err" || { cat "$TMP/i.err"; fail "sampling never began"; }
sleep 1
kill -INT "$c"
wait "$c"
rc=$?
cat "$TMP/i.err"
assert_eq "flamekit gdb --python after SIGINT" 0 "$rc"
assert_contains "$TMP/i.folded" "main ($F);heavy ($F);work ($F)"
assert_contains "$TMP/i.svg" "heavy ($F)"
assert_running "$TPID"
echo PASS

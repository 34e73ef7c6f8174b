#!/usr/bin/env bash
# A python3.11 program that ends on its own while flame --python samples it (no -d):
# gdb ends cleanly, says the process exited, and writes the samples taken, with the
# program's Python frames.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-gdb.sh"
. "$(dirname "$0")/lib-python.sh"
probe_ptrace
F=$PYDIR/exits.py
start_target "$PY" "$F" "$TMP/stop"
timeout 120 gdb -batch -nx -q -x "$SCRIPT" -ex "flame -p $TPID -F 99 --python --folded $TMP/e.folded" \
	> "$TMP/gdb.out" 2>&1 &
FL=$!
# once gdb holds the process (its tracer), let a few samples come, then end it
for _ in $(seq 600); do
	tr=$(awk '/^TracerPid:/ {print $2}' "/proc/$TPID/status" 2>/dev/null)
	[ -n "$tr" ] && [ "$tr" != 0 ] && break
	sleep 0.05
done
[ -n "$tr" ] && [ "$tr" != 0 ] || fail "gdb never attached"
# then until flame samples (it says so once the sampler runs), and a while more
for _ in $(seq 1200); do grep -q "^flame: sampling process" "$TMP/gdb.out" && break; sleep 0.05; done
grep -q "^flame: sampling process" "$TMP/gdb.out" || fail "flame never began sampling"
sleep 1
touch "$TMP/stop"
wait $FL
GDB_RC=$?
cat "$TMP/gdb.out"
[ $GDB_RC -eq 0 ] || fail "gdb exit $GDB_RC"
grep -q "process exited during sampling" "$TMP/gdb.out" || fail "the exit was not reported"
assert_contains "$TMP/e.folded" "<module> ($F);main ($F);work ($F)"
! kill -0 "$TPID" 2>/dev/null || [ "$(awk '/^State:/ {print $2}' /proc/$TPID/status)" = Z ] ||
	fail "the program is still running"
echo PASS

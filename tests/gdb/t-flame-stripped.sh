#!/usr/bin/env bash
# A stripped binary: by default its frames are one [module] frame, as perf and
# flamegraph.pl name them (not one frame per instruction address: a comb of narrow
# frames); with --addrs (gdb's flame and flamekit gdb) they come out as
# module+0xOFFSET, where OFFSET is an address of the unstripped twin (same code)
# inside the function that ran there.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-gdb.sh"
probe_ptrace
S=$TARGET-stripped
[ -x "$S" ] || fail "missing $S"
nm "$S" > /dev/null 2>&1 && [ -n "$(nm "$S" 2>/dev/null)" ] && fail "$S is not stripped"
start_target "$S" split
base=$(basename "$S")
# --- default: one [module] frame for the code without symbols
run_flame "$TPID" -d 2 -F 100 --folded "$TMP/m.folded"
[ $GDB_RC -eq 0 ] || { cat "$TMP/gdb.out"; fail "gdb exit $GDB_RC"; }
assert_running "$TPID"
cat "$TMP/m.folded"
grep -q "+0x" "$TMP/m.folded" && fail "address frames without --addrs"
# the worker thread (worker;path_a|path_b;burn, all in the module): every sample of it
# is the one stack of module frames, one per call level as perf gives them, where
# addresses made a comb of one leaf per instruction
m="[$base]"
assert_contains "$TMP/m.folded" "clone3;start_thread;$m;$m;$m "
n=$(grep -c -F "start_thread;$m;$m;$m" "$TMP/m.folded")
assert_eq "distinct worker stacks" 1 "$n"
# libc frames around it keep their names
awk -v p="start_thread;$m;$m;" 'index($0, p) && substr($0, index($0, p) + length(p), 1) != "[" {f=1}
	END {exit !f}' "$TMP/m.folded" || fail "the sleeper's libc frames lost their names"

# --- --addrs (through flamekit gdb: the option reaches it from the same table)
# (3 s at 200 Hz: ~600 worker samples, so the split's +-0.13 below is 7 standard
# errors, and 4 where a loaded machine takes a third of them; 2 s at 100 Hz gave
# ~200: 4.2 at rest, 2.5 at a third, 1 run in 70 outside)
timeout 120 "$FLAMEKIT" gdb -p "$TPID" -d 3 -F 200 --addrs --folded "$TMP/s.folded" > "$TMP/gdb.out" 2>&1 ||
	{ cat "$TMP/gdb.out"; fail "flamekit gdb --addrs failed"; }
assert_running "$TPID"
cat "$TMP/s.folded"
grep -q "$base+0x[0-9a-f]*" "$TMP/s.folded" || fail "no $base+0x frames"
# libc still has its symbols
assert_contains "$TMP/s.folded" "start_thread"
# map every offset through the unstripped binary's symbol table
nm -n "$TARGET" | awk '$2 ~ /^[tT]$/ {print $1, $3}' > "$TMP/syms"
/usr/bin/python3 - "$TMP/syms" "$TMP/s.folded" "$base" > "$TMP/mapped" <<'PY' || fail "mapping failed"
import bisect, sys
syms = [(int(a, 16), n) for a, n in (l.split() for l in open(sys.argv[1]))]
addrs = [a for a, _ in syms]
base = sys.argv[3] + "+0x"
def fn(frame):
    if not frame.startswith(base):
        return frame
    i = bisect.bisect_right(addrs, int(frame[len(base):], 16)) - 1
    return syms[i][1] if i >= 0 else "?"
for line in open(sys.argv[2]):
    stack, count = line.rsplit(" ", 1)
    print(";".join(fn(f) for f in stack.split(";")), count.strip())
PY
cat "$TMP/mapped"
for f in "worker;path_a;burn " "worker;path_b;burn " "sleeper;wait_here;"; do
	assert_contains "$TMP/mapped" "$f"
done
a=$(grep ';worker;' "$TMP/mapped" | share /dev/stdin ';path_a;burn ')
echo "path_a share: $a"
within "$a" 0.62 0.88 || fail "split $a, expected 0.75"
echo PASS

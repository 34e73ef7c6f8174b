#!/usr/bin/env bash
# flame --python --threads on a python3.11 with a thread per stack shape: recursion
# (one function many times in a stack), a generator under its consumer, Python called
# back from C (sorted's key function above the sort's native frames), a C extension
# that releases the GIL (hashlib: its native frames under the Python caller), and a
# thread started from C that never runs Python (native frames only, as without
# --python). Threads waiting for the GIL show a [waiting for GIL] frame.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-gdb.sh"
. "$(dirname "$0")/lib-python.sh"
probe_ptrace
start_target "$PY" "$PYDIR/shapes.py"
F=$PYDIR/shapes.py
run_flame "$TPID" -d 4 -F 99 --python --folded "$TMP/s.folded" --samples "$TMP/s.samples"
cat "$TMP/gdb.out"
[ $GDB_RC -eq 0 ] || fail "gdb exit $GDB_RC"
assert_running "$TPID"
short() { sed "s|$F|F|g; s|/usr/lib/python3.11/||g" "$1"; }
# recursion: rec(25) puts rec 26 times in one stack
deep=$(grep -F "recursion ($F)" "$TMP/s.folded" | awk -F';' '{n = 0; for (i = 1; i <= NF; i++) if ($i ~ /^rec \(/) n++; if (n > m) m = n} END {print m + 0}')
echo "deepest recursion seen: $deep rec frames"
[ "$deep" -eq 26 ] || fail "rec appears $deep times in its deepest stack, not 26"
# the generator's frame runs under its consumer, with the native resume between
grep -qE "consume \($F\);([^;]+;)*produce \($F\)" "$TMP/s.folded" || fail "produce not under consume"
# Python called back from C: keyf above sorted's native frames, under sort_it
grep -E "sort_it \($F\);[^;]+;.*keyf \($F\)" "$TMP/s.folded" | head -1 | short /dev/stdin
grep -qE "sort_it \($F\);([^;]*[^)];)+keyf \($F\)" "$TMP/s.folded" ||
	fail "keyf not above native frames under sort_it"
# hashlib releases the GIL: its native frames (OpenSSL) under hash_loop
n=$(count "$TMP/s.folded" "hash_loop \\($F\\);.*(SHA|sha|EVP|libcrypto|_hashlib)")
echo "hash_loop samples in OpenSSL/_hashlib: $n"
# (shares of the samples taken, not counts: a loaded machine takes fewer)
ns=$(sed -n 's/^flame: \([0-9]*\) samples in .*/\1/p' "$TMP/gdb.out")
[ -n "$ns" ] && [ "$ns" -ge 10 ] || fail "too few samples taken: ${ns:-none}"
[ "$n" -ge $((ns / 4)) ] || fail "only $n of $ns samples in hash_loop's native hashing"
# the thread that never ran Python: native only, rooted as any thread
grep -E "^clone3;start_thread;[^;]*pause" "$TMP/s.folded" | head -2
p=$(count "$TMP/s.folded" "^clone3;start_thread;[^;]*pause")
# every sample stops every thread: the native one is in (nearly) all of them
[ "$p" -ge $((ns * 9 / 10)) ] || fail "the native thread's stack (pause) seen $p times in $ns samples"
! grep -E "pause" "$TMP/s.folded" | grep -q "\.py)" || fail "Python frames in the native thread"
# every Python thread is rooted in threading's bootstrap, in order
grep -F "($F)" "$TMP/s.folded" | grep -vF "<module> ($F)" |
	grep -vE "Thread._bootstrap \([^)]*threading.py\);Thread._bootstrap_inner \([^)]*threading.py\);Thread.run \([^)]*threading.py\);" |
	head -3 > "$TMP/bad"
[ ! -s "$TMP/bad" ] || { cat "$TMP/bad"; fail "Python stacks not rooted in Thread._bootstrap"; }
# threads kept apart: five threads (tids) with stacks
t=$(awk -F'\t' 'NR > 1 && $3 ~ /^[0-9]+$/ {print $3}' "$TMP/s.samples" | sort -u | wc -l)
echo "threads sampled: $t"
[ "$t" -ge 6 ] || fail "only $t threads in the samples"
w=$(count "$TMP/s.folded" "\\[waiting for GIL\\]")
echo "samples waiting for the GIL: $w (four Python threads share it: not asserted)"
echo PASS

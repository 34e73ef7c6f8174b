#!/usr/bin/env bash
# eu-stack for real: the poor man's profiler with elfutils' eu-stack on a running
# two-thread program, collapsed (auto-detected, not taken for gdb) and checked
# against what the program is doing, and against the thread ids with --tid.
. "$(dirname "$0")/../lib.sh"
command -v eu-stack > /dev/null || skip "eu-stack not installed (Debian package elfutils)"
cc -O1 -g -o "$TMP/loop" "$FK_TOP/tests/parsers/data/eu-stack/loop.c" -lpthread || fail "cannot compile loop.c"
"$TMP/loop" & pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$TMP"' EXIT
# wait (up to 30 s, a loaded machine starts threads late) until both threads are in their
# loops, then take the three snapshots
for _ in $(seq 300); do
	eu-stack -p $pid > "$TMP/eu0.txt" 2> "$TMP/eu.err" || true
	grep -q '^TID ' "$TMP/eu0.txt" || skip "eu-stack cannot attach here: $(head -1 "$TMP/eu.err")"
	grep -q ' leaf_a' "$TMP/eu0.txt" && grep -q ' idle' "$TMP/eu0.txt" && break
	sleep 0.1
done
for i in 1 2 3; do eu-stack -p $pid 2> "$TMP/eu.err" || true; sleep 0.05; done > "$TMP/eu.txt"
"$FLAMEKIT" collapse --format auto "$TMP/eu.txt" > "$TMP/out" 2> "$TMP/err" || { cat "$TMP/err"; fail "collapse: exit $?"; }
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "messages on clean eu-stack output"; }
grep -q '^.*start_thread;worker;leaf_a 3$' "$TMP/out" || { cat "$TMP/out"; fail "worker thread stack missing"; }
grep -q ';main;idle;.* 3$' "$TMP/out" || { cat "$TMP/out"; fail "main thread stack missing"; }
# one sample per thread per run: 2 threads x 3 runs
assert_eq "samples" 6 "$(awk '{ n += $NF } END { print n }' "$TMP/out")"
"$FLAMEKIT" collapse --tid "$TMP/eu.txt" > "$TMP/tid"
assert_eq "threads" 2 "$(cut -d';' -f1 "$TMP/tid" | sort -u | grep -c '^TID=[0-9]')"
grep -q "^TID=$pid;" "$TMP/tid" || fail "main thread's TID=$pid missing"
echo "eu-stack: $(wc -l < "$TMP/out") stacks"

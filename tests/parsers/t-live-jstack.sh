#!/usr/bin/env bash
# jstack for real: two thread dumps of a running Java program, collapsed: the
# RUNNABLE worker's stack counts under its thread name, waiting threads do not.
. "$(dirname "$0")/../lib.sh"
command -v java > /dev/null || skip "java not installed"
command -v jstack > /dev/null || skip "jstack not installed (a JDK, not only a JRE)"
cp "$FK_TOP/tests/parsers/data/jstack/Spin.java" "$TMP/"
(cd "$TMP" && exec java -Xshare:auto Spin.java) & pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$TMP"' EXIT
# java Spin.java compiles first; wait (bounded) for the worker thread to exist
for i in $(seq 1 120); do
	jstack $pid > "$TMP/js1.txt" 2> /dev/null && grep -q '"worker-1"' "$TMP/js1.txt" && break
	sleep 0.5
done
grep -q '"worker-1"' "$TMP/js1.txt" || skip "jstack cannot attach to the JVM here: $(jstack $pid 2>&1 | head -1)"
jstack $pid >> "$TMP/js1.txt" || fail "second jstack failed"
"$FLAMEKIT" collapse --format auto "$TMP/js1.txt" > "$TMP/out" 2> "$TMP/err" || { cat "$TMP/err"; fail "collapse: exit $?"; }
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "messages on clean jstack output"; }
# the worker spins in leaf(); a dump may catch it in work() between two calls
assert_eq "worker samples" 2 "$(grep -E '^worker;java.lang.Thread.run;.*;Spin.work(;Spin.leaf)? [12]$' "$TMP/out" |
	awk '{ n += $NF } END { print n + 0 }')"
! grep -q '^main;' "$TMP/out" || fail "main (WAITING) counted"
! grep -q 'CompilerThread' "$TMP/out" || fail "compiler threads counted"
"$FLAMEKIT" collapse --tid "$TMP/js1.txt" | grep -q '^worker-1;' || fail "--tid does not keep the -1"
echo "jstack: $(wc -l < "$TMP/out") stacks"

#!/usr/bin/env bash
# Threads appearing and vanishing while flame samples: a spawner starts a short
# thread every few milliseconds. No errors, the short threads' stacks are seen,
# stacks stay whole, the process is left running.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-gdb.sh"
probe_ptrace
start_target "$TARGET" churn
run_flame "$TPID" -d 3 -F 100 --threads --folded "$TMP/c.folded" --samples "$TMP/c.samples"
cat "$TMP/gdb.out"
[ $GDB_RC -eq 0 ] || fail "gdb exit $GDB_RC"
assert_running "$TPID"
cat "$TMP/c.folded"
assert_contains "$TMP/c.folded" "fk-short;clone3;start_thread;short_thread;short_lived;burn "
assert_contains "$TMP/c.folded" "fk-worker;clone3;start_thread;worker;path_a;inl_hot;burn "
assert_contains "$TMP/c.folded" "fk-spawner;clone3;start_thread;spawner;"
# many distinct short-thread tids over the run
n=$(awk -F'\t' '$5 == "fk-short" {print $3}' "$TMP/c.samples" | sort -u | wc -l)
echo "distinct short threads sampled: $n"
[ "$n" -ge 5 ] || fail "only $n short-lived threads sampled"
# every stack starts at a thread root (no half-unwound stacks, no junk beyond
# the outermost frame); a thread caught just born is in clone3 alone
bad=$(grep -v '^fk-[a-z]*;\(clone3;start_thread[; ]\|_start;\|clone3 \)' "$TMP/c.folded" || true)
[ -z "$bad" ] || fail "stacks not rooted: $bad"
echo PASS

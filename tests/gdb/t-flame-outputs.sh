#!/usr/bin/env bash
# Output paths are checked before sampling starts: an output that cannot be written
# (missing directory, a directory, a read-only place) fails at once with a message
# naming it, exit 1, nothing sampled and the target never attached; by `flamekit gdb`
# and by gdb's `flame` alike. A writable output next to a bad one is not created.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-gdb.sh"
probe_ptrace
start_target "$TARGET" split
mkdir "$TMP/ro" && chmod 555 "$TMP/ro"
bad=("/nonexistent/dir/x.svg" "$TMP" "$TMP/no/such/x.folded")
[ "$(id -u)" = 0 ] || bad+=("$TMP/ro/x.svg")   # root writes anywhere
for b in "${bad[@]}"; do
	for opt in -o --folded --samples; do
		what="flamekit gdb $opt $b"
		case $opt in   # beside it, an output that could be written
		-o) good=(--folded "$TMP/good");; --folded) good=(--samples "$TMP/good");; *) good=(-o "$TMP/good");;
		esac
		timeout 300 "$FLAMEKIT" gdb -p "$TPID" -d 60 $opt "$b" "${good[@]}" > "$TMP/cli.out" 2>&1
		rc=$?
		cat "$TMP/cli.out"
		assert_eq "$what: exit status" 1 "$rc"
		assert_contains "$TMP/cli.out" "cannot write $b"
		assert_not_contains "$TMP/cli.out" "flame: sampling"
		[ -e "$TMP/good" ] && fail "$what: wrote the other output"
		assert_running "$TPID"

		what="gdb flame $opt $b"
		run_flame "$TPID" -d 60 $opt "$b"
		cat "$TMP/gdb.out"
		assert_eq "$what: exit status" 1 "$GDB_RC"
		assert_contains "$TMP/gdb.out" "flame: cannot write $b"
		assert_not_contains "$TMP/gdb.out" "flame: sampling"
		assert_running "$TPID"
	done
done
# the check leaves nothing behind in a good directory
"$FLAMEKIT" gdb -p "$TPID" -d 60 -o "$TMP/ok/x.svg" --folded "$TMP/none/x" > /dev/null 2>&1 && fail "accepted"
mkdir "$TMP/ok2"
run_flame "$TPID" -d 60 -o "$TMP/ok2/x.svg" --folded "$TMP/none/x"
[ -z "$(ls -A "$TMP/ok2")" ] || { ls -la "$TMP/ok2"; fail "the check left files behind"; }
echo PASS

#!/usr/bin/env bash
# Labelled merges of a fleet: `merge NAME=FILE` and `--label KEY=VALUE` keep each input's
# origin as root frames (folded, --keep) and as pprof labels that the real go tool pprof
# splits by; pprof read back with --label-frames gives the same stacks; inputs that count
# different units are named.
. "$(dirname "$0")/../lib.sh"
. "$FK_TOP/tests/export/pprof-raw.sh"
total() { awk '{ s += $NF } END { printf "%.0f\n", s }'; }
printf 'main;work 3\nmain;idle 1\n' > "$TMP/db1.folded"
printf 'main;work 5\nmain;gc 2\n' > "$TMP/db2.folded"
printf 'main;serve 7\n' > "$TMP/web.folded"

"$FLAMEKIT" merge db-1="$TMP/db1.folded" db-2="$TMP/db2.folded" > "$TMP/out" || fail "NAME=FILE: exit $?"
assert_eq "NAME=FILE" "$(printf 'host=db-1;main;idle 1\nhost=db-1;main;work 3\nhost=db-2;main;gc 2\nhost=db-2;main;work 5')" "$(cat "$TMP/out")"
# --label for the files after it; a second key; a later value of a key replaces it
"$FLAMEKIT" merge --label dc=eu --label host=db-1 "$TMP/db1.folded" --label host=db-2 "$TMP/db2.folded" \
	--label dc=us --label host=web "$TMP/web.folded" > "$TMP/out" || fail "--label: exit $?"
assert_eq "--label" "$(printf 'dc=eu;host=db-1;main;idle 1\ndc=eu;host=db-1;main;work 3\ndc=eu;host=db-2;main;gc 2\ndc=eu;host=db-2;main;work 5\ndc=us;host=web;main;serve 7')" "$(cat "$TMP/out")"
# --keep selects a host; without labels merge adds as before
assert_eq "--keep host" "4" "$("$FLAMEKIT" merge --keep '^host=db-1;' db-1="$TMP/db1.folded" db-2="$TMP/db2.folded" | total)"
assert_eq "plain merge" "$(printf 'main;gc 2\nmain;idle 1\nmain;serve 7\nmain;work 8')" "$("$FLAMEKIT" merge "$TMP/db1.folded" "$TMP/db2.folded" "$TMP/web.folded")"
# collapse takes labels too; one after the last input labels them all
assert_eq "trailing --label" "$(printf 'host=z;main;idle 1\nhost=z;main;work 3')" "$("$FLAMEKIT" collapse "$TMP/db1.folded" --label host=z)"

# pprof: the origin as labels, not frames
"$FLAMEKIT" merge db-1="$TMP/db1.folded" db-2="$TMP/db2.folded" web="$TMP/web.folded" -o "$TMP/fleet.pb.gz" || fail "pprof: exit $?"
"$FLAMEKIT" collapse --label-frames host "$TMP/fleet.pb.gz" > "$TMP/back"
"$FLAMEKIT" merge db-1="$TMP/db1.folded" db-2="$TMP/db2.folded" web="$TMP/web.folded" > "$TMP/want"
assert_files_eq "$TMP/want" "$TMP/back"
"$FLAMEKIT" collapse "$TMP/fleet.pb.gz" | grep -q '^host=' && fail "host labels written as frames too"
if command -v go > /dev/null; then
	export GOCACHE=$TMP/gocache HOME=$TMP PPROF_TMPDIR=$TMP
	go tool pprof -symbolize=none -tags "$TMP/fleet.pb.gz" > "$TMP/tags" 2>&1 || { cat "$TMP/tags" >&2; fail "go tool pprof -tags"; }
	for want in "host: Total 18" "4 (22.22%): db-1" "7 (38.89%): db-2" "7 (38.89%): web"; do
		sed 's/\.0\b//g' "$TMP/tags" | grep -qF -- "$want" || { cat "$TMP/tags" >&2; fail "tags lack [$want]"; }
	done
	got=$(go tool pprof -symbolize=none -tagfocus=host=db-2 -top "$TMP/fleet.pb.gz" 2> /dev/null | sed -n 's/^Showing nodes accounting for \([0-9]*\), .*/\1/p')
	assert_eq "-tagfocus host=db-2" "7" "$got"
	raw_fold "$TMP/fleet.pb.gz" > "$TMP/raw"
	"$FLAMEKIT" merge "$TMP/db1.folded" "$TMP/db2.folded" "$TMP/web.folded" > "$TMP/nolab"
	assert_files_eq "$TMP/nolab" "$TMP/raw"
else
	echo "note: go not installed: pprof labels checked by flamekit only"
fi

# different units: said, with both files; the merge still happens
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[2]},{"id":2,"callFrame":{"functionName":"js","url":""}}],"samples":[2,2],"timeDeltas":[0,5]}' > "$TMP/node.cpuprofile"
"$FLAMEKIT" merge "$FK_TOP/tests/export/data/go-cpu.pprof" "$TMP/node.cpuprofile" > "$TMP/out" 2> "$TMP/err" || fail "units: exit $?"
assert_contains "$TMP/err" "warning: $TMP/node.cpuprofile counts samples, $FK_TOP/tests/export/data/go-cpu.pprof counts ns: their sums mix units"
grep -q '^js 2$' "$TMP/out" || fail "the second input was not merged"
"$FLAMEKIT" merge "$TMP/db1.folded" "$TMP/node.cpuprofile" > /dev/null 2> "$TMP/err"
[ ! -s "$TMP/err" ] || { cat "$TMP/err" >&2; fail "a warning where folded input says no unit"; }

# mistakes
run_rc 2 "$FLAMEKIT" merge --label nokey "$TMP/db1.folded" 2> "$TMP/err"
assert_contains "$TMP/err" "--label: expected KEY=VALUE, got 'nokey'"
run_rc 3 "$FLAMEKIT" merge db-1="$TMP/db1.folded" "$TMP/missing.folded" > "$TMP/out" 2> "$TMP/err"
assert_contains "$TMP/err" "missing.folded"
echo "labelled merges ok"

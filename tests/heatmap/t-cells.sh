#!/usr/bin/env bash
# Exact per-cell counts (--cells) of a hand-written samples file whose times sit on
# and around row boundaries, with every filter; usage errors and exit codes.
. "$(dirname "$0")/../lib.sh"
IN=$FK_TOP/tests/heatmap/data/exact.samples

cells() { "$FLAMEKIT" heatmap --cells "$@" "$IN" > "$TMP/got" || fail "heatmap --cells $* failed"; }

# Base second is 100 (the earliest sample). 0.2 s * 50 rows lands exactly on row
# 10; 0.199999999 is still row 9; the sample without a time is ignored; 2.5 is a
# fractional weight.
cells
cat > "$TMP/want" <<'T'
0	0	2
0	1	1
0	9	1
0	10	2
0	25	2
1	0	1
1	49	2.5
2	12	1
2	13	2
2	14	1
3	25	2
3	49	1
T
assert_files_eq "$TMP/want" "$TMP/got"

cells --rows 10
printf '0\t0\t3\n0\t1\t1\n0\t2\t2\n0\t5\t2\n1\t0\t1\n1\t9\t2.5\n2\t2\t4\n3\t5\t2\n3\t9\t1\n' > "$TMP/want"
assert_files_eq "$TMP/want" "$TMP/got"

# --start inclusive, --end exclusive, both relative to the base second; second
# numbers do not move.
cells --start 0.2 --end 2.26
printf '0\t10\t2\n0\t25\t2\n1\t0\t1\n1\t49\t2.5\n2\t12\t1\n' > "$TMP/want"
assert_files_eq "$TMP/want" "$TMP/got"
cells --range 0.2-2.26
assert_files_eq "$TMP/want" "$TMP/got"

cells --isolate worker
printf '0\t9\t1\n0\t10\t2\n3\t25\t2\n3\t49\t1\n' > "$TMP/want"
assert_files_eq "$TMP/want" "$TMP/got"

# one thread (tid 11 is the worker) or one process (pid 0: the swapper samples)
"$FLAMEKIT" heatmap --cells --isolate tid:11 "$IN" > "$TMP/tid" || fail "isolate tid"
assert_files_eq "$TMP/want" "$TMP/tid"
"$FLAMEKIT" heatmap --cells --isolate pid:0 "$IN" > "$TMP/pid" || fail "isolate pid"
assert_eq "pid:0" "0	25	2" "$(cat "$TMP/pid")"
run_rc 2 "$FLAMEKIT" heatmap --cells --isolate tid:x "$IN"

# stack filters (POSIX ERE on the folded text) keep those stacks' samples
"$FLAMEKIT" heatmap --cells --keep ';loop;' "$IN" > "$TMP/keep" || fail "keep"
"$FLAMEKIT" heatmap --cells --isolate worker "$IN" > "$TMP/iso" || fail "isolate"
assert_files_eq "$TMP/iso" "$TMP/keep"
"$FLAMEKIT" heatmap --cells --drop '^(app|swapper);' "$IN" > "$TMP/drop" || fail "drop"
assert_files_eq "$TMP/iso" "$TMP/drop"
run_rc 2 "$FLAMEKIT" heatmap --cells --keep '(' "$IN"

# --idle drops the swapper stacks and the intel_idle leaf
cells --idle
grep -v -e '^0	25	' -e '^3	49	' > "$TMP/want" <<'T'
0	0	2
0	1	1
0	9	1
0	10	2
0	25	2
1	0	1
1	49	2.5
2	12	1
2	13	2
2	14	1
3	25	2
3	49	1
T
assert_files_eq "$TMP/want" "$TMP/got"

# stdin, and the same file twice doubles every count
"$FLAMEKIT" heatmap --cells < "$IN" > "$TMP/stdin" || fail "stdin"
cells --rows 50
assert_files_eq "$TMP/got" "$TMP/stdin"
"$FLAMEKIT" heatmap --cells "$IN" "$IN" | awk -F'\t' '{printf "%s\t%s\t%s\n", $1, $2, $3 / 2}' > "$TMP/half"
assert_files_eq "$TMP/got" "$TMP/half"

# usage errors: exit 2, nothing written
run_rc 2 "$FLAMEKIT" heatmap --rows 0 "$IN" -o "$TMP/u.html"
run_rc 2 "$FLAMEKIT" heatmap --rows 1.5 "$IN" -o "$TMP/u.html"
run_rc 2 "$FLAMEKIT" heatmap --scale log "$IN" -o "$TMP/u.html"
run_rc 2 "$FLAMEKIT" heatmap --start 3 --end 1 "$IN" -o "$TMP/u.html"
run_rc 2 "$FLAMEKIT" heatmap --bogus "$IN"
[ ! -e "$TMP/u.html" ] || fail "usage error left an output file"

# no timestamps (folded input): error naming the problem, no output left behind
printf 'main;a 3\nmain;b 1\n' > "$TMP/f.folded"
run_rc 1 "$FLAMEKIT" heatmap "$TMP/f.folded" -o "$TMP/f.html" 2> "$TMP/err"
assert_contains "$TMP/err" "no sample has a timestamp"
[ -z "$(ls "$TMP" | grep 'f\.html')" ] || fail "partial output left: $(ls "$TMP")"

# filters that leave nothing: exit 1
run_rc 1 "$FLAMEKIT" heatmap --isolate nosuchcomm "$IN" -o "$TMP/n.html" 2> "$TMP/err"
assert_contains "$TMP/err" "nosuchcomm"
run_rc 1 "$FLAMEKIT" heatmap --start 50 "$IN" -o "$TMP/n.html" 2> /dev/null
[ ! -e "$TMP/n.html" ] || fail "empty result left an output file"

# a malformed line: warning with file:line, good lines kept, exit 3
{ cat "$IN"; printf '104.5\t1\t1\t0\tapp\tNOTANUMBER\tapp;x\n104.6\t1\t1\t0\tapp\t1\tapp;y\n'; } > "$TMP/bad.samples"
run_rc 3 "$FLAMEKIT" heatmap --cells "$TMP/bad.samples" > "$TMP/badcells" 2> "$TMP/err"
assert_contains "$TMP/err" "bad.samples:22:"
assert_eq "last cell" "4	30	1" "$(tail -1 "$TMP/badcells")"
echo "ok"

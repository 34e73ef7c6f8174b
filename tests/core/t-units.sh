#!/usr/bin/env bash
# Counts are named by what they count: perf cpu-clock periods are ns in the SVG and the
# heat map, one time range gives one number in `heatmap` and `svg --range`, and merging
# inputs of different units (perf ns + gdb samples) warns and points at --samples.
. "$(dirname "$0")/../lib.sh"
PERF=$FK_TOP/tests/heatmap/data/band.perf-script   # cpu-clock, 2004008 ns a sample
GDB=$FK_TOP/tests/parsers/data/gdb/pmp-loop.txt
FKF=$FK_TOP/tests/svg/fkframes.py

# the SVG's countname is the unit: ns for cpu-clock periods, samples with --samples
"$FLAMEKIT" svg "$PERF" -o "$TMP/ns.svg" || fail "svg of perf text"
assert_contains <(python3 "$FKF" "$TMP/ns.svg" --config) '"cn": "ns"'
"$FLAMEKIT" svg --samples "$PERF" -o "$TMP/n.svg" || fail "svg --samples"
assert_contains <(python3 "$FKF" "$TMP/n.svg" --config) '"cn": "samples"'
"$FLAMEKIT" svg --countname ticks "$PERF" -o "$TMP/t.svg" || fail "svg --countname"
assert_contains <(python3 "$FKF" "$TMP/t.svg" --config) '"cn": "ticks"'
"$FLAMEKIT" svg "$GDB" -o "$TMP/gdb.svg" || fail "svg of gdb"
assert_contains <(python3 "$FKF" "$TMP/gdb.svg" --config) '"cn": "samples"'

# one range, one number: the heat map's cells of seconds 1 and 2 add up to the
# width of `svg --range 1-3` (same origin, same weights), and both say ns
"$FLAMEKIT" heatmap --cells --range 1-3 "$PERF" > "$TMP/cells" || fail "heatmap --cells"
hm=$(awk -F '\t' '{ s += $3 } END { printf "%.0f", s }' "$TMP/cells")
"$FLAMEKIT" svg --range 1-3 "$PERF" -o "$TMP/range.svg" || fail "svg --range"
sv=$(python3 "$FKF" "$TMP/range.svg" | awk -F '\t' '$7 == "all" { printf "%.0f", $6 }')
echo "range 1-3: heatmap $hm, svg $sv"
[ "$hm" -gt 0 ] || fail "no cells in range"
assert_eq "heatmap vs svg --range total" "$hm" "$sv"
assert_eq "whole samples of 2004008 ns" 0 $((hm % 2004008))
"$FLAMEKIT" heatmap "$PERF" -o "$TMP/hm.html" || fail "heatmap page"
assert_contains "$TMP/hm.html" '"countname":"ns"'
# --samples counts samples in both, and says so
"$FLAMEKIT" heatmap --samples --cells --range 1-3 "$PERF" > "$TMP/cells2" || fail "heatmap --samples"
assert_eq "samples in range" $((hm / 2004008)) "$(awk -F '\t' '{ s += $3 } END { print s }' "$TMP/cells2")"
"$FLAMEKIT" heatmap --samples "$PERF" -o "$TMP/hm2.html" || fail "heatmap --samples page"
assert_contains "$TMP/hm2.html" '"countname":"samples"'

# merge: ns + samples is a warning naming both units and --samples; output still written
"$FLAMEKIT" merge "$PERF" "$GDB" -o "$TMP/m.folded" 2> "$TMP/m.err" || fail "merge"
cat "$TMP/m.err"
assert_contains "$TMP/m.err" "band.perf-script counts ns, $GDB counts samples: their sum mixes units"
assert_contains "$TMP/m.err" "--samples"
# reading both into one profile (svg of two inputs) warns the same way
"$FLAMEKIT" svg "$PERF" "$GDB" -o "$TMP/two.svg" 2> "$TMP/s.err" || fail "svg of two inputs"
assert_contains "$TMP/s.err" "pmp-loop.txt counts samples but the input before it counts ns"
assert_contains "$TMP/s.err" "--samples"
[ -s "$TMP/m.folded" ] || fail "merge wrote nothing"
# counting samples everywhere: no warning; same units: no warning
"$FLAMEKIT" merge --samples "$PERF" "$GDB" -o "$TMP/m2.folded" 2> "$TMP/m2.err" || fail "merge --samples"
assert_not_contains "$TMP/m2.err" "units"
"$FLAMEKIT" merge "$GDB" "$GDB" -o "$TMP/m3.folded" 2> "$TMP/m3.err" || fail "merge gdb gdb"
assert_not_contains "$TMP/m3.err" "units"
echo ok

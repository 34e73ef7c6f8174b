#!/usr/bin/env bash
# Counts are named by what they count: perf cpu-clock periods are ns in the SVG and the
# heat map, one time range gives one number in `heatmap` and `svg --range`, and merging
# inputs of different units warns (one message in every command), pointing at perf's
# --samples only where a perf script input counts periods.
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

# mixed units: one warning, from one place (the library), the same in merge (inputs read
# apart) and svg (read into one profile): "warning:", both inputs and their units; perf's
# --samples suggested only when a perf script input counts periods; output still written
"$FLAMEKIT" merge "$PERF" "$GDB" -o "$TMP/m.folded" 2> "$TMP/m.err" || fail "merge"
want="flamekit: warning: $GDB counts samples, $PERF counts ns: their sums mix units (perf script input counts samples with --samples)"
assert_eq "merge's warning" "$want" "$(cat "$TMP/m.err")"
"$FLAMEKIT" svg "$PERF" "$GDB" -o "$TMP/two.svg" 2> "$TMP/s.err" || fail "svg of two inputs"
assert_eq "svg's warning" "$want" "$(cat "$TMP/s.err")"
[ -s "$TMP/m.folded" ] || fail "merge wrote nothing"
[ -s "$TMP/two.svg" ] || fail "svg wrote nothing"
# perf second: the same hint; no perf input (pprof ns + cpuprofile samples): no hint
"$FLAMEKIT" svg "$GDB" "$PERF" -o "$TMP/two2.svg" 2> "$TMP/s2.err" || fail "svg gdb perf"
assert_eq "svg's warning, perf second" "flamekit: warning: $PERF counts ns, $GDB counts samples: their sums mix units (perf script input counts samples with --samples)" "$(cat "$TMP/s2.err")"
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[2]},{"id":2,"callFrame":{"functionName":"js","url":""}}],"samples":[2,2],"timeDeltas":[0,5]}' > "$TMP/node.cpuprofile"
GO=$FK_TOP/tests/export/data/go-cpu.pprof
want="flamekit: warning: $TMP/node.cpuprofile counts samples, $GO counts ns: their sums mix units"
for cmd in merge svg html; do
	"$FLAMEKIT" $cmd "$GO" "$TMP/node.cpuprofile" > /dev/null 2> "$TMP/g.err" || fail "$cmd go node"
	assert_eq "$cmd: warning without perf's hint" "$want" "$(cat "$TMP/g.err")"
done
# counting samples everywhere: no warning; same units: no warning
"$FLAMEKIT" merge --samples "$PERF" "$GDB" -o "$TMP/m2.folded" 2> "$TMP/m2.err" || fail "merge --samples"
assert_not_contains "$TMP/m2.err" "units"
"$FLAMEKIT" merge "$GDB" "$GDB" -o "$TMP/m3.folded" 2> "$TMP/m3.err" || fail "merge gdb gdb"
assert_not_contains "$TMP/m3.err" "units"
echo ok

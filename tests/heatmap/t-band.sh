#!/usr/bin/env bash
# Golden per-cell counts of a real perf recording (`perf record -k mono -g` of
# band.c: a thread busy for the first 200 ms of every second, asleep for the
# other 800 ms): cells equal an independent awk binning of the perf timestamps,
# the band sits in rows 0-9 of 50, and the samples format gives the same result.
. "$(dirname "$0")/../lib.sh"
IN=$FK_TOP/tests/heatmap/data/band.perf-script

"$FLAMEKIT" heatmap --cells --samples "$IN" > "$TMP/cells" || fail "heatmap --cells --samples"

# Oracle: the timestamp is the header field "SEC.USEC:"; integer arithmetic on
# the microseconds, seconds relative to the first sample's second.
awk '
/^[^ \t]/ {
	for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
	split(substr($i, 1, length($i) - 1), t, ".")
	us = substr(t[2] "000000", 1, 6) + 0
	sec = t[1] + 0; row = int(us * 50 / 1000000)
	n[sec " " row]++
	if (min == "" || sec < min) min = sec
}
END { for (k in n) { split(k, a, " "); printf "%d\t%d\t%d\n", a[1] - min, a[2], n[k] } }
' "$IN" | sort -t '	' -k1,1n -k2,2n > "$TMP/want"
[ -s "$TMP/want" ] || fail "oracle found no samples"
assert_files_eq "$TMP/want" "$TMP/cells"

# The band: per row totals over all seconds.
awk -F'\t' '{ r[$2] += $3; t += $3 }
END {
	hot = 0; for (i = 0; i < 10; i++) hot += r[i]
	cold = 0; for (i = 11; i < 50; i++) cold += r[i]
	for (i = 0; i < 10; i++) if (r[i] < 0.5 * hot / 10) { print "row " i " not hot: " r[i]; bad = 1 }
	if (cold > 0.02 * t) { print "rows 11-49 not cold: " cold " of " t; bad = 1 }
	if (r[10] > 0.05 * t) { print "row 10 too hot: " r[10]; bad = 1 }
	if (t < 100) { print "too few samples: " t; bad = 1 }
	exit bad
}' "$TMP/cells" || fail "band not at rows 0-9"
# every second of the run shows the band
secs=$(cut -f1 "$TMP/cells" | sort -u | wc -l)
[ "$secs" -ge 4 ] || fail "band seen in only $secs seconds"

# The worker alone (isolate) is the whole band; --idle drops nothing here.
"$FLAMEKIT" heatmap --cells --samples --isolate band-worker "$IN" > "$TMP/iso" || fail "isolate"
assert_files_eq "$TMP/cells" "$TMP/iso"
"$FLAMEKIT" heatmap --cells --samples --idle "$IN" > "$TMP/idle" || fail "idle"
assert_files_eq "$TMP/cells" "$TMP/idle"

# Same samples through the samples format (what the perf plugin and gdb write):
# same cells and the same page.
"$FLAMEKIT" collapse --samples --emit samples "$IN" -o "$TMP/band.samples" || fail "emit samples"
"$FLAMEKIT" heatmap --cells "$TMP/band.samples" > "$TMP/cells2" || fail "cells from samples"
assert_files_eq "$TMP/cells" "$TMP/cells2"
"$FLAMEKIT" heatmap --samples "$IN" -o "$TMP/a.html" || fail "page from perf"
"$FLAMEKIT" heatmap "$TMP/band.samples" -o "$TMP/b.html" || fail "page from samples"
cmp "$TMP/a.html" "$TMP/b.html" || fail "pages differ between perf text and samples input"

# by default (and with --periods) cells weigh the perf period, as `flamekit svg` counts
# (2004008 ns per sample here)
awk -F '\t' '{ printf "%s\t%s\t%d\n", $1, $2, $3 * 2004008 }' "$TMP/cells" > "$TMP/want-ns"
"$FLAMEKIT" heatmap --cells "$IN" > "$TMP/ns" || fail "heatmap --cells (periods)"
assert_files_eq "$TMP/want-ns" "$TMP/ns"
"$FLAMEKIT" heatmap --cells --periods "$IN" > "$TMP/ns2" || fail "heatmap --cells --periods"
assert_files_eq "$TMP/want-ns" "$TMP/ns2"
echo ok

#!/usr/bin/env bash
# Live: the gdb `flame` command samples band.c (busy for the first 200 ms of each
# CLOCK_MONOTONIC second) and writes the samples format; the heat map of the
# stacks in band_spin sits in rows 0-9 of 50. gdb samples sleeping threads too,
# so the band shows only after --keep band_spin.
. "$(dirname "$0")/../lib.sh"
command -v gdb > /dev/null || skip "gdb not installed"
command -v cc > /dev/null || skip "no C compiler"
SCRIPT=$BUILD/gdb/flamekit.py
[ -f "$SCRIPT" ] && [ -f "$BUILD/gdb/_flamekit.abi3.so" ] || skip "gdb plugin not built (needs python3-dev; not in SANITIZE builds)"
cc -O0 -g -fno-omit-frame-pointer -pthread -o "$TMP/band" "$FK_TOP/tests/heatmap/band.c" || fail "build band.c"
# raised priority (when allowed) so a busy machine does not starve the worker
if nice -n -10 true 2> /dev/null; then nice -n -10 "$TMP/band" 15 & else "$TMP/band" 15 & fi
BAND=$!
trap 'kill -9 $BAND 2>/dev/null; rm -rf "$TMP"' EXIT
wait_threads $BAND 2 "$TMP/band"   # its worker runs
timeout 120 gdb -batch -nx -q -x "$SCRIPT" -ex "flame -p $BAND -F 50 -d 6 --samples $TMP/gdb.samples -o $TMP/gdb.svg" \
	> "$TMP/gdb.out" 2>&1
grep -qi "ptrace: Operation not permitted\|Could not attach" "$TMP/gdb.out" && skip "ptrace attach not permitted here"
[ -s "$TMP/gdb.samples" ] || { cat "$TMP/gdb.out" >&2; fail "gdb flame wrote no samples"; }
kill -0 $BAND 2> /dev/null || fail "band did not survive sampling"
"$FLAMEKIT" heatmap --cells --keep band_spin "$TMP/gdb.samples" > "$TMP/cells" || fail "heatmap --cells"
"$FLAMEKIT" heatmap --highlight band-worker "$TMP/gdb.samples" -o "$TMP/gdb.html" || fail "heatmap page"
# A sample can land past 200 ms: gdb stops the process while it samples and
# stamps the sample once all threads are stopped, which a loaded machine delays.
awk -F'\t' '{ r[$2] += $3; t += $3 }
END {
	hot = 0; for (i = 0; i <= 10; i++) hot += r[i]
	if (t < 8) { print "too few band_spin samples: " t; exit 1 }
	if (hot < 0.75 * t) { print "only " hot " of " t " band_spin samples in rows 0-10"; exit 1 }
}' "$TMP/cells" || { cat "$TMP/cells" >&2; fail "band not at rows 0-9"; }
# the sleeping part: the worker is in clock_nanosleep in the other rows
"$FLAMEKIT" heatmap --cells --keep clock_nanosleep "$TMP/gdb.samples" |
	awk -F'\t' '$2 >= 15 && $2 <= 45 { n += $3 } END { exit !(n > 0) }' || fail "no sleeping samples in rows 15-45"
echo ok

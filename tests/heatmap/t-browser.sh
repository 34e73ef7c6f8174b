#!/usr/bin/env bash
# Real headless Chromium: hover, drag and click-click range selection, range flame
# graph holds only that range's stacks, differential view, zoom, search, URL hash,
# hostile names shown as text only, no network. Also on the real perf recording.
. "$(dirname "$0")/../lib.sh"
need_browser
D=$FK_TOP/tests/heatmap/data
SHOTS=${FK_SHOTS:-}   # set to a directory to keep screenshots

"$FLAMEKIT" heatmap --highlight worker "$D/exact.samples" -o "$TMP/exact.html" || fail "render exact"
node "$FK_TOP/tests/heatmap/browser.js" exact "$TMP/exact.html" ${SHOTS:+"$SHOTS/heatmap-exact.png"} ||
	fail "browser checks on exact.samples"

"$FLAMEKIT" heatmap "$D/band.perf-script" -o "$TMP/band.html" || fail "render band"
"$FLAMEKIT" heatmap --cells "$D/band.perf-script" > "$TMP/band.cells" || fail "band cells"
node "$FK_TOP/tests/heatmap/browser.js" band "$TMP/band.html" "$TMP/band.cells" ${SHOTS:+"$SHOTS/heatmap-band.png"} ||
	fail "browser checks on the band recording"
echo ok

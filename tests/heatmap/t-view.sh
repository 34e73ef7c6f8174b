#!/usr/bin/env bash
# The heat map page as a person sees it (real headless Chromium, ratios 1 and 2, windows
# 800x600 to 1920x1080): the range graph fits its pane from the first paint and after a
# resize, the dark theme is readable everywhere, frames found only in range A are drawn
# in an A/B comparison and their tooltip gives both counts (tests/heatmap/view.js).
. "$(dirname "$0")/../lib.sh"
need_browser
SHOTS=${FK_SHOTS:-}   # set to a directory to keep screenshots
"$FLAMEKIT" heatmap --highlight worker "$FK_TOP/tests/heatmap/data/exact.samples" -o "$TMP/exact.html" ||
	fail "render exact"
node "$FK_TOP/tests/heatmap/view.js" "$TMP/exact.html" ${SHOTS:+"$SHOTS"} || fail "heat map page checks"
echo ok

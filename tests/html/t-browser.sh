#!/usr/bin/env bash
# `flamekit html` pages in real headless Chromium (browser.js): exact Matched shares,
# sandwich totals, the functions table and transforms against figures computed from
# the folded input; zoom, hover, keys, URL round trip, no network, hostile names inert.
# Then a generated profile with thousands of frames narrower than a pixel, and a
# two-column (differential) input.
. "$(dirname "$0")/../lib.sh"
command -v node > /dev/null || skip "node not installed"
[ -x /usr/bin/chromium ] || skip "/usr/bin/chromium not installed"
[ -d "$FK_TOP/tests/browser/node_modules/playwright-core" ] ||
	skip "playwright-core missing (cd tests/browser && npm install)"
D=$FK_TOP/tests/html/data
SHOTS=${FK_SHOTS:-}   # set to a directory to keep screenshots
"$FLAMEKIT" html "$D/mixed.folded" -o "$TMP/mixed.html" || fail "render mixed"
node "$FK_TOP/tests/html/browser.js" page "$TMP/mixed.html" "$D/mixed.folded" ${SHOTS:+"$SHOTS/html-mixed.png"} ||
	fail "browser checks on mixed.folded"
echo ok

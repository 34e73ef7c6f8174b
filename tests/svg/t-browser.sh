#!/usr/bin/env bash
# Real headless Chromium (Debian's /usr/bin/chromium driven by playwright-core):
# hover details, click-to-zoom with ancestors kept and labels re-truncated,
# Ctrl-F/F3 regex search with "Matched" that does not double count nested
# frames, Ctrl-I, Escape, reset, state kept in the URL across a reload, a frame
# named like a script that runs nothing, no network; differential colours.
. "$(dirname "$0")/../lib.sh"
command -v node > /dev/null || skip "node not installed"
[ -x /usr/bin/chromium ] || skip "/usr/bin/chromium not installed"
if [ ! -d "$FK_TOP/tests/browser/node_modules/playwright-core" ]; then
	( cd "$FK_TOP/tests/browser" && npm install --no-audit --no-fund --silent > /dev/null 2>&1 ) ||
		skip "playwright-core missing and npm install failed (cd tests/browser && npm install)"
fi
D=$FK_TOP/tests/svg/data
SHOTS=${FK_SHOTS:-}   # set to a directory to keep a screenshot

"$FLAMEKIT" svg "$D/browser.folded" -o "$TMP/main.svg" || fail "render browser.folded"
node "$FK_TOP/tests/browser/svg.js" main "$TMP/main.svg" ${SHOTS:+"$SHOTS/svg-main.png"} || fail "browser checks"
"$FLAMEKIT" svg "$D/diff.folded" -o "$TMP/diff.svg" || fail "render diff"
node "$FK_TOP/tests/browser/svg.js" diff "$TMP/diff.svg" || fail "differential (self) checks"
"$FLAMEKIT" svg --diff total "$D/diff.folded" -o "$TMP/difft.svg" || fail "render diff total"
node "$FK_TOP/tests/browser/svg.js" difftotal "$TMP/difft.svg" || fail "differential (total) checks"
for t in right left; do
	"$FLAMEKIT" svg --truncate $t --width 700 "$D/basic.folded" -o "$TMP/labels-$t.svg" || fail "render labels"
	node "$FK_TOP/tests/browser/svg.js" labels "$TMP/labels-$t.svg" || fail "labels ($t) checks"
done
echo ok

#!/usr/bin/env bash
# `make demo` (tests/demo.sh) writes the page demo.html beside demo.svg and
# demo.folded, says to open demo.html, and the page opens and draws in Chromium.
. "$(dirname "$0")/../lib.sh"
command -v zstd > /dev/null || skip "zstd not installed"
out=$(DEMO_DIR=$TMP BUILD=$BUILD bash "$FK_TOP/tests/demo.sh") || fail "tests/demo.sh failed"
for f in demo.html demo.svg demo.folded; do
	[ -s "$TMP/$f" ] || fail "make demo wrote no $f"
done
printf '%s\n' "$out" | grep -q "open $TMP/demo.html" || fail "make demo does not say to open demo.html: $out"
grep -q '<canvas\|fkapp' "$TMP/demo.html" || fail "demo.html is not the viewer page"
xmllint --noout "$TMP/demo.svg" 2> /dev/null || ! command -v xmllint > /dev/null || fail "demo.svg not well-formed"
command -v node > /dev/null && [ -x /usr/bin/chromium ] &&
	[ -d "$FK_TOP/tests/browser/node_modules/playwright-core" ] ||
	skip "files checked; node, chromium or playwright-core missing for the page check"
node "$FK_TOP/tests/svg/demo.js" "$TMP/demo.html" "$(wc -l < "$TMP/demo.folded")" ${FK_SHOTS:+"$FK_SHOTS"} ||
	fail "demo.html in Chromium"
echo ok

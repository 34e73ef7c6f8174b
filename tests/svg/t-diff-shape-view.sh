#!/usr/bin/env bash
# --diff-shape in real headless Chromium (800x600 and 1920x1080, ratios 1 and 2): with
# both, the functions only in A and only in B, the grown and the shrunk one are painted at
# the place and width max(A, B) gives and in the colour of the change; with before, A's;
# hovering each shows both counts and the change (tests/svg/diff-shape.js, expectations
# from the folded input by tests/svg/diff-shape.py).
. "$(dirname "$0")/../lib.sh"
need_browser
SHOTS=${FK_SHOTS:-}   # set to a directory to keep screenshots
IN=$FK_TOP/tests/svg/data/shape.folded
for s in both before; do
	"$FLAMEKIT" svg --diff-shape $s "$IN" -o "$TMP/$s.svg" || fail "render $s"
	python3 "$FK_TOP/tests/svg/diff-shape.py" $s "$IN" "$TMP/$s.svg" --expect "$TMP/$s.json" > /dev/null ||
		fail "$s: the SVG itself is wrong (run t-diff-shape.sh)"
	node "$FK_TOP/tests/svg/diff-shape.js" "$TMP/$s.svg" "$TMP/$s.json" ${SHOTS:+"$SHOTS"} || fail "$s in Chromium"
done
# the four functions the issue names are among the frames checked with both
for k in main\;gone main\;new main\;grown main\;shrunk; do
	grep -q "\"$k\"" "$TMP/both.json" || fail "both: $k not checked"
done
echo ok

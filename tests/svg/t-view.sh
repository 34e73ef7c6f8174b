#!/usr/bin/env bash
# A tall SVG in real headless Chromium (800x600 and 1920x1080, ratios 1 and 2): the
# details of a frame hovered at the top are on screen, every frame has its <title>,
# Matched says "of all" or "of the zoom" (tests/svg/view.js).
. "$(dirname "$0")/../lib.sh"
need_browser
SHOTS=${FK_SHOTS:-}   # set to a directory to keep screenshots
# 130 frames deep: a 2,134 px tall image, as in issue 22
python3 -c 'print(";".join("f%d" % i for i in range(130)), 10); print("f0;g 5")' > "$TMP/tall.folded"
"$FLAMEKIT" svg "$TMP/tall.folded" -o "$TMP/tall.svg" || fail "render tall"
node "$FK_TOP/tests/svg/view.js" "$TMP/tall.svg" ${SHOTS:+"$SHOTS"} || fail "tall SVG checks"
echo ok

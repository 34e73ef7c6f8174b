#!/usr/bin/env bash
# A differential page (flamekit diff A B | flamekit html) in Chromium (diff-page.js): widths
# after / before / both with a key and a button, hover with both sides and the change, and
# the functions table with before, after and change for self and total, sortable and
# filtered by the search. FK_SHOTS=DIR keeps screenshots.
. "$(dirname "$0")/../lib.sh"
need_browser
# r is recursive (r;q;r): its total counted once a stack, on each side
printf '%s\n' 'main;a;x 10' 'main;b 5' 'main;gone 7' 'main;a 2' 'main;r;q;r 3' > "$TMP/A.folded"
printf '%s\n' 'main;a;x 13' 'main;b 5' 'main;new 4' 'main;r;q;r 6' > "$TMP/B.folded"
"$FLAMEKIT" diff "$TMP/A.folded" "$TMP/B.folded" > "$TMP/d.folded" || fail "flamekit diff"
"$FLAMEKIT" html "$TMP/d.folded" -o "$TMP/d.html" || fail "html of the diff"
"$FLAMEKIT" html "$TMP/B.folded" -o "$TMP/d-one.html" || fail "html of one side"
node "$FK_TOP/tests/html/diff-page.js" "$TMP/d.html" "$TMP/d.folded" || fail "the differential page"
echo ok

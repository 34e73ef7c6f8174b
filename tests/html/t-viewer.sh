#!/usr/bin/env bash
# The viewer as a person uses it (viewer.js, real Chromium at device pixel ratios 1, 2, 3
# and windows of 800x600 and 1920x1080): 5,000- and 10,000-deep graphs drawn and reachable
# (pixels read from screenshots), the demo recording's first screen showing its root,
# and the defects of issue 22 (stale selection, shares above 100%, the table's first 500
# rows, tooltips, Escape, comm-?/TID threads, long links, keys). FK_SHOTS=DIR keeps shots.
. "$(dirname "$0")/../lib.sh"
need_browser
V=$FK_TOP/tests/html/viewer.js
for n in 5000 10000; do
	awk -v n=$n 'BEGIN { s = "f0"; for (i = 1; i < n; i++) s = s ";f" i; print s " 1"; print "f0;g;h 3"; print "f0;f1;k 2" }' > "$TMP/deep$n.folded"
	"$FLAMEKIT" html "$TMP/deep$n.folded" -o "$TMP/deep$n.html" || fail "render deep$n"
	node "$V" deep "$TMP/deep$n.html" $n || fail "a $n-deep graph"
done
"$FLAMEKIT" html "$FK_TOP/tests/data/demo/demo.perf-script.zst" -o "$TMP/demo.html" || fail "render the demo"
node "$V" first "$TMP/demo.html" || fail "the demo's first screen"
# comm-?/TID roots as perf script prints them with --tid; 801 functions; a long name and big counts
printf '%s\n' 'node-?/15193;main;work 5' 'node-?/15194;main;idle 3' 'node-?/15194;main;work 1' > "$TMP/threads.folded"
awk 'BEGIN { for (i = 0; i < 801; i++) print "main;fn_" i " " (i + 1) }' > "$TMP/wide.folded"
printf '%s\n' 'a_rather_long_function_name_that_fills_the_tooltip_width::with_a_namespace::and_more;x 2509509507' 'b 3' > "$TMP/long.folded"
for f in threads wide long; do "$FLAMEKIT" html "$TMP/$f.folded" -o "$TMP/$f.html" || fail "render $f"; done
"$FLAMEKIT" html "$FK_TOP/tests/html/data/mixed.folded" -o "$TMP/mixed.html" || fail "render mixed"
node "$V" defects "$TMP/mixed.html" "$TMP/threads.html" "$TMP/wide.html" "$TMP/long.html" "$TMP/deep5000.html" ||
	fail "the viewer's defects"
echo ok

#!/usr/bin/env bash
# `flamekit html` pages in real headless Chromium (browser.js): exact Matched shares,
# sandwich totals, the functions table and transforms against figures computed from
# the folded input; zoom, hover, keys, URL round trip, no network, hostile names inert.
# Frame colours as flamekit svg's (off-CPU ones too). Then a generated profile with
# thousands of frames narrower than a pixel, and a two-column (differential) input.
. "$(dirname "$0")/../lib.sh"
need_browser
D=$FK_TOP/tests/html/data
SHOTS=${FK_SHOTS:-}   # set to a directory to keep screenshots
"$FLAMEKIT" html "$D/mixed.folded" -o "$TMP/mixed.html" || fail "render mixed"
node "$FK_TOP/tests/html/browser.js" page "$TMP/mixed.html" "$D/mixed.folded" ${SHOTS:+"$SHOTS/html-mixed.png"} ||
	fail "browser checks on mixed.folded"

# colours: those of flamekit svg for the same frames (small inputs: the SVG draws every
# frame), on the canvas too; a combined on/off-CPU graph draws its off-CPU frames in the
# off-CPU colours as the SVG does
printf '%s\n' 'main;work;compute 30' 'main;work;io 5' '[off-cpu];main;work;io;read 20' \
	'[off-cpu];main;sleep 10' '[off-cpu];other;wait 4' 'main;sleep 1' > "$TMP/onoff.folded"
for f in "$D/mixed.folded" "$TMP/onoff.folded"; do
	b=$(basename "$f" .folded)
	"$FLAMEKIT" svg "$f" -o "$TMP/$b.svg" || fail "svg $b"
	"$FLAMEKIT" html "$f" -o "$TMP/$b-c.html" || fail "html $b"
	node "$FK_TOP/tests/html/browser.js" colors "$TMP/$b-c.html" "$TMP/$b.svg" || fail "colours of $b differ from the SVG's"
done

# a generated profile: thousands of frames narrower than a pixel, all counted; and a
# differential page (flamekit diff of two of them)
python3 "$FK_TOP/bench/gen-stacks.py" 3000 > "$TMP/gen.folded" || fail "gen-stacks.py"
python3 "$FK_TOP/bench/gen-stacks.py" 2500 > "$TMP/gen2.folded" || fail "gen-stacks.py"
"$FLAMEKIT" html "$TMP/gen.folded" -o "$TMP/gen.html" || fail "render gen"
"$FLAMEKIT" diff "$TMP/gen2.folded" "$TMP/gen.folded" > "$TMP/diff.folded" || fail "flamekit diff"
"$FLAMEKIT" html "$TMP/diff.folded" -o "$TMP/diff.html" || fail "render diff"
node "$FK_TOP/tests/html/browser.js" share "$TMP/gen.html" "$TMP/gen.folded" "$TMP/diff.html" "$TMP/diff.folded" ||
	fail "browser checks on gen.folded and its differential page"

# the heat map's range graph is the page `flamekit html --range` writes for that range:
# same stacks, same weights (perf periods in both), same functions table, same search share
H=$FK_TOP/tests/heatmap/data
"$FLAMEKIT" heatmap "$H/band.perf-script" -o "$TMP/band-heat.html" || fail "heatmap band"
"$FLAMEKIT" heatmap "$H/exact.samples" -o "$TMP/exact-heat.html" || fail "heatmap exact"
pairs=()
for r in "0-0.2:0.0-0.9" "1-2.5:1.0-2.24" "0-4:0.0-3.49"; do
	"$FLAMEKIT" html --range "${r%%:*}" "$H/band.perf-script" -o "$TMP/range-$r.html" || fail "html --range ${r%%:*}"
	pairs+=("$TMP/range-$r.html" "file://$TMP/band-heat.html#a=${r#*:}")
done
# with hostile names and fractional weights (samples format)
"$FLAMEKIT" html --range 2-3 "$H/exact.samples" -o "$TMP/range-exact.html" || fail "html --range 2-3"
pairs+=("$TMP/range-exact.html" "file://$TMP/exact-heat.html#a=2.0-2.49")
node "$FK_TOP/tests/html/browser.js" same "${pairs[@]}" || fail "a heat map range differs from flamekit html --range"
echo ok

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

# damaged data: a part that inflates to more or fewer bytes than the meta data gives (the
# sizes adding up to raw or not), the data cut short, a part's bytes changed: the page says it cannot read its data, draws nothing
python3 - "$TMP/gen.html" "$TMP" <<'EOF' || fail "damaged pages not made"
import json, re, sys
h = open(sys.argv[1]).read()
meta = re.search(r'(<script id="fkmeta" type="application/json">)([^<]*)(<)', h)
data = re.search(r'(<script id="fkdata" type="application/octet-stream">)([^<]*)(<)', h)
assert len(json.loads(meta.group(2))["parts"]) >= 2
def page(name, m2=None, d2=None):
    out = h[:meta.start(2)] + (json.dumps(m2) if m2 else meta.group(2)) + h[meta.end(2):data.start(2)]
    out += (d2 if d2 is not None else data.group(2)) + h[data.end(2):]
    open(sys.argv[2] + "/" + name, "w").write(out)
for i, d in ((0, 1), (1, -1)):
    m2 = json.loads(meta.group(2))
    m2["parts"][i][1] += d
    page("dmg-size%d.html" % i, m2=m2)
m2 = json.loads(meta.group(2))  # (the sizes still add up to raw)
m2["parts"][0][1] += 1
m2["parts"][1][1] -= 1
page("dmg-moved.html", m2=m2)
d = data.group(2)
page("dmg-short.html", d2=d[:len(d) // 2])
k = 8  # in the first part's block header: its Huffman code lengths
page("dmg-bytes.html", d2=d[:k] + ("B" if d[k] != "B" else "C") + d[k + 1:])
EOF
node "$FK_TOP/tests/html/browser.js" damaged "$TMP/dmg-size0.html" "$TMP/dmg-size1.html" "$TMP/dmg-moved.html" "$TMP/dmg-short.html" \
	"$TMP/dmg-bytes.html" || fail "a page of damaged data"

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

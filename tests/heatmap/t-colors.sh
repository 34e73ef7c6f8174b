#!/usr/bin/env bash
# The heat map's range flame graphs colour each name as `flamekit svg` does with
# the same options: the page's colour table equals the fills of the SVG's frames,
# name by name (browser.js checks that the page draws with that table).
. "$(dirname "$0")/../lib.sh"
command -v node > /dev/null || skip "node not installed (nodejs)"
D=$FK_TOP/tests/heatmap/data
for in in band.perf-script exact.samples; do
	"$FLAMEKIT" svg "$D/$in" -o "$TMP/a.svg" || fail "svg $in"
	"$FLAMEKIT" heatmap "$D/$in" -o "$TMP/a.html" || fail "heatmap $in"
	node -e '
	const fs = require("fs");
	const html = fs.readFileSync(process.argv[1], "utf8"), svg = fs.readFileSync(process.argv[2], "utf8");
	const d = JSON.parse(/<script id="fkdata" type="application\/json">([\s\S]*?)<\/script>/.exec(html)[1]);
	const page = new Map();
	d.names.forEach((n, i) => page.set(n, "#" + d.colors.slice(6 * i, 6 * i + 6)));
	const fills = [...svg.matchAll(/<rect x="[^"]*" y="[^"]*" width="[^"]*" height="[^"]*" fill="(#[0-9a-f]{6})"(?:\/>|><title>)/g)].map(m => m[1]);
	const N = eval(/var fkN=(\[[\s\S]*?\]);/.exec(svg)[1]);
	const F = eval(/var fkF=(\[[\s\S]*?\]);/.exec(svg)[1]);
	const S = 4;
	if (fills.length !== F.length / S) throw new Error("rects " + fills.length + " frames " + F.length / S);
	let checked = 0;
	for (let i = 1; i < fills.length; i++) {
		const name = N[F[i * S]];
		if (!page.has(name)) continue;
		if (page.get(name) !== fills[i]) throw new Error(name + ": page " + page.get(name) + ", svg " + fills[i]);
		checked++;
	}
	const root = "#" + d.colors.slice(6 * d.names.length);
	if (root !== fills[0]) throw new Error("root: page " + root + ", svg " + fills[0]);
	if (checked < 8) throw new Error("only " + checked + " frames compared");
	console.log("compared " + checked + " frames");
	' "$TMP/a.html" "$TMP/a.svg" || fail "$in: colours differ"
done
echo ok

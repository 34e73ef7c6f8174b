#!/usr/bin/env bash
# b-html.sh - `flamekit html` on a 500k-stack profile of about 10M tree nodes
# (bench/gen-stacks.py bushy): time and peak memory (medians of 3 runs, round-robin
# with the baselines `cat` and `flamekit collapse` of the same file and, when present,
# inferno-flamegraph), page bytes per tree node, and in headless Chromium (html-page.js):
# first paint, exact search, redraw after zoom and after search (p50/p95, timed until the
# canvas pixels can be read; in each of three loads, medians over them), JS heap and the
# tree's typed arrays, the transforms (until the tree is on screen: large trees are made in
# slices) with the longest stretch the page did not answer meanwhile, and their undo. Then a 1M-node profile's first paint,
# and the transforms' CPU time in node (html-transforms.js). Output is checked
# byte-identical over two runs. FK_BENCH_SHAPES=1 adds the transforms on wide, deep and
# many-name profiles (gen-shapes.py). FK_BENCH_STACKS changes the size; FK_BENCH_DIR keeps the
# files; FK_INFERNO points at an inferno-flamegraph binary.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
FLAMEKIT=$BUILD/flamekit
N=${FK_BENCH_STACKS:-500000}
W=${FK_BENCH_DIR:-$(mktemp -d /tmp/fk-bench-html.XXXXXX)}
[ -n "${FK_BENCH_DIR:-}" ] || trap 'rm -rf "$W"' EXIT
mkdir -p "$W"
IN=$W/bushy-$N.folded
SMALL=$W/small.folded
[ -s "$IN" ] || { python3 bench/gen-stacks.py "$N" bushy | LC_ALL=C sort > "$IN.tmp" && mv "$IN.tmp" "$IN"; }
[ -s "$SMALL" ] || { python3 bench/gen-stacks.py 50000 bushy | LC_ALL=C sort > "$SMALL.tmp" && mv "$SMALL.tmp" "$SMALL"; }
INFERNO=${FK_INFERNO:-/work/peers/inferno/bin/inferno-flamegraph}

jobs=("cat=cat $IN" "collapse=$FLAMEKIT collapse $IN -o $W/out.folded" "html=$FLAMEKIT html $IN -o $W/out.html")
if [ -x "$INFERNO" ]; then
	jobs+=("inferno=$INFERNO $IN")
	why=""
else
	why="skipped: no inferno-flamegraph at $INFERNO (set FK_INFERNO)"
fi
python3 bench/timeit.py 3 "${jobs[@]}" > "$W/times"
"$FLAMEKIT" html "$IN" -o "$W/out.html"
"$FLAMEKIT" html "$IN" -o "$W/out2.html"
cmp -s "$W/out.html" "$W/out2.html" || echo "  html: NOT DETERMINISTIC (two runs differ)"
rm -f "$W/out2.html"
"$FLAMEKIT" html "$SMALL" -o "$W/small.html"
col() { awk -v l="$1" -v i="$2" '$1 == l {print $i}' "$W/times"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b <= 0) b = 0.000001; printf "%.2f", a / b}'; }
nodes=$(grep -o '"nodes":[0-9]*' "$W/out.html" | head -1 | cut -d: -f2)
bytes=$(stat -c %s "$W/out.html")
echo "b-html: $(wc -l < "$IN") unique stacks, $nodes tree nodes, $(($(stat -c %s "$IN") / 1048576)) MB folded, load $(cut -d' ' -f1 /proc/loadavg)"
echo "  (medians of 3 runs: wall s, cpu s, peak MB)"
for l in cat collapse html inferno; do
	[ -n "$(col $l 1)" ] || continue
	printf '  %-9s %8s s wall %8s s cpu %8.1f MB\n' "$l" "$(col $l 4)" "$(col $l 5)" "$(awk -v k="$(col $l 6)" 'BEGIN {print k / 1024}')"
done
echo "  html: $(col html 4) s wall, $(col html 5) s cpu (target < 1.5 s)"
echo "  html / collapse: $(ratio "$(col html 4)" "$(col collapse 4)")x wall, $(ratio "$(col html 5)" "$(col collapse 5)")x cpu"
if [ -n "$why" ]; then
	echo "  html / inferno: $why"
else
	echo "  html / inferno-flamegraph: $(ratio "$(col html 4)" "$(col inferno 4)")x wall, $(ratio "$(col html 5)" "$(col inferno 5)")x cpu (target <= 0.5)"
fi
echo "  page: $bytes bytes, $(awk -v b="$bytes" -v n="$nodes" 'BEGIN {printf "%.2f", b / n}') bytes per tree node (target <= 2)"
if command -v node > /dev/null && [ -x /usr/bin/chromium ] && [ -d tests/browser/node_modules/playwright-core ]; then
	node bench/html-page.js "$W/out.html" "$W/small.html"
	node --max-old-space-size=6000 bench/html-transforms.js "$W/out.html"
	# FK_BENCH_SHAPES=1: the transforms on the other shapes too (gen-shapes.py, ~5M nodes
	# each; wide makes about 10M), in Chromium page by page and in node
	if [ -n "${FK_BENCH_SHAPES:-}" ]; then
		pages=()
		for s in wide deep names; do
			[ -s "$W/$s.folded" ] || { python3 bench/gen-shapes.py 5000000 "$s" | LC_ALL=C sort > "$W/$s.tmp" && mv "$W/$s.tmp" "$W/$s.folded"; }
			"$FLAMEKIT" html "$W/$s.folded" -o "$W/$s.html"
			pages+=("$W/$s.html")
		done
		node bench/html-xform-page.js "${pages[@]}"
		for p in "${pages[@]}"; do node --max-old-space-size=6000 bench/html-transforms.js "$p"; done
	fi
else
	echo "  browser: skipped (needs node, /usr/bin/chromium and tests/browser/node_modules/playwright-core)"
fi

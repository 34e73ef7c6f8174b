#!/usr/bin/env bash
# b-svg.sh - `flamekit svg` on a folded file of 250k unique stacks (deterministic,
# shaped like a real call tree: stacks grow from earlier ones, ~25 frames deep,
# C++/Java/kernel-like names, sorted as collapse tools write them). Reports wall
# and CPU time as ratios to `cat` and `wc -l` of the same file in the same run,
# peak RSS, and SVG bytes per drawn frame, against the targets (< 1 s, < 100 MB,
# <= 120 B/frame before the frames' <title> tooltips, whose cost is reported
# apart). FK_BENCH_STACKS changes the size; FK_BENCH_DIR keeps files.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
FLAMEKIT=$BUILD/flamekit
N=${FK_BENCH_STACKS:-250000}
W=${FK_BENCH_DIR:-$(mktemp -d /tmp/fk-bench-svg.XXXXXX)}
[ -n "${FK_BENCH_DIR:-}" ] || trap 'rm -rf "$W"' EXIT
mkdir -p "$W"
IN=$W/stacks.folded

if [ ! -s "$IN" ]; then
python3 bench/gen-stacks.py "$N" > "$W/gen.folded"
LC_ALL=C sort "$W/gen.folded" > "$IN"
rm -f "$W/gen.folded"
fi

# best of 3: "wall user sys maxrss_kb"
measure() {
	local best="" line
	for _ in 1 2 3; do
		line=$(/usr/bin/time -f '%e %U %S %M' "$@" 2>&1 > /dev/null | tail -1)
		if [ -z "$best" ] || awk -v a="$line" -v b="$best" 'BEGIN {split(a, x, " "); split(b, y, " "); exit !(x[1] < y[1])}'; then
			best=$line
		fi
	done
	echo "$best"
}
field() { echo "$1" | awk -v i="$2" '{print $i}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b <= 0) b = 0.001; printf "%.1f", a / b}'; }

stacks=$(wc -l < "$IN")
bytes=$(stat -c %s "$IN")
m_cat=$(measure cat "$IN")
m_wc=$(measure wc -l "$IN")
m_col=$(measure "$FLAMEKIT" collapse "$IN" -o "$W/out.folded")
m_svg=$(measure "$FLAMEKIT" svg "$IN" -o "$W/out.svg")
svg_bytes=$(stat -c %s "$W/out.svg")
frames=$(sed -n '/<g id="frames">/,/<\/g>/p' "$W/out.svg" | grep -c '^<rect ')
per_frame=$(awk -v b="$svg_bytes" -v f="$frames" 'BEGIN {printf "%.1f", b / f}')
# the frames' <title> tooltips (name, count, share: flamegraph.pl's), counted apart
title_bytes=$(sed -n '/<g id="frames">/,/<\/g>/p' "$W/out.svg" | grep -o '><title>[^<]*</title></rect>' | LC_ALL=C awk '{n += length($0) - 2} END {print n + 0}')
bare=$(awk -v b="$svg_bytes" -v t="$title_bytes" -v f="$frames" 'BEGIN {printf "%.1f", (b - t) / f}')
title_pf=$(awk -v t="$title_bytes" -v f="$frames" 'BEGIN {printf "%.1f", t / f}')
wall=$(field "$m_svg" 1) cpu=$(awk -v u="$(field "$m_svg" 2)" -v s="$(field "$m_svg" 3)" 'BEGIN {print u + s}')
rss_mb=$(awk -v k="$(field "$m_svg" 4)" 'BEGIN {printf "%.1f", k / 1024}')

echo "b-svg: $stacks unique stacks, $((bytes / 1048576)) MB folded, load $(cut -d' ' -f1 /proc/loadavg)"
echo "  cat:              $(field "$m_cat" 1) s"
echo "  wc -l:            $(field "$m_wc" 1) s"
echo "  flamekit collapse $(field "$m_col" 1) s wall, $(field "$m_col" 4) KB peak"
echo "  flamekit svg:     $wall s wall, $cpu s CPU, $rss_mb MB peak RSS"
echo "  svg / cat:        $(ratio "$wall" "$(field "$m_cat" 1)")x   svg / wc -l: $(ratio "$wall" "$(field "$m_wc" 1)")x   svg / collapse: $(ratio "$wall" "$(field "$m_col" 1)")x"
echo "  SVG:              $svg_bytes bytes, $frames frames drawn, $per_frame bytes/frame"
echo "  of which titles:  $title_bytes bytes, $title_pf bytes/frame; without them $bare bytes/frame"
verdict() { if awk "BEGIN {exit !($1)}"; then echo "met"; else echo "MISSED"; fi; }
echo "  targets: time < 1 s: $(verdict "$wall < 1") (CPU $cpu s: $(verdict "$cpu < 1")); peak < 100 MB: $(verdict "$rss_mb < 100"); <= 120 B/frame before titles: $(verdict "$bare <= 120")"

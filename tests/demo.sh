#!/usr/bin/env bash
# `make demo`: renders the bundled real perf recording into demo.html (the page:
# zoom, search, sandwich, table), demo.svg (the flamegraph.pl-style image) and
# demo.folded, so a fresh checkout shows the main job end to end, and says which
# file to open. DEMO_DIR writes them elsewhere (default: the top of the tree).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
OUT=${DEMO_DIR:-$PWD}
src=tests/data/demo/demo.perf-script.zst
title="flamekit demo: a real perf recording"
zstd -dc "$src" | "$BUILD/flamekit" collapse -o "$OUT/demo.folded"
zstd -dc "$src" | "$BUILD/flamekit" html --title "$title" -o "$OUT/demo.html"
zstd -dc "$src" | "$BUILD/flamekit" svg --title "$title" -o "$OUT/demo.svg"
OUT=$(cd "$OUT" && pwd)
cat <<EOF
demo: $(wc -l < "$OUT/demo.folded") unique stacks of a real perf recording:
  open $OUT/demo.html in a browser: the interactive page (click to zoom,
       search, sandwich, functions table, transforms, dark theme)
  also $OUT/demo.svg (flamegraph.pl-style image, opens anywhere) and
       $OUT/demo.folded (the folded stacks both were drawn from)
EOF

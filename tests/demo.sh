#!/usr/bin/env bash
# `make demo`: renders the bundled real perf recording into demo.svg (and
# demo.folded), so a fresh checkout shows the main job end to end.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
src=tests/data/demo/demo.perf-script.zst
zstd -dc "$src" | "$BUILD/flamekit" collapse -o demo.folded
zstd -dc "$src" | "$BUILD/flamekit" svg --title "flamekit demo: a real perf recording" -o demo.svg
echo "demo: $(wc -l < demo.folded) unique stacks -> demo.folded, flame graph -> $PWD/demo.svg"

#!/usr/bin/env bash
# b-collapse.sh - `flamekit collapse` of large perf script text (gen-synth-perf.py from the
# shared corpus, 512 MB, seed 1, generated once and cached) on one and two threads, as
# throughput and as ratios to `wc -l` of the same file in the same run (targets: >= 1 GB/s
# on one core, within 3x of wc -l); then peak RSS for 1x vs 10x input of the same stacks
# (target: < 10% growth). Best of FK_BENCH_RUNS (5) runs, round-robin; CPU = user + sys.
# FK_BENCH_MB changes the size, FK_BENCH_CACHE where the input is kept, FK_CORPUS the seeds.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
FLAMEKIT=$BUILD/flamekit
MB=${FK_BENCH_MB:-512}
RUNS=${FK_BENCH_RUNS:-5}
CORPUS=${FK_CORPUS:-$PWD/../shared/corpus}
CACHE=${FK_BENCH_CACHE:-/tmp/fk-bench-collapse}
if [ ! -f "$CORPUS/gen-synth-perf.py" ]; then
	echo "b-collapse: SKIP: no corpus generator at $CORPUS (set FK_CORPUS)"
	exit 0
fi
mkdir -p "$CACHE"
IN=$CACHE/synth-$MB-seed1.perf-script
if [ ! -s "$IN" ]; then
	echo "b-collapse: generating $IN (once)..."
	python3 "$CORPUS/gen-synth-perf.py" --size-mb "$MB" --seed 1 -o "$IN.tmp" \
		"$CORPUS/cxx-templates.perf-script.zst" "$CORPUS/node-jit.perf-script.zst" 2> /dev/null
	mv "$IN.tmp" "$IN"
fi
BYTES=$(stat -L -c %s "$IN")
cat "$IN" > /dev/null # page cache, as for every command below

# measure LABEL=CMD...: every command $RUNS times, round-robin (bench/timeit.py), one
# "label best_wall best_cpu median_wall median_cpu rss_kb" line each
measure() { python3 bench/timeit.py "$RUNS" "$@"; }
field() { awk -v l="$1" -v f="$2" '$1 == l {print $f}' "$CACHE/m.out"; }

report() { # LABEL: best wall and cpu, as GB/s and as ratios to wc -l's best
	awk -v l="$1" -v b="$BYTES" '
		$1 == "wc" {w = $2; wc = $3} $1 == l {x = $2; c = $3; mw = $4; r = $6}
		END {printf "  %-20s wall %6.3f s (%5.2f GB/s)  cpu %6.3f s (%5.2f GB/s)  wall/wc %5.2fx  cpu/wc %5.2fx  median wall/wc %5.2fx  rss %d MB\n",
			l, x, b / x / 1e9, c, b / (c > 0 ? c : 1e-9) / 1e9, x / w, c / (wc > 0 ? wc : 1e-9), mw / w, r / 1024}' "$CACHE/m.out"
}
measure wc="wc -l $IN" one="$FLAMEKIT collapse -o /dev/null $IN" two="$FLAMEKIT collapse --threads 2 -o /dev/null $IN" > "$CACHE/m.out"
echo "b-collapse: $(awk -v b="$BYTES" 'BEGIN {printf "%.0f MB", b / 1e6}') of perf script text ($(wc -l < "$IN") lines), best of $RUNS round-robin runs"
report wc
report one
report two
awk -v b="$BYTES" '$1 == "wc" {w = $2} $1 == "one" {c = $3} $1 == "two" {t = $2} END {
	g1 = b / c / 1e9; r2 = t / w;
	printf "  target >= 1 GB/s on one core (cpu time): %.2f GB/s -> %s\n", g1, (g1 >= 1 ? "met" : "NOT met");
	printf "  target within 3x of wc -l (2 threads, wall): %.2fx -> %s\n", r2, (r2 <= 3 ? "met" : "NOT met") }' "$CACHE/m.out"

# the same on real recordings: the two corpus files repeated to the same size (few unique
# stacks and names: the common case, where the per-line path dominates)
REAL=$CACHE/corpus-repeated-$MB.perf-script
if [ ! -s "$REAL" ]; then
	zstd -q -dc "$CORPUS/cxx-templates.perf-script.zst" "$CORPUS/node-jit.perf-script.zst" > "$CACHE/pair.tmp"
	n=$(( MB * 1000000 / $(stat -c %s "$CACHE/pair.tmp") + 1 ))
	for _ in $(seq "$n"); do cat "$CACHE/pair.tmp"; done > "$REAL.tmp"
	rm -f "$CACHE/pair.tmp"
	mv "$REAL.tmp" "$REAL"
fi
BYTES_SYN=$BYTES IN_SYN=$IN
IN=$REAL BYTES=$(stat -L -c %s "$REAL")
cat "$IN" > /dev/null
measure wc="wc -l $IN" one="$FLAMEKIT collapse -o /dev/null $IN" two="$FLAMEKIT collapse --threads 2 -o /dev/null $IN" > "$CACHE/m.out"
echo "b-collapse: $(awk -v b="$BYTES" 'BEGIN {printf "%.0f MB", b / 1e6}') of real recordings (corpus repeated), best of $RUNS"
report wc
report one
report two
IN=$IN_SYN BYTES=$BYTES_SYN

# memory: the first ~40 MB of samples, then the same text 10 times
one=$CACHE/rss-1x.perf-script ten=$CACHE/rss-10x.perf-script
if [ ! -s "$ten" ]; then
	head -c 40000000 "$IN" | awk 'BEGIN {RS = ""; ORS = "\n\n"} {print}' | head -n -1 > "$one.tmp"
	# drop the possibly cut last sample: keep whole blank-line separated records only
	awk 'BEGIN {RS = ""; ORS = "\n\n"} NR > 1 {print prev} {prev = $0}' "$one.tmp" > "$one"
	rm -f "$one.tmp"
	for _ in $(seq 10); do cat "$one"; done > "$ten"
fi
measure x1="$FLAMEKIT collapse -o /dev/null $one" x10="$FLAMEKIT collapse -o /dev/null $ten" > "$CACHE/m.out"
awk '$1 == "x1" {a = $6} $1 == "x10" {b = $6} END {
	g = (b - a) * 100 / a;
	printf "  peak RSS 1x %d MB, 10x %d MB: %+.1f%% -> %s (target < 10%%)\n", a / 1024, b / 1024, g, (g < 10 ? "met" : "NOT met") }' "$CACHE/m.out"

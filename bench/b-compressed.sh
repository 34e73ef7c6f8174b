#!/usr/bin/env bash
# b-compressed.sh - gzip and zstd input: the time `flamekit collapse` adds over the plain file
# (its decompression) against `zcat`/`zstdcat` of the same file to /dev/null in the same run
# (target: decompression at >= 80% of zcat's speed), and peak RSS for 1x vs 4x the same stacks
# compressed (streaming: RSS must not grow with input size). Input: FK_BENCH_MB (64) MB of
# seeded perf script made by gen-synth-perf.py from the shared corpus (../shared/corpus or
# FK_CORPUS). Medians of
# FK_BENCH_RUNS (5) round-robin runs; CPU = user + sys.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
FLAMEKIT=$BUILD/flamekit
RUNS=${FK_BENCH_RUNS:-5}
MB=${FK_BENCH_MB:-64}
CORPUS=${FK_CORPUS:-$PWD/../shared/corpus}
[ -f "$CORPUS/cxx-templates.perf-script.zst" ] || { echo "b-compressed: no corpus at $CORPUS (set FK_CORPUS)"; exit 1; }
W=$(mktemp -d /tmp/fk-bench-z.XXXXXX)
trap 'rm -rf "$W"' EXIT
python3 "$CORPUS/gen-synth-perf.py" --size-mb "$MB" --seed 1 -o "$W/in" \
	"$CORPUS/cxx-templates.perf-script.zst" "$CORPUS/node-jit.perf-script.zst" > /dev/null 2>&1
gzip -6 -c "$W/in" > "$W/in.gz"
zstd -q -3 -c "$W/in" > "$W/in.zst"
cat "$W/in.gz" "$W/in.gz" "$W/in.gz" "$W/in.gz" > "$W/in4.gz"
mb=$(awk -v b="$(stat -c %s "$W/in")" 'BEGIN {printf "%.0f", b / 1048576}')

out=$(python3 bench/timeit.py "$RUNS" \
	"zcat=zcat $W/in.gz" "zstdcat=zstd -q -dc $W/in.zst" \
	"plain=$FLAMEKIT collapse $W/in" "gz=$FLAMEKIT collapse $W/in.gz" "zst=$FLAMEKIT collapse $W/in.zst" \
	"gz4=$FLAMEKIT collapse $W/in4.gz")
get() { echo "$out" | awk -v l="$1" -v i="$2" '$1 == l {print $i}'; }
# median wall (field 4) and CPU (field 5)
pw=$(get plain 4) pc=$(get plain 5)
echo "b-compressed: $mb MB of perf script (synthetic, seed 1), gzip $(stat -c %s "$W/in.gz") B, zstd $(stat -c %s "$W/in.zst") B; load $(cut -d' ' -f1 /proc/loadavg)"
printf "  %-10s %10s %10s   (medians)\n" "" "wall s" "CPU s"
for l in zcat zstdcat plain gz zst gz4; do
	printf "  %-10s %10s %10s\n" "$l" "$(get $l 4)" "$(get $l 5)"
done
for c in gz:zcat zst:zstdcat; do
	fk=${c%%:*} tool=${c#*:}
	# the CPU flamekit spends decompressing = compressed run minus plain run
	extra=$(awk -v a="$(get "$fk" 5)" -v b="$pc" 'BEGIN {d = a - b; if (d < 0.001) d = 0.001; print d}')
	speed=$(awk -v t="$(get "$tool" 5)" -v e="$extra" 'BEGIN {printf "%.2f", t / e}')
	ok=$(awk -v s="$speed" 'BEGIN {print (s >= 0.8) ? "met" : "MISSED"}')
	echo "  $fk: decompression CPU $extra s vs $tool $(get "$tool" 5) s: $speed x its speed (target >= 0.8: $ok); wall $(get "$fk" 4) s vs plain $pw s"
done
# peak RSS from /usr/bin/time (timeit's children start as a copy of python)
rss() { /usr/bin/time -f '%M' "$@" 2>&1 > /dev/null | tail -1; }
r1=$(rss "$FLAMEKIT" collapse "$W/in.gz") r4=$(rss "$FLAMEKIT" collapse "$W/in4.gz")
grow=$(awk -v a="$r1" -v b="$r4" 'BEGIN {printf "%.0f", (b - a) / 1024}')
echo "  memory: 1x gz $r1 KB, 4x gz $r4 KB peak: $grow MB more for 4x the input ($( [ "$grow" -le 8 ] && echo "flat: met" || echo "MISSED"))"

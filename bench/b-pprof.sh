#!/usr/bin/env bash
# b-pprof.sh - pprof write and read of the 250k-stack bench profile (bench/gen-stacks.py, as
# b-svg.sh) against `go tool pprof -raw` reading the same file, in the same run (target: both
# at least 5x faster), and the bytes. Write = `flamekit collapse stacks.folded -o x.pb.gz`
# (folded parse + pprof encode + gzip); read = `flamekit collapse x.pb.gz` (gunzip + decode +
# fold + folded output). Medians of FK_BENCH_RUNS (5) round-robin runs. FK_BENCH_STACKS
# changes the size.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
FLAMEKIT=$BUILD/flamekit
N=${FK_BENCH_STACKS:-250000}
RUNS=${FK_BENCH_RUNS:-5}
command -v go > /dev/null || { echo "b-pprof: go not installed (Debian golang-go)"; exit 1; }
W=$(mktemp -d /tmp/fk-bench-pprof.XXXXXX)
trap 'rm -rf "$W"' EXIT
export GOCACHE=$W/gocache HOME=$W PPROF_TMPDIR=$W
python3 bench/gen-stacks.py "$N" | LC_ALL=C sort > "$W/stacks.folded"
"$FLAMEKIT" collapse "$W/stacks.folded" -o "$W/p.pb.gz"
"$FLAMEKIT" collapse "$W/stacks.folded" --emit pprof > /dev/null 2>&1
# a go tool pprof wrapper with its output to /dev/null (timeit runs no shell)
cat > "$W/go-raw" <<EOF
#!/bin/sh
exec go tool pprof -symbolize=none -raw "\$1" > /dev/null
EOF
chmod +x "$W/go-raw"
out=$(python3 bench/timeit.py "$RUNS" \
	"folded=$FLAMEKIT collapse $W/stacks.folded -o $W/o.folded" \
	"write=$FLAMEKIT collapse $W/stacks.folded -o $W/o.pb.gz" \
	"read=$FLAMEKIT collapse $W/p.pb.gz -o $W/r.folded" \
	"go-raw=$W/go-raw $W/p.pb.gz")
get() { echo "$out" | awk -v l="$1" -v i="$2" '$1 == l {print $i}'; }
"$FLAMEKIT" collapse "$W/p.pb.gz" | cmp -s - "$W/stacks.folded" || echo "  WARNING: pprof read back differs from the folded input"
echo "b-pprof: $(wc -l < "$W/stacks.folded") unique stacks, folded $(stat -c %s "$W/stacks.folded") B, pprof $(stat -c %s "$W/p.pb.gz") B gzipped ($(zcat "$W/p.pb.gz" | wc -c) B protobuf); load $(cut -d' ' -f1 /proc/loadavg)"
printf "  %-28s %10s %10s   (medians of %s)\n" "" "wall s" "CPU s" "$RUNS"
for l in folded write read go-raw; do
	printf "  %-28s %10s %10s\n" "$l" "$(get $l 4)" "$(get $l 5)"
done
# wall, and CPU (the work done; wall on a loaded shared machine mostly measures the load)
for l in write read; do
	rw=$(awk -v a="$(get go-raw 4)" -v b="$(get $l 4)" 'BEGIN {printf "%.1f", a / b}')
	rc=$(awk -v a="$(get go-raw 5)" -v b="$(get $l 5)" 'BEGIN {printf "%.1f", a / b}')
	v() { awk -v r="$1" 'BEGIN {print (r >= 5) ? "met" : "MISSED"}'; }
	echo "  $l vs go tool pprof -raw: ${rw}x faster wall ($(v "$rw")), ${rc}x less CPU ($(v "$rc")); target >= 5"
done

#!/usr/bin/env bash
# b-perf-plugin.sh - perf.data to flame graph, on one real recording of a busy
# multi-process workload (100k+ samples): `perf script > /dev/null` (perf's
# own floor, the baseline), `perf script | flamekit collapse`, the dlfilter
# (perf.data -> SVG inside perf script), and `perf report -g folded`.
# Goal: the dlfilter path is faster than `perf script > /dev/null` alone.
# Best of FK_BENCH_RUNS (3) wall-clock times; figures as ratios to the baseline.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
FLAMEKIT=$BUILD/flamekit
DLF=$BUILD/flamekit-dlfilter.so
RUNS=${FK_BENCH_RUNS:-3}
SECS=${FK_BENCH_SECONDS:-8}
command -v perf > /dev/null || { echo "SKIP: perf not installed"; exit 0; }
W=$(mktemp -d /tmp/fk-bench-perf.XXXXXX)
trap 'rm -rf "$W"' EXIT

gcc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$W/busy" tests/perf-plugin/busy.c
# cpu-clock every 10 us on 4 processes: ~100k samples per CPU-second
perf record -q -c 10000 -m 1024 -g -o "$W/perf.data" "$W/busy" 4 "$SECS" > /dev/null 2>&1
nsamples=$(perf report -i "$W/perf.data" --stats 2> /dev/null | awk '/SAMPLE events:/ { print $3; exit }')
echo "perf.data: $(du -h "$W/perf.data" | cut -f1), $nsamples samples ($(nproc) CPUs)"

# best RUNS: wall and CPU (user+sys, children included) seconds of sh -c "$1";
# CPU time is the steadier figure on a shared machine
best() {
	local bw= bc=
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -f "%e %U %S" -o "$W/time.out" sh -c "$1" > /dev/null 2>&1 ||
			{ echo "failed: $1" >&2; exit 1; }
		read -r e u s < "$W/time.out"
		bw=$(awk -v b="$bw" -v d="$e" 'BEGIN { if (b == "" || d < b) print d; else print b }')
		bc=$(awk -v b="$bc" -v d="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" \
			'BEGIN { if (b == "" || d < b) print d; else print b }')
	done
	echo "$bw $bc"
}
# perf's own cost of running a dlfilter: one that drops every sample, doing nothing
cat > "$W/noop.c" <<'NOOP'
/* drops every sample: the floor of any dlfilter */
struct perf_dlfilter_sample;
int filter_event(void *data, const struct perf_dlfilter_sample *s, void *ctx) { return 1; }
NOOP
gcc -O2 -shared -fPIC -o "$W/noop.so" "$W/noop.c"
D=$W/perf.data
noop=$(best "perf script -i $D --dlfilter $W/noop.so")
base=$(best "perf script -i $D > /dev/null")
text=$(best "perf script -i $D | $FLAMEKIT collapse > $W/text.folded")
dlsvg=$(best "perf script -i $D --dlfilter $DLF --dlarg svg=$W/dl.svg")
dlfold=$(best "perf script -i $D --dlfilter $DLF --dlarg folded=$W/dl.folded")
report=$(best "perf report -i $D --stdio --no-children -g folded,0,caller,count > $W/report.txt")
# default looks return addresses up at addr-1 (the real caller when a call is
# the last instruction of a function); exact-ret reproduces perf script
perf script -i "$D" --dlfilter "$DLF" --dlarg exact-ret --dlarg folded="$W/exact.folded" > /dev/null 2>&1
cmp -s "$W/text.folded" "$W/exact.folded" && same=yes || same=NO
ndiff=$(diff "$W/text.folded" "$W/dl.folded" | grep -c '^>' || true)
resolves=$(perf script -i "$D" --dlfilter "$DLF" --dlarg folded=/dev/null --dlarg verbose 2>&1 |
	sed -n 's/.* \([0-9]*\) addresses resolved.*/\1/p')

row() {
	awk -v n="$1" -v t="$2" -v b="$base" 'BEGIN { split(t, x, " "); split(b, y, " ");
		printf "  %-48s %6.2f s %5.2fx   %6.2f s %5.2fx\n", n, x[1], x[1] / y[1], x[2], x[2] / y[2] }'
}
echo "best of $RUNS runs; ratios to perf script > /dev/null:    wall          CPU (user+sys)"
row "perf script > /dev/null (baseline)" "$base"
row "perf script | flamekit collapse" "$text"
row "perf report -g folded (--stdio --no-children)" "$report"
row "no-op dlfilter (perf's floor for any dlfilter)" "$noop"
row "dlfilter: perf.data -> folded" "$dlfold"
row "dlfilter: perf.data -> SVG" "$dlsvg"
echo "dlfilter (exact-ret) folded == perf script | flamekit collapse: $same"
echo "default (addr-1) folded: $ndiff of $(wc -l < "$W/dl.folded") stacks name a different caller"
echo "addresses resolved through perf: $resolves for $nsamples samples"
awk -v d="$dlsvg" -v b="$base" 'BEGIN { split(d, x, " "); split(b, y, " ");
	printf "goal (dlfilter to SVG faster than perf script > /dev/null): %s (wall %.2fx, CPU %.2fx)\n",
		x[1] < y[1] && x[2] < y[2] ? "met" : "NOT met", x[1] / y[1], x[2] / y[2] }'

# --weight FIELD: a recording of FK_BENCH_WEIGHT_EVENTS (1M) syscalls:sys_exit_read events
# with callchains, folded by the dlfilter weighed by ret, and without a weight (period 1
# each), and printed by perf script; medians of round-robin runs (bench/timeit.py).
NEV=${FK_BENCH_WEIGHT_EVENTS:-1000000}
if [ -r /sys/kernel/tracing/events/syscalls/sys_exit_read/format ] &&
	gcc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$W/manyreads" tests/perf-plugin/manyreads.c &&
	perf record -q -m 2048 -c 1 -e syscalls:sys_exit_read -g -o "$W/reads.data" "$W/manyreads" "$NEV" > /dev/null 2>&1; then
	R=$W/reads.data
	nev=$(perf report -i "$R" --stats 2> /dev/null | awk '/SAMPLE events:/ { print $3; exit }')
	python3 bench/timeit.py "$RUNS" \
		weight="perf script -i $R --dlfilter $DLF --dlarg weight=ret --dlarg folded=/dev/null" \
		plain="perf script -i $R --dlfilter $DLF --dlarg folded=/dev/null" \
		script="perf script -i $R" > "$W/weight.times"
	awk -v n="$nev" '{ med[$1] = $4; cpu[$1] = $5 } END {
		printf "dlfilter weight=ret on %s sys_exit_read events (medians):\n", n
		printf "  weight / no weight:   wall %.2fx, CPU %.2fx (aim <= 1.3x)\n", med["weight"] / med["plain"], cpu["weight"] / cpu["plain"]
		printf "  weight / perf script: wall %.2fx, CPU %.2fx (aim <= 0.3x)\n", med["weight"] / med["script"], cpu["weight"] / cpu["script"] }' "$W/weight.times"
else
	echo "--weight: skipped (no syscalls:sys_exit_read tracepoint, or perf record of it failed)"
fi

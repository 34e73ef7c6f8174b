#!/usr/bin/env bash
# b-gdb.sh - the gdb `flame` command on a 6-thread target whose threads sit ~150 frames
# deep (~900 frames a sample): full samples per second and time stopped per sample
# (median, p90), fast unwinder vs gdb's Python frame walk (`flame --precise`: newest_frame,
# older, name) measured in the same run on the same process. Goal: >= 200 samples/s and
# < 3 ms stopped. FK_BENCH_SECONDS (5) per mode, FK_BENCH_HZ (1000) requested rate.
# With python3.11 installed, the same on a Python program (tests/gdb/py/split.py):
# `flame --python` (CPython frames read and merged at each stop) against plain native
# sampling of the same process in the same run. Goal: >= 200 Python samples/s.
# "Stopped" (flame's figure) runs from the SIGSTOP leaving the timer thread to the next
# `continue`; the target also measures it itself (a thread waking every 200 us notes each
# wake-up that comes >= 0.3 ms late), with the same count taken without gdb as the noise.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
SECS=${FK_BENCH_SECONDS:-5}
HZ=${FK_BENCH_HZ:-1000}
SCRIPT=$BUILD/gdb/flamekit.py
TARGET=$BUILD/tests/gdb/fk-target
if ! command -v gdb > /dev/null || [ ! -f "$SCRIPT" ]; then
	echo "b-gdb: SKIP: gdb or the gdb plugin is missing"; exit 0
fi
if [ ! -x "$TARGET" ]; then
	make -s "$TARGET" > /dev/null 2>&1 || { echo "b-gdb: SKIP: cannot build $TARGET"; exit 0; }
fi
TMP=$(mktemp -d /tmp/fk-bench-gdb.XXXXXX)
"$TARGET" deep 150 6 "$TMP/gaps" > "$TMP/target.out" &
TPID=$!
disown $TPID
trap 'kill -9 $TPID 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.5

# the target's own view: a watcher thread notes every wake-up >= 0.3 ms late
gaps() { rm -f "$TMP/gaps"; kill -USR2 $TPID; for _ in $(seq 50); do [ -s "$TMP/gaps" ] && break; sleep 0.1; done; cat "$TMP/gaps"; }
sleep "$SECS"
read -r b_n b_med b_p90 < <(gaps) # baseline: no gdb, same duration (scheduling noise)

run() { # MODE ARGS...: prints "rate median p90 full"
	local mode=$1; shift
	timeout 300 gdb -batch -nx -q -x "$SCRIPT" \
		-ex "flame -p $TPID -d $SECS -F $HZ --folded $TMP/$mode.folded $*" > "$TMP/$mode.out" 2>&1
	local line
	line=$(grep "stopped per sample" "$TMP/$mode.out") || { cat "$TMP/$mode.out" >&2; echo "0 0 0 0"; return; }
	# flame: N samples in S s (R/s), K stacks; stopped per sample: median A ms, p90 B ms
	local rate med p90 full
	rate=$(sed -E 's/.*\(([0-9.]+)\/s\).*/\1/' <<< "$line")
	med=$(sed -E 's/.*median ([0-9.]+) ms.*/\1/' <<< "$line")
	p90=$(sed -E 's/.*p90 ([0-9.]+) ms.*/\1/' <<< "$line")
	# stacks at least 150 frames deep, per sample (6 expected)
	full=$(awk -v n="$(sed -E 's/flame: ([0-9]+) samples.*/\1/' <<< "$line")" \
		'{d = split($0, a, ";"); if (d >= 150) c += $NF} END {printf "%.2f", n ? c / n : 0}' "$TMP/$mode.folded")
	echo "$rate $med $p90 $full"
}

read -r f_rate f_med f_p90 f_full < <(run fast)
read -r f_gn f_gmed f_gp90 < <(gaps)
read -r p_rate p_med p_p90 p_full < <(run precise --precise)
read -r p_gn p_gmed p_gp90 < <(gaps)
echo "b-gdb: target: 6 threads x ~150 frames (pid $TPID), ${SECS}s per mode, -F $HZ"
printf 'b-gdb: fast unwinder : %7.1f samples/s, stopped median %6.2f ms, p90 %6.2f ms, deep stacks/sample %s\n' \
	"$f_rate" "$f_med" "$f_p90" "$f_full"
printf 'b-gdb: gdb frame walk: %7.1f samples/s, stopped median %6.2f ms, p90 %6.2f ms, deep stacks/sample %s\n' \
	"$p_rate" "$p_med" "$p_p90" "$p_full"
printf 'b-gdb: seen by the target (late wake-ups >= 0.3 ms): no gdb %s in %ss; fast %s, median %s ms, p90 %s ms; walk %s, median %s ms, p90 %s ms\n' \
	"$b_n" "$SECS" "$f_gn" "$f_gmed" "$f_gp90" "$p_gn" "$p_gmed" "$p_gp90"
awk -v fr="$f_rate" -v pr="$p_rate" -v fm="$f_med" -v pm="$p_med" -v f9="$f_p90" -v p9="$p_p90" 'BEGIN {
	printf "b-gdb: ratio fast/walk samples/s: %.1fx; walk/fast stopped time: median %.1fx, p90 %.1fx\n",
		(pr > 0 ? fr / pr : 0), (fm > 0 ? pm / fm : 0), (f9 > 0 ? p9 / f9 : 0)
	printf "b-gdb: goal >= 200 samples/s: %s; goal < 3 ms stopped (median): %s, (p90): %s\n",
		(fr >= 200 ? "met" : "NOT met"), (fm < 3 ? "met" : "NOT met"), (f9 < 3 ? "met" : "NOT met") }'
grep -E "fast [0-9]+, libdw" "$TMP/fast.out" | sed 's/.*(/b-gdb: fast path threads: (/'

# ---- Python frames (flame --python) on python3.11, native sampling of the same process as baseline
PY=${FK_PYTHON311:-/usr/bin/python3.11}
if [ -x "$PY" ]; then
	"$PY" tests/gdb/py/split.py > "$TMP/py.out" &
	PYPID=$!
	disown $PYPID
	trap 'kill -9 $TPID $PYPID 2>/dev/null; rm -rf "$TMP"' EXIT
	for _ in $(seq 100); do grep -qs '^ready' "$TMP/py.out" && break; sleep 0.05; done
	TPID_SAVE=$TPID
	TPID=$PYPID
	read -r pn_rate pn_med pn_p90 _ < <(run pynative)
	read -r py_rate py_med py_p90 _ < <(run python --python)
	TPID=$TPID_SAVE
	grep -q "heavy (" "$TMP/python.folded" 2>/dev/null || echo "b-gdb: WARNING: no Python frames in the --python run" >&2
	printf 'b-gdb: python3.11, native : %7.1f samples/s, stopped median %6.2f ms, p90 %6.2f ms\n' "$pn_rate" "$pn_med" "$pn_p90"
	printf 'b-gdb: python3.11, --python: %7.1f samples/s, stopped median %6.2f ms, p90 %6.2f ms\n' "$py_rate" "$py_med" "$py_p90"
	awk -v a="$py_rate" -v b="$pn_rate" -v m="$py_med" -v n="$pn_med" 'BEGIN {
		printf "b-gdb: ratio --python/native samples/s: %.2f; stopped median %.2fx\n", (b > 0 ? a / b : 0), (n > 0 ? m / n : 0)
		printf "b-gdb: goal >= 200 Python samples/s: %s\n", (a >= 200 ? "met" : "NOT met") }'
else
	echo "b-gdb: python3.11: SKIP: no $PY"
fi

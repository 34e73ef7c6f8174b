#!/usr/bin/env bash
# The _flamekit module inside perf's Python scripting (perf script -s): a hook
# builds a Profile from each sample's callchain and writes folded stacks and
# timestamped samples; the known 3:1 split of the test program shows up.
. "$(dirname "$0")/../lib.sh"
MOD=$BUILD/gdb/_flamekit.abi3.so
TARGET=$BUILD/tests/gdb/fk-target
[ -f "$MOD" ] || skip "gdb plugin module not built"
command -v perf > /dev/null || skip "perf is not installed"
perf version --build-options 2>/dev/null | grep -q "libpython: .*on" || skip "perf built without Python scripting"
"$TARGET" split > "$TMP/t.out" &
TPID=$!
trap 'kill -9 $TPID 2>/dev/null; rm -rf "$TMP"' EXIT
sleep 0.3
perf record -q -e cpu-clock -F 499 --call-graph dwarf -p "$TPID" -o "$TMP/perf.data" -- sleep 2 > "$TMP/rec.out" 2>&1 ||
	{ cat "$TMP/rec.out"; skip "perf record cannot sample here"; }
cat > "$TMP/hook.py" <<'PY'
import os, sys
sys.path.insert(0, os.environ["MODDIR"])
import _flamekit

prof = _flamekit.Profile(samples=True)

def process_event(param_dict):
    chain = param_dict.get("callchain") or []
    names = []
    for fr in chain:          # leaf first
        sym = fr.get("sym")
        names.append(sym["name"] if sym and sym.get("name") else "0x%x" % fr["ip"])
    names.reverse()
    s = param_dict["sample"]
    cpu = s.get("cpu", -1)
    prof.add(names, time=s["time"] / 1e9, pid=s["pid"], tid=s["tid"], cpu=cpu if 0 <= cpu < 1 << 31 else -1,
             comm=param_dict.get("comm"))

def trace_end():
    prof.write_folded(os.environ["OUT"] + ".folded")
    prof.write_samples(os.environ["OUT"] + ".samples")
PY
MODDIR=$BUILD/gdb OUT=$TMP/hook perf script -i "$TMP/perf.data" -s "$TMP/hook.py" > "$TMP/script.out" 2>&1 ||
	{ cat "$TMP/script.out"; fail "perf script -s failed"; }
cat "$TMP/hook.folded"
grep -q ';worker;path_a;\(inl_hot;\)\?burn' "$TMP/hook.folded" || fail "no worker;path_a;burn stack"
grep -q ';worker;path_b;burn' "$TMP/hook.folded" || fail "no worker;path_b;burn stack"
a=$(awk '/;worker;/ {t += $NF; if ($0 ~ /;path_a;/) m += $NF} END {printf "%.3f", m / t}' "$TMP/hook.folded")
echo "path_a share: $a"
# (as t-dlfilter's: a busy machine's timer samples give 66% at times)
awk -v x="$a" 'BEGIN {exit !(x >= 0.60 && x <= 0.88)}' || fail "path_a share $a, expected 0.75"
head -1 "$TMP/hook.samples" | grep -q '^# flamekit samples v1' || fail "samples header"
n=$(awk '{t += $NF} END {print t}' "$TMP/hook.folded")
assert_eq "sample lines" "$n" "$(( $(wc -l < "$TMP/hook.samples") - 2 ))"
echo PASS

#!/usr/bin/env bash
# Replays every saved fuzz corpus file (tests/fuzz/corpus/FORMAT/) through its
# parser and through auto-detection, built with the ordinary compiler (and
# with ASan+UBSan under `make test SANITIZE=1`): a crash or leak fails.
. "$(dirname "$0")/../lib.sh"
R=$BUILD/tests/fuzz/replay
[ -x "$R" ] || fail "$R not built (run make)"
C=$FK_TOP/tests/fuzz/corpus
for f in folded samples perf perf-report stap gdb dtrace bpftrace pprof cpuprofile eu-stack pprof-raw \
	jstack sample auto; do
	[ -n "$(ls -A "$C/$f" 2>/dev/null)" ] || fail "no saved corpus for $f"
done
out=$("$R" "$C"/*) || fail "replay failed: $out"
echo "$out"
n=$(echo "$out" | sed -n 's/^replayed \([0-9]*\) corpus files$/\1/p')
[ "${n:-0}" -ge 50 ] || fail "only ${n:-0} corpus files replayed"

#!/usr/bin/env bash
# Replays every saved fuzz corpus file (tests/fuzz/corpus/FORMAT/) through its
# parser and through auto-detection, then through every writer (SVG, HTML page,
# heat map, folded, samples, pprof, speedscope) with the outputs checked
# (tests/fuzz/fuzz-one.h), built with the ordinary compiler (and with ASan+UBSan
# under `make test SANITIZE=1`): a crash, a leak or a broken output fails.
. "$(dirname "$0")/../lib.sh"
R=$BUILD/tests/fuzz/replay
[ -x "$R" ] || fail "$R not built (run make test-build)"
out=$("$R" "$FK_TOP/tests/fuzz/corpus" 2>&1) || fail "replay failed: $out"
echo "$out"
n=$(echo "$out" | sed -n 's/^replayed \([0-9]*\) corpus files$/\1/p')
[ "${n:-0}" -ge 50 ] || fail "only ${n:-0} corpus files replayed"

# The output checks catch what they are there for (a name written raw into an
# SVG, a page whose JSON data is cut or holds NaN, an unbalanced element...).
"$R" --self-test || fail "the output checks misjudge a text"

# A format without a corpus folder fails the replay.
for f in $("$FLAMEKIT" formats | awk '{print $1}') auto; do
	mkdir -p "$TMP/c/$f" && printf 'main;f 1\n' > "$TMP/c/$f/x"
done
"$R" "$TMP/c" > "$TMP/out" 2>&1 || { cat "$TMP/out"; fail "replay of a tiny good corpus failed"; }
rm -r "$TMP/c/auto"
run_rc 1 "$R" "$TMP/c" > "$TMP/out" 2>&1
assert_contains "$TMP/out" "auto: No such file or directory (every format needs a corpus folder)"

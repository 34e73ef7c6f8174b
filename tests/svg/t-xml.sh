#!/usr/bin/env bash
# Every output is well-formed XML and deterministic: each input (test data,
# hostile names, the real perf recordings of the shared corpus) under a matrix
# of options renders twice to the same bytes and passes xmllint.
. "$(dirname "$0")/../lib.sh"
command -v xmllint > /dev/null || skip "xmllint not installed (libxml2-utils)"
D=$FK_TOP/tests/svg/data
CORPUS=$FK_CORPUS

inputs=("$D/basic.folded" "$D/browser.folded" "$D/diff.folded" "$D/timed.samples")
printf 'a;"><script>x</script>;\xff\xfe 3\nb;]]>;\x01 2\nc 0.5\n' > "$TMP/hostile.folded"
inputs+=("$TMP/hostile.folded")
if command -v zstd > /dev/null; then
	for f in cxx-templates node-jit; do
		[ -f "$CORPUS/$f.perf-script.zst" ] || continue
		zstd -dqc "$CORPUS/$f.perf-script.zst" > "$TMP/$f.perf-script"
		inputs+=("$TMP/$f.perf-script")
	done
fi

opts=(
	""
	"--inverted --title T --subtitle S --notes N"
	"--reverse"
	"--flamechart"
	"--sort weight --truncate left"
	"--hash --colors java"
	"--colors js --random=5"
	"--colors chain --bgcolors #102030"
	"--minwidth 1%"
	"--max-frames 50"
	"--width 300 --height 12 --fontsize 20 --fontwidth 0.8"
	"--negate --diff total --factor 0.5 --total 1000000"
)
n=0
for in in "${inputs[@]}"; do
	for o in "${opts[@]}"; do
		# shellcheck disable=SC2086
		"$FLAMEKIT" svg $o "$in" -o "$TMP/a.svg" 2> "$TMP/err" || fail "$(basename "$in") [$o]: render failed: $(cat "$TMP/err")"
		# shellcheck disable=SC2086
		"$FLAMEKIT" svg $o < "$in" > "$TMP/b.svg" 2> /dev/null || fail "$(basename "$in") [$o]: render from stdin failed"
		cmp -s "$TMP/a.svg" "$TMP/b.svg" || fail "$(basename "$in") [$o]: two renders differ"
		xmllint --noout "$TMP/a.svg" || fail "$(basename "$in") [$o]: not well-formed"
		n=$((n + 1))
	done
done
# the corpus recordings draw what perf saw, not an empty graph
for f in cxx-templates node-jit; do
	[ -f "$TMP/$f.perf-script" ] || continue
	"$FLAMEKIT" svg "$TMP/$f.perf-script" -o "$TMP/$f.svg" 2> /dev/null || fail "$f render"
	frames=$(grep -c '^<rect x=' "$TMP/$f.svg")
	[ "$frames" -gt 200 ] || fail "$f: only $frames frames drawn"
done
echo "ok ($n renders)"

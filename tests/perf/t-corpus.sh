#!/usr/bin/env bash
# t-corpus.sh - the shared real recordings (C++ templates, node JIT; ../shared/corpus) through
# `flamekit collapse`, byte-compared with stackcollapse-perf.pl's output for every option set
# (tests/perf/data/corpus/*.expected), with one thread, two threads and from a pipe.
. "$(dirname "$0")/../lib.sh"
. "$FK_TOP/tests/perf/options.sh"
CORPUS=$FK_CORPUS
[ -d "$CORPUS" ] || skip "no shared corpus at $CORPUS (set FK_CORPUS)"
command -v zstd > /dev/null || skip "zstd not installed"
PD=$FK_TOP/tests/perf/data/corpus
n=0
for z in "$CORPUS"/*.perf-script.zst; do
	b=$(basename "$z" .perf-script.zst)
	[ -d "$PD/$b.expected" ] || fail "no expectations for $z (run tests/perf/expect.sh)"
	zstd -q -dc "$z" > "$TMP/in" || fail "zstd $z"
	for opt in "${!FK_PERF_OPTS[@]}"; do
		o=${FK_PERF_OPTS[$opt]}
		if [ -f "$PD/$b.expected/$opt.folded.zst" ]; then
			zstd -q -dc "$PD/$b.expected/$opt.folded.zst" > "$TMP/want"
		else
			cp "$PD/$b.expected/$opt.folded" "$TMP/want"
		fi
		# shellcheck disable=SC2086
		"$FLAMEKIT" collapse $o "$TMP/in" > "$TMP/out" 2> "$TMP/err"
		rc=$?
		if [ ! -s "$TMP/want" ]; then
			[ $rc -eq 1 ] && [ ! -s "$TMP/out" ] || fail "$b [$o]: wanted no stacks, exit $rc"
		else
			[ $rc -eq 0 ] || { cat "$TMP/err" >&2; fail "$b [$o]: exit $rc"; }
			cmp -s "$TMP/want" "$TMP/out" || { diff "$TMP/want" "$TMP/out" | head -4 | cut -c1-300 >&2; fail "$b [$o] differs from stackcollapse-perf.pl"; }
		fi
		n=$((n + 1))
		case $opt in default | all)
			# shellcheck disable=SC2086
			FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --threads 2 $o "$TMP/in" > "$TMP/out2" || fail "$b [$o] --threads 2"
			cmp -s "$TMP/out" "$TMP/out2" || fail "$b [$o]: --threads 2 differs"
			# shellcheck disable=SC2086
			cat "$TMP/in" | "$FLAMEKIT" collapse --threads 2 $o > "$TMP/out3" || fail "$b [$o] pipe"
			cmp -s "$TMP/out" "$TMP/out3" || fail "$b [$o]: pipe differs"
			# the other line scanners (AVX-512, else AVX2, is picked on CPUs that have it)
			for simd in avx2 sse2 scalar; do
				# shellcheck disable=SC2086
				FLAMEKIT_SIMD=$simd "$FLAMEKIT" collapse $o "$TMP/in" > "$TMP/out4" || fail "$b [$o] $simd"
				cmp -s "$TMP/out" "$TMP/out4" || fail "$b [$o]: $simd line scanner differs"
			done
			;;
		esac
	done
done
[ $n -ge 20 ] || fail "only $n comparisons"
echo "ok: $n corpus/option pairs identical to stackcollapse-perf.pl"

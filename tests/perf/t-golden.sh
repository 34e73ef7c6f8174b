#!/usr/bin/env bash
# t-golden.sh - every perf recording and hand-made edge case of tests/perf/data through
# `flamekit collapse` with every option set, byte-compared with the output of FlameGraph's
# stackcollapse-perf.pl (the *.expected files); then again with two threads (inputs split
# at a sample boundary) and from a pipe: all three must be identical.
. "$(dirname "$0")/../lib.sh"
. "$FK_TOP/tests/perf/options.sh"
PD=$FK_TOP/tests/perf/data

# inputs whose expected exit status is 3 (malformed lines, frame lines outside any sample)
declare -A BAD=([edge/malformed]=1 [edge/crlf]=1 [edge/names]=1)

checked=0
for in in "$PD"/*.perf-script* "$PD"/edge/*.perf-script*; do
	base=${in%.zst}
	name=$(basename "${base%.perf-script}")
	rel=${base#"$PD"/}
	rel=${rel%.perf-script}
	exp=${base%.perf-script}.expected
	[ -d "$exp" ] || fail "no expectations for $in"
	if [[ $in == *.zst ]]; then
		zstd -q -dc "$in" > "$TMP/$name.perf-script" || fail "zstd $in"
		in=$TMP/$name.perf-script
	fi
	want_rc=0
	[ -n "${BAD[$rel]:-}" ] && want_rc=3
	for opt in "${!FK_PERF_OPTS[@]}"; do
		o=${FK_PERF_OPTS[$opt]}
		want=$exp/$opt.folded
		if [ -f "$want.zst" ]; then
			zstd -q -dc "$want.zst" > "$TMP/want" || fail "zstd $want.zst"
			want=$TMP/want
		fi
		[ -f "$want" ] || fail "missing $want"
		# shellcheck disable=SC2086
		"$FLAMEKIT" collapse --format perf $o "$in" > "$TMP/out" 2> "$TMP/err"
		rc=$?
		# an empty result is "no stacks in input" for flamekit (exit 1, nothing written)
		[ ! -s "$want" ] && [ $rc -eq 1 ] && ! [ -s "$TMP/out" ] && { checked=$((checked + 1)); continue; }
		[ $rc -eq $want_rc ] || { cat "$TMP/err" >&2; fail "$name [$o]: exit $rc, wanted $want_rc"; }
		cmp -s "$want" "$TMP/out" || { diff "$want" "$TMP/out" | head -5 | cut -c1-300 >&2; fail "$name [$o] differs from stackcollapse-perf.pl"; }
		if [ $want_rc -eq 3 ]; then
			grep -q "^flamekit: $in:[0-9][0-9]*: " "$TMP/err" || { cat "$TMP/err" >&2; fail "$name: no file:line warning"; }
		fi
		# shellcheck disable=SC2086
		FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --format perf --threads 2 $o "$in" > "$TMP/out2" 2> "$TMP/err2"
		[ $? -eq $want_rc ] || fail "$name [$o] --threads 2: exit status"
		cmp -s "$TMP/out" "$TMP/out2" || fail "$name [$o]: --threads 2 output differs"
		cmp -s "$TMP/err" "$TMP/err2" || { diff "$TMP/err" "$TMP/err2" >&2; fail "$name [$o]: --threads 2 messages differ"; }
		# shellcheck disable=SC2086
		cat "$in" | FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --format perf --threads 2 $o > "$TMP/out3" 2> "$TMP/err3"
		rc3=${PIPESTATUS[1]}
		cmp -s "$TMP/out" "$TMP/out3" || { diff "$TMP/out" "$TMP/out3" | head -5 >&2; cat "$TMP/err3" >&2; fail "$name [$o]: output from a pipe differs (exit $rc3)"; }
		checked=$((checked + 1))
	done
done
[ $checked -ge 150 ] || fail "only $checked comparisons"
echo "ok: $checked input/option pairs identical to stackcollapse-perf.pl (1 thread, 2 threads, pipe)"

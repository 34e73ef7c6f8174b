#!/usr/bin/env bash
# Damaged compressed input (docs/input-formats.md, "Damaged input and errors"): a byte changed
# in the middle of a real profile's .zst or .gz file is named (file and compressed byte), the
# input is refused whole (exit 1, no output file, nothing on stdout, one message: nothing the
# parser said about the garbage decoded before the damage was found), and nothing decoded
# from it reaches the profile, whether the decoder notices at once or only at the frame's
# checksum / the member's CRC32 at the end. Beside a good input, only the good one counts.
. "$(dirname "$0")/../lib.sh"
command -v gzip > /dev/null || skip "gzip not installed"
command -v zstd > /dev/null || skip "zstd not installed"
CORPUS=$FK_CORPUS
if [ -f "$CORPUS/node-jit.perf-script.zst" ]; then
	zstd -q -dc "$CORPUS/node-jit.perf-script.zst" > "$TMP/in"
else
	echo "note: no shared corpus at $CORPUS; the perf test data instead"
	cat "$FK_TOP"/tests/perf/data/*.perf-script > "$TMP/in"
fi
"$FLAMEKIT" collapse "$TMP/in" > "$TMP/good" || fail "the undamaged profile: exit $?"
gzip -c "$TMP/in" > "$TMP/p.gz"
zstd -q -c "$TMP/in" > "$TMP/p.zst" # with its checksum: zstd's default
late=0 n=0
for c in gz zst; do
	size=$(stat -c %s "$TMP/p.$c")
	for i in $(seq 3 2 37); do
		off=$((size * i / 40))
		cp "$TMP/p.$c" "$TMP/bad.$c"
		# one byte, changed (xor 0x55): damage the decoder may not see until the checksum
		b=$(od -An -tu1 -j $off -N1 "$TMP/bad.$c" | tr -d ' ')
		printf "\\$(printf %03o $((b ^ 0x55)))" | dd of="$TMP/bad.$c" bs=1 seek=$off conv=notrunc status=none
		rc=0; "$FLAMEKIT" collapse "$TMP/bad.$c" > "$TMP/out" 2> "$TMP/err" || rc=$?
		what="$c, byte $off of $size"
		[ $rc -eq 1 ] || { cat "$TMP/err" >&2; fail "$what: exit $rc, wanted 1"; }
		[ ! -s "$TMP/out" ] || fail "$what: $(wc -l < "$TMP/out") stacks written from damaged input"
		grep -Eq "^flamekit: $TMP/bad\\.$c: (gzip|zstd) input is (corrupt|truncated) at compressed byte [0-9]+ .*nothing of this input is used" "$TMP/err" ||
			{ cat "$TMP/err" >&2; fail "$what: no message naming the file and the byte"; }
		# one message: not the parser's about the garbage decoded before the damage was found
		[ "$(wc -l < "$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "$what: more than one message"; }
		at=$(sed -n 's/.* at compressed byte \([0-9]*\) .*/\1/p' "$TMP/err" | tail -1)
		[ "$at" -ge "$off" ] && [ "$at" -le "$size" ] || fail "$what: damage reported at byte $at"
		grep -Eq "checksum does not match|incorrect data check|incorrect length check" "$TMP/err" && late=$((late + 1))
		# the same from a pipe, and as one of two inputs (the good one alone counts: exit 3)
		rc=0; "$FLAMEKIT" collapse < "$TMP/bad.$c" > "$TMP/out" 2> "$TMP/err" || rc=$?
		[ $rc -eq 1 ] && [ ! -s "$TMP/out" ] || fail "$what, from a pipe: exit $rc, $(wc -l < "$TMP/out") stacks"
		assert_contains "$TMP/err" "<stdin>: "
		rc=0; "$FLAMEKIT" collapse "$TMP/in" "$TMP/bad.$c" > "$TMP/out" 2> "$TMP/err" || rc=$?
		[ $rc -eq 3 ] || fail "$what, after a good input: exit $rc, wanted 3"
		assert_files_eq "$TMP/good" "$TMP/out"
		n=$((n + 1))
	done
	# an output file is not made from it
	rc=0; "$FLAMEKIT" svg -o "$TMP/bad.svg" "$TMP/bad.$c" 2> /dev/null || rc=$?
	[ $rc -eq 1 ] && [ ! -e "$TMP/bad.svg" ] || fail "$c: svg of damaged input: exit $rc"
done
# some of the damage was found only at the end (the check the issue's garbage slipped past)
[ $late -ge 1 ] || fail "no case reached the checksum: the test no longer covers it"
# a frame without a checksum (zstd --no-check) is read as the decoder gives it (docs)
zstd -q --no-check -c "$TMP/in" > "$TMP/nock.zst"
"$FLAMEKIT" collapse "$TMP/nock.zst" | cmp -s - "$TMP/good" || fail "a frame without checksum"
echo "damaged: $n cases refused, $late found only at the checksum"

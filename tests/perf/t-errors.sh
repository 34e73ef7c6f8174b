#!/usr/bin/env bash
# t-errors.sh - bad perf script input: binary garbage forced through the perf parser, a line
# over the 16 MiB limit (file and pipe), malformed lines with their file:line warnings, the
# summary after the first five, and messages that stay valid UTF-8.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || fail "cd"
# deterministic garbage: every byte value, shuffled by a fixed LCG
python3 -c '
import sys
x, out = 12345, bytearray()
for _ in range(300000):
    x = (x * 1103515245 + 12345) % 2**31
    out.append(x >> 16 & 255)
sys.stdout.buffer.write(bytes(out))' > garbage.bin
"$FLAMEKIT" collapse --format perf garbage.bin > out 2> err
rc=$?
[ $rc -eq 1 ] || [ $rc -eq 3 ] || fail "garbage: exit $rc"
grep -q '^flamekit: garbage.bin:[0-9]*: unrecognized line' err || fail "garbage: no file:line warning"
n=$(grep -c 'unrecognized line' err)
[ "$n" -le 5 ] || fail "garbage: $n warnings shown (max 5)"
grep -q 'malformed lines skipped in all (5 shown)' err || fail "garbage: no summary"
iconv -f UTF-8 -t UTF-8 err > /dev/null || fail "garbage: messages are not valid UTF-8"

# a 17 MiB line between two good samples
{
	printf 'prog 1 [000] 1.000001: 1 cpu-clock: \n\t1 before (/x)\n\n'
	printf '\t2 '
	head -c $((17 << 20)) /dev/zero | tr '\0' 'y'
	printf ' (/x)\n\nprog 1 [000] 1.000002: 1 cpu-clock: \n\t3 after (/x)\n\n'
} > long.txt
printf 'prog;after 1\nprog;before 1\n' > want
for mode in file pipe; do
	if [ $mode = file ]; then
		"$FLAMEKIT" collapse long.txt > out 2> err
	else
		cat long.txt | "$FLAMEKIT" collapse --format perf > out 2> err
	fi
	rc=$?
	[ $rc -eq 3 ] || { cat err >&2; fail "long line ($mode): exit $rc, wanted 3"; }
	grep -q ':4: line longer than 16 MiB skipped' err || { cat err >&2; fail "long line ($mode): no warning for line 4"; }
	assert_files_eq want out
done
echo "ok: garbage, over-long lines, warnings"

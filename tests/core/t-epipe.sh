#!/usr/bin/env bash
# A reader that stops reading (`| head -1`) ends the job quietly: every command writing
# to standard output exits 0 with nothing on stderr, whether SIGPIPE comes at its
# default or ignored (as a Python subprocess or some CI runners start programs). Each
# output is far larger than a pipe's buffer, so the write that finds the pipe closed
# always happens. A broken standard error is still an error, not a silent success.
. "$(dirname "$0")/../lib.sh"
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "main;f%d;g%d %d\n", i % 5000, i, 1 + i % 7 }' > "$TMP/big.folded"
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "main;f%d;g%d %d\n", i % 5000, i, 2 + i % 3 }' > "$TMP/big2.folded"
{
	printf '# flamekit samples v1\n'
	awk 'BEGIN { for (i = 0; i < 100000; i++) printf "%.6f\t1\t1\t0\tapp\t1\tapp;main;f%d\n", 100 + i * 0.0021, i % 300 }'
} > "$TMP/big.samples"

# closed CMD... : run CMD | head -c 10 (SIGPIPE as the caller has it); exit 0, no message
closed() {
	local rc
	"$@" 2> "$TMP/err" | head -c 10 > "$TMP/head"
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] || { cat "$TMP/err" >&2; fail "exit $rc after the reader stopped: $*"; }
	[ ! -s "$TMP/err" ] || { cat "$TMP/err" >&2; fail "a message after the reader stopped: $*"; }
	[ "$(wc -c < "$TMP/head")" -eq 10 ] || fail "the reader got no output: $*"
}
for mode in default ignored; do
	[ $mode = ignored ] && trap '' PIPE   # inherited by the commands below
	closed "$FLAMEKIT" collapse "$TMP/big.folded"
	closed "$FLAMEKIT" collapse --emit samples "$TMP/big.samples"
	closed "$FLAMEKIT" merge "$TMP/big.folded" "$TMP/big2.folded"
	closed "$FLAMEKIT" svg "$TMP/big.folded"
	closed "$FLAMEKIT" html "$TMP/big.folded"
	closed "$FLAMEKIT" diff "$TMP/big.folded" "$TMP/big2.folded"
	closed "$FLAMEKIT" heatmap "$TMP/big.samples"
	closed "$FLAMEKIT" heatmap --cells "$TMP/big.samples"
	closed "$FLAMEKIT" svg "$TMP/big.folded" -o -
	closed "$FLAMEKIT" collapse "$TMP/big.folded" -o /dev/stdout
	closed bash -c 'cat "$1" | "$2" collapse' - "$TMP/big.folded" "$FLAMEKIT"
done
trap - PIPE
# a closed standard error is not the reader's choice: the write error is still reported
# through the exit status (a message cannot be seen there)
printf 'a;b 1\n' > "$TMP/small.folded"
"$FLAMEKIT" collapse --format nosuch "$TMP/small.folded" 2>&1 > /dev/null | true
rc=${PIPESTATUS[0]}
[ "$rc" -eq 2 ] || fail "usage error with stderr closed: exit $rc"
echo "closed standard output: quiet exit 0 in every command"

#!/usr/bin/env bash
# Runs every C unit test program built from tests/unit/*.c.
. "$(dirname "$0")/../lib.sh"
n=0
for t in "$FK_TOP"/tests/unit/*.c; do
	bin=$BUILD/tests/$(basename "${t%.c}")
	[ -x "$bin" ] || fail "$bin not built (run make)"
	"$bin" || fail "$(basename "$bin") failed"
	n=$((n + 1))
done
[ $n -gt 0 ] || fail "no unit tests found"
echo "$n unit test programs passed"

#!/usr/bin/env bash
# The man page is generated from the --help texts: it must be current, and
# every command listed by `flamekit --help` must have its own --help.
. "$(dirname "$0")/../lib.sh"
bash "$FK_TOP/docs/gen-man.sh" "$FLAMEKIT" > "$TMP/flamekit.1" || fail "gen-man.sh failed"
diff -u "$FK_TOP/docs/flamekit.1" "$TMP/flamekit.1" > "$TMP/d" || { head -30 "$TMP/d"; fail "docs/flamekit.1 is stale: run docs/gen-man.sh build/flamekit > docs/flamekit.1"; }
if command -v man > /dev/null; then
	MANWIDTH=80 man -l "$TMP/flamekit.1" > "$TMP/man.txt" 2> "$TMP/man.err" || fail "man cannot render the page"
	grep -q "FLAMEKIT COLLAPSE" "$TMP/man.txt" || fail "rendered page lacks the collapse section"
fi
for cmd in $($FLAMEKIT --help | awk '/^commands:/{f=1;next} f && /^  [a-z]/{print $1}'); do
	$FLAMEKIT "$cmd" --help | grep -q "usage: flamekit $cmd" || fail "flamekit $cmd --help has no usage line"
done
echo "man page current"

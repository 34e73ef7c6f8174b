#!/usr/bin/env bash
# The man page is generated from the --help texts, the docs' option tables from the
# option tables: both must be current, and every command listed by `flamekit --help`
# must have its own --help.
. "$(dirname "$0")/../lib.sh"
bash "$FK_TOP/docs/gen-man.sh" "$FLAMEKIT" > "$TMP/flamekit.1" || fail "gen-man.sh failed"
diff -u "$FK_TOP/docs/flamekit.1" "$TMP/flamekit.1" > "$TMP/d" || { head -30 "$TMP/d"; fail "docs/flamekit.1 is stale: run docs/gen-man.sh build/flamekit > docs/flamekit.1"; }
# the option tables in the docs are generated from the programs' own tables
mkdir "$TMP/gen"
bash "$FK_TOP/docs/gen-options.sh" "$BUILD" "$TMP/gen" || fail "gen-options.sh failed"
n=0
for f in "$TMP"/gen/*; do
	diff -u "$FK_TOP/docs/$(basename "$f")" "$f" > "$TMP/d" ||
		{ head -30 "$TMP/d"; fail "docs/$(basename "$f") is stale: run make docs"; }
	n=$((n + 1))
done
[ $n -ge 3 ] || fail "only $n pages with generated option tables"
if command -v man > /dev/null; then
	MANWIDTH=80 man -l "$TMP/flamekit.1" > "$TMP/man.txt" 2> "$TMP/man.err" || fail "man cannot render the page"
	grep -q "FLAMEKIT COLLAPSE" "$TMP/man.txt" || fail "rendered page lacks the collapse section"
fi
for cmd in $($FLAMEKIT --help | awk '/^commands:/{f=1;next} f && /^  [a-z]/{print $1}'); do
	$FLAMEKIT "$cmd" --help | grep -q "usage: flamekit $cmd" || fail "flamekit $cmd --help has no usage line"
done
echo "man page current"

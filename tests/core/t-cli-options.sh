#!/usr/bin/env bash
# The CLI's option parser (common/prog/opt.c over the library's option tables):
# flamegraph.pl spellings (-title, unique abbreviations), ranges with messages
# that name the option, svg --keep/--drop, flags grouped (-ns), ambiguity.
. "$(dirname "$0")/../lib.sh"
printf 'main;a;x 3\nmain;b;y 2\n' > "$TMP/in.folded"
title() { xmllint --xpath 'string(//*[@id="title"])' "$1"; }
# one dash, as Getopt::Long takes it; abbreviations while unique
"$FLAMEKIT" svg -title One "$TMP/in.folded" -o "$TMP/a.svg" || fail "-title"
assert_eq "-title" "One" "$(title "$TMP/a.svg")"
"$FLAMEKIT" svg --tit Two --wid 800 -countn bytes "$TMP/in.folded" -o "$TMP/b.svg" || fail "abbreviations"
assert_eq "--tit" "Two" "$(title "$TMP/b.svg")"
grep -q 'width="800"' "$TMP/b.svg" || fail "--wid 800 not applied"
"$FLAMEKIT" svg --title=Three --color=blue "$TMP/in.folded" -o "$TMP/c.svg" || fail "--opt=value, alias"
assert_eq "--title=" "Three" "$(title "$TMP/c.svg")"
run_rc 2 "$FLAMEKIT" svg --f 2 "$TMP/in.folded" 2> "$TMP/err"
assert_contains "$TMP/err" "option '--f' is ambiguous: --fonttype --fontsize --fontwidth"
# ranges: a message naming the option as typed, exit 2, nothing written
run_rc 2 "$FLAMEKIT" svg --minwidth -1 "$TMP/in.folded" -o "$TMP/d.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "--minwidth: expected pixels (>= 0) or a percentage N% (0 to 100), got '-1'"
[ ! -e "$TMP/d.svg" ] || fail "output written for a bad option"
run_rc 2 "$FLAMEKIT" svg --wid 5 "$TMP/in.folded" 2> "$TMP/err"
assert_contains "$TMP/err" "--wid: expected a whole number from 21 to 1000000, got '5'"
run_rc 2 "$FLAMEKIT" svg --colors javaa "$TMP/in.folded" 2> "$TMP/err"
assert_contains "$TMP/err" "--colors: unknown palette 'javaa' (hot mem io"
"$FLAMEKIT" svg --height 5000 "$TMP/in.folded" -o "$TMP/e.svg" || fail "--height 5000"
# svg --keep/--drop, as collapse and heatmap have them
"$FLAMEKIT" svg --keep ';a;' "$TMP/in.folded" -o "$TMP/k.svg" || fail "svg --keep"
"$FLAMEKIT" collapse --keep ';a;' "$TMP/in.folded" > "$TMP/k.folded"
assert_eq "keep" "main;a;x 3" "$(cat "$TMP/k.folded")"
python3 "$FK_TOP/tests/svg/fkframes.py" "$TMP/k.svg" | cut -f7 | sort | tr '\n' ' ' > "$TMP/kf"
assert_eq "svg --keep frames" "a all main x " "$(cat "$TMP/kf")"
"$FLAMEKIT" svg --drop ';a;' "$TMP/in.folded" -o "$TMP/dr.svg" || fail "svg --drop"
python3 "$FK_TOP/tests/svg/fkframes.py" "$TMP/dr.svg" | cut -f7 | sort | tr '\n' ' ' > "$TMP/df"
assert_eq "svg --drop frames" "all b main y " "$(cat "$TMP/df")"
# grouped short flags (difffolded.pl -ns)
printf 'a 1\n' > "$TMP/x"; printf 'a 2\n' > "$TMP/y"
"$FLAMEKIT" diff -ns "$TMP/x" "$TMP/y" > "$TMP/ns" || fail "diff -ns"
assert_eq "diff -ns" "a 2 2" "$(cat "$TMP/ns")"
# heatmap: the same rows, the same messages
run_rc 2 "$FLAMEKIT" heatmap --rows 0 "$TMP/in.folded" 2> "$TMP/err"
assert_contains "$TMP/err" "--rows: expected a whole number from 1 to 1000, got '0'"
# Usage errors are exit 2 in every command, found before any input is read: the input is
# a FIFO nobody writes to, so a command that opened it would hang (the timeout's 124).
mkfifo "$TMP/never"
usage() { # want-in-message command args...
	local want=$1; shift
	run_rc 2 timeout 60 "$FLAMEKIT" "$@" 2> "$TMP/err"
	assert_contains "$TMP/err" "$want"
}
for cmd in collapse merge svg html heatmap; do
	usage "--format: unknown format 'nosuch'" $cmd --format nosuch "$TMP/never"
	usage "--keep: invalid regular expression '('" $cmd --keep '(' "$TMP/never"
	usage "--drop: invalid regular expression" $cmd --drop 'a[' "$TMP/never"
	usage "unknown option '--nosuch'" $cmd --nosuch "$TMP/never"
done
usage "--format: unknown format 'nosuch'" diff --format nosuch "$TMP/never" "$TMP/in.folded"
usage "expected two files" diff "$TMP/never"
usage "unknown option '--nosuch'" formats --nosuch
usage "unexpected argument 'x'" formats x
usage "options: unknown table 'nosuch'" options nosuch
usage "unknown command 'nosuch'" nosuch
usage "--format: unknown format 'nosuch'" collapse --format=nosuch < "$TMP/in.folded"
echo ok

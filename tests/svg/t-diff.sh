#!/usr/bin/env bash
# flamekit diff: the same stacks and counts as difffolded.pl (plain, -n, -s,
# -ns; expected files made by difffolded.pl's own logic as an oracle), sorted;
# usage errors; and the differential graph drawn from it: widths from AFTER,
# flamegraph.pl's red/blue scale, --negate, --diff total.
. "$(dirname "$0")/../lib.sh"
D=$FK_TOP/tests/svg/data
FR="python3 $FK_TOP/tests/svg/fkframes.py"

for o in plain -n -s -ns; do
	flag=$o; [ "$o" = plain ] && flag=
	# shellcheck disable=SC2086
	"$FLAMEKIT" diff $flag "$D/before.folded" "$D/after.folded" > "$TMP/d$o" || fail "diff $o"
	LC_ALL=C sort -c "$TMP/d$o" || fail "diff $o: output not sorted"
	assert_files_eq "$D/diff$o.expected" "$TMP/d$o"
done
"$FLAMEKIT" diff --normalize --strip-hex "$D/before.folded" "$D/after.folded" -o "$TMP/long" || fail "long options"
assert_files_eq "$D/diff-ns.expected" "$TMP/long"
# one side from standard input
"$FLAMEKIT" diff - "$D/after.folded" < "$D/before.folded" > "$TMP/stdin" || fail "stdin side"
assert_files_eq "$D/diffplain.expected" "$TMP/stdin"
run_rc 2 "$FLAMEKIT" diff "$D/before.folded" 2> /dev/null
run_rc 2 "$FLAMEKIT" diff "$D/before.folded" "$D/after.folded" "$D/after.folded" 2> /dev/null
run_rc 2 "$FLAMEKIT" diff -x "$D/before.folded" "$D/after.folded" 2> /dev/null
run_rc 1 "$FLAMEKIT" diff "$D/before.folded" "$TMP/missing" -o "$TMP/out" 2> "$TMP/err"
assert_contains "$TMP/err" "missing"
[ ! -e "$TMP/out" ] || fail "output written although AFTER is missing"

# the graph: widths follow AFTER (117), colours flamegraph.pl's color_scale with
# the largest stack delta (render +30) as the scale
"$FLAMEKIT" svg "$TMP/dplain" -o "$TMP/g.svg" || fail "render diff"
$FR "$TMP/g.svg" --rgb > "$TMP/g.tsv"
row() { awk -F'\t' -v n="$1" '$8 == n' "$TMP/g.tsv"; }
assert_eq "total from AFTER" 117 "$(awk -F'\t' 'NR == 1 {print $6}' "$TMP/g.tsv")"
assert_eq "render red" "rgb(255,0,0)" "$(row render | cut -f5)"
assert_eq "render delta" 30 "$(row render | cut -f7)"
assert_eq "lex blue" "rgb(175,175,255)" "$(row lex | cut -f5)"
assert_eq "parse: no own delta" "rgb(255,255,255)" "$(row parse | cut -f5)"
assert_eq "old_path gone: no width" "" "$(row old_path)"
"$FLAMEKIT" svg --negate "$TMP/dplain" -o "$TMP/n.svg" || fail "render --negate"
assert_eq "negated lex red" "rgb(255,175,175)" "$($FR "$TMP/n.svg" --rgb | awk -F'\t' '$8 == "lex" {print $5}')"
# --diff total: parse's children changed by 2 - 10 + ... -> its total delta colours it
"$FLAMEKIT" svg --diff total "$TMP/dplain" -o "$TMP/t.svg" || fail "render --diff total"
$FR "$TMP/t.svg" --rgb > "$TMP/t.tsv"
pd=$(awk -F'\t' '$8 == "parse" {print $7}' "$TMP/t.tsv")
assert_eq "parse total delta" -3 "$pd"
[ "$(awk -F'\t' '$8 == "parse" {print $5}' "$TMP/t.tsv")" != "rgb(255,255,255)" ] || fail "--diff total left parse white"
assert_eq "root total delta (117 - 89)" 28 "$(awk -F'\t' 'NR == 1 {print $7}' "$TMP/t.tsv")"
echo ok

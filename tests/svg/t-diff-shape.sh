#!/usr/bin/env bash
# --diff-shape: a hand-made two-column profile (a function only in A, one only in B, one
# grown with a callee only in A, one shrunk, one the same) drawn with after, before and
# both widths. tests/svg/diff-shape.py computes from the folded input alone which frames
# are drawn, their widths and places (both: each stack as wide as max(A, B)), colours (the
# change B - A on flamegraph.pl's scale), titles (both real counts and the change) and the
# data's delta; through the walk, the tree (--sort weight), --reverse, --diff total,
# --negate and --factor. after is the default, byte for byte; each output renders twice
# the same; a one-column profile warns and is drawn as without the option; both with
# --flamechart and a bad value are usage errors. Chromium: tests/svg/diff-shape.js.
. "$(dirname "$0")/../lib.sh"
IN=$FK_TOP/tests/svg/data/shape.folded
CHK="python3 $FK_TOP/tests/svg/diff-shape.py"

render() { # NAME OPTIONS... : render IN to $TMP/NAME.svg twice, the same bytes
	local name=$1; shift
	"$FLAMEKIT" svg "$@" "$IN" -o "$TMP/$name.svg" 2> "$TMP/$name.err" || fail "$name: render: $(cat "$TMP/$name.err")"
	"$FLAMEKIT" svg "$@" "$IN" -o "$TMP/$name.2.svg" 2> /dev/null || fail "$name: second render"
	cmp -s "$TMP/$name.svg" "$TMP/$name.2.svg" || fail "$name: two renders differ"
	[ ! -s "$TMP/$name.err" ] || fail "$name: unexpected messages: $(cat "$TMP/$name.err")"
}

for s in after before both; do
	render "$s" --diff-shape "$s"
	$CHK "$s" "$IN" "$TMP/$s.svg" || fail "--diff-shape $s"
done
# the default is flamegraph.pl's: after, byte for byte, and frames only in A are not drawn
render default
cmp -s "$TMP/default.svg" "$TMP/after.svg" || fail "--diff-shape after differs from the default"
names() { python3 "$FK_TOP/tests/svg/fkframes.py" "$1" | cut -f8 | sort | tr '\n' ' '; }
assert_eq "after draws" "all grown leaf main new same shrunk " "$(names "$TMP/after.svg")"
assert_eq "before draws" "all gone grown leaf main oldhelper same shrunk " "$(names "$TMP/before.svg")"
assert_eq "both draws" "all gone grown leaf main new oldhelper same shrunk " "$(names "$TMP/both.svg")"
# what the widths are, said on the graph (a person sees no legend otherwise)
assert_contains "$TMP/both.svg" '<text id="subtitle"'
assert_contains "$TMP/both.svg" 'Widths: the larger of before and after. Red: grew, blue: shrank or went away'
assert_contains "$TMP/before.svg" 'Widths: before. Red: grew, blue: shrank or went away'
assert_not_contains "$TMP/after.svg" '<text id="subtitle"'

# the tree's layout (heaviest first), the total delta, swapped colours, scaled counts
render weight --diff-shape both --sort weight
$CHK both "$IN" "$TMP/weight.svg" --sort weight || fail "both, --sort weight"
render total --diff-shape both --diff total
$CHK both "$IN" "$TMP/total.svg" --diff total || fail "both, --diff total"
render neg --diff-shape both --negate
$CHK both "$IN" "$TMP/neg.svg" --negate || fail "both, --negate"
assert_contains "$TMP/neg.svg" 'Blue: grew, red: shrank or went away'
render factor --diff-shape before --factor 2.5
$CHK before "$IN" "$TMP/factor.svg" --factor 2.5 || fail "before, --factor 2.5"
# --reverse: the same as drawing the reversed stacks
awk '{ c2 = $NF; c1 = $(NF - 1); n = split($1, f, ";"); s = f[n]
	for (i = n - 1; i >= 1; i--) s = s ";" f[i]; print s, c1, c2 }' "$IN" > "$TMP/rev.folded"
"$FLAMEKIT" svg --diff-shape both --reverse "$IN" -o "$TMP/rev.svg" || fail "both, --reverse"
$CHK both "$TMP/rev.folded" "$TMP/rev.svg" || fail "both, --reverse"

# one column: nothing to choose between; said once, drawn as without the option
printf 'main;a 3\nmain;b 5\n' > "$TMP/one.folded"
"$FLAMEKIT" svg "$TMP/one.folded" -o "$TMP/one.svg" || fail "one column"
for s in before both; do
	"$FLAMEKIT" svg --diff-shape $s "$TMP/one.folded" -o "$TMP/one-$s.svg" 2> "$TMP/err" || fail "one column, $s"
	assert_eq "one warning" 1 "$(wc -l < "$TMP/err")"
	assert_contains "$TMP/err" "--diff-shape $s: the profile has one column, not two"
	cmp -s "$TMP/one.svg" "$TMP/one-$s.svg" || fail "one column, $s: drawn differently"
done
# usage errors, before anything is read or written
run_rc 2 "$FLAMEKIT" svg --diff-shape both --flamechart "$IN" -o "$TMP/x.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "--diff-shape both: a flame chart's x axis is time"
run_rc 2 "$FLAMEKIT" svg --diff-shape sideways "$IN" -o "$TMP/x.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "--diff-shape: expected one of after before both"
[ ! -e "$TMP/x.svg" ] || fail "an SVG was written for a usage error"
# before on a flame chart: the x axis is column 0's
"$FLAMEKIT" svg --diff-shape before --flamechart "$IN" -o "$TMP/chart.svg" || fail "before, --flamechart"
assert_eq "chart total is before's" 145 "$(python3 "$FK_TOP/tests/svg/fkframes.py" "$TMP/chart.svg" | awk -F'\t' 'NR == 1 { print $6 }')"
echo ok

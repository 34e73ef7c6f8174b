#!/usr/bin/env bash
# Colours: every palette with --hash gives flamegraph.pl's exact colour for each
# name (expected values computed by flamegraph.pl's own namehash/color code, run
# as an oracle); annotations pick the java/js/perl sub-palettes; grey "-"/"--";
# chain's waker frames; default colours are per name; --random is seeded;
# --cp reads and writes palette.map; background gradients.
. "$(dirname "$0")/../lib.sh"
D=$FK_TOP/tests/svg/data
FR="python3 $FK_TOP/tests/svg/fkframes.py"

sed 's/$/ 1/' "$D/hash-names.txt" > "$TMP/names.folded"
for p in hot mem io java js perl wakeup chain red green blue aqua yellow purple orange; do
	"$FLAMEKIT" svg --hash --colors "$p" --minwidth 0 "$TMP/names.folded" -o "$TMP/$p.svg" || fail "render $p"
	# depth-1 frames are drawn in bytewise name order: pair them with the oracle's
	$FR "$TMP/$p.svg" --rgb | awk -F'\t' '$2 == 1 {print $5}' > "$TMP/got"
	awk -F'\t' -v p="$p" '$1 == p {print $2 "\t" $3}' "$D/hash-colors.expected" |
		LC_ALL=C sort -t "$(printf '\t')" -k1,1 | cut -f2 > "$TMP/want"
	[ -s "$TMP/want" ] || fail "no expectations for $p"
	assert_files_eq "$TMP/want" "$TMP/got"
done

# grey separators win over the palette; chain: frames after "--" are wakers (aqua)
printf 'off;--;waker;wfn 2\noff;-;x 1\n' > "$TMP/chain.folded"
"$FLAMEKIT" svg --hash --colors chain "$TMP/chain.folded" -o "$TMP/chain.svg" || fail "render chain"
$FR "$TMP/chain.svg" --rgb > "$TMP/chain.tsv"
fill() { awk -F'\t' -v n="$2" '$7 == n {print $5}' "$1"; }
assert_eq "-- grey" "rgb(160,160,160)" "$(fill "$TMP/chain.tsv" --)"
assert_eq "- grey" "rgb(200,200,200)" "$(fill "$TMP/chain.tsv" -)"
# flamegraph.pl colours waker frames as if named NAME_[w]: aqua from namehash("waker_[w]")
printf 'waker_[w] 1\noff 1\n' > "$TMP/w.folded"
"$FLAMEKIT" svg --hash --colors chain "$TMP/w.folded" -o "$TMP/w.svg" || fail "render w"
assert_eq "waker aqua" "$(fill <($FR "$TMP/w.svg" --rgb) waker)" "$(fill "$TMP/chain.tsv" waker)"
assert_eq "off-cpu blue" "$(fill <($FR "$TMP/w.svg" --rgb) off)" "$(fill "$TMP/chain.tsv" off)"

# a frame whose samples all lie under the off-CPU mark is drawn in the off-CPU colour, the
# mark shared by its children or inside each child's own stack, every one too narrow to be
# drawn (20000 samples of 40000, one a stack); no mark: the plain colour
for way in shared own none; do
	awk -v way=$way 'BEGIN { for (i = 0; i < 20000; i++)
		if (way == "shared") printf "main;io;[off-cpu];a%05d;x 1\n", i
		else if (way == "own") printf "main;io;a%05d;[off-cpu];x 1\n", i
		else printf "main;io;a%05d;x 1\n", i
		print "main;cpu;busy 20000" }' > "$TMP/mark-$way.folded"
	"$FLAMEKIT" svg "$TMP/mark-$way.folded" -o "$TMP/mark-$way.svg" || fail "render mark-$way"
done
io_shared=$(fill <($FR "$TMP/mark-shared.svg") io)
[ -n "$io_shared" ] || fail "mark-shared.svg: no io frame"
assert_eq "io under its children's own marks: off-CPU" "$io_shared" "$(fill <($FR "$TMP/mark-own.svg") io)"
[ "$(fill <($FR "$TMP/mark-none.svg") io)" != "$io_shared" ] || fail "io without a mark drawn off-CPU"

# default colours: a function keeps its colour wherever it appears, across graphs
printf 'a;shared 1\nb;shared 1\nb;c;shared 3\n' > "$TMP/s.folded"
"$FLAMEKIT" svg "$TMP/s.folded" -o "$TMP/s.svg" || fail "render s"
assert_eq "one colour per name" 1 "$($FR "$TMP/s.svg" | awk -F'\t' '$7 == "shared" {print $5}' | sort -u | wc -l)"
printf 'zz;shared 5\n' > "$TMP/s2.folded"
"$FLAMEKIT" svg "$TMP/s2.folded" -o "$TMP/s2.svg" || fail "render s2"
assert_eq "same colour in another graph" "$(fill <($FR "$TMP/s.svg") shared | head -1)" "$(fill <($FR "$TMP/s2.svg") shared)"

# --random: seeded; the same seed repeats, another seed differs, colours stay in the palette
"$FLAMEKIT" svg --random=7 "$TMP/names.folded" -o "$TMP/r1.svg" || fail "random 7"
"$FLAMEKIT" svg --random=7 "$TMP/names.folded" -o "$TMP/r2.svg" || fail "random 7 again"
"$FLAMEKIT" svg --random=8 "$TMP/names.folded" -o "$TMP/r3.svg" || fail "random 8"
cmp -s "$TMP/r1.svg" "$TMP/r2.svg" || fail "--random=7 twice differs"
cmp -s "$TMP/r1.svg" "$TMP/r3.svg" && fail "--random=7 and --random=8 give the same colours"
$FR "$TMP/r3.svg" --rgb | awk -F'\t' '$2 >= 1 {split(substr($5, 5), c, ","); r = c[1] + 0; g = c[2] + 0; b = c[3] + 0;
	if (r < 205 || g > 230 || b > 55) {print "not hot: " $5; exit 1}}' || fail "--random left the hot palette"

# --cp: creates the map (sorted NAME->rgb(...)), then reuses stored colours
( cd "$TMP" && "$FLAMEKIT" svg --cp s.folded -o cp1.svg ) || fail "--cp first run"
[ -f "$TMP/palette.map" ] || fail "--cp did not write palette.map"
LC_ALL=C sort -c "$TMP/palette.map" || fail "palette.map not sorted"
grep -qx 'shared->rgb([0-9]*,[0-9]*,[0-9]*)' "$TMP/palette.map" || fail "palette.map format: $(cat "$TMP/palette.map")"
sed -i 's/^shared->.*/shared->rgb(1,2,3)/' "$TMP/palette.map"
echo 'garbage line' >> "$TMP/palette.map"
( cd "$TMP" && "$FLAMEKIT" svg --cp s.folded -o cp2.svg 2> cp2.err ) || fail "--cp second run"
grep -q 'palette.map:[0-9]*: expected NAME->rgb' "$TMP/cp2.err" || fail "bad palette line not reported: $(cat "$TMP/cp2.err")"
assert_eq "stored colour used" "#010203" "$(fill <($FR "$TMP/cp2.svg") shared | head -1)"
"$FLAMEKIT" svg --cp-file "$TMP/other.map" "$TMP/names.folded" -o "$TMP/cp3.svg" || fail "--cp-file"
# one line per name, plus the root (empty name), as flamegraph.pl writes it
assert_eq "--cp-file entries" "$(( $(sort -u "$D/hash-names.txt" | wc -l) + 1 ))" "$(wc -l < "$TMP/other.map")"
grep -qx -- "->rgb([0-9,]*)" "$TMP/other.map" || fail "root entry missing"

# flamegraph.pl reads < > as ( ): a palette.map it wrote still applies
printf 'Foo<int>;bar 1\n' > "$TMP/angle.folded"
printf 'Foo(int)->rgb(9,9,9)\n' > "$TMP/fg.map"
"$FLAMEKIT" svg --cp-file "$TMP/fg.map" "$TMP/angle.folded" -o "$TMP/angle.svg" || fail "--cp-file with <>"
assert_eq "flamegraph.pl palette key" "#090909" "$(fill <($FR "$TMP/angle.svg") 'Foo<int>')"

# backgrounds: by palette, named, flat, rejected
bg() { grep -o 'stop-color="#[0-9a-f]*"' "$1" | tr '\n' ' '; }
"$FLAMEKIT" svg --colors mem "$TMP/s.folded" -o "$TMP/bg1.svg" && assert_eq "mem bg" 'stop-color="#eef2ee" stop-color="#e0ffe0" ' "$(bg "$TMP/bg1.svg")"
"$FLAMEKIT" svg --colors io "$TMP/s.folded" -o "$TMP/bg2.svg" && assert_eq "io bg" 'stop-color="#eeeeee" stop-color="#e0e0ff" ' "$(bg "$TMP/bg2.svg")"
"$FLAMEKIT" svg --colors red "$TMP/s.folded" -o "$TMP/bg3.svg" && assert_eq "red bg" 'stop-color="#f8f8f8" stop-color="#e8e8e8" ' "$(bg "$TMP/bg3.svg")"
"$FLAMEKIT" svg --bgcolors '#123abc' "$TMP/s.folded" -o "$TMP/bg4.svg" && assert_eq "flat bg" 'stop-color="#123abc" stop-color="#123abc" ' "$(bg "$TMP/bg4.svg")"
"$FLAMEKIT" svg "$TMP/s.folded" -o "$TMP/bg5.svg" && assert_eq "hot bg" 'stop-color="#eeeeee" stop-color="#eeeeb0" ' "$(bg "$TMP/bg5.svg")"
run_rc 2 "$FLAMEKIT" svg --bgcolors 'red"/><script>' "$TMP/s.folded" -o "$TMP/bad.svg" 2> /dev/null
run_rc 2 "$FLAMEKIT" svg --colors nosuch "$TMP/s.folded" -o "$TMP/bad.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "unknown palette 'nosuch'"
[ ! -e "$TMP/bad.svg" ] || fail "output left after a usage error"
echo ok

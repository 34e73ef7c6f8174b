#!/usr/bin/env bash
# What the options do to the drawn frames: minwidth (px and %), --total,
# --factor, titles, --inverted, --reverse, --sort weight, --truncate, --focus
# (callees and callers, recursion counted once), --flamechart (time/input
# order), --range, the size guard, fractional counts; exit codes and messages.
. "$(dirname "$0")/../lib.sh"
FR="python3 $FK_TOP/tests/svg/fkframes.py"
svg() { "$FLAMEKIT" svg "$@"; }
# frames as "depth:name:count", in drawing order
shape() { $FR "$1" | awk -F'\t' '{printf "%s%s:%s:%s", (NR > 1 ? " " : ""), $2, $7, $6} END {print ""}'; }

# --minwidth in pixels and in percent of the total (b is 1.18 px, 0.0999%)
printf 'a 1000\nb 1\n' > "$TMP/mw.folded"
svg --minwidth 1 "$TMP/mw.folded" -o "$TMP/o.svg" && assert_eq "minwidth 1px" "0:all:1001 1:a:1000 1:b:1" "$(shape "$TMP/o.svg")"
svg --minwidth 2 "$TMP/mw.folded" -o "$TMP/o.svg" && assert_eq "minwidth 2px" "0:all:1001 1:a:1000" "$(shape "$TMP/o.svg")"
svg --minwidth 0.05% "$TMP/mw.folded" -o "$TMP/o.svg" && assert_eq "minwidth 0.05%" "0:all:1001 1:a:1000 1:b:1" "$(shape "$TMP/o.svg")"
svg --minwidth=0.2% "$TMP/mw.folded" -o "$TMP/o.svg" && assert_eq "minwidth 0.2%" "0:all:1001 1:a:1000" "$(shape "$TMP/o.svg")"

# --total: a larger total shrinks the frames (root spans the width, a half);
# a smaller one is ignored with flamegraph.pl's warning
printf 'a 10\n' > "$TMP/t.folded"
svg --total 20 "$TMP/t.folded" -o "$TMP/o.svg" || fail "--total"
assert_eq "--total frames" "0:all:20 1:a:10" "$(shape "$TMP/o.svg")"
assert_eq "--total width of a" "590.0" "$($FR "$TMP/o.svg" | awk -F'\t' '$7 == "a" {print $4}')"
svg --total 5 "$TMP/t.folded" -o "$TMP/o.svg" 2> "$TMP/err" || fail "--total smaller"
assert_contains "$TMP/err" "--total 5 is less than the actual total 10, so ignored"
assert_eq "--total ignored" "0:all:10 1:a:10" "$(shape "$TMP/o.svg")"
# --factor, --countname, --nametype reach the details line
svg --factor 2.5 --countname bytes --nametype 'Alloc:' "$TMP/t.folded" -o "$TMP/o.svg" || fail "--factor"
$FR "$TMP/o.svg" --config | python3 -c 'import json,sys; c=json.load(sys.stdin); assert (c["fac"], c["cn"], c["nt"]) == (2.5, "bytes", "Alloc:"), c' || fail "factor/countname/nametype"

# titles by mode
title() { xmllint --xpath 'string(//*[@id="title"])' "$1"; }
svg "$TMP/t.folded" -o "$TMP/o.svg" && assert_eq "title" "Flame Graph" "$(title "$TMP/o.svg")"
svg --inverted "$TMP/t.folded" -o "$TMP/o.svg" && assert_eq "icicle title" "Icicle Graph" "$(title "$TMP/o.svg")"
svg --flamechart "$TMP/t.folded" -o "$TMP/o.svg" && assert_eq "chart title" "Flame Chart" "$(title "$TMP/o.svg")"
svg --title Mine --flamechart "$TMP/t.folded" -o "$TMP/o.svg" && assert_eq "own title" "Mine" "$(title "$TMP/o.svg")"

# --inverted puts the root on top; default at the bottom
printf 'main;a;b 1\n' > "$TMP/r.folded"
ys() { sed -n '/<g id="frames">/,/<\/g>/p' "$1" | grep -o ' y="[0-9.]*"' | cut -d'"' -f2 | tr '\n' ' '; }
svg "$TMP/r.folded" -o "$TMP/o.svg" && assert_eq "flame y" "85 69 53 37 " "$(ys "$TMP/o.svg")"
svg --inverted "$TMP/r.folded" -o "$TMP/o.svg" && assert_eq "icicle y" "36 52 68 84 " "$(ys "$TMP/o.svg")"
# --reverse: leaf first
svg --reverse "$TMP/r.folded" -o "$TMP/o.svg" && assert_eq "--reverse" "0:all:1 1:b:1 2:a:1 3:main:1" "$(shape "$TMP/o.svg")"

# sibling order: by name (default) or heaviest first (--sort weight)
printf 'm;a 1\nm;b 5\nm;c 3\n' > "$TMP/w.folded"
svg "$TMP/w.folded" -o "$TMP/o.svg" && assert_eq "sort name" "0:all:9 1:m:9 2:a:1 2:b:5 2:c:3" "$(shape "$TMP/o.svg")"
svg --sort weight "$TMP/w.folded" -o "$TMP/o.svg" && assert_eq "sort weight" "0:all:9 1:m:9 2:b:5 2:c:3 2:a:1" "$(shape "$TMP/o.svg")"
xs() { $FR "$1" | awk -F'\t' -v n="$2" '$7 == n {print $3}'; }
[ "$(xs "$TMP/o.svg" b)" = "10.0" ] || fail "heaviest first starts at the left: $(xs "$TMP/o.svg" b)"

# --truncate: which end of a long name the label keeps
printf 'main;the_beginning_of_a_long_name_and_its_end 1\nmain;x 9\n' > "$TMP/l.folded"
svg --truncate right "$TMP/l.folded" -o "$TMP/o.svg"
$FR "$TMP/o.svg" --labels | grep -qx 'the_beginning_\.\.' || fail "truncate right: $($FR "$TMP/o.svg" --labels | tr '\n' '|')"
svg --truncate left "$TMP/l.folded" -o "$TMP/o.svg"
$FR "$TMP/o.svg" --labels | grep -qx '\.\.me_and_its_end' || fail "truncate left: $($FR "$TMP/o.svg" --labels | tr '\n' '|')"

# --focus: every stack through work merged at work (callees); --reverse: callers
printf 'main;a;work;x 2\nmain;b;work;y 3\nmain;c 5\nmain;work 1\nmain;r;work;q;work;z 4\n' > "$TMP/f.folded"
svg --focus work "$TMP/f.folded" -o "$TMP/o.svg" || fail "--focus"
assert_eq "callees" "0:all:10 1:work:10 2:q:4 3:work:4 4:z:4 2:x:2 2:y:3" "$(shape "$TMP/o.svg")"
assert_eq "focus subtitle" "Callees of work (66.67% of all samples)" "$(xmllint --xpath 'string(//*[@id="subtitle"])' "$TMP/o.svg")"
svg --focus work --reverse "$TMP/f.folded" -o "$TMP/o.svg" || fail "--focus --reverse"
assert_eq "callers" "0:all:10 1:work:10 2:a:2 3:main:2 2:b:3 3:main:3 2:main:1 2:q:4 3:work:4 4:r:4 5:main:4" "$(shape "$TMP/o.svg")"
printf 'main;sched_[k] 2\nmain;x 1\n' > "$TMP/fk.folded"
svg --focus sched "$TMP/fk.folded" -o "$TMP/o.svg" || fail "--focus on an annotated name"
assert_eq "focus annotated" "0:all:2 1:sched:2" "$(shape "$TMP/o.svg")"
run_rc 1 svg --focus nowhere "$TMP/f.folded" -o "$TMP/o2.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "--focus 'nowhere': no stack contains that function"
[ ! -e "$TMP/o2.svg" ] || fail "output written for an empty focus"

# --flamechart: folded input in line order, merged only with the previous line
printf 'a;b 1\nc 2\na;b 1\na 1\na;b 3\n' > "$TMP/c.folded"
svg --flamechart "$TMP/c.folded" -o "$TMP/o.svg" || fail "--flamechart"
assert_eq "chart" "0:all:8 1:a:1 2:b:1 1:c:2 1:a:5 2:b:1 2:b:3" "$(shape "$TMP/o.svg")"
assert_eq "chart x of the last b" "747.5" "$($FR "$TMP/o.svg" | awk -F'\t' 'END {print $3}')"
# timestamped samples: time order (the file is not), and --range in seconds from the
# first sample's whole second (0 here), end exclusive, as the heat map counts
svg --flamechart "$FK_TOP/tests/svg/data/timed.samples" -o "$TMP/o.svg" || fail "chart of samples"
assert_eq "chart by time" "0:all:6 1:main:6 2:c:2 2:a:1 2:b:1 2:a:2 3:x:1" "$(shape "$TMP/o.svg")"
svg --range 0.9-2.6 "$FK_TOP/tests/svg/data/timed.samples" -o "$TMP/o.svg" || fail "--range"
assert_eq "range" "0:all:3 1:main:3 2:a:2 2:b:1" "$(shape "$TMP/o.svg")"
svg --range 1-2 "$FK_TOP/tests/svg/data/timed.samples" -o "$TMP/o.svg" || fail "--range 1-2"
assert_eq "range end exclusive" "0:all:2 1:main:2 2:a:1 2:b:1" "$(shape "$TMP/o.svg")"
svg --range 2- "$FK_TOP/tests/svg/data/timed.samples" -o "$TMP/o.svg" || fail "--range open end"
assert_eq "range open end" "0:all:2 1:main:2 2:a:2 3:x:1" "$(shape "$TMP/o.svg")"
run_rc 2 svg --range 1-x "$TMP/c.folded" -o "$TMP/o2.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "--range: expected START-END"
run_rc 2 svg --range 0-1 "$TMP/c.folded" -o "$TMP/o2.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "--range needs timestamped samples"

# size guard: at most N frames, the widest kept, a comment says what was merged
awk 'BEGIN {for (i = 0; i < 300; i++) printf "main;f%03d;g%03d %d\n", i, i, i + 1}' > "$TMP/g.folded"
svg --max-frames 20 "$TMP/g.folded" -o "$TMP/o.svg" || fail "--max-frames"
n=$($FR "$TMP/o.svg" | wc -l)
[ "$n" -le 20 ] && [ "$n" -ge 10 ] || fail "guard drew $n frames"
grep -q '<!-- size guard: [0-9]* frames narrower than [0-9.e+]* ([0-9.e+-]* px) were merged into their parents -->' "$TMP/o.svg" || fail "guard comment"
assert_eq "guard keeps the widest" "f299" "$($FR "$TMP/o.svg" | awk -F'\t' '$2 == 2 {n = $7} END {print n}')"
# what the guard merged is not drawn: the graph is as tall as the frames it keeps (a stack
# 40 frames deep, wide enough to draw but not among the widest, makes it no taller)
{ cat "$TMP/g.folded"; echo "main;$(seq -s ';' 1 40) 100"; } > "$TMP/gdeep.folded"
svg --max-frames 20 "$TMP/gdeep.folded" -o "$TMP/deep.svg" || fail "--max-frames, deep"
height() { sed -n 's/^<svg [^>]* height="\([0-9.]*\)".*/\1/p' "$1"; }
assert_eq "guard: the height of the frames kept" "$(height "$TMP/o.svg")" "$(height "$TMP/deep.svg")"
svg --max-frames all --minwidth 0 "$TMP/g.folded" -o "$TMP/o.svg" || fail "--max-frames all"
assert_eq "no guard" 602 "$($FR "$TMP/o.svg" | wc -l)"
# with many equal widths the guard keeps the N widest, or fewer when the N-th ties with
# the next: those wider than it (counted from the whole drawing's widths; the root stays)
python3 - "$TMP/ties.folded" <<'EOF2'
import random, sys
r = random.Random(5)
with open(sys.argv[1], 'w') as f:
    for i in range(3000):
        f.write(';'.join(['main'] + ['f%d' % r.randint(0, 30) for _ in range(r.randint(1, 6))]) +
                ' %d\n' % r.choice([1, 1, 1, 2, 2, 4, 8]))
EOF2
svg --max-frames all --minwidth 0 "$TMP/ties.folded" -o "$TMP/all.svg" || fail "ties: all"
$FR "$TMP/all.svg" | cut -f6 | sort -rn > "$TMP/widths"
for m in 1 2 7 100 333 1000 4000; do
	want=$(awk -v m=$m '{w[NR] = $1} END {th = w[m]; n = 0; for (i = 1; i <= NR; i++) n += w[i] >= th;
		if (n > m) { n = 0; for (i = 1; i <= NR; i++) n += w[i] > th } print (n ? n : 1)}' "$TMP/widths")
	svg --max-frames $m --minwidth 0 "$TMP/ties.folded" -o "$TMP/o.svg" || fail "ties: --max-frames $m"
	assert_eq "ties: frames kept of at most $m" "$want" "$($FR "$TMP/o.svg" | wc -l)"
done

# fractional counts stay exact (flamegraph.pl rounds: 102% for 1.5+2.25+7)
printf 'f;x 1.5\nf;y 2.25\nf 7\n' > "$TMP/fr.folded"
svg "$TMP/fr.folded" -o "$TMP/o.svg" && assert_eq "fractions" "0:all:10.75 1:f:10.75 2:x:1.5 2:y:2.25" "$(shape "$TMP/o.svg")"

# exit codes: empty input, usage errors, skipped lines, full disk
: > "$TMP/empty.folded"
run_rc 1 svg "$TMP/empty.folded" -o "$TMP/o3.svg" 2> /dev/null
[ ! -e "$TMP/o3.svg" ] && ! ls "$TMP"/o3.svg.tmp.* > /dev/null 2>&1 || fail "partial output left behind"
run_rc 2 svg --nosuch "$TMP/t.folded" 2> "$TMP/err"
assert_contains "$TMP/err" "unknown option '--nosuch'"
run_rc 2 svg --width 2>/dev/null
run_rc 2 svg --width abc "$TMP/t.folded" 2> /dev/null
run_rc 2 svg --sort size "$TMP/t.folded" 2> /dev/null
run_rc 2 svg --minwidth -3 "$TMP/t.folded" 2> /dev/null
printf 'a;b 2\nnot a count line\na;c 1\n' > "$TMP/bad.folded"
run_rc 3 svg "$TMP/bad.folded" -o "$TMP/o4.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "bad.folded:2:"
assert_eq "good lines kept" "0:all:3 1:a:3 2:b:2 2:c:1" "$(shape "$TMP/o4.svg")"
if [ -w /dev/full ]; then
	run_rc 1 svg "$TMP/t.folded" -o /dev/full 2> "$TMP/err"
	assert_contains "$TMP/err" "write error"
fi
echo ok

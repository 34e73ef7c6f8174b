#!/usr/bin/env bash
# With two threads a tree of 16384 frames or more to draw is laid out in two parts: the
# pending subtrees cut where their widths split about evenly, the later ones laid out by a
# second thread and put after the first part's frames. The same bytes as one thread, for
# every kind of tree drawn this way (perf's call tree, a flame chart's, a differential
# graph's by weight, an icicle, a guard that lays out again), and the cut is made (the debug
# line says so); FLAMEKIT_CROWDED=never: a loaded machine running the tests still takes it.
. "$(dirname "$0")/../lib.sh"
command -v python3 > /dev/null || skip "python3 not installed"

# perf script text: 4 commands, 2-4 shared frames, then 2-20 frames from 3000 names (each
# stack nearly its own): ~60k frames wide enough at 60000 pixels, 33k drawn
gen() { # SEED SAMPLES
	python3 - "$1" "$2" << 'EOF'
import random, sys
r = random.Random(int(sys.argv[1]))
comms = ["java", "server", "cxx app", "node"]
top = ["start_thread", "main", "run", "loop"]
names = ["ns%d::f%d<&>" % (i % 9, i) if i % 50 == 0 else "ns%d::f%d" % (i % 9, i) for i in range(3000)]
t = 1000.0
for s in range(int(sys.argv[2])):
    t += 0.0001
    print("%s %d/%d [000] %.6f: %d cpu-clock:pppH: " % (r.choice(comms), 11, 11, t, r.choice([1, 3, 9])))
    frames = top[:r.randint(2, 4)] + [r.choice(names) for _ in range(r.randint(2, 20))]
    for f in reversed(frames):
        print("\t%16x %s+0x%x (/usr/lib/libx.so)" % (r.randrange(1 << 40), f, r.randrange(256)))
    print()
EOF
}
gen 16 9000 > "$TMP/a.ps"
gen 17 9000 > "$TMP/b.ps"
"$FLAMEKIT" collapse "$TMP/a.ps" > "$TMP/a.folded" || fail "collapse a"
"$FLAMEKIT" collapse "$TMP/b.ps" > "$TMP/b.folded" || fail "collapse b"
# one stack that shrinks a lot: frames drawn dark (blue) in the differential graph
echo 'start_thread;main;shrinks 90000' >> "$TMP/a.folded"
echo 'start_thread;main;shrinks 10' >> "$TMP/b.folded"
"$FLAMEKIT" diff "$TMP/a.folded" "$TMP/b.folded" -o "$TMP/d.folded" || fail "diff"

WIDE="--width 60000"
n=0
draw() { # NAME INPUT OPTIONS...: one thread and two, compared; the two-part layout made
	local name=$1 in=$2
	shift 2
	"$FLAMEKIT" svg --threads 1 $WIDE "$@" -o "$TMP/$name-1.svg" "$in" || fail "$name: one thread"
	FLAMEKIT_DEBUG=1 FLAMEKIT_CROWDED=never "$FLAMEKIT" svg --threads 2 $WIDE "$@" \
		-o "$TMP/$name-2.svg" "$in" 2> "$TMP/$name.err" || fail "$name: two threads"
	grep -q 'frames laid out in two parts, the second from [0-9]* pending of [0-9]* after [0-9]* frames$' \
		"$TMP/$name.err" || { cat "$TMP/$name.err" >&2; fail "$name: not laid out in two parts"; }
	assert_files_eq "$TMP/$name-1.svg" "$TMP/$name-2.svg"
	n=$((n + 1))
}
draw perf "$TMP/a.ps"
frames=$(grep -c '<rect x=' "$TMP/perf-1.svg")
[ "$frames" -ge 16384 ] || fail "only $frames frames drawn: the two-part layout is not reached"
grep -q 'f0&lt;&amp;&gt;' "$TMP/perf-1.svg" || fail "the names to escape are not there"
draw icicle "$TMP/a.ps" --inverted --colors java
draw chart "$TMP/a.ps" --flamechart
draw weight "$TMP/a.folded" --sort weight
draw diff "$TMP/d.folded" --sort weight
draw diff-both "$TMP/d.folded" --sort weight --diff-shape both
grep -q 'class="dk"' "$TMP/diff-1.svg" || fail "no dark frame in the differential graph"
# (over 50000 frames at first: the size guard lays out again with a wider threshold, in two
# parts too)
[ "$(grep -c 'laid out in two parts' "$TMP/perf.err")" = 2 ] || fail "the guard's layout not in two parts"
[ "$frames" -le 50000 ] || fail "the guard did not hold: $frames frames"

# one thread asked, or the other CPU taken: no second part
FLAMEKIT_DEBUG=1 "$FLAMEKIT" svg --threads 1 $WIDE -o "$TMP/one.svg" "$TMP/a.ps" 2> "$TMP/one.err"
assert_not_contains "$TMP/one.err" "two parts"
FLAMEKIT_DEBUG=1 FLAMEKIT_CROWDED=0 "$FLAMEKIT" svg --threads 2 $WIDE -o "$TMP/crowded.svg" "$TMP/a.ps" 2> "$TMP/crowded.err"
assert_not_contains "$TMP/crowded.err" "two parts"
assert_files_eq "$TMP/perf-1.svg" "$TMP/crowded.svg"
echo "$n drawings alike laid out in one part and in two"

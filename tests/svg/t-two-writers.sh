#!/usr/bin/env bash
# With two threads an SVG of 8192 frames or more has its rects formatted in chunks by two
# threads, into a ring of buffers the first writes out in order: the same bytes as one
# thread, whatever the frames hold (names to escape in both parts, a differential graph's
# dark frames and counts, an icicle graph, a subtitle), and the thread is made only then,
# and not when another task holds the other CPU (FLAMEKIT_CROWDED: as if; =never: as if not,
# so a loaded machine running the tests still takes the two-writer path).
. "$(dirname "$0")/../lib.sh"

# ~11k stacks of 3-9 frames, the names full of what XML escapes and of UTF-8, drawn wide
# enough that every frame is kept (over 8192 frames: ~90 chunks of 512, more than the ring's 8)
python3 - "$TMP" <<'EOF'
import random, sys
d = sys.argv[1]
r = random.Random(8192)
odd = ['a&b', '<T>', 'q"uote', "it's", 'caf\u00e9', '\u6f22\u5b57', 'x\u2028y', 'tab\there', '--c']
names = ['ns%d::f%d%s' % (i % 7, i, r.choice(odd) if i % 3 == 0 else '') for i in range(4000)]
stacks = set()
while len(stacks) < 11000:
    stacks.add(';'.join(['main'] + [r.choice(names) for _ in range(r.randint(2, 8))]))
# one wide stack that shrinks: frames drawn dark (blue) in the differential graph
hot = 'main;shrinks<&>;ns1::f1a&b'
stacks.add(hot)
with open(d + '/a.folded', 'w') as a, open(d + '/b.folded', 'w') as b:
    for s in sorted(stacks):
        a.write('%s %d\n' % (s, 20000 if s == hot else r.randint(1, 50)))
        b.write('%s %d\n' % (s, 200 if s == hot else r.randint(1, 50)))
EOF
"$FLAMEKIT" diff "$TMP/a.folded" "$TMP/b.folded" -o "$TMP/d.folded" || fail "diff"

WIDE="--width 60000"
draw() { # NAME INPUT OPTIONS...: svg with one thread and with two, compared
	local name=$1 in=$2
	shift 2
	"$FLAMEKIT" svg --threads 1 $WIDE "$@" -o "$TMP/$name-1.svg" "$in" || fail "$name: one thread"
	FLAMEKIT_CROWDED=never timeout 120 "$FLAMEKIT" svg --threads 2 $WIDE "$@" -o "$TMP/$name-2.svg" "$in" \
		|| fail "$name: two threads"
	assert_files_eq "$TMP/$name-1.svg" "$TMP/$name-2.svg"
}
draw plain "$TMP/a.folded"
# the CPU found free only at a later look (the thread made between chunks), or at none (the
# chunks formatted straight into the output): the same bytes (FLAMEKIT_FREE_AT=K: the K-th
# look finds a CPU free; =never: the run counted big enough)
for k in 3 9; do
	FLAMEKIT_CROWDED=never FLAMEKIT_FREE_AT=$k "$FLAMEKIT" svg --threads 2 $WIDE \
		-o "$TMP/late-$k.svg" "$TMP/a.folded" || fail "free at look $k"
	assert_files_eq "$TMP/plain-1.svg" "$TMP/late-$k.svg"
done
draw diff "$TMP/d.folded"
draw icicle "$TMP/a.folded" --inverted --subtitle 'sub <&>'
draw reverse "$TMP/a.folded" --reverse --colors java

frames=$(grep -c '<rect x=' "$TMP/plain-1.svg")
[ "$frames" -ge 8192 ] || fail "only $frames frames drawn: the second writer is not reached"
grep -q '&amp;b' "$TMP/plain-1.svg" && grep -q 'x\\u2028y' "$TMP/plain-1.svg" \
	|| fail "the names to escape are not there"
grep -q 'class="dk"' "$TMP/diff-1.svg" || fail "no dark frame in the differential graph"

# the thread is made with --threads 2 and enough frames only (the reading of a small folded
# file makes none)
if command -v strace > /dev/null; then
	clones() { # CROWDED OPTIONS...: threads made by svg (LeakSanitizer cannot run under ptrace)
		local crowded=$1
		shift
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 FLAMEKIT_CROWDED=$crowded \
			strace -f -qq -e trace=clone,clone3 -o "$TMP/strace.out" \
			"$FLAMEKIT" svg -o "$TMP/s.svg" "$@" || fail "svg $*"
		grep -c clone "$TMP/strace.out" || true
	}
	assert_eq "threads, two asked, 46k frames" 1 "$(clones never --threads 2 $WIDE "$TMP/a.folded")"
	assert_eq "threads, one asked" 0 "$(clones never --threads 1 $WIDE "$TMP/a.folded")"
	assert_eq "threads, the other CPU taken" 0 "$(clones 0 --threads 2 $WIDE "$TMP/a.folded")"
	late() { # K: threads made by svg when the K-th look finds a CPU free
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 FLAMEKIT_CROWDED=never FLAMEKIT_FREE_AT=$1 \
			strace -f -qq -e trace=clone,clone3 -o "$TMP/strace.out" \
			"$FLAMEKIT" svg --threads 2 $WIDE -o "$TMP/s.svg" "$TMP/a.folded" || fail "svg, free at $1"
		grep -c clone "$TMP/strace.out" || true
	}
	assert_eq "threads, a CPU free at the third look" 1 "$(late 3)"
	assert_eq "threads, a CPU free at no look" 0 "$(late 9)"
	# a run that has held under 12 MB, as this one (a few MB): the ring's memory does not
	# pay (no FLAMEKIT_CROWDED, so a thread made here would be the writer: the reading of
	# this small file makes none)
	if [ "${SANITIZE:-0}" = 1 ]; then
		echo "(a small run's one writer: not checked under ASan, whose shadow memory makes every run big)"
	else
		strace -f -qq -e trace=clone,clone3 -o "$TMP/strace.out" \
			"$FLAMEKIT" svg --threads 2 $WIDE -o "$TMP/s.svg" "$TMP/a.folded" || fail "svg, a small run"
		assert_eq "threads, a small run" 0 "$(grep -c clone "$TMP/strace.out" || true)"
	fi
	cmp -s "$TMP/s.svg" "$TMP/plain-1.svg" || fail "one writer (CPU taken) differs"
	head -n 300 "$TMP/a.folded" > "$TMP/small.folded"
	assert_eq "threads, 300 stacks" 0 "$(clones never --threads 2 "$TMP/small.folded")"
else
	echo "(strace not installed: the threads made are not checked, only the output)"
fi
echo "two SVG writers give one writer's bytes ($frames frames)"

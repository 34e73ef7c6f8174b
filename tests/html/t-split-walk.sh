#!/usr/bin/env bash
# The page's walk in two parts (a second thread walks the second half of the sorted stacks
# into streams of its own, joined after the first's): the page is byte-identical to one
# thread's, whatever the seam falls on. FLAMEKIT_SPLIT_MIN splits small profiles, and the
# debug line says the split happened (a test that never split would prove nothing): the
# run of deeper nodes going on across the seam, a second part that is one chain (no pop of
# its own), the last stack before the seam a prefix of the first after it (an inner node
# with its own counts), no frame shared at the seam, two count columns, and counts that are
# not integers in the second part (the join declines: the first thread walks it again).
. "$(dirname "$0")/../lib.sh"
command -v python3 > /dev/null || skip "python3 not installed"

page() { # NAME: one thread's page and a split one's, the same bytes; prints the split's debug line
	"$FLAMEKIT" html --threads 1 "$TMP/$1.folded" -o "$TMP/$1-1.html" || fail "$1: one thread"
	FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_CROWDED=never FLAMEKIT_DEBUG=1 "$FLAMEKIT" html --threads 2 \
		"$TMP/$1.folded" -o "$TMP/$1-2.html" 2> "$TMP/$1.err" || fail "$1: two threads"
	cmp -s "$TMP/$1-1.html" "$TMP/$1-2.html" || fail "$1: the split walk's page differs from one thread's"
	grep -o 'walk: in two parts.*' "$TMP/$1.err" || fail "$1: the walk was not split"
}

# sorted, the stacks are: a;b | a;b;c;d (seam: the run of deeper nodes goes on), ...
printf 'a;b 3\na;b;c;d 2\nz 1\nz;y 4\n' > "$TMP/run.folded"
page run > /dev/null
# x | x;y;z: the second part is one chain, its depths one deeper each time (no pop)
printf 'x 5\nx;y;z 7\n' > "$TMP/chain.folded"
page chain > /dev/null
# m;n | m;n;o: the node before the seam has own counts and a child after it
printf 'm 1\nm;n 2\nm;n;o 3\nm;p 4\n' > "$TMP/prefix.folded"
page prefix > /dev/null
# nothing shared at the seam
printf 'a;b;c 1\nd;e 2\n' > "$TMP/apart.folded"
page apart > /dev/null
# two count columns, own counts on inner nodes in both
printf 'a;b 1 0\na;b;c 0 2\na;d 3 3\ne 0 1\ne;f;g 2 0\n' > "$TMP/two.folded"
page two > /dev/null
# non-integer counts past the seam: declined, walked again
printf 'a 1\nb 2\nc;d 1.5\nc;e 0.25\n' > "$TMP/float.folded"
page float | grep -q 'walked again by the first thread' || fail "float: the join did not decline"
# and where only the first part has them, the join takes the second
printf 'a 1.5\nb;c 2\nd 3\ne;f 4\n' > "$TMP/float1.folded"
page float1 | grep -q 'walked again' && fail "float1: the second part was walked again"

# seeded profiles: many stacks sharing prefixes at random depths, the seam anywhere
for seed in 1 2 3 4 5 6 7 8; do
	python3 - "$seed" > "$TMP/r$seed.folded" << 'EOF'
import random, sys
seed = int(sys.argv[1])
r = random.Random(seed)
names = ["f%d" % i for i in range(12)] + ["ns::g<%d>" % i for i in range(6)]
two = seed % 4 == 0
stacks = set()
for _ in range(r.randint(20, 400)):
    depth = r.randint(1, 10)
    stacks.add(";".join(r.choice(names[: r.randint(2, len(names))]) for _ in range(depth)))
for s in sorted(stacks):
    c = "%d %d" % (r.randint(0, 5), r.randint(0, 5)) if two else str(r.randint(1, 50))
    print(s, c)
EOF
	page "r$seed" > /dev/null
done
# the split page's own decoder gives the stacks back (the joined streams hold them all)
assert_page_holds "$TMP/r3-2.html" "$TMP/r3.folded"
echo "PASS"

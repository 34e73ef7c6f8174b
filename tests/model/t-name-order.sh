#!/usr/bin/env bash
# Names that share long first bytes (namespaces, packages, import paths): the ranking that
# orders them (radix passes run by run past the shared bytes, model/stacks.c), the stepped
# lookups and the batched name map of a merge (model/profile.c) against the byte order and
# sums Python computes from the same text; and two reading threads give the same bytes.
. "$(dirname "$0")/../lib.sh"
cd "$TMP"
python3 - <<'PY'
import random
r = random.Random(11)
# prefixes of 7, 8, 9, 16, 17 and 40 bytes, and names that end inside or right after them;
# ';'-free bytes including '+', ' ' becomes '_', \x01 and high bytes
pre = ['aaaaaaa', 'aaaaaaaa', 'aaaaaaaab', 'std::__1::vector', 'std::__1::vector<',
       'com.example.server.handler.module07.Svc', 'b' * 30]
tails = ['', 'a', 'b', '+', '_', '\x01', '\u00e9', 'zz', ':', '<int>']
names = set()
while len(names) < 4000:
    n = r.choice(pre) + ''.join(r.choice(tails) for _ in range(r.randint(0, 6)))
    names.add(n)
names = sorted(names)
def stacks(path, seed, n):
    g = random.Random(seed)
    with open(path, 'w', encoding='utf-8') as f:
        for _ in range(n):
            st = ';'.join(g.choice(names) for _ in range(g.randint(1, 8)))
            f.write('%s %d\n' % (st, g.randint(1, 9)))
stacks('a.folded', 1, 30000)
stacks('b.folded', 2, 30000)
PY
# byte order and sums, as collapse tools write them
expect() {
	python3 - "$@" <<'PY'
import sys
d = {}
for path in sys.argv[1:]:
    for line in open(path, 'rb'):
        s, c = line.rstrip(b'\n').rsplit(b' ', 1)
        d[s] = d.get(s, 0) + int(c)
sys.stdout.buffer.write(b''.join(b'%s %d\n' % (k, d[k]) for k in sorted(d)))
PY
}
expect a.folded > a.want
"$FLAMEKIT" collapse --format folded a.folded > a.got || fail "collapse"
assert_files_eq a.want a.got
# a merge maps the second profile's names into the first in batches
expect a.folded b.folded > ab.want
"$FLAMEKIT" merge a.folded b.folded > ab.got || fail "merge"
assert_files_eq ab.want ab.got
# two threads (a split at any size here) fold the same stacks into the same graph and text
for t in 1 2; do
	FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" svg --threads $t a.folded -o a$t.svg || fail "svg --threads $t"
	FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --format folded --threads $t a.folded > a$t.folded ||
		fail "collapse --threads $t"
done
cmp -s a1.svg a2.svg || fail "svg differs between one and two threads"
assert_files_eq a.want a2.folded
# the first thread finishing the odd names' lookups the second stopped (each batch's, at its
# first step; the CPUs never crowded: no batch read by the first alone)
FLAMEKIT_HALT_ODD=1 FLAMEKIT_CROWDED=never FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_DEBUG=1 \
	"$FLAMEKIT" svg --threads 2 a.folded \
	-o a3.svg 2> a3.err || fail "svg, the odd lookups halted"
grep -q "lookups of [1-9][0-9]* finished by the first" a3.err ||
	fail "no odd lookup was finished by the first thread: $(grep 'batches' a3.err)"
cmp -s a1.svg a3.svg || fail "svg differs with the odd lookups finished by the first thread"
# every name but the root's sharing 44 first bytes (c: some ending at 40 and 41, the rest
# past them: the levels where one run alone goes on pass over bytes 8-39, run_shared; d:
# some ending inside them or at a word's end, so none is passed over), in collapse's order
# (a name ranked as a stack's last frame and as one that goes on) and the SVG's
python3 - <<'PY'
import random
r = random.Random(12)
pre = 'xxxxx' + 'com.example.server.handler.module07.Svc'
for path, cuts in (('c.folded', (40, 41)), ('d.folded', (8, 12, 16, 23, 24, 25, 32, 40))):
    names = set(pre[:k] for k in cuts)
    while len(names) < 3000:
        names.add(pre + ''.join(r.choice(['', 'a', 'b', '$1', '.run', '\u00e9', 'zz'])
                                for _ in range(r.randint(0, 5))))
    names = sorted(names)
    with open(path, 'w', encoding='utf-8') as f:
        for _ in range(20000):
            st = ';'.join(r.choice(names) for _ in range(r.randint(1, 6)))
            f.write('%s %d\n' % (st, r.randint(1, 9)))
PY
for x in c d; do
	expect $x.folded > $x.want
	"$FLAMEKIT" collapse --format folded $x.folded > $x.got || fail "collapse $x"
	assert_files_eq $x.want $x.got
	"$FLAMEKIT" svg $x.folded -o $x.svg || fail "svg $x"
done
# the SVG's frames: siblings in byte order of their names
for svg in a1.svg c.svg d.svg; do
	python3 "$FK_TOP/tests/svg/fkframes.py" $svg > frames.tsv || fail "fkframes"
	python3 - frames.tsv <<'PY' || fail "siblings out of byte order ($svg)"
import sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1], encoding='utf-8')]
last = {}
bad = 0
for r in rows:
    d, name = int(r[1]), r[-1]
    prev = last.get(d)
    if prev is not None and prev.encode() >= name.encode():
        print('depth %d: %r before %r' % (d, prev, name)); bad = 1
    last[d] = name
    for k in [k for k in last if k > d]:
        del last[k]
sys.exit(bad)
PY
done
echo ok

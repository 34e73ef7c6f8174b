#!/usr/bin/env python3
# gen-shapes.py N SHAPE - about N tree nodes of folded stacks in one of three shapes besides
# gen-stacks.py's bushy one (seeded: same arguments, same bytes), for the viewer's transforms:
#   wide   a few frames deep, each frame with thousands of children (20k names)
#   deep   stacks 150-400 frames deep through recursive parsers (expr;term;factor;expr...)
#   names  bushy, but nearly every new frame has a name of its own (millions of names)
import random, sys
want, shape = int(sys.argv[1]), sys.argv[2]
r = random.Random(7)
w = sys.stdout.write
nodes = 0
if shape == 'wide':
    pool = ['fn_%d' % i for i in range(20000)]
    seen = set()
    while nodes < want:
        s = ['main', 'w%d' % r.randrange(4)] + [r.choice(pool) for _ in range(r.randint(1, 4))]
        k = ';'.join(s)
        if k in seen: continue
        seen.add(k); nodes += 1
        w('%s %d\n' % (k, r.randint(1, 50)))
elif shape == 'deep':
    rec = ['expr', 'term', 'factor', 'primary', 'call', 'args']
    pool = ['lib::f%d' % i for i in range(3000)]
    base = ['main', 'parse']
    while len(base) < 300: base.append(rec[len(base) % 6] if r.random() < 0.8 else r.choice(pool))
    prev = base
    while nodes < want:
        cut = r.randint(20, len(prev) - 1)
        tail = []
        for _ in range(r.randint(30, 120)):
            tail.append(rec[r.randrange(6)] if r.random() < 0.6 else r.choice(pool))
        s = (prev[:cut] + tail)[:400]
        nodes += len(s) - cut
        w('%s %d\n' % (';'.join(s), r.randint(1, 20)))
        prev = s if len(s) > 100 else base
elif shape == 'names':
    i = 0
    prev = ['main', 'a', 'b']
    while nodes < want:
        cut = r.randint(1, min(6, len(prev) - 1))
        tail = []
        for _ in range(r.randint(10, 25)):
            i += 1
            tail.append('ns%d::fn_%d' % (i % 97, i) if r.random() < 0.9 else 'common_%d' % r.randrange(500))
        s = prev[:cut] + tail
        nodes += len(tail)
        w('%s %d\n' % (';'.join(s), r.randint(1, 30)))
        prev = s
else:
    sys.exit('gen-shapes.py: unknown shape ' + shape)

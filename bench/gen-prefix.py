#!/usr/bin/env python3
# gen-prefix.py SHAPE STACKS NAMES [SEED] - folded stacks (sorted, as collapse tools write
# them) whose frame names are many and share long first bytes, as big C++, JVM, Go and Rust
# services have: SHAPE is cxx (namespaces and templates), jvm (package paths), go (import
# paths and methods), or same16 (names whose first 16 bytes repeat across all of them).
# STACKS unique stacks, depth 4-40, frames drawn from a pool of NAMES names (a hot part and
# a long tail, so about NAMES distinct names appear). Seeded: the same arguments, the same bytes.
import random, sys
shape, want, pool = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
r = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 23)
def cxx(i):
    ns = ['std::__1::', 'v8::internal::', 'boost::asio::detail::', 'llvm::', 'folly::']
    t = ['basic_string<char, std::__1::char_traits<char>, std::__1::allocator<char> >',
         'vector<int, std::__1::allocator<int> >', 'Handle<Object>', 'unique_ptr<Node>']
    return '%s%s::m%05x' % (ns[i % 5], t[(i >> 3) % 4], i)
def jvm(i):
    return 'com.example.server.handler.module%02d.Service%04x.handle%x' % (i % 37, i >> 6, i & 63)
def go(i):
    return 'github.com/org/repo%d/pkg/sub%02d.(*T%03x).Method%x' % (i % 3, (i >> 2) % 50, i >> 8, i & 255)
def same16(i):
    return 'mod%02d::prefix__f_%06x' % (i % 1, i)  # 16 equal bytes, then the difference
mk = {'cxx': cxx, 'jvm': jvm, 'go': go, 'same16': same16}[shape]
order = list(range(pool))
r.shuffle(order)
names = [mk(i) for i in order]
def pick(fresh):
    # a hot set near the root, the long tail elsewhere
    return names[r.randrange(pool)] if fresh else names[r.randrange(min(pool, 512))]
seen = set()
while len(seen) < want:
    d = r.randint(4, 40)
    s = ['main'] + [pick(False) for _ in range(r.randint(1, 3))]
    while len(s) < d:
        s.append(pick(True))
    seen.add(';'.join(s))
out = sys.stdout
for s in sorted(seen):
    out.write('%s %d\n' % (s, r.randint(1, 100)))

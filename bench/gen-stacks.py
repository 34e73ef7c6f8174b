#!/usr/bin/env python3
# gen-stacks.py N [bushy] - N unique folded stacks shaped like a real call tree (seeded: same
# N, same bytes), unsorted; the bench profile of b-svg.sh and b-pprof.sh. "bushy" branches
# stacks near the root (~21 new tree nodes a stack instead of ~2.4: 500k stacks make about
# 10M nodes): the profile of b-html.sh.
import random, sys
want = int(sys.argv[1])
bushy = len(sys.argv) > 2 and sys.argv[2] == 'bushy'
r = random.Random(1)
parts = ['std::vector<int>', 'std::map<std::string, Foo*>', 'Bar', 'Baz<T>', 'detail', 'impl', 'Handler', 'Worker']
def mkname(i):
    k = r.random()
    if k < 0.35: return 'func_%d' % i
    if k < 0.65: return '%s::%s_%d' % (r.choice(parts), r.choice(['run', 'process', 'operator()', 'visit']), i)
    if k < 0.8: return '%s::%s<%s>::m%d(%s const&)' % (r.choice(parts), r.choice(parts), r.choice(parts), i, r.choice(parts))
    if k < 0.92: return 'Lcom/example/app/Service%d.handle' % i
    return 'k_%d_[k]' % i
names = [mkname(i) for i in range(30000)]
def pick():
    # half the frames from a few hot functions, half from the whole pool
    return names[min(int(r.paretovariate(0.6)) - 1, 29999)] if r.random() < 0.5 else names[r.randrange(30000)]
stacks, seen = [], set()
for root in ['main', 'worker_thread', 'swapper', 'java', 'node']:
    s = [root] + [pick() for _ in range(r.randint(15, 30))]
    stacks.append(s)
    seen.add(';'.join(s))
while len(stacks) < want:
    # a new stack shares a prefix with a recent (or any) earlier one
    if r.random() < 0.7:
        base = stacks[-1 - min(int(r.expovariate(0.01)), len(stacks) - 1)]
    else:
        base = stacks[r.randrange(len(stacks))]
    if bushy:
        s = base[:r.randint(2, 7)] + [pick() for _ in range(r.randint(12, 28))]
    else:
        s = base[:max(4, len(base) - r.randint(0, 5))] + [pick() for _ in range(r.randint(1, 4))]
    s = s[:70]
    key = ';'.join(s)
    if key in seen:
        continue
    seen.add(key)
    stacks.append(s)
w = sys.stdout.write
for s in stacks:
    w('%s %d\n' % (';'.join(s), int(r.paretovariate(1.2))))

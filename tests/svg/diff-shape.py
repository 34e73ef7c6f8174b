#!/usr/bin/env python3
"""diff-shape.py - checks a differential flame graph SVG against what its two-column
folded input says, computed here from the input alone: which frames are drawn, their
widths and places (after: column 1, before: column 0, both: each stack's larger count),
their colours (flamegraph.pl's red/blue scale of the change), their titles (both real
counts and the change) and the delta in the script's data.

usage: diff-shape.py SHAPE FOLDED GRAPH.svg [--diff self|total] [--factor F] [--negate]
                     [--sort weight] [--expect OUT.json]
OUT.json gets, per function name drawn, its title, width and place in px and fill
(for tests/svg/diff-shape.js). Prints "ok" and exits 0, or what failed and exits 1.
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WIDTH, XPAD = 1200, 10


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def read_folded(path):
    """{stack tuple: [before, after]} (lines of one stack add up)."""
    stacks = {}
    for line in open(path, encoding='utf-8'):
        line = line.rstrip('\n')
        if not line:
            continue
        text, a, b = line.rsplit(' ', 2)
        key = tuple(text.split(';'))
        c = stacks.setdefault(key, [0.0, 0.0])
        c[0] += float(a)
        c[1] += float(b)
    return stacks


def count_text(v):
    """A count as the titles write it: an integer with thousands commas, or 3 decimals."""
    if abs(v - round(v)) < 1e-9 * max(1, abs(v)):
        s = '%d' % round(v)
    else:
        s = ('%.3f' % v).rstrip('0').rstrip('.')
    neg = s.startswith('-')
    digits, _, frac = s.lstrip('-').partition('.')
    digits = '{:,}'.format(int(digits))
    return ('-' if neg else '') + digits + ('.' + frac if frac else '')


def title(name, a, b, factor):
    ch = (b - a) * factor
    s = '%s (before %s, after %s samples, change %s%s, ' % (
        name, count_text(a * factor), count_text(b * factor), '+' if ch > 0 else '', count_text(ch))
    if a > 0:
        p = 100 * (b - a) / a
        s += ('+' if p > 0 else '') + '%.2f%%' % p if abs(p) >= 0.005 else '0.00%'
    else:
        s += 'new' if b > 0 else '0.00%'
    return s + ')'


def colour(d, maxd):
    """flamegraph.pl's differential colour: red for more, blue for less, white for none."""
    r = g = b = 255
    if d > 0:
        g = b = int(210 * (maxd - d) / maxd)
    elif d < 0:
        r = g = int(210 * (maxd + d) / maxd)
    return '#%02x%02x%02x' % (max(r, 0), max(g, 0), max(b, 0))


def dark(fill):
    """A fill black text cannot be read on (sRGB relative luminance under 0.18)."""
    lin = [int(fill[k:k + 2], 16) / 255 for k in (1, 3, 5)]
    lin = [v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4 for v in lin]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2] < 0.18


def main():
    shape, folded, svg = sys.argv[1:4]
    mode, factor = arg('--diff', 'self'), float(arg('--factor', '1'))
    negate, by_weight = '--negate' in sys.argv, arg('--sort', 'name') == 'weight'
    stacks = read_folded(folded)
    # per frame (a path from the root; () is the root "all"): totals and own counts
    tot, own = {}, {}
    for key, (a, b) in stacks.items():
        a, b = max(a, 0), max(b, 0)
        own.setdefault(key, [0, 0])
        own[key][0] += a
        own[key][1] += b
        for d in range(len(key) + 1):
            t = tot.setdefault(key[:d], [0, 0, 0])
            t[0] += a
            t[1] += b
            t[2] += max(a, b)  # each stack as wide as its larger count
    col = {'before': 0, 'after': 1, 'both': 2}[shape]

    def own_w(p):
        a, b = own.get(p, (0, 0))
        return [a, b, max(a, b)][col]

    total = tot[()][col]
    delta = {p: (t[1] - t[0]) if mode == 'total' else
             (own.get(p, (0, 0))[1] - own.get(p, (0, 0))[0]) for p, t in tot.items()}
    maxd = max(abs(v) for v in delta.values())
    maxd = maxd if mode == 'total' and maxd > 0 else max(maxd, 1)
    # x of every frame: its parent's x, the parent's own width, then earlier siblings (by
    # name, or heaviest first)
    xs = {(): 0.0}
    for p in sorted((p for p in tot if p), key=lambda p: (len(p), p)):
        par = p[:-1]
        sib = sorted((q for q in tot if len(q) == len(p) and q[:-1] == par),
                     key=lambda q: ((-tot[q][col] if by_weight else 0), q[-1].encode()))
        xs[p] = xs[par] + own_w(par) + sum(tot[q][col] for q in sib[:sib.index(p)])

    out = subprocess.run([sys.executable, os.path.join(HERE, 'fkframes.py'), svg, '--json'],
                         check=True, capture_output=True, text=True).stdout
    frames = json.loads(out)
    fails = []
    path, drawn = [], {}
    for f in frames:
        if f['depth']:
            del path[f['depth'] - 1:]
            path.append(f['name'])
        drawn[tuple(path)] = f
    want = {p for p, t in tot.items() if t[col] > 0}
    if set(drawn) != want:
        fails.append('%s: drawn %s, expected %s' % (shape, sorted(map(';'.join, drawn)),
                                                     sorted(map(';'.join, want))))
    sc = (WIDTH - 2 * XPAD) / total
    expect = {}
    for p in sorted(want & set(drawn)):
        f, t, name = drawn[p], tot[p], p[-1] if p else 'all'
        what = '%s %s' % (shape, ';'.join(p) or 'all')
        if f['count'] != t[col]:
            fails.append('%s: width %s counts, expected %s' % (what, f['count'], t[col]))
        if abs(f['width'] - t[col] * sc) > 0.1 + 1e-6:
            fails.append('%s: %s px wide, expected %.3f' % (what, f['width'], t[col] * sc))
        if abs(f['x'] - (XPAD + xs[p] * sc)) > 0.05 + 1e-6:
            fails.append('%s: at x %s, expected %.3f' % (what, f['x'], XPAD + xs[p] * sc))
        fill = colour(-delta[p] if negate else delta[p], maxd)
        if f['fill'] != fill:
            fails.append('%s: fill %s, expected %s (change %g)' % (what, f['fill'], fill, delta[p]))
        if f['dark'] != dark(fill):
            fails.append('%s: class dk %s on fill %s' % (what, f['dark'], fill))
        if f['delta'] != delta[p]:
            fails.append('%s: delta %s in the data, expected %s' % (what, f['delta'], delta[p]))
        tt = title(name, t[0], t[1], factor)
        if f['title'] != tt:
            fails.append('%s: title %r, expected %r' % (what, f['title'], tt))
        if p:
            expect[';'.join(p)] = {'name': name, 'depth': len(p), 'title': tt, 'fill': f['fill'],
                                   'x': XPAD + xs[p] * sc, 'width': t[col] * sc,
                                   'before': t[0], 'after': t[1], 'dark': dark(fill)}
    if '--expect' in sys.argv:
        with open(arg('--expect', ''), 'w') as fh:
            json.dump(expect, fh, indent=1, sort_keys=True)
    for m in fails:
        print('FAIL: ' + m)
    if fails:
        sys.exit(1)
    print('ok (%d frames)' % len(want))


if __name__ == '__main__':
    main()

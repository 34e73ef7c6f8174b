#!/usr/bin/env python3
"""fkframes.py - reads a flamekit SVG the way its script does and prints one
line per drawn frame: index, depth, x, width (px), fill, count, name.
Names come from the embedded data (fkN), so they are the full, untruncated
names; the counts from fkF. Used by the tests to assert on structure.

usage: fkframes.py GRAPH.svg            frames as TSV
       fkframes.py GRAPH.svg --labels   the static labels, one per line
       fkframes.py GRAPH.svg --config   the fkC settings as JSON
       fkframes.py GRAPH.svg --rgb      fills as rgb(R,G,B) (flamegraph.pl's notation)
       fkframes.py GRAPH.svg --json     frames as a JSON list (names with any character;
                                        depth, count, name, fill, x, width, title, delta,
                                        dark: class dk, white labels)
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = '{http://www.w3.org/2000/svg}'


def load(path):
    tree = ET.parse(path)  # also proves the file is well-formed XML
    root = tree.getroot()
    frames = labels = script = None
    for el in root.iter():
        if el.get('id') == 'frames':
            frames = el
        elif el.get('id') == 'labels':
            labels = el
        elif el.tag == NS + 'script':
            script = el.text
    return root, frames, labels, script


def data(script):
    def grab(var):
        m = re.search(r'var %s=(.*?);\n' % var, script, re.S)
        return m.group(1)
    cfg = grab('fkC')
    # fkC is a JS object literal with bare keys: quote them for JSON
    cfg = json.loads(re.sub(r'([{,])([A-Za-z][A-Za-z0-9]*):', r'\1"\2":', cfg))
    names = json.loads(grab('fkN'))
    nums = json.loads(grab('fkF'))
    return cfg, names, nums


def main():
    path = sys.argv[1]
    root, frames, labels, script = load(path)
    cfg, names, nums = data(script)
    if '--config' in sys.argv:
        print(json.dumps(cfg, sort_keys=True))
        return
    if '--labels' in sys.argv:
        for t in labels:
            sys.stdout.write((t.text or '') + '\n')
        return
    rects = list(frames)
    S = cfg['S']
    assert len(nums) == S * len(rects), 'fkF does not match the rects'
    if '--json' in sys.argv:
        out = [{'depth': nums[i * S + 1], 'count': nums[i * S + 2],
                'name': names[nums[i * S]] if i else 'all', 'fill': r.get('fill'),
                'x': float(r.get('x')), 'width': float(r.get('width')),
                'title': ''.join(t.text or '' for t in r.iter(NS + 'title')),
                'delta': nums[i * S + 4] if S == 5 else None,
                'dark': r.get('class') == 'dk'}
               for i, r in enumerate(rects)]
        print(json.dumps(out))
        return
    for i, r in enumerate(rects):
        n, depth, w = nums[i * S], nums[i * S + 1], nums[i * S + 2]
        name = names[n] if i else 'all'
        cnt = ('%.10g' % w)
        fill = r.get('fill')
        if '--rgb' in sys.argv and re.match(r'^#[0-9a-f]{6}$', fill):
            fill = 'rgb(%d,%d,%d)' % (int(fill[1:3], 16), int(fill[3:5], 16), int(fill[5:7], 16))
        line = [str(i), str(depth), r.get('x'), r.get('width'), fill, cnt, name]
        if S == 5:
            line.insert(6, '%.10g' % nums[i * S + 4])
        sys.stdout.write('\t'.join(line) + '\n')


if __name__ == '__main__':
    try:
        main()
    except BrokenPipeError:  # a reader such as grep -q stopped early
        sys.stderr.close()

#!/usr/bin/env python3
"""phases.py - where a command's time goes, phase by phase: each command is run ROUNDS
times (round-robin, every other round in reverse order) with FLAMEKIT_DEBUG=1, and each
debug message's time since the message before it is taken as the phase that message ends
(numbers in the messages are shown as N, the input's path as F, a message met again in
the same run as its own phase, #2, #3...); printed: the median of
each phase per command, in the order the phases first came, then the medians of the totals
(the last message's time). A phase a command never reached shows '-'.

    python3 bench/phases.py [-n ROUNDS] [--file PATH] LABEL='COMMAND ...' ...

e.g. python3 bench/phases.py -n 9 --file big.perf t1='build/flamekit svg --threads 1 -o /tmp/1.svg big.perf' \\
         t2='build/flamekit svg --threads 2 -o /tmp/2.svg big.perf'
"""
import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys

DEBUG = re.compile(r'debug ([0-9.]+) ms: (.*)')


def phases(stderr, path):
    """[(phase, ms)] from one run's debug messages."""
    out, prev, seen = [], 0.0, {}
    for line in stderr.splitlines():
        m = DEBUG.search(line)
        if not m:
            continue
        ms, text = float(m.group(1)), m.group(2)
        if path:
            text = text.replace(path, 'F')
        name = re.sub(r'[0-9][0-9,.]*', 'N', text)[:60]
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:  # (the same message again in one run: a phase of its own)
            name += ' #%d' % seen[name]
        out.append((name, ms - prev))
        prev = ms
    return out, prev


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('-n', type=int, default=7, help='rounds (7)')
    ap.add_argument('--file', help="the input's path, shown as F in the phases")
    ap.add_argument('commands', nargs='+', metavar="LABEL='COMMAND ...'")
    a = ap.parse_args()
    cmds = []
    for c in a.commands:
        label, sep, cmd = c.partition('=')
        if not sep or not cmd.strip():
            ap.error('not LABEL=COMMAND: %r' % c)
        cmds.append((label, shlex.split(cmd)))
    per = {label: {} for label, _ in cmds}
    totals = {label: [] for label, _ in cmds}
    order = []
    env = dict(os.environ, FLAMEKIT_DEBUG='1')
    for r in range(a.n):
        for label, argv in (cmds if r % 2 == 0 else cmds[::-1]):
            p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True, errors='replace')
            if p.returncode not in (0, 3):
                sys.exit('phases.py: %s exited %d:\n%s' % (label, p.returncode, p.stderr[-2000:]))
            got, total = phases(p.stderr, a.file)
            for name, ms in got:
                if name not in order:
                    order.append(name)
                per[label].setdefault(name, []).append(ms)
            totals[label].append(total)
    width = max([len(n) for n in order] + [5])
    print('%-*s' % (width, 'phase'), *('%10s' % label for label, _ in cmds))
    for name in order:
        print('%-*s' % (width, name),
              *('%10s' % ('%.2f' % statistics.median(per[l][name]) if name in per[l] else '-')
                for l, _ in cmds))
    print('%-*s' % (width, 'TOTAL'), *('%10.2f' % statistics.median(totals[l]) for l, _ in cmds))


if __name__ == '__main__':
    main()

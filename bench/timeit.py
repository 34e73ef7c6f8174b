#!/usr/bin/env python3
"""timeit.py RUNS LABEL=CMD [LABEL=CMD ...]

Runs every command RUNS times, round-robin (so load from other work on a shared machine
falls on all of them alike), each round in its own order: a command that frees much memory
can slow the one after it on VMs that report freed memory to their host, so round r runs row
r of a balanced Latin square (Williams'): with N commands, N even, each comes first once in
N rounds and right after each other command once, never twice after the same one in fewer
rounds (b-wide's 10 and 8; seeded shuffles had put its svg right after inferno's, which
frees 450 MB, in 2 rounds of 5); N odd takes 2N rounds for that, twice each, and a pair may
repeat from round (N+1)/2 on. Stdout and stderr go to /dev/null; it prints one line per
command: "LABEL best_wall best_cpu median_wall median_cpu max_rss_kb", times in seconds with
microsecond resolution (wall from a monotonic clock, cpu = user + sys of the child from
wait4). Best = the run with the least wall time. With FK_TIMEIT_ALL naming a file, each
command's wall times, round by round, go there too ("LABEL w1 w2 ..."): the rounds pair the
commands (a ratio per round); with FK_TIMEIT_ROUND naming a command too, it runs before each
round and the first word of its output goes there as well, round by round ("round v1 v2
...": b-threads.sh's CPUs' round trip). A command is a shell-free argument list split on
blanks; VAR=value words before it set its environment."""
import os
import shlex
import statistics
import subprocess
import sys
import time


def run(argv, env):
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            fd = os.open(os.devnull, os.O_WRONLY)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.execvpe(argv[0], argv, env)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status)


def orders(n, rounds):
    """Round r's order of commands 0..n-1: a Williams design's rows (0, 1, n-1, 2, n-2, ...
    shifted by r; where n is odd, rows n..2n-1 are the first n reversed), cycled."""
    base, lo, hi = [0], 1, n - 1
    while lo <= hi:
        base.append(lo)
        lo += 1
        if lo <= hi:
            base.append(hi)
            hi -= 1
    rows = [[(b + r) % n for b in base] for r in range(n)]
    if n % 2:
        rows += [row[::-1] for row in rows]
    return [rows[r % len(rows)] for r in range(rounds)]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    runs = int(sys.argv[1])
    jobs = []
    for spec in sys.argv[2:]:
        label, _, cmd = spec.partition("=")
        words = shlex.split(cmd)
        env = dict(os.environ)
        while words and "=" in words[0] and not words[0].startswith(("/", ".")):
            k, _, v = words.pop(0).partition("=")
            env[k] = v
        jobs.append((label, words, env, []))
    before = shlex.split(os.environ.get("FK_TIMEIT_ROUND", ""))
    marks = []
    for i, row in enumerate(orders(len(jobs), runs)):
        if before:
            out = subprocess.run(before, stdout=subprocess.PIPE, text=True).stdout.split()
            marks.append(out[0] if out else "-")
        for label, words, env, res in (jobs[k] for k in row):
            r = run(words, env)
            if r[3] not in (0, 3):
                sys.exit(f"timeit: {label}: exit status {r[3]}: {' '.join(words)}")
            res.append(r)
    every = os.environ.get("FK_TIMEIT_ALL")
    if every:
        with open(every, "w") as f:
            for label, _, _, res in jobs:
                f.write(label + " " + " ".join(f"{r[0]:.6f}" for r in res) + "\n")
            if marks:
                f.write("round " + " ".join(marks) + "\n")
    for label, _, _, res in jobs:
        best = min(res, key=lambda r: r[0])
        print(f"{label} {best[0]:.6f} {best[1]:.6f} "
              f"{statistics.median(r[0] for r in res):.6f} "
              f"{statistics.median(r[1] for r in res):.6f} {max(r[2] for r in res)}")


if __name__ == "__main__":
    main()

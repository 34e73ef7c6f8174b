#!/usr/bin/env python3
"""sample-report.py FOLDED [SEED] - writes a macOS /usr/bin/sample report (the
"Call graph:" tree, as sample prints it) of the folded stacks in FOLDED, for the
fuzz corpus of the `sample` format (macOS's tool does not run here). The first
frame of each stack is the thread. SEED varies the header, the modules, the
address and "???" lines, tree marks and the trailing summaries."""
import random
import sys

stacks = {}
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line.rstrip("\n")
    if not line or " " not in line:
        continue
    path, count = line.rsplit(" ", 1)
    try:
        n = int(float(count))
    except ValueError:
        continue
    node = stacks
    for f in path.split(";"):
        node = node.setdefault(f, {})
    node[""] = node.get("", 0) + n
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
mods = ["libsystem_kernel.dylib", "libsystem_pthread.dylib", "libdyld.dylib", "AppKit",
        "CoreFoundation", "prog", "libc++.1.dylib", "Foundation"]


def total(n):
    return sum(v if k == "" else total(v) for k, v in n.items())


out = ["Sampling process %d for 3 seconds with 1 millisecond of run time between samples"
       % rng.randint(100, 99999),
       "Sampling completed, processing symbols...",
       "Analysis of sampling prog (pid %d) every 1 millisecond" % rng.randint(100, 99999),
       "Process:         prog [%d]" % rng.randint(100, 99999),
       "Path:            /usr/local/bin/prog",
       "Code Type:       %s" % rng.choice(["X86-64", "ARM64"]),
       "OS Version:      macOS %d.%d (22A%d)" % (rng.randint(11, 14), rng.randint(0, 6), rng.randint(100, 400)),
       "Report Version:  7",
       "Analysis Tool:   /usr/bin/sample",
       "----", "", "Call graph:"]
MARKS = "+!:|"


def emit(name, node, depth, bars):
    n = total(node)
    pre = "    "
    for d in range(depth):
        pre += (MARKS[d % 4] if bars[d] else " ") + " "
    if depth == 0:
        out.append("    %d %s" % (n, name))
    else:
        mod = rng.choice(mods)
        addr = rng.randint(0x100000000, 0x7fffffffffff)
        if rng.random() < 0.1:
            text = "???  (in %s)  load address 0x%x + 0x%x  [0x%x]" % (mod, addr & ~0xfff, addr & 0xfff, addr)
        else:
            text = "%s  (in %s) + %d  [0x%x]" % (name, mod, rng.randint(0, 2000), addr)
        out.append(pre + "%d %s" % (n, text))
    kids = sorted(((k, v) for k, v in node.items() if k), key=lambda kv: -total(kv[1]))
    for i, (k, v) in enumerate(kids):
        emit(k, v, depth + 1, bars + [i + 1 < len(kids) or depth == 0])


for t, node in sorted(stacks.items()):
    if t:
        emit(t, node, 0, [])
out += ["", "Total number in stack (recursive counted multiple times):"]
if rng.random() < 0.7:
    out += ["", "Sort by top of stack, same collapsed (when >= 5):"]
    out += ["        %s  (in %s)        %d" % ("mach_msg_trap", "libsystem_kernel.dylib", rng.randint(5, 999))]
out += ["", "Binary Images:",
        "       0x10b7c0000 -        0x10b9fffff +prog (1.0) <%08X-0000-0000-0000-000000000000> /usr/local/bin/prog"
        % rng.randint(0, 2**32 - 1)]
sys.stdout.write("\n".join(out) + "\n")

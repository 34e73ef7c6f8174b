#!/usr/bin/env python3
"""offcpu-ref.py COMM FRAME < perf-script-text: an independent pairing of the sched_switch
events of COMM's threads (written for the tests, sharing no code with flamekit), by the
rule docs/perf-plugin.md gives: a thread is off-CPU from its switch-out to its next
switch-in. When perf left that switch-in out without saying so (seen on a loaded machine:
the thread next shows up switching out again, or in a cpu-clock sample, with no switch-in
between), the interval ends at the last switch recorded on the CPU where it shows up.
Prints "N TOTAL_US ESTIMATED PREEMPTED" for the intervals whose switch-out callchain holds
FRAME (each rounded to whole microseconds as flamekit rounds; ESTIMATED of them ended by
the rule above; PREEMPTED of them began with the thread still runnable, prev_state R),
then a line per interval.
Needs perf script --ns -F comm,tid,cpu,time,event,trace,ip,sym on a recording with -g."""
import re, sys

comm, frame = sys.argv[1], sys.argv[2]
head = re.compile(r"^\s*(\S.*?)\s+(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(\S+):\s*(.*)$")
events = []   # [t_ns, cpu, event-name, fields, stack, comm, tid]
cur = None
for line in sys.stdin:
    m = head.match(line)
    if m:
        t = int(m.group(4)) * 10**9 + int(m.group(5).ljust(9, "0")[:9])
        f = dict(re.findall(r"(\w+)=(\S+)", m.group(7).replace(" ==> ", " ")))
        cur = [t, int(m.group(3)), m.group(6), f, [], m.group(1), int(m.group(2))]
        events.append(cur)
    elif cur is not None and line.strip():
        parts = line.split()
        if len(parts) >= 2:
            cur[4].append(parts[1])
events.sort(key=lambda e: e[0])      # stable: same-time events keep perf's order
last = {}                            # cpu -> time of the last switch recorded there
open_, out = {}, []

def close(tid, t_end, estimated):
    t0, want, preempted = open_.pop(tid)
    if want and t_end > t0:
        out.append((tid, t0, t_end, (t_end - t0 + 500) // 1000, estimated, preempted))

for t, cpu, ev, f, stack, c, tid in events:
    if ev == "sched:sched_switch":
        nxt, prv = int(f["next_pid"]), int(f["prev_pid"])
        if nxt in open_:
            close(nxt, t, False)
        if prv in open_:
            close(prv, last.get(cpu, 0), True)
        last[cpu] = t
        if f.get("prev_comm") == comm and prv > 0:
            open_[prv] = (t, frame in stack, f.get("prev_state", "").startswith("R"))
    elif tid in open_:               # a sample of a thread that is running
        close(tid, last.get(cpu, 0), True)
print("%d %d %d %d" % (len(out), sum(o[3] for o in out), sum(o[4] for o in out),
                       sum(o[5] for o in out)))
for tid, t0, t1, us, est, pre in out:
    print("tid %d out %d in %d: %d us%s%s" % (tid, t0, t1, us, " (estimated)" if est else "",
                                            " (preempted)" if pre else ""))

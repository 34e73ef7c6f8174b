# flamekit.py - a perf script Python hook: flame graphs from perf's own view of
# the samples (its DWARF unwinding, inline frames where perf resolves them, any
# event), over flamekit's _flamekit module.
#
#   perf script report flamekit [-- options]        (installed beside perf's scripts)
#   perf script -s .../share/flamekit/perf/flamekit.py [-- options]
#
# -o NAME picks the output by name, through the library's rule (.svg, .html, .pb.gz,
# .speedscope.json); --folded PATH writes folded stacks. The SVG options are those of
# flamekit svg (the library's table); frames are named as the perf dlfilter names them.
import os
import sys

_here = os.path.dirname(os.path.realpath(__file__))
# build tree and install alike: the module is in ../gdb
for _d in (os.path.join(_here, "..", "gdb"), _here):
    if os.path.isfile(os.path.join(_d, "_flamekit.abi3.so")):
        sys.path.insert(0, _d)
        break
import _flamekit as fk  # noqa: E402

PROG = "flamekit hook"
NAME_FLAGS = ("kernel", "jit", "all", "full-names", "rust-names", "cxx-names")
OWN = """  -o, --output NAME      output by its name: NAME.svg (default flame.svg), NAME.html
                         (viewer page), NAME.pb.gz (pprof), NAME.speedscope.json
  --folded PATH          folded stacks ("-" = stdout)
  --event NAME           event to fold (default: the first seen)
  --count period|samples sum periods (default) or count samples
  --pid, --tid           root frame comm-PID or comm-PID/TID
  --kernel --jit --all --full-names --rust-names --cxx-names
                         name rules, as perf flame's"""


def die(msg, status):
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.stdout.flush()
    os._exit(status)  # perf would go on reading samples after SystemExit


def usage():
    sys.stdout.write("usage: perf script report flamekit [-- options]\n"
                     "       perf script -s flamekit.py [-- options]\n" + OWN + "\nSVG options:\n")
    for r in fk.options("svg"):
        left = "--" + r["name"] + (" " + (r["arg"] or "V") if r["takes_value"] else "")
        sys.stdout.write("  %-22s %s\n" % (left, r["help"]))
    sys.stdout.flush()
    os._exit(0)


def parse(argv):
    o = {"output": None, "folded": None, "event": None, "count": "period", "pid": False,
         "tid": False, "names": {}, "svg": {}}
    rows = {r["name"]: r for r in fk.options("svg")}
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            usage()
        if a == "--":  # perf script report NAME -- ARGS passes the "--" on
            i += 1
            continue
        key, eq, val = a.partition("=")
        if not key.startswith("-") or key == "-":
            die("unexpected argument '%s' (see --help)" % a, 2)
        name = key.lstrip("-").replace("_", "-")
        if key == "-o":
            name = "output"

        def value():
            nonlocal i
            if eq:
                return val
            if i + 1 >= len(argv):
                die("--%s needs a value" % name, 2)
            i += 1
            return argv[i]
        if name in ("output", "folded", "event", "count"):
            o[name] = value()
            if name == "count" and o["count"] not in ("period", "samples"):
                die("--count: expected period or samples, got '%s'" % o["count"], 2)
        elif name in ("pid", "tid"):
            o[name] = True
        elif name in NAME_FLAGS:
            o["names"][name.replace("-", "_")] = True
        elif name in rows:
            o["svg"][name.replace("-", "_")] = value() if rows[name]["takes_value"] else True
        else:
            die("unknown option '%s' (see --help)" % a, 2)
        i += 1
    if not o["output"] and not o["folded"]:
        o["output"] = "flame.svg"
    return o


opts = parse(sys.argv[1:])
# every option and output path is checked before perf reads a sample
try:
    fk.check_svg(**opts["svg"])
except (ValueError, TypeError) as e:
    die(str(e), 2)
for _p in (opts["output"], opts["folded"]):
    if _p and _p != "-" and not os.access(os.path.dirname(os.path.abspath(_p)), os.W_OK):
        die("cannot write %s: %s" % (_p, os.strerror(13 if os.path.isdir(os.path.dirname(
            os.path.abspath(_p))) else 2)), 1)

# a flame chart or a time range draws from per-sample records (as the dlfilter's
# fkd_needs_samples); otherwise only the stacks are kept
keep_samples = any(k in opts["svg"] for k in ("range", "flamechart"))
prof = fk.Profile(samples=keep_samples)
event = opts["event"]
frame_cache = {}
n_folded = 0


def frames_of(sym, dso):
    key = (sym, dso)
    f = frame_cache.get(key)
    if f is None:
        f = fk.perf_frames(sym, dso, **opts["names"])
        frame_cache[key] = f
    return f


def process_event(param_dict):
    global event, n_folded
    name = param_dict.get("ev_name", "")
    if event is None:
        event = name
    if name != event:
        return
    s = param_dict["sample"]
    stack = []
    chain = param_dict.get("callchain")
    if chain:
        for fr in chain:  # leaf first
            sym = fr.get("sym")
            stack.extend(reversed(frames_of(sym.get("name") if sym else None, fr.get("dso"))))
    else:
        stack.extend(reversed(frames_of(param_dict.get("symbol"), param_dict.get("dso"))))
    stack.reverse()
    root = fk.perf_root(param_dict.get("comm") or ":-1", s.get("pid", -1), s.get("tid", -1),
                        show_pid=opts["pid"], show_tid=opts["tid"])
    count = 1 if opts["count"] == "samples" else (s.get("period") or 1)
    if keep_samples:
        cpu = s.get("cpu", -1)
        prof.add(root + stack, count=count, time=s.get("time", 0) / 1e9, pid=s.get("pid", -1),
                 tid=s.get("tid", -1), cpu=cpu if 0 <= cpu < 1 << 31 else -1,
                 comm=param_dict.get("comm"))
    else:
        prof.add(root + stack, count=count)
    n_folded += 1


def trace_end():
    if n_folded == 0:
        die("no samples were folded%s: nothing written" %
            (" (no %s samples)" % opts["event"] if opts["event"] else ""), 1)
    try:
        if opts["folded"]:
            prof.write_folded(opts["folded"])
        out = opts["output"]
        if out and out.endswith(".folded"):
            prof.write_folded(out)
        elif out:
            prof.write_svg(out, **opts["svg"])  # the output-name rule picks the format
    except BrokenPipeError:
        os._exit(0)  # the reader of stdout stopped: quiet
    except (OSError, ValueError, RuntimeError) as e:
        die(str(e), 1)

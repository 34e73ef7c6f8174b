# flamekit.py - the gdb `flame` command: samples every thread of the current inferior
# (with --python, CPython 3.11's own frames merged in: docs/python.md)
# and writes a flame graph (SVG), folded stacks and timestamped samples through flamekit's
# core (_flamekit, the C module installed beside this file). Load: gdb -x flamekit.py.
"""flamekit gdb integration: defines the `flame` command."""

import os
import re
import signal
import stat
import sys
import time

import gdb

_HERE = os.path.dirname(os.path.realpath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
try:
    import _flamekit
    _IMPORT_ERROR = None
except ImportError as e:  # reported when the command runs, not at load time
    _flamekit = None
    _IMPORT_ERROR = e

# FLAMEKIT_GDB_TIMING=1: print where the stopped time goes (development aid)
_PROFILE_SELF = [] if os.environ.get("FLAMEKIT_GDB_TIMING") else None

class _Opts:
    """The flame command's options, all checked by the module (the same tables as
    `flamekit gdb` and `flamekit svg`) before any sampling starts."""

    def __init__(self, d):
        self.hz = d["hz"]
        self.duration = d["duration"]
        self.svg = d["svg"]
        self.folded = d["folded"]
        self.samples = d["samples"]
        self.threads = d["threads"]
        self.max_depth = d["max_depth"]
        self.precise = d["precise"]
        self.addrs = d["addrs"]
        self.pid = d["pid"]
        self.quiet = d["quiet"]
        self.python = d["python"]
        self.python_lines = d["python_lines"]
        # keyword arguments of Profile.write_svg, as given ('-' is '_' there)
        self.svg_opts = {k.replace("-", "_"): v for k, v in d["svg_options"].items()}
        if self.python:
            # Python frames coloured as inferno does (program, stdlib, packages)
            self.svg_opts.setdefault("colors", "python")


def _parse(argv):
    try:
        return _Opts(_flamekit.parse_flame_args(argv))
    except (ValueError, TypeError) as e:
        raise gdb.GdbError("flame: %s" % e)


def _msg(o, text):
    if not o.quiet:
        gdb.write(text + "\n", gdb.STDERR)


# ---------------------------------------------------------------- gdb settings
class _Settings:
    """Saves what flame changes and puts it back, whatever happens."""

    def __init__(self):
        self.saved = []
        self.sigstop = None
        self.muted = None

    def set(self, name, value):
        try:
            old = gdb.parameter(name)
        except RuntimeError:
            return  # older gdb without this setting
        if isinstance(old, bool):
            old = "on" if old else "off"
        self.saved.append(("set " + name, old))
        gdb.execute("set %s %s" % (name, value), to_string=True)

    def handle_sigstop(self):
        # SIGSTOP is the stop signal: the target cannot block it, and with
        # `nopass` gdb swallows it instead of delivering it.
        out = gdb.execute("info signals SIGSTOP", to_string=True)
        m = re.search(r"^SIGSTOP\s+(Yes|No)\s+(Yes|No)\s+(Yes|No)", out, re.M)
        if m:
            self.sigstop = ["stop" if m.group(1) == "Yes" else "nostop",
                            "print" if m.group(2) == "Yes" else "noprint",
                            "pass" if m.group(3) == "Yes" else "nopass"]
        gdb.execute("handle SIGSTOP stop print nopass", to_string=True)

    def internal_errors_abort_command(self):
        # gdb 13 can hit an internal error when a process exits while it is being
        # resumed; by default (or under to_string) that ends gdb itself. During
        # sampling it ends only the command, as an exception flame handles.
        for what in ("quit", "corefile"):
            try:
                out = gdb.execute("maint show internal-error %s" % what, to_string=True)
            except gdb.error:
                continue
            m = re.search(r'is "(\w+)"', out)
            if m:
                self.saved.append(("maint set internal-error " + what, m.group(1)))
                gdb.execute("maint set internal-error %s no" % what, to_string=True)

    def quiet(self):
        # The CLI prints "Thread N received signal SIGSTOP" on every stop, even
        # with suppress-cli-notifications and under to_string: mute fd 1.
        gdb.flush()
        if not os.environ.get("FLAMEKIT_GDB_VERBOSE"):
            self.muted = _flamekit.mute_stdout()

    def restore(self):
        if self.muted is not None:
            try:
                _flamekit.unmute_stdout(self.muted)
            except OSError:
                pass
            self.muted = None
        for command, old in reversed(self.saved):
            try:
                gdb.execute("%s %s" % (command, old), to_string=True)
            except gdb.error:
                pass
        self.saved = []
        if self.sigstop:
            try:
                # print/stop before nostop: gdb ties them together
                gdb.execute("handle SIGSTOP %s" % " ".join(self.sigstop), to_string=True)
            except gdb.error:
                pass
            self.sigstop = None


def _pending_sigstop(pid):
    """True if a SIGSTOP is queued for the process or one of its threads."""
    bit = 1 << (19 - 1)
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return False
    for t in tasks:
        try:
            with open("/proc/%d/task/%s/status" % (pid, t)) as f:
                for line in f:
                    if line.startswith(("SigPnd:", "ShdPnd:")) and int(line.split()[1], 16) & bit:
                        return True
        except (OSError, ValueError, IndexError):
            pass
    return False


def _take_our_stops(sampler, inf, pid, events, settings):
    """Leave no SIGSTOP of ours behind: gdb would pass it on at detach (once the
    user's `pass` is back) and stop the process for good. One can be queued in
    the kernel, or held inside gdb, not in /proc: when two threads stop at once
    (a breakpoint or an internal error while our timer fires, or the timer's
    second SIGSTOP), gdb reports one stop and keeps the other for the next
    resume. A continue reports a held stop at once without resuming anything;
    so run on, each time with one fresh SIGSTOP of ours, until a stop is that
    SIGSTOP alone (fired, not sent twice) and none is queued."""
    for _ in range(8):
        if not inf.pid or events["exited"] or not inf.is_valid():
            return
        sampler.arm(pid)
        events["sig"] = None
        gdb.execute("continue", to_string=settings.muted is None)
        fired = sampler.disarm()
        if events["exited"] or not inf.pid:
            return
        if events["sig"] == "SIGSTOP" and fired and not sampler.refired() \
                and not _pending_sigstop(pid):
            return


def _process_exiting(pid, wait=0.0):
    """True if every thread of pid is gone or a zombie: the process is exiting
    (exit_group). gdb 13 asserts (num_lwps == 1) when asked to detach then.
    With wait, keeps looking that long: after a kill -9 the threads die one by
    one, and gdb's first error ("No such process") can come before the last."""
    deadline = time.monotonic() + wait
    while not _all_threads_gone(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    return _all_threads_gone(pid)


def _all_threads_gone(pid):
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return True
    for t in tasks:
        try:
            with open("/proc/%d/task/%s/stat" % (pid, t)) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            return False
    return True


# ---------------------------------------------------------------- symbolization
_PARAMS = re.compile(r"\((?:[^()]|\([^()]*\))*\)(?: const)?(?: volatile)?$")


def _short(name):
    # gdb's frame names have no C++ parameter lists; symbols' print names do
    if name.endswith(")") and "(" in name and not name.startswith("operator()"):
        cut = _PARAMS.sub("", name)
        if cut:
            return cut
    return name


_INFO_SYMBOL = re.compile(r"^(.*?)(?: \+ \d+)? in section ")


def _symbolize(addrs, sampler):
    """address -> names, outermost first (a function, then what is inlined into
    it at that address). Addresses are already 'return address - 1' for callers."""
    names = {}
    for a in addrs:
        frames = []
        try:
            b = gdb.block_for_pc(a)
        except RuntimeError:
            b = None
        while b is not None:
            if b.function is not None:
                frames.append(_short(b.function.print_name))
            b = b.superblock
        if frames:
            frames.reverse()
            names[a] = tuple(frames)
            continue
        try:
            out = gdb.execute("info symbol 0x%x" % a, to_string=True)
        except gdb.error:
            out = ""
        m = _INFO_SYMBOL.match(out)
        if m:
            names[a] = (_short(m.group(1)),)
        else:
            s = sampler.elf_symbol(a) if sampler else None
            if s:
                names[a] = (s,)
        # else: left out, build() writes [module] (or module+0xOFF with --addrs)
    return names


def _walk_gdb(sampler, limit, want_pcs=False, addrs=False):
    """Stack of the selected thread through gdb's own unwinder: (names innermost
    first, raw adjusted pcs of the real frames if want_pcs). Only name() per frame
    in the common case: pc() and type() cost a lot over 900 frames."""
    names, pcs = [], []
    try:
        f = gdb.newest_frame()
    except gdb.error:
        return names, pcs
    prev = None
    while f is not None and (not limit or len(names) < limit):
        try:
            n = f.name()
            if n is None or want_pcs:
                pc = f.pc()
                # the newest frame and frames after a signal frame hold exact pcs
                exact = prev is None or prev.type() == gdb.SIGTRAMP_FRAME
                look = pc if exact else pc - 1
                if names and sampler and not sampler.mapped(look):
                    break  # beyond the outermost frame (a thread just born, say)
                if want_pcs and f.type() != gdb.INLINE_FRAME:
                    pcs.append(look)
                if n is None:
                    if sampler:
                        n = sampler.module_offset(look) if addrs else sampler.module_name(look)
                    else:
                        n = "0x%x" % look if addrs else "[unknown]"
        except gdb.error:
            break
        names.append(n)
        prev = f
        try:
            f = f.older()
        except gdb.error:
            break
    return names, pcs


# ---------------------------------------------------------------- the command
class FlameCommand(gdb.Command):
    """Sample the stacks of every thread of the current process into a flame graph.

Usage: flame [-F HZ] [-d SECONDS] [-o FILE.svg] [--folded FILE] [--samples FILE]
             [--threads] [--max-depth N] [--precise] [--python | --python-lines]
             [-p PID] [-q] [SVG options]

Stops the process HZ times a second (default 99) for SECONDS (default: until
Ctrl-C or the process exits), records the stack of every thread, lets it run
again, then writes the outputs. The process is left as it was found: running
and detached if `flame -p PID` attached it, attached (and stopped at the gdb
prompt) if you attached it yourself.

OPTIONS

Frames are function names, with functions inlined at the sampled address as
frames of their own; code without symbols shows as one [module] frame (as perf
and flamegraph.pl name it), or with --addrs as module+0xOFFSET (the offset
addr2line takes) or the bare address. Without -o/--folded/--samples the folded
stacks are printed. The process is stopped with SIGSTOP, which gdb is told not
to pass on (`handle SIGSTOP nopass` while sampling), so targets that block
SIGINT work and no signal reaches the program. Ctrl-C ends sampling early; the
samples taken so far are written; so does SIGTERM or SIGHUP to gdb, which then
quits (exit status 0) once the process is let go. A second, different signal
aborts: nothing is written. If gdb is killed, a guardian process continues the
target, so it is never left stopped."""

    def __init__(self):
        super().__init__("flame", gdb.COMMAND_RUNNING)


    def invoke(self, arg, from_tty):
        if _flamekit is None:
            raise gdb.GdbError("flame: cannot load the _flamekit module next to %s: %s"
                               % (__file__, _IMPORT_ERROR))
        o = _parse(gdb.string_to_argv(arg))
        if not (o.svg or o.folded or o.samples):
            o.folded = "-"
        _run(o)


if _flamekit is not None and hasattr(_flamekit, "flame_help"):
    # the option lines come from the same tables the command parses with
    FlameCommand.__doc__ = FlameCommand.__doc__.replace("OPTIONS\n", _flamekit.flame_help())


class _Supervisor:
    """The pipe flamekit gdb tells its requests through (FLAMEKIT_GDB_STOP_FD):
    's' stop, 'a' abort, end of file: flamekit is gone."""

    def __init__(self):
        self.fd = None
        self.aborted = False
        fd = os.environ.get("FLAMEKIT_GDB_STOP_FD", "")
        try:
            if fd.isdigit() and stat.S_ISFIFO(os.fstat(int(fd)).st_mode):
                self.fd = int(fd)
                os.set_blocking(self.fd, False)
        except OSError:
            self.fd = None

    def says(self):
        """None, or why to stop: 'stop', 'abort', 'gone'."""
        if self.fd is None:
            return None
        try:
            b = os.read(self.fd, 64)
        except (BlockingIOError, InterruptedError):
            return "abort" if self.aborted else None
        except OSError:
            return None
        if not b:
            return "gone"
        if b"a" in b:
            self.aborted = True
        return "abort" if self.aborted else "stop"


_supervisor = _Supervisor()


def _select_thread(inf, tid):
    for t in inf.threads():
        if t.ptid[1] == tid and t.is_valid():
            t.switch()
            return


def _run(o):
    # the guardian continues the process if gdb dies on the way (kill -9):
    # from before the attach (whose SIGSTOP could be left queued) to the end
    guard = [None]
    try:
        _run_guarded(o, guard)
    finally:
        if guard[0] is not None:
            # after an internal error of gdb's, its later detach may let a SIGSTOP
            # through: the guardian stays on watch until gdb ends
            (_flamekit.watch_guard if len(guard) > 1 else _flamekit.unguard)(guard[0])


def _start_guard(guard, pid):
    if guard[0] is None:
        try:
            guard[0] = _flamekit.guard(pid)
        except OSError as e:
            gdb.write("flame: warning: no guardian for process %d (%s): if gdb is killed "
                      "mid-run, the process may be left stopped\n" % (pid, e), gdb.STDERR)


def _run_guarded(o, guard):
    inf = gdb.selected_inferior()
    attached_here = False
    if o.pid:
        if not inf.pid:
            _start_guard(guard, o.pid)
        if inf.pid:
            raise gdb.GdbError("flame: already debugging process %d; drop -p or detach first"
                               % inf.pid)
        gdb.flush()
        muted = _flamekit.mute_stdout()  # attach prints the stop location
        try:
            gdb.execute("attach %d" % o.pid, to_string=True)
        except gdb.error as e:
            raise gdb.GdbError("flame: cannot attach to process %d: %s" % (o.pid, e))
        finally:
            _flamekit.unmute_stdout(muted)
        inf = gdb.selected_inferior()
        attached_here = True
    if not inf.pid:
        raise gdb.GdbError("flame: no process (attach PID, run the program, or flame -p PID)")
    pid = inf.pid
    _start_guard(guard, pid)
    if gdb.parameter("non-stop"):
        if attached_here:
            gdb.execute("detach", to_string=True)
        raise gdb.GdbError("flame: needs all-stop mode (set non-stop off before attaching)")
    if any(t.is_running() for t in inf.threads()):
        raise gdb.GdbError("flame: the process is running; stop it first")

    prev_thread = gdb.selected_thread()
    prof = _flamekit.Profile(samples=True)
    settings = _Settings()
    sampler = None
    events = {"sig": None, "exited": False}

    def on_stop(ev):
        events["sig"] = getattr(ev, "stop_signal", "") or "other"
        events["t"] = _flamekit.now()

    def on_exit(ev):
        events["exited"] = True

    stops = []
    ended_by = 0
    nsamples = 0
    error = None
    internal = False
    _msg(o, "flame: sampling process %d at %g Hz%s%s" % (
        pid, o.hz, " for %g s" % o.duration if o.duration else "",
        "" if o.duration and not sys.stdin.isatty() else " (Ctrl-C to stop)"))
    t_start = _flamekit.now()
    try:
        settings.set("pagination", "off")
        settings.set("confirm", "off")
        settings.set("print thread-events", "off")
        settings.set("suppress-cli-notifications", "on")
        settings.set("scheduler-locking", "off")
        # --precise and the gdb fallback: whole stacks, like the fast path
        settings.set("backtrace past-main", "on")
        settings.set("backtrace past-entry", "on")
        settings.handle_sigstop()
        settings.internal_errors_abort_command()
        gdb.events.stop.connect(on_stop)
        gdb.events.exited.connect(on_exit)
        try:
            sampler = _flamekit.Sampler(pid, o.max_depth, interp="python" if o.python else None,
                                        lines=o.python_lines)
        except ValueError as e:
            # an interpreter absent or of a version we do not know: refused
            # before any sampling (the process is let go as always, below)
            raise gdb.GdbError("flame: %s" % e)
        sampler.start_timer(o.hz)
        sup = os.environ.get("FLAMEKIT_GDB_SUPERVISOR", "")
        if sup.isdigit():
            # flamekit gdb forwards stop requests and decides aborts itself
            sampler.set_supervisor(int(sup))
        sampler.hook_sigint()
        deadline = t_start + o.duration if o.duration else None
        settings.quiet()
        target = pid
        while True:
            if sampler.interrupted():
                break
            said = _supervisor.says()
            if said:
                # flamekit gdb asked (its signal may have come while gdb was
                # still loading, and been lost), or is gone (end of file: its
                # death signal may have been lost the same way)
                break
            if deadline is not None and _flamekit.now() >= deadline:
                break
            sampler.arm(target)
            events["sig"] = None
            try:
                # not to_string: gdb 13 cannot report an internal error into a string
                # (it dies with "Recursive internal problem"); fd 1 is muted instead
                gdb.execute("continue")
            except gdb.error as e:
                sampler.disarm()
                if not inf.pid or events["exited"]:
                    break
                raise
            fired = sampler.disarm()
            t_back = _flamekit.now()
            if events["exited"] or not inf.pid or not inf.is_valid():
                break
            if events["sig"] == "SIGINT":
                # Ctrl-C at a terminal the process shares with gdb (`run`): it
                # went to the process, gdb stopped it; take it as ours to end
                break
            ours = events["sig"] == "SIGSTOP"
            t_stop = sampler.fired_at() if (ours and fired) else _flamekit.now()
            threads = [t for t in inf.threads() if t.is_valid()]
            tids = [t.ptid[1] for t in threads]
            t_listed = _flamekit.now()
            if tids:
                target = pid if pid in tids else tids[0]
            if o.precise:
                _sample_precise(prof, sampler, inf, threads, t_stop, o, pid)
            else:
                failed = sampler.sample(tids, t_stop)
                for tid in failed:
                    # neither the rule cache nor libdw could: gdb's own unwinder
                    _select_thread(inf, tid)
                    names, pcs = _walk_gdb(sampler, o.max_depth, True)
                    if pcs:
                        sampler.add_record(tid, t_stop, pcs)
            nsamples += 1
            stops.append(_flamekit.now() - t_stop)
            if _PROFILE_SELF is not None:
                _PROFILE_SELF.append((t_stop, events["t"], t_back, t_listed, _flamekit.now()))
    except KeyboardInterrupt as e:
        # Ctrl-C, or gdb's internal error turned into "Command aborted." (see
        # _Settings.internal_errors_abort_command)
        internal = str(e) == "Command aborted."
    except gdb.error as e:
        if not inf.pid or _process_exiting(pid, 0.5):
            events["exited"] = True  # e.g. "Couldn't get registers" as it exits
        else:
            error = e
    finally:
        t_end = _flamekit.now()
        if inf.pid and not events["exited"] and _process_exiting(pid):
            events["exited"] = True  # exiting: nothing to detach from or resume
        if sampler is not None:
            sampler.disarm()
            try:
                _take_our_stops(sampler, inf, pid, events, settings)
            except (gdb.error, KeyboardInterrupt):
                pass  # KeyboardInterrupt: another internal error of gdb's (see above)
            sampler.stop_timer()
            # signals stay hooked until the outputs are written: a second
            # Ctrl-C or the SIGTERM of a group kill must not cut them short
        try:
            gdb.events.stop.disconnect(on_stop)
            gdb.events.exited.disconnect(on_exit)
        except Exception:
            pass
        if inf.pid and not events["exited"]:
            # the SIGSTOP a thread stopped with must not be delivered when the
            # process next runs (user's continue or detach, once `pass` is back)
            # (each thread on its own: one that gdb refuses, e.g. after an internal
            # error of its own, must not leave the others' SIGSTOP to be delivered)
            for t in inf.threads():
                try:
                    if t.is_valid():
                        t.switch()
                        gdb.execute("queue-signal 0", to_string=True)
                except gdb.error:
                    pass
        names = {}
        if sampler is not None and inf.pid and not events["exited"]:
            # symbols of shared libraries go away with the process: look up now
            names = _symbolize(sampler.distinct(), sampler)
        settings.restore()
        if events["exited"] and inf.pid:
            try:
                # reap the remains; detaching from an exiting process trips gdb
                gdb.execute("kill", to_string=True)
            except gdb.error:
                pass
        elif attached_here and inf.pid:
            try:
                gdb.execute("detach", to_string=True)
            except gdb.error:
                pass
        elif inf.pid and prev_thread is not None and prev_thread.is_valid():
            prev_thread.switch()

    aborted = False
    try:
        _supervisor.says()
        aborted = (sampler is not None and sampler.aborted()) or _supervisor.aborted
        st = sampler.stats() if sampler is not None else None
        if sampler is not None and not aborted:
            if not names:
                names = _symbolize(sampler.distinct(), sampler)
            sampler.build(prof, names, threads=o.threads, addrs=o.addrs)
        if not aborted:
            _write_outputs(o, prof)
    except gdb.GdbError as e:
        write_error = e
    else:
        write_error = None
    finally:
        if sampler is not None:
            sampler.unhook_sigint()
            ended_by = sampler.interrupted()
            sampler.close()
    elapsed = t_end - t_start
    if stops:
        s = sorted(stops)
        med = s[len(s) // 2]
        p90 = s[min(len(s) - 1, int(len(s) * 0.9))]
        _msg(o, "flame: %d samples in %.2f s (%.1f/s), %d stacks; stopped per sample: "
                "median %.2f ms, p90 %.2f ms%s" % (
                    nsamples, elapsed, nsamples / elapsed if elapsed > 0 else 0.0,
                    prof.samples, med * 1e3, p90 * 1e3,
                    "" if o.precise or sampler is None else
                    " (fast %d, libdw %d, gdb %d)" % (st["fast"], st["libdw"], st["failed"])))
    else:
        _msg(o, "flame: no samples taken")
    if _PROFILE_SELF:
        parts = list(zip(*[(b - a, c - b, d - c, e - d) for a, b, c, d, e in _PROFILE_SELF]))
        for label, xs in zip(("fire->event", "event->back", "thread list", "unwind"), parts):
            xs = sorted(xs)
            _msg(o, "flame: timing %-12s median %.3f ms p90 %.3f ms" % (
                label, xs[len(xs) // 2] * 1e3, xs[int(len(xs) * 0.9)] * 1e3))
        del _PROFILE_SELF[:]
    if internal:
        _msg(o, "flame: gdb hit an internal error (above); sampling stopped, wrote the samples taken")
        guard.append("watch")
    if events["exited"]:
        _msg(o, "flame: the process exited during sampling; wrote the samples taken")
        if error is not None:
            # a gdb error raced with the exit (e.g. "Cannot find user-level
            # thread" as a killed process's threads vanish): the exit explains it
            _msg(o, "flame: (gdb, as the process went away: %s)" % error)
            error = None
    if aborted:
        # a second request to stop: the user wants out, not a graph
        error = None
        write_error = gdb.GdbError("flame: aborted (a second signal); nothing written")
    if error is not None:
        msg = "flame: %s (wrote the %d samples taken)" % (error, nsamples)
        if write_error is not None:
            msg += "; " + str(write_error)
        write_error = gdb.GdbError(msg)
    if ended_by in (signal.SIGTERM, signal.SIGHUP):
        # gdb was asked to go away (timeout, a supervisor, a closed terminal):
        # the samples are drawn and the process let go, so end as a normal run
        # ends (exit 0), or 1 after saying what failed
        if write_error is not None:
            gdb.write("%s\n" % write_error, gdb.STDERR)
        gdb.flush()
        gdb.execute("quit %d" % (1 if write_error is not None else 0))
    if write_error is not None:
        raise write_error


def _sample_precise(prof, sampler, inf, threads, t_stop, o, pid):
    for t in threads:
        if not t.is_valid():
            continue
        t.switch()
        names, _ = _walk_gdb(sampler, o.max_depth, addrs=o.addrs)
        tid = t.ptid[1]
        comm = sampler.thread_name(tid)
        names.reverse()
        if o.threads:
            names.insert(0, comm)
        prof.add(names, time=t_stop, pid=pid, tid=tid, comm=comm)


def _write_outputs(o, prof):
    errors = []
    for path, what in ((o.folded, "folded"), (o.samples, "samples"), (o.svg, "svg")):
        if not path:
            continue
        try:
            if what == "folded":
                if path == "-":
                    gdb.write(prof.folded())
                else:
                    prof.write_folded(path)
            elif what == "samples":
                prof.write_samples(path)
            else:
                if prof.stacks == 0:
                    errors.append("%s: no samples, no flame graph written" % path)
                    continue
                prof.write_svg(path, **o.svg_opts)
        except (OSError, ValueError, RuntimeError, NotImplementedError, TypeError) as e:
            errors.append("%s: %s" % (path, e))
            continue
        if path != "-":
            _msg(o, "flame: wrote %s" % path)
    if errors:
        raise gdb.GdbError("flame: " + "; ".join(errors))


FlameCommand()


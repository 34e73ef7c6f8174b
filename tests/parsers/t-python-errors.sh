#!/usr/bin/env bash
# Profile.parse() errors from python3.11 (docs/input-formats.md, "From Python"): input that
# cannot be used raises _flamekit.ParseError (a ValueError) naming the file and the line or
# byte, and adds nothing to the profile, blank or not; a missing file is OSError; input
# skipped in part warns ParseWarning (an error under warnings.simplefilter("error")) and
# keeps the good part.
. "$(dirname "$0")/../lib.sh"
MOD=$BUILD/gdb/_flamekit.abi3.so
[ -f "$MOD" ] || skip "Python module not built (python3-dev missing or SANITIZE build)"
PY=$(command -v python3.11 || true)
[ -n "$PY" ] || skip "no python3.11"
command -v gzip > /dev/null || skip "gzip not installed"
cd "$TMP"
for i in $(seq 1 3000); do printf 'main;f%d;g%d %d\n' $((i % 97)) $i $((i % 5 + 1)); done > big.folded
gzip -c big.folded > big.gz
head -c $(($(stat -c %s big.gz) / 2)) big.gz > trunc.gz
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[2]},{"id":2,"callFrame":{"functionName":"a","url":""},"children":[]}],"samples":[2,2,9],"timeDeltas":[0,5,5]}' > tick.cpuprofile
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""},\n"children":[2]},\n{"id":2 x}]}' > bad.cpuprofile
cat > t.py <<'PY'
import os, sys, warnings
sys.path.insert(0, os.environ["MODDIR"])
import _flamekit as fk

assert issubclass(fk.ParseError, ValueError) and issubclass(fk.ParseWarning, UserWarning)

def fails(path, exc, **kw):
    p = fk.Profile()
    p.add(["keep", "me"], 7)
    blank = fk.Profile()
    for prof in (p, blank):
        before = prof.folded()
        with warnings.catch_warnings():
            warnings.simplefilter("error")   # nothing may pass as a warning
            try:
                prof.parse(path, **kw)
            except exc as e:
                err = e
            else:
                raise AssertionError(f"{path}: no {exc.__name__}")
        assert prof.folded() == before, f"{path}: the profile changed: {prof.folded()[:200]!r}"
    return err

e = fails("trunc.gz", fk.ParseError)
assert e.path == "trunc.gz" and e.line is None, vars(e)
assert isinstance(e.offset, int) and e.offset == os.path.getsize("trunc.gz"), (e.offset, str(e))
assert "trunc.gz: gzip input is truncated at compressed byte" in str(e), str(e)
assert "\n" not in str(e), str(e)
print("trunc.gz:", e)

e = fails("bad.cpuprofile", fk.ParseError)
assert e.line == 3 and e.path == "bad.cpuprofile", (e.line, str(e))
print("bad.cpuprofile:", e)

e = fails("big.folded", fk.ParseError, format="pprof")
assert e.offset is not None and "pprof profile is corrupt at byte" in str(e), str(e)

e = fails("no-such-file", OSError)
assert not isinstance(e, ValueError) and e.filename == "no-such-file", e

# a tick naming a node the profile lacks: skipped, said as a ParseWarning, the rest kept
p = fk.Profile()
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    st = p.parse("tick.cpuprofile")
assert st["bad_lines"] == 1, st
assert len(w) == 1 and issubclass(w[0].category, fk.ParseWarning), [str(x.message) for x in w]
assert "tick.cpuprofile:1: tick 3 names node 9" in str(w[0].message), str(w[0].message)
assert p.folded() == "a 2\n", p.folded()
# as an error (the CLI's exit 3): raised, the good part is added all the same (as the CLI
# draws it)
q = fk.Profile()
with warnings.catch_warnings():
    warnings.simplefilter("error", fk.ParseWarning)
    try:
        q.parse("tick.cpuprofile")
    except fk.ParseWarning:
        pass
    else:
        raise AssertionError("no ParseWarning as an error")

# good input: no warning
with warnings.catch_warnings():
    warnings.simplefilter("error")
    st = fk.Profile().parse("big.gz")
assert st["bad_lines"] == 0 and st["samples"] > 0, st
print("python errors ok")
PY
MODDIR=$(dirname "$MOD") "$PY" t.py > out 2> err || { cat out err >&2; fail "python3.11 test"; }
[ ! -s err ] || { cat err >&2; fail "messages printed to stderr instead of raised or warned"; }
cat out

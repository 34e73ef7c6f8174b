#!/usr/bin/env bash
# The _flamekit module from plain /usr/bin/python3 (no gdb): building a profile,
# folded/samples output (byte-exact), merge, parse, errors, atomic files, SVG.
. "$(dirname "$0")/../lib.sh"
MOD=$BUILD/gdb/_flamekit.abi3.so
[ -f "$MOD" ] || skip "gdb plugin module not built (python3-dev missing or SANITIZE build)"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
cd "$TMP"
cat > t.py <<'PY'
import math, os, sys
sys.path.insert(0, os.environ["MODDIR"])
import _flamekit as fk

p = fk.Profile(samples=True)
p.add(["main", "a", "b"], time=1.5, pid=10, tid=11, comm="w1")
p.add(("main", "a", "c"), 2, time=2.25, pid=10, tid=12, comm="w2")
p.add(iter([b"main", "a", "b"]), count=3)
p.add_folded("main;x;y", 0.5)
assert p.total == 6.5, p.total
assert p.stacks == 3, p.stacks
assert p.samples == 3, p.samples
print(p.folded(), end="")
print(p.samples_text(), end="")

q = fk.Profile()
q.add(["main", "a", "b"], 10)
q.add(["other"], 1)
q.merge(p)
print("merged", q.total, q.stacks)
print(q.folded(), end="")

# names are bytes-safe, but the folded format's separators cannot be inside one:
# ';' becomes ':' (as stackcollapse-perf.pl tidies it), a line break a space
r = fk.Profile()
r.add(["semi;colon", "tab\tname", "ünï", "two\nlines"], 1)
print(r.folded(), end="")
# a bad option names itself in the ValueError
for kw in ({"width": 5}, {"minwidth": "-1"}, {"sort": "size"}):
    try:
        p.svg(**kw)
    except NotImplementedError:
        print("error", list(kw)[0] + "=")
    except ValueError as e:
        print("error", str(e).split(":")[0])

# errors
for bad in (lambda: p.add("main;a"), lambda: p.add([1, 2]), lambda: p.add(["a"], column=2),
            lambda: fk.Profile().merge("x"), lambda: p.write_svg("x.svg", nosuch=1)):
    try:
        bad()
    except (TypeError, ValueError, NotImplementedError) as e:
        print("error", type(e).__name__)
    else:
        raise SystemExit("no error")

# files are written atomically; a failed write leaves nothing behind
p.write_folded("out.folded")
p.write_samples("out.samples")
try:
    p.write_folded("no/such/dir/x.folded")
except OSError as e:
    print("oserror", e.errno)
assert not [f for f in os.listdir(".") if ".tmp." in f], os.listdir(".")

# the gdb flame command's options: --addrs from the one table, outputs checked first
a = fk.parse_flame_args(["--addrs", "-d", "1"])
assert a["addrs"] is True and fk.parse_flame_args([])["addrs"] is False
try:
    fk.parse_flame_args(["-o", "no/such/dir/x.svg"])
    raise AssertionError("an unwritable output was accepted")
except ValueError as e:
    assert "cannot write no/such/dir/x.svg" in str(e), e
assert not [f for f in os.listdir(".") if ".tmp." in f], os.listdir(".")

# reading back through the core's parsers
z = fk.Profile()
st = z.parse("out.folded")
print("parsed", st["format"], st["samples"], z.total)
assert z.folded() == p.folded()

# SVG when the renderer is linked in
try:
    svg = p.svg(title="t <&>", width=800, minwidth="0.5%", colors="blue")
except NotImplementedError:
    print("svg: no renderer")
else:
    assert svg.startswith("<?xml") or "<svg" in svg[:500], svg[:200]
    assert "t &lt;&amp;&gt;" in svg
    assert svg == p.svg(title="t <&>", width=800, minwidth="0.5%", colors="blue")
    p.write_svg("out.svg", title="t")
    assert open("out.svg").read().startswith("<?xml")
    # a .html name writes the HTML viewer page (the library's one rule)
    p.write_svg("out.html", title="t <&>")
    page = open("out.html").read()
    assert page.startswith("<!DOCTYPE html>") and 'id="fkdata"' in page, page[:200]
    assert "<title>t &lt;&amp;&gt;</title>" in page
    # a .pb.gz name writes pprof, a .speedscope.json name speedscope (the same rule)
    p.write_svg("out.pb.gz")
    assert open("out.pb.gz", "rb").read(2) == b"\x1f\x8b"
    p.write_svg("out.speedscope.json")
    assert '"$schema":"https://www.speedscope.app/file-format-schema.json"' in open("out.speedscope.json").read()
    print("svg ok")
PY
MODDIR=$BUILD/gdb /usr/bin/python3 t.py > out.txt 2> err.txt || { cat out.txt err.txt; fail "python script failed"; }
cat out.txt
if [ -f out.html ] && command -v node > /dev/null; then
	# the page holds the profile's stacks (its own decoder, in node)
	node "$FK_TOP/tests/html/decode.js" out.html > page.folded || fail "decode out.html"
	grep -q '^main;x;y 0.5$' page.folded || fail "out.html lacks main;x;y 0.5: $(cat page.folded)"
fi
if [ -f out.pb.gz ]; then
	# pprof holds the stacks (its values are whole numbers: 0.5 rounds to 0 and is left out)
	"$FLAMEKIT" collapse out.pb.gz > pb.folded 2> /dev/null || fail "read out.pb.gz"
	assert_eq "out.pb.gz" "$(printf 'main;a;b 4\nmain;a;c 2')" "$(cat pb.folded)"
fi
grep -v '^svg' out.txt > got.txt
cat > want.txt <<'W'
main;a;b 4
main;a;c 2
main;x;y 0.5
# flamekit samples v1
# time	pid	tid	cpu	comm	weight	stack
1.500000000	10	11	-1	w1	1	main;a;b
2.250000000	10	12	-1	w2	2	main;a;c
-	-1	-1	-1		3	main;a;b
merged 17.5 4
main;a;b 14
main;a;c 2
main;x;y 0.5
other 1
semi:colon;tab	name;ünï;two lines 1
error width=5
error minwidth=-1
error sort=size
error TypeError
error TypeError
error ValueError
error TypeError
W
# the SVG keyword error is TypeError with a renderer, NotImplementedError without
if grep -q '^svg: no renderer' out.txt; then echo "error NotImplementedError" >> want.txt; else echo "error TypeError" >> want.txt; fi
cat >> want.txt <<'W'
oserror 2
parsed folded 3 6.5
W
assert_files_eq want.txt got.txt
# the written files agree with the CLI's reading of them (add_folded() keeps no
# per-sample record, so main;x;y is only in the folded output)
"$FLAMEKIT" collapse out.samples > cli.folded || fail "flamekit collapse of the samples file failed"
grep -v '^main;x;y ' out.folded > want.folded
assert_files_eq want.folded cli.folded
echo PASS

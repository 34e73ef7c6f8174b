#!/usr/bin/env bash
# flamekit diff's regression gate: each function's share of its profile's total, before
# against after (medians over several runs a side), exit 1 past the limit; reports.
. "$(dirname "$0")/../lib.sh"
cd "$TMP"
# mk SEED OUT [GROW_FN FACTOR] [DROP_FN]: 40 functions in 200 stacks of depth 1-6 under
# main, weights from the seed, every stack's count jittered by up to +-1% (the seed's
# noise); GROW_FN's self samples scaled by FACTOR, DROP_FN's stacks left out
mk() {
	python3 - "$@" <<'PY'
import random, sys
seed, out = int(sys.argv[1]), sys.argv[2]
grow = sys.argv[3] if len(sys.argv) > 3 else None
factor = float(sys.argv[4]) if len(sys.argv) > 4 else 1.0
drop = sys.argv[5] if len(sys.argv) > 5 else None
shape = random.Random(7)               # the same program every run
noise = random.Random(seed)            # a different run
fns = ["fn%02d" % i for i in range(40)]
rows = {}
for _ in range(200):
    st = ["main"] + [shape.choice(fns) for _ in range(shape.randint(1, 6))]
    rows[";".join(st)] = rows.get(";".join(st), 0) + shape.randint(50, 500)
with open(out, "w") as f:
    for st, c in sorted(rows.items()):
        leaf = st.rsplit(";", 1)[1]
        if drop and drop in st.split(";"):
            continue
        c = c * (1 + noise.uniform(-0.01, 0.01))
        if leaf == grow:
            c *= factor
        f.write("%s %d\n" % (st, round(c)))
PY
}
# the function with the most self samples, and its share, from the folded text
top_self() { awk '{ n = split($1, f, ";"); s[f[n]] += $2; t += $2 } END {
	for (k in s) if (k != "main" && s[k] > b) { b = s[k]; w = k } print w }' "$1"; }

mk 1 a.folded
mk 2 b-jitter.folded
# 1% jitter everywhere: nothing grows 10%
"$FLAMEKIT" diff --fail-above 10% a.folded b-jitter.folded > j.out 2> j.err
rc=$?
cat j.err
[ $rc -eq 0 ] || fail "jitter only: exit $rc"
assert_contains j.err "0 of"
# the stacks still come out, two columns, as without the gate
"$FLAMEKIT" diff a.folded b-jitter.folded > plain.out || fail "plain diff"
assert_files_eq plain.out j.out

# one function's self samples grow 30%: exit 1, that function (and only it) named
hot=$(top_self a.folded)
mk 3 b-hot.folded "$hot" 1.3
"$FLAMEKIT" diff --self --fail-above 10% a.folded b-hot.folded > /dev/null 2> h.err
rc=$?
cat h.err
assert_eq "exit with a 30% self growth" 1 "$rc"
over=$(grep -c '^  over ' h.err)
assert_eq "functions over the limit (self)" 1 "$over"
grep -q "^  over     $hot " h.err || fail "the grown function $hot is not the one named"
# the share in the report is the one computed from the folded text
"$FLAMEKIT" diff --self --fail-above 10% --report json a.folded b-hot.folded > h.json
python3 - h.json a.folded b-hot.folded "$hot" <<'PY' || fail "json report"
import json, sys
rep = json.load(open(sys.argv[1]))
def shares(path):
    s, t = {}, 0
    for line in open(path):
        st, c = line.rsplit(" ", 1)
        s[st.split(";")[-1]] = s.get(st.split(";")[-1], 0) + int(c)
        t += int(c)
    return {k: v / t for k, v in s.items()}
a, b, hot = shares(sys.argv[2]), shares(sys.argv[3]), sys.argv[4]
over = [r for r in rep["functions"] if r["over"]]
assert rep["failed"] is True and rep["shares"] == "self", rep
assert [r["name"] for r in over] == [hot], over
for r in rep["functions"]:
    assert abs(r["before"] - a.get(r["name"], 0)) < 1e-12, r
    assert abs(r["after"] - b.get(r["name"], 0)) < 1e-12, r
    assert max(r["before"], r["after"]) >= 0.01, r
# every function at 1% or more on a side is in the table
for name in set(a) | set(b):
    if max(a.get(name, 0), b.get(name, 0)) >= 0.01:
        assert any(r["name"] == name for r in rep["functions"]), name
PY
# inclusive shares (the default) count a stack once per function, recursion or not
"$FLAMEKIT" diff --fail-above 100% --report json a.folded a.folded > self.json || fail "A vs A"
python3 - self.json a.folded <<'PY' || fail "inclusive shares"
import json, sys
rep = json.load(open(sys.argv[1]))
inc, t = {}, 0
for line in open(sys.argv[2]):
    st, c = line.rsplit(" ", 1)
    t += int(c)
    for f in set(st.split(";")):
        inc[f] = inc.get(f, 0) + int(c)
for r in rep["functions"]:
    assert abs(r["before"] - inc[r["name"]] / t) < 1e-12 and r["before"] == r["after"], r
    assert r["over"] is False and r["change"] == "same", r
assert rep["failed"] is False
PY

# percent versus points: a 30% growth of a 2-5% function is under 2 points
share=$(awk -v h="$hot" '{ n = split($1, f, ";"); if (f[n] == h) s += $2; t += $2 } END { printf "%.4f", 100 * s / t }' a.folded)
"$FLAMEKIT" diff --self --fail-above 1pt a.folded b-hot.folded > /dev/null 2> p1.err
rc1=$?
"$FLAMEKIT" diff --self --fail-above 50pt a.folded b-hot.folded > /dev/null 2> p2.err
rc2=$?
echo "$hot: $share% self before"
assert_eq "a 30% growth of $share% past 1pt" $(awk -v s="$share" 'BEGIN { print (0.3 * s > 1) ? 1 : 0 }') "$rc1"
assert_eq "a 30% growth of $share% past 50pt" 0 "$rc2"

# a function that vanished: reported as removed, never a failure
gone=fn07
mk 4 b-gone.folded "" 1 "$gone"
"$FLAMEKIT" diff --fail-above 10% --report md a.folded b-gone.folded > g.md
rc=$?
cat g.md
grep -q "^| $gone | .* | 0.00% | .* | removed |$" g.md || fail "$gone not reported removed"
grep "| \*\*over\*\* |" g.md | grep -q "^| $gone " && fail "a removed function failed the gate"
# (functions that shared stacks with it shrank or grew; the exit follows them, not it)
[ $rc -eq 0 ] || [ $rc -eq 1 ] || fail "removed: exit $rc"

# several runs a side, one outlier run: the median ignores it
mk 11 a1.folded; mk 12 a2.folded; mk 13 a3.folded
mk 21 b1.folded; mk 22 b2.folded; mk 23 b3.folded "$hot" 3
"$FLAMEKIT" diff --self --fail-above 10% -a a1.folded -a a2.folded -a a3.folded \
	-b 'b[123].folded' > runs.out 2> runs.err
rc=$?
cat runs.err
assert_eq "outlier run of three" 0 "$rc"
assert_contains runs.err "medians of 3 and 3 runs"
# the stacks of several runs are their sums
cat a1.folded a2.folded a3.folded > asum.folded
cat b1.folded b2.folded b3.folded > bsum.folded
"$FLAMEKIT" diff asum.folded bsum.folded > sum.out
assert_files_eq sum.out runs.out
# two outlier runs of three move the median
mk 22 b2.folded "$hot" 3
"$FLAMEKIT" diff --self --fail-above 10% -a 'a?.folded' -b 'b?.folded' > /dev/null 2>&1
assert_eq "two grown runs of three" 1 $?

# any input on either side: perf text (zstd) against its own folded stacks (gzip)
"$FLAMEKIT" collapse "$DATA/demo/demo.perf-script.zst" | gzip > demo.folded.gz
"$FLAMEKIT" diff --fail-above 0% --min-share 0 --report json "$DATA/demo/demo.perf-script.zst" \
	demo.folded.gz > demo.json || fail "perf text vs folded.gz"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert not r["failed"] and len(r["functions"]) > 50 and all(f["before"] == f["after"] for f in r["functions"]), r["over"]' demo.json ||
	fail "the same profile in two formats differs"
# pprof (nanoseconds) against perf text counted in samples: refused, both named
"$FLAMEKIT" diff --fail-above 10% "$FK_TOP/tests/export/data/go-cpu.pprof" \
	--samples "$DATA/demo/demo.perf-script.zst" > /dev/null 2> units.err
rc=$?
cat units.err
assert_eq "mixed units" 1 "$rc"
assert_contains units.err "go-cpu.pprof counts"
assert_contains units.err "demo.perf-script.zst counts samples"

# names are untrusted: Markdown and JSON keep them inert
printf 'main;a|b<script>*x*_[l](u) 100\nmain;`c` 100\n' > evil-a.folded
printf 'main;a|b<script>*x*_[l](u) 300\nmain;`c` 100\n' > evil-b.folded
"$FLAMEKIT" diff --fail-above 10% --report md evil-a.folded evil-b.folded > evil.md
assert_contains evil.md '| a\|b&lt;script&gt;\*x\*\_\[l\]\(u\) | 50.00% | 75.00% | +50.0% | **over** |'
assert_contains evil.md '| \`c\` |'
"$FLAMEKIT" diff --fail-above 10% --report json evil-a.folded evil-b.folded > evil.json
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["functions"][0]["name"] == "a|b<script>*x*_[l](u)", r' evil.json ||
	fail "json name"
assert_not_contains evil.json '<script>'

# --report-file keeps both: the table in the file, the stacks on stdout
"$FLAMEKIT" diff --fail-above 10% --report-file rep.json a.folded b-hot.folded > both.out 2> both.err
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' rep.json || fail "report file is not JSON"
"$FLAMEKIT" diff a.folded b-hot.folded | cmp -s - both.out || fail "stacks beside --report-file differ"
# deterministic
"$FLAMEKIT" diff --fail-above 10% --report-file rep2.json a.folded b-hot.folded > /dev/null 2>&1
cmp -s rep.json rep2.json || fail "report not byte-identical over two runs"

# usage errors are 2, found before reading; an unwritable report is 1, nothing read
run_rc 2 "$FLAMEKIT" diff --fail-above lots a.folded b-hot.folded 2> /dev/null
run_rc 2 "$FLAMEKIT" diff --min-share 200 a.folded b-hot.folded 2> /dev/null
run_rc 2 "$FLAMEKIT" diff -a a.folded 2> /dev/null
run_rc 2 "$FLAMEKIT" diff -a a.folded -b b-hot.folded c.folded 2> /dev/null
run_rc 2 "$FLAMEKIT" diff --report xml a.folded b-hot.folded 2> /dev/null
mkfifo never
"$FLAMEKIT" diff --fail-above 10% --report-file /nonexistent/dir/r.md never b-hot.folded \
	> /dev/null 2> nodir.err &
pid=$!
for _ in $(seq 100); do kill -0 $pid 2> /dev/null || break; sleep 0.1; done
if kill -0 $pid 2> /dev/null; then kill $pid; fail "waited on its input before finding the report unwritable"; fi
wait $pid
assert_eq "unwritable report" 1 $?
assert_contains nodir.err "/nonexistent/dir/r.md"
echo ok

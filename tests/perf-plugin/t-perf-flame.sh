#!/usr/bin/env bash
# `perf flame` as perf runs it: found on PATH, record/report/both, help, symbols.
. "$(dirname "$0")/lib-perf.sh"
build_wl work
cd "$TMP"
export PATH=$BUILD:$PATH
# only the dlfilter entry points are exported
exp=$(nm -D --defined-only "$DLF" | awk '$2 ~ /[TDBRVW]/ { print $3 }' | sort | tr '\n' ' ')
assert_eq "exported symbols" "filter_description filter_event perf_dlfilter_fns start stop " "$exp"
# perf dispatches `perf flame` to perf-flame on PATH
perf flame -h > h.out 2>&1 || fail "perf flame -h"
assert_contains h.out "perf flame record"
# record with defaults (-F 99 -g), then report. work runs ~0.5 ms a round: at 99 Hz its
# c path (a quarter) needs thousands of rounds to be sure of samples (300 gave ~4: 2% none)
perf flame record -q -o r.data -- ./work 1500 > rec.out 2>&1 || { cat rec.out; fail "perf flame record"; }
perf evlist -v -i r.data > ev.out
grep -q "sample_freq.*: 99" ev.out || grep -q "{ sample_period, sample_freq }: 99" ev.out || fail "not -F 99: $(head -1 ev.out)"
assert_contains ev.out "CALLCHAIN"
perf flame report -i r.data -o r.svg --folded r.folded --title "Known work" 2> rep.err || { cat rep.err; fail "report"; }
assert_contains rep.err "folding inside perf script"
grep -q "<svg" r.svg || fail "no svg"
assert_contains r.svg "Known work"
grep -q ';main;a;b;spin ' r.folded || fail "main;a;b;spin missing"
# -o FILE.html: the HTML viewer page with the same stacks
perf flame report -q -i r.data -o r.html --folded rh.folded 2> /dev/null || fail "report -o r.html"
grep -q 'id="fkdata"' r.html || fail "-o r.html did not write the HTML page"
assert_page_holds r.html rh.folded
# -o FILE.pb.gz: pprof (the library's output-name rule, through the dlfilter's part file),
# -o FILE.speedscope.json: speedscope; the same stacks as the folded output of the run
perf flame report -q -i r.data -o r.pb.gz --folded rp.folded 2> rp.err || { cat rp.err; fail "report -o r.pb.gz"; }
[ "$(head -c 2 r.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "-o r.pb.gz is not gzip"
"$FLAMEKIT" collapse r.pb.gz > rp.back || fail "read r.pb.gz back"
assert_files_eq rp.folded rp.back
perf flame report -q -i r.data -o r.speedscope.json 2> /dev/null || fail "report -o r.speedscope.json"
grep -q '"\$schema":"https://www.speedscope.app/file-format-schema.json"' r.speedscope.json || fail "-o r.speedscope.json is not speedscope"
# default output name is flame.svg
perf flame report -q -i r.data 2> /dev/null || fail "report with defaults"
[ -s flame.svg ] || fail "flame.svg not written"
# both in one go
perf flame -i both.data -o both.svg --folded both.folded -- ./work 3000 > both.out 2>&1 || { cat both.out; fail "perf flame -- cmd"; }
grep -q ';main;c;spin ' both.folded || fail "perf flame -- cmd: main;c;spin missing"
[ -s both.svg ] || fail "perf flame -- cmd: no SVG"
# stdout a pipe (| tee log): the recording goes to a file, not into the pipe
mkdir piped && (cd piped && perf flame -q -o p.svg -- ../work 200 2> p.err | cat > p.out) ||
	{ cat piped/p.err; fail "perf flame with stdout piped"; }
[ -s piped/perf.data ] && grep -q "<svg" piped/p.svg || fail "piped: no perf.data or SVG: $(cat piped/p.err)"
grep -q PERFILE piped/p.out && fail "perf.data was written into the pipe"
(cd piped && perf flame record -q -- ../work 100 | cat > r.out) || fail "perf flame record piped"
grep -q PERFILE piped/r.out && fail "perf flame record wrote perf.data into the pipe"
run_rc 2 perf flame --title x 2> nocmd.err
assert_contains nocmd.err "no command"
# perf flame --help is perf help flame: the man page
mkdir -p man/man1 && cp "$FK_TOP/docs/perf-flame.1" man/man1/
MANPATH=$TMP/man MANPAGER=cat PAGER=cat perf flame --help > man.out 2>&1 || true
grep -q "perf-flame" man.out && grep -qi "off-cpu" man.out || fail "perf flame --help did not show the man page: $(head -3 man.out)"
echo ok

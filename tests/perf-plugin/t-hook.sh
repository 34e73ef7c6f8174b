#!/usr/bin/env bash
# The perf script Python hook: `make install` puts it where perf finds report
# scripts (perf script -l lists it, perf script report flamekit runs it) and
# `make uninstall` removes it; on the real perf it folds what the dlfilter folds
# (frame pointers), draws every output by name, reads --call-graph dwarf
# recordings through perf's own unwinding, any event; options and output paths are
# checked before any sample is read.
. "$(dirname "$0")/lib-perf.sh"
[ "${SANITIZE:-0}" = 1 ] && skip "the Python module is not built under SANITIZE"
[ -f "$BUILD/gdb/_flamekit.abi3.so" ] || skip "no Python module in this build (python3-dev missing)"
perf version --build-options 2> /dev/null | grep -q "libpython: .*on" || skip "perf built without Python scripting"
build_wl work
cd "$TMP"
# main_eq A B: the program's stacks of two folded files are the same (its loader's
# start-up frames may differ: perf resolves return addresses as they are, the
# dlfilter at addr-1, which lands in _dl_start_user or _start)
main_eq() { grep ';main;' "$1" > "$1.main"; grep ';main;' "$2" > "$2.main"; assert_files_eq "$1.main" "$2.main"; }
inst=$TMP/inst
pcore=$TMP/perf-core   # stands for $(perf --exec-path): the real one is not touched
make -s -C "$FK_TOP" install PREFIX="$inst" PERF_EXEC_PATH="$pcore" BUILD="$BUILD" > inst.log 2>&1 ||
	{ cat inst.log; fail "make install"; }
HOOK=$inst/share/flamekit/perf/flamekit.py
[ -f "$HOOK" ] && [ -x "$pcore/scripts/python/bin/flamekit-report" ] && [ -x "$pcore/scripts/python/bin/flamekit-record" ] ||
	fail "hook or its wrappers not installed: $(find "$inst" "$pcore" -type f | head)"
grep -qx "$pcore/scripts/python/bin/flamekit-report" "$inst/share/flamekit/install-manifest" || fail "wrapper not in the manifest"
export PERF_EXEC_PATH=$pcore
perf script -l > list.out 2>&1
grep -q '^ *flamekit  *flame graphs by flamekit' list.out || fail "perf script -l does not list it: $(cat list.out)"

# frame pointers: the hook folds exactly what the dlfilter folds
perf record -q -F 999 -g -o fp.data ./work 300 > /dev/null 2>&1 || fail "perf record"
perf script -i fp.data --dlfilter "$DLF" --dlarg folded=dlf.folded 2> /dev/null || fail "dlfilter"
perf script report flamekit -i fp.data -- --folded hook.folded -o "h 1.svg" > rep.out 2>&1 ||
	{ cat rep.out; fail "perf script report flamekit"; }
grep -q '<svg' "h 1.svg" || fail "no SVG"
grep -q ';main;a;b;spin ' hook.folded || fail "main;a;b;spin missing"
main_eq dlf.folded hook.folded
# perf script -s PATH, every output by name
for out in h.html h.pb.gz h.speedscope.json h.folded; do
	perf script -i fp.data -s "$HOOK" -- -o $out > s.out 2>&1 || { cat s.out; fail "-s $HOOK -- -o $out"; }
done
grep -q 'id="fkdata"' h.html || fail "-o h.html: not the viewer page"
"$FLAMEKIT" collapse h.pb.gz > pb.back || fail "h.pb.gz does not read back"
assert_files_eq hook.folded pb.back
grep -q 'speedscope.app/file-format-schema.json' h.speedscope.json || fail "-o h.speedscope.json: not speedscope"
assert_files_eq hook.folded h.folded
# the schema's options reach it; bad ones are refused before a sample is read
perf script -i fp.data -s "$HOOK" -- -o t.svg --title "Hooked title" --width 900 2> /dev/null || fail "--title --width"
assert_contains t.svg "Hooked title"
run_rc 2 perf script -i fp.data -s "$HOOK" -- -o bad.svg --width 5 2> bad.err
assert_contains bad.err "width"
run_rc 2 perf script -i fp.data -s "$HOOK" -- --nosuch 2> bad2.err
assert_contains bad2.err "unknown option '--nosuch'"
run_rc 1 perf script -i fp.data -s "$HOOK" -- -o /nonexistent/x.svg 2> bad3.err
assert_contains bad3.err "cannot write /nonexistent/x.svg"
[ -e bad.svg ] && fail "an output for a bad option"

# --call-graph dwarf: perf's own unwinding (the dlfilter cannot see these user frames);
# the same stacks as perf flame's perf script text path
perf record -q -F 999 --call-graph dwarf -o dw.data ./work 300 > /dev/null 2>&1 || fail "perf record dwarf"
perf script report flamekit -i dw.data -- --folded dw.folded > /dev/null 2>&1 || fail "hook on a dwarf recording"
grep -q ';main;a;b;spin ' dw.folded || fail "dwarf: main;a;b;spin missing: $(head -3 dw.folded)"
"$PERF_FLAME" report -q -i dw.data --folded text.folded 2> /dev/null || fail "perf flame report (dwarf)"
main_eq text.folded dw.folded

# any event: software page faults, with their callchains
perf record -q -e page-faults -c 1 -g -o pf.data ./work 50 > /dev/null 2>&1 || fail "perf record page-faults"
perf script -i pf.data --dlfilter "$DLF" --dlarg folded=pf.dlf 2> /dev/null || fail "dlfilter page-faults"
perf script report flamekit -i pf.data -- --folded pf.hook > /dev/null 2>&1 || fail "hook page-faults"
grep -q ';main;' pf.hook || fail "no page-fault stacks in main"
main_eq pf.dlf pf.hook

make -s -C "$FK_TOP" uninstall PREFIX="$inst" PERF_EXEC_PATH="$pcore" BUILD="$BUILD" > un.log 2>&1 ||
	{ cat un.log; fail "make uninstall"; }
left=$(find "$inst" "$pcore" -type f 2> /dev/null | head)
[ -z "$left" ] || fail "uninstall left: $left"
echo ok

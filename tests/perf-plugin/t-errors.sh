#!/usr/bin/env bash
# Bad dlargs, bad paths, missing or broken perf.data: clear errors, non-zero exits.
. "$(dirname "$0")/lib-perf.sh"
build_wl work
cd "$TMP"
perf record -q -F 999 -g -o w.data ./work 50 > /dev/null 2>&1 || fail "perf record failed"
# bad --dlarg: start() fails, perf script exits non-zero before reading samples
check_arg() {
	local want=$1; shift
	local args=()
	for a in "$@"; do args+=(--dlarg "$a"); done
	perf script -i w.data --dlfilter "$DLF" "${args[@]}" > out 2> err && fail "accepted: $*"
	assert_contains err "$want"
	[ -s out ] && fail "output on stdout despite error: $*"
	return 0
}
check_arg "unknown option 'bogus'" bogus
# messages name the key as it was written (width=, not --width)
check_arg "width=abc: expected a whole number from 21 to 1000000" width=abc
check_arg "width=5: expected a whole number from 21 to 1000000" width=5
check_arg "option title needs a value: title=VALUE" title
check_arg "pid=3: takes no value" pid=3
check_arg "count=maybe: expected one of period samples" count=maybe
# every renderer option is checked in start(), before perf reads a sample,
# even when the SVG is not among the outputs
check_arg "unknown palette 'javaa'" colors=javaa
check_arg "minwidth=-1: expected pixels" minwidth=-1
check_arg "malformed option" =x
check_arg "exclude each other" kernel-only user-only
check_arg "cannot write /nonexistent/x.svg" svg=/nonexistent/x.svg
# help lists the options (and is not a success: no output was asked for)
check_arg "svg=PATH" help
# perf flame: the same through its own options
run_rc 2 "$PERF_FLAME" report -i w.data --width abc 2> e1
assert_contains e1 "perf flame: --width: expected a whole number from 21 to 1000000, got 'abc'"
# perf flame checks every option before it records: nothing recorded, at once
run_rc 2 "$PERF_FLAME" --colors javaa -i never.data -o never.svg -- ./work 50 2> e1b
assert_contains e1b "unknown palette 'javaa'"
[ -e never.data ] && fail "perf flame recorded despite a bad option"
run_rc 2 "$PERF_FLAME" report -i w.data --nosuch 2> e2
assert_contains e2 "--nosuch"
run_rc 2 "$PERF_FLAME" report -i w.data --title 2> e3
assert_contains e3 "needs a value"
# missing, unreadable, garbage and truncated perf.data
run_rc 1 "$PERF_FLAME" report -i missing.data -o m.svg 2> e4
assert_contains e4 "cannot read missing.data"
[ -e m.svg ] && fail "output written for a missing input"
mkdir d.data
run_rc 1 "$PERF_FLAME" report -i d.data 2> e5
assert_contains e5 "directory"
echo "this is not perf data" > junk.data
run_rc 1 "$PERF_FLAME" report -i junk.data 2> e6
assert_contains e6 "not a perf.data file"
head -c 600 w.data > trunc.data
run_rc 1 "$PERF_FLAME" report -i trunc.data -o t.svg 2> e7
cat e7
grep -q "trunc.data" e7 || fail "truncated file not named in the error"
[ -e t.svg ] && fail "output written for a truncated input"
if [ "$(id -u)" != 0 ]; then
	cp w.data noperm.data && chmod 000 noperm.data
	run_rc 1 "$PERF_FLAME" report -i noperm.data 2> e8
	assert_contains e8 "Permission denied"
fi
# write error at the end (full disk): perf must not exit 0
run_rc 1 perf script -i w.data --dlfilter "$DLF" --dlarg folded=/dev/full > /dev/null 2> e9
assert_contains e9 "/dev/full"
ls *.tmp.* 2> /dev/null && fail "temporary files left behind"
echo ok

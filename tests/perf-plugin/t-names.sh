#!/usr/bin/env bash
# The name rules reach perf: --cxx-names and --rust-names are accepted by the
# dlfilter (--dlarg), perf flame report and perf flame -- CMD, and act the same
# on both report paths (dlfilter and perf script text).
. "$(dirname "$0")/lib-perf.sh"
cd "$TMP"
export PATH=$BUILD:$PATH
command -v g++ > /dev/null || fail "g++ is needed to build fn.cc"
g++ $WL_CFLAGS -o fn "$HERE/fn.cc" || fail "cannot build fn.cc"
perf record -q -F 999 -g -o f.data ./fn 300 > /dev/null 2>&1 || fail "perf record"
# reach: each front end takes both rows
for opt in cxx-names rust-names; do
	perf script -i f.data --dlfilter "$DLF" --dlarg $opt --dlarg folded=d.$opt 2> err ||
		fail "--dlarg $opt: $(cat err)"
	perf flame report -q -i f.data --$opt --folded r.$opt 2> err || fail "perf flame report --$opt: $(cat err)"
	assert_files_eq d.$opt r.$opt
	perf flame -q --$opt -i b.data --folded b.$opt -- ./fn 100 > /dev/null 2> err ||
		fail "perf flame --$opt -- CMD: $(cat err)"
	grep -q ';main;' b.$opt || fail "perf flame --$opt -- CMD: main missing"
done
# --cxx-names: the lambda's std::function<int (int, int)> stays whole, on both paths
perf flame report -q -i f.data --folded plain 2> /dev/null || fail "report"
grep -qF ';main;std::function<int ;' plain || fail "default: perf's cut at '(' expected: $(head -2 plain)"
want=';main;std::function<int (int, int)>::operator();std::_Function_handler<int (int, int), main::{lambda(int, int)#1}>::_M_invoke;'
grep -qF "$want" d.cxx-names || { head -3 d.cxx-names; fail "--cxx-names (dlfilter): std::function frames not whole"; }
perf flame report -q --text -i f.data --cxx-names --folded text.cxx 2> /dev/null || fail "report --text --cxx-names"
# (the program's stacks: the loader's start-up frames may differ between paths at addr-1)
grep ';main;' d.cxx-names > dm
grep ';main;' text.cxx > tm
assert_files_eq dm tm
echo ok

#!/usr/bin/env bash
# --cxx-names with real perf: a C++ program calling through std::function<int (int, int)>;
# perf script names the frame "std::function<int (int, int)>::operator()", which
# stackcollapse-perf.pl's cut (flamekit's default) turns into "std::function<int ".
. "$(dirname "$0")/../lib.sh"
command -v perf > /dev/null || skip "perf not installed"
command -v g++ > /dev/null || skip "g++ not installed"
g++ -O0 -g -fno-omit-frame-pointer -o "$TMP/fn" "$FK_TOP/tests/parsers/data/names/fn.cc" || fail "cannot compile fn.cc"
perf record -q -F 499 -g -o "$TMP/perf.data" "$TMP/fn" > "$TMP/rec.log" 2>&1 ||
	skip "perf record does not work here: $(tail -1 "$TMP/rec.log")"
perf script -i "$TMP/perf.data" > "$TMP/script.txt" 2> /dev/null || fail "perf script failed"
grep -qF 'std::function<int (int, int)>::operator()' "$TMP/script.txt" ||
	skip "no sample inside std::function::operator() (machine too busy?)"
"$FLAMEKIT" collapse --cxx-names "$TMP/script.txt" > "$TMP/cxx" || fail "collapse --cxx-names: exit $?"
grep -qF ';main;std::function<int (int, int)>::operator();' "$TMP/cxx" || { head -5 "$TMP/cxx"; fail "--cxx-names: name not whole"; }
"$FLAMEKIT" collapse "$TMP/script.txt" > "$TMP/default"
grep -qF ';main;std::function<int ;' "$TMP/default" || { head -5 "$TMP/default"; fail "default: not the perl's cut"; }
# both views count the same samples
assert_eq "total" "$(awk '{ n += $NF } END { print n }' "$TMP/default")" "$(awk '{ n += $NF } END { print n }' "$TMP/cxx")"
echo "cxx names: ok"

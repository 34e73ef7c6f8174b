#!/usr/bin/env bash
# One list of formats (FK_FORMATS in common/formats/parse.c): every format
# `flamekit formats` lists, and "auto", has a fuzz target in the make rules
# (built by `make fuzz`) and a saved corpus folder tests/fuzz/corpus/FORMAT that
# the replay runs; the fuzz rules list no format the library lacks.
. "$(dirname "$0")/../lib.sh"
command -v make > /dev/null || skip "no make"
[ -x "$FLAMEKIT" ] || fail "$FLAMEKIT not built (run make)"
formats=$("$FLAMEKIT" formats | awk '{print $1}') || fail "flamekit formats failed"
[ "$(echo "$formats" | wc -l)" -ge 10 ] || fail "flamekit formats lists too few: $formats"
M=(make -s --no-print-directory -C "$FK_TOP" BUILD="$BUILD")
targets=$("${M[@]}" fuzz-formats) || fail "make fuzz-formats failed"
assert_eq "fuzz targets" "$(echo $formats auto | tr ' ' '\n' | sort | xargs)" \
	"$(echo $targets | tr ' ' '\n' | sort | xargs)"
for f in $formats auto; do
	# a rule builds build/fuzz/fuzz-FORMAT (-q: 0 up to date, 1 to build, 2 no rule)
	"${M[@]}" -q "$BUILD/fuzz/fuzz-$f" > /dev/null 2>&1
	rc=$?
	[ $rc -le 1 ] || fail "no make rule for the fuzz target of $f"
	[ -n "$(ls -A "$FK_TOP/tests/fuzz/corpus/$f" 2>/dev/null)" ] || fail "no saved corpus for $f"
done
for d in "$FK_TOP"/tests/fuzz/corpus/*/; do
	d=$(basename "$d")
	echo " $formats auto " | tr '\n' ' ' | grep -q " $d " || fail "corpus folder $d is no format"
done
echo "$(echo $formats | wc -w) formats + auto: each has a fuzz target and a corpus"

#!/usr/bin/env bash
# One row of the library's SVG option table reaches every front end with the same
# name and range: the table is walked (flamekit options svg) and each option is
# given, with a good value, to flamekit svg, the perf dlfilter (--dlarg), perf flame,
# the perf script Python hook, the Python module (write_svg keywords), the gdb flame command's parser and
# flamekit gdb; then a value out of range is refused by each, naming the option.
# A new row needs no change here unless its values need a special example.
. "$(dirname "$0")/lib-perf.sh"
# the Python module is not built under SANITIZE (it loads into gdb): the other
# front ends are checked all the same
PY=1
[ -f "$BUILD/gdb/_flamekit.abi3.so" ] || { PY=0; echo "note: no Python module in this build: Python and the flame parser not checked"; }
# the perf script Python hook, where perf has Python scripting
HOOK=0
[ $PY = 1 ] && perf version --build-options 2> /dev/null | grep -q "libpython: .*on" && HOOK=1
build_wl work
cd "$TMP"
perf record -q -F 999 -g -o w.data ./work 100 > /dev/null 2>&1 || fail "perf record failed"
perf script -i w.data > w.txt 2> /dev/null || fail "perf script failed"
"$FLAMEKIT" options svg > rows.tsv || fail "flamekit options"
[ "$(wc -l < rows.tsv)" -ge 25 ] || fail "the SVG table has $(wc -l < rows.tsv) rows"

# a good value for each row, from its type and range (a few need a real name or file)
example() { # name type values min max
	case $1 in
	focus) echo main; return;; colors | bgcolors) echo blue; return;;
	cp | cp-file) echo "$TMP/p.map"; return;; range) echo 0-; return;;
	minwidth) echo 1%; return;; encoding) echo UTF-8; return;; max-frames) echo all; return;;
	random | seed) echo 7; return;;
	esac
	case $2 in
	flag) echo "";;
	choice) echo "${3%%|*}";;
	int | uint | u64 | number) awk -v a="$4" 'BEGIN { print (a < 1 ? 1 : a) }';;
	text) echo x;;
	*) fail "row $1: type $2 needs an example here";;
	esac
}
: > py.in
n=0
while IFS=$'\t' read -r name alias type values min max fg help; do
	v=$(example "$name" "$type" "$values" "$min" "$max")
	if [ -n "$v" ]; then cli=(--"$name=$v"); kv=$name=$v; else cli=(--"$name"); kv=$name; fi
	# flamekit svg
	"$FLAMEKIT" svg "${cli[@]}" w.txt -o cli.svg 2> err || fail "flamekit svg ${cli[*]}: $(cat err)"
	# the dlfilter, inside perf script
	perf script -i w.data --dlfilter "$DLF" --dlarg "$kv" --dlarg svg=dlf.svg 2> err ||
		fail "--dlarg $kv: $(cat err)"
	grep -q '<svg' dlf.svg || fail "--dlarg $kv: no SVG"
	# perf flame
	"$PERF_FLAME" report -q -i w.data "${cli[@]}" -o pf.svg 2> err || fail "perf flame ${cli[*]}: $(cat err)"
	# the perf script hook
	[ $HOOK = 0 ] || perf script -i w.data -s "$BUILD/perf/flamekit.py" -- "${cli[@]}" -o hk.svg > /dev/null 2> err ||
		fail "perf script -s flamekit.py -- ${cli[*]}: $(cat err)"
	# flamekit gdb checks everything before gdb starts: with all accepted, only -p is missing
	run_rc 2 "$FLAMEKIT" gdb "${cli[@]}" 2> err
	assert_contains err "-p PID is required"
	printf '%s\t%s\n' "$name" "$v" >> py.in
	n=$((n + 1))
done < rows.tsv
# Python keywords ('_' for '-') and the gdb flame command's parser, one process
cat > reach.py <<'PY'
import os, sys
sys.path.insert(0, os.environ["MODDIR"])
import _flamekit as fk
p = fk.Profile(samples=True)
p.add(["main", "a"], time=0.5)
p.add(["main", "b"], time=1.5)
for line in open("py.in"):
    name, v = line.rstrip("\n").split("\t")
    p.svg(**{name.replace("-", "_"): v if v else True})
    argv = ["--" + name + ("=" + v if v else "")]
    got = fk.parse_flame_args(argv)["svg_options"]
    assert name in got, (name, got)
print("python ok")
PY
[ $PY = 0 ] || MODDIR=$BUILD/gdb python3 reach.py > py.out 2>&1 || { cat py.out; fail "Python / gdb flame parser"; }
echo "$n options reached every front end"

# out of range: each front end refuses, naming the option as it was written
awk -F'\t' '$3 == "int" || $3 == "uint" || $3 == "number" { print $1 "\t" $6 * 2 + 1 }' rows.tsv > bad.in
[ -s bad.in ] || fail "no numeric rows"
while IFS=$'\t' read -r name bad; do
	run_rc 2 "$FLAMEKIT" svg --"$name" "$bad" w.txt -o x.svg 2> err
	assert_contains err "flamekit: --$name: expected"
	perf script -i w.data --dlfilter "$DLF" --dlarg "$name=$bad" > out 2> err && fail "--dlarg $name=$bad accepted"
	assert_contains err "$name=$bad: expected"
	[ -s out ] && fail "--dlarg $name=$bad: output despite the error"
	run_rc 2 "$PERF_FLAME" report -q -i w.data --"$name" "$bad" -o x.svg 2> err
	assert_contains err "perf flame: --$name: expected"
	run_rc 2 "$FLAMEKIT" gdb -p 1 --"$name" "$bad" 2> err
	assert_contains err "--$name: expected"
	if [ $HOOK = 1 ]; then
		run_rc 2 perf script -i w.data -s "$BUILD/perf/flamekit.py" -- --"$name" "$bad" -o x.svg > /dev/null 2> err
		assert_contains err "$name"
		assert_contains err "expected"
	fi
	[ $PY = 0 ] || MODDIR=$BUILD/gdb python3 -c '
import os, sys
sys.path.insert(0, os.environ["MODDIR"])
import _flamekit as fk
name, bad = sys.argv[1], sys.argv[2]
for f in (lambda: fk.check_svg(**{name: bad}), lambda: fk.parse_flame_args(["--" + name, bad])):
    try:
        f()
    except ValueError as e:
        assert name in str(e) and "expected" in str(e), e
    else:
        raise SystemExit("accepted " + name)
' "$name" "$bad" || fail "Python/gdb accepted $name=$bad"
done < bad.in
[ ! -e x.svg ] || fail "an SVG was written for a bad option"
echo ok

#!/usr/bin/env bash
# One output-name rule (fk_output_for_path) in every front end of the flamekit program:
# each command, given each name the rule knows (and the same in upper case), writes that
# format, checked by what reads it (go tool pprof for pprof, a JSON parser and the
# speedscope schema's keys for speedscope, the page's and the SVG's first bytes, the
# folded text itself); a name for an output the command cannot write, or renderer
# options the output does not honour (flamekit html --width), are usage errors (exit 2)
# that write nothing.
. "$(dirname "$0")/../lib.sh"
printf 'main;a;b 3\nmain;c 2\nmain;a 1\n' > "$TMP/in.folded"
printf 'main;a;b 1\nmain;c 4\n' > "$TMP/before.folded"
"$FLAMEKIT" collapse "$TMP/in.folded" > "$TMP/want.folded"
"$FLAMEKIT" diff "$TMP/before.folded" "$TMP/in.folded" > "$TMP/want.diff"
have_go=false
if command -v go > /dev/null; then
	have_go=true
	. "$FK_TOP/tests/export/pprof-raw.sh"
	export GOCACHE=$TMP/gocache HOME=$TMP PPROF_TMPDIR=$TMP
else
	echo "note: go not installed: pprof files checked by flamekit reading them back"
fi

# check FILE FORMAT [WANT_FOLDED]: FILE holds FORMAT (and, for the data formats, the stacks
# of WANT_FOLDED)
check() {
	local f=$1 kind=$2 want=${3:-$TMP/want.folded}
	[ -s "$f" ] || fail "$f: nothing written"
	case $kind in
	svg) head -c 200 "$f" | grep -q '^<?xml' && grep -q '<svg ' "$f" || fail "$f is not an SVG";;
	html) [ "$(head -c 15 "$f")" = "<!DOCTYPE html>" ] || fail "$f is not the page";;
	folded) assert_files_eq "$want" "$f";;
	pprof)
		[ "$(head -c 2 "$f" | od -An -tx1 | tr -d ' ')" = "1f8b" ] || fail "$f is not gzipped"
		if $have_go; then
			raw_fold "$f" > "$TMP/raw" || { cat "$TMP/pprof.err" >&2; fail "go tool pprof cannot read $f"; }
			assert_files_eq "$want" "$TMP/raw"
		else
			"$FLAMEKIT" collapse --format pprof "$f" > "$TMP/back" || fail "$f does not read back as pprof"
			assert_files_eq "$want" "$TMP/back"
		fi;;
	speedscope)
		python3 - "$f" "$want" <<'PY' || fail "$f is not speedscope JSON of the stacks"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json", d["$schema"]
names = [fr["name"] for fr in d["shared"]["frames"]]
prof = d["profiles"][0]
assert prof["type"] == "sampled"
got = {}
for stack, w in zip(prof["samples"], prof["weights"]):
    key = ";".join(names[i] for i in stack)
    got[key] = got.get(key, 0) + w
want = {}
for line in open(sys.argv[2]):
    st, n = line.rsplit(" ", 1)
    want[st] = want.get(st, 0) + float(n)
assert got == want, (got, want)
PY
		;;
	*) fail "check: $kind?";;
	esac
}

# every suffix the rule knows, in two cases
names="x.svg:svg X.SVG:svg x.html:html x.HTM:html y.Html:html x.pb.gz:pprof X.PB.GZ:pprof x.pb:pprof
x.pprof:pprof x.speedscope.json:speedscope X.SpeedScope.JSON:speedscope x.folded:folded X.FOLDED:folded"
for cmd in svg html; do
	for nk in $names; do
		name=${nk%%:*} kind=${nk#*:}
		rm -f "$TMP/$name"
		"$FLAMEKIT" $cmd "$TMP/in.folded" -o "$TMP/$name" || fail "$cmd -o $name: exit $?"
		check "$TMP/$name" "$kind"
	done
	# a name the rule does not know: the command's own output
	"$FLAMEKIT" $cmd "$TMP/in.folded" -o "$TMP/plain.out" || fail "$cmd -o plain.out"
	check "$TMP/plain.out" $cmd
done
# collapse and merge write stacks: the data formats by name, a drawing's name refused
for cmd in collapse merge; do
	for nk in $names; do
		name=${nk%%:*} kind=${nk#*:}
		rm -f "$TMP/$name"
		case $kind in
		svg | html)
			run_rc 2 "$FLAMEKIT" $cmd "$TMP/in.folded" -o "$TMP/$name" 2> "$TMP/err"
			assert_contains "$TMP/err" "draw them with flamekit $kind"
			[ ! -e "$TMP/$name" ] || fail "$cmd -o $name wrote something";;
		*)
			"$FLAMEKIT" $cmd "$TMP/in.folded" -o "$TMP/$name" || fail "$cmd -o $name: exit $?"
			check "$TMP/$name" "$kind";;
		esac
	done
	run_rc 2 "$FLAMEKIT" $cmd --emit pprof "$TMP/in.folded" -o "$TMP/c.FOLDED" 2> "$TMP/err"
	assert_contains "$TMP/err" "contradict"
done
# diff: folded, pprof (a sample type per side: the AFTER column checked), the differential
# graph; speedscope has one count a stack
awk '{ print $1, $3 }' "$TMP/want.diff" | "$FLAMEKIT" collapse > "$TMP/want.after"
for nk in x.FOLDED:folded x.PB.GZ:pprof x.SVG:svg x.Html:html; do
	name=${nk%%:*} kind=${nk#*:}
	rm -f "$TMP/$name"
	"$FLAMEKIT" diff "$TMP/before.folded" "$TMP/in.folded" -o "$TMP/$name" || fail "diff -o $name: exit $?"
	case $kind in
	folded) check "$TMP/$name" folded "$TMP/want.diff";;
	pprof) $have_go && { raw_fold "$TMP/$name" 1 > "$TMP/raw"; assert_files_eq "$TMP/want.after" "$TMP/raw"; } ;;
	*) check "$TMP/$name" $kind;;
	esac
done
run_rc 2 "$FLAMEKIT" diff "$TMP/before.folded" "$TMP/in.folded" -o "$TMP/d.speedscope.json" 2> /dev/null
[ ! -e "$TMP/d.speedscope.json" ] || fail "diff wrote speedscope"
# heatmap writes its page (any case), nothing else
S=$FK_TOP/tests/heatmap/data/exact.samples
"$FLAMEKIT" heatmap "$S" -o "$TMP/h.HTML" || fail "heatmap -o h.HTML"
check "$TMP/h.HTML" html
for name in h.svg h.pb.gz h.folded; do
	run_rc 2 "$FLAMEKIT" heatmap "$S" -o "$TMP/$name" 2> "$TMP/err"
	assert_contains "$TMP/err" "heatmap writes one HTML page"
	[ ! -e "$TMP/$name" ] || fail "heatmap wrote $name"
done

# the tracers' front ends, with a stand-in tracer that prints recorded output
BT=$FK_TOP/tests/parsers/data/bpftrace/ustack-kstack.txt
printf '#!/bin/sh\ncat "%s"\n' "$BT" > "$TMP/fake-bpftrace"
chmod +x "$TMP/fake-bpftrace"
"$FLAMEKIT" collapse "$BT" > "$TMP/want.bt"
SD=$FK_TOP/tests/stap/data/aggregate.folded
printf '#!/bin/sh\ncat "%s"\n' "$SD" > "$TMP/fake-stap"
chmod +x "$TMP/fake-stap"
"$FLAMEKIT" collapse "$SD" > "$TMP/want.stap"
sleep 300 & target=$!
trap 'kill $target 2> /dev/null; rm -rf "$TMP"' EXIT
export FLAMEKIT_STAP_NO_MODULE_CHECK=1
for nk in $names; do
	name=${nk%%:*} kind=${nk#*:}
	rm -f "$TMP/$name"
	"$FLAMEKIT" bpftrace --bpftrace "$TMP/fake-bpftrace" -d 1 -o "$TMP/$name" || fail "bpftrace -o $name: exit $?"
	check "$TMP/$name" $kind "$TMP/want.bt"
	rm -f "$TMP/$name"
	"$FLAMEKIT" stap -p $target --stap "$TMP/fake-stap" -o "$TMP/$name" || fail "stap -o $name: exit $?"
	check "$TMP/$name" $kind "$TMP/want.stap"
done

# options an output does not honour: refused by name, before anything is read or run
run_rc 2 "$FLAMEKIT" html --width 600 --minwidth 5 "$TMP/in.folded" -o "$TMP/w.html" 2> "$TMP/err"
assert_contains "$TMP/err" "--width, --minwidth: the HTML page"
[ ! -e "$TMP/w.html" ] || fail "html wrote a page despite --width"
run_rc 2 "$FLAMEKIT" svg --fontwidth 0.7 "$TMP/in.folded" -o "$TMP/w.HTML" 2> "$TMP/err"
assert_contains "$TMP/err" "--fontwidth: the HTML page"
run_rc 2 "$FLAMEKIT" svg --title T "$TMP/in.folded" -o "$TMP/w.pb.gz" 2> "$TMP/err"
assert_contains "$TMP/err" "--title: pprof output"
run_rc 2 "$FLAMEKIT" bpftrace --bpftrace "$TMP/fake-bpftrace" --width 600 -o "$TMP/w.html" 2> "$TMP/err"
assert_contains "$TMP/err" "--width: the HTML page"
run_rc 2 "$FLAMEKIT" stap -p $target --stap "$TMP/fake-stap" --countname x -o "$TMP/w.folded" 2> "$TMP/err"
assert_contains "$TMP/err" "--countname: folded output"
# what the page honours it takes, and its help lists exactly those rows
"$FLAMEKIT" html --title T --colors mem --height 20 --truncate left "$TMP/in.folded" -o "$TMP/ok.html" ||
	fail "html with options the page honours"
grep -q '"T"' "$TMP/ok.html" || fail "the page lacks its title"
"$FLAMEKIT" html --help > "$TMP/help"
# a good value for each row (the TSV: name alias type values min max ...)
"$FLAMEKIT" options svg | while IFS='	' read -r name alias type values min max rest; do
	case $name:$type in
	*:flag) arg=--$name;;
	cp:* | cp-file:*) arg=--$name=$TMP/p.map;;
	random:*) arg=--random=3;;
	range:*) arg=--range=1-2;;
	minwidth:*) arg=--minwidth=5;;
	max-frames:*) arg=--max-frames=all;;
	encoding:*) arg=--encoding=utf-8;;
	colors:*) arg=--colors=mem;;
	bgcolors:*) arg=--bgcolors=blue;;
	*:choice) arg=--$name=${values%%|*};;
	*:int | *:uint | *:number) arg=--$name=$(awk -v a="$min" -v b="$max" 'BEGIN { printf "%d", a + (b > 100 ? 100 : (b - a) / 2) + 1 }');;
	*:text) arg=--$name=x;;
	*) arg=--$name=3;;
	esac
	if ! "$FLAMEKIT" html "$arg" "$TMP/in.folded" -o "$TMP/o.html" 2> "$TMP/err" && grep -q "the HTML page" "$TMP/err"; then
		grep -q -- "--$name\b" "$TMP/help" && fail "html refuses $arg but its help lists it"
	else
		grep -q -- "--$name\b" "$TMP/help" || fail "html takes $arg but its help does not list it"
	fi
	echo "$name"
done > "$TMP/rows-checked" || exit 1
[ "$(wc -l < "$TMP/rows-checked")" -ge 30 ] || fail "only $(wc -l < "$TMP/rows-checked") rows checked"
echo "output names: one rule in svg, html, collapse, merge, diff, heatmap, bpftrace, stap"

#!/usr/bin/env bash
# `flamekit html`: the page is byte-identical for the same stacks (in any input order),
# `flamekit svg -o x.html` writes the same page, the title and other option text are
# escaped, the data holds every unique stack (compact: no name or count in clear text),
# and bad options or a write error fail without a page.
. "$(dirname "$0")/../lib.sh"
D=$FK_TOP/tests/html/data
TITLE='T </title><script>window.pwned=3</script> & "q"'
"$FLAMEKIT" html --title "$TITLE" --countname '</script>' "$D/mixed.folded" -o "$TMP/a.html" || fail "render"
"$FLAMEKIT" html --title "$TITLE" --countname '</script>' "$D/mixed.folded" -o "$TMP/b.html" || fail "render 2"
cmp "$TMP/a.html" "$TMP/b.html" || fail "two renders differ"
tac "$D/mixed.folded" > "$TMP/rev.folded"
"$FLAMEKIT" html --title "$TITLE" --countname '</script>' "$TMP/rev.folded" -o "$TMP/c.html" || fail "render reversed"
cmp "$TMP/a.html" "$TMP/c.html" || fail "input order changed the page"
"$FLAMEKIT" svg --title "$TITLE" --countname '</script>' "$D/mixed.folded" -o "$TMP/d.HTML" || fail "svg -o x.HTML"
cmp "$TMP/a.html" "$TMP/d.HTML" || fail "flamekit svg -o x.html is not the html page"

# only our own script elements close; option text escaped for HTML and for JSON
assert_eq "script closings" 4 "$(grep -io '</script' "$TMP/a.html" | wc -l)"
assert_contains "$TMP/a.html" '<title>T &lt;/title&gt;&lt;script&gt;window.pwned=3&lt;/script&gt; &amp; &quot;q&quot;</title>'
assert_contains "$TMP/a.html" '"countname":"\u003c/script\u003e"'
assert_not_contains "$TMP/a.html" 'pwned=1'
assert_not_contains "$TMP/a.html" 'read_line'
# no URL at all: nothing to fetch
if grep -o 'https\?://[^"'"'"' ]*' "$TMP/a.html" > "$TMP/urls"; then fail "URLs in the page: $(cat "$TMP/urls")"; fi

# the page holds every stack of the input: its own decoder, run in node, gives them back
if command -v node > /dev/null; then
	assert_page_holds "$TMP/a.html" "$D/mixed.folded"
	python3 "$FK_TOP/bench/gen-stacks.py" 4000 > "$TMP/gen.folded"
	"$FLAMEKIT" html "$TMP/gen.folded" -o "$TMP/gen.html" || fail "render gen"
	"$FLAMEKIT" collapse "$TMP/gen.folded" > "$TMP/gen-want.folded"
	assert_page_holds "$TMP/gen.html" "$TMP/gen-want.folded"
	# names that share their first bytes (a package, a class) are each stored as the bytes
	# shared with the name before and their own: 120k names of 64 bytes in under a third of
	# their bytes, every stack given back
	awk 'BEGIN { for (i = 0; i < 120000; i++)
		printf "main;com.example.server.handler.Dispatch%06d.process_request_%06d %d\n", i, i * 7 % 1000003, i % 9 + 1 }' > "$TMP/shared.folded"
	"$FLAMEKIT" html "$TMP/shared.folded" -o "$TMP/shared.html" || fail "render shared names"
	"$FLAMEKIT" collapse "$TMP/shared.folded" > "$TMP/shared-want.folded"
	assert_page_holds "$TMP/shared.html" "$TMP/shared-want.folded"
	names_stream() { python3 -c 'import json, re, sys
m = json.loads(re.search(r"<script id=\"fkmeta\" type=\"application/json\">(.*?)</script>", open(sys.argv[1]).read(), re.S).group(1))
print(m["streams"]["names"])' "$1"; }
	meta_of() { python3 -c 'import json, re, sys
m = json.loads(re.search(r"<script id=\"fkmeta\" type=\"application/json\">(.*?)</script>", open(sys.argv[1]).read(), re.S).group(1))
print(m[sys.argv[2]])' "$1" "$2"; }
	n=$(names_stream "$TMP/shared.html")
	[ "$n" -lt $((120000 * 64 / 2)) ] || fail "names sharing first bytes: a names stream of $n bytes"
	# the page's deflate stream is made in pieces (by two threads where a CPU is free), each
	# ending on a byte boundary, the names in a piece for each 32,768 (at most 16): the same
	# page with one thread or two, every stack given back, and a byte-boundary mark in the
	# stream after each piece of names and the name codes' and the colours' Huffman blocks
	# (120,000 names that share little, 96 random hex digits each: 3 pieces), where a page
	# of fewer names has three
	awk 'BEGIN { srand(4); for (i = 0; i < 120000; i++) { s = ""; for (k = 0; k < 12; k++) s = s sprintf("%08x", int(rand() * 4294967296))
		printf "main;h_%s %d\n", s, i % 9 + 1 } }' > "$TMP/names.folded"
	"$FLAMEKIT" html --threads 1 "$TMP/names.folded" -o "$TMP/names1.html" || fail "render names, one thread"
	FLAMEKIT_CROWDED=never "$FLAMEKIT" html --threads 2 "$TMP/names.folded" -o "$TMP/names2.html" ||
		fail "render names, two threads"
	cmp -s "$TMP/names1.html" "$TMP/names2.html" || fail "the page of many names differs with two threads"
	# the colours made early (by a second thread during the walk, many names) are those made
	# in the page's order: off-CPU colours too ([off-cpu] frames: a combined graph's)
	awk 'BEGIN { srand(5); for (i = 0; i < 80000; i++) { s = sprintf("main;h_%08x", int(rand() * 4294967296))
		if (i % 3 == 0) s = s sprintf(";[off-cpu];w_%08x", int(rand() * 4294967296)); print s, i % 7 + 1 } }' > "$TMP/off.folded"
	"$FLAMEKIT" html --threads 1 "$TMP/off.folded" -o "$TMP/off1.html" || fail "render off-CPU names, one thread"
	FLAMEKIT_CROWDED=never "$FLAMEKIT" html --threads 2 "$TMP/off.folded" -o "$TMP/off2.html" ||
		fail "render off-CPU names, two threads"
	grep -q '"offmark":' "$TMP/off2.html" || fail "no off-CPU colours in the page"
	cmp -s "$TMP/off1.html" "$TMP/off2.html" || fail "the page of off-CPU names differs with two threads"
	"$FLAMEKIT" collapse "$TMP/names.folded" > "$TMP/names-want.folded"
	assert_page_holds "$TMP/names2.html" "$TMP/names-want.folded"
	# the data's parts (raw deflate streams, each named in the meta data by its bytes and
	# theirs inflated, read back by page-node.js, which checks they add up): the names'
	# pieces, the name codes', the colours', the counts'
	parts() { node -e 'console.log(require(process.argv[1]).load(process.argv[2]).meta.parts.length)' \
		"$FK_TOP/tests/html/page-node.js" "$1"; }
	pieces=$(( $(meta_of "$TMP/names2.html" names) / 32768 ))
	[ $pieces -le 16 ] || pieces=16
	[ $pieces -ge 3 ] || fail "$pieces pieces of names (3 expected)"
	assert_eq "parts, many names" $((pieces + 3)) "$(parts "$TMP/names2.html")"
	assert_eq "parts, few names" 4 "$(parts "$TMP/gen.html")"
	# the name codes: a perf profile's call tree by its parent names' alphabets, names drawn
	# at random by their ids (there alphabets save less than a tenth), and both given back
	zstd -dcq "$FK_TOP/tests/data/demo/demo.perf-script.zst" > "$TMP/demo.perf" || fail "zstd"
	"$FLAMEKIT" html "$TMP/demo.perf" -o "$TMP/demo.html" || fail "render the demo profile"
	assert_eq "alphabets, a perf profile" 32 "$(meta_of "$TMP/demo.html" alpha)"
	assert_eq "alphabets, names drawn at random" 0 "$(meta_of "$TMP/names2.html" alpha)"
	"$FLAMEKIT" collapse "$TMP/demo.perf" > "$TMP/demo-want.folded"
	assert_page_holds "$TMP/demo.html" "$TMP/demo-want.folded"
fi

# refused: --flamechart (merged stacks only), a bad palette; nothing written
run_rc 2 "$FLAMEKIT" html --flamechart "$D/mixed.folded" -o "$TMP/e.html" 2> "$TMP/err"
assert_contains "$TMP/err" "--flamechart"
run_rc 2 "$FLAMEKIT" html --colors nosuch "$D/mixed.folded" -o "$TMP/e.html" 2> /dev/null
[ ! -e "$TMP/e.html" ] || fail "a refused run left a page"
if [ -w /dev/full ]; then
	run_rc 1 "$FLAMEKIT" html "$D/mixed.folded" -o /dev/full 2> /dev/null
fi
# empty input: an error, not an empty page
: > "$TMP/empty.folded"
run_rc 1 "$FLAMEKIT" html "$TMP/empty.folded" -o "$TMP/f.html" 2> /dev/null
echo ok

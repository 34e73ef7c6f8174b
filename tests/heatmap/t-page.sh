#!/usr/bin/env bash
# The HTML page: byte-identical for the same input (and for the same samples in
# another order), and every profile string escaped for HTML and for the embedded
# JSON (a name holding </script> cannot end the script element).
. "$(dirname "$0")/../lib.sh"
IN=$FK_TOP/tests/heatmap/data/exact.samples
TITLE='T </title><script>window.pwned=3</script> & "q"'

"$FLAMEKIT" heatmap --title "$TITLE" --highlight 'worker,<b>' "$IN" -o "$TMP/a.html" || fail "render"
"$FLAMEKIT" heatmap --title "$TITLE" --highlight 'worker,<b>' "$IN" -o "$TMP/b.html" || fail "render 2"
cmp "$TMP/a.html" "$TMP/b.html" || fail "two renders differ"
# same samples, reversed order: same cells, same stack table, same page
{ head -3 "$IN"; tail -n +4 "$IN" | tac; } > "$TMP/rev.samples"
"$FLAMEKIT" heatmap --title "$TITLE" --highlight 'worker,<b>' "$TMP/rev.samples" -o "$TMP/c.html" || fail "render reversed"
cmp "$TMP/a.html" "$TMP/c.html" || fail "input order changed the page"

# Only our own two script elements close; no name or title text appears raw.
assert_eq "script closings" 2 "$(grep -io '</script' "$TMP/a.html" | wc -l)"
assert_eq "script openings" 2 "$(grep -io '<script' "$TMP/a.html" | wc -l)"
assert_not_contains "$TMP/a.html" '<img'
assert_not_contains "$TMP/a.html" '<!--'
assert_not_contains "$TMP/a.html" 'pwned=1</'
assert_contains "$TMP/a.html" '<title>T &lt;/title&gt;&lt;script&gt;window.pwned=3&lt;/script&gt; &amp; &quot;q&quot;</title>'
assert_contains "$TMP/a.html" '"\u003c/script\u003e\u003cscript\u003ewindow.pwned=1\u003c/script\u003e"'
# The page loads no external resource: no URL at all.
grep -o 'https\?://[^"'"'"' ]*' "$TMP/a.html" | sort -u > "$TMP/urls"
assert_eq "urls" "" "$(cat "$TMP/urls")"

# The embedded JSON parses and gives back the exact names (invalid UTF-8 as U+FFFD).
if command -v node > /dev/null; then
	node -e '
	const fs = require("fs");
	const html = fs.readFileSync(process.argv[1], "utf8");
	const m = /<script id="fkdata" type="application\/json">([\s\S]*?)<\/script>/.exec(html);
	const d = JSON.parse(m[1]);
	const want = ["</script><script>window.pwned=1</script>", "<img src=x onerror=\"window.pwned=2\">",
		"a&b \"q\" '"'"'s'"'"' \\ u2028:\u2028:end", "bad\ufffdbyte", "early_a", "late"];
	for (const w of want) if (!d.names.includes(w)) { console.error("missing name", JSON.stringify(w)); process.exit(1); }
	if (d.title !== process.argv[2]) { console.error("title", d.title); process.exit(1); }
	if (d.hl.length !== 2 || d.hl[1].comm !== "<b>") { console.error("hl", JSON.stringify(d.hl)); process.exit(1); }
	if (d.samples !== 17 || d.notime !== 1 || d.base !== 100 || d.nsecs !== 4) { console.error("meta"); process.exit(1); }
	' "$TMP/a.html" "$TITLE" || fail "embedded JSON"
else
	echo "node missing: JSON round trip not checked"
fi

# A write error is reported and fails (no half page passed off as complete).
if [ -w /dev/full ]; then
	run_rc 1 "$FLAMEKIT" heatmap "$IN" -o /dev/full 2> "$TMP/err"
fi
echo ok

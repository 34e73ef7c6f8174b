#!/usr/bin/env bash
# Escaping: hostile frame names and option texts end up as inert text in XML
# text, attributes, comments and the script's data: the SVG stays well-formed,
# holds exactly one script element that nothing can close early, names
# round-trip through the data (invalid UTF-8 and XML-forbidden characters
# become U+FFFD), and the script still parses.
. "$(dirname "$0")/../lib.sh"
command -v xmllint > /dev/null || skip "xmllint not installed (libxml2-utils)"
FR="python3 $FK_TOP/tests/svg/fkframes.py"

{
	printf 'main;"><script>alert(1)</script> 5\n'
	printf 'main;</script><script>alert(2)</script> 4\n'
	printf 'main;]]><script>alert(3)</script> 3\n'
	printf 'main;<![CDATA[x]]>;&amp;&lt;&#60; 2\n'
	printf "main;'single' \"double\" \\\\back 2\n"
	printf 'main;bad\xff\xc0\xafutf8\xe2\x82 2\n'
	printf 'main;ctl\x01\x1besc\xef\xbf\xbe\xed\xa0\x80 2\n'
	printf 'main;sep\xe2\x80\xa8\xe2\x80\xa9end 2\n'
	printf 'main;<img src=x onerror=alert(4)> 2\n'
	printf 'main;tab\there 1\n'
} > "$TMP/evil.folded"

"$FLAMEKIT" svg "$TMP/evil.folded" --minwidth 0 -o "$TMP/e.svg" \
	--title '<script>alert(5)</script>' --subtitle ']]></script>"' \
	--countname 'x"</script><b>' --nametype '<i>Name:</i>' --fonttype 'Verdana" onload="alert(6)' \
	--notes 'a --> <script>alert(7)</script> -' || fail "render"
xmllint --noout "$TMP/e.svg" || fail "not well-formed"
assert_eq "script elements" 1 "$(xmllint --xpath 'count(//*[local-name()="script"])' "$TMP/e.svg")"
# outside comments (inert in XML and HTML alike; "--" is broken up in them)
python3 -c 'import re,sys; sys.stdout.write(re.sub(r"<!--.*?-->", "", open(sys.argv[1]).read(), flags=re.S))' "$TMP/e.svg" > "$TMP/nc.svg"
assert_eq "script starts" 1 "$(grep -o '<script' "$TMP/nc.svg" | wc -l)"
assert_eq "script ends" 1 "$(grep -o '</script>' "$TMP/nc.svg" | wc -l)"
assert_eq "CDATA ends (style, script)" 2 "$(grep -o ']]>' "$TMP/nc.svg" | wc -l)"
assert_not_contains "$TMP/nc.svg" '<img'
assert_not_contains "$TMP/nc.svg" 'onload="'
assert_eq "comments" 2 "$(grep -o -- '<!--' "$TMP/e.svg" | wc -l)"
assert_eq "comment ends" 2 "$(grep -o -- '-->' "$TMP/e.svg" | wc -l)"
grep -q '<!-- NOTES: a - -> <script>alert(7)</script> -  -->' "$TMP/e.svg" || fail "notes comment: $(grep NOTES "$TMP/e.svg")"
grep -q 'font-family="Verdana&quot; onload=&quot;alert(6)"' "$TMP/e.svg" || fail "font attribute not escaped"
# no raw control characters or invalid UTF-8 anywhere in the file
python3 - "$TMP/e.svg" <<'EOF' || fail "raw control or invalid UTF-8 bytes in the SVG"
import sys, re
b = open(sys.argv[1], 'rb').read()
b.decode('utf-8')  # strict
assert not re.search(rb'[\x00-\x08\x0b\x0c\x0e-\x1f]', b)
EOF

# the names, as the script sees them
$FR "$TMP/e.svg" --json > "$TMP/frames.json"
python3 - "$TMP/frames.json" <<'EOF' || fail "names do not round-trip"
import json, sys
got = [f['name'] for f in json.load(open(sys.argv[1])) if f['depth'] == 2]
want = sorted([
    '"><script>alert(1)</script>',
    '</script><script>alert(2)</script>',
    ']]><script>alert(3)</script>',
    "'single' \"double\" \\back",
    'bad\ufffd\ufffd\ufffdutf8\ufffd\ufffd',
    'ctl\x01\x1besc\ufffe\ufffd\ufffd\ufffd',
    'sep\u2028\u2029end',
    '<img src=x onerror=alert(4)>',
    '<![CDATA[x]]>',
    'tab\there',
], key=lambda s: s.encode('utf-8', 'surrogatepass'))
if sorted(got, key=lambda s: s.encode('utf-8', 'surrogatepass')) != want:
    print('got ', [repr(x) for x in got])
    print('want', [repr(x) for x in want])
    sys.exit(1)
EOF
# every frame's <title> (a tooltip without script): NAME (COUNT COUNTNAME, PERCENT%), the
# name as an XML reader gets it back, the counts from the input itself
python3 - "$TMP/e.svg" "$TMP/evil.folded" <<'EOF' || fail "frame titles"
import re, sys, xml.etree.ElementTree as ET
NS = '{http://www.w3.org/2000/svg}'
root = ET.parse(sys.argv[1]).getroot()
rects = [r for g in root.iter(NS + 'g') if g.get('id') == 'frames' for r in g.iter(NS + 'rect')]
# the input's tree in drawing order (pre-order, siblings by name bytes), counts summed
tree = {}
for p, c in (l.rsplit(b' ', 1) for l in open(sys.argv[2], 'rb').read().splitlines()):
    node = tree
    for f in p.split(b';'):
        node = node.setdefault(f, [0.0, {}])
        node[0] += float(c)
        node = node[1]
total = sum(v[0] for v in tree.values())
def shown(b):  # invalid UTF-8 and XML-forbidden characters read back as U+FFFD
    out = ''
    for ch in b.decode('utf-8', 'surrogateescape'):
        o = ord(ch)
        bad = 0xdc80 <= o <= 0xdcff or (o < 0x20 and ch not in '\t\n\r') or o in (0xfffe, 0xffff)
        out += '\ufffd' if bad else ch
    return out
cn = 'x"</script><b>'
def fmt(c): return ('%d' % c) if c == int(c) else ('%g' % c)
want = ['all (%s %s, 100%%)' % (fmt(total), cn)]
def walk(t):
    for n in sorted(t):
        want.append('%s (%s %s, %.2f%%)' % (shown(n), fmt(t[n][0]), cn, 100 * t[n][0] / total))
        walk(t[n][1])
walk(tree)
got = []
for r in rects:
    ts = r.findall(NS + 'title')
    if len(ts) != 1:
        print('a rect with %d titles' % len(ts)); sys.exit(1)
    got.append(ts[0].text)
bad = 0
if len(got) != len(want):
    print('%d titles, want %d' % (len(got), len(want))); bad = 1
for g, w in zip(got, want):
    if g != w:
        print('title %r\n want %r' % (g, w)); bad = 1
sys.exit(bad)
EOF
# labels are text: XML gives back the original characters (forbidden ones as U+FFFD)
$FR "$TMP/e.svg" --labels > "$TMP/labels"
grep -qxF '"><script>alert(1)</script>' "$TMP/labels" || fail "label of the script name: $(head -5 "$TMP/labels")"
grep -qF '<img src=x ' "$TMP/labels" || fail "label of the img name"
grep -qF 'ctl'$'\xef\xbf\xbd\xef\xbf\xbd''esc' "$TMP/labels" || fail "controls in a label not replaced"
title=$(xmllint --xpath 'string(//*[@id="title"])' "$TMP/e.svg")
assert_eq "title text" '<script>alert(5)</script>' "$title"
assert_eq "subtitle text" ']]></script>"' "$(xmllint --xpath 'string(//*[@id="subtitle"])' "$TMP/e.svg")"
$FR "$TMP/e.svg" --config | python3 -c 'import json,sys; c=json.load(sys.stdin); assert c["cn"] == "x\"</script><b>" and c["nt"] == "<i>Name:</i>", c' ||
	fail "countname/nametype not kept as data"

# the embedded script is valid JavaScript
if command -v node > /dev/null; then
	xmllint --xpath 'string(//*[local-name()="script"])' "$TMP/e.svg" > "$TMP/script.js"
	node --check "$TMP/script.js" || fail "the embedded script does not parse"
fi

# a name that looks like an annotation only loses a real suffix
printf 'a;f_[k] 1\na;g_[x] 1\na;h_[j]_[k] 1\n' > "$TMP/ann.folded"
"$FLAMEKIT" svg "$TMP/ann.folded" -o "$TMP/ann.svg" || fail "render ann"
assert_eq "annotations" "f g_[x] h_[j]" "$($FR "$TMP/ann.svg" | awk -F'\t' '$2 == 2 {print $7}' | tr '\n' ' ' | sed 's/ $//')"
echo ok

#!/usr/bin/env bash
# The page code in common/render/page/ is real code: every .js file passes
# `node --check`, every .css file has balanced comments and braces, and the
# library embeds each file's body byte for byte (opening comment lines left out).
. "$(dirname "$0")/../lib.sh"
command -v node > /dev/null || skip "node not installed (nodejs)"
P=$FK_TOP/common/render/page
n=0
for f in "$P"/*.js "$P"/viewer/*.js "$BUILD/common/render/page/viewer.js"; do
	node --check "$f" || fail "$f: node --check"
	n=$((n + 1))
done
[ $n -ge 2 ] || fail "only $n .js files found in $P"
for f in "$P"/*.css; do
	node -e '
		const s = require("fs").readFileSync(process.argv[1], "utf8");
		const t = s.replace(/\/\*[\s\S]*?\*\//g, "");
		if (t.includes("/*") || t.includes("*/")) throw new Error("unclosed comment");
		let d = 0;
		for (const c of t.replace(/"[^"\n]*"|'"'"'[^'"'"'\n]*'"'"'/g, "")) {
			if (c === "{") d++;
			if (c === "}" && --d < 0) throw new Error("unbalanced }");
		}
		if (d) throw new Error("unbalanced {");
	' "$f" || fail "$f: not well-formed CSS"
done
# the embedded strings, read back from the generated C, equal the files' bodies
# (the viewer's parts are joined by the build into $BUILD/common/render/page/viewer.js)
for f in "$P"/*.js "$P"/*.css "$BUILD/common/render/page/viewer.js"; do
	b=$(basename "$f")
	g=$BUILD/common/render/page/$b.c
	[ -f "$g" ] || fail "$g not generated"
	awk '!h && (/^\/\/ / || /^\/\/$/ || /^\/\*.*\*\/$/) { next } { h = 1; print }' "$f" > "$TMP/want"
	node -e '
		const src = require("fs").readFileSync(process.argv[1], "utf8");
		const lits = src.split("\n").filter(l => l.startsWith("\t\"")).map(l => JSON.parse(l.trim().replace(/;$/, "")));
		process.stdout.write(lits.join(""));
	' "$g" > "$TMP/got" || fail "$g: cannot read back"
	cmp -s "$TMP/want" "$TMP/got" || fail "$b: embedded text differs from the file"
done
echo "ok ($n scripts)"

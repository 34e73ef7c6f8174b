#!/usr/bin/env bash
# The page scripts type-check: tsc --noEmit (npm's typescript, tests/browser) over
# common/render/page/tsconfig.json, whose files carry // @ts-check and JSDoc types
# (page-globals.d.ts declares what the pages find defined: the SVG's data, the viewer).
# Every listed file must hold the // @ts-check line, and a planted type error is found.
. "$(dirname "$0")/../lib.sh"
command -v node > /dev/null || skip "node not installed"
TSC=$FK_TOP/tests/browser/node_modules/typescript/bin/tsc
[ -f "$TSC" ] || skip "tsc missing: cd tests/browser && npm install (typescript is a devDependency)"
P=$FK_TOP/common/render/page
files=$(node -e 'for (const f of require(process.argv[1]).files) if (f.endsWith(".js")) console.log(f)' "$P/tsconfig.json") ||
	fail "cannot read $P/tsconfig.json"
for f in svg.js heatmap.js; do
	printf '%s\n' "$files" | grep -qx "$f" || fail "tsconfig.json does not list $f"
done
for f in $files; do
	head -1 "$P/$f" | grep -qx '// @ts-check' || fail "$f: first line is not // @ts-check"
done
node "$TSC" --noEmit -p "$P" > "$TMP/tsc.out" 2>&1 || { cat "$TMP/tsc.out" >&2; fail "tsc found type errors in the page scripts"; }
# the check is real: the same config over a copy with one wrong type fails
mkdir "$TMP/page"
cp "$P"/tsconfig.json "$P"/*.d.ts "$TMP/page/"
for f in $files; do cp "$P/$f" "$TMP/page/"; done
printf '\n/** @type {number} */\nvar fkPlanted = "a string";\nvoid fkPlanted;\n' >> "$TMP/page/svg.js"
if node "$TSC" --noEmit -p "$TMP/page" > "$TMP/tsc2.out" 2>&1; then
	fail "tsc accepted a planted type error"
fi
grep -q "svg.js.*TS2322" "$TMP/tsc2.out" || fail "planted error not reported as expected: $(head -3 "$TMP/tsc2.out")"
echo ok

#!/usr/bin/env bash
# The page scripts type-check: tsc --noEmit (npm's typescript, tests/browser) over
# common/render/page/tsconfig.json, whose files carry // @ts-check and JSDoc types
# (page-globals.d.ts declares what the pages find defined: the SVG's data, the viewer).
# The viewer's files are a project of their own (viewer/tsconfig.json; viewer-types.d.ts).
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
# the viewer's files: a project of their own (one function scope once joined), every one listed
vfiles=$(node -e 'for (const f of require(process.argv[1]).files) if (f.endsWith(".js")) console.log(f)' "$P/viewer/tsconfig.json") ||
	fail "cannot read $P/viewer/tsconfig.json"
for f in "$P"/viewer/*.js; do
	printf '%s\n' "$vfiles" | grep -qx "$(basename "$f")" || fail "viewer/tsconfig.json does not list $(basename "$f")"
	head -1 "$f" | grep -qx '// @ts-check' || fail "viewer/$(basename "$f"): first line is not // @ts-check"
done
node "$TSC" --noEmit -p "$P/viewer" > "$TMP/tscv.out" 2>&1 || { cat "$TMP/tscv.out" >&2; fail "tsc found type errors in the viewer's files"; }
# the check is real: the same config over a copy with one wrong type fails
mkdir "$TMP/page"
cp "$P"/tsconfig.json "$P"/*.d.ts "$TMP/page/"
for f in $files; do cp "$P/$f" "$TMP/page/"; done
printf '\n/** @type {number} */\nvar fkPlanted = "a string";\nvoid fkPlanted;\n' >> "$TMP/page/svg.js"
if node "$TSC" --noEmit -p "$TMP/page" > "$TMP/tsc2.out" 2>&1; then
	fail "tsc accepted a planted type error"
fi
grep -q "svg.js.*TS2322" "$TMP/tsc2.out" || fail "planted error not reported as expected: $(head -3 "$TMP/tsc2.out")"
# and in the viewer's: a Viewer's state typed wrong
mkdir "$TMP/page/viewer"
cp "$P"/viewer/tsconfig.json "$P"/viewer/*.js "$TMP/page/viewer/"
printf '\n/** @this {FkV} */\nViewer.prototype.fkPlanted = function () { this.state.zoom = 3; };\n' >> "$TMP/page/viewer/08-table.js"
if node "$TSC" --noEmit -p "$TMP/page/viewer" > "$TMP/tsc3.out" 2>&1; then
	fail "tsc accepted a planted type error in the viewer"
fi
grep -q "08-table.js.*TS2322" "$TMP/tsc3.out" || fail "viewer's planted error not reported as expected: $(head -3 "$TMP/tsc3.out")"
echo ok

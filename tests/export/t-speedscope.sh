#!/usr/bin/env bash
# speedscope output: validates against the file-format schema of the speedscope npm package,
# folds back to flamekit's own folded stacks (sampled, and evented for timestamped samples),
# opens in that package's viewer in headless Chromium without errors; names that are not
# text (quotes, control bytes, broken UTF-8) still give valid JSON; same input, same bytes.
. "$(dirname "$0")/../lib.sh"
command -v node > /dev/null || skip "node not installed"
[ -x /usr/bin/chromium ] || skip "/usr/bin/chromium not installed"
B=$FK_TOP/tests/browser
if [ ! -d "$B/node_modules/speedscope" ] || [ ! -d "$B/node_modules/ajv" ] || [ ! -d "$B/node_modules/playwright-core" ]; then
	( cd "$B" && npm install --no-audit --no-fund --silent > /dev/null 2>&1 ) ||
		skip "speedscope/ajv/playwright-core missing and npm install failed (cd tests/browser && npm install)"
fi
SHOTS=${FK_SHOTS:-}

# sampled: C++ templates, UTF-8, a name with quotes and a backslash
cat > "$TMP/names.folded" <<'F'
main;std::vector<std::pair<int, long>>::push_back(std::pair<int, long> const&);fünf_ünïcode 3
main;(anonymous namespace)::Foo<Bar>::operator()() const;say "hi" \n 2
main;d 5
main;d;日本語::関数 7
F
"$FLAMEKIT" collapse "$TMP/names.folded" > "$TMP/names.want"
"$FLAMEKIT" collapse --emit speedscope "$TMP/names.folded" -o "$TMP/names.json" || fail "write: exit $?"
"$FLAMEKIT" collapse "$TMP/names.folded" -o "$TMP/by-name.speedscope.json"
cmp -s "$TMP/names.json" "$TMP/by-name.speedscope.json" || fail "-o NAME.speedscope.json differs from --emit speedscope"
node "$B/speedscope.js" "$TMP/names.json" "$TMP/names.want" ${SHOTS:+"$SHOTS/speedscope-sampled.png"} || fail "sampled profile"

# evented too: timestamped samples (out of time order in the file: the evented form sorts)
printf '# flamekit samples v1\n3.0\t10\t11\t0\tp\t2\tmain;a;b\n1.0\t10\t11\t0\tp\t1\tmain;a\n2.0\t10\t11\t0\tp\t4\tmain;c\n4.0\t10\t11\t0\tp\t1\tmain;a\n' > "$TMP/s.txt"
"$FLAMEKIT" collapse "$TMP/s.txt" > "$TMP/s.want"
"$FLAMEKIT" collapse --emit speedscope "$TMP/s.txt" -o "$TMP/s.json" || fail "write evented: exit $?"
assert_eq "profiles" "sampled evented" "$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).profiles.map((p) => p.type).join(" "))' "$TMP/s.json")"
# time order: a (1) c (4) a;b (2) a (1): main opens once, a opens twice
assert_eq "evented order" "O:main@0 O:a@0 C:a@1 O:c@1 C:c@5 O:a@5 O:b@5 C:b@7 C:a@8 C:main@8" \
	"$(node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1])); console.log(d.profiles[1].events.map((e) => e.type + ":" + d.shared.frames[e.frame].name + "@" + e.at).join(" "))' "$TMP/s.json" | sed 's/O:b@5 C:b@7 C:a@8/O:b@5 C:b@7 C:a@8/')"
node "$B/speedscope.js" "$TMP/s.json" "$TMP/s.want" ${SHOTS:+"$SHOTS/speedscope-evented.png"} || fail "evented profile"

# bytes that are not text: still valid JSON, U+FFFD for broken UTF-8, \u escapes for controls
printf 'main;bad\377\376x;ctl\001\037 1\nmain;half\xe2\x82 2\n' > "$TMP/bin.folded"
"$FLAMEKIT" collapse --emit speedscope "$TMP/bin.folded" -o "$TMP/bin.json" || fail "binary names: exit $?"
node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); const n = d.shared.frames.map((f) => f.name); if (!n.includes("bad\ufffd\ufffdx") || !n.includes("ctl\u0001\u001f") || !n.includes("half\ufffd\ufffd")) { console.log(JSON.stringify(n)); process.exit(1) }' "$TMP/bin.json" || fail "names that are not text"
# deterministic
"$FLAMEKIT" collapse --emit speedscope "$TMP/s.txt" | cmp -s - "$TMP/s.json" || fail "a second run gives other bytes"
echo "speedscope ok"

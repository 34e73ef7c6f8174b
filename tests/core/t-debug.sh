#!/usr/bin/env bash
# FLAMEKIT_DEBUG=1: where a run's time goes, on stderr: a line at each step (the input read,
# the layout, the output written), each with the milliseconds since the start, never
# decreasing; the bytes said written are the file's size, the frames said drawn the SVG's
# rects. Unset, empty or 0: not a line more (the warnings as always).
. "$(dirname "$0")/../lib.sh"
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "main;f%d;g%d %d\n", i % 50, i % 700, 1 + i % 7 }' > "$TMP/in.folded"
printf 'main;broken\n' >> "$TMP/in.folded" # (a malformed line: its warning comes either way)

# times DEBUGFILE: the times of its debug lines never go back
times_ok() {
	awk '/^flamekit: debug / { t = $3 + 0; if (t < last) exit 1; last = t; n++ } END { exit n ? 0 : 1 }' "$1"
}

rc=0
FLAMEKIT_DEBUG=1 "$FLAMEKIT" svg -o "$TMP/d.svg" "$TMP/in.folded" 2> "$TMP/svg.err" || rc=$?
[ $rc -eq 3 ] || fail "svg: exit $rc (a malformed line: 3)"
grep -q "^flamekit: debug [0-9.]* ms: $TMP/in.folded: read as folded$" "$TMP/svg.err" || fail "no read line: $(cat "$TMP/svg.err")"
rects=$(grep -c '<rect x=' "$TMP/d.svg")
# (the background is a rect too, drawn before the frames)
grep -q "^flamekit: debug [0-9.]* ms: svg: laid out, $((rects - 1)) frames drawn$" "$TMP/svg.err" ||
	fail "no layout line for $((rects - 1)) frames: $(cat "$TMP/svg.err")"
grep -q "^flamekit: debug [0-9.]* ms: svg: written, $(wc -c < "$TMP/d.svg") bytes$" "$TMP/svg.err" ||
	fail "no written line with the file's size: $(cat "$TMP/svg.err")"
grep -q "^flamekit: $TMP/in.folded:3001: " "$TMP/svg.err" || fail "the warning is gone: $(cat "$TMP/svg.err")"
times_ok "$TMP/svg.err" || fail "times went back: $(cat "$TMP/svg.err")"

FLAMEKIT_DEBUG=1 "$FLAMEKIT" html -o "$TMP/d.html" "$TMP/in.folded" 2> "$TMP/html.err"
grep -q "^flamekit: debug [0-9.]* ms: html: written, $(wc -c < "$TMP/d.html") bytes$" "$TMP/html.err" ||
	fail "no html written line with the file's size: $(cat "$TMP/html.err")"
times_ok "$TMP/html.err" || fail "html times went back: $(cat "$TMP/html.err")"

for v in unset "" 0; do
	if [ "$v" = unset ]; then
		env -u FLAMEKIT_DEBUG "$FLAMEKIT" svg -o "$TMP/q.svg" "$TMP/in.folded" 2> "$TMP/q.err"
	else
		FLAMEKIT_DEBUG=$v "$FLAMEKIT" svg -o "$TMP/q.svg" "$TMP/in.folded" 2> "$TMP/q.err"
	fi
	[ "$(grep -c . "$TMP/q.err")" -eq 1 ] && grep -q ":3001: " "$TMP/q.err" ||
		fail "FLAMEKIT_DEBUG $v: stderr holds more than the warning: $(cat "$TMP/q.err")"
	cmp -s "$TMP/q.svg" "$TMP/d.svg" || fail "FLAMEKIT_DEBUG $v: another SVG"
done
echo "debug lines: read, layout ($((rects - 1)) frames), written; none unset"

#!/usr/bin/env bash
# t-two-threads.sh - an SVG of 4096 frames or more is written by two threads (each long part
# in two halves, the second half in memory until the first is out): byte-identical to one
# thread's, in every view that changes what the parts hold (inverted, labels cut at the left,
# sorted by weight, another palette, differential colours and titles, --minwidth 0), for
# names that need escaping in XML and in the script (markup, ]]>, quotes, invalid UTF-8,
# wide characters, annotations), and well-formed; a second thread is made only where there
# are that many frames.
. "$(dirname "$0")/../lib.sh"
command -v python3 > /dev/null || skip "python3 not installed"

gen() { # SEED COLUMNS > folded text of ~6000 stacks (small: read by one thread)
	python3 - "$1" "$2" << 'EOF'
import random, sys
r = random.Random(int(sys.argv[1]))
two = sys.argv[2] == '2'
odd = ['<b>&amp;', ']]><script>x</script>', '"q\'', 'bad\xff\xfeutf8', '\u6f22\u5b57\u540d',
       'sep\u2028end', 'k_[k]', 'j_[j]', 'x' * 300, '</text>', 'a,b', '-->']
names = ['fn%d' % i for i in range(2500)] + odd
out = sys.stdout.buffer
for i in range(6000):
    st = ['main'] + [r.choice(names) for _ in range(r.randint(1, 14))]
    line = ';'.join(st).encode('utf-8', 'surrogateescape')
    line = line.replace('\xff\xfe'.encode('utf-8'), b'\xff\xfe')
    cols = ' %d %d' % (r.randint(0, 50), r.randint(0, 50)) if two else ' %d' % r.randint(1, 99)
    out.write(line + cols.encode() + b'\n')
EOF
}

gen 1 1 > "$TMP/one.folded"
gen 2 2 > "$TMP/diff.folded"
n=0
for view in "" "--inverted" "--truncate left --minwidth 0" "--sort weight" "--colors mem --hash"; do
	for t in 1 2; do
		# shellcheck disable=SC2086 # (the view's words)
		"$FLAMEKIT" svg --threads $t $view -o "$TMP/t$t.svg" "$TMP/one.folded" || fail "svg $view"
	done
	assert_files_eq "$TMP/t1.svg" "$TMP/t2.svg"
	n=$((n + 1))
done
for view in "" "--diff-shape both" "--negate --diff total"; do
	for t in 1 2; do
		# shellcheck disable=SC2086
		"$FLAMEKIT" svg --threads $t $view -o "$TMP/d$t.svg" "$TMP/diff.folded" || fail "diff svg $view"
	done
	assert_files_eq "$TMP/d1.svg" "$TMP/d2.svg"
done
# enough frames for two threads, and the names are all there (each once in the script's)
frames=$(grep -c '^<rect x=\|^<rect class' "$TMP/t1.svg")
[ "$frames" -ge 4096 ] || fail "only $frames frames: the second thread is not asked for"
grep -q 'fn2499\|fn2498' "$TMP/t2.svg" || fail "names missing"
if command -v xmllint > /dev/null; then
	xmllint --noout "$TMP/t2.svg" || fail "not well-formed"
	xmllint --noout "$TMP/d2.svg" || fail "diff: not well-formed"
fi
if command -v node > /dev/null; then
	# the script's data parse, and hold a name per frame
	python3 -c '
import sys
s = open(sys.argv[1], encoding="utf-8").read()
a = s.index("var fkN=")
b = s.index("];\n", s.index("var fkF=", a)) + 3
sys.stdout.write(s[a:b])' "$TMP/t2.svg" > "$TMP/data.js"
	node -e '
		const s = require("fs").readFileSync(process.argv[1], "utf8");
		const f = new Function(s + "; return [fkN, fkF];")();
		const [N, F] = f;
		if (F.length % 4) throw new Error("fkF length " + F.length);
		for (let i = 0; i < F.length; i += 4)
			if (!(F[i] >= 0 && F[i] < N.length)) throw new Error("frame " + i / 4 + ": name " + F[i]);
	' "$TMP/data.js" || fail "script data"
fi
# a thread is made for the SVG only where it has that many frames
if command -v strace > /dev/null; then
	head -40 "$TMP/one.folded" > "$TMP/small.folded"
	for f in one small; do
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=clone,clone3 \
			-o "$TMP/st.$f" "$FLAMEKIT" svg --threads 2 -o "$TMP/s.svg" "$TMP/$f.folded" || fail "strace svg"
	done
	[ "$(grep -c clone "$TMP/st.one")" -ge 1 ] || fail "no second thread for $frames frames"
	assert_eq "threads made for a small SVG" 0 "$(grep -c clone "$TMP/st.small")"
else
	echo "note: strace not installed: which SVGs make a thread is not checked"
fi

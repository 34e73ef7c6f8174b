#!/usr/bin/env bash
# t-cut-short.sh - a folded file cut short by another program while flamekit reads it
# through a mapping (common/base/mapped.c; the cut made by a shim, tests/parsers/cut.c, as
# soon as the file is mapped): every reader that maps its input (a collapse tool's output
# in batches, by one thread and by two; a file of repeated stacks in halves by two
# threads; sorted files merged and diffed as they stream) ends with status 1 and one
# message naming the file ("input file changed while it was read"), none about lines that
# run into the cut, and no output file, where without the cut the same command succeeds.
# (A file cut before it is mapped is a shorter file, read as such.)
# (Before the guard the process died of SIGBUS with no word of why; a streamed merge or
# diff whose file changed after its check wrote the same stack forever.)
. "$(dirname "$0")/../lib.sh"
command -v python3 > /dev/null || skip "python3 not installed"
SHIM=$BUILD/tests/parsers/fk-cut.so
[ -f "$SHIM" ] || fail "$SHIM not built (make test-build)"
# (an ASan build wants its runtime first among the preloaded libraries, and keeps SIGBUS
# for itself, where the library leaves a host program's handler alone: not here)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0:handle_sigbus=0

gen() { # SEED STACKS REPEATS > sorted folded text: STACKS distinct stacks, each REPEATS times
	python3 - "$1" "$2" "$3" << 'EOF'
import random, sys
r = random.Random(int(sys.argv[1]))
n, rep = int(sys.argv[2]), int(sys.argv[3])
names = ["ns%d::Cls%d::fn_%x" % (i % 7, i % 31, i * 2654435761 % 2**32) for i in range(3000)]
seen = set()
while len(seen) < n:
    seen.add(";".join(["main"] + [r.choice(names) for _ in range(r.randint(3, 25))]))
lines = sorted("%s %d" % (s, r.randint(1, 50)) for s in seen)
out = []
for _ in range(rep):
    out.extend(lines)
if rep > 1:
    r.shuffle(out)
print("\n".join(out))
EOF
}
gen 1 20000 1 > "$TMP/collapsed.folded"
gen 2 3000 8 > "$TMP/repeats.folded"
gen 3 20000 1 > "$TMP/other.folded"
size=$(stat -c %s "$TMP/collapsed.folded")

# check NAME CUT_FILE CUT_TO OUT CMD...: with the cut (at the file's FK_CUT_NTH-th mapping,
# the first unless said), status 1, the one message, no OUT; without it, status 0 and OUT
check() {
	local name=$1 file=$2 to=$3 out=$4
	shift 4
	rm -f "$out"
	env FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_CROWDED=never LD_PRELOAD="$SHIM" "$@" 2> "$TMP/err"
	local rc=$?
	[ $rc -eq 0 ] && [ -s "$out" ] || fail "$name: without a cut: status $rc: $(head -3 "$TMP/err")"
	rm -f "$out"
	cp "$file" "$file.keep"
	# (a walk that went on forever over a changed file wrote the same line without end:
	# bounded here, by time and by the size of what it may write)
	(ulimit -f 100000; exec env FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_CROWDED=never LD_PRELOAD="$SHIM" \
		FK_CUT_FILE="$file" FK_CUT_TO="$to" timeout 60 "$@") 2> "$TMP/err"
	rc=$?
	cp "$file.keep" "$file"
	[ $rc -eq 1 ] || fail "$name: cut to $to bytes: status $rc, want 1: $(head -3 "$TMP/err")"
	[ "$(wc -l < "$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "$name: not one message"; }
	grep -qE "^flamekit: $file(:[0-9]+)?: input file changed while it was read$" "$TMP/err" ||
		{ cat "$TMP/err" >&2; fail "$name: message"; }
	[ ! -e "$out" ] || fail "$name: $out written"
	ls "$out".tmp.* > /dev/null 2>&1 && fail "$name: a temporary output left"
	return 0
}

C=$TMP/collapsed.folded R=$TMP/repeats.folded O=$TMP/other.folded
# cut in the middle of a line, at a line's end, and to nothing
mid=$((size / 2 + 17))
eol=$(head -c "$mid" "$C" | awk '{ n += length($0) + 1 } END { print n - length($0) - 1 }')
for to in $mid $eol 0; do
	check "svg, batches, one thread, cut to $to" "$C" "$to" "$TMP/o.svg" \
		"$FLAMEKIT" svg --threads 1 -o "$TMP/o.svg" "$C"
	check "svg, batches, two threads, cut to $to" "$C" "$to" "$TMP/o.svg" \
		"$FLAMEKIT" svg --threads 2 -o "$TMP/o.svg" "$C"
	check "collapse, batches, cut to $to" "$C" "$to" "$TMP/o.folded" \
		"$FLAMEKIT" collapse --format folded -o "$TMP/o.folded" "$C"
done
rsize=$(stat -c %s "$R")
# (mapped first to see whether it is a collapse tool's output, which it is not, then again
# to be read in halves once a CPU is free: cut there)
for to in $((rsize / 3 + 5)) $((rsize * 3 / 4 + 11)); do
	FK_CUT_NTH=2 check "svg, halves by two threads, cut to $to" "$R" "$to" "$TMP/o.svg" \
		"$FLAMEKIT" svg --threads 2 -o "$TMP/o.svg" "$R"
done
# streamed: the first file cut, then the second
check "merge, streamed, first cut" "$C" "$mid" "$TMP/m.folded" \
	"$FLAMEKIT" merge -o "$TMP/m.folded" "$C" "$O"
check "merge, streamed, second cut" "$O" "$mid" "$TMP/m.folded" \
	"$FLAMEKIT" merge -o "$TMP/m.folded" "$C" "$O"
check "diff, streamed, first cut" "$C" "$mid" "$TMP/d.folded" \
	"$FLAMEKIT" diff -o "$TMP/d.folded" "$C" "$O"
check "diff, streamed, second cut" "$O" "$eol" "$TMP/d.folded" \
	"$FLAMEKIT" diff -o "$TMP/d.folded" "$C" "$O"
# cut after the check, as the walk begins: the walk, which went on writing the last stack
# it had for ever, ends
for f in "$C" "$O"; do
	FK_CUT_ON=walk check "merge, cut as it is walked" "$f" "$mid" "$TMP/m.folded" \
		"$FLAMEKIT" merge -o "$TMP/m.folded" "$C" "$O"
	FK_CUT_ON=walk check "diff, cut as it is walked" "$f" "$eol" "$TMP/d.folded" \
		"$FLAMEKIT" diff -o "$TMP/d.folded" "$C" "$O"
done
echo "PASS"

#!/usr/bin/env bash
# With two threads a profile of many stacks (here: FLAMEKIT_SPLIT_MIN, any number) is swept
# for its drawing in two parts: the second part starts with the seam's frames open and no
# counts, its frames moved past the first part's stacks and the seam frames made whole at the
# join. The same bytes as one thread, on profiles made to stress the seam: off-CPU marks and
# "--" frames at every depth (a frame's colour depends on its children's marks on both sides
# of the seam), negative and zero counts, stacks that are prefixes of others, deep and
# shallow seams; with --minwidth, --colors chain, and --reverse (a derived profile: one
# thread's sweep, the same bytes). A count that
# is not a whole number: the join declines (sums in two parts could round otherwise), the
# first thread walks the second part again, and the bytes are still the same.
. "$(dirname "$0")/../lib.sh"
command -v python3 > /dev/null || skip "python3 not installed"

gen() { # SEED: a folded profile of 2-80 stacks from a few names, marks among them
	python3 - "$1" << 'EOF'
import random, sys
r = random.Random(int(sys.argv[1]))
names = ["a", "b", "c", "[off-cpu]", "--", "x", "y", "main", "ns::f<int>", "z"]
for _ in range(r.randint(2, 80)):
    frames = [r.choice(names[:r.randint(3, len(names))]) for _ in range(r.randint(1, 9))]
    count = r.choice([1, 1, 2, 3, 10, 100, 0, -1]) if r.random() < 0.9 else r.randint(1, 5000)
    print(";".join(frames), count)
EOF
}

n=0
m=0
two=0
for seed in $(seq 1 60); do
	gen "$seed" > "$TMP/p.folded"
	case $((seed % 5)) in
	0) opts="" ;;
	1) opts="--minwidth 0" ;;
	2) opts="--colors chain" ;;
	3) opts="--reverse" ;;
	*) opts="--minwidth 5 --width 300" ;;
	esac
	"$FLAMEKIT" svg --threads 1 $opts -o "$TMP/1.svg" "$TMP/p.folded" 2> /dev/null ||
		fail "seed $seed: one thread"
	FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_DEBUG=1 FLAMEKIT_CROWDED=never "$FLAMEKIT" svg --threads 2 $opts \
		-o "$TMP/2.svg" "$TMP/p.folded" 2> "$TMP/2.err" || fail "seed $seed: two threads"
	if [ "$opts" != --reverse ]; then # (a derived profile is drawn by one thread)
		grep -q '^flamekit: debug .*walk: in two parts from stack [0-9]*$' "$TMP/2.err" &&
			two=$((two + 1))
		m=$((m + 1))
	fi
	cmp -s "$TMP/1.svg" "$TMP/2.svg" || { diff "$TMP/1.svg" "$TMP/2.svg" | head -20 >&2; \
		fail "seed $seed ($opts): two threads drew other bytes than one"; }
	n=$((n + 1))
done
# seams through a mark: "main" is drawn off-CPU only if the mark frame's samples from both
# sides of the seam count as off-CPU in it; "--" on the seam: the frames past it drawn as
# wakers in the chain palette on both sides
# (8 stacks: the seam between the 4th and 5th, main;[off-cpu] open across it)
printf '%s\n' 'main;[off-cpu];a 5' 'main;[off-cpu];b 7' 'main;[off-cpu];c 5' 'main;[off-cpu];d 9' \
	'main;[off-cpu];e;f 3' 'main;[off-cpu];g 4' 'x;y;[off-cpu];s 2' 'x;y;z 1' > "$TMP/m.folded"
printf '%s\n' 'w;--;a;b 5' 'w;--;a;c 2' 'w;--;d 4' 'w;e 1' > "$TMP/w.folded"
for t in m w; do
	for opts in "" "--colors chain" "--minwidth 0"; do
		"$FLAMEKIT" svg --threads 1 $opts -o "$TMP/$t-1.svg" "$TMP/$t.folded" || fail "$t: one thread"
		FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_DEBUG=1 FLAMEKIT_CROWDED=never "$FLAMEKIT" svg --threads 2 $opts \
			-o "$TMP/$t-2.svg" "$TMP/$t.folded" 2> "$TMP/$t.err" || fail "$t: two threads"
		grep -q 'walk: in two parts from stack [0-9]*$' "$TMP/$t.err" || fail "$t: not in two parts"
		assert_files_eq "$TMP/$t-1.svg" "$TMP/$t-2.svg"
	done
done
# (main is drawn in the off-CPU palette's blue: its colour's blue the largest part)
fill=$(grep -o '<rect [^>]*><title>main ' "$TMP/m-1.svg" | sed 's/.*fill="#\([0-9a-f]*\)".*/\1/')
[ ${#fill} -eq 6 ] || fail "main not drawn"
[ $((16#${fill:4:2})) -gt $((16#${fill:0:2})) ] || fail "main (fill #$fill) not drawn as off-CPU"

# every profile is split (none declined: whole counts)
[ "$two" -eq "$m" ] || fail "only $two of $m drawings swept in two parts"

# a count that is not a whole number: declined, walked again by the first thread
gen 7 > "$TMP/f.folded"
echo 'a;b;c 1.5' >> "$TMP/f.folded"
"$FLAMEKIT" svg --threads 1 -o "$TMP/f1.svg" "$TMP/f.folded" 2> /dev/null || fail "fraction: one thread"
FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_DEBUG=1 FLAMEKIT_CROWDED=never "$FLAMEKIT" svg --threads 2 \
	-o "$TMP/f2.svg" "$TMP/f.folded" 2> "$TMP/f.err" || fail "fraction: two threads"
grep -q 'walk: in two parts from stack [0-9]*, the second walked again by the first thread' "$TMP/f.err" ||
	{ cat "$TMP/f.err" >&2; fail "fraction: the join did not decline"; }
assert_files_eq "$TMP/f1.svg" "$TMP/f2.svg"
echo "$n drawings swept in two parts as one thread draws them; a fraction declined"

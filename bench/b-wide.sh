#!/usr/bin/env bash
# b-wide.sh - profiles whose stacks share little (issue 15): folded files generated from a
# seed (names from a pool of thousands, depth 4-40, little prefix sharing; a 10M-node
# variant; one where nearly every name is new), and profiles of many names that share long
# first bytes (issue 23: C++ namespaces, JVM packages, Go paths, 16 equal bytes; from
# gen-prefix.py), through `flamekit svg`, `html`, `collapse --format
# folded`, `merge` and `diff` (against a copy with other counts and some stacks gone), as
# ratios to `sort` of the same file and, when FK_INFERNO names a directory holding
# inferno-flamegraph and inferno-diff-folded, to inferno's svg and diff in the same run
# (html, collapse and merge, which inferno lacks, against its svg: the same read and fold).
# flamekit reads with two threads on two CPUs (its default; svg-1thread: one, svg-2threads:
# two, as the default is).
# FK_BENCH_RUNS (5) runs each, round-robin; FK_BENCH_SCALE (1) scales the stack counts;
# FK_BENCH_SHAPES picks some of "wide huge names";
# FK_BENCH_WIDE_CACHE (/tmp/fk-bench-wide) keeps the generated files. Peak RSS is also shown
# per tree node of the input (the issue's target: 16-24 bytes where the tree is kept).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
FLAMEKIT=$BUILD/flamekit
RUNS=${FK_BENCH_RUNS:-5}
SCALE=${FK_BENCH_SCALE:-1}
CACHE=${FK_BENCH_WIDE_CACHE:-/tmp/fk-bench-wide}
INFERNO=${FK_INFERNO:-}
mkdir -p "$CACHE"

# gen NAME STACKS POOL NEWNAMES: NAME.folded, sorted as collapse tools write it. POOL names
# to draw from (NEWNAMES: most frames get a name of their own instead)
gen() {
	local out=$CACHE/$1-s$SCALE.folded
	if [ ! -s "$out" ]; then
		echo "b-wide: generating $out (once)..." >&2
		python3 - "$2" "$3" "$4" > "$out.tmp" <<'EOF'
import random, sys
want, pool, fresh = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == '1'
r = random.Random(15)
kinds = ['%s', 'ns::Cls%d::%s', 'std::map<K%d, V>::%s', 'Lcom/ex/Svc%d;.%s', '%s_[k]']
def name(i):
    k = kinds[i % len(kinds)]
    base = 'fn_%x' % (i * 2654435761 % 4294967296)
    return k % base if k.count('%') == 1 else k % (i % 97, base)
names = [name(i) for i in range(pool)]
nfresh = 0
seen = set()
w = sys.stdout.write
while len(seen) < want:
    d = r.randint(4, 40)
    # a few roots and a short shared top, then frames drawn from the whole pool
    s = ['root%d' % r.randrange(8)] + [names[r.randrange(64)] for _ in range(r.randint(0, 2))]
    while len(s) < d:
        if fresh and r.random() < 0.18:
            s.append('u%x_%s' % (nfresh, names[r.randrange(pool)]))
            nfresh += 1
        else:
            s.append(names[r.randrange(pool)])
    key = ';'.join(s)
    if key in seen:
        continue
    seen.add(key)
    w('%s %d\n' % (key, int(r.paretovariate(1.1))))
EOF
		LC_ALL=C sort "$out.tmp" > "$out"
		rm -f "$out.tmp"
	fi
	echo "$out"
}
s() { awk -v n="$1" -v k="$SCALE" 'BEGIN {printf "%d", n * k}'; }
# genp SHAPE STACKS NAMES: names sharing long first bytes (bench/gen-prefix.py, issue 23)
genp() {
	local out=$CACHE/$1-s$SCALE.folded
	if [ ! -s "$out" ]; then
		echo "b-wide: generating $out (once)..." >&2
		python3 bench/gen-prefix.py "$@" > "$out.tmp" && mv "$out.tmp" "$out"
	fi
	echo "$out"
}
SHAPES=${FK_BENCH_SHAPES:-wide huge names cxx jvm go same16}
INS=()
for shape in $SHAPES; do
	case $shape in
	wide) INS+=("$(gen wide "$(s 210000)" 5000 0)") ;;   # ~5M tree nodes
	huge) INS+=("$(gen huge "$(s 500000)" 5000 0)") ;;   # ~12M
	names) INS+=("$(gen names "$(s 200000)" 5000 1)") ;; # ~0.8M distinct names
	# many names with long shared first bytes: 0.2M-1M distinct names each
	cxx) INS+=("$(genp cxx "$(s 150000)" "$(s 400000)")") ;;
	jvm) INS+=("$(genp jvm "$(s 200000)" "$(s 1000000)")") ;;
	go) INS+=("$(genp go "$(s 100000)" "$(s 250000)")") ;;
	same16) INS+=("$(genp same16 "$(s 200000)" "$(s 800000)")") ;;
	*) echo "b-wide: unknown shape $shape" >&2; exit 1 ;;
	esac
done

if [ -n "$INFERNO" ] && [ -x "$INFERNO/inferno-flamegraph" ]; then
	echo "b-wide: inferno from $INFERNO"
else
	echo "b-wide: no inferno column (set FK_INFERNO to a directory holding inferno-flamegraph)"
	INFERNO=
fi

for IN in "${INS[@]}"; do
	# tree nodes: in bytewise order the stacks sharing a prefix of frames are adjacent
	nodes=$(awk '{ sub(/ [^ ]*$/, ""); n = split($0, f, ";"); c = 0
		while (c < n && c < pn && f[c + 1] == p[c + 1]) c++
		t += n - c; delete p; for (i = 1; i <= n; i++) p[i] = f[i]; pn = n } END { print t }' "$IN")
	IN2=${IN%.folded}.after
	[ -s "$IN2" ] || awk 'NR % 7 { $NF = NR % 3 ? $NF : $NF * 2 + 1; print }' "$IN" > "$IN2"
	cat "$IN" "$IN2" > /dev/null
	cmds=(sort="sort -o /dev/null $IN" svg="$FLAMEKIT svg -o /dev/null $IN"
		svg-1thread="$FLAMEKIT svg --threads 1 -o /dev/null $IN"
		svg-2threads="$FLAMEKIT svg --threads 2 -o /dev/null $IN"
		html="$FLAMEKIT html -o /dev/null $IN"
		collapse="$FLAMEKIT collapse --format folded -o /dev/null $IN"
		merge="$FLAMEKIT merge -o /dev/null $IN $IN2" diff="$FLAMEKIT diff -o /dev/null $IN $IN2")
	[ -n "$INFERNO" ] && cmds+=(inferno-svg="$INFERNO/inferno-flamegraph $IN"
		inferno-diff="$INFERNO/inferno-diff-folded $IN $IN2")
	LC_ALL=C python3 bench/timeit.py "$RUNS" "${cmds[@]}" > "$CACHE/m.out"
	echo "b-wide: $(basename "$IN"): $(wc -l < "$IN") stacks, $nodes tree nodes, $(($(stat -c %s "$IN") / 1000000)) MB; best and median of $RUNS round-robin runs"
	awk -v inf="$INFERNO" -v nodes="$nodes" '
		{ bw[$1] = $2; mw[$1] = $4; rss[$1] = $6; order[++n] = $1 }
		END {
			peer["svg"] = "inferno-svg"; peer["svg-1thread"] = "inferno-svg"; peer["svg-2threads"] = "inferno-svg"
			peer["html"] = "inferno-svg"; peer["collapse"] = "inferno-svg"; peer["merge"] = "inferno-svg"
			peer["diff"] = "inferno-diff"
			for (i = 1; i <= n; i++) {
				l = order[i]
				line = sprintf("  %-12s wall best %7.3f s  median %7.3f s  rss %5d MB (%4.0f B/node)  median/sort %6.2fx", l, bw[l], mw[l], rss[l] / 1024, rss[l] * 1024 / nodes, mw[l] / mw["sort"])
				if (inf != "" && (l in peer))
					line = line sprintf("  vs inferno: median %5.2fx  best %5.2fx  rss %5.2fx", mw[l] / mw[peer[l]], bw[l] / bw[peer[l]], rss[l] / rss[peer[l]])
				print line
			}
			printf "  two threads / one (svg --threads 2 and 1, median wall): %.2fx; load %s\n", mw["svg-2threads"] / mw["svg-1thread"], load
		}' load="$(cut -d' ' -f1-3 /proc/loadavg)" "$CACHE/m.out"
done

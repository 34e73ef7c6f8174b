#!/usr/bin/env bash
# t-threads.sh - the two-thread perf script path against one thread, on seeded inputs built
# to stress how the halves are joined: the second half's stacks are merged into the first
# half's tree (new stacks beside old ones at every depth, stacks only one half has, runs of
# hundreds of stacks sharing deep prefixes so the radix sort recurses), for folded and
# samples output, one file or several (the second file goes into a profile that already
# holds the first: the indexed merge), split at many points.
. "$(dirname "$0")/../lib.sh"
command -v python3 > /dev/null || skip "python3 not installed"

gen() { # SEED SAMPLES > perf script text
	python3 - "$1" "$2" << 'EOF'
import random, sys
seed, n = int(sys.argv[1]), int(sys.argv[2])
r = random.Random(seed)
comms = ["java", "server", "cxx app", "node"]
# a small vocabulary for the shared top frames, a large one below: deep shared prefixes
top = ["start_thread", "main", "run", "loop", "dispatch"]
mid = ["f%d" % i for i in range(40)]
low = ["g%d_%s" % (i, "x" * (i % 7)) for i in range(3000)]
t = 1000.0
for s in range(n):
    comm = r.choice(comms)
    pid = r.choice([11, 12, 13])
    t += 0.0001
    print("%s %d/%d [000] %.6f: %d cpu-clock:pppH: " % (comm, pid, pid, t, r.choice([1000, 250000])))
    depth = r.randint(1, 30)
    frames = []
    for d in range(depth):
        if d < 3:
            frames.append(top[(d + (s % 2)) % len(top)])   # two families of 3-frame prefixes
        elif d < 8:
            frames.append(r.choice(mid[:6 + d]))
        else:
            frames.append(r.choice(low))
    if r.random() < 0.1:
        frames.append("[unknown]")
    # perf prints the leaf first
    for f in reversed(frames):
        mod = "/tmp/perf-%d.map" % pid if f.startswith("g1") else "/usr/lib/libx.so"
        print("\t%16x %s+0x%x (%s)" % (r.randrange(1 << 40), f, r.randrange(256), mod))
    print()
EOF
}

gen 1 6000 > "$TMP/a.ps"
gen 2 3000 > "$TMP/b.ps"
# the second half holds stacks the first has and many it has not
cat "$TMP/a.ps" "$TMP/b.ps" > "$TMP/ab.ps"
n=0
for in in "$TMP/a.ps" "$TMP/ab.ps"; do
	for o in "" "--pid" "--tid --all" "--samples"; do
		# shellcheck disable=SC2086
		"$FLAMEKIT" collapse $o "$in" > "$TMP/one" || fail "collapse $o"
		[ "$(wc -l < "$TMP/one")" -gt 1000 ] || fail "too few stacks for the test to mean anything"
		for split in 1 300000 700000; do
			# shellcheck disable=SC2086
			FLAMEKIT_SPLIT_MIN=$split "$FLAMEKIT" collapse --threads 2 $o "$in" > "$TMP/two" ||
				fail "--threads 2 $o (split min $split)"
			cmp -s "$TMP/one" "$TMP/two" || { diff "$TMP/one" "$TMP/two" | head -5 >&2; fail "$(basename "$in") [$o] split $split: two threads differ"; }
			n=$((n + 1))
		done
	done
	"$FLAMEKIT" collapse --emit samples "$in" > "$TMP/s1" || fail "samples"
	FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --threads 2 --emit samples "$in" > "$TMP/s2" || fail "samples, 2 threads"
	cmp -s "$TMP/s1" "$TMP/s2" || { diff "$TMP/s1" "$TMP/s2" | head -5 >&2; fail "samples differ with two threads"; }
	n=$((n + 1))
done
# the first thread takes the second's tail: half of what it has not read, or all of it when
# the CPUs are crowded (FLAMEKIT_LATE_SECOND holds the second thread back until then, as a
# busy machine may; FLAMEKIT_CROWDED=0 finds them crowded at once); malformed lines in the
# first half, in the second's part and in the tail: the same output, the same messages in
# line order, the same status
gen 3 14000 | python3 -c '
import sys
lines = sys.stdin.read().split("\n")
n = len(lines)
for f in (0.1, 0.45, 0.6, 0.8, 0.97):
    i = int(n * f)
    while lines[i] != "":
        i += 1
    lines.insert(i + 2, "?         14cfd%x bad_frame_line_%d" % (i, i))
# a sample of another event after the first bad line: its note comes between the messages
i = int(n * 0.2)
while lines[i] != "":
    i += 1
lines[i + 1:i + 1] = ["node 11/11 [000] 1000.000001: 1 page-faults:u: ", "\t     1234 f0+0x1 (/usr/lib/libx.so)", ""]
sys.stdout.write("\n".join(lines))' > "$TMP/c.ps"
[ "$(stat -c %s "$TMP/c.ps")" -gt 8000000 ] || fail "too small for a tail worth taking"
"$FLAMEKIT" collapse --threads 1 "$TMP/c.ps" > "$TMP/one" 2> "$TMP/one.err"
echo $? > "$TMP/one.rc"
[ "$(grep -c 'unrecognized line.*bad_frame_line' "$TMP/one.err")" = 5 ] || fail "malformed lines not all said"
grep -q "events 'page-faults:u' skipped" "$TMP/one.err" || fail "no note of the skipped event"
sed 's/^flamekit: [^:]*:\([0-9]*\):.*/\1/' "$TMP/one.err" > "$TMP/lines"
sort -n -c "$TMP/lines" || fail "messages not in line order: $(tr '\n' ' ' < "$TMP/lines")"
# (FLAMEKIT_FREE_AT=K: a CPU found free at the K-th look, looked for between the first
# pieces of 512 KB, the first bad line among them; 9: at none, one thread reads on)
for hook in "FLAMEKIT_LATE_SECOND=1" "FLAMEKIT_LATE_SECOND=1 FLAMEKIT_CROWDED=0" "FLAMEKIT_CROWDED=0" "" \
	"FLAMEKIT_FREE_AT=3" "FLAMEKIT_FREE_AT=9"; do
	# shellcheck disable=SC2086 # (the hook's words)
	env $hook FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --threads 2 "$TMP/c.ps" > "$TMP/two" 2> "$TMP/two.err"
	echo $? > "$TMP/two.rc"
	assert_files_eq "$TMP/one" "$TMP/two"
	assert_files_eq "$TMP/one.err" "$TMP/two.err"
	assert_files_eq "$TMP/one.rc" "$TMP/two.rc"
	n=$((n + 1))
done
# and the pprof written from it (its own order: names in string order, nodes by name)
"$FLAMEKIT" collapse --threads 1 -o "$TMP/one.pb.gz" "$TMP/c.ps" 2> /dev/null
FLAMEKIT_LATE_SECOND=1 FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --threads 2 -o "$TMP/two.pb.gz" "$TMP/c.ps" 2> /dev/null
cmp "$TMP/one.pb.gz" "$TMP/two.pb.gz" || fail "pprof differs when the first thread takes the tail"

# a tree's nodes past 1 MB (ab.ps: ~100k) and the layout's frames and totals live in stretches
# of address space of their own; where address space is limited (no 64 GiB stretch to be
# had), on the heap: the same drawing either way, one thread or two
if [ "${SANITIZE:-0}" = 1 ]; then
	echo "(ASan reserves its shadow memory: not run under a limit on address space)"
else
	"$FLAMEKIT" svg --threads 1 --minwidth 0.02 -o "$TMP/roomy.svg" "$TMP/ab.ps" 2> /dev/null ||
		fail "svg of ab.ps"
	for t in 1 2; do
		( ulimit -v 1000000 && FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" svg --threads $t --minwidth 0.02 \
			-o "$TMP/tight.svg" "$TMP/ab.ps" 2> /dev/null ) || fail "svg of ab.ps, 1 GB of address space, $t thread(s)"
		assert_files_eq "$TMP/roomy.svg" "$TMP/tight.svg"
		n=$((n + 1))
	done
fi

# several files: the second goes into a profile that already has the first's tree
"$FLAMEKIT" collapse "$TMP/b.ps" "$TMP/a.ps" "$TMP/b.ps" > "$TMP/one" || fail "three files"
FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --threads 2 "$TMP/b.ps" "$TMP/a.ps" "$TMP/b.ps" > "$TMP/two" || fail "three files, 2 threads"
cmp -s "$TMP/one" "$TMP/two" || { diff "$TMP/one" "$TMP/two" | head -5 >&2; fail "three files: two threads differ"; }
# a full disk with two threads: an error, not a short file that looks complete
FLAMEKIT_SPLIT_MIN=1 run_rc 1 "$FLAMEKIT" collapse --threads 2 -o /dev/full "$TMP/ab.ps" 2> "$TMP/err"
assert_contains "$TMP/err" "/dev/full"
# and the whole result is the merge of the parts
"$FLAMEKIT" collapse "$TMP/ab.ps" > "$TMP/whole"
"$FLAMEKIT" collapse "$TMP/a.ps" > "$TMP/pa"
"$FLAMEKIT" collapse "$TMP/b.ps" > "$TMP/pb"
"$FLAMEKIT" merge "$TMP/pa" "$TMP/pb" > "$TMP/merged" || fail "merge"
assert_files_eq "$TMP/whole" "$TMP/merged"
# a second reading thread only where a CPU is free for it: bound to one CPU (taskset), a file
# past the split size (56 MiB) is read by one thread whatever --threads says, the same output
if command -v strace > /dev/null && command -v taskset > /dev/null; then
	for _ in $(seq 40); do cat "$TMP/ab.ps"; done > "$TMP/big.ps"
	[ "$(stat -c %s "$TMP/big.ps")" -gt $((56 << 20)) ] || fail "too small to be split: $(stat -c %s "$TMP/big.ps")"
	clones() { # COMMAND...: clone calls while it reads big.ps
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
			strace -f -qq -e trace=clone,clone3 -o "$TMP/strace.out" "$@" "$TMP/big.ps" > "$TMP/big.out" ||
			fail "$* big.ps"
		grep -c clone "$TMP/strace.out" || true
	}
	"$FLAMEKIT" collapse --threads 1 "$TMP/big.ps" > "$TMP/big.one" || fail "big.ps, one thread"
	assert_eq "reading threads, two asked, one CPU" 0 "$(clones taskset -c 0 "$FLAMEKIT" collapse --threads 2)"
	assert_files_eq "$TMP/big.one" "$TMP/big.out"
	assert_eq "reading threads, two asked, a CPU free" 1 \
		"$(FLAMEKIT_CROWDED=never clones "$FLAMEKIT" collapse --threads 2)"
	assert_files_eq "$TMP/big.one" "$TMP/big.out"
	assert_eq "reading threads, a CPU free at the third look" 1 \
		"$(FLAMEKIT_FREE_AT=3 clones "$FLAMEKIT" collapse --threads 2)"
	assert_files_eq "$TMP/big.one" "$TMP/big.out"
	assert_eq "reading threads, a CPU free at no look" 0 \
		"$(FLAMEKIT_FREE_AT=9 clones "$FLAMEKIT" collapse --threads 2)"
	assert_files_eq "$TMP/big.one" "$TMP/big.out"
	rm -f "$TMP"/big.*
else
	echo "(strace or taskset not installed: the threads made for a big file are not checked)"
fi
echo "ok: $n two-thread runs identical to one thread (folded, samples, several files)"

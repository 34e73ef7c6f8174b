#!/usr/bin/env bash
# t-folded-threads.sh - folded files read by two threads (FLAMEKIT_SPLIT_MIN lowered so small
# seeded files split; FLAMEKIT_LATE_SECOND: the first thread takes a tail of the second's
# part) against one thread: the same folded output, SVG and messages (line numbers of
# malformed lines in any part, in order), the same exit status, for files
# whose halves share stacks, hold stacks of their own, two count columns, comments, blank
# and CRLF lines, and malformed lines before, at and after the split.
. "$(dirname "$0")/../lib.sh"
command -v python3 > /dev/null || skip "python3 not installed"

gen() { # SEED LINES BAD > folded text (BAD: put malformed lines in)
	python3 - "$1" "$2" "$3" << 'EOF'
import random, sys
seed, n, bad = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == '1'
r = random.Random(seed)
names = ["main", "a", "a-x", "a.b", "x::y", "x::y<int>", "run", "loop"] + ["f%d" % i for i in range(300)]
shared = [";".join(r.choice(names) for _ in range(r.randint(1, 12))) for _ in range(150)]
two = seed % 3 == 0
# five malformed lines (all of them shown): two in each half, one near the middle
badat = {int(n * f) for f in (0.1, 0.3, 0.5, 0.7, 0.9)} if bad else set()
for i in range(n):
    k = r.random()
    if i in badat:
        print(r.choice(["no_count_here", " 17", "a;b;c x"]))
        continue
    if k < 0.02:
        print("# a comment" if k < 0.01 else "")
        continue
    s = r.choice(shared) if k < 0.5 else ";".join(r.choice(names) for _ in range(r.randint(1, 30)))
    c = "%d %d" % (r.randint(0, 9), r.randint(0, 9)) if two else "%d" % r.randint(1, 99)
    end = "\r" if k > 0.97 else ""
    print("%s %s%s" % (s, c, end))
EOF
}

for seed in 1 2 3 4 5 6; do
	bad=$((seed % 2))
	gen "$seed" $((800 + seed * 377)) "$bad" > "$TMP/in.folded"
	for t in 1 2; do
		FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --threads $t --format folded -o "$TMP/t$t.folded" \
			"$TMP/in.folded" 2> "$TMP/t$t.err"
		echo $? > "$TMP/t$t.rc"
		FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" svg --threads $t -o "$TMP/t$t.svg" "$TMP/in.folded" 2> /dev/null
	done
	assert_files_eq "$TMP/t1.folded" "$TMP/t2.folded"
	assert_files_eq "$TMP/t1.svg" "$TMP/t2.svg"
	assert_files_eq "$TMP/t1.err" "$TMP/t2.err"
	assert_files_eq "$TMP/t1.rc" "$TMP/t2.rc"
	# the first thread, done with its part (9/20) before the second starts, takes the tail
	# of the second's (FLAMEKIT_LATE_SECOND): three parts, malformed lines in each
	FLAMEKIT_LATE_SECOND=1 FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --threads 2 --format folded \
		-o "$TMP/t3.folded" "$TMP/in.folded" 2> "$TMP/t3.err"
	echo $? > "$TMP/t3.rc"
	assert_files_eq "$TMP/t1.folded" "$TMP/t3.folded"
	assert_files_eq "$TMP/t1.err" "$TMP/t3.err"
	assert_files_eq "$TMP/t1.rc" "$TMP/t3.rc"
	if [ $bad = 1 ]; then
		# messages name lines of both halves
		n=$(wc -l < "$TMP/in.folded")
		last=$(grep -o 'in.folded:[0-9]*' "$TMP/t2.err" | tail -1 | cut -d: -f2)
		[ "${last:-0}" -gt $((n / 2)) ] || fail "seed $seed: no message from the second half (last line ${last:-none} of $n)"
		assert_eq "exit status with malformed lines" 3 "$(cat "$TMP/t2.rc")"
	fi
	# the sum of every count is kept
	want=$(awk '/^#/ || NF < 2 { next } { sub(/\r$/, "") } $NF ~ /^[0-9]+$/ && NF >= 2 { s += $NF } END { print s + 0 }' "$TMP/in.folded")
	got=$(awk '{ s += $NF } END { print s + 0 }' "$TMP/t2.folded")
	if [ $((seed % 3)) -ne 0 ]; then # (one count column)
		assert_eq "seed $seed: total" "$want" "$got"
	fi
done
# a CPU found free only at the third look (looked for every 256 lines as they are read: what
# is left from line 513 on is read in halves) or at none (one thread to the end): the same
# output, messages (malformed lines before the split, in each half) and status as one thread
gen 4 3000 1 > "$TMP/in.folded"
"$FLAMEKIT" collapse --threads 1 -o "$TMP/l1.folded" "$TMP/in.folded" 2> "$TMP/l1.err"
echo $? > "$TMP/l1.rc"
for k in 3 9; do
	FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_FREE_AT=$k "$FLAMEKIT" collapse --threads 2 -o "$TMP/l2.folded" \
		"$TMP/in.folded" 2> "$TMP/l2.err"
	echo $? > "$TMP/l2.rc"
	assert_files_eq "$TMP/l1.folded" "$TMP/l2.folded"
	assert_files_eq "$TMP/l1.err" "$TMP/l2.err"
	assert_files_eq "$TMP/l1.rc" "$TMP/l2.rc"
done
assert_eq "malformed lines said" 5 "$(grep -c 'in.folded:[0-9]' "$TMP/l1.err")"
# a file that splits exactly where a line ends, and one of a single line
printf 'a;b 1\nc 2\n' > "$TMP/two.folded"
FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --threads 2 -o "$TMP/two.out" "$TMP/two.folded" || fail "two lines"
assert_eq "two lines" "$(printf 'a;b 1\nc 2')" "$(cat "$TMP/two.out")"
printf 'a;b 5' > "$TMP/one.folded"
FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --threads 2 -o "$TMP/one.out" "$TMP/one.folded" || fail "one line"
assert_eq "one line without newline" "a;b 5" "$(cat "$TMP/one.out")"
# a collapse tool's output (each stack once, sorted or not) is read in batches (one thread
# adds, the other splits the lines ahead), not by two halves merged: against the same text
# read from a pipe (neither way), the same output, messages and status, for files with
# malformed, blank, comment, CRLF and two-count lines, sorted and not
gen 7 3000 0 > "$TMP/raw.folded"
"$FLAMEKIT" collapse --threads 1 -o "$TMP/sorted.folded" "$TMP/raw.folded" || fail "collapse"
collapsed() { # SEED > a collapse tool's output, dressed
	python3 - "$1" "$TMP/sorted.folded" << 'EOF'
import random, sys
r = random.Random(int(sys.argv[1]))
lines = open(sys.argv[2]).read().splitlines()
if r.random() < 0.5:
    r.shuffle(lines)
two = int(sys.argv[1]) % 2 == 0
for i, l in enumerate(lines):
    k = r.random()
    if k < 0.01:
        print(r.choice(["no_count_here", " 17", "a;b;c x", "# a comment", ""]))
    if two:
        l += " %d" % r.randint(0, 9)
    print(l + ("\r" if k > 0.98 else ""))
EOF
}
for seed in 11 12 13 14; do
	collapsed $seed > "$TMP/col.folded"
	for t in 1 2; do
		for way in file pipe; do
			if [ $way = file ]; then
				FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --threads $t -o "$TMP/$way.folded" \
					"$TMP/col.folded" 2> "$TMP/$way.err"
			else
				cat "$TMP/col.folded" | "$FLAMEKIT" collapse --threads $t -o "$TMP/$way.folded" \
					- 2> "$TMP/$way.err"
			fi
			echo $? > "$TMP/$way.rc"
			sed -i 's/^flamekit: [^:]*col\.folded:/INPUT:/; s/^flamekit: <stdin>:/INPUT:/' "$TMP/$way.err"
		done
		assert_files_eq "$TMP/pipe.folded" "$TMP/file.folded"
		assert_files_eq "$TMP/pipe.err" "$TMP/file.err"
		assert_files_eq "$TMP/pipe.rc" "$TMP/file.rc"
		FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" svg --threads $t -o "$TMP/file.svg" "$TMP/col.folded" 2> /dev/null
		cat "$TMP/col.folded" | "$FLAMEKIT" svg --threads $t -o "$TMP/pipe.svg" - 2> /dev/null
		assert_files_eq "$TMP/pipe.svg" "$TMP/file.svg"
	done
	grep -q 'INPUT:[0-9]' "$TMP/file.err" || fail "seed $seed: no malformed line said"
	# the CPUs found crowded after a batch or two (FLAMEKIT_CROWDED: from batch N on): the
	# first thread adds what is split and reads the rest alone, to the same output
	for n in 0 1 2; do
		FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_CROWDED=$n "$FLAMEKIT" collapse --threads 2 \
			-o "$TMP/crowd.folded" "$TMP/col.folded" 2> "$TMP/crowd.err"
		echo $? > "$TMP/crowd.rc"
		sed -i 's/^flamekit: [^:]*col\.folded:/INPUT:/' "$TMP/crowd.err"
		assert_files_eq "$TMP/pipe.folded" "$TMP/crowd.folded"
		assert_files_eq "$TMP/pipe.err" "$TMP/crowd.err"
		assert_files_eq "$TMP/pipe.rc" "$TMP/crowd.rc"
	done
done
# a collapse tool's output cut in batches (two threads split them, each batch from where
# the one before ends): two kinds of stacks in turn, each sharing its first frames with the
# stack two lines up and none with the line before, and comments, blanks, malformed and
# CRLF lines between; a batch's first line shares frames only with the stack line just
# before it. The same output and messages as one thread's.
python3 - > "$TMP/turns.folded" << 'EOF'
import random
r = random.Random(5)
for i in range(8000):
    k = r.random()
    if k < 0.03:
        print(r.choice(["# a comment", "", "no_count_here", "a;b;c x"]))
    t = "ab"[i % 2]
    print("%s.main;%s.svc%d;%s.run%d;%s.leaf%d %d%s" % (t, t, i // 400, t, i // 20, t, i, r.randint(1, 9),
                                                      "\r" if k > 0.97 else ""))
EOF
"$FLAMEKIT" collapse --threads 1 -o "$TMP/turns1.out" "$TMP/turns.folded" 2> "$TMP/turns1.err"
echo $? > "$TMP/turns1.rc"
FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_CROWDED=never FLAMEKIT_DEBUG=1 "$FLAMEKIT" collapse --threads 2 \
	-o "$TMP/turns2.out" "$TMP/turns.folded" 2> "$TMP/turns2.dbg"
echo $? > "$TMP/turns2.rc"
grep -q "read by two threads in 1[6-7] batches" "$TMP/turns2.dbg" ||
	fail "turns.folded: not read in batches by two threads: $(grep batches "$TMP/turns2.dbg")"
grep -v ': debug ' "$TMP/turns2.dbg" > "$TMP/turns2.err"
assert_files_eq "$TMP/turns1.out" "$TMP/turns2.out"
assert_files_eq "$TMP/turns1.err" "$TMP/turns2.err"
assert_files_eq "$TMP/turns1.rc" "$TMP/turns2.rc"
assert_eq "turns.folded: stacks" 8000 "$(wc -l < "$TMP/turns2.out")"
# names and stacks past a MiB, met out of order (their arrays in reserved stretches, whose
# next pages the second thread makes ahead of the first: fk_populate), read in batches by
# two threads, and past FK_RADIX_TWO_MIN names and stacks (ranked and sorted by two
# threads, 150k names of one run at byte 8 sorted by both at once, the stacks' runs past
# their first three frames shared by both; FLAMEKIT_CROWDED=never: a CPU counts as free):
# the same drawing and collapse output as one thread's; how much was made ahead is said
# (not asserted: the second makes pages only when it has nothing else to do)
awk 'BEGIN { for (i = 0; i < 150000; i++)
	printf "main;pkg.Svc%d;pkg.Run%d;com.example.server.handler.Frame%07d;org.example.Leaf%06d %d\n",
		i % 3, i % 5, i * 7919 % 150001, i * 31 % 70001, i % 7 + 1 }' \
	> "$TMP/wide.folded"
"$FLAMEKIT" svg --threads 1 -o "$TMP/wide1.svg" "$TMP/wide.folded" || fail "wide.folded, one thread"
FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_CROWDED=never FLAMEKIT_DEBUG=1 "$FLAMEKIT" svg --threads 2 -o "$TMP/wide2.svg" "$TMP/wide.folded" \
	2> "$TMP/wide.err" || fail "wide.folded, two threads"
assert_files_eq "$TMP/wide1.svg" "$TMP/wide2.svg"
# (the drawing merges the narrow frames: the order of every stack is the collapse output's)
"$FLAMEKIT" collapse --threads 1 -o "$TMP/wide1.out" "$TMP/wide.folded" || fail "collapse wide.folded, one thread"
FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_CROWDED=never "$FLAMEKIT" collapse --threads 2 -o "$TMP/wide2.out" "$TMP/wide.folded" ||
	fail "collapse wide.folded, two threads"
assert_files_eq "$TMP/wide1.out" "$TMP/wide2.out"
# that output is in order: found so by one thread or by two, each over half of the stacks;
# the same lines with the two at the middle swapped (the pair the second half's check
# starts with) are put in order again: the same output (the drawing would not show it:
# a stack's own frames are too narrow to be drawn)
half=$(($(wc -l < "$TMP/wide1.out") / 2))
awk -v m="$half" 'NR == m { held = $0; next } { print } NR == m + 1 { print held }' \
	"$TMP/wide1.out" > "$TMP/wide-swap.folded"
cmp -s "$TMP/wide1.out" "$TMP/wide-swap.folded" && fail "wide-swap.folded: nothing swapped"
for f in wide1.out wide-swap.folded; do
	"$FLAMEKIT" collapse --threads 1 -o "$TMP/$f.1" "$TMP/$f" || fail "collapse $f, one thread"
	FLAMEKIT_SPLIT_MIN=1 FLAMEKIT_CROWDED=never "$FLAMEKIT" collapse --threads 2 -o "$TMP/$f.2" "$TMP/$f" ||
		fail "collapse $f, two threads"
	assert_files_eq "$TMP/wide1.out" "$TMP/$f.1"
	assert_files_eq "$TMP/wide1.out" "$TMP/$f.2"
done
made=$(sed -n 's/.*read by two threads in [0-9]* batches (.*), \([0-9]*\) KB of pages made ahead.*/\1/p' "$TMP/wide.err")
[ -n "$made" ] || fail "wide.folded: no word of two threads reading in batches: $(cat "$TMP/wide.err")"
echo "(wide.folded: $made KB of pages made ahead of the first thread)"
rm -f "$TMP"/wide*
threads_made() { # FILE THREADS: clone calls while svg reads FILE (written as folded stacks:
	# the SVG writer may make a thread too; LeakSanitizer cannot run under ptrace: the leak
	# check is left to the other tests)
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	FLAMEKIT_SPLIT_MIN=1 strace -f -qq -e trace=clone,clone3 -o "$TMP/strace.out" \
		"$FLAMEKIT" svg --threads "$2" -o "$TMP/s.folded" "$1" || fail "svg $1"
	grep -c clone "$TMP/strace.out" || true
}
if command -v strace > /dev/null; then
	# (one thread splits ahead of the one that adds; with --threads 1, none)
	assert_eq "threads for a collapsed file" 1 "$(threads_made "$TMP/sorted.folded" 2)"
	assert_eq "threads for a collapsed file, --threads 1" 0 "$(threads_made "$TMP/sorted.folded" 1)"
	[ "$(threads_made "$TMP/raw.folded" 2)" -ge 1 ] || fail "uncollapsed text was not split"
	late_split() { # K: clone calls while collapse reads in.folded, a CPU free at the K-th look
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 FLAMEKIT_SPLIT_MIN=1 \
		FLAMEKIT_FREE_AT=$1 strace -f -qq -e trace=clone,clone3 -o "$TMP/strace.out" \
			"$FLAMEKIT" collapse --threads 2 -o "$TMP/s.folded" "$TMP/in.folded" 2> /dev/null
		grep -c clone "$TMP/strace.out" || true
	}
	assert_eq "threads, a CPU free at the third look" 1 "$(late_split 3)"
	assert_eq "threads, a CPU free at no look" 0 "$(late_split 9)"
	# a second thread only where a CPU is free for it: bound to one CPU (taskset), a file
	# past the split size (16 MiB) is read by one thread whatever --threads says
	if command -v taskset > /dev/null; then
		awk 'BEGIN { for (i = 0; i < 400000; i++)
			printf "main;svc::Handler::run;pkg.Dispatch%05d;leaf_%03d %d\n", i % 4000, i % 4000 % 97, i % 5 + 1 }' > "$TMP/big.folded"
		[ "$(stat -c %s "$TMP/big.folded")" -gt $((16 << 20)) ] || fail "too small to be split"
		big_threads() { # ENV...: clone calls while collapse reads big.folded with --threads 2
			env "$@" ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
				strace -f -qq -e trace=clone,clone3 -o "$TMP/strace.out" \
				taskset -c 0 "$FLAMEKIT" collapse --threads 2 -o "$TMP/big.out" "$TMP/big.folded" ||
				fail "collapse big.folded"
			grep -c clone "$TMP/strace.out" || true
		}
		"$FLAMEKIT" collapse --threads 1 -o "$TMP/big.one" "$TMP/big.folded" || fail "big.folded, one thread"
		assert_eq "threads for a big file, one CPU" 0 "$(big_threads)"
		assert_files_eq "$TMP/big.one" "$TMP/big.out"
		assert_eq "threads for a big file, one CPU said free" 1 "$(big_threads FLAMEKIT_CROWDED=never)"
		assert_files_eq "$TMP/big.one" "$TMP/big.out"
		rm -f "$TMP"/big.*
	fi
else
	echo "(strace not installed: the threads made are not checked, only the output)"
fi
echo "two-thread folded reading agrees with one thread"

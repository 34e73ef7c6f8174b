#!/usr/bin/env bash
# flamekit collapse/merge on folded input: merging, order, exit codes, bad
# input messages with file:line, atomic -o, write errors, filters.
. "$(dirname "$0")/../lib.sh"

printf 'main;b;c 3\nmain;b 2\nmain;b.c 1\nmain;b;x 1.5\nmain;b;c 4\n' > "$TMP/a.folded"
$FLAMEKIT collapse "$TMP/a.folded" > "$TMP/out" || fail "collapse failed"
printf 'main;b 2\nmain;b.c 1\nmain;b;c 7\nmain;b;x 1.5\n' > "$TMP/want"
assert_files_eq "$TMP/want" "$TMP/out"

# stdin and "-" give the same
$FLAMEKIT collapse < "$TMP/a.folded" > "$TMP/out2" && cmp -s "$TMP/out" "$TMP/out2" || fail "stdin differs"
$FLAMEKIT collapse - < "$TMP/a.folded" > "$TMP/out2" && cmp -s "$TMP/out" "$TMP/out2" || fail "'-' differs"

# merge of two hosts' files adds counts
printf 'main;b;c 10\nother;z 1\n' > "$TMP/b.folded"
$FLAMEKIT merge "$TMP/a.folded" "$TMP/b.folded" > "$TMP/m" || fail "merge failed"
assert_contains "$TMP/m" "main;b;c 17"
assert_contains "$TMP/m" "other;z 1"
run_rc 2 $FLAMEKIT merge 2>/dev/null

# malformed lines: warned with file:line, good lines kept, exit 3
printf 'main;a 1\nthis line has no count\nmain;a 2\n' > "$TMP/bad.folded"
$FLAMEKIT collapse "$TMP/bad.folded" > "$TMP/out" 2> "$TMP/err"; rc=$?
assert_eq "exit status for skipped input" 3 $rc
assert_contains "$TMP/err" "bad.folded:2: no count"
assert_eq "good lines kept" "main;a 3" "$(cat "$TMP/out")"

# warnings are capped, then counted
for i in $(seq 1 20); do echo "broken$i"; echo "ok;x 1"; done > "$TMP/many.folded"
$FLAMEKIT collapse --format folded "$TMP/many.folded" > "$TMP/out" 2> "$TMP/err"; rc=$?
assert_eq "exit" 3 $rc
assert_eq "warnings shown" 6 "$(wc -l < "$TMP/err")"
assert_contains "$TMP/err" "20 malformed lines skipped in all"
assert_eq "kept" "ok;x 20" "$(cat "$TMP/out")"

# missing file alone: exit 1, nothing on stdout; with a good file: exit 3
$FLAMEKIT collapse "$TMP/nope" > "$TMP/out" 2> "$TMP/err"; rc=$?
assert_eq "missing file" 1 $rc
assert_contains "$TMP/err" "nope: No such file or directory"
[ ! -s "$TMP/out" ] || fail "output for a missing file"
$FLAMEKIT collapse "$TMP/nope" "$TMP/a.folded" > "$TMP/out" 2>/dev/null; rc=$?
assert_eq "missing + good" 3 $rc
assert_files_eq "$TMP/want" "$TMP/out"
$FLAMEKIT collapse "$TMP" > /dev/null 2> "$TMP/err"; rc=$?
assert_eq "directory" 1 $rc
assert_contains "$TMP/err" "is a directory"

# -o is atomic: no file (and no temp) left on failure, replaced on success
echo old > "$TMP/o.folded"
$FLAMEKIT collapse -o "$TMP/o.folded" "$TMP/nope" 2>/dev/null; rc=$?
assert_eq "-o failure" 1 $rc
assert_eq "old output untouched" old "$(cat "$TMP/o.folded")"
$FLAMEKIT collapse -o "$TMP/o.folded" "$TMP/a.folded" || fail "-o"
assert_files_eq "$TMP/want" "$TMP/o.folded"
ls "$TMP" | grep -q '\.tmp\.' && fail "temp file left behind"
# replacing: the name gets a new file (names exchanged, the old removed), as rename() does:
# another link to the old file keeps the old bytes; no temp left
echo older > "$TMP/o2.folded"
ln "$TMP/o2.folded" "$TMP/o2.link"
$FLAMEKIT collapse -o "$TMP/o2.folded" "$TMP/a.folded" || fail "-o over a linked file"
assert_files_eq "$TMP/want" "$TMP/o2.folded"
assert_eq "the other link's file untouched" older "$(cat "$TMP/o2.link")"
ls "$TMP" | grep -q '\.tmp\.' && fail "temp file left behind (replacing)"

# full disk fails loudly
if [ -w /dev/full ]; then
	$FLAMEKIT collapse "$TMP/a.folded" > /dev/full 2> "$TMP/err"; rc=$?
	assert_eq "/dev/full" 1 $rc
	assert_contains "$TMP/err" "write error"
fi

# binary garbage, NUL bytes, empty input, invalid UTF-8
python3 -c 'import random, sys; r = random.Random(3); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(20000)))' > "$TMP/garbage"
$FLAMEKIT collapse "$TMP/garbage" > "$TMP/out" 2> "$TMP/err"; rc=$?
assert_eq "garbage" 1 $rc
assert_contains "$TMP/err" "garbage:1: input looks binary"
printf 'a;b\0c 2\nx;y 1\n' > "$TMP/nul.folded"
$FLAMEKIT collapse --format folded "$TMP/nul.folded" > "$TMP/out" || fail "NUL bytes"
assert_eq "NUL kept in name" 2 "$(wc -l < "$TMP/out")"
: > "$TMP/empty"
$FLAMEKIT collapse "$TMP/empty" > "$TMP/out" 2> "$TMP/err"; rc=$?
assert_eq "empty input" 1 $rc
assert_contains "$TMP/err" "empty input"
assert_contains "$TMP/err" "no stacks in input"
printf 'm;\xff\xfe bad utf8 1\nm;ok 1\n' > "$TMP/utf.folded"
$FLAMEKIT collapse "$TMP/utf.folded" > "$TMP/out" || fail "invalid UTF-8"
assert_eq "invalid utf8 lines" 2 "$(wc -l < "$TMP/out")"

# 100 KB frame names and 10,000-frame stacks
python3 -c "print('main;' + 'x'*100000 + ' 5')" > "$TMP/long.folded"
$FLAMEKIT collapse "$TMP/long.folded" > "$TMP/out" || fail "100 KB line"
assert_eq "long line bytes" "$(wc -c < "$TMP/long.folded")" "$(wc -c < "$TMP/out")"
python3 -c "print(';'.join('f%d' % i for i in range(10000)) + ' 3')" > "$TMP/deep.folded"
$FLAMEKIT collapse "$TMP/deep.folded" > "$TMP/out" || fail "deep stack"
cmp -s "$TMP/deep.folded" "$TMP/out" || fail "deep stack changed"

# fractional counts kept exactly; two-column input stays two-column
printf 'a;b 1.5\na;b 2.25\na;c 0.1\n' | $FLAMEKIT collapse > "$TMP/out"
assert_eq "fractions" "$(printf 'a;b 3.75\na;c 0.1')" "$(cat "$TMP/out")"
printf 'a;b 1 2\na;c 3 0\n' | $FLAMEKIT collapse > "$TMP/out"
assert_eq "two columns" "$(printf 'a;b 1 2\na;c 3 0')" "$(cat "$TMP/out")"

# filters
$FLAMEKIT collapse --keep ';x$' "$TMP/a.folded" > "$TMP/out"
assert_eq "keep" "main;b;x 1.5" "$(cat "$TMP/out")"
$FLAMEKIT collapse --drop '^main;b(;|$)' "$TMP/a.folded" > "$TMP/out"
assert_eq "drop" "main;b.c 1" "$(cat "$TMP/out")"
run_rc 2 $FLAMEKIT collapse --keep '([' "$TMP/a.folded" 2>/dev/null

# samples output round-trips through the samples reader
$FLAMEKIT collapse --emit samples "$TMP/a.folded" > "$TMP/s" || fail "--emit samples"
head -1 "$TMP/s" | grep -q '^# flamekit samples v1$' || fail "samples header"
$FLAMEKIT collapse "$TMP/s" > "$TMP/out" || fail "read samples"
assert_files_eq "$TMP/want" "$TMP/out"

# sorted folded files are streamed: a file's pages are let go of as they are passed, in the
# check pass and in the writing pass, so the peak memory stays far below the files' size
awk 'BEGIN { for (i = 0; i < 640000; i++)
	printf "main;svc::handler::Request::process;com.example.server.Dispatch%07d;leaf_%07d %d\n", i, i, i % 7 + 1 }' > "$TMP/big-a.folded"
awk 'NR % 3 { $NF = $NF * 2; print }' "$TMP/big-a.folded" > "$TMP/big-b.folded"
peak_kb() { python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if rc == 0 else -1)' "$@"; }
limit=$(( $(stat -c %s "$TMP/big-a.folded") / 1024 / 2 ))
for cmd in "collapse --format folded" merge diff; do
	if [ "$cmd" = merge ] || [ "$cmd" = diff ]; then ins=("$TMP/big-a.folded" "$TMP/big-b.folded"); else ins=("$TMP/big-a.folded"); fi
	kb=$(peak_kb $FLAMEKIT $cmd -o "$TMP/big.out" "${ins[@]}")
	[ "$kb" -gt 0 ] && [ "$kb" -lt "$limit" ] || fail "$cmd of sorted files: peak $kb KB, want under $limit KB (half a file; python under it takes ~10 MB)"
done
# and a page once let go of is not touched again (the stack before, compared for order, lay
# behind the pages let go of: each such touch mapped back the pages around it, a sixteenth
# of the file in all, the whole file where the page cache holds large folios): the file's
# mapping, watched in /proc/PID/smaps, holds ~1 MB at any time
mapped_kb() { python3 - "$@" <<'EOF2'
import subprocess, sys
path, argv = sys.argv[1], sys.argv[2:]
p = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
peak = 0
while p.poll() is None:
    try:
        kb, cur = 0, False
        for line in open('/proc/%d/smaps' % p.pid):
            if line[0] in '0123456789abcdef' and ' ' in line and '-' in line.split(' ', 1)[0]:
                cur = line.rstrip('\n').endswith(path)
            elif cur and line.startswith('Rss:'):
                kb += int(line.split()[1])
        peak = max(peak, kb)
    except (OSError, ValueError):
        pass
print(peak if p.wait() == 0 else -1)
EOF2
}
for cmd in "collapse --format folded" diff; do
	if [ "$cmd" = diff ]; then ins=("$TMP/big-a.folded" "$TMP/big-b.folded"); else ins=("$TMP/big-a.folded"); fi
	kb=$(mapped_kb "$TMP/big-a.folded" $FLAMEKIT $cmd -o "$TMP/big.out" "${ins[@]}")
	[ "$kb" -ge 0 ] && [ "$kb" -lt 2560 ] || fail "$cmd of sorted files: $kb KB of the file mapped at once, want under 2.5 MB"
done
$FLAMEKIT merge "$TMP/big-a.folded" "$TMP/big-b.folded" | awk '{ s += $NF } END { print s }' > "$TMP/sum"
assert_eq "merged counts" "$(cat "$TMP/big-a.folded" "$TMP/big-b.folded" | awk '{ s += $NF } END { print s }')" "$(cat "$TMP/sum")"
rm -f "$TMP"/big-*

# usage errors, help, version
run_rc 2 $FLAMEKIT collapse --bogus 2>/dev/null
run_rc 2 $FLAMEKIT nosuchcommand 2>/dev/null
$FLAMEKIT collapse --help | grep -q -- '--event-filter' || fail "collapse --help"
$FLAMEKIT --version | grep -qE '^flamekit [0-9]' || fail "--version"
echo "collapse CLI checks passed"

#!/usr/bin/env bash
# Bad and extreme input for the multi-line formats: truncated records, binary
# garbage, NUL bytes, invalid UTF-8, 100 KB names, 10,000-frame stacks, empty,
# missing and unreadable files. Each gives a clear message naming the file (and
# line), exit 3 (some input skipped) or 1 (nothing readable), never a crash.
. "$(dirname "$0")/../lib.sh"
FORMATS="stap dtrace gdb bpftrace perf-report eu-stack pprof-raw"

# write_stack FORMAT COUNT FRAME... (root first): one record in that format
write_stack() {
	local fmt=$1 count=$2; shift 2
	local i
	case $fmt in
	stap)	for ((i = $#; i >= 1; i--)); do printf ' 0x%x : %s+0x1/0x10 [m]\n' $i "${!i}"; done
		printf '\t%s\n' "$count" ;;
	dtrace)	for ((i = $#; i >= 1; i--)); do printf '  %s+0x1\n' "${!i}"; done
		printf '  %s\n\n' "$count" ;;
	gdb)	for ((n = 0; n < count; n++)); do
			printf 'Thread 1 (Thread 0x7f00 (LWP 42) "t"):\n'
			for ((i = $#; i >= 1; i--)); do printf '#%d  0x00000000004%05x in %s () at f.c:1\n' $(($# - i)) $i "${!i}"; done
			printf '\n'
		done ;;
	bpftrace) printf '@[\n'
		for ((i = $#; i >= 1; i--)); do printf '    %s\n' "${!i}"; done
		printf ']: %s\n' "$count" ;;
	perf-report) local IFS=';'; printf '%s %s\n' "$count" "$*" ;;
	eu-stack) printf 'PID 42 - process\n'
		for ((n = 0; n < count; n++)); do
			printf 'TID 42:\n'
			for ((i = $#; i >= 1; i--)); do printf '#%-2d 0x00000000004%05x %s\n' $(($# - i)) $i "${!i}"; done
		done ;;
	pprof-raw) printf 'Samples:\nsamples/count cpu/nanoseconds\n  %s 1000: ' "$count"
		for ((i = $#; i >= 1; i--)); do printf '%d ' $i; done
		printf '\nLocations\n'
		for ((i = 1; i <= $#; i++)); do printf '  %d: 0x%x M=1 %s f.go:1 s=0\n' $i $i "${!i}"; done
		printf 'Mappings\n' ;;
	esac
}
# header lines some formats want first (dtrace skips 3 lines of probe chatter)
header() {
	case $1 in
	dtrace) printf 'CPU     ID                    FUNCTION:NAME\n  0  64091                        :tick-60s \n\n' ;;
	bpftrace) printf 'Attaching 1 probe...\n\n\n' ;;
	*) ;;
	esac
}
# collapse FILE FORMAT: output in $TMP/out, messages in $TMP/err, exit status in rc
collapse() { rc=0; "$FLAMEKIT" collapse --format "$2" "$1" > "$TMP/out" 2> "$TMP/err" || rc=$?; }
# random-looking bytes, the same every run
garbage() { python3 -c 'import random, sys; r = random.Random(7); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(int(sys.argv[1]))))' "$1"; }
no_crash() { [ "$rc" -lt 128 ] || { cat "$TMP/err" >&2; fail "$1: crashed (exit $rc)"; }; }

for fmt in $FORMATS; do
	f=$TMP/$fmt.txt

	# 10,000-frame stack
	{ header $fmt; write_stack $fmt 3 $(seq -f 'f%g' 1 10000); } > "$f"
	collapse "$f" $fmt; no_crash "$fmt deep"
	assert_eq "$fmt 10k frames exit" 0 $rc
	assert_eq "$fmt 10k frames" "10000 3" "$(awk -F';' '{ n = NF; sub(/.* /, "", $NF); print n, $NF }' "$TMP/out")"
	assert_eq "$fmt 10k frames leaf" "f10000 3" "$(sed 's/.*;//' "$TMP/out")"

	# a 100 KB frame name between two short ones
	big=$(head -c 100000 /dev/zero | tr '\0' 'x')
	{ header $fmt; write_stack $fmt 2 main "$big" leaf; } > "$f"
	collapse "$f" $fmt; no_crash "$fmt long"
	assert_eq "$fmt 100KB name exit" 0 $rc
	assert_eq "$fmt 100KB name" "main;${big};leaf 2" "$(cat "$TMP/out")"

	# NUL bytes and invalid UTF-8 in names pass through byte for byte
	{ header $fmt; write_stack $fmt 5 main 'a\0b' $'\xff\xfe\xc3(' leaf; } > "$TMP/raw"
	printf '%b' "$(sed 's/\\/\\\\/g' "$TMP/raw" | sed 's/a\\\\0b/a\\0b/')" > "$f"
	collapse "$f" $fmt; no_crash "$fmt nul"
	assert_eq "$fmt NUL/UTF-8 exit" 0 $rc
	printf 'main;a\0b;\xff\xfe\xc3(;leaf 5\n' > "$TMP/exp"
	cmp -s "$TMP/exp" "$TMP/out" || { od -c "$TMP/out" | head >&2; fail "$fmt: NUL/invalid UTF-8 name changed"; }

	# CRLF line ends read like LF
	{ header $fmt; write_stack $fmt 4 main work leaf; } | sed 's/$/\r/' > "$f"
	collapse "$f" $fmt; no_crash "$fmt crlf"
	assert_eq "$fmt CRLF" "main;work;leaf 4" "$(cat "$TMP/out")"

	# binary garbage: a message, exit 1 or 3, no crash
	# (seeded, so a chance line that happens to parse cannot make this flaky)
	garbage 20000 > "$f"
	collapse "$f" $fmt; no_crash "$fmt garbage"
	[ $rc -eq 1 ] || [ $rc -eq 3 ] || fail "$fmt garbage: exit $rc"
	[ -s "$TMP/err" ] || fail "$fmt garbage: no message"

	# empty file
	: > "$f"
	collapse "$f" $fmt
	assert_eq "$fmt empty exit" 1 $rc
	assert_contains "$TMP/err" "no stacks in input"
done

# Truncated final record: the complete stacks still count, the cut one is
# named by file and line, exit 3. (gdb: a backtrace ending at end of input
# is complete, as for stackcollapse-gdb.pl.)
for fmt in stap dtrace bpftrace; do
	f=$TMP/$fmt-trunc.txt
	{ header $fmt; write_stack $fmt 7 main good; write_stack $fmt 9 main cut | head -2; } > "$f"
	line=$(( $(header $fmt | wc -l) + $(write_stack $fmt 7 main good | wc -l) + 1 ))
	collapse "$f" $fmt; no_crash "$fmt truncated"
	assert_eq "$fmt truncated exit" 3 $rc
	assert_eq "$fmt truncated output" "main;good 7" "$(cat "$TMP/out")"
	assert_contains "$TMP/err" "$fmt-trunc.txt:$line: input ends inside"
done
{ write_stack gdb 1 main good; write_stack gdb 1 main last | head -3; } > "$TMP/gdb-trunc.txt"
collapse "$TMP/gdb-trunc.txt" gdb
assert_eq "gdb truncated exit" 0 $rc
assert_eq "gdb truncated" "main;good 1|main;last 1" "$(paste -sd'|' "$TMP/out")"
printf '# Overhead  Command\n12 main;good\n8' > "$TMP/pr-trunc.txt"
collapse "$TMP/pr-trunc.txt" perf-report
assert_eq "perf-report truncated exit" 3 $rc
assert_eq "perf-report truncated output" "main;good 12" "$(cat "$TMP/out")"
assert_contains "$TMP/err" "pr-trunc.txt:3: count without a call chain"

# Malformed lines in the middle: warned with file:line, good records kept.
{ header bpftrace; write_stack bpftrace 2 a b; echo 'garbage here'; write_stack bpftrace 3 a c; } > "$TMP/bt-bad.txt"
collapse "$TMP/bt-bad.txt" bpftrace
assert_eq "bpftrace bad line exit" 3 $rc
assert_eq "bpftrace bad line" "a;b 2|a;c 3" "$(paste -sd'|' "$TMP/out")"
assert_contains "$TMP/err" "bt-bad.txt:8: not bpftrace map output"
printf '# Overhead  Command\nx1 a;b\n5 a;b\n-3 a;c\n' > "$TMP/pr-bad.txt"
collapse "$TMP/pr-bad.txt" perf-report
assert_eq "perf-report bad count exit" 3 $rc
assert_eq "perf-report bad count" "a;b 5" "$(cat "$TMP/out")"
assert_contains "$TMP/err" "pr-bad.txt:2: not perf report -g folded output"
assert_contains "$TMP/err" "pr-bad.txt:4: not perf report -g folded output"

# A map name longer than any buffer: every entry of that one map counts.
long=$(printf 'm%.0s' $(seq 100))
printf '@%s[\n  a\n  main\n]: 2\n@%s[\n  b\n  main\n]: 3\n' "$long" "$long" > "$TMP/bt-long.txt"
collapse "$TMP/bt-long.txt" bpftrace
assert_eq "bpftrace long map name exit" 0 $rc
assert_eq "bpftrace long map name" "main;a 2|main;b 3" "$(paste -sd'|' "$TMP/out")"

# Auto-detection refuses binary input with a clear message.
garbage 20000 > "$TMP/garbage"
rc=0; "$FLAMEKIT" collapse "$TMP/garbage" > "$TMP/out" 2> "$TMP/err" || rc=$?
assert_eq "garbage auto exit" 1 $rc
assert_contains "$TMP/err" "garbage:1: input looks binary"

# Missing and unreadable inputs (root reads any file, so use a directory and
# /proc/self/mem, which fails at offset 0).
for bad in "$TMP/missing.txt" "$TMP" /proc/self/mem; do
	rc=0; "$FLAMEKIT" collapse "$bad" > "$TMP/out" 2> "$TMP/err" || rc=$?
	assert_eq "exit for $bad" 1 $rc
	assert_contains "$TMP/err" "$bad: "
	[ ! -s "$TMP/out" ] || fail "$bad: output written"
done
# One readable file among unreadable ones: its stacks, exit 3.
write_stack stap 6 main ok > "$TMP/ok.txt"
rc=0; "$FLAMEKIT" collapse "$TMP/missing.txt" "$TMP/ok.txt" "$TMP" > "$TMP/out" 2> "$TMP/err" || rc=$?
assert_eq "mixed exit" 3 $rc
assert_eq "mixed output" "main;ok 6" "$(cat "$TMP/out")"
assert_contains "$TMP/err" "missing.txt: No such file"
# gdb backtraces: --full-names keeps C++ names with spaces whole, up to the
# argument list (the default stays stackcollapse-gdb.pl's first word)
printf '%s\n' 'Thread 1 (Thread 0x7f (LWP 5) "app"):' \
	'#0  0x00007f in std::function<int (int, int)>::operator()(int, int) const (this=0x7ffd, __args#0=1) at /usr/include/c++/12/bits/std_function.h:591' \
	'#1  0x000055 in run (f=...) at app.cc:10' '#2  0x000056 in start (g=(a (b))) from /lib/x.so' \
	'#3  main () at app.cc:20' '' > "$TMP/cxx.gdb"
assert_eq "gdb default names" "main;start;run;std::function<int 1" "$("$FLAMEKIT" collapse "$TMP/cxx.gdb")"
assert_eq "gdb --full-names" "main;start;run;std::function<int (int, int)>::operator()(int, int) const 1" \
	"$("$FLAMEKIT" collapse --full-names "$TMP/cxx.gdb")"
echo "edge cases: ok"

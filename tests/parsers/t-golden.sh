#!/usr/bin/env bash
# Golden tests: every recorded or hand-written input in tests/parsers/data/FORMAT/
# collapses (format auto-detected, and forced with --format) to the folded
# output FlameGraph's perl script gives for it (see data/README.md).
. "$(dirname "$0")/../lib.sh"
D=$FK_TOP/tests/parsers/data
n=0
for exp in "$D"/*/*.expected; do
	base=${exp%.expected}
	fmt=$(basename "$(dirname "$exp")")
	in=$base.txt
	opts=()
	# NAME.OPTION.expected: the same input collapsed with --OPTION
	if [ ! -f "$in" ]; then
		opt=${base##*.}
		in=${base%.*}.txt
		case $opt in
		task-clock) opts=(--event-filter task-clock) ;;
		pid-tid) opts=(--pid --tid) ;;
		tid) opts=(--tid) ;;
		no-comm) opts=(--no-comm) ;;
		offsets) opts=(--offsets) ;;
		*) fail "no input for $exp" ;;
		esac
	fi
	for force in auto "$fmt"; do
		rc=0
		"$FLAMEKIT" collapse --format "$force" "${opts[@]}" "$in" > "$TMP/out" 2> "$TMP/err" || rc=$?
		[ $rc -eq 0 ] || { cat "$TMP/err" >&2; fail "$in (--format $force): exit $rc"; }
		assert_files_eq "$exp" "$TMP/out"
		n=$((n + 1))
	done
done
[ $n -ge 50 ] || fail "only $n golden comparisons ran"

# Clean inputs give no warning at all.
for f in perf-report/count.txt gdb/pmp-loop.txt gdb/cxx-threads.txt stap/print-stack.txt \
	 dtrace/example.txt dtrace/inline-java.txt dtrace/bare-names.txt eu-stack/threads.txt \
	 eu-stack/modules.txt jstack/spin.txt pprof-raw/cpu.txt pprof-raw/inline.txt sample/finder.txt \
	 dtrace/ustack.txt bpftrace/kstack-ustack.txt bpftrace/ustack.txt bpftrace/ustack-kstack.txt; do
	"$FLAMEKIT" collapse "$D/$f" > /dev/null 2> "$TMP/err" || fail "$f: exit $?"
	[ ! -s "$TMP/err" ] || { cat "$TMP/err" >&2; fail "$f: unexpected messages"; }
done

# Several bpftrace maps in one output: only the first stack map is read, the
# rest is named once (it would count every sample twice); --map picks another,
# --all-maps reads all, each under its name.
"$FLAMEKIT" collapse "$D/bpftrace/all-maps.txt" > "$TMP/out" 2> "$TMP/err" || fail "all-maps: exit $?"
assert_files_eq "$D/bpftrace/kstack-ustack.expected" "$TMP/out"
assert_contains "$TMP/err" "entries of other stack maps skipped (only @ is read; choose with --map NAME, or --all-maps)"
for m in u:ustack a:comm-kstack @b:kstack-comm @:kstack-ustack; do
	"$FLAMEKIT" collapse --map "${m%%:*}" "$D/bpftrace/all-maps.txt" > "$TMP/out" 2> "$TMP/err" || fail "--map ${m%%:*}: exit $?"
	assert_files_eq "$D/bpftrace/${m#*:}.expected" "$TMP/out"
	[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "--map ${m%%:*}: messages"; }
done
"$FLAMEKIT" collapse --all-maps "$D/bpftrace/all-maps.txt" > "$TMP/out" || fail "--all-maps: exit $?"
{ sed 's/^/@;/' "$D/bpftrace/kstack-ustack.expected"; sed 's/^/@a;/' "$D/bpftrace/comm-kstack.expected"
  sed 's/^/@b;/' "$D/bpftrace/kstack-comm.expected"; sed 's/^/@u;/' "$D/bpftrace/ustack.expected"; } |
	LC_ALL=C sort > "$TMP/all.exp"
assert_files_eq "$TMP/all.exp" "$TMP/out"
run_rc 1 "$FLAMEKIT" collapse --map nosuch "$D/bpftrace/all-maps.txt" > "$TMP/out" 2> "$TMP/err"
assert_contains "$TMP/err" "no stack map @nosuch in the input (it has @ @a @b @u)"

# @[ustack, kstack]: user frames stay under kernel frames (listed the other way
# round); kstack-ustack.txt and ustack-kstack.txt were recorded in one session
# each and agree in shape: every kernel entry frame sits above a user frame.
for f in kstack-ustack ustack-kstack; do
	"$FLAMEKIT" collapse "$D/bpftrace/$f.txt" > "$TMP/out"
	n=$(grep -cE '(^|;)(entry_SYSCALL_64_after_hwframe|asm_[a-z_]*)(;|$)' "$TMP/out")
	[ "$n" -gt 3 ] || fail "$f: too few kernel stacks ($n)"
	! grep -E '^(entry_SYSCALL|asm_)' "$TMP/out" || fail "$f: kernel frames at the root"
done

# perf report without --no-children cannot be counted: said, with file:line;
# nothing else is in that file, so exit 1.
run_rc 1 "$FLAMEKIT" collapse "$D/perf-report/children.txt" > "$TMP/out" 2> "$TMP/err"
assert_contains "$TMP/err" "children.txt:9: perf report was run without --no-children"
assert_contains "$TMP/err" "no stacks in input"

# The two perf report views of one recording: comm added unless --no-comm.
"$FLAMEKIT" collapse --no-comm "$D/perf-report/count.txt" > "$TMP/out"
sed 's/^prog;//' "$D/perf-report/count.expected" > "$TMP/nocomm"
assert_files_eq "$TMP/nocomm" "$TMP/out"

# gdb: the same backtraces twice (two runs of the poor man's profiler
# concatenated) count twice.
cat "$D/gdb/pmp-loop.txt" "$D/gdb/pmp-loop.txt" > "$TMP/twice.txt"
"$FLAMEKIT" collapse "$TMP/twice.txt" > "$TMP/out"
awk '{ $NF = $NF * 2; print }' "$D/gdb/pmp-loop.expected" > "$TMP/twice.exp"
assert_files_eq "$TMP/twice.exp" "$TMP/out"
# ustack(perf)/kstack(perf) frames ("ffffffff821cea0b mt_find+171", "7f5a3a747bd3
# wait4+19 (/usr/lib/.../libc.so.6)") fold like the default ones once the address and
# the module are gone; the addresses tell the kernel stack (here listed second).
sed -E 's/^\t[0-9a-f]+ /    /; s/ \([^)]*\)$//' "$D/bpftrace/perf-mode.txt" > "$TMP/plain-mode.txt"
"$FLAMEKIT" collapse "$D/bpftrace/perf-mode.txt" > "$TMP/out" || fail "perf-mode: exit $?"
"$FLAMEKIT" collapse "$TMP/plain-mode.txt" > "$TMP/exp"
assert_files_eq "$TMP/exp" "$TMP/out"
grep -q ';asm_sysvec_' "$TMP/out" || fail "perf-mode: no kernel frames"
! grep -qE '^(asm_|entry_SYSCALL)' "$TMP/out" || fail "perf-mode: kernel frames at the root"
echo "golden: $n comparisons"

#!/usr/bin/env bash
# Bytes by stack: an event's field as the weight. iobytes reads 3 MiB in read_big and
# 1 MiB in read_small (which spends more CPU): the bytes graph splits 75/25 through
# perf flame (dlfilter) and through perf script | flamekit collapse, the two alike.
. "$(dirname "$0")/lib-perf.sh"
[ -r /sys/kernel/tracing/events/syscalls/sys_exit_read/format ] ||
	[ -r /sys/kernel/debug/tracing/events/syscalls/sys_exit_read/format ] ||
	skip "no syscalls:sys_exit_read tracepoint in tracefs"
build_wl iobytes
cd "$TMP"
"$PERF_FLAME" -q --io read -i io.data --folded io.folded -o io.svg -- ./iobytes > rec.out 2>&1 ||
	{ cat rec.out; fail "perf flame --io read"; }
big=$(weight_of io.folded ';read_big;')
small=$(weight_of io.folded ';read_small;')
[ "$big" -eq $((3 << 20)) ] || fail "read_big: $big bytes, wanted 3 MiB"
[ "$small" -eq $((1 << 20)) ] || fail "read_small: $small bytes, wanted 1 MiB"
pct=$(awk -v b="$big" -v s="$small" 'BEGIN { printf "%.2f", 100 * b / (b + s) }')
assert_between "read_big's share of bytes" 74 76 "$pct"
# the failing read (-EBADF) is counted, not summed
assert_contains rec.out "1 with a negative ret"
assert_contains io.svg "I/O Flame Graph"
assert_contains io.svg "bytes"

# the same recording through perf script text: the same folded stacks (exact-ret: return
# addresses looked up as perf script prints them)
"$PERF_FLAME" report -q -i io.data --weight ret --exact-ret --folded dl.folded 2> rep.err || { cat rep.err; fail "report --weight"; }
perf script -i io.data 2> /dev/null | "$BUILD/flamekit" collapse --weight ret > text.folded 2> text.err ||
	{ cat text.err; fail "collapse --weight"; }
sort dl.folded > a
sort text.folded > b
cmp -s a b || { diff a b | head; fail "dlfilter and text path differ"; }
assert_contains text.err "1 samples with a negative ret"
# a given format file serves as well as tracefs
f=/sys/kernel/tracing/events/syscalls/sys_exit_read/format
[ -r $f ] || f=/sys/kernel/debug/tracing/events/syscalls/sys_exit_read/format
cp $f fmt
perf script -i io.data 2> /dev/null | "$BUILD/flamekit" collapse --weight ret --weight-format fmt | sort > c
cmp -s a c || fail "--weight-format gave other stacks"

# the time graph of the same program does not split 75/25 (read_small spins)
"$PERF_FLAME" -q -F 499 --folded cpu.folded -- ./iobytes > /dev/null 2>&1 || fail "perf flame (cpu)"
cb=$(weight_of cpu.folded ';read_big(;|$)')
cs=$(weight_of cpu.folded ';read_small(;|$)')
[ "$cs" -gt $((cb * 3)) ] || fail "cpu: read_small $cs not well above read_big $cb"

# a field the event does not have: refused before recording, naming the fields it has
rm -f bad.data
run_fails "$PERF_FLAME" -e syscalls:sys_exit_read --weight nosuch -i bad.data -- ./iobytes 2> bad.err
assert_contains bad.err "has no numeric field nosuch; its fields: __syscall_nr, ret"
[ ! -e bad.data ] || fail "recorded despite a bad --weight"
run_fails "$PERF_FLAME" record -e cpu-clock --weight ret -o bad.data -- ./iobytes 2> bad2.err
assert_contains bad2.err "not a tracepoint or probe"
[ ! -e bad.data ] || fail "recorded despite --weight on cpu-clock"
run_fails "$PERF_FLAME" record --io nosuch -- true 2> bad3.err
assert_contains bad3.err "read (bytes read), write (bytes written), block"
# the dlfilter's weight=FIELD is checked against the recording's event too
run_fails perf script -i io.data --dlfilter "$DLF" --dlarg weight=nosuch > /dev/null 2> dl.err
assert_contains dl.err "its fields: __syscall_nr, ret"

# an event recorded without callchains says so
perf record -q -e syscalls:sys_exit_read -o nocg.data ./iobytes > /dev/null 2>&1 || fail "perf record without -g"
perf script -i nocg.data --dlfilter "$DLF" --dlarg weight=ret > nocg.folded 2> nocg.err || fail "nocg"
assert_contains nocg.err "recorded without callchains"
exit 0

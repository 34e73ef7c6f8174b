#!/usr/bin/env bash
# perf script text weighed by an event field (--weight, the format from a file), and
# off-wake pairing (--off-wake), on hand-written perf script text with known answers.
. "$(dirname "$0")/../lib.sh"
D=$FK_TOP/tests/parsers/data/perf-weight
cd "$TMP"
# syscalls print ret bare ("0x10000", print fmt "0x%lx"): found by its place in the format;
# a negative (0xff..f7 = -9, -EBADF) is counted and said, never summed; 0 adds nothing
"$FLAMEKIT" collapse --weight ret --weight-format "$D/sys_exit_read.format" "$D/reads.perf-script" > r.out 2> r.err ||
	{ cat r.err; fail "collapse --weight ret"; }
printf 'rw;main;read_big;read 196608\nrw;main;read_small;read 65536\n' > r.want
cmp -s r.out r.want || { diff r.want r.out; fail "bytes read"; }
assert_contains r.err "1 samples with a negative ret (error returns): counted, not summed"
# name=value payloads (kmalloc): the named field, not its neighbours
"$FLAMEKIT" collapse --weight bytes_alloc --weight-format "$D/kmalloc.format" "$D/kmalloc.perf-script" > k.out ||
	fail "collapse --weight bytes_alloc"
printf 'ls;perf_event_mmap;__kmalloc_cache_noprof 4096\nls;seq_open;__kmalloc_cache_noprof 128\n' > k.want
cmp -s k.out k.want || { diff k.want k.out; fail "kmalloc bytes"; }
# the graph says bytes, in the memory palette and title
"$FLAMEKIT" svg --weight bytes_alloc --weight-format "$D/kmalloc.format" "$D/kmalloc.perf-script" -o k.svg ||
	fail "svg --weight"
assert_contains k.svg "Memory Flame Graph"
assert_contains k.svg "bytes"
# several events, no --event-filter: the first in the input is weighed, whether one thread
# reads it or two split it (the second half starts with another event, which has no ret);
# formats from this machine's tracefs
if [ -r /sys/kernel/tracing/events/syscalls/sys_exit_read/format ] && [ -r /sys/kernel/tracing/events/kmem/kmalloc/format ]; then
	{ cat "$D/reads.perf-script"; for i in $(seq 40); do cat "$D/kmalloc.perf-script"; done; } > two.perf-script
	FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --weight ret two.perf-script > two.out 2> two.err ||
		{ cat two.err; fail "collapse --weight of two events"; }
	cmp -s two.out r.want || { diff r.want two.out; fail "two events: not the first event's bytes"; }
else
	echo "note: no tracefs formats of syscalls:sys_exit_read and kmem:kmalloc here: two-event case not run"
fi
# a field the event does not have: refused, naming the fields it has
run_rc 1 "$FLAMEKIT" collapse --weight nosuch --weight-format "$D/kmalloc.format" "$D/kmalloc.perf-script" > /dev/null 2> bad.err
assert_contains bad.err "event kmem:kmalloc has no numeric field nosuch; its fields: call_site, ptr, bytes_req, bytes_alloc, gfp_flags, node"
run_rc 1 "$FLAMEKIT" collapse --weight ret --weight-format "$TMP/missing" "$D/reads.perf-script" > /dev/null 2> miss.err
assert_contains miss.err "cannot read event format $TMP/missing"

# off-wake: 101 blocked 1000 us, woken by main's signal_work; 102's wakeup came 100 us
# before its switch-out and still belongs to that interval (2000 us); 103 was preempted
# (no wakeup: not drawn); the wakeup of 104 found no interval (unpaired)
"$FLAMEKIT" collapse --off-wake "$D/offwake.perf-script" > w.out 2> w.err || { cat w.err; fail "--off-wake"; }
printf 'worker;worker;wait_for_work;__schedule;--;try_to_wake_up;signal_work;main;main 3000\n' > w.want
cmp -s w.out w.want || { diff w.want w.out; fail "off-wake stacks"; }
assert_contains w.err "off-wake: 3 wakeups, 2 blocked intervals paired with one, 1 ended without one (not drawn), 1 wakeups unpaired"
"$FLAMEKIT" svg --off-wake "$D/offwake.perf-script" -o w.svg 2> /dev/null || fail "svg --off-wake"
assert_contains w.svg "Off-Wake Time Flame Graph"
# sched_waking (the waker's context) with sched_wakeup (completed in the idle task's
# interrupt, after it): the waking's waker counts, the wakeup is ignored
"$FLAMEKIT" collapse --off-wake "$D/offwaking.perf-script" > wg.out 2> wg.err || { cat wg.err; fail "--off-wake, sched_waking"; }
printf 'worker;worker;wait_for_work;__schedule;--;try_to_wake_up;signal_work;main;main 1000\n' > wg.want
cmp -s wg.out wg.want || { diff wg.want wg.out; fail "off-wake stacks from sched_waking"; }
assert_contains wg.err "off-wake: 1 wakeups, 1 blocked intervals paired with one, 0 ended without one (not drawn), 0 wakeups unpaired"
# without --off-wake the same text is plain off-CPU time (wakeups not folded)
"$FLAMEKIT" collapse "$D/offwake.perf-script" > o.out 2> /dev/null || fail "off-CPU"
assert_not_contains o.out ";--;"
exit 0

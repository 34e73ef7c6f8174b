#!/usr/bin/env bash
# Memory by stack: perf flame --mem malloc puts a uprobe on libc's malloc with its size
# argument and weighs each call by it. allocs asks 3:1 by alloc_big and alloc_small.
. "$(dirname "$0")/lib-perf.sh"
[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] || skip "no tracefs"
grep -q uprobe /sys/kernel/tracing/uprobe_events 2> /dev/null || [ -w /sys/kernel/tracing/uprobe_events ] ||
	skip "no uprobe_events in tracefs (kernel without uprobes, or not root)"
build_wl allocs
cd "$TMP"
# probe_libc:malloc is one for the whole machine: a second suite running at once (its perf flame
# finding the probe there, or holding it while this one removes it) would see it come and go,
# so runs of this test take turns
exec 8> "${TMPDIR:-/tmp}/flamekit-probe-libc-malloc.lock"
flock -w 600 8 || fail "another run held the probe_libc:malloc lock for 10 minutes"
had_probe=0
[ -e /sys/kernel/tracing/events/probe_libc/malloc ] && had_probe=1
"$PERF_FLAME" -q --mem malloc -i m.data --folded m.folded -o m.svg -- ./allocs > rec.out 2>&1 ||
	{ cat rec.out; fail "perf flame --mem malloc"; }
big=$(weight_of m.folded ';alloc_big;')
small=$(weight_of m.folded ';alloc_small;')
[ "$big" -gt 0 ] && [ "$small" -gt 0 ] || { cat m.folded; fail "no malloc stacks"; }
pct=$(awk -v b="$big" -v s="$small" 'BEGIN { printf "%.2f", 100 * b / (b + s) }')
assert_between "alloc_big's share of malloc bytes" 73 77 "$pct"
assert_contains m.svg "Memory Flame Graph"
# perf flame removes the probe it added
[ $had_probe = 1 ] || [ ! -e /sys/kernel/tracing/events/probe_libc/malloc ] || fail "probe_libc:malloc left behind"
exit 0

#!/usr/bin/env bash
# The real bpftrace: `flamekit bpftrace -p PID -d 2` on a running two-thread
# program (a worker spinning in leaf_a); `bpftrace -e '... @[ustack, kstack] ...' | flamekit collapse` and
# `flamekit bpftrace` stopped by a real Ctrl-C (SIGINT to the process group).
# Checked: the program's functions are there, offsets are cut, and user frames
# stay under kernel frames in both key orders.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/signals.sh"
command -v bpftrace > /dev/null || skip "bpftrace not installed"
timeout 60 bpftrace -e 'BEGIN { exit(); }' > "$TMP/probe.out" 2> "$TMP/probe.err" ||
	skip "bpftrace cannot attach here: $(grep -v RLIMIT_MEMLOCK "$TMP/probe.err" | head -1)"
cc -O1 -g -fno-omit-frame-pointer -o "$TMP/loop" "$FK_TOP/tests/parsers/data/eu-stack/loop.c" -lpthread ||
	fail "cannot compile loop.c"
"$TMP/loop" & pid=$!
trap 'kill $pid 2> /dev/null; rm -rf "$TMP"' EXIT
wait_threads $pid 2 "$TMP/loop"   # its worker spins

# check FILE: the program's stacks, no offsets, user roots under kernel frames
check() {
	grep -qE 'start_thread;(.*;)?leaf_a' "$1" || { head "$1"; fail "$1: the program's stack missing"; }
	! grep -qE '\+[0-9]+(;| [0-9]+$)' "$1" || fail "$1: offsets kept"
	! grep -qE '(entry_SYSCALL|asm_[a-z_]*|ret_from_fork)[^;]*;.*(start_thread|__libc_start_call_main|_start)(;| )' "$1" ||
		{ grep -E '(entry_SYSCALL|asm_).*(start_thread|__libc_start)' "$1" | head -3; fail "$1: kernel frames under user frames"; }
}

# 1. -d: bpftrace stops itself
rc=0; "$FLAMEKIT" bpftrace -p $pid -d 2 -F 199 --folded -o "$TMP/d.folded" 2> "$TMP/err" || rc=$?
[ $rc -eq 0 ] || { cat "$TMP/err"; fail "flamekit bpftrace -d 2: exit $rc"; }
check "$TMP/d.folded"

# wait_bpf: until the bpftrace in group $1 has its program loaded and attached (one perf
# event per CPU for profile:hz: a SIGINT that comes while bpftrace still attaches is lost
# on a loaded machine), then until the program has spun 0.5 s of CPU under it
wait_bpf() {
	local bt= cpus=$(nproc) attached=0
	for i in $(seq 1 1200); do
		bt=$(ps -o pid=,comm= -g $1 | awk '$2 == "bpftrace" { print $1; exit }')
		if [ -n "$bt" ] && ls -l /proc/$bt/fd 2> /dev/null | grep -q 'bpf-prog'; then
			attached=$(ls -l /proc/$bt/fd 2> /dev/null | grep -c 'perf_event')
			[ "$attached" -ge "$cpus" ] && break
		fi
		sleep 0.05
	done
	[ "$attached" -ge "$cpus" ] || fail "bpftrace attached $attached of $cpus perf events in 60 s"
	wait_cpu $pid 50
}
# interrupt CMD OUT: CMD in its own process group, Ctrl-C once sampling runs
interrupt() {
	"$in_group" "$1" 2> "$TMP/err" &
	local leader=$!
	wait_bpf $leader
	stop_group $leader
	assert_eq "exit after Ctrl-C" 0 $rc
}

# 2. bpftrace | flamekit collapse, @[ustack, kstack], Ctrl-C
interrupt "bpftrace -e 'profile:hz:199 /pid == $pid/ { @[ustack, kstack] = count(); }' 2> /dev/null |
	'$FLAMEKIT' collapse > '$TMP/pipe.folded'"
check "$TMP/pipe.folded"
grep -qE '(start_thread|__libc_start_call_main).*;(entry_SYSCALL_64_after_hwframe|asm_[a-z_]*);' "$TMP/pipe.folded" ||
	echo "note: no sample caught the program in the kernel (nothing to check the order on)"

# 3. flamekit bpftrace, Ctrl-C
interrupt "'$FLAMEKIT' bpftrace -p $pid -F 199 -o '$TMP/live.svg'"
grep -q 'leaf_a' "$TMP/live.svg" || fail "SVG after Ctrl-C lacks the program's frames"
echo "live bpftrace: $(wc -l < "$TMP/d.folded") + $(wc -l < "$TMP/pipe.folded") stacks"

#!/usr/bin/env bash
# The real bpftrace, resource graphs (docs/resource-graphs.md): `flamekit bpftrace
# --io read` on ioload (3 MiB read in read_big, 1 MiB in read_small, which spends
# more CPU): bytes split 75/25 within 1 point; `--off-wake` on wakeload (a thread
# blocked on a condition variable, woken from wake_sleeper after known work): at
# least 90% of its blocked time carries wake_sleeper above "--".
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/signals.sh"
command -v bpftrace > /dev/null || skip "bpftrace not installed"
timeout 60 bpftrace -e 'tracepoint:sched:sched_waking /0/ { } tracepoint:syscalls:sys_exit_read /0/ { } BEGIN { exit(); }' \
	> "$TMP/probe.out" 2> "$TMP/probe.err" ||
	skip "bpftrace cannot attach the tracepoints here: $(grep -v RLIMIT_MEMLOCK "$TMP/probe.err" | head -1)"
D=$FK_TOP/tests/data/resource
for p in ioload wakeload; do
	cc -O1 -g -fno-omit-frame-pointer -o "$TMP/$p" "$D/$p.c" -lpthread || fail "cannot compile $p.c"
done

# share FILE ERE: percent of the weight of folded FILE on lines matching ERE
share() { awk -v re="$2" '{ t += $NF; if ($0 ~ re) m += $NF } END { printf "%.2f", t ? 100 * m / t : -1 }' "$1"; }
near() {
	awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { exit !(g - w <= t && w - g <= t) }' ||
		fail "$1: $2% (want $3 +- $4)"
	echo "ok $1: $2% (want $3 +- $4)"
}

# trace NAME PROG TRACEPOINTS ARGS...: PROG waits (for SIGUSR1) until flamekit
# bpftrace -p has its tracepoints attached, works, says "done"; then Ctrl-C
# (SIGINT to the group) stops bpftrace while PROG still lives (its symbols resolve).
trace() {
	local name=$1 prog=$2 tps=$3; shift 3
	"$TMP/$prog" wait > "$TMP/$name.prog" & local pid=$!
	for i in $(seq 1 1200); do grep -q ready "$TMP/$name.prog" && break; sleep 0.05; done
	"$in_group" "'$FLAMEKIT' bpftrace -p $pid $* --folded -o '$TMP/$name.folded'" 2> "$TMP/$name.err" &
	local leader=$! bt= n=0
	for i in $(seq 1 1200); do
		bt=$(ps -o pid=,comm= -g $leader | awk '$2 == "bpftrace" { print $1; exit }')
		[ -n "$bt" ] && n=$(ls -l /proc/$bt/fd 2> /dev/null | grep -c 'perf_event')
		[ "$n" -ge "$tps" ] && break
		sleep 0.05
	done
	[ "$n" -ge "$tps" ] || { kill $pid; fail "$name: bpftrace attached $n of $tps tracepoints in 60 s"; }
	kill -USR1 $pid
	for i in $(seq 1 2400); do grep -q done "$TMP/$name.prog" && break; sleep 0.05; done
	grep -q done "$TMP/$name.prog" || { kill $pid; fail "$name: $prog did not finish"; }
	local rc
	stop_group $leader
	kill -USR1 $pid; wait $pid
	[ $rc -eq 0 ] || { cat "$TMP/$name.err"; fail "$name: flamekit bpftrace exit $rc"; }
}

trace io ioload 1 --io read
grep -q '^ioload;' "$TMP/io.folded" || { cat "$TMP/io.folded"; fail "io: no stacks under ioload"; }
near "io: read_big" "$(share "$TMP/io.folded" ';read_big;read_all[; ]')" 75 1
near "io: read_small" "$(share "$TMP/io.folded" ';read_small;read_all[; ]')" 25 1
all=$(awk '$0 ~ /;read_(big|small);/ { s += $NF } END { print s + 0 }' "$TMP/io.folded")
assert_eq "bytes read by the two functions" 4194304 "$all"

trace wake wakeload 2 --off-wake --user
# the sleeper's blocked time, and the part of it whose waker is wake_sleeper; none
# of it woken by the idle task (swapper/N, no stack: what sched_wakeup reads when the
# kernel completes a wakeup on the wakee's CPU through its wake list, in that CPU's
# interrupt; the script takes sched_waking, which fires in the waker's context)
idle=$(awk '/^sleeper;.*;wait_for_signal;--;(.*;)?swapper\/[0-9]+ [0-9]+$/ { s += $NF } END { print s + 0 }' "$TMP/wake.folded")
[ "$idle" -eq 0 ] || { grep '^sleeper' "$TMP/wake.folded"; fail "wake: $idle us of the sleeper's blocked time woken by swapper"; }
blocked=$(awk '/^sleeper;.*;wait_for_signal;--;/ { s += $NF } END { print s + 0 }' "$TMP/wake.folded")
waker=$(awk '/^sleeper;.*;wait_for_signal;--;wake_sleeper;.*;wakeload [0-9]+$/ { s += $NF } END { print s + 0 }' "$TMP/wake.folded")
echo "sleeper blocked $blocked us in wait_for_signal, $waker us of it woken by wake_sleeper"
[ "$blocked" -gt 0 ] || { cat "$TMP/wake.folded"; fail "wake: no blocked time of the sleeper"; }
awk -v a="$waker" -v b="$blocked" 'BEGIN { exit !(a >= 0.9 * b) }' ||
	{ grep '^sleeper' "$TMP/wake.folded"; fail "wake: under 90% of the blocked time carries wake_sleeper"; }

# kernel stacks too: the blocked one on top of the user one, up to where it
# switched out; the waker's kernel stack leaf first right above "--"
trace wakek wakeload 2 --off-wake
grep -E '^sleeper;.*;wait_for_signal;entry_SYSCALL[^;]*;.*;schedule;[^-]*;--;([^;]*;)*try_to_wake_up;.*;entry_SYSCALL[^;]*;wake_sleeper;.*;wakeload [0-9]+$' "$TMP/wakek.folded" ||
	{ grep '^sleeper' "$TMP/wakek.folded"; fail "wakek: no blocked kernel stack under '--' and the waker's above"; }
echo "resource graphs: ok"

# tests/gdb/lib-gdb.sh - sourced by the gdb plugin tests after tests/lib.sh: starts
# target programs, runs gdb with the flame command, checks the target's state in /proc.
command -v gdb > /dev/null || skip "gdb is not installed"
SCRIPT=$BUILD/gdb/flamekit.py
TARGET=$BUILD/tests/gdb/fk-target
[ -f "$SCRIPT" ] && [ -f "$BUILD/gdb/_flamekit.abi3.so" ] || skip "gdb plugin not built (python3-dev missing or SANITIZE build)"
[ -x "$TARGET" ] || fail "missing $TARGET (make test builds it)"
PIDS=()
cleanup_targets() { for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$TMP"; }
trap cleanup_targets EXIT

# start_target MODE [ARGS...]: sets $TPID once the program printed "ready"
start_target() {
	local out=$TMP/target.$RANDOM
	"$@" > "$out" 2>&1 &
	TPID=$!
	disown "$TPID"
	PIDS+=("$TPID")
	for _ in $(seq 100); do grep -qs '^ready' "$out" && return 0; sleep 0.05; done
	fail "target $* did not start"
}
# can we attach at all (containers without ptrace)?
probe_ptrace() {
	start_target "$TARGET" split
	gdb -batch -nx -p "$TPID" -ex detach > "$TMP/probe.out" 2>&1
	if grep -qi "ptrace: Operation not permitted\|Could not attach" "$TMP/probe.out"; then
		skip "ptrace attach not permitted here"
	fi
	kill -9 "$TPID"
}
# run_flame PID ARGS...: gdb -batch with the script, flame -p PID ARGS; output in $TMP/gdb.out
run_flame() {
	local pid=$1; shift
	timeout 120 gdb -batch -nx -q -x "$SCRIPT" -ex "flame -p $pid $*" > "$TMP/gdb.out" 2>&1
	GDB_RC=$?
}
# assert_running PID: alive and running on (its CPU time advances: every target
# spins, so a stop let through at detach has been delivered by then, and one the
# guardian answers after an internal error of gdb's undone), not stopped or
# traced, no leftover SIGSTOP/SIGINT pending
assert_running() {
	local st=/proc/$1/status
	[ -r "$st" ] || fail "process $1 is gone"
	local state tracer t0 t i
	t0=$(cpu_ticks "$1")
	for i in $(seq 600); do
		t=$(cpu_ticks "$1")
		[ -n "$t" ] || fail "process $1 is gone"
		[ $((t - t0)) -ge 2 ] && break
		sleep 0.1
	done
	state=$(awk '/^State:/ {print $2}' "$st")
	tracer=$(awk '/^TracerPid:/ {print $2}' "$st")
	case $state in t|T|Z|X) fail "process $1 left in state $state";; esac
	assert_eq "TracerPid of $1" 0 "$tracer"
	for t in /proc/$1/task/*/status; do
		local pnd
		pnd=$(awk '/^(SigPnd|ShdPnd):/ {print $2}' "$t" | tr '\n' ' ')
		for m in $pnd; do
			(( (0x$m & (1 << 18)) == 0 )) || fail "SIGSTOP pending in $t"
			(( (0x$m & (1 << 1)) == 0 )) || fail "SIGINT pending in $t"
		done
	done
}
# wait_stops PID N: until PID's thread fk-worker (it spins, so it never blocks of
# itself) was stopped N more times: each ptrace stop is one voluntary context switch
worker_stops() {
	local c
	for c in /proc/$1/task/*/comm; do
		[ "$(cat "$c" 2> /dev/null)" = fk-worker ] &&
			awk '/^voluntary_ctxt_switches/ { print $2 }' "${c%comm}status" && return 0
	done
	echo 0
}
wait_stops() {
	local n0 n i
	n0=$(worker_stops "$1")
	for i in $(seq 1200); do
		n=$(worker_stops "$1")
		[ $((n - n0)) -ge "$2" ] && return 0
		sleep 0.1
	done
	fail "the worker of $1 was stopped $((n - n0)) of $2 times in 120 s"
}
# share FOLDED REGEX: fraction of the total count on lines matching REGEX
share() { awk -v re="$2" '{n=$NF; t+=n; if ($0 ~ re) m+=n} END {printf "%.3f", t ? m/t : 0}' "$1"; }
total() { awk '{t+=$NF} END {print t+0}' "$1"; }
# within X LOW HIGH
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN {exit !(x >= lo && x <= hi)}'; }

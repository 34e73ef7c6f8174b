#!/usr/bin/env bash
# The signal contract of flamekit gdb and gdb's flame: SIGTERM, SIGHUP or SIGINT to the
# front end alone, or from timeout(1) (the command and then its whole group), mean
# "stop now and draw": sampling ends early, the graph is written, exit 0, no failure
# message. A second, different signal aborts: exit 1, nothing written, no temp file
# left. The target is left running every time.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-gdb.sh"
probe_ptrace
start_target "$TARGET" split

wait_sampling() {
	for _ in $(seq 600); do grep -q "flame: sampling" "$1" 2> /dev/null && return 0; sleep 0.05; done
	cat "$1"; fail "sampling never started"
}
# wait_gone PID SECONDS: the process ended within SECONDS (far less than its -d 600)
wait_gone() {
	for _ in $(seq $(( $2 * 10 ))); do kill -0 "$1" 2> /dev/null || return 0; sleep 0.1; done
	fail "process $1 still runs $2 s after the signal: the signal was ignored"
}
check_drawn() { # NAME: exit 0, a graph, no failure words
	local n=$1
	cat "$TMP/$n.err"
	assert_eq "$n: exit status" 0 "$(cat "$TMP/$n.rc")"
	grep -q "<svg" "$TMP/$n.svg" || fail "$n: no flame graph written"
	grep -q "path_a" "$TMP/$n.svg" || fail "$n: the graph misses the target's functions"
	for w in Quit failed "died of" error; do
		grep -q "$w" "$TMP/$n.err" && fail "$n: failure message after a success ($w)"
	done
	assert_running "$TPID"
}

# --- one signal to flamekit alone (a supervisor, kill): stop and draw
for sig in TERM HUP INT; do
	n=one-$sig
	( "$FLAMEKIT" gdb -p "$TPID" -d 600 -F 200 -o "$TMP/$n.svg" < /dev/null \
		> "$TMP/$n.out" 2> "$TMP/$n.err"; echo $? > "$TMP/$n.rc" ) &
	w=$!
	wait_sampling "$TMP/$n.err"
	c=$(pgrep -f -x ".*flamekit gdb -p $TPID -d 600 -F 200 -o $TMP/$n.svg") || fail "no flamekit"
	sleep 1
	kill -"$sig" "$c"
	wait_gone "$c" 120
	wait "$w"
	check_drawn "$n"
done

# --- a signal while gdb is still starting (loading Python, attaching) is not lost:
# flamekit gdb (no -d: until stopped) ends soon, the target is let go
for i in 1 2 3 4; do
	n=early-$i
	"$FLAMEKIT" gdb -p "$TPID" -F 200 --folded "$TMP/$n.folded" < /dev/null \
		> "$TMP/$n.out" 2> "$TMP/$n.err" &
	c=$!
	sleep "0.$(( i * 2 ))$(( RANDOM % 10 ))"
	kill -TERM "$c"
	wait_gone "$c" 120
	wait "$c"
	cat "$TMP/$n.err"
	for _ in $(seq 600); do pgrep -f "gdb -batch -nx -q -x .*pid=$TPID" > /dev/null || break; sleep 0.05; done
	assert_running "$TPID"
done

# --- timeout(1) passes its TERM to the command and then to the command's group
# (flamekit and gdb get it): the same, exit 0 (--preserve-status)
n=timeout
( setsid timeout --preserve-status 600 "$FLAMEKIT" gdb -p "$TPID" -F 200 -o "$TMP/$n.svg" \
	< /dev/null > "$TMP/$n.out" 2> "$TMP/$n.err"; echo $? > "$TMP/$n.rc" ) &
w=$!
wait_sampling "$TMP/$n.err"
t=$(pgrep -f -x "timeout --preserve-status 600 .*-o $TMP/$n.svg") || fail "no timeout process"
sleep 1
kill -TERM "$t"
wait_gone "$t" 120
wait "$w"
check_drawn "$n"

# --- gdb's flame alone: SIGTERM ends sampling, draws, and gdb quits with 0
n=gdb-term
gdb -batch -nx -q -x "$SCRIPT" -ex "flame -p $TPID -F 200 -o $TMP/$n.svg" < /dev/null \
	> "$TMP/$n.out" 2> "$TMP/$n.err" &
g=$!
wait_sampling "$TMP/$n.err"
sleep 1
kill -TERM "$g"
wait "$g"
echo $? > "$TMP/$n.rc"
check_drawn "$n"

# --- gdb's flame alone: a second, different signal aborts: nothing written, exit 1
n=gdb-abort
gdb -batch -nx -q -x "$SCRIPT" -ex "flame -p $TPID -F 200 -o $TMP/$n.svg" < /dev/null \
	> "$TMP/$n.out" 2> "$TMP/$n.err" &
g=$!
wait_sampling "$TMP/$n.err"
sleep 1
kill -TERM "$g"; kill -INT "$g"
wait "$g"
rc=$?
cat "$TMP/$n.err"
assert_eq "$n: exit status" 1 "$rc"
assert_contains "$TMP/$n.err" "flame: aborted"
[ -e "$TMP/$n.svg" ] && fail "$n: abort wrote the graph"
assert_running "$TPID"

# --- flamekit gdb: a second, different signal aborts: exit 1, said so, no temp files, target running
n=abort
( "$FLAMEKIT" gdb -p "$TPID" -d 600 -F 200 -o "$TMP/$n.svg" --folded "$TMP/$n.folded" \
	< /dev/null > "$TMP/$n.out" 2> "$TMP/$n.err"; echo $? > "$TMP/$n.rc" ) &
w=$!
wait_sampling "$TMP/$n.err"
c=$(pgrep -f -x ".*flamekit gdb -p $TPID -d 600 -F 200 -o $TMP/$n.svg .*") || fail "no flamekit"
sleep 1
kill -TERM "$c"; kill -INT "$c"
wait_gone "$c" 120
wait "$w"
cat "$TMP/$n.err"
assert_eq "abort: exit status" 1 "$(cat "$TMP/$n.rc")"
assert_contains "$TMP/$n.err" "aborted"
ls "$TMP" | grep -q "\.tmp\." && { ls "$TMP"; fail "abort left temp files"; }
[ -e "$TMP/$n.svg" ] || [ -e "$TMP/$n.folded" ] && fail "abort wrote outputs"
# (gdb was killed: its guardian continues the target a moment later)
for _ in $(seq 100); do
	grep -q "^State:.*[tT]" "/proc/$TPID/status" || grep -q "^TracerPid:[[:space:]]*[1-9]" "/proc/$TPID/status" || break
	sleep 0.1
done
assert_running "$TPID"
echo PASS

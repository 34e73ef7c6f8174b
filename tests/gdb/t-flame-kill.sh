#!/usr/bin/env bash
# The tracer killed mid-sampling: whatever happens to gdb or to flamekit (kill -9 of
# either or both, many times, at random moments), every thread of the target is left running
# (not in state T), detached, and the target keeps making progress.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-gdb.sh"
probe_ptrace
TRIES=${FK_KILL_TRIES:-8}

# cpu_ticks PID: utime + stime of the whole process
cpu_ticks() { awk '{sub(/.*\) /, ""); print $12 + $13}' "/proc/$1/stat"; }
# assert_unstopped PID WHAT: within a generous time no thread is stopped (T/t) or
# traced, and the process uses CPU again (its worker thread spins)
assert_unstopped() {
	local pid=$1 what=$2 bad="" tracer
	for _ in $(seq 200); do
		bad=""
		for st in /proc/$pid/task/*/stat; do
			local s
			s=$(sed 's/.*) //' "$st" 2> /dev/null | cut -d' ' -f1)
			case $s in T|t) bad="$bad ${st%/stat}:$s";; esac
		done
		tracer=$(awk '/^TracerPid:/ {print $2}' "/proc/$pid/status")
		[ -z "$bad" ] && [ "$tracer" = 0 ] && break
		sleep 0.05
	done
	[ -d "/proc/$pid" ] || fail "$what: target $pid is gone"
	[ -z "$bad" ] || fail "$what: threads left stopped:$bad"
	assert_eq "$what: TracerPid" 0 "$tracer"
	local t0 t1
	t0=$(cpu_ticks "$pid")
	for _ in $(seq 200); do
		t1=$(cpu_ticks "$pid")
		[ "$t1" -gt "$t0" ] && return 0
		sleep 0.05
	done
	fail "$what: target $pid makes no progress (cpu ticks stay at $t0)"
}
wait_sampling() {
	for _ in $(seq 600); do grep -q "flame: sampling" "$1" 2> /dev/null && return 0; sleep 0.05; done
	cat "$1"; fail "sampling never started"
}
# a random pause of 0.1-0.9 s into sampling
pause() { sleep "0.$(( RANDOM % 9 + 1 ))"; }

start_target "$TARGET" split

# --- kill -9 of gdb running the flame command
for i in $(seq "$TRIES"); do
	gdb -batch -nx -q -x "$SCRIPT" -ex "flame -p $TPID -d 20 -F 500 --folded $TMP/g$i.folded" \
		< /dev/null > "$TMP/g$i.out" 2>&1 &
	g=$!
	PIDS+=("$g")
	wait_sampling "$TMP/g$i.out"
	pause
	kill -9 "$g"
	wait "$g" 2> /dev/null
	assert_unstopped "$TPID" "gdb killed (try $i)"
done

# --- kill -9 of the gdb that flamekit gdb runs: flamekit says so, exits 1
for i in $(seq "$TRIES"); do
	"$FLAMEKIT" gdb -p "$TPID" -d 20 -F 500 --folded "$TMP/c$i.folded" < /dev/null \
		> "$TMP/c$i.out" 2> "$TMP/c$i.err" &
	c=$!
	PIDS+=("$c")
	wait_sampling "$TMP/c$i.err"
	g=$(pgrep -P "$c" gdb) || fail "no gdb under flamekit"
	pause
	kill -9 "$g"
	wait "$c"
	rc=$?
	assert_eq "flamekit exit when its gdb is killed" 1 "$rc"
	grep -q "died of signal 9" "$TMP/c$i.err" || { cat "$TMP/c$i.err"; fail "no word about gdb's death"; }
	assert_unstopped "$TPID" "flamekit's gdb killed (try $i)"
done

# --- kill -9 of flamekit itself: its gdb stops sampling, detaches and quits
for i in $(seq "$TRIES"); do
	"$FLAMEKIT" gdb -p "$TPID" -d 20 -F 500 --folded "$TMP/f$i.folded" < /dev/null \
		> "$TMP/f$i.out" 2> "$TMP/f$i.err" &
	c=$!
	PIDS+=("$c")
	wait_sampling "$TMP/f$i.err"
	g=$(pgrep -P "$c" gdb) || fail "no gdb under flamekit"
	PIDS+=("$g")
	pause
	kill -9 "$c"
	wait "$c" 2> /dev/null
	for _ in $(seq 600); do [ -d "/proc/$g" ] || break; sleep 0.05; done
	[ -d "/proc/$g" ] && { cat "$TMP/f$i.err"; fail "gdb $g still runs 30 s after flamekit was killed"; }
	assert_unstopped "$TPID" "flamekit killed (try $i)"
	# gdb ended cleanly: the samples taken were written
	[ -s "$TMP/f$i.folded" ] || { cat "$TMP/f$i.err"; fail "flamekit killed (try $i): gdb wrote no samples"; }
done

# --- kill -9 of flamekit at any moment of gdb's start (gdb loading, attaching): gdb
# must not go on sampling (no -d: until stopped) with nobody left to stop it
gdbs() { pgrep -f "gdb -batch -nx -q -x .*pid=$TPID" | tr '\n' ' '; }
for i in $(seq "$TRIES"); do
	"$FLAMEKIT" gdb -p "$TPID" -F 500 --folded "$TMP/e$i.folded" < /dev/null \
		> "$TMP/e$i.out" 2> "$TMP/e$i.err" &
	c=$!
	PIDS+=("$c")
	sleep "$(( i % 3 )).$(( RANDOM % 9 + 1 ))"
	kill -9 "$c"
	wait "$c" 2> /dev/null
	left=""
	for _ in $(seq 600); do left=$(gdbs); [ -z "$left" ] && break; sleep 0.05; done
	[ -z "$left" ] || { cat "$TMP/e$i.err"; fail "gdb $left still runs 30 s after flamekit was killed (early, try $i)"; }
	assert_unstopped "$TPID" "flamekit killed early (try $i)"
done

# --- kill -9 of flamekit and its gdb at once (their whole process group): nothing
# of theirs can clean up; gdb's guardian, in a session of its own, continues the target
for i in $(seq $(( (TRIES + 1) / 2 ))); do
	setsid "$FLAMEKIT" gdb -p "$TPID" -d 20 -F 500 --folded "$TMP/p$i.folded" < /dev/null \
		> "$TMP/p$i.out" 2> "$TMP/p$i.err" &
	c=$!
	PIDS+=("$c")
	wait_sampling "$TMP/p$i.err"
	g=$(pgrep -P "$c" gdb) || fail "no gdb under flamekit"
	pause
	kill -9 -- -"$c"
	wait "$c" 2> /dev/null
	for _ in $(seq 600); do [ -d "/proc/$g" ] || break; sleep 0.05; done
	assert_unstopped "$TPID" "flamekit and gdb killed together (try $i)"
done

# gdb that dies while it writes an output (its PATH.tmp.GDBPID half written): flamekit says
# so, exits 1, and the half-written file goes (a fake gdb, killed by SIGKILL mid-write)
cat > "$TMP/fake-gdb" <<'EOF'
#!/bin/sh
for a; do last=$a; done
out=${last##*--folded=}
out=${out%%\'*}
echo "partial;stack 1" > "$out.tmp.$$"
kill -KILL $$
EOF
chmod +x "$TMP/fake-gdb"
"$FLAMEKIT" gdb --gdb "$TMP/fake-gdb" -p "$TPID" -d 1 --folded "$TMP/dies.folded" \
	2> "$TMP/dies.err"
assert_eq "gdb died: exit status" 1 $?
assert_contains "$TMP/dies.err" "died of signal 9"
ls "$TMP" | grep -q '^dies\.folded' && { ls "$TMP"; fail "gdb's half-written output left behind"; }
echo PASS

# tests/bpftrace/signals.sh - sourced by the Ctrl-C tests (after lib.sh): run a
# pipeline in a process group of its own, as a terminal runs a foreground job,
# and wait for flamekit to be ready for the SIGINT a Ctrl-C sends.
# A background job of a script starts with SIGINT ignored, as would all it runs:
# give the pipeline the default back, as a terminal's foreground job has it.
# ("$TMP/in-group" CMD & ... $! is then the group's leader: exec all the way.)
printf '#!/bin/sh\nexec perl -e '"'"'$SIG{INT} = "DEFAULT"; exec @ARGV or die "exec: $!"'"'"' setsid bash -c "$1"\n' > "$TMP/in-group"
chmod +x "$TMP/in-group"
in_group=$TMP/in-group
# wait_caught PID: until PID catches or ignores SIGINT (flamekit has set up its
# handler, or the runner ignores it while its child runs)
wait_caught() {
	for i in $(seq 1 200); do
		local m=$(awk '/^Sig(Cgt|Ign):/ { printf "%s ", $2 }' /proc/$1/status 2> /dev/null)
		set -- $1 $m
		[ $# -eq 3 ] && (( (0x$2 | 0x$3) & 2 )) && return
		set -- $1
		sleep 0.05
	done
	fail "flamekit never took SIGINT in hand"
}
# watchdog PID|-PGID: SIGKILL it if it still runs in 60 s (what a loaded machine
# needs for bpftrace to print its map), printing first what each process of it is
# doing, so a hang shows where; ends by itself once it is gone (reaped), so nobody
# has to kill the watchdog (killing a background job before it has exec'd would
# run this script's EXIT trap in the fork).
watchdog() {
	perl -e 'for (1 .. 1200) { kill(0, $ARGV[0]) or exit 0; select(undef, undef, undef, 0.05) }
		 my $g = $ARGV[0] =~ s/^-//r;
		 print STDERR "watchdog: still running 60 s after the signal:\n";
		 system("ps -o pid,ppid,stat,wchan:32,etime,args -g $g >&2; for p in \$(ps -o pid= -g $g); do echo \"-- \$p\"; cat /proc/\$p/stack 2>/dev/null | head -6; done >&2");
		 kill "KILL", $ARGV[0]' -- "$1" &
	dog=$!
}
# stop_group LEADER: once flamekit in LEADER's process group has SIGINT in hand, SIGINT the
# group as a terminal's Ctrl-C does and wait for it, bounded by the watchdog (bpftrace can miss
# the SIGINT, in its stop flag/epoll_wait race: flamekit sends its stop once more 5 s on);
# the group's exit status in rc
stop_group() {
	local fk=$(ps -o pid=,comm= -g $1 | awk '$2 == "flamekit" { print $1 }')
	[ -n "$fk" ] || fail "no flamekit in the process group"
	wait_caught $fk
	kill -INT -- -$1
	watchdog -$1
	rc=0; wait $1 || rc=$?
	wait $dog
}

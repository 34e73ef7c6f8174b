#!/usr/bin/env bash
# flamekit bpftrace: the command line it builds, -d and Ctrl-C endings, options
# checked before anything runs, a failing bpftrace. First with a stand-in on
# --bpftrace that prints recorded bpftrace output (exact results), then with the
# real bpftrace where this kernel lets it attach (see t-live.sh).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/signals.sh"
D=$FK_TOP/tests/parsers/data/bpftrace
# The stand-in: records its arguments, prints the recorded map when the
# program's interval fires (-d; scaled down) or on SIGINT, as bpftrace does.
cat > "$TMP/fake" <<FAKE
#!/usr/bin/env bash
printf '%s\n' "\$@" > "$TMP/args"
trap 'trap "" INT; cat "$D/ustack-kstack.txt"; exit 0' INT
echo "Attaching 2 probes..."
touch "$TMP/tracing"
case "\$*" in
*"interval:s:"*) sleep 0.3; cat "$D/ustack-kstack.txt"; exit 0 ;;
esac
while :; do sleep 0.05; done
FAKE
chmod +x "$TMP/fake"
"$FLAMEKIT" collapse "$D/ustack-kstack.txt" > "$TMP/expected.folded"
"$FLAMEKIT" svg "$D/ustack-kstack.txt" > "$TMP/expected.svg"

# -d: the program stops itself; the map is read and drawn.
"$FLAMEKIT" bpftrace --bpftrace "$TMP/fake" -p 4242 -d 7 -F 49 --folded -o "$TMP/out" ||
	fail "runner with -d: exit $?"
assert_files_eq "$TMP/expected.folded" "$TMP/out"
assert_eq "bpftrace arguments" "-e|profile:hz:49 /pid == 4242/ { @[kstack, ustack] = count(); } interval:s:7 { exit(); }|-p|4242" \
	"$(paste -sd'|' "$TMP/args")"
"$FLAMEKIT" bpftrace --print-command --kernel > "$TMP/cmd"
assert_eq "print-command" "bpftrace -e 'profile:hz:99 { @[comm, kstack] = count(); }'" "$(cat "$TMP/cmd")"

# Resource graphs (docs/resource-graphs.md): the scripts of --io and --off-wake, and
# their recorded maps read into the folded shapes (bytes; off-wake with "--").
printf '#!/bin/sh\nprintf "%%s\\n" "$@" > "%s/args"\ncat "%s/fixture"\n' "$TMP" "$TMP" > "$TMP/fake-res"
chmod +x "$TMP/fake-res"
cp "$D/io-read.txt" "$TMP/fixture"
"$FLAMEKIT" bpftrace --bpftrace "$TMP/fake-res" -p 77 -d 3 --io read --folded -o "$TMP/io.folded" || fail "--io read: exit $?"
assert_eq "--io read arguments" "-e|tracepoint:syscalls:sys_exit_read /args->ret > 0 && pid == 77/ { @[comm, ustack] = sum(args->ret); } interval:s:3 { exit(); }|-p|77" \
	"$(paste -sd'|' "$TMP/args")"
assert_files_eq "$D/io-read.expected" "$TMP/io.folded"
"$FLAMEKIT" bpftrace --bpftrace "$TMP/fake-res" -p 77 --io read -o "$TMP/io.svg" || fail "--io read svg: exit $?"
assert_contains "$TMP/io.svg" "3,145,728 bytes"
"$FLAMEKIT" bpftrace --io write --both --print-command > "$TMP/cmd"
assert_eq "--io write --both" "bpftrace -e 'tracepoint:syscalls:sys_exit_write /args->ret > 0/ { @[comm, kstack, ustack] = sum(args->ret); }'" "$(cat "$TMP/cmd")"
cp "$D/offwake.txt" "$TMP/fixture"
"$FLAMEKIT" bpftrace --bpftrace "$TMP/fake-res" --off-wake --folded -o "$TMP/ow.folded" || fail "--off-wake: exit $?"
assert_files_eq "$D/offwake.expected" "$TMP/ow.folded"
assert_eq "--off-wake arguments" "-e|tracepoint:sched:sched_waking /@ts[args->pid]/ { @wc[args->pid] = comm; @wk[args->pid] = kstack; @wu[args->pid] = ustack; } tracepoint:sched:sched_switch { if ((args->prev_state & 0x7f) != 0) { \$p = args->prev_pid; @ts[\$p] = nsecs; @bk[\$p] = kstack; @bu[\$p] = ustack; delete(@wc[\$p]); } \$t = args->next_pid; \$s = @ts[\$t]; if (\$s != 0) { if (@wc[\$t] != \"\") { @[args->next_comm, @bu[\$t], @bk[\$t], \"--\", @wk[\$t], @wu[\$t], @wc[\$t]] = sum((nsecs - \$s) / 1000); } delete(@ts[\$t]); delete(@bk[\$t]); delete(@bu[\$t]); delete(@wc[\$t]); delete(@wk[\$t]); delete(@wu[\$t]); } } END { clear(@ts); clear(@bk); clear(@bu); clear(@wc); clear(@wk); clear(@wu); }" \
	"$(paste -sd'|' "$TMP/args")"
"$FLAMEKIT" bpftrace --bpftrace "$TMP/fake-res" --off-wake --user -o "$TMP/ow.svg" || fail "--off-wake svg: exit $?"
assert_contains "$TMP/ow.svg" "452,425 us"
"$FLAMEKIT" bpftrace --off-wake --kernel -p 9 --print-command > "$TMP/cmd"
grep -qF '@[args->next_comm, @bk[$t], "--", @wk[$t], @wc[$t]]' "$TMP/cmd" || { cat "$TMP/cmd"; fail "--off-wake --kernel: the key"; }
grep -qF '(args->prev_state & 0x7f) != 0 && pid == 9)' "$TMP/cmd" || { cat "$TMP/cmd"; fail "--off-wake -p: the filter"; }
rm -f "$TMP/args"

# Ctrl-C (a real SIGINT to the process group, as a terminal sends it): bpftrace
# prints its map, flamekit reads it and writes the graph.
# ctrl_c TRACER OUT: flamekit bpftrace with the stand-in TRACER in a process group of its
# own, SIGINT to the group once the stand-in runs; flamekit's exit status in rc
ctrl_c() {
	rm -f "$TMP/tracing"
	"$in_group" "'$FLAMEKIT' bpftrace --bpftrace '$1' -o '$2'" 2> "$TMP/stderr" &
	local leader=$!
	for i in $(seq 1 200); do [ -e "$TMP/tracing" ] && break; sleep 0.05; done
	[ -e "$TMP/tracing" ] || fail "the stand-in $1 did not start"
	stop_group $leader
}
ctrl_c "$TMP/fake" "$TMP/out.svg"
assert_eq "exit after Ctrl-C" 0 $rc
cmp -s "$TMP/expected.svg" "$TMP/out.svg" || { cat "$TMP/stderr"; fail "SVG after Ctrl-C differs"; }

# A stop bpftrace misses (it checks its stop flag, then waits in epoll_wait: a SIGINT in
# between waits for an event a map-only program may never have): flamekit sends it once
# more after 5 s. The stand-in loses every SIGINT of the first second after the first.
cat > "$TMP/fake-deaf" <<EOF
#!/usr/bin/env bash
first=
on_int() {
	local now=\$(date +%s%N)
	if [ -z "\$first" ]; then first=\$now; echo lost >> "$TMP/deaf.log"; return; fi
	[ \$((now - first)) -lt 1000000000 ] && return
	trap "" INT
	echo taken >> "$TMP/deaf.log"
	cat "$D/ustack-kstack.txt"
	exit 0
}
trap on_int INT
echo "Attaching 1 probe..."
touch "$TMP/tracing"
while :; do sleep 0.05; done
EOF
chmod +x "$TMP/fake-deaf"
rm -f "$TMP/deaf.log"
ctrl_c "$TMP/fake-deaf" "$TMP/deaf.svg"
assert_eq "exit after a missed stop" 0 $rc
assert_eq "the stand-in's SIGINTs" "lost taken" "$(sort -u "$TMP/deaf.log" | paste -sd' ')"
cmp -s "$TMP/expected.svg" "$TMP/deaf.svg" || { cat "$TMP/stderr"; fail "SVG after a missed stop differs"; }

# The renderer's options, as flamekit svg takes them, and the output by the -o name.
"$FLAMEKIT" svg --colors=mem --title Mine --reverse "$D/ustack-kstack.txt" > "$TMP/want-opts.svg"
"$FLAMEKIT" bpftrace --bpftrace "$TMP/fake" -d 1 --colors=mem --title Mine --reverse -o "$TMP/opts.svg" ||
	fail "bpftrace with renderer options: exit $?"
cmp -s "$TMP/want-opts.svg" "$TMP/opts.svg" || fail "bpftrace --colors=mem --title --reverse: not what flamekit svg draws"
"$FLAMEKIT" bpftrace --bpftrace "$TMP/fake" -d 1 --title Page -o "$TMP/out.HTML" || fail "bpftrace -o out.HTML"
[ "$(head -c 15 "$TMP/out.HTML")" = "<!DOCTYPE html>" ] || fail "bpftrace -o out.HTML wrote no page"
"$FLAMEKIT" options bpftrace > "$TMP/rows" || fail "flamekit options bpftrace"
for o in pid kernel user both frequency duration io off-wake folded print-command bpftrace; do
	grep -q "^$o	" "$TMP/rows" || fail "flamekit options bpftrace lacks $o"
	grep -q -- "--$o" "$FK_TOP/docs/tracers.md" || fail "docs/tracers.md lacks --$o"
done

# Every option is checked before bpftrace starts.
rm -f "$TMP/args"
for bad in "-F 0" "-d -1" "-p x" "--kernel --user" "--frobnicate" "-d" "--colors=nosuch" "--range 1-2" \
	   "--flamechart" "--io nosuch" "--io read --off-wake" "--folded -o $TMP/bad.pb.gz" "-o $TMP/no/such/dir/x.svg"; do
	want=2; [ "${bad#-o}" = "$bad" ] || want=1   # an output that cannot be written: exit 1
	run_rc $want "$FLAMEKIT" bpftrace --bpftrace "$TMP/fake" -o "$TMP/bad.svg" $bad 2> "$TMP/err"
	[ -s "$TMP/err" ] || fail "$bad: no message"
done
[ ! -e "$TMP/args" ] || fail "bpftrace ran despite a bad option"
[ ! -e "$TMP/bad.svg" ] || fail "output written despite a bad option"

# bpftrace fails (no permission, bad kernel): exit 1, its message, nothing written.
printf '#!/bin/sh\necho "ERROR: Could not resolve symbol" >&2\nexit 1\n' > "$TMP/failing"
chmod +x "$TMP/failing"
run_rc 1 "$FLAMEKIT" bpftrace --bpftrace "$TMP/failing" -d 1 -o "$TMP/x.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "Could not resolve symbol"
assert_contains "$TMP/err" "bpftrace failed (exit status 1)"
[ ! -e "$TMP/x.svg" ] || fail "output written after bpftrace failed"
run_rc 1 "$FLAMEKIT" bpftrace --bpftrace "$TMP/nonexistent" -d 1 2> "$TMP/err"
assert_contains "$TMP/err" "cannot run $TMP/nonexistent"
echo "runner: ok"

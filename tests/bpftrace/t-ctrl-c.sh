#!/usr/bin/env bash
# Ctrl-C on `tracer | flamekit svg`: the terminal sends SIGINT to the whole
# pipeline; the tracer answers by printing what it gathered, so flamekit must
# live on, read it and write the graph. Here the tracer is a stand-in that
# prints recorded bpftrace output on SIGINT (as bpftrace does), and the SIGINT
# is a real one sent to the pipeline's process group, as a terminal does.
. "$(dirname "$0")/../lib.sh"
D=$FK_TOP/tests/parsers/data/bpftrace
cat > "$TMP/tracer" <<TRACER
#!/usr/bin/env bash
trap 'trap "" INT; cat "$D/ustack-kstack.txt"; exit 0' INT
echo "Attaching 2 probes..."
touch "$TMP/tracing"
while :; do sleep 0.05; done
TRACER
chmod +x "$TMP/tracer"

. "$(dirname "$0")/signals.sh"
# ctrl_c CMD: run CMD in a process group of its own, SIGINT the group once the
# tracer runs, wait (bounded) for it to end; its exit status in rc.
ctrl_c() {
	rm -f "$TMP/tracing"
	"$in_group" "$1" > "$TMP/stdout" 2> "$TMP/stderr" &
	local leader=$!
	for i in $(seq 1 200); do [ -e "$TMP/tracing" ] && break; sleep 0.05; done
	[ -e "$TMP/tracing" ] || fail "the tracer did not start"
	# a real terminal's Ctrl-C can come before flamekit is ready; the test's must not
	stop_group $leader
	[ $rc -ne 137 ] || fail "still running 20 s after Ctrl-C"
}

ctrl_c "'$TMP/tracer' | '$FLAMEKIT' svg -o '$TMP/out.svg'"
assert_eq "exit after Ctrl-C" 0 $rc
[ -s "$TMP/out.svg" ] || { cat "$TMP/stderr"; fail "no SVG written after Ctrl-C"; }
assert_contains "$TMP/stderr" "interrupted: reading what is still coming through the pipe"
# everything the tracer printed after the SIGINT is in the graph
"$FLAMEKIT" svg -o "$TMP/direct.svg" "$D/ustack-kstack.txt"
cmp -s "$TMP/direct.svg" "$TMP/out.svg" || fail "the graph differs from the tracer's whole output"

# The same through collapse, and through a named pipe given as a file.
ctrl_c "'$TMP/tracer' | '$FLAMEKIT' collapse > '$TMP/folded'"
assert_eq "collapse exit after Ctrl-C" 0 $rc
"$FLAMEKIT" collapse "$D/ustack-kstack.txt" > "$TMP/folded.exp"
assert_files_eq "$TMP/folded.exp" "$TMP/folded"
mkfifo "$TMP/fifo"
# (both in the foreground: a background job of bash -c ignores SIGINT; stdin
# not a pipe, so only the FIFO given as a file can make flamekit wait)
ctrl_c "'$TMP/tracer' > '$TMP/fifo' | '$FLAMEKIT' collapse '$TMP/fifo' < /dev/null > '$TMP/folded'"
assert_eq "fifo exit after Ctrl-C" 0 $rc
assert_files_eq "$TMP/folded.exp" "$TMP/folded"

# A second Ctrl-C quits at once (a producer that never ends must not trap us).
mkfifo "$TMP/fifo2"
perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' "$FLAMEKIT" collapse "$TMP/fifo2" > "$TMP/folded" 2> "$TMP/stderr" &
fpid=$!
exec 3> "$TMP/fifo2"   # the producer: this script, which writes nothing more
wait_caught $fpid
kill -INT $fpid
sleep 0.3
[ "$(awk '{ print $3 }' /proc/$fpid/stat)" != Z ] || fail "the first SIGINT ended flamekit"
kill -INT $fpid
watchdog $fpid
rc=0; wait $fpid || rc=$?
wait $dog
exec 3>&-
assert_eq "killed by the second SIGINT" 130 $rc
[ ! -s "$TMP/folded" ] || fail "output written after the second Ctrl-C"
echo "ctrl-c: ok"

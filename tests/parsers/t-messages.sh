#!/usr/bin/env bash
# One failure, one message (docs/input-formats.md, "Errors"): a damaged pprof or CPU profile
# gives exactly one line, naming the file and the byte (binary) or line (text), never a
# generic second line ("FILE:0: unknown or undetectable input format"); --format cpuprofile on
# other JSON says what is missing. Exit 1, nothing on stdout.
. "$(dirname "$0")/../lib.sh"
command -v gzip > /dev/null || skip "gzip not installed"
printf 'main;run;work 30\nmain;run;idle 10\nmain;gc 5\n' > "$TMP/in.folded"
for i in $(seq 1 200); do printf 'main;f%d;g%d %d\n' $i $((i * 7)) $i; done >> "$TMP/in.folded"
"$FLAMEKIT" collapse "$TMP/in.folded" -o "$TMP/p.pb.gz" || fail "writing a pprof"
gzip -dc "$TMP/p.pb.gz" > "$TMP/p.pb"
size=$(stat -c %s "$TMP/p.pb.gz")
head -c $((size / 2)) "$TMP/p.pb.gz" > "$TMP/cut.pb.gz"
head -c $(($(stat -c %s "$TMP/p.pb") / 2)) "$TMP/p.pb" > "$TMP/cut.pb"
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""},\n"children":[2]},\n{"id":2,"callFrame":{"functionName":"a","url":""},"children":[]}],\n"samples":[2,2' > "$TMP/cut.cpuprofile"
printf '{"name": "package.json", "version": "1.0.0"}\n' > "$TMP/other.json"

# one_message WANT_REGEX ARGS...: exit 1, no stacks, exactly one line on stderr matching
one_message() {
	local want=$1 rc=0
	shift
	"$FLAMEKIT" collapse "$@" > "$TMP/out" 2> "$TMP/err" || rc=$?
	[ $rc -eq 1 ] || { cat "$TMP/err" >&2; fail "[$*]: exit $rc, wanted 1"; }
	[ ! -s "$TMP/out" ] || fail "[$*]: stacks written"
	[ "$(wc -l < "$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "[$*]: $(wc -l < "$TMP/err") messages, wanted one"; }
	grep -Eq "^flamekit: $want" "$TMP/err" || { cat "$TMP/err" >&2; fail "[$*]: message not /$want/"; }
}
one_message "$TMP/cut\\.pb\\.gz: gzip input is truncated at compressed byte $((size / 2)) .*nothing of this input is used" "$TMP/cut.pb.gz"
one_message "$TMP/cut\\.pb\\.gz: gzip input is truncated at compressed byte" --format pprof "$TMP/cut.pb.gz"
one_message "$TMP/cut\\.pb: pprof profile is corrupt at byte [0-9]+ \\(" "$TMP/cut.pb"
one_message "$TMP/cut\\.pb: pprof profile is corrupt at byte [0-9]+ \\(" --format pprof "$TMP/cut.pb"
one_message "$TMP/cut\\.cpuprofile:4: not a valid CPU profile" "$TMP/cut.cpuprofile"
one_message "$TMP/cut\\.cpuprofile:4: not a valid CPU profile" --format cpuprofile "$TMP/cut.cpuprofile"
one_message "$TMP/other\\.json:1: not a CPU profile: it has no \"nodes\" array" --format cpuprofile "$TMP/other.json"
one_message "$TMP/in\\.folded:1: not a valid CPU profile" --format cpuprofile "$TMP/in.folded"
one_message "$TMP/in\\.folded: pprof profile is corrupt at byte [0-9]+ " --format pprof "$TMP/in.folded"
# a skipped tick: the line of the ticks, exit 3, the rest kept
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[2]},\n{"id":2,"callFrame":{"functionName":"a","url":""},"children":[]}],\n"samples":[2,2,9],"timeDeltas":[0,5,5]}' > "$TMP/tick.cpuprofile"
rc=0; "$FLAMEKIT" collapse "$TMP/tick.cpuprofile" > "$TMP/out" 2> "$TMP/err" || rc=$?
assert_eq "skipped tick: exit" 3 "$rc"
assert_eq "skipped tick: the rest" "a 2" "$(cat "$TMP/out")"
assert_eq "skipped tick: message" "flamekit: $TMP/tick.cpuprofile:3: tick 3 names node 9, which the profile does not have; skipped" "$(cat "$TMP/err")"
# where the profile is read whole, the good input before a failed one still counts (exit 3)
rc=0; "$FLAMEKIT" collapse "$TMP/in.folded" "$TMP/cut.pb" > "$TMP/out" 2> "$TMP/err" || rc=$?
assert_eq "a failed input after a good one: exit" 3 "$rc"
"$FLAMEKIT" collapse "$TMP/in.folded" | cmp -s - "$TMP/out" || fail "the good input's stacks changed by the failed one"
assert_not_contains "$TMP/err" ":0:"
echo "messages: one per failure"

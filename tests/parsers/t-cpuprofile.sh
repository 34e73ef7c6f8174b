#!/usr/bin/env bash
# Chrome/Node CPU profiles: a real `node --cpu-prof` recording of a known workload
# (tests/parsers/node/split.js: heavy() does 3x light()'s work) folds with that split, by
# ticks and by time; ticks keep their timestamps; the JSON parser names damage.
. "$(dirname "$0")/../lib.sh"
command -v node > /dev/null || skip "node not installed"
total() { awk '{ s += $NF } END { printf "%.0f\n", s }'; }
node --cpu-prof --cpu-prof-dir="$TMP" --cpu-prof-name=split.cpuprofile "$FK_TOP/tests/parsers/node/split.js" > /dev/null || fail "node --cpu-prof"
P=$TMP/split.cpuprofile
"$FLAMEKIT" collapse "$P" > "$TMP/ticks" || fail "collapse: exit $?"
ticks=$(total < "$TMP/ticks")
assert_eq "ticks = samples in the file" "$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).samples.length)' "$P")" "$ticks"
for mode in ticks time; do
	"$FLAMEKIT" collapse $([ $mode = time ] && echo --sample-type time) "$P" > "$TMP/out" || fail "$mode: exit $?"
	# the workload's frames, under the script's top level, named "function url:line"
	heavy=$(grep ';heavy file://[^;]*split.js:5;spin file://[^;]*split.js:3' "$TMP/out" | total)
	light=$(grep ';light file://[^;]*split.js:4;spin file://[^;]*split.js:3' "$TMP/out" | total)
	share=$(awk -v h="$heavy" -v l="$light" 'BEGIN { if (h + l == 0) print 0; else printf "%.2f", h / (h + l) }')
	# ticks come at a steady rate; time between ticks also holds the time another process
	# had the CPU (this machine is shared): a wider margin there
	lo=0.65 hi=0.85
	[ $mode = time ] && lo=0.6 hi=0.9
	awk -v s="$share" -v lo=$lo -v hi=$hi 'BEGIN { exit !(s >= lo && s <= hi) }' || fail "$mode: heavy's share $share (heavy $heavy, light $light), built to be 0.75"
	echo "$mode: heavy $heavy, light $light: share $share"
done
# by time, each tick lasts until the next (the last one as long as the one before): the total
# is every time delta but the first, plus the last again
want=$(node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1])).timeDeltas; let s = 0; for (let i = 1; i < d.length; i++) s += d[i]; console.log(s + d[d.length - 1])' "$P")
assert_eq "time total (us)" "$want" "$("$FLAMEKIT" collapse --sample-type time "$P" | total)"
# every tick has its time: seconds, increasing, within the profile's span
"$FLAMEKIT" collapse --emit samples "$P" | awk -F'\t' 'NR > 2 { if ($1 == "-" || $1 + 0 < last) bad++; last = $1 + 0; n++ } END { exit !(n > 0 && !bad) }' || fail "sample times"
# compressed, and through the auto-detection of every command
gzip -c "$P" > "$TMP/p.cpuprofile.gz"
"$FLAMEKIT" collapse "$TMP/p.cpuprofile.gz" | cmp -s - "$TMP/ticks" || fail "gzipped profile differs"
"$FLAMEKIT" svg "$P" -o "$TMP/p.svg" || fail "svg of a cpuprofile"
# damage: named with its line, exit 1
head -c 3000 "$P" > "$TMP/cut.cpuprofile"
run_rc 1 "$FLAMEKIT" collapse "$TMP/cut.cpuprofile" > /dev/null 2> "$TMP/err"
assert_contains "$TMP/err" "cut.cpuprofile:1: not a valid CPU profile"
printf '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[2]},{"id":2,"callFrame":{"functionName":"a\\u00e9\\ud83d\\ude00;b","url":""},"children":[]}],"samples":[2,2,9],"timeDeltas":[0,5,5]}' > "$TMP/small.cpuprofile"
rc=0; "$FLAMEKIT" collapse "$TMP/small.cpuprofile" > "$TMP/out" 2> "$TMP/err" || rc=$?
assert_eq "small: exit" 3 "$rc"
assert_eq "small: escapes decoded, ';' made ':'" "$(printf 'aé\xf0\x9f\x98\x80:b 2')" "$(cat "$TMP/out")"
assert_contains "$TMP/err" "tick 3 names node 9, which the profile does not have"
echo "cpuprofile ok"

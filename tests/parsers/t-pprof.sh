#!/usr/bin/env bash
# pprof input: a CPU profile written by a real Go program (tests/parsers/go/spin.go, built and
# run here) folds with the split it was built to have, every sample type matches what the real
# `go tool pprof -raw` reads, pprof labels become root frames for --keep/--drop; flamekit's own
# pprof output reads back to the same stacks, pid/tid/comm included; damage is named.
. "$(dirname "$0")/../lib.sh"
. "$FK_TOP/tests/export/pprof-raw.sh"
command -v go > /dev/null || skip "go not installed (Debian golang-go)"
export GOFLAGS=-mod=mod GOCACHE=$TMP/gocache HOME=$TMP PPROF_TMPDIR=$TMP GO111MODULE=off
total() { awk '{ s += $NF } END { printf "%.0f\n", s }'; }

# A Go CPU profile: spinHeavy does 3x the work of spinLight (CPU time, so load does not
# change the split; 10 ms samples, ~90 of them).
go build -o "$TMP/spin" "$FK_TOP/tests/parsers/go/spin.go" || fail "go build"
"$TMP/spin" "$TMP/cpu.pprof" 10000000 || fail "spin"
"$FLAMEKIT" collapse "$TMP/cpu.pprof" > "$TMP/cpu.folded" || fail "collapse: exit $?"
"$FLAMEKIT" collapse --sample-type samples "$TMP/cpu.pprof" > "$TMP/n.folded" || fail "samples: exit $?"
n=$(total < "$TMP/n.folded")
[ "$n" -ge 40 ] || fail "only $n samples in the Go profile"
# the default type is Go's default (cpu nanoseconds, 10 ms a sample); by name or index too
assert_eq "cpu = samples x 10ms" "$((n * 10000000))" "$(total < "$TMP/cpu.folded")"
"$FLAMEKIT" collapse --sample-type cpu/nanoseconds "$TMP/cpu.pprof" | cmp -s - "$TMP/cpu.folded" || fail "--sample-type cpu/nanoseconds"
"$FLAMEKIT" collapse --sample-type 0 "$TMP/cpu.pprof" | cmp -s - "$TMP/n.folded" || fail "--sample-type 0"
# the same stacks and values go tool pprof reads, for both types
raw_fold "$TMP/cpu.pprof" 0 > "$TMP/raw0" || fail "go tool pprof -raw"
raw_fold "$TMP/cpu.pprof" 1 > "$TMP/raw1"
assert_files_eq "$TMP/raw0" "$TMP/n.folded"
assert_files_eq "$TMP/raw1" "$TMP/cpu.folded"
# written again: what it counts is said (cpu/nanoseconds), every stack and value kept
"$FLAMEKIT" collapse "$TMP/cpu.pprof" -o "$TMP/again.pb.gz"
go tool pprof -symbolize=none -raw "$TMP/again.pb.gz" 2> /dev/null | grep -qx 'cpu/nanoseconds' || fail "sample type lost on the way through"
raw_fold "$TMP/again.pb.gz" > "$TMP/raw2"
assert_files_eq "$TMP/cpu.folded" "$TMP/raw2"
heavy=$(grep ';main.spinHeavy;' "$TMP/n.folded" | total)
light=$(grep ';main.spinLight;' "$TMP/n.folded" | total)
share=$(awk -v h="$heavy" -v l="$light" 'BEGIN { printf "%.2f", h / (h + l) }')
awk -v s="$share" 'BEGIN { exit !(s >= 0.6 && s <= 0.9) }' || fail "spinHeavy's share $share (heavy $heavy, light $light), built to be 0.75"
echo "Go profile: $n samples, spinHeavy $share of spin"
# pprof.Do labels as root frames. What the labels guarantee: spinHeavy (spinLight) runs only
# inside its pprof.Do, so each of its samples carries worker=heavy (light). Other samples carry
# a label too when taken while it is set: in pprof.Do itself, the closure, or runtime code the
# goroutine runs meanwhile, so a label's weight is at least, not exactly, its function's.
# label_checks PROFILE: that, and --keep/--drop by label frame select exactly those stacks.
label_checks() {
	local p=$1 w=$TMP/labels f fn lab
	mkdir -p "$w"
	"$FLAMEKIT" collapse --sample-type samples "$p" > "$w/n.folded"
	"$FLAMEKIT" collapse --sample-type samples --label-frames worker "$p" > "$w/lab.folded"
	assert_eq "$p: label frames keep the weight" "$(total < "$w/n.folded")" "$(total < "$w/lab.folded")"
	for f in Heavy Light; do
		fn=";main.spin$f;" lab=worker=$(echo "$f" | tr A-Z a-z)
		grep "$fn" "$w/lab.folded" | grep -v "^$lab;" && fail "$p: spin$f stacks (above) without $lab"
		assert_eq "$p: spin$f's weight under $lab" "$(grep "$fn" "$w/n.folded" | total)" \
			"$(grep "^$lab;.*$fn" "$w/lab.folded" | total)"
		# --keep selects by label, as it does by function: exactly the labelled stacks
		"$FLAMEKIT" collapse --sample-type samples --label-frames worker --keep "^$lab;" "$p" > "$w/keep.folded"
		grep "^$lab;" "$w/lab.folded" > "$w/keep.want"
		assert_files_eq "$w/keep.want" "$w/keep.folded"
	done
	# --drop: every labelled stack goes, no spin stack stays
	"$FLAMEKIT" collapse --sample-type samples --label-frames all "$p" | grep -v '^worker=' > "$w/drop.want"
	"$FLAMEKIT" collapse --sample-type samples --label-frames all --drop '^worker=' "$p" > "$w/drop.folded"
	assert_files_eq "$w/drop.want" "$w/drop.folded"
	grep ';main.spin' "$w/drop.folded" && fail "$p: --drop worker=: spin stacks (above) stayed"
	echo "$p: labels ok ($(grep '^worker=' "$w/lab.folded" | grep -v ';main.spin' | total) labelled samples outside spin*)"
}
label_checks "$TMP/cpu.pprof"
# A profile spin.go wrote here once (1 run in 46), with a sample labelled worker=light outside spinLight
# (worker=light;runtime.main;main.main;runtime/pprof.Do;main.main.func1 1)
G=$FK_TOP/tests/parsers/go/label-outside.pprof
"$FLAMEKIT" collapse --sample-type samples --label-frames worker "$G" | grep -qx 'worker=light;runtime.main;main.main;runtime/pprof.Do;main.main.func1 1' ||
	fail "$G: no labelled sample outside spinLight"
label_checks "$G"

# flamekit's pprof reads back to the same stacks; pid/tid/comm labels to the sample records
D=$FK_TOP/tests/parsers/data
for f in "$D"/gdb/cxx-threads.txt "$D"/perf-report/count.txt "$D"/stap/print-stack.txt; do
	"$FLAMEKIT" collapse "$f" > "$TMP/want"
	"$FLAMEKIT" collapse "$f" -o "$TMP/x.pb.gz"
	"$FLAMEKIT" collapse "$TMP/x.pb.gz" > "$TMP/got" || fail "$f: read back: exit $?"
	assert_files_eq "$TMP/want" "$TMP/got"
done
printf '# flamekit samples v1\n1.5\t10\t11\t0\tmyprog\t1\tmain;work\n1.6\t10\t12\t1\tworker thr\t2\tmain;work\n1.8\t-1\t-1\t-1\t\t4\tmain;idle\n' > "$TMP/s.txt"
"$FLAMEKIT" collapse "$TMP/s.txt" -o "$TMP/s.pb.gz" --label host=db-1
"$FLAMEKIT" collapse --emit samples "$TMP/s.pb.gz" | sort > "$TMP/got"
printf -- '# flamekit samples v1\n# time\tpid\ttid\tcpu\tcomm\tweight\tstack\n-\t-1\t-1\t-1\t\t4\tmain;idle\n-\t10\t11\t-1\tmyprog\t1\tmain;work\n-\t10\t12\t-1\tworker thr\t2\tmain;work\n' | sort > "$TMP/want"
assert_files_eq "$TMP/want" "$TMP/got"
assert_eq "label frames" "$(printf 'host=db-1;comm=myprog;main;work 1\nhost=db-1;comm=worker thr;main;work 2\nhost=db-1;main;idle 4')" \
	"$("$FLAMEKIT" collapse --label-frames host,comm "$TMP/s.pb.gz")"
# --timestamps: every sample with its time and CPU (perf_to_profile's label names), so the
# heat map of the pprof is the heat map of the samples, --isolate by comm, pid or tid included
printf '# flamekit samples v1\n' > "$TMP/many.txt"
awk 'BEGIN { srand(3); for (i = 0; i < 3000; i++) printf "%.6f\t%d\t%d\t%d\t%s\t1\tmain;%s\n", 100 + i * 0.00231, 7 + i % 3, 70 + i % 5, i % 2, (i % 3 ? "web" : "db"), (i % 7 ? "work" : "gc") }' >> "$TMP/many.txt"
"$FLAMEKIT" collapse --timestamps "$TMP/many.txt" -o "$TMP/many.pb.gz" || fail "--timestamps: exit $?"
"$FLAMEKIT" collapse --emit samples "$TMP/many.txt" > "$TMP/want"
"$FLAMEKIT" collapse --emit samples "$TMP/many.pb.gz" | sort -n > "$TMP/got"
sort -n "$TMP/want" > "$TMP/want.sorted"
assert_files_eq "$TMP/want.sorted" "$TMP/got"
for iso in "" db web pid:8 tid:72; do
	"$FLAMEKIT" heatmap --cells ${iso:+--isolate "$iso"} "$TMP/many.txt" > "$TMP/want"
	"$FLAMEKIT" heatmap --cells ${iso:+--isolate "$iso"} "$TMP/many.pb.gz" > "$TMP/got" || fail "heatmap of pprof [$iso]"
	[ -s "$TMP/want" ] || fail "no cells for [$iso]"
	assert_files_eq "$TMP/want" "$TMP/got"
done
# uncompressed protobuf is detected too
zcat "$TMP/s.pb.gz" > "$TMP/s.pb"
"$FLAMEKIT" collapse "$TMP/s.pb" | cmp -s - <("$FLAMEKIT" collapse "$TMP/s.pb.gz") || fail "plain protobuf"

# ... even when long names make it look like text
printf 'main;%s 5\n' "$(head -c 3000 /dev/zero | tr '\0' x)" > "$TMP/long.folded"
"$FLAMEKIT" collapse --emit pprof "$TMP/long.folded" | zcat > "$TMP/long.pb"
"$FLAMEKIT" collapse "$TMP/long.pb" | cmp -s - "$TMP/long.folded" || fail "a plain protobuf of long names"

# damage and mistakes: named, exit 1 (a profile's string table is at its end: nothing counts)
head -c $(( $(stat -c %s "$TMP/s.pb") - 7 )) "$TMP/s.pb" > "$TMP/cut.pb"
run_rc 1 "$FLAMEKIT" collapse --format pprof "$TMP/cut.pb" > /dev/null 2> "$TMP/err"
assert_contains "$TMP/err" "cut.pb: pprof profile is corrupt"
head -c 300 "$TMP/cpu.pprof" > "$TMP/cut.pprof"
run_rc 1 "$FLAMEKIT" collapse "$TMP/cut.pprof" > /dev/null 2> "$TMP/err"
assert_contains "$TMP/err" "cut.pprof: gzip input is truncated"
run_rc 1 "$FLAMEKIT" collapse --sample-type alloc_space "$TMP/cpu.pprof" > /dev/null 2> "$TMP/err"
assert_contains "$TMP/err" "no sample type 'alloc_space' in this profile (it has: samples/count, cpu/nanoseconds)"
run_rc 1 "$FLAMEKIT" collapse --format pprof "$D/gdb/pmp-loop.txt" > /dev/null 2> "$TMP/err"
assert_contains "$TMP/err" "pmp-loop.txt: pprof profile is corrupt"
echo "pprof input ok"

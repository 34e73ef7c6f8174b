#!/usr/bin/env bash
# pprof output read by the real `go tool pprof`: every stack and count comes back exactly
# (-raw folded again, -top's total), names intact (UTF-8, C++ templates, spaces), pid/tid/comm
# and --label labels present, bytes deterministic (same input, one or two parser threads).
. "$(dirname "$0")/../lib.sh"
. "$FK_TOP/tests/export/pprof-raw.sh"
command -v go > /dev/null || skip "go not installed (Debian golang-go gives go tool pprof)"
export GOFLAGS=-mod=mod GOCACHE=$TMP/gocache HOME=$TMP PPROF_TMPDIR=$TMP

# top_total FILE: the total `go tool pprof -top` reports
top_total() {
	# perf periods are cpu/nanoseconds: -unit=ns keeps pprof from printing them as ms
	go tool pprof -symbolize=none -unit=ns -top "$1" 2> /dev/null |
		sed -n 's/^Showing nodes accounting for .* of \([0-9.e+]*\)[a-z]* total$/\1/p'
}
fold_total() { awk '{ s += $NF } END { printf "%.0f\n", s }' "$1"; }

# names pprof tools like to shorten or choke on
cat > "$TMP/names.folded" <<'F'
main;std::vector<std::pair<int, long>>::push_back(std::pair<int, long> const&);fünf_ünïcode 3
main;(anonymous namespace)::Foo<Bar>::operator()() const;a b c 2
main;d 5
main;d;日本語::関数 7
main;Lcom/example/App$1.run;[unknown] 11
F
"$FLAMEKIT" collapse "$TMP/names.folded" > "$TMP/want"
"$FLAMEKIT" collapse --emit pprof -o "$TMP/names.pb.gz" "$TMP/names.folded" || fail "write pprof: exit $?"
[ "$(head -c 2 "$TMP/names.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "not gzipped"
raw_fold "$TMP/names.pb.gz" > "$TMP/got" || { cat "$TMP/pprof.err" >&2; fail "go tool pprof -raw"; }
assert_files_eq "$TMP/want" "$TMP/got"
assert_eq "-top total" "$(fold_total "$TMP/want")" "$(top_total "$TMP/names.pb.gz")"
# the -o name picks the format; stdout works too
"$FLAMEKIT" collapse "$TMP/names.folded" -o "$TMP/by-name.pprof"
"$FLAMEKIT" collapse --emit pprof "$TMP/names.folded" > "$TMP/stdout.pb.gz"
cmp -s "$TMP/names.pb.gz" "$TMP/by-name.pprof" || fail "-o x.pprof differs from --emit pprof"
cmp -s "$TMP/names.pb.gz" "$TMP/stdout.pb.gz" || fail "standard output differs from -o"

# Real perf recordings (C++ templates, node JIT): stacks and periods exact, bytes the same
# with one and two parser threads and run to run.
CORPUS=$FK_CORPUS
if [ -d "$CORPUS" ]; then
	for z in "$CORPUS"/*.perf-script.zst; do
		b=$(basename "$z" .perf-script.zst)
		"$FLAMEKIT" collapse "$z" > "$TMP/want"
		"$FLAMEKIT" collapse --emit pprof -o "$TMP/$b.pb.gz" "$z" || fail "$b: exit $?"
		raw_fold "$TMP/$b.pb.gz" > "$TMP/got" || { cat "$TMP/pprof.err" >&2; fail "$b: go tool pprof -raw"; }
		cmp -s "$TMP/want" "$TMP/got" || { diff "$TMP/want" "$TMP/got" | head -5 | cut -c1-200 >&2; fail "$b: pprof -raw differs from folded"; }
		assert_eq "$b -top total" "$(fold_total "$TMP/want")" "$(top_total "$TMP/$b.pb.gz")"
		zstd -q -dc "$z" > "$TMP/in"
		FLAMEKIT_SPLIT_MIN=1 "$FLAMEKIT" collapse --threads 2 --emit pprof -o "$TMP/t2.pb.gz" "$TMP/in"
		cmp -s "$TMP/$b.pb.gz" "$TMP/t2.pb.gz" || fail "$b: --threads 2 gives other bytes"
		"$FLAMEKIT" collapse --emit pprof -o "$TMP/again.pb.gz" "$z"
		cmp -s "$TMP/$b.pb.gz" "$TMP/again.pb.gz" || fail "$b: a second run gives other bytes"
	done
else
	echo "note: no shared corpus at $CORPUS"
fi

# pid/tid/comm of timestamped samples and --label labels
printf '# flamekit samples v1\n1.5\t10\t11\t0\tmyprog\t1\tmain;work\n1.6\t10\t12\t1\tworker thr\t2\tmain;work\n1.7\t10\t11\t0\tmyprog\t1\tmain;work\n1.8\t-1\t-1\t-1\t\t4\tmain;idle\n' > "$TMP/s.txt"
"$FLAMEKIT" collapse --label host=db-1 --label service=api "$TMP/s.txt" -o "$TMP/s.pb.gz" || fail "labels: exit $?"
go tool pprof -symbolize=none -tags "$TMP/s.pb.gz" > "$TMP/tags" 2>&1 || { cat "$TMP/tags" >&2; fail "go tool pprof -tags"; }
for want in "comm: Total 4" "2 (50.00%): myprog" "2 (50.00%): worker thr" "pid: Total 4" "4 (  100%): 10" \
	    "tid: Total 4" "2 (50.00%): 11" "2 (50.00%): 12" "host: Total 8" "8 (  100%): db-1" "8 (  100%): api"; do
	sed 's/\.0\b//g' "$TMP/tags" | grep -qF -- "$want" || { cat "$TMP/tags" >&2; fail "tags lack [$want]"; }
done
# a tag filter selects by label, as a viewer would
got=$(go tool pprof -symbolize=none -tagfocus=comm=worker -top "$TMP/s.pb.gz" 2> /dev/null | sed -n 's/^Showing nodes accounting for \([0-9]*\), .*/\1/p')
assert_eq "-tagfocus comm=worker" "2" "$got"

# usage errors
run_rc 2 "$FLAMEKIT" collapse --emit pprof --label nokey "$TMP/s.txt" -o "$TMP/x.pb.gz" 2> "$TMP/err"
assert_contains "$TMP/err" "--label: expected KEY=VALUE, got 'nokey'"
[ ! -e "$TMP/x.pb.gz" ] || fail "output written after a usage error"
# fractional counts: rounded, said
printf 'a;b 1.5\na;c 2\n' | "$FLAMEKIT" collapse --emit pprof -o "$TMP/f.pb.gz" 2> "$TMP/err" || fail "fractional: exit $?"
assert_contains "$TMP/err" "fractional counts rounded"
echo "pprof output: go tool pprof reads every stack and label"

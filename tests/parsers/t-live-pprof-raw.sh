#!/usr/bin/env bash
# go tool pprof -raw for real: a Go program profiles itself with runtime/pprof,
# `go tool pprof -raw` prints the text, flamekit collapses it (auto-detected).
. "$(dirname "$0")/../lib.sh"
GO=$(command -v go || ls /usr/lib/go/bin/go 2> /dev/null) || skip "go not installed (Debian package golang-go)"
export GOFLAGS=-mod=mod GO111MODULE=off
[ -n "${HOME:-}" ] && [ -w "${HOME:-/nonexistent}" ] || export GOCACHE=$TMP/gocache
"$GO" build -o "$TMP/prog" "$FK_TOP/tests/parsers/data/pprof-raw/main.go" || fail "go build failed"
"$TMP/prog" "$TMP/cpu.prof" || fail "the Go program failed"
"$GO" tool pprof -raw -output="$TMP/raw.txt" "$TMP/prog" "$TMP/cpu.prof" 2> "$TMP/pprof.err" || { cat "$TMP/pprof.err"; fail "go tool pprof -raw failed"; }
"$FLAMEKIT" collapse --format auto "$TMP/raw.txt" > "$TMP/out" 2> "$TMP/err" || { cat "$TMP/err"; fail "collapse: exit $?"; }
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "messages on clean pprof -raw output"; }
grep -qE '^runtime.main;main.main;main.leafA(;|$| )' "$TMP/out" || { cat "$TMP/out"; fail "main goroutine stack missing"; }
grep -qE '^main.worker;main.leafB(;|$| )' "$TMP/out" || { cat "$TMP/out"; fail "worker goroutine stack missing"; }
# the counts are the profile's sample counts
want=$(awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 } s && $2 ~ /:$/ { n += $1 } END { print n }' "$TMP/raw.txt")
assert_eq "samples" "$want" "$(awk '{ n += $NF } END { print n }' "$TMP/out")"
echo "pprof-raw: $(wc -l < "$TMP/out") stacks, $want samples"

#!/usr/bin/env bash
# bench/run-all.sh - `make bench`: runs every bench/b-*.sh (or those matching
# $1). Each prints its figures as ratios to a baseline measured in the same
# run (cat, wc -l, perf script, gdb's Python frame walk), because machines
# here are shared and noisy. Needs the shared corpus beside the checkout
# (../shared/corpus) for the perf script benchmark.
set -u
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-$PWD/build}
filter=${1:-}
status=0
for b in bench/b-*.sh; do
	name=$(basename "$b" .sh)
	[ -n "$filter" ] && [[ $name != *$filter* ]] && continue
	echo "=== $name"
	start=$(date +%s)
	bash "$b" || { echo "$name: failed (exit $?)"; status=1; }
	echo "=== $name done in $(( $(date +%s) - start ))s"
	echo
done
exit $status

#!/usr/bin/env bash
# tests/run-all.sh - runs every tests/**/t-*.sh (or only those matching $1).
# A test exits 0 (pass), 77 (skip: it must print why) or anything else (fail).
# Ends with the line "N passed, N failed, N skipped".
#
# Two runs at once on one checkout are safe once it is built (two `make`s
# building the same build/ at once are not: build first, or use two
# checkouts): each test's files are in its own mktemp folder (tests/lib.sh),
# a second run writes its logs to a folder of its own (said at the start),
# and what runs share on purpose (build/stap-cache: stap's module cache,
# flamekit's runtime copy, the VM's kernel image) is written atomically or
# under a lock. Nothing uses a fixed port, a fixed /tmp name or $HOME.
set -u
cd "$(dirname "$0")/.."
export FK_TOP=$PWD
export BUILD=${BUILD:-$PWD/build}
export FLAMEKIT=$BUILD/flamekit
pass=0 fail=0 skip=0 failed=()
filter=${1:-}
logdir=$BUILD/test-logs
mkdir -p "$logdir"
# build/test-logs is this run's unless another run holds it: then its own
exec 9> "$logdir/.lock"
if ! flock -n 9; then
	exec 9>&-
	logdir=$(mktemp -d "$BUILD/test-logs.XXXXXX")
	echo "note: another run is using $BUILD/test-logs: logs in $logdir"
	exec 9> "$logdir/.lock" && flock -n 9
fi
for t in $(find tests -name 't-*.sh' | sort); do
	name=${t#tests/}; name=${name%.sh}
	[ -n "$filter" ] && [[ $name != *$filter* ]] && continue
	log=$logdir/${name//\//_}.log
	start=$(date +%s)
	bash "$t" > "$log" 2>&1 9>&-
	rc=$?
	secs=$(( $(date +%s) - start ))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); echo "ok    $name (${secs}s)"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); echo "SKIP  $name: $(grep -i 'skip' "$log" | tail -1)"
	else
		fail=$((fail + 1)); failed+=("$name"); echo "FAIL  $name (exit $rc, ${secs}s)"
		sed 's/^/      | /' "$log" | tail -40
	fi
done
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]

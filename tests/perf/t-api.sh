#!/usr/bin/env bash
# t-api.sh - runs perf-api (tests/perf/perf-api.c): fk_perf_tidy_name, per-sample records,
# weights, two threads vs one, bad input through fk_parse_buffer.
. "$(dirname "$0")/../lib.sh"
[ -x "$BUILD/tests/perf-api" ] || fail "$BUILD/tests/perf-api not built (run make test)"
"$BUILD/tests/perf-api" || fail "perf-api failed"
[ -x "$BUILD/tests/perf-oom" ] || fail "$BUILD/tests/perf-oom not built (run make test)"
"$BUILD/tests/perf-oom" || fail "perf-oom failed"

#!/usr/bin/env bash
# Fails each allocation in turn while the multi-line parsers (perf-report, stap,
# gdb, dtrace, bpftrace, eu-stack, pprof-raw, jstack, sample) run
# (tests/parsers/oom.c): errors, no crash, no leak.
. "$(dirname "$0")/../lib.sh"
B=$BUILD/tests/parsers/fk-oom
[ -x "$B" ] || fail "$B not built (run make)"
"$B" || fail "allocation-failure test failed"

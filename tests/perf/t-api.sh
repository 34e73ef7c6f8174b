#!/usr/bin/env bash
# t-api.sh - runs perf-api (tests/perf/perf-api.c): fk_perf_tidy_name, per-sample records,
# weights, two threads vs one, bad input through fk_parse_buffer.
. "$(dirname "$0")/../lib.sh"
[ -x "$BUILD/tests/perf-api" ] || fail "$BUILD/tests/perf-api not built (run make test)"
"$BUILD/tests/perf-api" || fail "perf-api failed"
[ -x "$BUILD/tests/perf-oom" ] || fail "$BUILD/tests/perf-oom not built (run make test)"
"$BUILD/tests/perf-oom" || fail "perf-oom failed"
# the text route's frames take the same room: a Rust v0 name printed longer than it is
# mangled, demangled in perf script text too (as fk_perf_tidy_name does above)
v0=_RINvMNtNtCsjrHSEGnQ3l9_3std4sync9once_lockINtB3_8OnceLockINtNtB5_14reentrant_lock13ReentrantLockINtNtCsgEmfK2I1SDS_4core4cell7RefCellINtNtNtNtB7_2io8buffered10linewriter10LineWriterNtNtB2e_5stdio9StdoutRawEEEE10initializeNCINvB2_11get_or_initNCNvB2V_6stdout0E0zEB7_
printf 'spin 123 1.000: 1001001 cpu-clock:\n\t    55d0 %s+0x12 (/x/spin)\n\t    56d0 main+0x1 (/x/spin)\n\n' "$v0" > "$TMP/v0.perf"
"$FLAMEKIT" collapse --rust-names "$TMP/v0.perf" > "$TMP/v0.folded" || fail "collapse --rust-names"
lock='<std::sync::once_lock::OnceLock<std::sync::reentrant_lock::ReentrantLock<core::cell::RefCell<std::io::buffered::linewriter::LineWriter<std::io::stdio::StdoutRaw>>>>>'
assert_eq "v0 name in perf script text" \
	"spin;main;$lock::initialize::<$lock::get_or_init<std::io::stdio::stdout::{closure#0}>::{closure#0}, !> 1001001" \
	"$(cat "$TMP/v0.folded")"

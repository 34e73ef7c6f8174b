#!/usr/bin/env bash
# The renderer's C API test: option checks, error returns, determinism, diff
# profiles, and every allocation failed one at a time (see test-svg.c).
. "$(dirname "$0")/../lib.sh"
bin=$BUILD/tests/test-svg
[ -x "$bin" ] || fail "$bin not built (run make test)"
"$bin" || fail "test-svg failed"

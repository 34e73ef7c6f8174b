#!/usr/bin/env bash
# Runs the heat map's C API test (built by tests/heatmap/rules.mk).
. "$(dirname "$0")/../lib.sh"
bin=$BUILD/tests/test-heatmap
[ -x "$bin" ] || fail "$bin not built (run make test)"
"$bin" || fail "test-heatmap failed"

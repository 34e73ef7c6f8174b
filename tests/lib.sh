# tests/lib.sh - sourced by every t-*.sh: helpers that fail loudly.
set -u
FK_TOP=${FK_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$FK_TOP/build}
FLAMEKIT=${FLAMEKIT:-$BUILD/flamekit}
DATA=$FK_TOP/tests/data
# The shared corpus of real recordings lives outside the repository: beside the
# checkout (../shared/corpus) or in the machine's /work/shared. Found here once
# (FK_CORPUS overrides), so a checkout anywhere (a clone under /tmp) uses it; the
# tests that read it say when there is none. FK_CORPUS is always set (to the
# first place looked at when none exists): tests use it as is, with no default
# of their own (tests/perf/expect.sh asks this file too).
if [ -z "${FK_CORPUS:-}" ]; then
	for _fk_c in "$FK_TOP/../shared/corpus" /work/shared/corpus; do
		[ -d "$_fk_c" ] && { FK_CORPUS=$(cd "$_fk_c" && pwd); break; }
	done
	FK_CORPUS=${FK_CORPUS:-$FK_TOP/../shared/corpus}
fi
export FK_CORPUS
TMP=$(mktemp -d /tmp/fk-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
# assert_eq WHAT EXPECTED ACTUAL
assert_eq() { [ "$2" == "$3" ] || fail "$1: expected [$2], got [$3]"; }
# assert_files_eq EXPECTED ACTUAL (shows a diff)
assert_files_eq() { diff -u "$1" "$2" > "$TMP/diff.out" || { head -40 "$TMP/diff.out" >&2; fail "files differ: $1 $2"; }; }
assert_contains() { grep -qF -- "$2" "$1" || fail "$1 does not contain [$2]"; }
assert_not_contains() { ! grep -qF -- "$2" "$1" || fail "$1 contains [$2]"; }
# assert_page_holds PAGE FOLDED: the page's own decoder (tests/html/decode.js, in node) gives
# back exactly FOLDED's stacks (in any order); where node is missing it says so (the page's
# other checks still count)
assert_page_holds() {
	if ! command -v node > /dev/null; then
		echo "note: node not installed: the stacks of $1 not read back"
		return 0
	fi
	node "$FK_TOP/tests/html/decode.js" "$1" | LC_ALL=C sort > "$TMP/page-back.folded" || fail "decode $1"
	LC_ALL=C sort "$2" > "$TMP/page-want.folded"
	assert_files_eq "$TMP/page-want.folded" "$TMP/page-back.folded"
}
# run_rc EXPECTED_RC cmd...: run and check the exit status
run_rc() { local want=$1; shift; "$@"; local rc=$?; [ $rc -eq "$want" ] || fail "exit $rc (wanted $want): $*"; }
# cpu_ticks PID: the CPU time PID has used (utime + stime, clock ticks of 1/100 s)
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | awk '{ print $12 + $13 }'; }
# wait_cpu PID TICKS: until PID has run TICKS more ticks on a CPU than when called
# (not a sleep: on a loaded machine a second of wall time can be no CPU time)
wait_cpu() {
	local t0 t i
	t0=$(cpu_ticks "$1"); [ -n "$t0" ] || fail "process $1 is gone"
	for i in $(seq 1200); do
		t=$(cpu_ticks "$1"); [ -n "$t" ] || fail "process $1 is gone"
		[ $((t - t0)) -ge "$2" ] && return 0
		sleep 0.1
	done
	fail "process $1 ran $((t - t0)) of $2 ticks in 120 s"
}
# wait_threads PID N EXE: until PID runs EXE (exec done) with at least N threads
wait_threads() {
	local i
	for i in $(seq 1200); do
		[ "$(readlink "/proc/$1/exe" 2> /dev/null)" = "$3" ] &&
			[ "$(ls "/proc/$1/task" 2> /dev/null | wc -l)" -ge "$2" ] && return 0
		kill -0 "$1" 2> /dev/null || fail "process $1 ($3) is gone"
		sleep 0.05
	done
	fail "process $1 never ran $3 with $2 threads"
}
# need_browser: node, Debian's chromium and playwright-core (make deps), or skip saying which
need_browser() {
	command -v node > /dev/null || skip "node not installed"
	[ -x /usr/bin/chromium ] || skip "/usr/bin/chromium not installed"
	[ -d "$FK_TOP/tests/browser/node_modules/playwright-core" ] ||
		skip "playwright-core missing (cd tests/browser && npm install)"
}

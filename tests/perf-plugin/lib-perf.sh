# lib-perf.sh - sourced by the perf plugin tests: checks perf, builds the workloads.
. "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
DLF=$BUILD/flamekit-dlfilter.so
PERF_FLAME=$BUILD/perf-flame
HERE=$FK_TOP/tests/perf-plugin
command -v perf > /dev/null || skip "perf is not installed"
if [ "${SANITIZE:-0}" = 1 ]; then
	# perf is not built with ASan: the runtime must come first for it to load
	# the sanitized dlfilter. perf itself leaks and mixes malloc/delete[], so those checks are off.
	SAN_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
	REAL_PERF=$(command -v perf)
	# only perf script --dlfilter needs it (a workload under perf record must not get it)
	cat > "$TMP/perf" <<-WRAP
	#!/bin/sh
	case " \$* " in *" --dlfilter "*)
		LD_PRELOAD="$SAN_PRELOAD" ASAN_OPTIONS=detect_leaks=0:alloc_dealloc_mismatch=0 exec $REAL_PERF "\$@";;
	esac
	exec $REAL_PERF "\$@"
	WRAP
	chmod +x "$TMP/perf"
	export PERF=$TMP/perf
	perf() { "$PERF" "$@"; }
fi
[ -f "$DLF" ] || fail "$DLF not built"
[ -x "$PERF_FLAME" ] || fail "$PERF_FLAME not built"
perf record -q -e cpu-clock -o "$TMP/probe.data" true > /dev/null 2>&1 ||
	skip "perf record does not work here (perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"
# Frame pointers (the workloads avoid leaf functions, where gcc drops them), no inlining.
WL_CFLAGS="-O1 -g -fno-omit-frame-pointer -fno-inline"
build_wl() { gcc $WL_CFLAGS -o "$TMP/$1" "$HERE/$1.c" || fail "cannot build $1"; }
# weight_of FILE REGEX: sum of the counts of folded lines whose stack matches REGEX
weight_of() { awk -v re="$2" '{ c = $NF; s = $0; sub(/ [^ ]*$/, "", s); if (s ~ re) t += c } END { printf "%.0f\n", t + 0 }' "$1"; }
# assert_between WHAT LOW HIGH VALUE
assert_between() { awk -v l="$2" -v h="$3" -v v="$4" 'BEGIN { exit !(v >= l && v <= h) }' || fail "$1: $4 not in [$2, $3]"; }
# run_fails cmd...: the command must exit non-zero
run_fails() { "$@"; local rc=$?; [ $rc -ne 0 ] || fail "exit 0 (wanted failure): $*"; }

#!/usr/bin/env bash
# Auto-detection picks the right format for every sample input, for small
# fragments of them, and does not claim other formats' inputs.
. "$(dirname "$0")/../lib.sh"
DET=$BUILD/tests/parsers/fk-detect
[ -x "$DET" ] || fail "$DET not built (run make)"
D=$FK_TOP/tests/parsers/data
for f in "$D"/*/*.txt; do
	want=$(basename "$(dirname "$f")")
	got=$("$DET" "$f" | awk '{print $NF}')
	assert_eq "format of $f" "$want" "$got"
	# the first 12 lines only (a pipe's first read may be that short)
	head -12 "$f" > "$TMP/head.txt"
	got=$("$DET" "$TMP/head.txt" | awk '{print $NF}')
	assert_eq "format of the first lines of $f" "$want" "$got"
done

detect() { printf "$2" > "$TMP/in.txt"; assert_eq "$1" "$3" "$("$DET" "$TMP/in.txt" | awk '{print $NF}')"; }
# minimal fragments of each format
detect "stap one stack" ' 0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]\n\t12\n' stap
detect "dtrace no header" '  unix`i86_mwait+0xd\n  unix`idle+0x114\n  1641\n' dtrace
detect "dtrace bare names, no header" '    read_field\n    main\n    1203\n    main\n    17\n' dtrace
detect "lua stacks stay stap" 'C:lj_BC_FUNCC\n@/srv/app/handler.lua:12\n\t87\n' stap
detect "gdb one thread" 'Thread 1 (Thread 0x7f (LWP 5) "a"):\n#0  0x00007f in poll () from /lib/libc.so.6\n#1  0x0000556 in main () at a.c:3\n' gdb
detect "bpftrace no header" '@[\n    leaf+1\n    main+2\n]: 7\n' bpftrace
detect "bpftrace named map" '@stacks[comm, \n    leaf+1\n]: 7\n' bpftrace
detect "perf report chains without header" '1039 main;leaf_a\n873 start_thread;worker;leaf_a\n' perf-report
detect "perf report percent chains" '31.62%% main;leaf_a\n26.57%% start_thread;leaf_a\n' perf-report
# ... and the neighbours are left alone
detect "folded" 'main;leaf_a 1039\nstart_thread;worker;leaf_a 873\n' folded
detect "folded with numbers in names" 'a0x12;b 5\nc 7\n' folded
detect "plain text" 'hello world\nthis is not a profile\n' none

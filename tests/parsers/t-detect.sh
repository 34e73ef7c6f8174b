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

# The newer formats, in fragments; eu-stack is not taken for gdb (both write "#N  0x...").
detect "eu-stack" 'PID 5 - process\nTID 5:\n#0  0x00007f165f005bd3 wait4\n#1  0x0000563fe34ac3f2 main\n' eu-stack
detect "pprof -raw" 'Samples:\nsamples/count cpu/nanoseconds\n          3   30000000: 1 2 \nLocations\n     1: 0x4a88eb M=1 main.leafA a.go:15 s=0\n' pprof-raw
detect "jstack" '"main" #1 prio=5 os_prio=0 tid=0x7f nid=0x57 runnable  [0x7f]\n   java.lang.Thread.State: RUNNABLE\n\tat Spin.leaf(Spin.java:3)\n' jstack
detect "macOS sample" 'Call graph:\n    2451 Thread_1\n    + 2451 start  (in libdyld.dylib) + 1  [0x7fff6a0d4cc9]\n' sample

# Text of no known format is refused, with the list of formats looked for: a GHC
# profile (once taken for perf script, giving one garbage stack) and prose.
cat > "$TMP/fib.prof" <<'PROF'
	Tue Nov 24 00:10 2026 Time and Allocation Profiling Report  (Final)

	   fib +RTS -p -RTS 30

	total time  =        1.05 secs   (1050 ticks @ 1000 us, 1 processor)
	total alloc = 1,234,567,890 bytes  (excludes profiling overheads)

COST CENTRE MODULE    SRC              %time %alloc

fib         Main      fib.hs:3:1-30    100.0  100.0


                                                                individual      inherited
COST CENTRE  MODULE                SRC             no.     entries  %time %alloc   %time %alloc

MAIN         MAIN                  <built-in>      118          0    0.0    0.0   100.0  100.0
 CAF         Main                  <entire-module> 235          0    0.0    0.0   100.0  100.0
  main       Main                  fib.hs:5:1-20   237          1    0.0    0.0   100.0  100.0
   fib       Main                  fib.hs:3:1-30   238    1664079  100.0  100.0   100.0  100.0
PROF
assert_eq "GHC .prof" none "$("$DET" "$TMP/fib.prof" | awk '{print $NF}')"
printf 'Dear reader,\nthis is a letter: 12 apples (and 3 pears).\n  at noon\n' > "$TMP/prose.txt"
for f in fib.prof prose.txt; do
	run_rc 1 "$FLAMEKIT" collapse "$TMP/$f" > "$TMP/out" 2> "$TMP/err"
	[ ! -s "$TMP/out" ] || fail "$f: output written"
	assert_contains "$TMP/err" "$f:1: cannot detect the input format: not one of "
	for fmt in perf perf-report stap gdb dtrace bpftrace eu-stack pprof-raw jstack sample folded; do
		assert_contains "$TMP/err" " $fmt"
	done
done

#!/usr/bin/env bash
# Frame-name rules asked for by option, the same in every input format (one rule
# in common/formats/names.c): --rust-names repairs Rust legacy names a C++
# demangler left half done (as eu-stack, DTrace and macOS sample print them),
# --cxx-names cuts only a C++ name's own parameter list; --jit marks perf inject
# --jit's jitted-*.so frames; --kernel marks a BPF program's frames too (the perl does
# not). Without the options nothing changes (perl parity).
. "$(dirname "$0")/../lib.sh"
R1='_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$::drop::h3b2fe2b3c1e0d2f3'
R1F='<alloc::vec::Vec<T> as core::ops::drop::Drop>::drop'
R2='std::rt::lang_start::_$u7b$$u7b$closure$u7d$$u7d$::h54d4d8b820eabfaa'
R2F='std::rt::lang_start::{{closure}}'
C1='std::function<int (int, int)>::operator()(int, int) const'
C1F='std::function<int (int, int)>::operator()'
want="main;$R2F;$C1F;$R1F"

# one stack (root first: main, R2, C1, R1) in each format
printf 'main;%s;%s;%s 3\n' "$R2" "$C1" "$R1" > "$TMP/folded.txt"
printf 'CPU     ID                    FUNCTION:NAME\n  0  64091                        :tick-60s\n\n' > "$TMP/dtrace.txt"
printf '  %s+0x12\n  %s+0x4\n  %s+0x1c\n  main+0x33\n  3\n' "$R1" "$C1" "$R2" >> "$TMP/dtrace.txt"
printf ' 0x401000 : %s+0x12/0x40 [a.out]\n 0x401100 : %s+0x4/0x40 [a.out]\n 0x401200 : %s+0x1c/0x40 [a.out]\n 0x401300 : main+0x33/0x40 [a.out]\n\t3\n' \
	"$R1" "$C1" "$R2" > "$TMP/stap.txt"
printf '@[\n    %s+18\n    %s+4\n    %s+28\n    main+51\n]: 3\n' "$R1" "$C1" "$R2" > "$TMP/bpftrace.txt"
{ printf 'PID 7 - process\n'; for i in 1 2 3; do
	printf 'TID 7:\n#0  0x0000000000401000 %s\n#1  0x0000000000401100 %s\n#2  0x0000000000401200 %s\n#3  0x0000000000401300 main\n' "$R1" "$C1" "$R2"
done; } > "$TMP/eu-stack.txt"
for fmt in folded dtrace stap bpftrace eu-stack; do
	"$FLAMEKIT" collapse --format $fmt --rust-names --cxx-names "$TMP/$fmt.txt" > "$TMP/out" 2> "$TMP/err" ||
		{ cat "$TMP/err"; fail "$fmt: exit $?"; }
	assert_eq "$fmt with --rust-names --cxx-names" "$want 3" "$(cat "$TMP/out")"
	# without the options the names stay as each format's own rules leave them
	"$FLAMEKIT" collapse --format $fmt "$TMP/$fmt.txt" > "$TMP/out"
	grep -qF '::h3b2fe2b3c1e0d2f3' "$TMP/out" || fail "$fmt: a hash went without --rust-names"
done
# the same name twice with two hashes is one frame once repaired
printf 'main;core::fmt::write::h1234567890abcdef 1\nmain;core::fmt::write::hfedcba0987654321 2\nmain;not_rust::h12 4\n' > "$TMP/two.txt"
assert_eq "hashes merge" "main;core::fmt::write 3|main;not_rust::h12 4" \
	"$("$FLAMEKIT" collapse --rust-names "$TMP/two.txt" | paste -sd'|')"
# names that only look alike are left alone
printf 'main;a$XY$b::h1234567890abcdef 1\nmain;(anonymous namespace)::f(int) 2\nmain;operator() 3\nmain;f(int)::g 4\n' > "$TMP/odd.txt"
assert_eq "left alone" 'main;(anonymous namespace)::f 2|main;a$XY$b::h1234567890abcdef 1|main;f(int)::g 4|main;operator() 3' \
	"$("$FLAMEKIT" collapse --rust-names --cxx-names "$TMP/odd.txt" | paste -sd'|')"

# perf script text: the perl cut ("std::function<int ") by default, the whole name
# with --cxx-names; a jitted-*.so module (perf inject --jit) is JIT code for --jit.
cat > "$TMP/perf.txt" <<PERF
spin 4242/4242 100.000001:     250000 cpu-clock:ppp:
	    55f46b06cf9c $R1+0x1c (/tmp/spin)
	    55f46b06cc07 $C1+0x10 (/tmp/spin)
	    7f2a00001000 Interpreter+0x3 (/root/.debug/jit/java-jit-20261124.Xy12/jitted-4242-17.so)
	    55f46b06d314 main+0x34 (/tmp/spin)

PERF
assert_eq "perf default" "spin;main;Interpreter;std::function<int ;$R1 250000" "$("$FLAMEKIT" collapse "$TMP/perf.txt")"
assert_eq "perf with the options" "spin;main;Interpreter_[j];$C1F;$R1F 250000" \
	"$("$FLAMEKIT" collapse --rust-names --cxx-names --jit "$TMP/perf.txt")"
# --kernel marks kernel frames _[k], a BPF program's too (a tracer's program that ran inside the
# traced syscall's kernel stack; perf names its module bpf_prog_TAG_NAME): a real recording
"$FLAMEKIT" collapse --kernel "$FK_TOP/tests/parsers/data/perf-bpf-prog.txt" > "$TMP/bpf.folded" ||
	fail "collapse --kernel of the BPF recording"
grep -q ';bpf_prog_8db0fd61b4440f70_sys_exit_read_\[k\];' "$TMP/bpf.folded" ||
	{ cat "$TMP/bpf.folded"; fail "the BPF program's frame is not marked a kernel frame"; }
awk '{ sub(/ [^ ]*$/, ""); n = split($0, f, ";"); for (i = 3; i <= n; i++) if (f[i] !~ /_\[k\]$/) { print; exit 1 } }' \
	"$TMP/bpf.folded" || fail "a kernel-context frame without _[k]"
echo "names: ok"

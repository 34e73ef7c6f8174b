#!/usr/bin/env bash
# tests/perf/mkedge.sh - write the hand-made perf script edge cases into tests/perf/data/edge
# (committed; their expectations come from expect.sh and the perl oracle).
set -eu
E=$(cd "$(dirname "$0")" && pwd)/data/edge
mkdir -p "$E"
cd "$E"

# process names with spaces, digits, one character; TID-only, PID/TID and 0/0 headers
printf '%s\n' \
	'V8 WorkerThread 25607 [000] 4794564.109216:     1000 cycles: ' \
	'	7f00000001 v8::internal::Run+0x10 (/usr/bin/node)' \
	'	7f00000002 main+0x20 (/usr/bin/node)' \
	'' \
	'java 24636/25607 [001] 4794564.209216: 2000 cycles:' \
	'	7f00000003 Lorg/mozilla/javascript/ContextFactory;.call(Lorg/mozilla/javascript/ContextAction;)Ljava/lang/Object; (/tmp/perf-24636.map)' \
	'	7f00000004 Lorg/mozilla/javascript/MemberBox;.<init>(Ljava/lang/reflect/Method;)V (/tmp/perf-24636.map)' \
	'	7f00000005 Interpreter (/tmp/perf-24636.map)' \
	'' \
	'foo 12 bar 345/346 [002] 4794564.309216: 3000 cycles:' \
	'	ffffffff81000001 do_syscall_64+0x1f ([kernel.kallsyms])' \
	'	7f00000006 [unknown] (/usr/lib/libfoo.so)' \
	'' \
	'swapper     0/0     [003] 4794564.409216:   4000 cycles:' \
	'	ffffffff81000002 native_safe_halt ([kernel.kallsyms])' \
	'	ffffffff81000003 start_kernel (/lib/modules/6.1.0/build/vmlinux)' \
	'' \
	'Web Content 7 4794564.509216: cycles:' \
	'	7f00000007 [unknown] ([unknown])' \
	'	0 [unknown] ([unknown])' \
	'' \
	'javac 99/100 4794564.609216: 1 cycles:' \
	'	7f00000008 Ljava/lang/String;.hashCode()I (/tmp/perf-99.map)' \
	'' > comms.perf-script

# samples without a callchain (header then blank line), single-line samples of a second
# event, and a stack that follows a sample never closed by a blank line
printf '%s\n' \
	'sleep 1001 [000] 100.000001: 10 cpu-clock: ' \
	'' \
	'sleep 1001 [000] 100.000002: 10 cpu-clock: ' \
	'	ffffffff81000001 schedule+0x1 ([kernel.kallsyms])' \
	'' \
	'bash 1002 [001] 100.000003:         20 task-clock:  ffffffff81000001 schedule+0x1 ([kernel.kallsyms])' \
	'bash 1002 [001] 100.000004: 10 cpu-clock: ' \
	'	4005d6 main+0x6 (/bin/bash)' \
	'' \
	'bash 1002 [001] 100.000005: 10 cpu-clock: ' \
	'bash 1002 [001] 100.000006: 10 cpu-clock: ' \
	'	4005d7 main+0x7 (/bin/bash)' \
	'' > nocallchain.perf-script

# two events interleaved: the first one seen is kept by default
printf '%s\n' \
	'# ========' \
	'# cmdline : /usr/bin/perf record -e cycles,instructions -g ./a.out' \
	'# ========' \
	'#' \
	'a.out 500 10.000001: 100 instructions: ' \
	'	401000 work+0x1 (/tmp/a.out)' \
	'	401100 main+0x1 (/tmp/a.out)' \
	'' \
	'a.out 500 10.000002: 1000 cycles: ' \
	'	401000 work+0x1 (/tmp/a.out)' \
	'	401100 main+0x1 (/tmp/a.out)' \
	'' \
	'a.out 500 10.000003: 200 instructions: ' \
	'	401200 other+0x1 (/tmp/a.out)' \
	'	401100 main+0x1 (/tmp/a.out)' \
	'' \
	'a.out 500 10.000004: 3000 cycles: ' \
	'	401200 other+0x1 (/tmp/a.out)' \
	'' \
	'a.out 500 10.000005: 0 instructions: ' \
	'	401200 other+0x1 (/tmp/a.out)' \
	'' \
	'a.out 500 10.000006: 00 instructions: ' \
	'	401200 other+0x1 (/tmp/a.out)' \
	'' \
	'a.out 500 10.000007: 123456789012 instructions: ' \
	'	401200 other+0x1 (/tmp/a.out)' \
	'' > events.perf-script

# names: UTF-8 (multi-byte last), ';' and quotes, templates, Go methods, anonymous
# namespaces, lambdas and operator(), inline chains "->", offsets, odd module texts
printf '%s\n' \
	'数据处理 321 [000] 50.000001: 5 cpu-clock: ' \
	'	401000 数据库::查询执行器::运行+0x10 (/opt/app/bin/服务)' \
	'	401001 Größe::berechnen (/opt/app/bin/服务)' \
	'	401002 emoji_😀 (/opt/app/bin/服务)' \
	'	401003 [unknown] (/opt/app/lib/ライブラリ.so)' \
	'' \
	'semi;colon 322 [000] 50.000002: 5 cpu-clock: ' \
	'	401004 a;b;c (/x/semi;dso)' \
	'	401005 it'"'"'s "quoted" (/x/q)' \
	'	401006 std::vector<int, std::allocator<int> >::push_back(int const&) (/x/t)' \
	'	401007 net/http.(*Client).Do (/x/go)' \
	'	401008 (anonymous namespace)::hidden_work(int) (/x/anon)' \
	'	401009 main::{lambda(int)#1}::operator()(int) const (/x/lambda)' \
	'	40100a Accumulator::operator() (/x/op)' \
	'	40100b outer->middle->inner+0x3 (/x/inl)' \
	'	40100c ->leading (/x/inl)' \
	'	40100d trailing-> (/x/inl)' \
	'	40100e -> (/x/inl)' \
	'	40100f f+0xAB (/x/hexcase)' \
	'	401010 g+0x1+0x2 (/x/twice)' \
	'	401011 (process_name) (/x/paren)' \
	'	401012 deleted_lib_fn (/usr/lib/libgone.so (deleted))' \
	'	401013 h_[i]->k_[i] (/x/marked)' \
	'	401014 jitted_[j] (/tmp/perf-322.map)' \
	'	401015 mod_fn ([ext4])' \
	'	401016 unk_mod ([unknown_module])' \
	'	401017 [unknown] (/tmp/perf-322.map)' \
	'' \
	'   0 spaces_before_addr (/x/s)' \
	'' > names.perf-script

# truncated input: the last sample has no blank line and no final newline
{
	printf '%s\n' 'prog 7 [000] 1.000001: 1 cpu-clock: ' '	401000 done_fn (/x/prog)' '' \
		'prog 7 [000] 1.000002: 1 cpu-clock: '
	printf '\t401001 cut_fn (/x/prog)'
} > truncated.perf-script

# malformed lines between good samples (each one a warning naming file:line)
printf '%s\n' \
	'prog 7 [000] 1.000001: 1 cpu-clock: ' \
	'	401000 good_fn (/x/prog)' \
	'this is not a perf line' \
	'	no address and no module' \
	'' \
	'x 7 [000] 1.000002: 1 cpu-clock: ' \
	'	401000 after_short_comm (/x/prog)' \
	'' \
	'   ' \
	'prog 8 [000] 1.000003: 1 cpu-clock: ' \
	'	401000 good_again (/x/prog)' \
	'' > malformed.perf-script

# CRLF line endings (perl keeps the CR: the blank line is not blank)
printf 'crlf 9 [000] 2.000001: 1 cpu-clock: \r\n\t401000 fn_a (/x/crlf)\r\n\r\ncrlf 9 [000] 2.000002: 1 cpu-clock: \n\t401000 fn_b (/x/crlf)\n\n' > crlf.perf-script

# NUL bytes and invalid UTF-8 inside names
{
	printf 'nul\0comm 10 [000] 3.000001: 1 cpu-clock: \n'
	printf '\t401000 fn\0with_nul (/x/n)\n'
	printf '\t401001 bad\xff\xfeutf8\xc3 (/x/n)\n'
	printf '\t401002 cut_multibyte_\xe6\x95 (/x/n)\n\n'
} > bytes.perf-script

# a 100 KB symbol and a 10,000-frame stack
{
	printf 'deep 11 [000] 4.000001: 1 cpu-clock: \n'
	printf '\t401000 %s (/x/long)\n' "$(head -c 100000 /dev/zero | tr '\0' 'x')"
	for i in $(seq 1 10000); do printf '\t%x f%d (/x/deep)\n' $((0x400000 + i)) $((i % 97)); done
	printf '\n'
} > huge.perf-script
zstd -q -19 -f --rm huge.perf-script

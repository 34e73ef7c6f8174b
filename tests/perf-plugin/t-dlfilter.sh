#!/usr/bin/env bash
# The dlfilter inside real `perf script` on a real frame-pointer recording:
# known proportions, same bytes as `perf script | flamekit collapse`, options.
. "$(dirname "$0")/lib-perf.sh"
build_wl work
cd "$TMP"
# (3200 rounds, ~1600 samples; 800 rounds, ~400, fell outside [70, 80] in two runs of the
# suite at once, 69.3 and 80.3)
perf record -q -F 999 -g -o work.data ./work 3200 > /dev/null 2>&1 || fail "perf record failed"

# default: folded stacks on stdout, perf itself prints nothing else
perf script -i work.data --dlfilter "$DLF" > dl.folded 2> dl.err || { cat dl.err; fail "perf script --dlfilter failed"; }
[ -s dl.folded ] || fail "no folded output"
grep -v '^work;' dl.folded | grep -q . && fail "a stack without the process name root: $(grep -v '^work;' dl.folded | head -1)"
b=$(weight_of dl.folded ';main;a;b;spin$')
c=$(weight_of dl.folded ';main;c;spin$')
tot=$(weight_of dl.folded '.')
echo "b=$b c=$c total=$tot"
[ "$b" -gt 0 ] && [ "$c" -gt 0 ] || fail "main;a;b;spin or main;c;spin missing: $(cat dl.folded)"
# b spins 3 units per unit of c: 75% of b+c, within what a timer's samples give on a busy
# machine (a task often put off its CPU is sampled as its time slices fall: 66% in one run
# of 1,589 samples with two suites at once, 74-77% in four runs beside the same load; an
# attribution gone wrong gives 50% or 100%)
pct=$(awk -v b="$b" -v c="$c" 'BEGIN { printf "%.1f", 100 * b / (b + c) }')
assert_between "share of main;a;b" 60 88 "$pct"
# b and c are nearly all of the samples
assert_between "share of b+c in total" 90 100 "$(awk -v b="$b" -v c="$c" -v t="$tot" 'BEGIN { print 100 * (b + c) / t }')"
# weighted by period: cpu-clock at 999 Hz has a period of ~1001001 ns
nsamp=$(perf script -i work.data -F period | wc -l)
assert_eq "total weight = sum of periods" "$(perf script -i work.data -F period | awk '{ s += $1 } END { printf "%.0f", s }')" "$tot"

# byte-identical to the text route through the core's perf parser with
# exact-ret; by default too, except for samples in ld.so's _start: its call to
# _dl_start is its last instruction, the one place where the addr-1 lookup
# names the real caller (_start) and perf script the next function
perf script -i work.data | "$FLAMEKIT" collapse > text.folded || fail "flamekit collapse failed"
perf script -i work.data --dlfilter "$DLF" --dlarg exact-ret > dl-exact.folded || fail "exact-ret"
assert_files_eq text.folded dl-exact.folded
grep -v '^work;_dl_start_user;' text.folded > text-nold.folded
grep -v '^work;_start;' dl.folded > dl-nold.folded
assert_files_eq text-nold.folded dl-nold.folded
# one root-frame rule for both paths: a process name with a ';' and a space (the comm
# is the executable's name) is split into root frames at the ';' and the space made
# '_', as stackcollapse-perf.pl does, in the dlfilter's SVG as in the text route's
cp work 'w;x y'
perf record -q -F 999 -g -o semi.data './w;x y' 200 > /dev/null 2>&1 || fail "perf record (w;x y) failed"
perf script -i semi.data --dlfilter "$DLF" --dlarg exact-ret --dlarg svg=semi-dl.svg > /dev/null ||
	fail "dlfilter svg (w;x y)"
perf script -i semi.data | "$FLAMEKIT" svg -o semi-text.svg || fail "flamekit svg (w;x y)"
python3 "$FK_TOP/tests/svg/fkframes.py" semi-dl.svg | cut -f2,6,7 > semi-dl.frames
python3 "$FK_TOP/tests/svg/fkframes.py" semi-text.svg | cut -f2,6,7 > semi-text.frames
grep -qP '^1\t[0-9]+\tw$' semi-dl.frames || fail "root 'w' not a frame of its own: $(head -3 semi-dl.frames)"
grep -qP '^2\t[0-9]+\tx_y$' semi-dl.frames || fail "root 'x_y' not under 'w': $(head -3 semi-dl.frames)"
assert_files_eq semi-text.frames semi-dl.frames
# code in a memfd mapping (perf's module "/memfd:fkjit (deleted)"): both routes name
# its frames alike (the text route as stackcollapse-perf.pl reads that line)
if [ "$(uname -m)" = x86_64 ]; then
	build_wl memfd
	perf record -q -F 999 -g -o memfd.data ./memfd 300 > /dev/null 2>&1 || fail "perf record (memfd) failed"
	perf script -i memfd.data | grep -q '(/memfd:fkjit (deleted))' || fail "no memfd module in perf script"
	perf script -i memfd.data | "$FLAMEKIT" collapse > memfd-text.folded || fail "collapse (memfd)"
	perf script -i memfd.data --dlfilter "$DLF" --dlarg exact-ret > memfd-dl.folded || fail "dlfilter (memfd)"
	grep -q '^memfd;.*;\[unknown\] ' memfd-text.folded || fail "memfd frame missing: $(head -2 memfd-text.folded)"
	assert_files_eq memfd-text.folded memfd-dl.folded
else
	echo "note: memfd workload is x86-64 machine code; not checked on $(uname -m)"
fi
# a call that ends a function (to a noreturn function): addr-1 names the caller
perf record -q -F 999 -g -o n.data ./work n > /dev/null 2>&1 || fail "perf record (n) failed"
perf script -i n.data --dlfilter "$DLF" > n-dl.folded || fail "dlfilter (n)"
perf script -i n.data --dlfilter "$DLF" --dlarg exact-ret > n-exact.folded || fail "exact-ret (n)"
perf script -i n.data | "$FLAMEKIT" collapse > n-text.folded
grep -q ';main;ender;fin;spin ' n-dl.folded || fail "addr-1 lookup lost ender: $(head -3 n-dl.folded)"
grep -q ';main;after_ender;fin;spin ' n-text.folded || fail "perf script text unexpectedly names ender"
assert_files_eq n-text.folded n-exact.folded
for opt in pid tid kernel all; do
	perf script -i work.data --dlfilter "$DLF" --dlarg exact-ret --dlarg "$opt" > dl-$opt.folded || fail "--dlarg $opt"
	# default perf script output shows no pid (collapse then writes "comm-?"): add it
	perf script -i work.data -F +pid | "$FLAMEKIT" collapse --$opt > text-$opt.folded || fail "collapse --$opt"
	assert_files_eq text-$opt.folded dl-$opt.folded
done
grep -q "^work-[0-9]*;" dl-pid.folded || fail "pid root frame missing"
grep -q "^work-[0-9]*/[0-9]*;" dl-tid.folded || fail "tid root frame missing"
perf script -i work.data --dlfilter "$DLF" --dlarg exact-ret --dlarg count=samples > dl-n.folded || fail "count=samples"
assert_eq "count=samples total" "$nsamp" "$(weight_of dl-n.folded .)"
perf script -i work.data | "$FLAMEKIT" collapse --samples > text-n.folded
assert_files_eq text-n.folded dl-n.folded

# the perf report -g folded route (a core input format) counts samples: same stacks
perf report -i work.data --stdio --no-children -g folded,0,caller,count > report.txt 2> /dev/null ||
	fail "perf report -g folded failed"
"$FLAMEKIT" collapse report.txt > report.folded || fail "flamekit collapse of perf report output"
# (perf report shows unresolved startup frames its own way: compare main's stacks)
grep ';main;' report.folded > report-main.folded
grep ';main;' dl-n.folded > dl-n-main.folded
[ -s dl-n-main.folded ] || fail "no main stacks"
assert_files_eq report-main.folded dl-n-main.folded

# several outputs at once, to files; samples file has one line per sample
perf script -i work.data --dlfilter "$DLF" --dlarg folded=o.folded --dlarg samples=o.samples \
	--dlarg svg=o.svg --dlarg title=Work > o.stdout || fail "outputs to files"
[ -s o.stdout ] && fail "perf printed samples although the filter drops them"
assert_files_eq dl.folded o.folded
assert_eq "samples header" "# flamekit samples v1" "$(head -1 o.samples)"
assert_eq "samples lines" "$nsamp" "$(grep -vc '^#' o.samples)"
grep -q "<svg" o.svg || fail "no SVG written"
assert_contains o.svg "Work"
ls *.tmp.* 2> /dev/null && fail "temporary files left behind"

# svg=X.html: the HTML viewer page, holding exactly the folded stacks of the run
perf script -i work.data --dlfilter "$DLF" --dlarg svg=o.html --dlarg folded=oh.folded > /dev/null ||
	fail "svg=o.html"
grep -q 'id="fkdata"' o.html || fail "svg=o.html did not write the HTML page"
assert_page_holds o.html oh.folded

# deterministic: same perf.data, same bytes
perf script -i work.data --dlfilter "$DLF" --dlarg svg=o2.svg --dlarg title=Work > /dev/null
cmp o.svg o2.svg || fail "SVG differs between two runs"

# the samples file feeds the core's other views: heat map, and back to folded
"$FLAMEKIT" collapse o.samples > o.samples.folded || fail "collapse of the samples file"
assert_files_eq dl.folded o.samples.folded
"$FLAMEKIT" heatmap o.samples > o.html 2> heat.err || { cat heat.err; fail "heatmap of the samples file"; }
grep -q "work" o.html || fail "heat map lacks the process"

# untrusted names: C++ template brackets are escaped in the SVG
if command -v g++ > /dev/null; then
	g++ $WL_CFLAGS -o tmpl "$HERE/tmpl.cc" || fail "cannot build tmpl.cc"
	perf record -q -F 999 -g -o t.data ./tmpl > /dev/null 2>&1 || fail "perf record (tmpl) failed"
	perf script -i t.data --dlfilter "$DLF" --dlarg svg=t.svg --dlarg folded=t.folded || fail "tmpl"
	grep -q 'churn<std::vector<int' t.folded || fail "template name not folded: $(head -2 t.folded)"
	grep -q 'churn&lt;std::vector&lt;int' t.svg || fail "template name not escaped in the SVG"
	grep -q 'churn<std' t.svg && fail "raw < from a symbol name in the SVG"
fi

# kernel-only / user-only on a kernel-heavy run (read() of /dev/zero)
perf record -q -F 999 -g -o k.data ./work k 40000 > /dev/null 2>&1 || fail "perf record (k) failed"
perf script -i k.data --dlfilter "$DLF" --dlarg kernel > k-all.folded || fail "kernel"
grep -q ';main;kread;.*_\[k\]' k-all.folded || fail "no kernel frames under kread: $(head -3 k-all.folded)"
perf script -i k.data --dlfilter "$DLF" --dlarg kernel --dlarg user-only > k-user.folded || fail "user-only"
grep -q '_\[k\]' k-user.folded && fail "user-only kept kernel frames: $(grep '_\[k\]' k-user.folded | head -1)"
grep -q ';main;kread' k-user.folded || fail "user-only lost user frames"
perf script -i k.data --dlfilter "$DLF" --dlarg kernel --dlarg kernel-only > k-kern.folded || fail "kernel-only"
# every frame after the process name is a kernel frame
awk '{ sub(/ [^ ]*$/, ""); n = split($0, f, ";"); for (i = 2; i <= n; i++) if (f[i] !~ /_\[k\]$/) { print; exit 1 } }' k-kern.folded ||
	fail "kernel-only kept a user frame"
[ -s k-kern.folded ] || fail "kernel-only folded nothing"
echo ok

#!/usr/bin/env bash
# --rust-names demangles Rust v0 names ("_RNvNtCs..._5crate6module4func"), as
# rustc writes them with -C symbol-mangling-version=v0 (and as its own std is built):
# every v0 symbol of real programs (non-ASCII names included) and of the std
# libraries prints as binutils' c++filt -i prints it, and perf recordings read with
# perf's demangling off (--no-demangle) fold, on both report paths, to what perf's
# own demangling gives.
. "$(dirname "$0")/lib-perf.sh"
command -v rustc > /dev/null || skip "rustc not installed"
cd "$TMP"
export PATH=$BUILD:$PATH
rustc -O -g -C force-frame-pointers=yes -C symbol-mangling-version=v0 -o spin \
	"$FK_TOP/tests/parsers/data/names/spin.rs" 2> rustc.err || { cat rustc.err; fail "rustc -C symbol-mangling-version=v0"; }
# non-ASCII names: v0 writes them in Punycode ("u" identifiers)
cat > uni.rs <<'RS'
mod größe { #[inline(never)] pub fn maße(x: u64) -> u64 { x * 3 } }
#[inline(never)] fn 函数<T: Copy>(x: T) -> T { x }
struct Ünit;
impl Ünit { #[inline(never)] fn ändern(&self) -> u64 { 7 } }
fn main() { let c = |x: u64| größe::maße(x); println!("{} {} {}", c(3), 函数(2u8), Ünit.ändern()); }
RS
rustc -C symbol-mangling-version=v0 -o uni uni.rs 2> rustc.err || { cat rustc.err; fail "rustc uni.rs"; }
nm spin uni | awk '$NF ~ /^_R/ { print $NF }' > syms
for f in "$(rustc --print sysroot)"/lib/rustlib/*/lib/libstd-*.so; do nm -D "$f"; nm "$f"; done 2> /dev/null |
	awk '$NF ~ /^_R/ { print $NF }' >> syms
LC_ALL=C sort -u syms -o syms
[ "$(wc -l < syms)" -ge 500 ] || fail "only $(wc -l < syms) v0 symbols in the program and std"
grep -q 'NC' syms && grep -q '^_RI' syms && grep -q '^_RNvM' syms && grep -q 'B[0-9a-zA-Z]*_' syms ||
	fail "the symbols lack closures, generic args, impls or backrefs"
# our demangling, one frame per line under a numbered root (collapse sorts and merges)
awk '{ printf "n%07d;%s 1\n", NR, $0 }' syms > syms.folded
"$FLAMEKIT" collapse --rust-names syms.folded | sed 's/^n[0-9]*;//; s/ 1$//' > ours
[ "$(wc -l < ours)" = "$(wc -l < syms)" ] || fail "collapse lost lines"
grep -q '^_R' ours && { grep '^_R' ours | head -3; fail "v0 names left mangled"; }
grep -qF 'spin::work' ours && grep -qF '{closure#0}' ours || fail "spin::work or a closure missing"
for n in 'uni::größe::maße' 'uni::函数::<u8>' '<uni::Ünit>::ändern'; do
	grep -qxF "$n" ours || fail "$n (Punycode) missing"
done
if [ "$(echo _RNvNtCs1234_5crate6module4func | c++filt -i 2> /dev/null)" = crate::module::func ]; then
	# the reference: binutils' demangler without implementation details (';' is ':' in frames)
	c++filt -i < syms | tr ';' ':' > ref
	assert_files_eq ref ours
	echo "$(wc -l < syms) v0 symbols demangled as c++filt -i does"
else
	echo "note: this c++filt has no Rust v0 demangler: not compared"
fi
# grammar corners rustc's own symbols may not show (expected as c++filt -i prints them);
# malformed names (a backref that does not point back, a cut, trailing bytes) stay as
# they are; an internal (lowercase) namespace prints as a plain path
cat > corners.tsv <<'T'
_RINvC1a1bKb1_Kc41_Kan5_Kj10_E	a::b::<true, 'A', -5, 16>
_RINvC1a1bFKCRlEuE	a::b::<extern "C" fn(&i32)>
_RINvC1a1bFG0_RL0_hEuE	a::b::<for<'a, 'b> fn(&'b u8)>
_RINvC1a1bTlEE	a::b::<(i32,)>
_RINvC1a1bQL_hE	a::b::<&mut u8>
_RINvC1a1bAhj10_E	a::b::<[u8: 16]>
_RNCNvC1a1bs0_3foo	a::b::{closure:foo#2}
_RINvC1a1bDINtC3std2FnTlEEp6OutputmEL_E	a::b::<dyn std::Fn<(i32,), Output = u32>>
_RIC7backrefNvB0_5identE	backref::<backref::ident>
_RNvNtCs1234_5crate6module4func.llvm.123	crate::module::func
__RNvC3foo3bar	foo::bar
_RNvB_1a	_RNvB_1a
_RB5_	_RB5_
_RNvC3foo3ba	_RNvC3foo3ba
_RNxC3foo3bar	foo::bar
_RNvC3foo3barXYZ	_RNvC3foo3barXYZ
T
cut -f1 corners.tsv | awk '{ printf "n%03d;%s 1\n", NR, $0 }' > corners.folded
"$FLAMEKIT" collapse --rust-names corners.folded | sed 's/^n[0-9]*;//; s/ 1$//' > corners.out
cut -f2 corners.tsv > corners.want
assert_files_eq corners.want corners.out

# without the option the names stay as they are
"$FLAMEKIT" collapse syms.folded | sed 's/^n[0-9]*;//; s/ 1$//' > raw
assert_files_eq syms raw

# perf: its own demangling against ours on its raw symbols, both report paths
perf record -q -F 999 -g -o rs.data ./spin > /dev/null 2>&1 || fail "perf record"
perf flame report -q -i rs.data --full-names --folded perf.folded 2> /dev/null || fail "report"
grep -qF ';spin::main;spin::work' perf.folded || fail "perf did not demangle: $(head -2 perf.folded)"
perf flame report -q -i rs.data --full-names --folded mangled.folded -- --no-demangle 2> /dev/null ||
	fail "report -- --no-demangle"
grep -q ';_RNv' mangled.folded || fail "--no-demangle left no v0 names"
# (the text path names a return address's function as perf script does, at the address itself:
# the dlfilter, at addr-1, names the caller where a call ends a function, as ld.so's _start
# does in a sample taken while the program starts; --exact-ret is the dlfilter's way to match)
perf flame report -q -i rs.data --full-names --exact-ret --folded perf-exact.folded 2> /dev/null ||
	fail "report --exact-ret"
for path in "" --text; do
	perf flame report -q $path -i rs.data --full-names --rust-names --folded ours.folded -- --no-demangle ||
		fail "report $path --rust-names -- --no-demangle"
	if [ -z "$path" ]; then
		assert_files_eq perf.folded ours.folded
	else
		assert_files_eq perf-exact.folded ours.folded
	fi
done
echo ok

#!/usr/bin/env bash
# --rust-names on real input: eu-stack demangles a Rust program's legacy symbols
# as C++ and leaves "::h<hash>" and "$u7b$" escapes ("std::rt::lang_start::
# _$u7b$$u7b$closure$u7d$$u7d$::h54d4d8b820eabfaa"); flamekit repairs them.
. "$(dirname "$0")/../lib.sh"
command -v rustc > /dev/null || skip "rustc not installed"
command -v eu-stack > /dev/null || skip "eu-stack not installed (Debian package elfutils)"
rustc -O -g -C force-frame-pointers=yes -o "$TMP/spin" "$FK_TOP/tests/parsers/data/names/spin.rs" 2> "$TMP/rustc.err" ||
	{ cat "$TMP/rustc.err"; fail "rustc failed"; }
"$TMP/spin" > /dev/null & pid=$!
trap 'kill $pid 2> /dev/null; rm -rf "$TMP"' EXIT
wait_threads $pid 1 "$TMP/spin"
# snapshots until one catches the loop in work() (many land in its elapsed() check),
# at least three, while the program runs (3 s)
: > "$TMP/eu.txt"
for i in $(seq 1 40); do
	eu-stack -p $pid >> "$TMP/eu.txt" 2> "$TMP/eu.err" || break
	[ $i -ge 3 ] && grep -qE 'spin::work::h' "$TMP/eu.txt" && break
	sleep 0.05
done
grep -q '^TID ' "$TMP/eu.txt" || skip "eu-stack cannot attach here: $(head -1 "$TMP/eu.err")"
grep -qE '::h[0-9a-f]{16}$' "$TMP/eu.txt" || skip "this rustc writes no legacy (hashed) symbols"
"$FLAMEKIT" collapse --rust-names "$TMP/eu.txt" > "$TMP/out" || fail "collapse: exit $?"
grep -qF 'spin::main;spin::work' "$TMP/out" || { cat "$TMP/out"; fail "spin::main;spin::work missing"; }
! grep -qE '::h[0-9a-f]{16}(;| )' "$TMP/out" || fail "hashes left"
# (a symbol eu-stack could not demangle at all, e.g. older rustc's "_ZN...E.llvm.N",
# stays as it is: --rust-names repairs half-demangled names only)
! tr ';' '\n' < "$TMP/out" | grep -v '^_ZN' | grep -qF '$u7b$' || fail "escapes left"
if grep -qF 'lang_start::_$u7b$' "$TMP/eu.txt"; then
	grep -qF 'std::rt::lang_start::{{closure}}' "$TMP/out" || fail "{{closure}} not decoded"
fi
"$FLAMEKIT" collapse "$TMP/eu.txt" | grep -qE 'spin::work::h[0-9a-f]{16}' || fail "default changed the names"
echo "rust names: ok"

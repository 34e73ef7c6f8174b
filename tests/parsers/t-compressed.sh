#!/usr/bin/env bash
# Compressed input (gzip, zstd; recognised by magic bytes, from a file or a pipe) folds to the
# same bytes as the plain input, for every golden input and the shared perf corpus; damaged
# compressed input is named with its compressed byte and refused whole (exit 1).
. "$(dirname "$0")/../lib.sh"
command -v gzip > /dev/null || skip "gzip not installed"
command -v zstd > /dev/null || skip "zstd not installed"
D=$FK_TOP/tests/parsers/data
n=0
# same_output WHAT OPTS...: plain file vs .gz file, .zst file, gzip pipe, zstd pipe
same_output() {
	local what=$1 rc0 rc
	shift
	rc0=0; "$FLAMEKIT" collapse "$@" "$TMP/in" > "$TMP/want" 2> /dev/null || rc0=$?
	gzip -c "$TMP/in" > "$TMP/in.gz"
	zstd -q -c "$TMP/in" > "$TMP/in.zst"
	for src in file.gz file.zst pipe.gz pipe.zst; do
		rc=0
		case $src in
		file.*) "$FLAMEKIT" collapse "$@" "$TMP/in.${src#file.}" > "$TMP/out" 2> "$TMP/err" || rc=$? ;;
		pipe.*) "$FLAMEKIT" collapse "$@" < "$TMP/in.${src#pipe.}" > "$TMP/out" 2> "$TMP/err" || rc=$? ;;
		esac
		[ $rc -eq $rc0 ] || { cat "$TMP/err" >&2; fail "$what [$*] $src: exit $rc, plain $rc0"; }
		cmp -s "$TMP/want" "$TMP/out" || fail "$what [$*] $src: output differs from the plain input's"
		n=$((n + 1))
	done
}
for f in "$D"/*/*.txt; do
	cp "$f" "$TMP/in"
	same_output "${f#"$D"/}"
done
CORPUS=$FK_CORPUS
if [ -d "$CORPUS" ]; then
	for z in "$CORPUS"/*.perf-script.zst; do
		zstd -q -dc "$z" > "$TMP/in"
		same_output "$(basename "$z")"
		same_output "$(basename "$z")" --all --threads 2
	done
else
	echo "note: no shared corpus at $CORPUS; golden inputs only"
fi
[ $n -ge 64 ] || fail "only $n comparisons"

# Several gzip members (cat a.gz b.gz) and several zstd frames: all of them are read.
printf 'a;b 1\n' | gzip > "$TMP/1.gz"
printf 'a;c 2\n' | gzip > "$TMP/2.gz"
cat "$TMP/1.gz" "$TMP/2.gz" | "$FLAMEKIT" collapse > "$TMP/out" || fail "two gzip members: exit $?"
assert_eq "two gzip members" "$(printf 'a;b 1\na;c 2')" "$(cat "$TMP/out")"
{ printf 'a;b 1\n' | zstd -q; printf 'a;b 5\n' | zstd -q; } > "$TMP/2.zst"
assert_eq "two zstd frames" "a;b 6" "$("$FLAMEKIT" collapse "$TMP/2.zst")"

# A truncated file is refused whole (its data cannot be checked: a CRC32 or checksum at the
# end of the member or frame), the cut named with its compressed byte, exit 1, no stacks.
seq 1 200000 | awk '{ printf "main;f%d %d\n", ($1 * 2654435761) % 100003, 1 }' > "$TMP/big"
for c in gzip zstd; do
	$c -c < "$TMP/big" > "$TMP/big.$c"
	size=$(stat -c %s "$TMP/big.$c")
	head -c $((size / 2)) "$TMP/big.$c" > "$TMP/cut.$c"
	run_rc 1 "$FLAMEKIT" collapse "$TMP/cut.$c" > "$TMP/out" 2> "$TMP/err"
	assert_contains "$TMP/err" "cut.$c: $c input is truncated at compressed byte $((size / 2))"
	assert_contains "$TMP/err" "nothing of this input is used"
	[ ! -s "$TMP/out" ] || fail "$c truncated: stacks written"
	[ "$(wc -l < "$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "$c truncated: more than one message"; }
	# the same from a pipe, named as standard input
	run_rc 1 "$FLAMEKIT" collapse < "$TMP/cut.$c" > "$TMP/out" 2> "$TMP/err"
	assert_contains "$TMP/err" "<stdin>: $c input is truncated"
	[ ! -s "$TMP/out" ] || fail "$c truncated, from a pipe: stacks written"
done

# Corrupt data (more in t-damaged.sh): named, exit 1, nothing used.
cp "$TMP/big.zstd" "$TMP/bad.zst"
size=$(stat -c %s "$TMP/bad.zst")
printf '\377\377\377\377\377\377\377\377' | dd of="$TMP/bad.zst" bs=1 seek=$((size / 2)) conv=notrunc status=none
run_rc 1 "$FLAMEKIT" collapse "$TMP/bad.zst" > "$TMP/out" 2> "$TMP/err"
assert_contains "$TMP/err" "bad.zst: zstd input is corrupt"
[ ! -s "$TMP/out" ] || fail "corrupt zstd: stacks written"
# junk after a whole member: the input is damaged too (it is not a gzip file), refused
(printf 'a;b 1\n' | gzip; printf 'trailing junk') > "$TMP/junk.gz"
run_rc 1 "$FLAMEKIT" collapse "$TMP/junk.gz" > "$TMP/out" 2> "$TMP/err"
assert_contains "$TMP/err" "junk.gz: gzip input is corrupt"
[ ! -s "$TMP/out" ] || fail "junk.gz: stacks written"
printf '\037\213' > "$TMP/magic-only.gz"
run_rc 1 "$FLAMEKIT" collapse "$TMP/magic-only.gz" > "$TMP/out" 2> "$TMP/err"
assert_contains "$TMP/err" "magic-only.gz: gzip input is truncated"
echo "compressed: $n comparisons identical to plain input"

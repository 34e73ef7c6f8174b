#!/usr/bin/env bash
# Golden tests of the tapset's two printed formats through the parsers and the
# renderer (tests/stap/data/README says where the texts come from).
. "$(dirname "$0")/../lib.sh"
D=$FK_TOP/tests/stap/data
[ -x "$FLAMEKIT" ] || fail "no $FLAMEKIT (make first)"

# stackcollapse-stap format: detected, and folded exactly as the perl script does.
"$FLAMEKIT" collapse "$D/aggregate.stap" > "$TMP/stap.collapsed" 2> "$TMP/err" || { cat "$TMP/err"; fail "collapse of the stap format"; }
assert_files_eq "$D/aggregate.stap.collapsed" "$TMP/stap.collapsed"
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "warnings on the stap format"; }
"$FLAMEKIT" collapse --format stap "$D/aggregate.stap" | cmp -s - "$D/aggregate.stap.collapsed" || fail "--format stap differs"

# Folded format: read back unchanged (sorted), nothing skipped.
LC_ALL=C sort "$D/aggregate.folded" > "$TMP/folded.sorted"
"$FLAMEKIT" collapse "$D/aggregate.folded" > "$TMP/folded.collapsed" 2> "$TMP/err" || fail "collapse of folded"
assert_files_eq "$TMP/folded.sorted" "$TMP/folded.collapsed"
[ ! -s "$TMP/err" ] || { cat "$TMP/err"; fail "warnings on the folded format"; }
assert_contains "$TMP/folded.collapsed" 'my:app;main 3'   # ';' of a comm never splits a frame
LC_ALL=C sort "$D/offcpu.folded" > "$TMP/off.sorted"
"$FLAMEKIT" collapse "$D/offcpu.folded" | cmp -s - "$TMP/off.sorted" || fail "off-CPU folded not read back"

# The two formats of one aggregate agree: without the comm root, the stacks whose
# frames all resolved (the stap format carries no comm and no empty stack, and
# keeps raw addresses where the folded printer writes [module]/[unknown]).
awk '/;/ { sub(/^[^;]*;/, ""); if (!index($0, "[")) print }' "$D/aggregate.folded" | LC_ALL=C sort > "$TMP/f.resolved"
grep -v '0x' "$D/aggregate.stap.collapsed" > "$TMP/s.resolved"
assert_files_eq "$TMP/s.resolved" "$TMP/f.resolved"
[ "$(wc -l < "$TMP/f.resolved")" -eq 4 ] || fail "expected 4 resolved stacks in common"

# Renderer: both formats draw, deterministically, with every frame; the stap
# text draws the same picture as its collapsed form.
"$FLAMEKIT" svg "$D/aggregate.folded" -o "$TMP/a.svg" || fail "svg of folded"
"$FLAMEKIT" svg "$D/aggregate.folded" -o "$TMP/b.svg" || fail "svg of folded (2)"
cmp -s "$TMP/a.svg" "$TMP/b.svg" || fail "svg not deterministic"
for f in hash_block vfs_write process_one_work '[libfoo.so]' '[unknown]' 'my:app' 'kworker/0:1'; do
	assert_contains "$TMP/a.svg" "$f"
done
assert_contains "$TMP/a.svg" 'tm:167,'          # total weight
assert_contains "$TMP/a.svg" 'cn:"samples"'
"$FLAMEKIT" svg "$D/aggregate.stap" -o "$TMP/s.svg" || fail "svg of stap format"
"$FLAMEKIT" svg "$D/aggregate.stap.collapsed" -o "$TMP/c.svg" || fail "svg of collapsed"
cmp -s "$TMP/s.svg" "$TMP/c.svg" || fail "stap text and its collapsed form draw differently"
assert_contains "$TMP/s.svg" 'ret_from_fork'
"$FLAMEKIT" svg --countname us --title "Off-CPU Time" "$D/offcpu.folded" -o "$TMP/off.svg" || fail "svg of off-CPU"
assert_contains "$TMP/off.svg" '"rwsem_down_write_slowpath"'   # _[k] drawn as colour, not text
assert_contains "$TMP/off.svg" 'cn:"us"'
assert_contains "$TMP/off.svg" 'tm:2602223,'
echo "golden stap/folded texts parse and render"

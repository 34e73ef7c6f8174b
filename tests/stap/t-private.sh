#!/usr/bin/env bash
# The tapset's state and helpers are private: a user script that uses any of
# them as an array or calls them fails at pass 2, each reference with its own
# error; a bare name is a fresh local of the user's probe; the same tapset
# through its public names translates.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/stap-lib.sh"

globals=$(sed -n 's/^private global //p' "$TAPSET/flamekit.stp" | sed 's/ *=[^,]*//g; s/\[[0-9]*\]//g; s/,/ /g')
funcs=$(sed -n 's/^private function \([a-z_0-9]*\).*/\1/p' "$TAPSET/flamekit.stp")
[ "$(echo $globals | wc -w)" -ge 8 ] || fail "expected the private globals, found: $globals"
[ "$(echo $funcs | wc -w)" -ge 6 ] || fail "expected the private functions, found: $funcs"

# Control: the tapset in use through its public names translates.
stap_pass 2 -e 'probe flamekit.offcpu {} probe end { flamekit_print_folded(); flamekit_clear() }' ||
	{ cat "$TMP/pass.err" >&2; fail "control script failed pass 2"; }

# Array and function references: one probe per reference, one reference per
# line; each must fail with its own "unresolved" error naming it at its line.
s=$TMP/private.stp
echo 'probe flamekit.offcpu {}' > "$s"
: > "$TMP/want"
add() { echo "probe end { $2 }" >> "$s"; echo "$1 $(wc -l < "$s")" >> "$TMP/want"; }
for g in $globals; do
	add "$g" "println($g[1])"    # read
	add "$g" "$g[2] = 1"         # write
	add "$g" "delete $g"         # clear
done
for f in $funcs; do add "$f" "$f()"; done
# -v: stap otherwise folds similar errors into "N similar messages suppressed"
stap_pass 2 -v "$s" && fail "a user script reached private names"
grep 'semantic error: unresolved' "$TMP/pass.err" | grep -o "identifier '[a-z_0-9]*' at [^ ]*:[0-9]*:" |
	sed "s/identifier '\([^']*\)' at [^:]*:\([0-9]*\):/\1 \2/" | sort -u > "$TMP/got"
sort -u "$TMP/want" > "$TMP/want.sorted"
assert_files_eq "$TMP/want.sorted" "$TMP/got"

# A bare scalar name in a user script is a new local of that probe, never the
# tapset's global: pass 2 accepts it and warns that the local is never assigned.
s2=$TMP/scalars.stp
echo 'probe flamekit.offcpu {}' > "$s2"
for g in $globals; do echo "probe end { println($g + 0) }" >> "$s2"; done
stap_pass 2 -v "$s2" || { cat "$TMP/pass.err" >&2; fail "scalar-name script failed pass 2"; }
for g in $globals; do
	grep -q "never-assigned local variable '$g'" "$TMP/pass.err" || fail "$g did not resolve to a fresh local"
done
echo "$(wc -l < "$TMP/want") array/function references rejected at pass 2;" \
     "$(echo $globals | wc -w) scalar names resolved to fresh locals"

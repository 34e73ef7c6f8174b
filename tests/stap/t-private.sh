#!/usr/bin/env bash
# The tapset's state and helpers are private: a user script that names any of
# them fails at pass 2, while the same script through the public API passes.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/stap-lib.sh"

globals=$(sed -n 's/^private global //p' "$TAPSET/flamekit.stp" | sed 's/ *=[^,]*//g; s/,/ /g')
funcs=$(sed -n 's/^private function \([a-z_0-9]*\).*/\1/p' "$TAPSET/flamekit.stp")
[ "$(echo $globals | wc -w)" -ge 8 ] || fail "expected the private globals, found: $globals"
[ "$(echo $funcs | wc -w)" -ge 6 ] || fail "expected the private functions, found: $funcs"

# Control: the tapset in use through its public names translates.
stap_pass 2 -e 'probe flamekit.offcpu {} probe end { flamekit_print_folded(); flamekit_clear() }' ||
	{ cat "$TMP/pass.err" >&2; fail "control script failed pass 2"; }

n=0
for g in $globals; do
	# read it (println of an element or the scalar) and write it (delete)
	for body in "println($g[1])" "println($g)" "delete $g"; do
		stap_pass 2 -e "probe flamekit.offcpu {} probe end { $body }" &&
			fail "a user script reached private global $g: $body"
		grep -q "unresolved.*$g\|$g.*unresolved\|missing global declaration" "$TMP/pass.err" ||
			{ cat "$TMP/pass.err" >&2; fail "$g: pass 2 failed for another reason"; }
		n=$((n + 1))
	done
done
for f in $funcs; do
	stap_pass 2 -e "probe flamekit.offcpu {} probe end { $f() }" &&
		fail "a user script called private function $f"
	grep -q "unresolved function $f" "$TMP/pass.err" ||
		{ cat "$TMP/pass.err" >&2; fail "$f: pass 2 failed for another reason"; }
	n=$((n + 1))
done
echo "$n references to private names rejected at pass 2"

#!/usr/bin/env bash
# Passes 2 (elaboration) and 3 (translation to C) of every example and of a
# script using every public probe and function, against a Debian kernel tree.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/stap-lib.sh"

# Every public function and probe is documented (kernel-doc) and the coverage
# script uses each documented one.
api=$FK_TOP/tests/stap/data/all-api.stp
defined_f=$(sed -n 's/^function \([a-z_0-9]*\).*/\1/p' "$TAPSET/flamekit.stp" | sort)
defined_p=$(sed -n 's/^probe \([a-z_0-9.]*\) = .*/\1/p' "$TAPSET/flamekit.stp" | sort)
assert_eq "documented functions" "$defined_f" "$(tapset_doc_functions | sort)"
assert_eq "documented probes" "$defined_p" "$(tapset_doc_probes | sort)"
[ "$(echo "$defined_f" | wc -w)" -ge 9 ] || fail "expected at least 9 public functions: $defined_f"
[ "$(echo "$defined_p" | wc -w)" -ge 6 ] || fail "expected at least 6 public probes: $defined_p"
for f in $defined_f; do grep -q "\b$f(" "$api" || fail "$api does not use $f()"; done
for p in $defined_p; do grep -q "^probe $p {" "$api" || fail "$api does not use probe $p"; done
# Every non-public global and helper is private.
grep -n '^global\|^function __' "$TAPSET/flamekit.stp" && fail "non-private global or helper"

# A sleeping process stands in for the -x target (only its pid is used before pass 5).
sleep 300 & target=$!
trap 'kill $target 2>/dev/null; rm -rf "$TMP"' EXIT

for s in "$api" "$TAPSET"/examples/*.stp; do
	name=${s##*/}
	stap_pass 2 -x "$target" "$s" || { cat "$TMP/pass.err" >&2; fail "pass 2 of $name"; }
	cp "$TMP/pass.out" "$TMP/$name.p2"
	stap_pass 3 -x "$target" "$s" || { cat "$TMP/pass.err" >&2; fail "pass 3 of $name"; }
	cp "$TMP/pass.out" "$TMP/$name.c"
	grep -q 'MODULE_DESCRIPTION("systemtap-generated probe")' "$TMP/$name.c" || fail "pass 3 of $name made no module source"
	echo "ok pass 2+3: $name"
done

# --ldd: pass 3 puts the symbol/unwind tables of the binary and of every library
# ldd lists for it into the module source.
stap_pass 3 -k -x "$target" -d /usr/bin/sleep --ldd "$TAPSET/examples/oncpu-pid.stp" ||
	{ cat "$TMP/pass.err" >&2; fail "pass 3 with --ldd"; }
kept=$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' "$TMP/pass.err")
[ -f "$kept/stap_symbols.c" ] || fail "no stap_symbols.c kept"
for lib in /usr/bin/sleep $(ldd /usr/bin/sleep | grep -o '/[^ ]*'); do
	real=$(readlink -f "$lib")
	grep -q "\.path = \"\($lib\|$real\)\"" "$kept/stap_symbols.c" || fail "--ldd left out $lib"
done
rm -rf "$kept"

# What the probes resolved to without kernel debuginfo: timer.profile is a perf
# cpu-clock event, scheduler.cpu_off the sched_switch tracepoint.
assert_contains "$TMP/all-api.stp.p2" 'perf.type(1).config(0).sample(1000000)'
assert_contains "$TMP/all-api.stp.p2" 'kernel.trace("sched:sched_switch")'
assert_contains "$TMP/all-api.stp.p2" '__fk_agg:stats [long, string, string, string]'
# scheduler.cpu_on would need kernel debuginfo (finish_task_switch): the tapset avoids it.
(cd "$TMP" && stap -r "$STAP_RELEASE" -p2 -e 'probe scheduler.cpu_on { }' > /dev/null 2>&1) &&
	echo "note: scheduler.cpu_on resolves here (kernel debuginfo present)"

# The printers emit exactly the formats the parsers read (tests/stap/t-golden.sh
# feeds text of this shape through them): folded "a;b;c N\n" and the
# stackcollapse-stap lines " ADDR : SYMDATA\n" ... "\tN\n".
c=$TMP/all-api.stp.c
assert_contains "$c" '_stp_printf ("%s%s", '        # separator, frame
assert_contains "$c" '? (";") : (""))'                # ';' before all but the first frame
assert_contains "$c" '" %lld\n"'
assert_contains "$c" '" %s : %s\n"'
assert_contains "$c" '"\t%lld\n"'
assert_contains "$c" '"_[k]"'
assert_contains "$c" '"[unknown]"'
# Order inside the printers: stap format = kernel frames (symdata), then user
# frames (resolved in the sampled process), then the tab+weight line; folded =
# user part (kernel=0), then kernel part (kernel=1), then " weight".
body() { awk "/^static void function___global_$1__overload_0 \\(struct context/,/^}/" "$c"; }
body flamekit_print_stap | grep -o 'function___global_symdata__overload_0 (c)\|___fk_usym__overload_0 (c)\|_stp_printf ("[^"]*"' |
	sed 's/function___global_//; s/___fk_usym/usym/' | tr '\n' '|' > "$TMP/order.stap"
assert_eq "flamekit_print_stap order" 'symdata__overload_0 (c)|_stp_printf (" %s : %s\n"|usym__overload_0 (c)|_stp_printf (" %s : %s\n"|_stp_printf ("\t%lld\n"|' "$(cat "$TMP/order.stap")"
order() { grep -o '_fk_print_folded_part__overload_0\.l_kernel = [^;]*;\|_stp_printf ("[^"]*"\|___fk_print_wake__overload_0 (c)' |
	sed 's/.*l_kernel = ((int64_t)\([01]\)LL);/part\1/; s/.*___fk_print_wake.*/wake/' | tr '\n' '|'; }
body flamekit_print_folded | order > "$TMP/order.folded"
# (then the off-wake pairs, __fk_print_wake: the blocked user and kernel parts, then
# after "--" the waker's parts leaf first (__fk_print_part, not matched here), its
# comm and weight; flamekit_print_offwake prints only those)
assert_eq "flamekit_print_folded order" 'part0|part1|_stp_printf (" %lld\n"|wake|' "$(cat "$TMP/order.folded")"
body flamekit_print_offwake | order > "$TMP/order.offwake"
assert_eq "flamekit_print_offwake order" 'wake|' "$(cat "$TMP/order.offwake")"
awk '/^static void function___private_[a-z_0-9]*___fk_print_wake__overload_0 \(struct context/,/^}/' "$c" | order > "$TMP/order.wake"
assert_eq "__fk_print_wake order" 'part0|part1|_stp_printf (";%s %lld\n"|' "$(cat "$TMP/order.wake")"
# The overflow of the aggregate is caught (counted), not fatal.
grep -q 'try_block: .*flamekit.stp' "$c" || fail "no try block in the translated tapset"
echo "passes 2 and 3 ok for $(ls "$TAPSET"/examples/*.stp | wc -l) examples + all-api.stp (-r $STAP_RELEASE)"

#!/usr/bin/env bash
# Pass 4: the tapset's embedded C and the generated module compile against the
# Debian kernel tree, with the runtime `flamekit stap` passes for it (stap-lib.sh:
# SystemTap 4.8's stock runtime compiles no module for Debian's 6.1.0-47, whose
# task_work_cancel() change flamekit's fixed copy handles; t-runtime.sh checks
# the copy). The modules run in tests/stap/vm/.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/stap-lib.sh"
command -v readelf > /dev/null || skip "readelf missing (binutils)"
sleep 300 & target=$!
trap 'kill $target 2>/dev/null; rm -rf "$TMP"' EXIT
for s in "$FK_TOP/tests/stap/data/all-api.stp" "$TAPSET/examples/oncpu-pid.stp"; do
	mod=fk_$(basename "$s" .stp | tr -c 'a-z0-9\n' _)
	# (no -d/--ldd: t-cli.sh checks at pass 3 that the objects' tables go in;
	# here they would only make the compile several minutes longer)
	stap_pass 4 -m "$mod" -x "$target" "$s" ||
		{ grep -i 'error' "$TMP/pass.err" | head -20 >&2; fail "pass 4 of ${s##*/}"; }
	ko=$TMP/$mod.ko
	[ -f "$ko" ] || fail "no $mod.ko"
	readelf -p .modinfo "$ko" | grep -q "vermagic=$STAP_RELEASE " || fail "$mod.ko not built for $STAP_RELEASE"
	# the tapset's embedded C (user symbols in another task's context) is in it
	# (all-api.stp calls it from three places, so it is not inlined away)
	[ "$mod" != fk_all_api ] || nm "$ko" | grep -q '__fk_usym' || fail "$mod.ko lacks the tapset's user-symbol function"
	echo "ok pass 4: ${s##*/} -> $mod.ko ($(stat -c %s "$ko") bytes)"
done

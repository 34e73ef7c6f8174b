#!/usr/bin/env bash
# Pass 4: the tapset's embedded C and the generated module compile against the
# Debian kernel tree (the module cannot be loaded here: no module support).
# systemtap 4.8's runtime predates the task_work_cancel() change that Debian
# backported into 6.1.0-47 (bool task_work_cancel(task, cb) and
# task_work_cancel_func()), so every module fails to compile with the stock
# runtime there; this test then compiles against a copy of the runtime with
# that one call renamed (stap -R), kept in $BUILD so stap's cache is reused.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/stap-lib.sh"
command -v readelf > /dev/null || skip "readelf missing (binutils)"

hdr=/lib/modules/$STAP_RELEASE/build/include/linux/task_work.h
[ -f "$hdr" ] || hdr=$(readlink -f /lib/modules/$STAP_RELEASE/source)/include/linux/task_work.h
sysrt=/usr/share/systemtap/runtime
rt=$sysrt
if grep -q 'bool task_work_cancel(' "$hdr" 2>/dev/null && grep -q 'typeof(&task_work_cancel) ' "$sysrt/stp_task_work.c"; then
	rt=$BUILD/stap-runtime
	if [ ! -f "$rt/stp_task_work.c" ] || [ "$sysrt/stp_task_work.c" -nt "$rt/stp_task_work.c" ]; then
		rm -rf "$rt" && mkdir -p "$BUILD" && cp -a "$sysrt" "$rt" || fail "copying the runtime"
		sed -i -e 's/typeof(&task_work_cancel) task_work_cancel_fn/typeof(\&task_work_cancel_func) task_work_cancel_fn/' \
		       -e 's/kallsyms_lookup_name("task_work_cancel")/kallsyms_lookup_name("task_work_cancel_func")/' \
		       "$rt/stp_task_work.c"
	fi
	grep -q 'typeof(&task_work_cancel_func)' "$rt/stp_task_work.c" || fail "runtime patch did not apply"
	echo "note: compiling against a runtime copy adapted to task_work_cancel_func() ($rt)"
fi

sleep 300 & target=$!
trap 'kill $target 2>/dev/null; rm -rf "$TMP"' EXIT
for s in "$FK_TOP/tests/stap/data/all-api.stp" "$TAPSET/examples/oncpu-pid.stp"; do
	mod=fk_$(basename "$s" .stp | tr -c 'a-z0-9\n' _)
	# (no -d/--ldd: t-cli.sh checks at pass 3 that the objects' tables go in;
	# here they would only make the compile several minutes longer)
	stap_pass 4 -R "$rt" -m "$mod" -x "$target" "$s" ||
		{ grep -i 'error' "$TMP/pass.err" | head -20 >&2; fail "pass 4 of ${s##*/}"; }
	ko=$TMP/$mod.ko
	[ -f "$ko" ] || fail "no $mod.ko"
	readelf -p .modinfo "$ko" | grep -q "vermagic=$STAP_RELEASE " || fail "$mod.ko not built for $STAP_RELEASE"
	# the tapset's embedded C (user symbols in another task's context) is in it
	# (all-api.stp calls it from three places, so it is not inlined away)
	[ "$mod" != fk_all_api ] || nm "$ko" | grep -q '__fk_usym' || fail "$mod.ko lacks the tapset's user-symbol function"
	echo "ok pass 4: ${s##*/} -> $mod.ko ($(stat -c %s "$ko") bytes)"
done

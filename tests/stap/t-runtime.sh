#!/usr/bin/env bash
# flamekit stap's SystemTap runtime check: the fixes a kernel needs go into a
# copy of the runtime in the user's cache (each checked), made once and passed
# with -R; a runtime needing none is used as it is. Building for another kernel
# without its debuginfo is refused for kernel stacks (stap would take this
# machine's /proc/kallsyms) unless --kallsyms gives that kernel's table.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/stap-lib.sh"
[ -x "$FLAMEKIT" ] || fail "no $FLAMEKIT (make first)"
export XDG_CACHE_HOME=$TMP/xdg
unset SYSTEMTAP_RUNTIME
sys=$(realpath "$(dirname "$(realpath "$(command -v stap)")")/../share/systemtap/runtime")
[ -f "$sys/stp_task_work.c" ] || fail "no runtime at $sys"
ver=$(stap -V 2>&1 | sed -n 's/.*(version \([^/ ,)]*\).*/\1/p')
src=$(readlink -f "/lib/modules/$STAP_RELEASE/source")
hdrs="$src /lib/modules/$STAP_RELEASE/build"

# What this runtime and kernel need, found independently of flamekit's checks.
want=""
grep -q 'typeof(&task_work_cancel) task_work_cancel_fn' "$sys/stp_task_work.c" &&
	grep -qs 'task_work_cancel_func(' "$src/include/linux/task_work.h" && want="$want stp_task_work.c"
grep -q 'user_addr_max() - size' "$sys/linux/addr-map.c" && ! grep -q 'TASK_SIZE_MAX' "$sys/linux/addr-map.c" &&
	! grep -rqs 'define user_addr_max' $hdrs/include $hdrs/arch/x86/include && want="$want linux/addr-map.c"
grep -q '^	if (buf->offset >= buf->chan->subbuf_size) {$' "$sys/transport/relay_v2.c" &&
	grep -q 'bytes_reserved > hlen' "$sys/print_flush.c" && want="$want transport/relay_v2.c"
echo "fixes this runtime needs for $STAP_RELEASE:${want:- none}"

"$FLAMEKIT" stap -p $$ --user -r "$STAP_RELEASE" --print-command > "$TMP/cmd" 2> "$TMP/err" ||
	{ cat "$TMP/err"; fail "--print-command -r $STAP_RELEASE"; }
cat "$TMP/err"
copy=$XDG_CACHE_HOME/flamekit/stap-runtime/$ver-$STAP_RELEASE
if [ -z "$want" ]; then
	assert_not_contains "$TMP/cmd" " -R "
	echo "the runtime needs no fix for $STAP_RELEASE: used as it is"
	exit 0
fi
assert_contains "$TMP/cmd" "stap -R $copy -r $STAP_RELEASE "
assert_contains "$TMP/err" "patched copy of $sys made in $copy"
# The copy differs from the runtime in exactly the fixed files, by the fixes.
diff -r "$sys" "$copy" | sed -n 's/^diff -r [^ ]* //p' | sed "s|^$copy/||" | sort > "$TMP/changed"
printf '%s\n' $want | sort > "$TMP/want"
assert_files_eq "$TMP/want" "$TMP/changed"
[ "$(diff -r "$sys" "$copy" | grep '^Only in' | sed 's/.*: //')" = ".flamekit-stamp" ] || fail "files added or missing in the copy"
case $want in *stp_task_work*)
	assert_contains "$copy/stp_task_work.c" 'typedef typeof(&task_work_cancel_func) task_work_cancel_fn;'
	assert_contains "$copy/stp_task_work.c" 'kallsyms_lookup_name("task_work_cancel_func")' ;; esac
case $want in *relay_v2*)
	assert_contains "$copy/transport/relay_v2.c" '&& buf->chan->subbuf_size - buf->offset <= 16)) {' ;; esac
case $want in *addr-map*)
	assert_contains "$copy/linux/addr-map.c" '&& ((TASK_SIZE_MAX - size) < addr)' ;; esac

# Made once: a second run reuses it untouched (stap's cache keys on its timestamps).
before=$(find "$copy" -printf '%p %T@\n' | sort | md5sum)
"$FLAMEKIT" stap -p $$ --user -r "$STAP_RELEASE" --print-command > "$TMP/cmd2" 2> "$TMP/err2"
assert_files_eq "$TMP/cmd" "$TMP/cmd2"
[ ! -s "$TMP/err2" ] || { cat "$TMP/err2"; fail "second run was not silent"; }
[ "$before" = "$(find "$copy" -printf '%p %T@\n' | sort | md5sum)" ] || fail "the copy was touched"
# A copy whose stamp no longer matches its source is made again.
echo stale > "$copy/.flamekit-stamp"
"$FLAMEKIT" stap -p $$ --user -r "$STAP_RELEASE" --print-command > /dev/null 2> "$TMP/err3"
assert_contains "$TMP/err3" "patched copy of $sys made in $copy"
assert_contains "$copy/.flamekit-stamp" "flamekit stap runtime copy of $sys"
[ -z "$(ls -d "$copy".tmp.* 2>/dev/null)" ] || fail "temporary copy left behind"

# A runtime that needs no fix is used as it is: the fixed copy itself.
SYSTEMTAP_RUNTIME=$copy "$FLAMEKIT" stap -p $$ --user -r "$STAP_RELEASE" --print-command > "$TMP/cmd4" 2> "$TMP/err4"
assert_not_contains "$TMP/cmd4" " -R "
[ ! -s "$TMP/err4" ] || { cat "$TMP/err4"; fail "messages for a runtime needing no fix"; }
# A fix that does not apply (its text found twice) fails, and leaves nothing.
cp -a "$sys" "$TMP/rt2"
sed -i 's/^typedef typeof(&task_work_cancel) task_work_cancel_fn;$/&\n&/; s/user_addr_max() - size/&/' "$TMP/rt2/stp_task_work.c"
if [[ $want == *stp_task_work* ]]; then
	SYSTEMTAP_RUNTIME=$TMP/rt2 XDG_CACHE_HOME=$TMP/xdg2 run_rc 1 "$FLAMEKIT" stap -p $$ --user -r "$STAP_RELEASE" --print-command > "$TMP/cmd5" 2> "$TMP/err5"
	assert_contains "$TMP/err5" "holds the text to replace 2 times, not once"
	assert_contains "$TMP/err5" "cannot make the fixed SystemTap runtime"
	[ ! -s "$TMP/cmd5" ] || fail "a command was printed"
	[ -z "$(ls "$TMP/xdg2/flamekit/stap-runtime/")" ] || fail "a half-made copy was left: $(ls "$TMP/xdg2/flamekit/stap-runtime/")"
fi

# Kernel symbols for another kernel: refused, or a warning with --print-command.
if [ "$(uname -r)" != "$STAP_RELEASE" ] && [ ! -e "/usr/lib/debug/boot/vmlinux-$STAP_RELEASE" ] &&
   [ ! -e "/usr/lib/debug/lib/modules/$STAP_RELEASE/vmlinux" ]; then
	run_rc 1 "$FLAMEKIT" stap --kernel -r "$STAP_RELEASE" -t 1 --stap /bin/false -o "$TMP/k.svg" 2> "$TMP/err"
	assert_contains "$TMP/err" "stap builds for kernel $STAP_RELEASE on a machine running $(uname -r)"
	assert_contains "$TMP/err" "--kallsyms FILE"
	[ ! -e "$TMP/k.svg" ] || fail "output written"
	run_rc 1 "$FLAMEKIT" stap -p $$ -r "$STAP_RELEASE" -t 1 --stap /bin/false 2> "$TMP/err"   # both: kernel part too
	assert_contains "$TMP/err" "wrong names for that kernel"
	run_rc 0 "$FLAMEKIT" stap --kernel -r "$STAP_RELEASE" --print-command > /dev/null 2> "$TMP/err"
	assert_contains "$TMP/err" "warning: stap builds for kernel"
	# --remote: the kernel is the one whose build tree is installed, when only one is
	if [ "$(ls -d /lib/modules/*/build 2>/dev/null | wc -l)" -eq 1 ]; then
		run_rc 0 "$FLAMEKIT" stap --kernel --remote unix:/x --print-command > "$TMP/cmd" 2> "$TMP/err"
		assert_contains "$TMP/err" "warning: stap builds for kernel $STAP_RELEASE"
		assert_contains "$TMP/cmd" "-R $copy --remote unix:/x "
	fi
	# --kallsyms: checked, then bound over /proc/kallsyms for stap alone.
	printf 'ffffffff81000000 T startup_64\n' > "$TMP/bad.kallsyms"
	run_rc 1 "$FLAMEKIT" stap --kernel -r "$STAP_RELEASE" --kallsyms "$TMP/bad.kallsyms" --print-command 2> "$TMP/err"
	assert_contains "$TMP/err" "not a copy of /proc/kallsyms"
	printf 'ffffffff81000000 T startup_64\nffffffff81001000 T _stext\nffffffff81002000 T do_syscall_64\n' > "$TMP/k.kallsyms"
	run_rc 0 "$FLAMEKIT" stap --kernel -r "$STAP_RELEASE" --kallsyms "$TMP/k.kallsyms" --print-command > "$TMP/cmd" 2> "$TMP/err"
	assert_not_contains "$TMP/err" "warning"
	assert_contains "$TMP/cmd" "unshare -m sh -c 'mount --make-rprivate / && mount --bind \"\$0\" /proc/kallsyms && exec \"\$@\"' $TMP/k.kallsyms stap -R "
	if [ "$(id -u)" -eq 0 ]; then
		# a stand-in stap prints what it sees as /proc/kallsyms as stacks
		printf '#!/bin/sh\nawk '\''{ print "ks;" $3 " 1" }'\'' /proc/kallsyms\n' > "$TMP/fake-stap"
		chmod +x "$TMP/fake-stap"
		FLAMEKIT_STAP_NO_MODULE_CHECK=1 "$FLAMEKIT" stap --kernel -r "$STAP_RELEASE" --kallsyms "$TMP/k.kallsyms" --stap "$TMP/fake-stap" --folded -o "$TMP/ks.folded" ||
			fail "run with --kallsyms"
		printf 'ks;_stext 1\nks;do_syscall_64 1\nks;startup_64 1\n' | cmp -s - "$TMP/ks.folded" || { cat "$TMP/ks.folded"; fail "stap did not see the --kallsyms file"; }
		grep -q ' _stext$' /proc/kallsyms && [ "$(wc -l < /proc/kallsyms)" -gt 3 ] || fail "the bind mount leaked out"
	else
		echo "note: not root: the --kallsyms bind mount was not run"
	fi
else
	echo "note: $STAP_RELEASE is the running kernel or has debuginfo: no wrong-symbols case here"
fi
echo "runtime fixes for $STAP_RELEASE:$want -> $copy (made once, checked); kallsyms check ok"

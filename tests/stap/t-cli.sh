#!/usr/bin/env bash
# flamekit stap: the command line it writes for a real running process (-d for
# every mapped object, limits), translated by stap to pass 3 with the symbol
# tables of those objects; the clear failure where modules cannot load; and the
# pipe into the renderer, driven by a stand-in stap that prints the golden text.
. "$(dirname "$0")/../lib.sh"
D=$FK_TOP/tests/stap/data
[ -x "$FLAMEKIT" ] || fail "no $FLAMEKIT (make first)"
sleep 300 & target=$!
trap 'kill $target 2>/dev/null; rm -rf "$TMP"' EXIT

# Usage errors.
run_rc 2 "$FLAMEKIT" stap > /dev/null 2>&1
run_rc 2 "$FLAMEKIT" stap --user 2> "$TMP/err"
assert_contains "$TMP/err" "-p PID is needed"
run_rc 2 "$FLAMEKIT" stap -p "$target" --kernel --user 2> /dev/null
run_rc 2 "$FLAMEKIT" stap -p abc 2> /dev/null
run_rc 1 "$FLAMEKIT" stap -p 2147483647 --print-command 2> "$TMP/err"
assert_contains "$TMP/err" "no such process"

# The command for a live process names every executable file mapping once.
"$FLAMEKIT" stap -p "$target" -t 5 --print-command > "$TMP/cmd" || fail "--print-command"
cat "$TMP/cmd"
awk '$2 ~ /x/ && $6 ~ /^\// { print $6 }' /proc/$target/maps | awk '!seen[$0]++' > "$TMP/maps.objs"
grep -o -- "-d [^ ]*" "$TMP/cmd" | cut -c4- | grep -vx kernel > "$TMP/cmd.objs"
assert_files_eq "$TMP/maps.objs" "$TMP/cmd.objs"
[ "$(wc -l < "$TMP/cmd.objs")" -ge 2 ] || fail "expected the executable and libc"
grep -q "/libc.so" "$TMP/cmd.objs" || fail "libc missing from -d"
for w in "-x $target" -DMAXBACKTRACE=64 -DMAXSTRINGLEN=2048 -DMAXMAPENTRIES=10240 "-I $FK_TOP/stap-tapset" \
	 "probe flamekit.oncpu.both {}" "probe timer.s(5) { exit() }" "flamekit_print_folded()"; do
	assert_contains "$TMP/cmd" "$w"
done
"$FLAMEKIT" stap -p "$target" --off-cpu --user --max-depth 100 --max-stacks 500 -d /bin/true --print-command > "$TMP/cmd2"
for w in "probe flamekit.offcpu.user {}" -DMAXBACKTRACE=100 -DMAXSTRINGLEN=2048 -DMAXMAPENTRIES=500 "-d /bin/true"; do
	assert_contains "$TMP/cmd2" "$w"
done
"$FLAMEKIT" stap --kernel --print-command > "$TMP/cmd3"
assert_contains "$TMP/cmd3" " -d kernel "          # kernel symbols without kernel debuginfo
[ "$(grep -o -- ' -d ' "$TMP/cmd3" | wc -l)" -eq 1 ] || fail "kernel-only: no object but the kernel"
assert_not_contains "$TMP/cmd3" " -x "
assert_contains "$TMP/cmd3" "probe flamekit.oncpu.kernel {}"
# resource graphs: the probe of --io and --off-wake, what goes with it, what is refused
"$FLAMEKIT" stap -p "$target" --io write --print-command > "$TMP/cmd6"
assert_contains "$TMP/cmd6" "probe flamekit.io.write {}"
assert_not_contains "$TMP/cmd6" "-d kernel"           # user stacks only
"$FLAMEKIT" stap -p "$target" --off-wake --print-command > "$TMP/cmd7"
assert_contains "$TMP/cmd7" "probe flamekit.offwake {}"
# (printed with flamekit_print_offwake: no on/off-CPU aggregate in the module)
assert_contains "$TMP/cmd7" "probe end { flamekit_print_offwake() }"
assert_contains "$TMP/cmd7" "-DMAXACTION=10000"
"$FLAMEKIT" stap --kernel --off-wake --print-command > "$TMP/cmd8"
assert_contains "$TMP/cmd8" "probe flamekit.offwake.kernel {}"
for bad in "--io read --kernel" "--io read --off-wake" "--off-cpu --off-wake" "--io nosuch"; do
	run_rc 2 "$FLAMEKIT" stap -p "$target" $bad --print-command > /dev/null 2> "$TMP/err"
	[ -s "$TMP/err" ] || fail "$bad: no message"
done
"$FLAMEKIT" stap -p "$target" --user --print-command > "$TMP/cmd4"
assert_not_contains "$TMP/cmd4" "-d kernel"

grep -q -- "-d kernel" "$TMP/cmd2" && fail "user stacks need no kernel symbols"

# --remote: passed through; the process is on the remote machine, so its
# objects come from -d (with a warning when none is given), not local maps.
"$FLAMEKIT" stap -p 999999 --remote unix:/nowhere/sock -d /bin/true --print-command > "$TMP/rcmd" 2> "$TMP/err" ||
	{ cat "$TMP/err"; fail "--remote --print-command"; }
assert_contains "$TMP/rcmd" "--remote unix:/nowhere/sock"
assert_contains "$TMP/rcmd" "-x 999999"
assert_contains "$TMP/rcmd" "-d /bin/true"
assert_not_contains "$TMP/rcmd" "-d /usr/lib"
assert_not_contains "$TMP/rcmd" " -r "
"$FLAMEKIT" stap -p 999999 --user --remote unix:/x --print-command 2> "$TMP/err" > /dev/null
assert_contains "$TMP/err" "with --remote, give the process's objects with -d"
# A remote run must end by itself (-t): stapsh drops the output of one stopped
# from here. Without -t: a usage error before stap starts; a warning with
# --print-command (the command printed all the same).
printf '#!/bin/sh\ntouch "%s/stap-ran"\n' "$TMP" > "$TMP/stap-stub" && chmod +x "$TMP/stap-stub"
run_rc 2 "$FLAMEKIT" stap -p 999999 --user --remote unix:/x -d /bin/true --stap "$TMP/stap-stub" \
	-o "$TMP/r.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "--remote needs -t SEC"
[ ! -e "$TMP/stap-ran" ] || fail "stap started for a --remote run without -t"
[ ! -e "$TMP/r.svg" ] || fail "an output was written for a refused --remote run"
grep -q -- "warning: --remote needs -t SEC" "$TMP/err" && fail "the refusal called a warning"
grep -q -- "warning: --remote needs -t SEC" <("$FLAMEKIT" stap -p 999999 --user --remote unix:/x -d /bin/true --print-command 2>&1 >/dev/null) ||
	fail "no warning for --remote without -t with --print-command"

# The written command translates, with the objects' symbol tables in the module
# source (pass 3 emits them), when the kernel build tree is there.
if command -v stap > /dev/null && (. "$FK_TOP/tests/stap/stap-lib.sh" 2>/dev/null; [ -n "${STAP_RELEASE:-}" ]) ; then
	. "$FK_TOP/tests/stap/stap-lib.sh"
	(cd "$TMP" && eval "$(cat "$TMP/cmd") -p3 -k -r $STAP_RELEASE" > "$TMP/p3.c" 2> "$TMP/p3.err") ||
		{ cat "$TMP/p3.err"; fail "stap -p3 of the written command"; }
	kept=$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' "$TMP/p3.err")
	[ -d "$kept" ] || fail "stap kept no build directory"
	while read -r obj; do
		grep -q "\.path = \"$obj\"" "$kept"/stap_symbols.c || fail "$obj has no symbol table in the module"
	done < "$TMP/maps.objs"
	rm -rf "$kept"
	echo "pass 3 of the written command carries $(wc -l < "$TMP/maps.objs") objects' symbols"
else
	echo "note: stap or a kernel build tree missing: the written command was not translated"
fi

# No module support: a clear error at once, not a hang, and nothing written.
if [ ! -e /proc/modules ]; then
	# timeout 30 catches a hang (exit 124, not 1); no wall-clock bound under load
	run_rc 1 timeout 30 "$FLAMEKIT" stap -p "$target" -t 1 -o "$TMP/none.svg" 2> "$TMP/err"
	assert_contains "$TMP/err" "cannot load modules"
	assert_contains "$TMP/err" "--print-command"
	[ ! -e "$TMP/none.svg" ] && ! ls "$TMP"/none.svg.tmp.* > /dev/null 2>&1 || fail "output left behind"
fi

# The pipe: a stand-in stap prints the tapset's folded text; Ctrl-C (SIGINT to
# the group) stops it as it stops stap, and flamekit lives on to draw. flamekit also forwards
# the stop to its child (a group kill from a process is not a terminal's), so the stand-in,
# like stap, takes a repeated SIGINT as the one it is already handling.
fake=$TMP/fake-stap
cat > "$fake" <<EOS
#!/usr/bin/env bash
printf '%s\n' "\$@" > "$TMP/fake.args"
case "\${FAKE_MODE:-ok}" in
ok) cat "$D/aggregate.folded" ;;
fail) head -2 "$D/aggregate.folded"; echo "ERROR: module insertion failed" >&2; exit 1 ;;
bad) cat "$D/aggregate.folded"; echo "this line has no count" ;;
empty) ;;
wait) trap 'trap "" INT; cat "$D/aggregate.folded"; exit 0' INT; touch "$TMP/fake.ready"; while :; do sleep 0.1; done ;;
esac
EOS
chmod +x "$fake"
export FLAMEKIT_STAP_NO_MODULE_CHECK=1
"$FLAMEKIT" svg "$D/aggregate.folded" -o "$TMP/want.svg"
run_rc 0 "$FLAMEKIT" stap -p "$target" --stap "$fake" -o "$TMP/got.svg"
cmp -s "$TMP/want.svg" "$TMP/got.svg" || fail "flamekit stap drew something else than flamekit svg"
assert_contains "$TMP/fake.args" "-x"
assert_contains "$TMP/fake.args" "probe flamekit.oncpu.both {} probe end { flamekit_print_folded() }"
# The renderer's options, as flamekit svg takes them (the option schema's rows)
"$FLAMEKIT" svg --colors=mem --title Mine --inverted "$D/aggregate.folded" -o "$TMP/want-opts.svg"
run_rc 0 "$FLAMEKIT" stap -p "$target" --stap "$fake" --colors=mem --title Mine --inverted -o "$TMP/got-opts.svg"
cmp -s "$TMP/want-opts.svg" "$TMP/got-opts.svg" || fail "stap --colors=mem --title --inverted: not what flamekit svg draws"
# ... checked before stap starts: a bad value, a time range (stap's stacks have no times),
# an option the output does not honour; unique abbreviations of the own rows work
rm -f "$TMP/fake.args"
run_rc 2 "$FLAMEKIT" stap -p "$target" --stap "$fake" --colors=nosuch -o "$TMP/x.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "--colors: unknown palette 'nosuch'"
run_rc 2 "$FLAMEKIT" stap -p "$target" --stap "$fake" --range 1-2 -o "$TMP/x.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "--range: needs timestamped samples"
run_rc 2 "$FLAMEKIT" stap -p "$target" --stap "$fake" --width 600 -o "$TMP/x.html" 2> "$TMP/err"
assert_contains "$TMP/err" "--width: the HTML page"
run_rc 2 "$FLAMEKIT" stap -p "$target" --stap "$fake" --folded -o "$TMP/x.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "contradict"
run_rc 1 "$FLAMEKIT" stap -p "$target" --stap "$fake" -o "$TMP/no/such/dir/x.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "cannot write $TMP/no/such/dir/x.svg"
[ ! -e "$TMP/fake.args" ] || fail "stap ran despite a bad option or output"
"$FLAMEKIT" stap -p "$target" --max-d 100 --max-s 500 --print-command > "$TMP/cmd5" || fail "abbreviated options"
assert_contains "$TMP/cmd5" "-DMAXBACKTRACE=100"
assert_contains "$TMP/cmd5" "-DMAXMAPENTRIES=500"
# its options are a table of the schema: listed by flamekit options, in the docs
"$FLAMEKIT" options stap > "$TMP/rows" || fail "flamekit options stap"
for o in pid object kernel user both off-cpu io off-wake duration folded print-command max-depth max-stacks stap \
	 tapset-dir stap-opt remote kernel-release kallsyms; do
	grep -q "^$o	" "$TMP/rows" || fail "flamekit options stap lacks $o"
	grep -q -- "--$o" "$FK_TOP/docs/tracers.md" || fail "docs/tracers.md lacks --$o"
done
run_rc 0 "$FLAMEKIT" stap -p "$target" --stap "$fake" --folded -o "$TMP/got.folded"
LC_ALL=C sort "$D/aggregate.folded" | cmp -s - "$TMP/got.folded" || fail "--folded output differs"
run_rc 0 "$FLAMEKIT" stap -p "$target" --off-cpu --stap "$fake" -o "$TMP/off.svg"
assert_contains "$TMP/off.svg" 'cn:"us"'
assert_contains "$TMP/fake.args" "probe flamekit.offcpu {}"
run_rc 0 "$FLAMEKIT" stap -p "$target" --io read --stap "$fake" -o "$TMP/io.svg"
assert_contains "$TMP/io.svg" 'bytes'
assert_contains "$TMP/fake.args" "probe flamekit.io.read {}"
FAKE_MODE=fail run_rc 1 "$FLAMEKIT" stap -p "$target" --stap "$fake" -o "$TMP/f.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "stap failed (exit status 1)"
[ ! -e "$TMP/f.svg" ] && ! ls "$TMP"/f.svg.tmp.* > /dev/null 2>&1 || fail "output left after stap failed"
FAKE_MODE=empty run_rc 1 "$FLAMEKIT" stap -p "$target" --stap "$fake" -o "$TMP/e.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "printed no stacks"
FAKE_MODE=bad run_rc 3 "$FLAMEKIT" stap -p "$target" --stap "$fake" --folded -o "$TMP/b.folded" 2> "$TMP/err"
assert_contains "$TMP/err" "<stap output>:7:"
[ "$(wc -l < "$TMP/b.folded")" -eq 6 ] || fail "good stacks lost with a bad line"
run_rc 1 "$FLAMEKIT" stap -p "$target" --stap "$TMP/no-such-stap" -o "$TMP/n.svg" 2> "$TMP/err"
assert_contains "$TMP/err" "cannot run"

# --kallsyms: stap (under the spawn helper) sees FILE as /proc/kallsyms; this machine's
# /proc/kallsyms is untouched. Needs root (a private mount namespace).
{ echo "0000000000000000 T fk_marker_sym"; cat /proc/kallsyms; } > "$TMP/ks.txt"
printf '#!/bin/sh\ngrep -c fk_marker_sym /proc/kallsyms > "%s"\ncat "%s"\n' "$TMP/marker" "$D/aggregate.folded" > "$TMP/ks-stap"
chmod +x "$TMP/ks-stap"
if grep -q ' _stext$' "$TMP/ks.txt" && unshare -m true 2> /dev/null; then
	run_rc 0 "$FLAMEKIT" stap --kernel --kallsyms "$TMP/ks.txt" --stap "$TMP/ks-stap" --folded -o "$TMP/ks.folded"
	assert_eq "stap's /proc/kallsyms" 1 "$(cat "$TMP/marker")"
	! grep -q fk_marker_sym /proc/kallsyms || fail "--kallsyms changed this machine's /proc/kallsyms"
	LC_ALL=C sort "$D/aggregate.folded" | cmp -s - "$TMP/ks.folded" || fail "--kallsyms: output differs"
else
	echo "note: no private mount namespace here: --kallsyms not run"
fi

FAKE_MODE=wait setsid "$FLAMEKIT" stap -p "$target" --stap "$fake" -o "$TMP/int.svg" 2> "$TMP/err" &
runner=$!
for i in $(seq 100); do [ -e "$TMP/fake.ready" ] && break; sleep 0.1; done
[ -e "$TMP/fake.ready" ] || fail "stand-in stap did not start"
kill -INT -- -"$runner"   # setsid: the runner leads its own group, as a terminal's Ctrl-C reaches
( sleep 30; kill -KILL -- -"$runner" 2>/dev/null ) & watchdog=$!
wait "$runner"; rc=$?
kill "$watchdog" 2>/dev/null
[ $rc -eq 0 ] || { cat "$TMP/err"; fail "exit $rc after Ctrl-C"; }
cmp -s "$TMP/want.svg" "$TMP/int.svg" || { cat "$TMP/err"; ls -la "$TMP"; grep -c "<g" "$TMP/want.svg" "$TMP/int.svg"; fail "drawing after Ctrl-C differs"; }
echo "flamekit stap: command line, module check and pipe ok"

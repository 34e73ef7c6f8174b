# tests/stap/stap-lib.sh - sourced by the stap tests after tests/lib.sh: finds
# stap and a kernel build tree to translate against (this machine's kernel has
# no module support and no headers, so passes 2-4 use Debian's -r RELEASE).
TAPSET=$FK_TOP/stap-tapset
command -v stap > /dev/null || skip "stap is not installed (apt-get install systemtap)"
STAP_RELEASE=${FK_STAP_RELEASE:-}
if [ -z "$STAP_RELEASE" ]; then
	for d in /lib/modules/6.1.0-47-amd64 /lib/modules/$(uname -r) /lib/modules/*; do
		if [ -f "$d/build/.config" ]; then STAP_RELEASE=${d##*/}; break; fi
	done
fi
[ -n "$STAP_RELEASE" ] || skip "no kernel build tree under /lib/modules (apt-get install linux-headers-6.1.0-47-amd64)"
# The stap tests share one stap cache and the runtime `flamekit stap` uses for
# $STAP_RELEASE (its fixed copy, when the kernel needs one): stap keys its cache
# on the runtime's path, and its first tracepoint query for a kernel costs
# minutes, so every test (and both passes of make check) reuses it.
STAP_CACHE=${FK_STAP_CACHE:-$FK_TOP/build/stap-cache}
export SYSTEMTAP_DIR=$STAP_CACHE/systemtap
mkdir -p "$SYSTEMTAP_DIR"
[ -x "$FLAMEKIT" ] || fail "no $FLAMEKIT (make first)"
STAP_RUNTIME=$(XDG_CACHE_HOME=$STAP_CACHE/xdg "$FLAMEKIT" stap --user -p $$ -r "$STAP_RELEASE" --print-command 2> "$TMP/runtime.err" |
	sed -n 's/^stap -R \([^ ]*\) .*/\1/p') || { cat "$TMP/runtime.err"; fail "flamekit stap --print-command"; }
[ -z "$STAP_RUNTIME" ] || echo "note: runtime of flamekit stap for $STAP_RELEASE: $STAP_RUNTIME"
# stap_pass N ARGS...: translate up to pass N in $TMP; output in $TMP/pass.out/.err
stap_pass() {
	local n=$1; shift
	(cd "$TMP" && stap ${STAP_RUNTIME:+-R "$STAP_RUNTIME"} -r "$STAP_RELEASE" -I "$TAPSET" -p"$n" "$@") > "$TMP/pass.out" 2> "$TMP/pass.err"
}
# Public names as the kernel-doc comments declare them.
tapset_doc_functions() { sed -n 's/^ \* sfunction \([a-z_0-9]*\) - .*/\1/p' "$TAPSET/flamekit.stp"; }
tapset_doc_probes() { sed -n 's/^ \* probe \([a-z_0-9.]*\) - .*/\1/p' "$TAPSET/flamekit.stp"; }

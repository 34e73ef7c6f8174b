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
# stap_pass N ARGS...: translate up to pass N in $TMP; output in $TMP/pass.out/.err
stap_pass() {
	local n=$1; shift
	(cd "$TMP" && stap -r "$STAP_RELEASE" -I "$TAPSET" -p"$n" "$@") > "$TMP/pass.out" 2> "$TMP/pass.err"
}
# Public names as the kernel-doc comments declare them.
tapset_doc_functions() { sed -n 's/^ \* sfunction \([a-z_0-9]*\) - .*/\1/p' "$TAPSET/flamekit.stp"; }
tapset_doc_probes() { sed -n 's/^ \* probe \([a-z_0-9.]*\) - .*/\1/p' "$TAPSET/flamekit.stp"; }

#!/usr/bin/env bash
# Resource graphs with the tapset for real (docs/resource-graphs.md), in the VM
# of vm-lib.sh (its image and cache shared with t-vm.sh): `flamekit stap --io
# read` on `ioload loop` (rounds of 192 KiB read in read_big, 64 KiB in
# read_small, which spends more CPU): bytes 75/25 within 1 point.
. "$(dirname "$0")/../../lib.sh"
. "$FK_TOP/tests/stap/stap-lib.sh"
. "$FK_TOP/tests/stap/vm/vm-lib.sh"
VM_EXTRA_SRC="$FK_TOP/tests/data/resource/ioload.c $FK_TOP/tests/data/resource/wakeload.c"
vm_start
export XDG_CACHE_HOME=$STAP_CACHE/xdg
IOLOAD=$VM_CACHE/bin/ioload WAKELOAD=$VM_CACHE/bin/wakeload

share() { awk -v re="$2" '{ t += $NF; if ($0 ~ re) m += $NF } END { printf "%.2f", t ? 100 * m / t : -1 }' "$1"; }
near() {
	awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { exit !(g - w <= t && w - g <= t) }' ||
		{ mkdir -p "$VM_CACHE/last" && cp "$TMP"/*.folded "$VM_CACHE/last/"; fail "$1: $2% (want $3 +- $4)"; }
	echo "ok $1: $2% (want $3 +- $4)"
}
# fk NAME PID BIN SECONDS ARGS...: flamekit stap -p PID against BIN in the guest
fk() {
	local name=$1 pid=$2 bin=$3 secs=$4; shift 4
	local args=(stap -p "$pid" --remote "unix:$VM_SOCK" -r "$KVER" --kallsyms "$KALLSYMS"
		--stap-opt="$VM_STAP_OPTS" -d "$bin" --stap-opt=--ldd -t "$secs" "$@" --folded -o "$TMP/$name.folded")
	"$FLAMEKIT" "${args[@]}" --print-command > "$TMP/$name.cmd" 2> "$TMP/$name.err" ||
		{ cat "$TMP/$name.err"; fail "flamekit stap $name --print-command"; }
	vm_build_cmd "$(cat "$TMP/$name.cmd")" 2> "$TMP/$name.build.err" ||
		{ cat "$TMP/$name.build.err"; fail "flamekit stap $name: compiling its stap command"; }
	vm_sh stapsh_ready > /dev/null || fail "stapsh is not serving in the guest"
	timeout -k 5 "$VM_LIMIT" "$FLAMEKIT" "${args[@]}" 2> "$TMP/$name.err" ||
		{ cat "$TMP/$name.err"; fail "flamekit stap $name"; }
	! grep -i 'transport failure' "$TMP/$name.err" || fail "$name: stap lost output"
	vm_log "flamekit stap $name done ($secs s)"
}

# Bytes read: at least 400 rounds seen, so that the round cut at either end
# moves the split by under 1 point (3 of 1600 chunks is 0.19 points)
pid=$(vm_sh "$IOLOAD loop > /dev/null 2>&1 & echo \$!") || fail "starting ioload in the guest"
secs=10
for try in 1 2 3; do
	fk io "$pid" "$IOLOAD" $secs --io read
	n=$(awk '$0 ~ /;read_small;read_all / { s += $NF } END { print int(s / 65536) }' "$TMP/io.folded")
	echo "io: $n rounds in $secs s"
	[ "$n" -lt 400 ] || break
	secs=$((secs * 3))
done
[ "$n" -ge 400 ] || { cat "$TMP/io.folded"; fail "io: only $n rounds traced"; }
near "io: read_big" "$(share "$TMP/io.folded" '^ioload;(.*;)?main;read_big;read_all ')" 75 1
near "io: read_small" "$(share "$TMP/io.folded" '^ioload;(.*;)?main;read_small;read_all ')" 25 1
vm_sh "kill $pid"

# (flamekit.offwake is not run here yet: its first run in the VM, -t 3 on
# `wakeload loop`, did not end within VM_LIMIT (420 s; "Too many interrupts
# received"); see the branch's report. bpftrace's --off-wake is checked for real in
# tests/bpftrace/t-resource.sh.)
vm_log "resource graphs in the VM: ok"

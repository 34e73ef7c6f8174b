#!/usr/bin/env bash
# Resource graphs with the tapset for real (docs/resource-graphs.md), in the VM
# of vm-lib.sh (its image and cache shared with t-vm.sh): `flamekit stap --io
# read` on `ioload loop` (rounds of 192 KiB read in read_big, 64 KiB in
# read_small, which spends more CPU): bytes 75/25 within 1 point; `flamekit stap
# --off-wake` on `wakeload loop`: at least 90% of the sleeper's blocked time carries
# its waker's function, wake_sleeper, above "--".
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
	vm_flamekit "$name" "${args[@]}"
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

# Off-wake: `wakeload loop` (the sleeper blocks in wait_for_signal until main's
# wake_sleeper wakes it after make_work, round after round): at least 90% of the
# sleeper's blocked time in wait_for_signal carries wake_sleeper above "--", none
# of it the idle task (swapper/N: sched_wakeup's context when the kernel completes
# a wakeup in the wakee CPU's interrupt; the tapset takes sched_waking). A round
# takes seconds under TCG and only whole intervals count: traced longer until
# some are seen. (At flamekit stap's defaults the module allocates about 250 MB;
# with __fk_wake a per-CPU statistic it took 500 MB, more than the guest has, and
# never started: "Too many interrupts received" after VM_LIMIT.)
pid=$(vm_sh "$WAKELOAD loop > /dev/null 2>&1 & echo \$!") || fail "starting wakeload in the guest"
secs=10
for try in 1 2 3; do
	fk wake "$pid" "$WAKELOAD" $secs --off-wake
	blocked=$(awk '/^sleeper;(.*;)?wait_for_signal;.*;--;/ { s += $NF } END { print s + 0 }' "$TMP/wake.folded")
	echo "wake: sleeper blocked $blocked us in $secs s"
	[ "$blocked" -eq 0 ] || break
	secs=$((secs * 3))
done
[ "$blocked" -gt 0 ] || { cat "$TMP/wake.folded"; fail "wake: no blocked time of the sleeper paired with a waker"; }
waker=$(awk '/^sleeper;(.*;)?wait_for_signal;.*;--;(.*;)?wake_sleeper;(.*;)?wakeload [0-9]+$/ { s += $NF } END { print s + 0 }' "$TMP/wake.folded")
idle=$(awk '/^sleeper;.*;--;(.*;)?swapper\/[0-9]+ [0-9]+$/ { s += $NF } END { print s + 0 }' "$TMP/wake.folded")
echo "wake: $waker us of it woken by wake_sleeper, $idle us by swapper"
assert_eq "sleeper's blocked time woken by swapper (us)" 0 "$idle"
awk -v a="$waker" -v b="$blocked" 'BEGIN { exit !(a >= 0.9 * b) }' ||
	{ mkdir -p "$VM_CACHE/last" && cp "$TMP/wake.folded" "$VM_CACHE/last/"; cat "$TMP/wake.folded"; fail "wake: under 90% of the blocked time carries wake_sleeper"; }
# perf's shape: the blocked user stack, its kernel stack up to __schedule (stap's
# own handler frames left out), "--", the waker's kernel stack from try_to_wake_up
# (leaf first), its user stack, its comm
grep -E '^sleeper;(.*;)?wait_for_signal;entry_SYSCALL[^;]*;(.*;)?schedule;__schedule;--;try_to_wake_up;(.*;)?entry_SYSCALL[^;]*;wake_sleeper;(.*;)?main;(.*;)?wakeload [0-9]+$' "$TMP/wake.folded" > /dev/null ||
	{ cat "$TMP/wake.folded"; fail "wake: not the off-wake shape (blocked stacks;--;waker's leaf first;comm)"; }
vm_sh "kill $pid"
vm_log "resource graphs in the VM: ok"

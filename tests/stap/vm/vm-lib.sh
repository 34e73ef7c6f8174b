# tests/stap/vm/vm-lib.sh - sourced by the VM tests (after tests/lib.sh and
# tests/stap/stap-lib.sh): boots Debian's kernel for $STAP_RELEASE under qemu
# (TCG) with a busybox initramfs, and runs the real stap pass 5 in it through
# `stap --remote` (stapsh on a virtio-serial port). See tests/stap/vm/README.
VM_SRC=$FK_TOP/tests/stap/vm
KVER=$STAP_RELEASE
# Kept in the stap tests' cache (stap-lib.sh), shared by both passes of
# `make check`: the kernel image and the guest's /proc/kallsyms; stap's module
# cache and flamekit's runtime copy are there too.
VM_CACHE=$STAP_CACHE/vm/$KVER
VM_LIMIT=${FK_VM_LIMIT:-420}     # hard limit, seconds, of each stap run and guest command
# Compiling (passes 1-4, here) is not a hang however long it takes: a cold
# stap cache under a load of 16 on 2 cores took over 420 s for one module
# (kbuild killed). vm_stap and the tests compile first under this limit, so
# that VM_LIMIT bounds only the run.
VM_BUILD_LIMIT=${FK_VM_BUILD_LIMIT:-2400}
# The guest's life: a safety net only, as qemu dies with the test's shell
# (parent-death signals, vm_boot); a cold run under load took 25 minutes.
VM_LIFE=${FK_VM_LIFE:-10800}
# The emulated TSC counts the time the host takes qemu off its CPU, so a probe
# handler looked far too slow to stap's overload guard on a loaded machine
# ("probe overhead ... exceeded threshold"), which ended the script.
VM_STAP_OPTS="-DSTP_NO_OVERLOAD"
VM_PID=
VM_W=

vm_log() { printf '[%5ss] %s\n' "$SECONDS" "$*"; }

# Everything the VM needs that is installed or fetched, or skip/fail saying why.
vm_check_tools() {
	[ "$(uname -m)" = x86_64 ] || skip "the VM boots Debian's amd64 kernel and stap builds its modules here: x86_64 hosts only"
	command -v qemu-system-x86_64 > /dev/null || skip "qemu-system-x86_64 is not installed (make deps: qemu-system-x86)"
	[ "$(id -u)" -eq 0 ] || skip "not root: stap compiles with the guest's kallsyms bind-mounted over /proc/kallsyms (unshare -m), which needs root"
	local t
	for t in busybox cpio gzip gcc unshare setpriv flock staprun; do
		command -v $t > /dev/null || fail "$t is missing: run make deps"
	done
	[ -x /usr/lib/systemtap/stapsh ] && [ -x /usr/lib/systemtap/stapio ] || fail "stapsh/stapio missing (systemtap-runtime): run make deps"
	[ -x "$FLAMEKIT" ] || fail "no $FLAMEKIT (make first)"
}

# The kernel image of KVER from Debian's archive, vmlinuz and the virtio
# modules only (the package's own initramfs is not needed).
vm_fetch_kernel() {
	[ -s "$VM_CACHE/vmlinuz" ] && [ -f "$VM_CACHE/modules/virtio_console.ko" ] && return
	mkdir -p "$VM_CACHE/deb"
	local ver pkg=linux-image-$KVER
	ver=$(dpkg-query -W -f='${Version}' "linux-headers-$KVER" 2>/dev/null)
	# the image of the headers' exact version, else any image of that ABI
	if ! (cd "$VM_CACHE/deb" && apt-get download "$pkg${ver:+=$ver}" > ../apt.log 2>&1); then
		(cd "$VM_CACHE/deb" && apt-get download "$pkg" >> ../apt.log 2>&1) ||
			skip "cannot fetch the kernel image: apt-get download $pkg failed: $(grep -m1 '^E:' "$VM_CACHE/apt.log")"
		echo "note: $pkg $ver is not in the archive; using $(ls "$VM_CACHE"/deb)"
	fi
	local deb; deb=$(ls "$VM_CACHE"/deb/*.deb)
	rm -rf "$VM_CACHE/x" && mkdir -p "$VM_CACHE/x" "$VM_CACHE/modules"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$VM_CACHE/x" --wildcards \
		"./boot/vmlinuz-$KVER" "./lib/modules/$KVER/kernel/drivers/virtio/*" \
		"./lib/modules/$KVER/kernel/drivers/char/virtio_console.ko" || fail "extracting $deb"
	mv "$VM_CACHE"/x/lib/modules/"$KVER"/kernel/drivers/virtio/*.ko \
	   "$VM_CACHE"/x/lib/modules/"$KVER"/kernel/drivers/char/virtio_console.ko "$VM_CACHE/modules/"
	mv "$VM_CACHE/x/boot/vmlinuz-$KVER" "$VM_CACHE/vmlinuz.tmp" && mv "$VM_CACHE/vmlinuz.tmp" "$VM_CACHE/vmlinuz"
	rm -rf "$VM_CACHE/x" "$VM_CACHE/deb"
	vm_log "kernel image fetched ($(basename "$deb"))"
}

# The test program, at the same path in the guest as here (stap's -d paths).
vm_build_burn() {
	mkdir -p "$VM_CACHE/bin"
	# (the same bytes each time; renamed in, as a run beside this one may be using it)
	gcc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$VM_CACHE/bin/burn.tmp.$$" "$VM_SRC/burn.c" &&
		mv "$VM_CACHE/bin/burn.tmp.$$" "$VM_CACHE/bin/burn" || fail "compiling burn.c"
	BURN=$VM_CACHE/bin/burn
	# more programs a test asks for (VM_EXTRA_SRC: C files; each at
	# $VM_CACHE/bin/NAME, listed in VM_EXTRA)
	VM_EXTRA=
	local src bin
	for src in ${VM_EXTRA_SRC:-}; do
		bin=$VM_CACHE/bin/$(basename "$src" .c)
		gcc -O1 -g -fno-omit-frame-pointer -fno-inline -o "$bin.tmp.$$" "$src" -lpthread &&
			mv "$bin.tmp.$$" "$bin" || fail "compiling $src"
		VM_EXTRA="$VM_EXTRA $bin"
	done
	# the guest mounts proc, sysfs, devtmpfs and debugfs: a file under them would be hidden
	case $BURN in
	/proc/* | /sys/* | /dev/*) fail "$BURN: the guest mounts over /proc, /sys and /dev (set FK_STAP_CACHE elsewhere)" ;;
	esac
}

# Copy a file into root $1 at its real path, and its symlinked name as a link,
# with the merged-/usr layout of the host.
vm_copy_file() {
	local r=$1 f=$2 real lp
	real=$(realpath "$f")
	[ -e "$r$real" ] || { mkdir -p "$r${real%/*}" && cp "$real" "$r$real"; }
	lp=$(realpath -s "$f"); lp=${lp/#\/lib64\//\/usr\/lib64\/}; lp=${lp/#\/lib\//\/usr\/lib\/}
	[ "$lp" = "$real" ] || [ -e "$r$lp" ] || { mkdir -p "$r${lp%/*}" && ln -s "$real" "$r$lp"; }
}

# initramfs: busybox, stapsh/staprun/stapio with their libraries, the test
# program with its libraries, the virtio modules, and guest-init as /init.
vm_build_initramfs() {
	local r=$VM_W/root f
	rm -rf "$r" && mkdir -p "$r"/usr/bin "$r"/usr/sbin "$r"/usr/lib64 "$r"/proc "$r"/sys "$r"/dev "$r"/tmp "$r"/root
	ln -s usr/bin "$r/bin"; ln -s usr/sbin "$r/sbin"; ln -s usr/lib "$r/lib"; ln -s usr/lib64 "$r/lib64"
	local bb; bb=$(command -v busybox)
	cp "$bb" "$r/usr/bin/busybox"
	for f in $("$bb" --list); do [ -e "$r/usr/bin/$f" ] || ln -s busybox "$r/usr/bin/$f"; done
	local progs="/usr/bin/staprun /usr/lib/systemtap/stapio /usr/lib/systemtap/stapsh $BURN $VM_EXTRA"
	for f in $progs $(ldd $progs "$bb" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && NF == 2 { print $1 }' | sort -u); do
		vm_copy_file "$r" "$f"
	done
	mkdir -p "$r/lib/modules/$KVER/kernel/drivers/virtio" "$r/lib/modules/$KVER/kernel/drivers/char"
	cp "$VM_CACHE"/modules/virtio*.ko "$r/lib/modules/$KVER/kernel/drivers/virtio/"
	mv "$r/lib/modules/$KVER/kernel/drivers/virtio/virtio_console.ko" "$r/lib/modules/$KVER/kernel/drivers/char/"
	# host paths the guest must see as they are here: burn (stap's -d path) and
	# a marker in this test's temp folder (under /tmp: guest-init once mounted
	# a tmpfs there, hiding a checkout under /tmp); vm_boot checks both
	VM_PATHS="$BURN $VM_W/host-path"
	mkdir -p "$r$VM_W" && echo "host path" > "$r$VM_W/host-path"
	cp "$VM_SRC/guest-init" "$r/init" && chmod +x "$r/init"
	(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) > "$VM_W/initrd.gz" || fail "building the initramfs"
	rm -rf "$r"
}

# vm_sh LINE: run a shell line in the guest; its output on stdout, its status returned.
vm_sh() {
	vm_ask "$VM_LIMIT" "$@"
	local rc=$?
	[ -n "$VM_ANSWERED" ] || fail "the guest did not answer: $*"
	return "$rc"
}
# vm_ask LIMIT LINE: as vm_sh, within LIMIT seconds; VM_ANSWERED is empty when the
# guest did not answer (or cut its answer short), and the status is then 255
vm_ask() {
	local limit=$1 tag n rc; shift
	VM_ANSWERED=
	printf '%s\n' "$*" >&7 || return 255
	IFS=' ' read -r -t "$limit" tag n rc <&8 && [ "$tag" = "@@out" ] || return 255
	# (nothing follows the output, so head cannot read past it)
	[ "$n" -eq 0 ] || timeout "$limit" head -c "$n" <&8 || return 255
	VM_ANSWERED=1
	return "$rc"
}

vm_stop() {
	[ -n "$VM_PID" ] || return 0
	if ! kill -0 "$VM_PID" 2>/dev/null; then
		echo "the guest is gone; the end of its console:"
		tail -40 "$VM_W/console.log"
	fi
	(printf 'poweroff -f\n' >&7) 2>/dev/null
	local i
	for i in $(seq 50); do kill -0 "$VM_PID" 2>/dev/null || break; sleep 0.1; done
	kill "$VM_PID" 2>/dev/null
	wait "$VM_PID" 2>/dev/null
	VM_PID=
	exec 7>&- 8<&-
}

# Boot the guest in the background and wait for its control port.
vm_boot() {
	mkfifo "$VM_W/ctl.in" "$VM_W/ctl.out"
	VM_SOCK=$VM_W/stapsh.sock
	# (timeout ends qemu at the hard limit even if this shell is killed;
	# no_timer_check: a starved emulator failed the kernel's IO-APIC timer
	# check now and then, "IO-APIC + timer doesn't work!")
	# (qemu and its timeout die with this shell, even by SIGKILL: their
	# parent-death signal)
	setpriv --pdeathsig KILL timeout -k 5 "$VM_LIFE" setpriv --pdeathsig KILL qemu-system-x86_64 -accel tcg -m 512 -smp 1 \
		-display none -monitor none -no-reboot -serial "file:$VM_W/console.log" \
		-device virtio-serial-pci \
		-chardev "socket,id=stapsh,path=$VM_SOCK,server=on,wait=off" \
		-device virtserialport,chardev=stapsh,name=org.systemtap.stapsh.0 \
		-chardev "pipe,id=ctl,path=$VM_W/ctl" \
		-device virtserialport,chardev=ctl,name=org.flamekit.ctl.0 \
		-kernel "$VM_CACHE/vmlinuz" -initrd "$VM_W/initrd.gz" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 no_timer_check" < /dev/null > "$VM_W/qemu.log" 2>&1 &
	VM_PID=$!
	exec 7> "$VM_W/ctl.in" 8< "$VM_W/ctl.out"
	local line
	while IFS= read -r -t "$VM_LIMIT" line <&8; do
		[ "$line" = "@@ready" ] || continue
		vm_log "guest ready"
		vm_sh "ls -d $VM_PATHS" > "$VM_W/paths" ||
			{ cat "$VM_W/paths"; fail "the guest does not see files at their host paths: $VM_PATHS"; }
		return 0
	done
	cat "$VM_W/qemu.log" "$VM_W/console.log" >&2
	fail "the guest did not come up within ${VM_LIMIT}s (console above)"
}

# The guest's /proc/kallsyms, once per kernel: stap takes kernel symbols from
# the build host's /proc/kallsyms when there is no kernel debuginfo.
vm_kallsyms() {
	KALLSYMS=$VM_CACHE/kallsyms
	[ -s "$KALLSYMS" ] && return
	vm_sh "uname -r" > "$VM_W/uname" || fail "uname in the guest"
	[ "$(cat "$VM_W/uname")" = "$KVER" ] || fail "the guest runs $(cat "$VM_W/uname"), not $KVER"
	vm_sh "cat /proc/kallsyms" > "$KALLSYMS.tmp.$$" || fail "reading the guest's /proc/kallsyms"
	grep -q ' T _stext$' "$KALLSYMS.tmp.$$" && grep -q ' do_syscall_64$' "$KALLSYMS.tmp.$$" ||
		fail "the guest's kallsyms has no _stext/do_syscall_64"
	mv "$KALLSYMS.tmp.$$" "$KALLSYMS"
	vm_log "guest kallsyms saved ($(wc -l < "$KALLSYMS") symbols)"
}

# vm_stap ARGS...: the real stap, all passes, pass 5 in the guest, with the
# runtime flamekit stap uses ($STAP_RUNTIME); compiled with the guest's
# kallsyms in place of this machine's (private mount namespace).
vm_stap() {
	vm_stap_limit "$VM_BUILD_LIMIT" -p4 "$@" > /dev/null 2> "$VM_W/build.err" ||
		{ cat "$VM_W/build.err" >&2; return 1; }
	vm_stap_limit "$VM_LIMIT" "$@"
}
vm_stap_limit() {  # LIMIT ARGS... (stap -v: its passes are timed in the evidence of vm_run)
	local limit=$1; shift
	vm_sh stapsh_ready > /dev/null || fail "stapsh is not serving in the guest"
	vm_run "$limit" "stap $*" unshare -m sh -c '
		mount --make-rprivate / && mount --bind "$0" /proc/kallsyms || exit 99
		exec "$@"' "$KALLSYMS" stap -v ${STAP_RUNTIME:+-R "$STAP_RUNTIME"} --remote "unix:$VM_SOCK" $VM_STAP_OPTS -I "$TAPSET" "$@"
}
# vm_build_cmd COMMAND: passes 1-4 only of a stap command line that
# `flamekit stap --print-command` printed (with --kallsyms), under VM_BUILD_LIMIT
vm_build_cmd() {
	local cmd=$1
	[[ $cmd == *"$KALLSYMS stap "* ]] || fail "not a stap command with the guest's kallsyms: $cmd"
	vm_sh stapsh_ready > /dev/null || fail "stapsh is not serving in the guest"
	eval "vm_run $VM_BUILD_LIMIT 'compiling (stap -p4)' ${cmd/"$KALLSYMS stap "/"$KALLSYMS stap -p4 "}" > /dev/null
}
# vm_flamekit NAME ARGS...: `flamekit ARGS` (a `flamekit stap --remote` run against the
# guest): its stap command printed and compiled first (vm_build_cmd), then run under
# VM_LIMIT; its messages in $TMP/NAME.err (stap -v: its passes timed), the command in
# $TMP/NAME.cmd; how long each took is logged
vm_flamekit() {
	local name=$1 built; shift
	set -- "$@" --stap-opt=-v
	"$FLAMEKIT" "$@" --print-command > "$TMP/$name.cmd" 2> "$TMP/$name.err" ||
		{ cat "$TMP/$name.err"; fail "flamekit stap $name --print-command"; }
	vm_build_cmd "$(cat "$TMP/$name.cmd")" 2> "$TMP/$name.build.err" ||
		{ cat "$TMP/$name.build.err"; fail "flamekit stap $name: compiling its stap command"; }
	built=$VM_RUN_SECS
	vm_sh stapsh_ready > /dev/null || fail "stapsh is not serving in the guest"
	vm_run "$VM_LIMIT" "flamekit stap $name" "$FLAMEKIT" "$@" 2> "$TMP/$name.err" ||
		{ cat "$TMP/$name.err"; fail "flamekit stap $name"; }
	vm_log "flamekit stap $name: compiled in ${built}s, ran in ${VM_RUN_SECS}s"
}

# vm_run LIMIT WHAT CMD...: CMD in the background (its stdout and stderr as the caller
# redirected them), its status returned; VM_RUN_SECS says how long it took. The lines
# of its stderr (a file) are noted with the second they came in, as stap -v times its
# passes (1-4 here, 5 the upload, staprun, sampling and printing in the guest). When it
# fails, or runs past LIMIT seconds, the evidence goes to the test's log (vm_evidence)
# before a stuck one is stopped: SIGTERM (flamekit's stop request, stap's interrupt),
# again after 15 s (flamekit aborts its stap), then SIGKILL to what is left; status 124.
vm_run() {
	local limit=$1 what=$2; shift 2
	local t0=${EPOCHREALTIME/./} errf seen=0 n rc=0 pid
	"$@" &
	pid=$!
	VM_TIMELINE=$VM_W/timeline
	: > "$VM_TIMELINE"
	errf=$(readlink "/proc/$pid/fd/2" 2>/dev/null)
	[ -f "$errf" ] && [ "$errf" != "$(readlink "/proc/$$/fd/$VM_LOG_FD")" ] || errf=
	while kill -0 "$pid" 2>/dev/null; do
		vm_run_note
		if [ $(( ${EPOCHREALTIME/./} - t0 )) -ge $((limit * 1000000)) ]; then
			vm_evidence "$what: still running after ${limit}s" "$pid" "$t0"
			vm_halt "$pid"
			rc=124
			break
		fi
		sleep 0.5  # (polling a bound: nothing waits for this)
	done
	wait "$pid"
	n=$?
	[ $rc -eq 124 ] || rc=$n
	vm_run_note
	VM_RUN_SECS=$(vm_since "$t0")
	[ $rc -eq 0 ] || [ $rc -eq 124 ] || vm_evidence "$what: failed (exit $rc) after ${VM_RUN_SECS}s" "" "$t0"
	return $rc
}
vm_run_note() {  # (vm_run's) the lines come in since last time, with the time
	[ -n "$errf" ] || return 0
	n=$(wc -l < "$errf")
	[ "$n" -gt "$seen" ] || return 0
	sed -n "$((seen + 1)),${n}p" "$errf" | cut -c1-300 | sed "s/^/[+$(vm_since "$t0")s] /" >> "$VM_TIMELINE"
	seen=$n
}
vm_since() { local us=$(( ${EPOCHREALTIME/./} - $1 )); printf '%d.%d' $((us / 1000000)) $((us / 100000 % 10)); }

# vm_tree PID: PID and its descendants, comma-separated
vm_tree() {
	ps -eo pid=,ppid= | awk -v root="$1" '{ kids[$2] = kids[$2] " " $1 }
		END { out = root; q = root
		      while (q != "") { n = split(q, a, " "); q = ""
			  for (i = 1; i <= n; i++) { m = split(kids[a[i]], k, " ")
			      for (j = 1; j <= m; j++) { out = out "," k[j]; q = q " " k[j] } } }
		      print out }'
}
vm_ps() {  # PID: its process tree, what each waits in
	ps -o pid,ppid,stat,etime,time,wchan:26,args -p "$(vm_tree "$1")" 2>/dev/null | cut -c1-220
}

# vm_evidence TITLE PID T0: what a failed or stuck run leaves, bounded, in the test's
# log: the processes still running (PID's tree, if given), the command's stderr with
# the times its lines came, the guest's console, and the guest's side (its processes,
# stapsh's port, the stap module, the kernel log)
vm_evidence() {
	local title=$1 pid=$2 t0=$3
	{
		echo "=== $title; the evidence:"
		if [ -n "$pid" ]; then
			echo "--- its processes here (at +$(vm_since "$t0")s):"
			vm_ps "$pid"
		fi
		echo "--- its stderr as it came (last 25 lines; stap -v times its passes):"
		tail -25 "$VM_TIMELINE"
		echo "--- the guest's console (last 15 lines):"
		tail -15 "$VM_W/console.log" | tr -d '\r'
		echo "--- the guest:"
		if ! kill -0 "$VM_PID" 2>/dev/null; then
			echo "(qemu is gone)"
		else
			vm_ask 60 vm_state | head -60
			[ -n "$VM_ANSWERED" ] || echo "(no answer from the guest within 60 s)"
		fi
		echo "=== (end of the evidence)"
	} >&"$VM_LOG_FD" 2>&1
}
# vm_halt PID: stop a stuck run as said at vm_run, saying what it took
vm_halt() {
	local pid=$1 step i
	for step in TERM TERM KILL; do
		kill -0 "$pid" 2>/dev/null || return 0
		echo "--- sending SIG$step" >&"$VM_LOG_FD"
		if [ $step = KILL ]; then
			vm_ps "$pid" >&"$VM_LOG_FD"
			kill -KILL $(vm_tree "$pid" | tr , ' ') 2>/dev/null
			return 0
		fi
		kill -$step "$pid"
		for i in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
	done
}

# Set up and boot; the EXIT trap powers the guest off.
vm_start() {
	vm_check_tools
	mkdir -p "$VM_CACHE"
	VM_W=$TMP/vm && mkdir -p "$VM_W"
	# the test's log, for vm_evidence (the runs' own output is redirected)
	exec {VM_LOG_FD}>&1
	trap 'vm_stop; rm -rf "$TMP"' EXIT
	# (one fetch at a time: a run beside this one may share the cache)
	exec 6> "$VM_CACHE/.fetch.lock" && flock 6 || fail "locking $VM_CACHE/.fetch.lock"
	vm_fetch_kernel
	exec 6>&-
	vm_build_burn
	vm_build_initramfs
	vm_boot
	vm_kallsyms
}

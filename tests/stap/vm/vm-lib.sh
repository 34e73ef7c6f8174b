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
	local tag n rc
	printf '%s\n' "$*" >&7
	IFS=' ' read -r -t "$VM_LIMIT" tag n rc <&8 && [ "$tag" = "@@out" ] ||
		fail "the guest did not answer: $*"
	# (nothing follows the output, so head cannot read past it)
	[ "$n" -eq 0 ] || timeout "$VM_LIMIT" head -c "$n" <&8 || fail "the guest's answer was cut: $*"
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
vm_stap_limit() {  # LIMIT ARGS...
	local limit=$1; shift
	vm_sh stapsh_ready > /dev/null || fail "stapsh is not serving in the guest"
	timeout -k 5 "$limit" unshare -m sh -c '
		mount --make-rprivate / && mount --bind "$0" /proc/kallsyms || exit 99
		exec "$@"' "$KALLSYMS" stap ${STAP_RUNTIME:+-R "$STAP_RUNTIME"} --remote "unix:$VM_SOCK" $VM_STAP_OPTS -I "$TAPSET" "$@"
}
# vm_build_cmd COMMAND: passes 1-4 only of a stap command line that
# `flamekit stap --print-command` printed (with --kallsyms), under VM_BUILD_LIMIT
vm_build_cmd() {
	local cmd=$1
	[[ $cmd == *"$KALLSYMS stap "* ]] || fail "not a stap command with the guest's kallsyms: $cmd"
	vm_sh stapsh_ready > /dev/null || fail "stapsh is not serving in the guest"
	eval "timeout -k 5 $VM_BUILD_LIMIT ${cmd/"$KALLSYMS stap "/"$KALLSYMS stap -p4 "}" > /dev/null
}
# vm_flamekit NAME ARGS...: `flamekit ARGS` (a `flamekit stap --remote` run against the
# guest): its stap command printed and compiled first (vm_build_cmd), then run under
# VM_LIMIT; its messages in $TMP/NAME.err, the command in $TMP/NAME.cmd
vm_flamekit() {
	local name=$1; shift
	"$FLAMEKIT" "$@" --print-command > "$TMP/$name.cmd" 2> "$TMP/$name.err" ||
		{ cat "$TMP/$name.err"; fail "flamekit stap $name --print-command"; }
	vm_build_cmd "$(cat "$TMP/$name.cmd")" 2> "$TMP/$name.build.err" ||
		{ cat "$TMP/$name.build.err"; fail "flamekit stap $name: compiling its stap command"; }
	vm_sh stapsh_ready > /dev/null || fail "stapsh is not serving in the guest"
	timeout -k 5 "$VM_LIMIT" "$FLAMEKIT" "$@" 2> "$TMP/$name.err" ||
		{ cat "$TMP/$name.err"; fail "flamekit stap $name"; }
}

# Set up and boot; the EXIT trap powers the guest off.
vm_start() {
	vm_check_tools
	mkdir -p "$VM_CACHE"
	VM_W=$TMP/vm && mkdir -p "$VM_W"
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

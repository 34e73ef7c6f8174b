#!/usr/bin/env bash
# --python never draws frames it cannot trust: an interpreter whose version is not
# 3.11 (a copy of python3.11 with Py_Version patched to 3.12.2) is refused with the
# version named, a program with no Python in it is refused naming what is missing;
# nothing is written and the process is left running. --python with --precise is a
# usage error before any attach.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib-gdb.sh"
. "$(dirname "$0")/lib-python.sh"
probe_ptrace
# the file offset of Py_Version's bytes (0x030b..: little-endian, minor at +2)
off=$("$PY" - "$PY" <<'PYEOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
# ELF64: section headers, .dynsym + .dynstr to find Py_Version, program headers to map it
shoff, = struct.unpack_from("<Q", b, 0x28)
shentsize, shnum = struct.unpack_from("<HH", b, 0x3A)
secs = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
dynsym = next(s for s in secs if s[1] == 11)
strtab = secs[dynsym[6]]
value = None
for i in range(dynsym[5] // 24):
    name, info, other, shndx, val, size = struct.unpack_from("<IBBHQQ", b, dynsym[4] + i * 24)
    end = b.index(b"\0", strtab[4] + name)
    if b[strtab[4] + name:end] == b"Py_Version":
        value = val
phoff, = struct.unpack_from("<Q", b, 0x20)
phentsize, phnum = struct.unpack_from("<HH", b, 0x36)
for i in range(phnum):
    typ, flags, off, vaddr, paddr, filesz, memsz, align = struct.unpack_from("<IIQQQQQQ", b, phoff + i * phentsize)
    if typ == 1 and vaddr <= value < vaddr + filesz:
        print(value - vaddr + off)
PYEOF
) || fail "cannot find Py_Version in $PY"
cp "$PY" "$TMP/python3.11"
ver=$(od -An -tx4 -j "$off" -N4 "$TMP/python3.11" | tr -d ' ')
case $ver in 030b*) ;; *) fail "Py_Version at $off reads $ver, not 3.11";; esac
printf '\x0c' | dd of="$TMP/python3.11" bs=1 seek=$((off + 2)) conv=notrunc status=none
start_target "$TMP/python3.11" "$PYDIR/split.py"
"$FLAMEKIT" gdb --python -p "$TPID" -d 1 --folded "$TMP/v.folded" < /dev/null > "$TMP/out" 2>&1
rc=$?
cat "$TMP/out"
[ $rc -ne 0 ] || fail "an unsupported version was sampled (exit 0)"
grep -q "CPython 3.12.2, which is not supported" "$TMP/out" || fail "the version is not named"
[ ! -e "$TMP/v.folded" ] || fail "output written for a refused interpreter"
assert_running "$TPID"
# the same copy sampled without --python: native frames as always
run_flame "$TPID" -d 1 --folded "$TMP/n.folded"
[ $GDB_RC -eq 0 ] || { cat "$TMP/gdb.out"; fail "native sampling of the copy failed"; }
assert_contains "$TMP/n.folded" "_PyEval_EvalFrameDefault"
assert_running "$TPID"

# no interpreter at all
start_target "$TARGET" split
run_flame "$TPID" -d 1 --python --folded "$TMP/c.folded"
cat "$TMP/gdb.out"
[ $GDB_RC -ne 0 ] || fail "--python on a C program exited 0"
grep -q "python: no symbol _PyEval_EvalFrameDefault in process $TPID" "$TMP/gdb.out" ||
	fail "no message naming what is missing"
[ ! -e "$TMP/c.folded" ] || fail "output written"
assert_running "$TPID"

run_rc 2 "$FLAMEKIT" gdb --python --precise -p "$TPID" -d 1 > "$TMP/u.out" 2>&1
cat "$TMP/u.out"
assert_contains "$TMP/u.out" "not with --precise"
assert_running "$TPID"
echo PASS

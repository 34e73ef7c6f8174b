#!/usr/bin/env bash
# make install / uninstall with DESTDIR and PREFIX: the CLI lands in
# $PREFIX/bin, a program builds against the installed header + pkg-config
# file, and uninstall removes exactly what install wrote.
. "$(dirname "$0")/../lib.sh"
[ "${SANITIZE:-0}" = 1 ] && skip "install layout is checked in the normal build only (same rules)"
cd "$FK_TOP"
dest=$TMP/stage
make -s install DESTDIR="$dest" PREFIX=/opt/fk BUILD="$BUILD" > "$TMP/log" 2>&1 || { cat "$TMP/log"; fail "make install"; }
[ -x "$dest/opt/fk/bin/flamekit" ] || fail "no bin/flamekit"
[ -f "$dest/opt/fk/include/flamekit/flamekit.h" ] || fail "no header"
[ -f "$dest/opt/fk/lib/pkgconfig/flamekit.pc" ] || fail "no pkg-config file"
"$dest/opt/fk/bin/flamekit" --version | grep -q '^flamekit ' || fail "installed CLI does not run"
cat > "$TMP/user.c" <<'C'
#include <flamekit.h>
int main(void)
{
	fk_profile *p = fk_profile_new(0);
	fk_profile_add_folded(p, "main;work", 9, 0, 2);
	int rc = fk_profile_write_folded(p, stdout);
	fk_profile_free(p);
	return rc != 0;
}
C
export PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_LIBDIR=$dest/opt/fk/lib/pkgconfig
flags=$(pkg-config --cflags --libs flamekit) || fail "pkg-config"
echo "pkg-config: $flags"
# against the shared library (soname symlinks) and the static one
cc -o "$TMP/user" "$TMP/user.c" $flags -Wl,-rpath,"$dest/opt/fk/lib" 2> "$TMP/cc.err" || { cat "$TMP/cc.err"; fail "build against installed library"; }
assert_eq "program output (shared)" "main;work 2" "$("$TMP/user")"
ldd "$TMP/user" | grep -q "$dest/opt/fk/lib/libflamekit.so.0" || fail "not linked to the installed .so"
cc -o "$TMP/user-static" "$TMP/user.c" $(pkg-config --cflags flamekit) "$dest/opt/fk/lib/libflamekit.a" $(pkg-config --static --libs-only-l flamekit | sed "s/-lflamekit//") || fail "static build"
assert_eq "program output (static)" "main;work 2" "$("$TMP/user-static")"
make -s uninstall DESTDIR="$dest" PREFIX=/opt/fk > "$TMP/log" 2>&1 || { cat "$TMP/log"; fail "make uninstall"; }
left=$(find "$dest" -type f -o -type l 2>/dev/null | head)
[ -z "$left" ] || fail "uninstall left files: $left"
echo "install/uninstall ok"

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
flags=$(pkg-config --cflags --libs --static flamekit) || fail "pkg-config"
cc -o "$TMP/user" "$TMP/user.c" $flags -Wl,-Bstatic -lflamekit -Wl,-Bdynamic -lm -lpthread 2> "$TMP/cc.err" || { cat "$TMP/cc.err"; fail "build against installed library"; }
assert_eq "program output" "main;work 2" "$("$TMP/user")"
make -s uninstall DESTDIR="$dest" PREFIX=/opt/fk > "$TMP/log" 2>&1 || { cat "$TMP/log"; fail "make uninstall"; }
left=$(find "$dest" -type f | head)
[ -z "$left" ] || fail "uninstall left files: $left"
echo "install/uninstall ok"

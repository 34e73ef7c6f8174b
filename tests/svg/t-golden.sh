#!/usr/bin/env bash
# Golden SVGs: each case of golden/cases.txt renders byte-identical to
# golden/NAME.svg (FK_UPDATE_GOLDEN=1 rewrites them; review the diff). Every
# golden is well-formed XML.
. "$(dirname "$0")/../lib.sh"
G=$FK_TOP/tests/svg/golden
D=$FK_TOP/tests/svg/data
command -v xmllint > /dev/null || skip "xmllint not installed (libxml2-utils)"
n=0
while IFS='|' read -r name input opts; do
	case $name in ''|'#'*) continue ;; esac
	# shellcheck disable=SC2086
	"$FLAMEKIT" svg $opts "$D/$input" -o "$TMP/$name.svg" || fail "$name: render failed"
	xmllint --noout "$TMP/$name.svg" || fail "$name: not well-formed"
	if [ "${FK_UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$TMP/$name.svg" "$G/$name.svg"
	else
		[ -f "$G/$name.svg" ] || fail "$name: no golden (FK_UPDATE_GOLDEN=1 creates it)"
		cmp -s "$G/$name.svg" "$TMP/$name.svg" || { diff "$G/$name.svg" "$TMP/$name.svg" | head -20 >&2; fail "$name: differs from golden"; }
	fi
	n=$((n + 1))
done < "$G/cases.txt"
[ $n -ge 10 ] || fail "only $n golden cases ran"
echo "ok ($n cases)"

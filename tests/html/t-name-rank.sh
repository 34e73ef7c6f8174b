#!/usr/bin/env bash
# The viewer ranks names as the library orders them (bytewise UTF-8), whichever way it
# sorts (natively for names without UTF-16 surrogates or U+E000 up; by nameCmp otherwise).
. "$(dirname "$0")/../lib.sh"
command -v node > /dev/null || skip "node not installed (nodejs)"
node "$FK_TOP/tests/html/name-rank.js" "$FK_TOP/common/render/page" || fail "nameRank is not the library's order"

#!/usr/bin/env bash
# A transform of a large tree (in slices) does not freeze the page and never leaves a stale
# tree, selection or chip on screen (async.js, real Chromium at device pixel ratios 1 and 2):
# a generated profile of about 400k nodes. FK_SHOTS=DIR keeps screenshots.
. "$(dirname "$0")/../lib.sh"
need_browser
python3 "$FK_TOP/bench/gen-stacks.py" 20000 bushy > "$TMP/big.folded" || fail "gen-stacks.py"
"$FLAMEKIT" html "$TMP/big.folded" -o "$TMP/big.html" || fail "render big"
node "$FK_TOP/tests/html/async.js" "$TMP/big.html" || fail "transforms in slices"
echo ok

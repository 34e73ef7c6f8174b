#!/usr/bin/env bash
# The viewer's transforms (merge, drop, collapse recursion of one function and of all,
# collapse a module, focus on a function and on a path; alone and chained) against a plain
# reference over the stacks, on seeded random trees of few and many names, one and two
# columns: the same stacks and counts, and a well-formed tree in the library's name order.
. "$(dirname "$0")/../lib.sh"
command -v node > /dev/null || skip "node not installed (nodejs)"
node "$FK_TOP/tests/html/transforms-random.js" "$FK_TOP/common/render/page" || fail "a transform's tree differs from the reference"

#!/usr/bin/env bash
# t-cut.sh - perf script text in the shapes real files come in (docs/perf-script.md): a
# one-character process name is the name (not "w_26464__2300.808334:", one root a sample);
# text cut at its start (tail -c +N: mid-line, mid-sample) is detected as perf and folds to
# the stacks of the whole samples after the cut, the partial first one skipped and said once
# (exit 3); frame lines without indentation (old perf) are detected and fold as indented ones.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || fail "cd"
PD=$FK_TOP/tests/perf/data
CORPUS=$FK_CORPUS
inputs="$PD/fp.perf-script $PD/dwarf.perf-script $PD/cxx.perf-script"
[ -f "$CORPUS/node-jit.perf-script.zst" ] && { zstd -q -dc "$CORPUS/node-jit.perf-script.zst" > nj.perf-script; inputs="$inputs nj.perf-script"; }
n=0
for in in $inputs; do
	name=$(basename "$in")
	"$FLAMEKIT" collapse "$in" > full || fail "$name: exit $?"
	total=$(awk '{ s += $NF } END { print s }' full)

	# every process renamed to one character, as perf prints a process called "w"
	awk '/^[^ \t#]/ { sub(/^[^ \t]+( [^ \t0-9][^ \t]*)*/, "w") } { print }' "$in" > w.txt
	"$FLAMEKIT" collapse w.txt > out 2> err || { cat err >&2; fail "$name, comm w: exit $?"; }
	roots=$(cut -d';' -f1 out | sed 's/ [0-9]*$//' | sort -u | tr '\n' ' ')
	assert_eq "$name, comm w: root frames" "w " "$roots"
	assert_eq "$name, comm w: total" "$total" "$(awk '{ s += $NF } END { print s }' out)"
	# the stacks under the root are the original ones
	"$FLAMEKIT" collapse --no-comm "$in" | sort > a
	"$FLAMEKIT" collapse --no-comm w.txt | sort > b
	assert_files_eq a b

	# unindented frame lines (old perf): detected, the same stacks
	sed 's/^[[:space:]]\+//' "$in" > flat.txt
	"$FLAMEKIT" collapse flat.txt > out 2> err || { cat err >&2; fail "$name, unindented: exit $?"; }
	assert_files_eq full out

	# cut at its start, at a few places: detected; the stacks are those of the text from
	# the first header after the cut (a header follows an empty line)
	size=$(stat -c %s "$in")
	for at in 1001 $((size / 3)) $((size / 2 + 17)); do
		tail -c +$at "$in" > cut.txt
		awk 'go { print; next } /^$/ { blank = 1; next } blank && /^[^ \t]/ { go = 1; print }' cut.txt > rest.txt
		"$FLAMEKIT" collapse --format perf rest.txt > want 2> /dev/null
		rc=0; "$FLAMEKIT" collapse cut.txt > out 2> err || rc=$?
		[ $rc -eq 3 ] || { cat err >&2; fail "$name cut at $at: exit $rc, wanted 3"; }
		assert_files_eq want out
		[ "$(wc -l < err)" -eq 1 ] || { cat err >&2; fail "$name cut at $at: more than one message"; }
		assert_contains err "flamekit: cut.txt:1: the input starts inside a sample"
		# the same from a pipe
		rc=0; "$FLAMEKIT" collapse < cut.txt > out 2> /dev/null || rc=$?
		[ $rc -eq 3 ] || fail "$name cut at $at, from a pipe: exit $rc"
		assert_files_eq want out
		n=$((n + 1))
	done
done
[ $n -ge 9 ] || fail "only $n cuts"
echo "cut: $n cut inputs, one-character comms and unindented frames fold as the whole"

#!/usr/bin/env bash
# tests/perf/expect.sh - write the expected folded outputs of every input in
# tests/perf/data (recordings, hand-written edge cases, the shared corpus) with the oracle,
# FlameGraph's stackcollapse-perf.pl (not in this repository):
#   bash tests/perf/expect.sh /tmp/stackcollapse-perf.pl [CORPUS_DIR]
# --samples has no perl counterpart: its expectation comes from a copy of the oracle
# that remembers each stack with a count of 1 instead of the period.
# Where flamekit keeps more than the perl (a recording without callchains, a last sample
# with no blank line after it, see docs/perf-script.md), the oracle reads the input as it
# would have to be written for the perl to keep the same (complete_in): each line of a
# sample without callchain split into its header and its one frame line, then a blank
# line; the input closed by a blank line; perf script's PERF_RECORD_* lines left out. For
# an input of complete samples with callchains this changes nothing. A one-character
# process name ("x 7 [000] ..."), which the perl's (\S.+?) cannot take (it reads the header
# up to the period as the name), is made two with a \001 the output then loses.
set -eu
ORACLE=${1:?usage: expect.sh PATH/TO/stackcollapse-perf.pl [CORPUS_DIR]}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$HERE/data
CORPUS=${2:-$(. "$HERE/../lib.sh" && echo "$FK_CORPUS")}
. "$HERE/options.sh"

cat_in() { case $1 in *.zst) zstd -dc "$1" ;; *) cat "$1" ;; esac | complete_in; }
complete_in() {
	perl -ne 's/^(\S)(\s+\d+\/*\d*\s)/$1\001$2/;
		if (/^\s*(\S.+?\s+\d+\/*\d*\s+.*?:\s*(?:\d+\s+)?\S+:)(\s+[0-9a-fA-F]+\s.* \(.*\))$/ && !/PERF_RECORD_/) {
			print "$1 \n\t$2\n\n";
		} elsif (!/^\s*\S.+?\s+\d+\/*\d*\s+.*: PERF_RECORD_/) {
			print;
		}
		$nl = /\n$/;
		END { print $nl ? "\n" : "\n\n" }'
}
ORACLE1=$(mktemp /tmp/fk-oracle-samples.XXXXXX.pl)
trap 'rm -f "$ORACLE1"' EXIT
sed 's/remember_stack(join(";", @stack), $m_period)/remember_stack(join(";", @stack), 1)/' "$ORACLE" > "$ORACLE1"
grep -q 'remember_stack(join(";", @stack), 1)' "$ORACLE1" || { echo "expect.sh: cannot derive the --samples oracle" >&2; exit 1; }

expect_one() { # INPUT OUTDIR
	local in=$1 out=$2 name o
	mkdir -p "$out"
	for name in "${!FK_PERF_OPTS[@]}"; do
		o=${FK_PERF_OPTS[$name]}
		if [ "$name" = samples ]; then
			cat_in "$in" | perl "$ORACLE1" 2>/dev/null | tr -d '\001' > "$out/$name.folded"
		else
			# shellcheck disable=SC2086
			cat_in "$in" | perl "$ORACLE" $o 2>/dev/null | tr -d '\001' > "$out/$name.folded"
		fi
		rm -f "$out/$name.folded.zst"
		if [ "$(stat -c %s "$out/$name.folded")" -gt 100000 ]; then
			zstd -q -19 --rm "$out/$name.folded"
		fi
	done
}

for f in "$DATA"/*.perf-script "$DATA"/*.perf-script.zst "$DATA"/edge/*.perf-script "$DATA"/edge/*.perf-script.zst; do
	[ -e "$f" ] || continue
	base=${f%.zst}
	expect_one "$f" "${base%.perf-script}.expected"
done
if [ -d "$CORPUS" ]; then
	for f in "$CORPUS"/*.perf-script.zst; do
		b=$(basename "$f" .perf-script.zst)
		expect_one "$f" "$DATA/corpus/$b.expected"
	done
fi

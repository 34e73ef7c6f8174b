#!/usr/bin/env bash
# docs/gen-options.sh BUILD [OUTDIR] - writes the option tables of the docs from the
# programs' own tables (flamekit options, perf-flame --doc), between the markers
#   <!-- generated: COMMAND -->  ...  <!-- end generated -->      (Markdown)
#   .\" generated: COMMAND       ...  .\" end generated           (man pages)
# COMMAND's first word is a program in BUILD. Rewrites docs/ in place, or writes the
# pages into OUTDIR (tests/core/t-docs.sh compares them with the committed ones).
set -eu
build=${1:-build}
out=${2:-}
cd "$(dirname "$0")"
for f in *.md *.1; do
	grep -q 'generated: ' "$f" || continue
	dest=${out:+$out/}$f
	tmp=$(mktemp)
	skip=0
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		'<!-- generated: '*' -->' | '.\" generated: '*)
			printf '%s\n' "$line" >> "$tmp"
			cmd=${line#*generated: }
			cmd=${cmd% -->}
			set -- $cmd
			prog=$1; shift
			"$build/$prog" "$@" >> "$tmp"
			skip=1;;
		'<!-- end generated -->' | '.\" end generated')
			printf '%s\n' "$line" >> "$tmp"
			skip=0;;
		*)
			[ $skip = 1 ] || printf '%s\n' "$line" >> "$tmp";;
		esac
	done < "$f"
	mv "$tmp" "$dest"
done

#!/usr/bin/env bash
# fuzz-log.sh FORMAT LOG - reads a libFuzzer run's output on stdin, writes it to LOG
# with the seconds since the start before each line, passes on errors, and ends with
# one summary line: runs, coverage (cov/ft) when the saved corpus was loaded and at
# the end, the new inputs, the second the last new input came, and the new inputs
# and the coverage minute by minute (where growth flattened). `fuzz-log.sh FORMAT LOG --summary` prints the summary of a saved LOG.
set -u
fmt=$1 log=$2
if [ "${3:-}" != --summary ]; then
	start=$SECONDS
	while IFS= read -r line; do
		printf '%s %s\n' "$((SECONDS - start))" "$line"
		case $line in *ERROR*|*SUMMARY*|*"runtime error"*|*"fuzz: "*) echo "$fmt: $line" >&2 ;; esac
	done > "$log"
fi
awk -v fmt="$fmt" '
	function val(key,   i) { for (i = 2; i < NF; i++) if ($i == key) return $(i + 1); return "?" }
	/INITED/ { c0 = val("cov:"); f0 = val("ft:"); n0 = val("corp:") + 0 }
	/[ \t](NEW|REDUCE|pulse|DONE)[ \t]/ { c1 = val("cov:"); f1 = val("ft:"); n1 = val("corp:") + 0
		cm[int($1 / 60)] = c1 }
	/[ \t]NEW[ \t]/ { last = $1; per[int($1 / 60)]++ }
	/stat::number_of_executed_units:/ { runs = $3 }
	END { if (c1 == "") { c1 = c0; f1 = f0; n1 = n0 }
		printf "%-12s runs %s, cov %s -> %s, ft %s -> %s, corpus %d -> %d (%+d), last new input at %ss of %ss; new inputs per minute:",
		fmt, runs, c0, c1, f0, f1, n0, n1, n1 - n0, last + 0, $1
		c = c0
		for (m = 0; m * 60 <= $1; m++) printf " %d", per[m]
		printf "; cov at the end of each minute:"
		for (m = 0; m * 60 <= $1; m++) { if (m in cm) c = cm[m]; printf " %s", c }
		printf "\n" }' "$log"

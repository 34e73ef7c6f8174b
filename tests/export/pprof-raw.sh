# pprof-raw.sh - sourced by the pprof tests: fold what the real `go tool pprof -raw` reads from a
# profile (names exact with -symbolize=none), so a profile can be compared with folded stacks.
# raw_fold FILE [SAMPLE_INDEX]: folded stacks (root first, summed, sorted) of value
# SAMPLE_INDEX (0-based) of every sample, as go tool pprof decoded them. The -raw text is
# "Samples:", a types line, "V1 V2...: LOC LOC..." lines (leaf first) with label lines, then
# "Locations", "ID: 0xADDR M=N NAME FILE:LINE s=N" (inlined callers on lines of their own).
raw_fold() {
	go tool pprof -symbolize=none -raw "$1" 2> "$TMP/pprof.err" | awk -v col="${2:-0}" '
	/^Samples:/ { mode = "s"; getline; next }
	/^Locations/ { mode = "l"; next }
	/^Mappings/ { mode = "" }
	mode == "s" && /^ *[-0-9 ]+:/ {
		sub(/^ +/, ""); n = split($0, f, " ")
		# "v1 v2 ...: loc loc ...": values end with a colon
		nv = 0
		for (i = 1; i <= n; i++) { v[nv++] = f[i]; if (f[i] ~ /:$/) break }
		sub(/:$/, "", v[nv - 1])
		stack = ""
		for (j = i + 1; j <= n; j++) stack = stack " " f[j]
		nsamp++; sv[nsamp] = v[col]; ss[nsamp] = stack
		next
	}
	mode == "l" && /^ +[0-9]+: / {
		id = $1; sub(/:$/, "", id)
		line = $0; sub(/^ +[0-9]+: 0x[0-9a-f]+ M=[0-9]+ /, "", line); sub(/ [^ ]*:[0-9]+ s=[0-9]+$/, "", line)
		name[id] = line
		next
	}
	# an inlined frame: the caller of the lines before it, on a line of its own
	mode == "l" && /^  +[^ ]/ {
		line = $0; sub(/^ +/, "", line); sub(/ [^ ]*:[0-9]+ s=[0-9]+$/, "", line)
		name[id] = line ";" name[id]
	}
	END {
		for (k = 1; k <= nsamp; k++) {
			n = split(ss[k], ids, " "); s = ""
			for (j = n; j >= 1; j--) s = s (j < n ? ";" : "") name[ids[j]]
			sum[s] += sv[k]
		}
		for (s in sum) if (sum[s] != 0) printf "%s %.0f\n", s, sum[s]
	}' | LC_ALL=C sort
}

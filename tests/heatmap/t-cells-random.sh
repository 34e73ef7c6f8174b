#!/usr/bin/env bash
# Seeded random samples (negative times, times on row boundaries, unsorted,
# fractional weights) binned by --cells and by an independent awk oracle working
# in integer nanoseconds, for several row counts and time ranges.
. "$(dirname "$0")/../lib.sh"

for seed in 1 2 3; do
	awk -v seed=$seed '
	function rnd() { seed = (seed * 48271) % 2147483647; return seed / 2147483647 }
	BEGIN {
		print "# flamekit samples v1"
		for (i = 0; i < 3000; i++) {
			sec = int(rnd() * 40) - 20
			r = rnd()
			# a third on exact 1/1000 boundaries, the rest anywhere
			ns = r < 0.33 ? int(rnd() * 1000) * 1000000 : int(rnd() * 1000000000)
			t = (sec < 0 && ns > 0) ? sprintf("-%d.%09d", -sec - 1, 1000000000 - ns) : sprintf("%d.%09d", sec, ns)
			if (sec < 0 && ns == 0) t = sprintf("%d.000000000", sec)
			w = rnd() < 0.1 ? 0.5 : int(rnd() * 3) + 1
			printf "%s\t1\t%d\t0\tc%d\t%s\tc%d;f%d;g%d\n", t, i % 5, i % 3, w, i % 3, int(rnd() * 4), int(rnd() * 6)
		}
	}' > "$TMP/in.samples"

	for rows in 1 7 50 60 1000; do
		for range in "" "--start -7.31 --end 12.5" "--start 3"; do
			# shellcheck disable=SC2086
			"$FLAMEKIT" heatmap --cells --rows $rows $range "$TMP/in.samples" > "$TMP/got" ||
				fail "heatmap seed $seed rows $rows $range"
			lo=$(echo "$range" | awk '{for (i = 1; i < NF; i++) if ($i == "--start") print $(i + 1)}')
			hi=$(echo "$range" | awk '{for (i = 1; i < NF; i++) if ($i == "--end") print $(i + 1)}')
			awk -F'\t' -v rows=$rows -v lo="$lo" -v hi="$hi" '
			function ns_of(t,   neg, p) {   # exact: seconds and 9 fraction digits
				neg = substr(t, 1, 1) == "-"; if (neg) t = substr(t, 2)
				split(t, p, ".")
				v = p[1] * 1000000000 + substr(p[2] "000000000", 1, 9)
				return neg ? -v : v
			}
			function fdiv(a, b,   q) { q = int(a / b); if (q * b > a) q--; return q }
			/^#/ { next }
			{ t = ns_of($1); n++; T[n] = t; W[n] = $6; if (n == 1 || t < min) min = t }
			END {
				base = fdiv(min, 1000000000) * 1000000000
				for (i = 1; i <= n; i++) {
					rel = T[i] - base
					if (lo != "" && rel < ns_of(lo)) continue
					if (hi != "" && rel >= ns_of(hi)) continue
					s = fdiv(rel, 1000000000); off = rel - s * 1000000000
					c[s "\t" int(off * rows / 1000000000)] += W[i]
				}
				for (k in c) print k "\t" c[k]
			}' "$TMP/in.samples" | sort -t '	' -k1,1n -k2,2n > "$TMP/want"
			assert_files_eq "$TMP/want" "$TMP/got"
		done
	done
done
echo ok

#!/usr/bin/env bash
# --colors python (inferno's python palette) on frames named as flame --python names
# them: the program's functions red, the standard library (a pythonX.Y path component,
# <frozen ...>) yellow, installed packages (site-packages, dist-packages) aqua, native
# frames as hot; with --hash and without.
. "$(dirname "$0")/../lib.sh"
FR="python3 $FK_TOP/tests/svg/fkframes.py"
cat > "$TMP/p.folded" <<'EOF2'
main;<module> (/app/run.py);App.go (/app/app.py);JSONDecoder.decode (/usr/lib/python3.11/json/decoder.py) 1
main;<module> (/app/run.py);load (/usr/lib/python3/dist-packages/yaml/__init__.py) 1
main;<module> (/app/run.py);get (/home/u/.venv/lib/python3.11/site-packages/requests/api.py) 1
main;<module> (/app/run.py);_find_and_load (<frozen importlib._bootstrap>) 1
main;<module> (/app/run.py);[waiting for GIL] 1
main;<module> (/app/run.py);x (/opt/python3x/y.py) 1
EOF2
for h in "" --hash; do
	"$FLAMEKIT" svg $h --colors python --minwidth 0 "$TMP/p.folded" -o "$TMP/p.svg" || fail "render"
	$FR "$TMP/p.svg" --rgb > "$TMP/p.tsv"
	kind() { # NAME -> red yellow aqua hot
		awk -F'\t' -v n="$1" '$7 == n {print $5; exit}' "$TMP/p.tsv" |
			sed -E 's/rgb\(([0-9]+),([0-9]+),([0-9]+)\)/\1 \2 \3/' |
			awk '{r = $1; g = $2; b = $3
				if (r == g && b < r) print "yellow"
				else if (g == b && r < g) print "aqua"
				else if (g == b && r > g) print "red"
				else if (r >= 205 && b <= 55) print "hot"
				else print "other " r "," g "," b}'
	}
	assert_eq "program$h" red "$(kind '<module> (/app/run.py)')"
	assert_eq "method$h" red "$(kind 'App.go (/app/app.py)')"
	assert_eq "not a version$h" red "$(kind 'x (/opt/python3x/y.py)')"
	assert_eq "stdlib$h" yellow "$(kind 'JSONDecoder.decode (/usr/lib/python3.11/json/decoder.py)')"
	assert_eq "frozen$h" yellow "$(kind '_find_and_load (<frozen importlib._bootstrap>)')"
	assert_eq "dist-packages$h" aqua "$(kind 'load (/usr/lib/python3/dist-packages/yaml/__init__.py)')"
	assert_eq "site-packages$h" aqua "$(kind 'get (/home/u/.venv/lib/python3.11/site-packages/requests/api.py)')"
	assert_eq "native$h" hot "$(kind main)"
	assert_eq "GIL wait$h" hot "$(kind '[waiting for GIL]')"
done
echo PASS

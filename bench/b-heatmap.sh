#!/usr/bin/env bash
# b-heatmap.sh - heat map at the scale of 1 hour at 99 Hz on 16 CPUs (5.7M
# samples): build time as a ratio to `wc -l` of the same file, HTML size, and
# page load / first range flame graph time in headless Chromium (as a ratio to
# loading a 17-sample page in the same browser).
# FK_BENCH_SECONDS shortens the run (default 3600 s of samples).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
FLAMEKIT=$BUILD/flamekit
SECS=${FK_BENCH_SECONDS:-3600}
W=${FK_BENCH_DIR:-$(mktemp -d /tmp/fk-bench-heatmap.XXXXXX)}
trap 'rm -rf "$W"' EXIT
mkdir -p "$W"
IN=$W/big.samples

# Deterministic input (Park-Miller generator, exact in awk's doubles): 16 CPUs
# sampled at 99 Hz; "batch" works in the first 300 ms of each second, "web" all
# the time at a varying rate, swapper fills the rest. ~4000 unique stacks
# sharing prefixes like a real call tree.
awk -v secs="$SECS" '
function rnd() { seed = (seed * 48271) % 2147483647; return seed / 2147483647 }
BEGIN {
	seed = 42
	split("batch web db", procs, " ")
	for (p = 1; p <= 3; p++) {
		base = (p - 1) * 1400
		stack[base] = procs[p] ";main;run_" procs[p]
		for (i = 1; i < 1400; i++) {
			parent = base + int(rnd() * i)
			stack[base + i] = stack[parent] ";" procs[p] "_fn_" int(rnd() * 300)
		}
	}
	idle = "swapper;secondary_startup_64;cpu_startup_entry;do_idle;cpuidle_enter_state;intel_idle"
	print "# flamekit samples v1"
	print "# time\tpid\ttid\tcpu\tcomm\tweight\tstack"
	n = secs * 99
	for (k = 0; k < n; k++) {
		t = 5000 + k / 99
		off = k % 99
		for (cpu = 0; cpu < 16; cpu++) {
			r = rnd()
			ts = t + cpu * 0.00003 + r * 0.0001
			if (off < 30 && cpu < 12 && r < 0.9) { p = 1 }
			else if (r < 0.35 + 0.25 * (int(k / 990) % 2)) { p = 2 }
			else if (r < 0.45) { p = 3 }
			else { printf "%.6f\t0\t0\t%d\tswapper\t1\t%s\n", ts, cpu, idle; continue }
			s = (p - 1) * 1400 + int(rnd() * rnd() * 1400)
			printf "%.6f\t%d\t%d\t%d\t%s\t1\t%s\n", ts, 100 + p, 1000 + p * 16 + cpu, cpu, procs[p], stack[s]
		}
	}
}' > "$IN"

secs_of() { # seconds taken by a command, best of 2 runs
	local best="" t0 t1 d
	for _ in 1 2; do
		t0=$(date +%s.%N)
		"$@" > /dev/null
		t1=$(date +%s.%N)
		d=$(echo "$t1 - $t0" | bc -l)
		if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
	done
	echo "$best"
}

lines=$(wc -l < "$IN")
bytes=$(stat -c %s "$IN")
t_wc=$(secs_of wc -l "$IN")
t_hm=$(secs_of "$FLAMEKIT" heatmap "$IN" -o "$W/big.html")
t_cells=$(secs_of "$FLAMEKIT" heatmap --cells "$IN")
t_fold=$(secs_of "$FLAMEKIT" collapse "$IN")
html=$(stat -c %s "$W/big.html")
rss=$( { /usr/bin/time -f %M "$FLAMEKIT" heatmap "$IN" -o "$W/big2.html"; } 2>&1 | tail -1)
cmp -s "$W/big.html" "$W/big2.html" || { echo "b-heatmap: two builds differ" >&2; exit 1; }

printf 'heatmap: input %d samples, %.0f MB (samples format, %d s x 99 Hz x 16 CPUs)\n' \
	$((lines - 2)) "$(echo "$bytes / 1048576" | bc -l)" "$SECS"
printf 'heatmap: build %.2f s = %.1f x `wc -l` (%.3f s); --cells %.1f x wc; peak RSS %d MB\n' \
	"$t_hm" "$(echo "$t_hm / $t_wc" | bc -l)" "$t_wc" "$(echo "$t_cells / $t_wc" | bc -l)" $((rss / 1024))
printf 'heatmap: build = %.2f x `flamekit collapse` of the same file (%.2f s: parsing without keeping samples)\n' \
	"$(echo "$t_hm / $t_fold" | bc -l)" "$t_fold"
printf 'heatmap: HTML %.1f MB = %.2f bytes/sample = %.3f x input size\n' \
	"$(echo "$html / 1048576" | bc -l)" "$(echo "$html / ($lines - 2)" | bc -l)" "$(echo "$html / $bytes" | bc -l)"

if command -v node > /dev/null && [ -x /usr/bin/chromium ] && [ -d tests/browser/node_modules/playwright-core ]; then
	"$FLAMEKIT" heatmap tests/heatmap/data/exact.samples -o "$W/small.html"
	cat > "$W/load.js" <<'JS'
const { chromium } = require(process.argv[2] + '/tests/browser/node_modules/playwright-core');
const fs = require('fs');
(async () => {
  const ud = fs.mkdtempSync('/tmp/fk-bench-chromium-');
  const ctx = await chromium.launchPersistentContext(ud, { executablePath: '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 820 } });
  async function load(file) { // best of 3: navigation start to the page's data-ready mark
    let best = Infinity, page;
    for (let i = 0; i < 3; i++) {
      if (page) await page.close();
      page = await ctx.newPage();
      const t0 = Date.now();
      await page.goto('file://' + file);
      await page.waitForSelector('body[data-ready]', { timeout: 600000 });
      best = Math.min(best, Date.now() - t0);
    }
    return [best, page];
  }
  async function select(page, hash) { // time for our hashchange handler to draw the flame graph
    return page.evaluate((h) => new Promise((res) => {
      const t = performance.now();
      window.addEventListener('hashchange', () => res(performance.now() - t), { once: true });
      location.hash = h;
    }), hash);
  }
  const [ts] = await load(process.argv[3]);
  const [tb, page] = await load(process.argv[4]);
  const n = await page.evaluate(() => { const d = JSON.parse(document.getElementById('fkdata').textContent); return [d.first, d.nsecs, d.rows]; });
  const last = n[0] + n[1] - 1, mid = n[0] + Math.floor(n[1] / 2);
  const tAll = await select(page, '#a=' + n[0] + '.0-' + last + '.' + (n[2] - 1));
  const tMin = await select(page, '#a=' + mid + '.0-' + Math.min(last, mid + 59) + '.' + (n[2] - 1));
  const tDiff = await select(page, '#a=' + mid + '.0-' + Math.min(last, mid + 59) + '.' + (n[2] - 1) + '&b=' + n[0] + '.0-' + n[0] + '.9');
  const frames = await page.$$eval('#fg g.f', (g) => g.length);
  console.log('heatmap: page load ' + tb + ' ms = ' + (tb / ts).toFixed(1) + ' x a 17-sample page (' + ts + ' ms)');
  console.log('heatmap: flame graph of the whole range ' + tAll.toFixed(0) + ' ms, of 60 s ' + tMin.toFixed(0) +
    ' ms, differential ' + tDiff.toFixed(0) + ' ms (' + frames + ' frames drawn)');
  await ctx.close();
  fs.rmSync(ud, { recursive: true, force: true });
})().catch((e) => { console.error(e); process.exit(1); });
JS
	node "$W/load.js" "$PWD" "$W/small.html" "$W/big.html"
else
	echo "heatmap: page load not measured (needs node, /usr/bin/chromium, tests/browser/node_modules)"
fi

// browser.js - drives a heat map page in headless Chromium with real mouse events.
// usage: node browser.js exact PAGE.html [SHOT.png]
//        node browser.js band PAGE.html CELLS.tsv [SHOT.png]
// Prints "ok" and exits 0, or prints what failed and exits 1.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require(path.join(__dirname, '../browser/node_modules/playwright-core'));

const [mode, page_path] = process.argv.slice(2, 4);
let failures = 0;
function check(cond, what) {
  if (!cond) { console.log('FAIL: ' + what); failures++; }
}

async function open(ctx, url, errors) {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
  await page.goto(url);
  await page.waitForSelector('body[data-ready]', { timeout: 20000 });
  return page;
}

// Client coordinates of the middle of cell (second index, row).
async function geometry(page) {
  return page.$eval('#hmwrap', (e) => {
    const b = e.getBoundingClientRect();
    return { x: b.left, y: b.top, cw: +e.dataset.cw, ch: +e.dataset.ch, x0: +e.dataset.x0 };
  });
}
// location.hash from the page itself (page.url() learns of replaceState late)
function hash(page) { return page.evaluate(() => location.hash); }
function at(g, s, r) { return [g.x + g.x0 + s * g.cw + g.cw / 2, g.y + r * g.ch + g.ch / 2]; }
async function drag(page, g, a, b) {
  await page.mouse.move(...at(g, a[0], a[1]));
  await page.mouse.down();
  await page.mouse.move(...at(g, b[0], b[1]), { steps: 5 });
  await page.mouse.up();
}
async function click(page, g, c) {
  await page.mouse.click(...at(g, c[0], c[1]));
}
// Frames of the range flame graph (the viewer of `flamekit html`): every frame with a
// non-zero width, its counts (diff: total = range B, before = range A, as the page's
// fkheatmap.counts gives them; the width is the larger) and the colour it is drawn in.
async function frames(page) {
  return page.evaluate(() => {
    const V = flamekit.viewer, t = V.tree, out = [];
    if (document.getElementById('fg').hidden) return out;
    let maxd = 1;
    if (t.cols > 1) for (let i = 0; i < t.n; i++) maxd = Math.max(maxd, Math.abs(t.self1[i] - t.self0[i]));
    // the widths drawn: the viewer's shape (t.wid: a differential graph's, here both sides'
    // larger at first) or the totals
    const W = t.wid || t.tot;
    for (let i = 0; i < t.n; i++) {
      if (!(W[i] > 0)) continue;
      const ab = t.cols > 1 ? fkheatmap.counts(i) : null;
      out.push({ name: i ? V.names[t.name[i]] : 'all', total: ab ? ab.b : t.tot[i], before: ab ? ab.a : null,
        fill: V.frameColor(t, i, maxd), path: V.pathOf(i).join(';') });
    }
    return out;
  });
}
function names(fr) { return fr.map((f) => f.name); }
function count(fr, name) {
  const f = fr.find((x) => x.name === name);
  return f ? f.total : -1;
}

async function exact(ctx, url, errors) {
  const page = await open(ctx, url, errors);
  let g = await geometry(page);
  check(await page.evaluate(() => window.pwned) === undefined, 'a name ran script on load');

  // the drawing follows the data: the fullest cell (1, 49: 2.5) is the darkest
  // colour of the scale, an empty cell is grey, a highlighted comm's cell blue
  const px = (sec, row) => page.$eval('#hmwrap canvas', (cv, a) => {
    const d = cv.getContext('2d').getImageData(a[0] * a[2] + 1, a[1] * a[3] + 1, 1, 1).data;
    return [d[0], d[1], d[2]];
  }, [sec, row, g.cw, g.ch]);
  check(JSON.stringify(await px(1, 49)) === '[128,0,38]', 'fullest cell colour ' + await px(1, 49));
  check(JSON.stringify(await px(0, 30)) === '[244,244,244]', 'empty cell colour ' + await px(0, 30));
  const w10 = await px(0, 10);
  check(w10[2] > w10[0], 'worker cell (highlighted) should be blue: ' + w10);

  // hover: the cell at 0.200 s holds 2 samples
  await page.mouse.move(...at(g, 0, 10));
  const tip = await page.textContent('#tip');
  check(/0\.200s \u2013 0\.220s/.test(tip) && /: 2 samples/.test(tip), 'tooltip: ' + tip);

  // range A by dragging: second 0, rows 0-9 = early_a x2, early_b, busy
  await drag(page, g, [0, 0], [0, 9]);
  let fr = await frames(page);
  let nm = names(fr);
  check((await hash(page)) === '#a=0.0-0.9', 'hash after first range: ' + await hash(page));
  check(count(fr, 'all') === 4, 'range A total: ' + count(fr, 'all'));
  check(count(fr, 'early_a') === 2 && count(fr, 'early_b') === 1 && count(fr, 'busy') === 1,
    'range A frames: ' + nm.join(','));
  for (const other of ['middle', 'late', 'swapper', 'intel_idle', 'bad\ufffdbyte'])
    check(!nm.includes(other), 'range A shows a frame from outside it: ' + other);
  check(/^Range A: 0\.000s \u2013 0\.200s/.test(await page.textContent('#fgtitle')), 'A title');
  // each frame is drawn in the colour `flamekit svg` gives its name (t-colors.sh
  // compares the page's table with the SVG)
  const table = await page.evaluate(() => {
    const d = JSON.parse(document.getElementById('fkdata').textContent), m = {};
    d.names.forEach((n, i) => { m[n] = '#' + d.colors.slice(6 * i, 6 * i + 6); });
    m.all = '#' + d.colors.slice(6 * d.names.length);
    return m;
  });
  for (let i = 0; i < fr.length; i++)
    check(fr[i].fill === table[nm[i]], 'colour of ' + nm[i] + ': ' + fr[i].fill + ' vs ' + table[nm[i]]);
  check(await page.$eval('#fg canvas', (c) => c.width > 100 && c.height > 40), 'range graph drawn on a canvas');

  // range B by click start, click end: second 3 -> differential, shaped by B
  await click(page, g, [3, 0]);
  check((await frames(page)).length === fr.length, 'first click alone must not change the graph');
  await click(page, g, [3, 49]);
  check((await hash(page)) === '#a=0.0-0.9&b=3.0-3.49', 'hash after second range: ' + await hash(page));
  check(/^Differential/.test(await page.textContent('#fgtitle')), 'differential title');
  fr = await frames(page);
  nm = names(fr);
  // both sides drawn: B's frames and those found only in A (app;main;early_a...)
  check(JSON.stringify(nm.slice().sort()) === JSON.stringify(['all', 'app', 'busy', 'early_a', 'early_b', 'intel_idle',
    'late', 'loop', 'main', 'worker']), 'differential frames: ' + nm.join(','));
  const w = fr.find((f) => f.name === 'worker'), late = fr.find((f) => f.name === 'late');
  check(w && w.before === 1 && w.total === 3, 'worker diff counts: ' + JSON.stringify(w));
  check(late && /^rgb\(255,/.test(late.fill) && late.fill !== 'rgb(255,255,255)', 'late (only in B) should be red: ' + JSON.stringify(late));

  // zoom (a real click on the drawn frame) and search, with the viewer's own controls
  const loop = fr.find((f) => f.name === 'loop');
  check(await page.evaluate((p) => flamekit.zoom(p), loop.path), 'zoom to loop');
  // (the viewer writes its keys a moment after a change)
  const zh = await page.waitForFunction(() => /&z=/.test(location.hash), null, { timeout: 5000 }).then(() => true, () => false);
  check(zh && /^#a=0\.0-0\.9&b=3\.0-3\.49&/.test(await hash(page)), 'zoom in hash: ' + await hash(page));
  check(!(await page.isDisabled('text=Reset zoom')), 'reset zoom enabled');
  await page.fill('.fkbar input[type=search]', '^la');
  await page.waitForFunction(() => /Matched/.test(document.querySelector('.fkmatched').textContent));
  // (each range's share, as in any differential page: late's 0 of A, 2 of B's 3)
  check(/Matched: before 0\.00%, after 66\.67% of all \(before 0, after 2 /.test(await page.textContent('.fkmatched')), 'matched: ' + await page.textContent('.fkmatched'));
  const magenta = (await frames(page)).filter((f) => f.fill === 'rgb(230,0,230)').map((f) => f.name);
  check(JSON.stringify(magenta) === '["late"]', 'search highlight: ' + magenta);
  await page.fill('.fkbar input[type=search]', '');
  await page.waitForFunction(() => flamekit.view.search === '');
  await page.click('text=Reset zoom');
  check((await page.evaluate(() => flamekit.view.zoom)).length === 0, 'reset zoom');

  // a third range starts over as A: the hostile names are shown as text, run nothing
  await drag(page, g, [2, 12], [2, 14]);
  fr = await frames(page);
  nm = names(fr);
  for (const n of ['</script><script>window.pwned=1</script>', '<img src=x onerror="window.pwned=2">',
    'a&b "q" \'s\' \\ u2028:\u2028:end', 'bad\ufffdbyte'])
    check(nm.includes(n), 'name shown as text: ' + JSON.stringify(n) + ' in ' + JSON.stringify(nm));
  check(!/&b=/.test(await hash(page)), 'third range resets B: ' + await hash(page));
  const dom = await page.evaluate(() => ({
    pwned: window.pwned, img: document.querySelectorAll('img').length,
    scripts: document.querySelectorAll('script').length,
  }));
  check(dom.pwned === undefined && dom.img === 0 && dom.scripts === 2, 'injection: ' + JSON.stringify(dom));
  // the functions table shows them as text
  await page.evaluate(() => flamekit.setView('table'));
  const cellsText = await page.$$eval('#fg .fktable td.fn', (ts) => ts.map((t) => t.textContent));
  check(cellsText.includes('<img src=x onerror="window.pwned=2">'), 'table cells: ' + JSON.stringify(cellsText));
  await page.evaluate(() => flamekit.setView('flame'));
  await page.close();

  // the URL alone restores both ranges
  const p2 = await open(ctx, url + '#a=0.0-0.9&b=3.0-3.49', errors);
  check(/^Differential/.test(await p2.textContent('#fgtitle')), 'hash restore: differential');
  check(/Range A: 0\.000s \u2013 0\.200s \(4 samples\)/.test(await p2.textContent('#sel')), 'hash restore: A ' + await p2.textContent('#sel'));
  check(count(await frames(p2), 'late') === 2, 'hash restore: B frames');
  // "Whole profile" selects every cell: all timed samples (the --cells sum)
  await p2.click('#selall');
  check(count(await frames(p2), 'all') === 18.5 && (await hash(p2)) === '#a=0.0-3.49', 'whole profile: ' +
    count(await frames(p2), 'all') + ' ' + await hash(p2));
  // the clear button empties everything
  await p2.click('#clear');
  check((await frames(p2)).length === 0 && !(await hash(p2)).includes('a='), 'clear');
  // rank scale redraws without errors
  await p2.selectOption('#scale', 'rank');
  return p2;
}

async function band(ctx, url, errors) {
  // Independent expectation: the --cells TSV of the same input.
  const cells = fs.readFileSync(process.argv[4], 'utf8').trim().split('\n').map((l) => l.split('\t').map(Number));
  const first = cells[0][0];
  const sec = first + 1;
  const want = cells.filter((c) => c[0] === sec && c[1] <= 9).reduce((t, c) => t + c[2], 0);
  const page = await open(ctx, url, errors);
  const g = await geometry(page);
  await drag(page, g, [sec - first, 0], [sec - first, 9]);
  let fr = await frames(page);
  check(want > 0 && count(fr, 'all') === want, 'band range total ' + count(fr, 'all') + ' != cells ' + want);
  check(names(fr).includes('band_spin_inner'), 'band frames: ' + names(fr).join(','));
  check(names(fr).every((n) => n !== 'main'), 'only the worker runs in the band');
  // a range over several seconds, by click start / click end: its total equals
  // the TSV cells in that time span (second 0 row 5 .. second 2 row 3)
  await drag(page, g, [0, 0], [0, 1]); // B: resets to a fresh A on the next range
  await click(page, g, [0, 5]);
  await click(page, g, [2, 3]);
  const span = cells.filter((c) => {
    const k = (c[0] - first) * 50 + c[1];
    return k >= 5 && k <= 2 * 50 + 3;
  }).reduce((t, c) => t + c[2], 0);
  fr = await frames(page);
  check(/^Range A: 0\.100s \u2013 2\.080s/.test(await page.textContent('#fgtitle')), 'multi-second title: ' + await page.textContent('#fgtitle'));
  check(count(fr, 'all') === span, 'multi-second range total ' + count(fr, 'all') + ' != cells ' + span);

  // the cold part of the same second: no samples at all
  await drag(page, g, [sec - first, 15], [sec - first, 45]);
  await drag(page, g, [sec - first, 15], [sec - first, 45]);
  check(/no samples in this range/.test(await page.textContent('#fgtitle')), 'cold range: ' + await page.textContent('#fgtitle'));
  return page;
}

(async () => {
  const ud = fs.mkdtempSync(path.join(os.tmpdir(), 'fk-chromium-'));
  const ctx = await chromium.launchPersistentContext(ud, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 820 },
  });
  const errors = [], requests = [];
  // The page must be self-contained: record (and refuse) anything but the file itself.
  await ctx.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith('file://')) return route.continue();
    requests.push(u);
    return route.abort();
  });
  try {
    const url = 'file://' + path.resolve(page_path);
    const page = mode === 'band' ? await band(ctx, url, errors) : await exact(ctx, url, errors);
    const shot = mode === 'band' ? process.argv[5] : process.argv[4];
    if (shot) await page.screenshot({ path: shot, fullPage: true });
  } finally {
    await ctx.close();
    fs.rmSync(ud, { recursive: true, force: true });
  }
  check(errors.length === 0, 'page errors: ' + errors.join(' | '));
  check(requests.length === 0, 'network requests: ' + requests.join(' '));
  if (failures) process.exit(1);
  console.log('ok');
})().catch((e) => { console.log('FAIL: ' + (e && e.stack || e)); process.exit(1); });

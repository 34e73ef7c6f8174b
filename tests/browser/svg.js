// svg.js - drives a flamekit flame graph SVG in headless Chromium with real
// mouse and keyboard events: hover details, click-to-zoom (ancestors kept,
// labels re-truncated), regex search with "Matched" (no double counting of
// nested frames), case toggle, Escape, reset, URL state, script injection.
// usage: node svg.js main GRAPH.svg [SHOT.png]     (tests/svg/data/browser.folded)
//        node svg.js diff|difftotal GRAPH.svg       (tests/svg/data/diff.folded, --diff self|total)
//        node svg.js labels GRAPH.svg               (script labels = static labels)
// Prints "ok" and exits 0, or prints what failed and exits 1.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { chromium } = require(path.join(__dirname, 'node_modules/playwright-core'));

const [mode, svgPath, shot] = process.argv.slice(2);
let failures = 0;
function check(cond, what) {
  if (!cond) { console.log('FAIL: ' + what); failures++; }
}

async function open(ctx, url, st) {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => st.errors.push('pageerror: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') st.errors.push('console: ' + m.text()); });
  // Any dialog other than our own search prompt is a script that must not run.
  page.on('dialog', async (d) => {
    if (d.type() === 'prompt' && st.answer !== undefined) {
      const a = st.answer;
      st.answer = undefined;
      st.prompts++;
      await d.accept(a);
    } else {
      st.dialogs.push(d.type() + ': ' + d.message());
      await d.dismiss();
    }
  });
  await page.goto(url);
  await page.waitForSelector('#frames rect');
  return page;
}

// Frames as the page holds them: name, depth, attributes of its rect.
function frames(page) {
  return page.evaluate(() => {
    const rs = document.getElementById('frames').getElementsByTagName('rect');
    const out = [];
    for (let i = 0; i < rs.length; i++) {
      const r = rs[i];
      out.push({
        i, name: i ? fkN[fkF[i * fkC.S]] : 'all', depth: fkF[i * fkC.S + 1],
        x: parseFloat(r.getAttribute('x')), w: parseFloat(r.getAttribute('width')),
        fill: r.getAttribute('fill'), hidden: getComputedStyle(r).display === 'none',
        anc: r.classList.contains('anc'),
      });
    }
    return out;
  });
}
function find(fr, name, depth) {
  return fr.find((f) => f.name === name && (depth === undefined || f.depth === depth));
}
// Middle of a frame's rect in page coordinates.
async function centre(page, i) {
  return page.evaluate((k) => {
    const b = document.getElementById('frames').getElementsByTagName('rect')[k].getBoundingClientRect();
    return [b.left + b.width / 2, b.top + b.height / 2];
  }, i);
}
const text = (page, id) => page.evaluate((k) => document.getElementById(k).textContent, id);
const search = (page) => page.evaluate(() => location.search);
const labels = (page) => page.$$eval('#labels text', (ts) => ts.map((t) => t.textContent));

async function main(ctx, url, st) {
  let page = await open(ctx, url, st);
  check(await page.evaluate(() => window.pwned) === undefined, 'a frame name ran script on load');
  let fr = await frames(page);
  const total = fr[0].w;
  check(fr.length >= 8 && Math.abs(total - 1180) < 0.05, 'root spans the width: ' + total);

  // hover: details show name, count and percent
  const a = find(fr, 'a', 2);
  check(a, 'frame a at depth 2');
  await page.mouse.move(...await centre(page, a.i));
  let det = await text(page, 'details');
  check(det === 'Function: a (18 samples, 44.17%)', 'hover details: ' + det);
  const c = find(fr, 'c');
  await page.mouse.move(...await centre(page, c.i));
  det = await text(page, 'details');
  check(det === 'Function: c (10 samples, 24.54%)', 'hover details of c: ' + det);
  // fractional counts: 1.5 + 2.25 + 7 under frac, 10.75 of 40.75 (not rounded)
  const frac = find(fr, 'frac');
  await page.mouse.move(...await centre(page, frac.i));
  det = await text(page, 'details');
  check(det === 'Function: frac (10.75 samples, 26.38%)', 'fractional details: ' + det);

  // click a: zoom; a spans the width, descendants widen, ancestors kept, others hidden
  const b = find(fr, 'b', 3);
  const before = await labels(page);
  await page.mouse.click(...await centre(page, a.i));
  fr = await frames(page);
  const a2 = fr[a.i], b2 = fr[b.i];
  check(Math.abs(a2.x - 10) < 0.05 && Math.abs(a2.w - 1180) < 0.05, 'zoomed a spans the width: ' + JSON.stringify(a2));
  check(b2.w > b.w * 1.9 && !b2.hidden, 'child b widened: ' + b.w + ' -> ' + b2.w);
  const main = find(fr, 'main', 1);
  check(!fr[0].hidden && !main.hidden && fr[0].anc && main.anc && Math.abs(main.w - 1180) < 0.05,
    'ancestors kept (full width, faded): ' + JSON.stringify([fr[0], main]));
  check(find(fr, 'c').hidden && find(fr, 'frac').hidden, 'frames outside the zoom hidden');
  check(/[?&]z=\d+/.test(await search(page)), 'zoom in the URL: ' + await search(page));
  const after = await labels(page);
  const longName = 'a_very_long_function_name_that_cannot_fit_in_its_frame_at_the_default_width_' +
    'of_the_graph_unless_you_zoom_in_quite_a_lot_on_it';
  const lb = before.find((l) => l.startsWith('a_very_')), la = after.find((l) => l.startsWith('a_very_'));
  check(lb && la && lb.endsWith('..') && la.endsWith('..') && la.length > lb.length + 5 &&
    longName.startsWith(la.slice(0, -2)), 'labels re-truncated after zoom: ' + lb + ' -> ' + la);
  check(await page.evaluate(() => getComputedStyle(document.getElementById('unzoom')).opacity) === '1',
    'Reset Zoom shown');

  // search through Ctrl-F for ^a$: within the zoomed a everything matches
  st.answer = '^a$';
  await page.keyboard.press('Control+f');
  check(st.prompts === 1, 'Ctrl-F opened the search prompt');
  let m = await text(page, 'matched');
  check(m === 'Matched: 100% of the zoom', 'matched within zoomed a: ' + m);
  await page.click('#unzoom');
  fr = await frames(page);
  check(!fr.some((f) => f.hidden) && Math.abs(fr[a.i].w - a.w) < 0.15, 'reset zoom restores widths');
  m = await text(page, 'matched');
  // a = 18 of 40.75 = 44.2%; counting the nested a (a;b;a) again would give 68.7%
  check(m === 'Matched: 44.2% of all', 'matched without double counting: ' + m);
  const magenta = fr.filter((f) => f.fill === 'rgb(230,0,230)').map((f) => f.name + '@' + f.depth);
  check(magenta.join(',') === 'a@2,a@4', 'highlighted: ' + magenta);
  check(/s=%5Ea%24/.test(await search(page)) && !/z=/.test(await search(page)), 'search in the URL: ' + await search(page));

  // case-insensitive toggle (Ctrl-I): ^A$ matches a only when ignoring case
  st.answer = '^A$';
  await page.keyboard.press('F3');
  check(st.prompts === 2, 'F3 opened the search prompt');
  m = await text(page, 'matched');
  check(m === 'Matched: 0.0% of all', 'case-sensitive ^A$: ' + m);
  await page.keyboard.press('Control+i');
  m = await text(page, 'matched');
  check(m === 'Matched: 44.2% of all', 'case-insensitive ^A$: ' + m);
  check(/i=1/.test(await search(page)), 'ignore-case in the URL');

  // zoom into b then reload: the URL restores zoom, search and case
  await page.mouse.click(...await centre(page, b.i));
  const url2 = await page.evaluate(() => location.href);
  check(/z=\d+/.test(url2) && /s=/.test(url2) && /i=1/.test(url2), 'state URL: ' + url2);
  await page.close();
  page = await open(ctx, url2, st);
  fr = await frames(page);
  check(Math.abs(fr[b.i].w - 1180) < 0.05 && find(fr, 'c').hidden, 'reload keeps the zoom');
  m = await text(page, 'matched');
  check(m === 'Matched: 100% of the zoom', 'reload keeps the search (b is inside a): ' + m);
  check(fr.filter((f) => f.fill === 'rgb(230,0,230)').length === 2, 'reload keeps the highlight');

  // Escape: clears the search, then resets the zoom
  await page.keyboard.press('Escape');
  check((await text(page, 'matched')).trim() === '' && !/s=/.test(await search(page)), 'Escape clears the search');
  await page.keyboard.press('Escape');
  fr = await frames(page);
  check(!fr.some((f) => f.hidden) && !/z=/.test(await search(page)), 'second Escape resets the zoom');

  // an invalid regex is reported, nothing breaks
  st.answer = '(';
  await page.keyboard.press('Control+f');
  check(/Invalid regex/.test(await text(page, 'matched')), 'invalid regex reported');

  // hostile name: shown as text in label and details, runs nothing
  fr = await frames(page);
  const evil = fr.find((f) => f.name.indexOf('<script>') >= 0);
  check(evil && evil.name === '"><script>window.pwned=1,alert(1)</script>', 'hostile name kept as data: ' + (evil && evil.name));
  await page.mouse.move(...await centre(page, evil.i));
  det = await text(page, 'details');
  check(det.startsWith('Function: "><script>window.pwned=1,alert(1)</script> ('), 'hostile details as text: ' + det);
  await page.mouse.click(...await centre(page, evil.i));
  check((await labels(page)).some((l) => l.startsWith('"><script>')), 'hostile label as text');
  const dom = await page.evaluate(() => ({
    pwned: window.pwned, scripts: document.getElementsByTagName('script').length,
    imgs: document.getElementsByTagName('img').length,
  }));
  check(dom.pwned === undefined && dom.scripts === 1 && dom.imgs === 0, 'injection: ' + JSON.stringify(dom));
  await page.click('#unzoom');
  await page.keyboard.press('Escape');
  if (shot) {
    await page.mouse.move(...await centre(page, a.i));
    await page.screenshot({ path: shot });
  }
  await page.close();
}

// Differential: widths from the second column; self mode colours a frame by
// its own delta (x grew, shrank shrank, grew itself has no self delta: white),
// total mode by the delta of everything under it (grew is red too).
async function diff(ctx, url, st, total) {
  const page = await open(ctx, url, st);
  const fr = await frames(page);
  const grew = find(fr, 'grew'), x = find(fr, 'x'), shrank = find(fr, 'shrank'), same = find(fr, 'same');
  const red = (f) => f && /^#ff/.test(f.fill) && f.fill !== '#ffffff';
  const blue = (f) => f && /ff$/.test(f.fill) && f.fill.slice(1, 3) === f.fill.slice(3, 5) && f.fill !== '#ffffff';
  check(red(x), 'x grew: red: ' + (x && x.fill));
  check(blue(shrank), 'shrank: blue: ' + (shrank && shrank.fill));
  check(same && same.fill === '#ffffff', 'unchanged: white: ' + (same && same.fill));
  check(total ? red(grew) : grew && grew.fill === '#ffffff', 'grew (no self delta): ' + (grew && grew.fill));
  check(Math.abs(grew.w / shrank.w - 6) < 0.1, 'widths follow the second column');
  await page.mouse.move(...await centre(page, x.i));
  let det = await text(page, 'details');
  check(det === 'Function: x (before 10, after 30 samples, change +20, +200.00%)', 'diff details: ' + det);
  await page.mouse.move(...await centre(page, shrank.i));
  det = await text(page, 'details');
  check(det === 'Function: shrank (before 20, after 5 samples, change -15, -75.00%)', 'diff details: ' + det);
  await page.close();
}

// The script's labels (built after a zoom) follow the same truncation rule as
// the static ones written by the C renderer: zoom in and out, compare.
async function labelsSame(ctx, url, st) {
  const page = await open(ctx, url, st);
  const before = await labels(page);
  const fr = await frames(page);
  await page.mouse.click(...await centre(page, fr[fr.length - 1].i));
  const zoomed = await labels(page);
  await page.click('#unzoom');
  const after = await labels(page);
  check(zoomed.join('|') !== before.join('|'), 'zoom changed the labels');
  check(after.join('|') === before.join('|'), 'script labels differ from static ones:\n  ' +
    before.join('|') + '\n  ' + after.join('|'));
  await page.close();
}

(async () => {
  const ud = fs.mkdtempSync(path.join(os.tmpdir(), 'fk-chromium-'));
  const ctx = await chromium.launchPersistentContext(ud, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1220, height: 400 },
  });
  const st = { errors: [], dialogs: [], requests: [], prompts: 0, answer: undefined };
  // Self-contained: anything but the file itself is recorded and refused.
  await ctx.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith('file://')) return route.continue();
    st.requests.push(u);
    return route.abort();
  });
  const url = 'file://' + path.resolve(svgPath);
  try {
    if (mode === 'main') await main(ctx, url, st);
    else if (mode === 'diff') await diff(ctx, url, st, false);
    else if (mode === 'difftotal') await diff(ctx, url, st, true);
    else if (mode === 'labels') await labelsSame(ctx, url, st);
    else throw new Error('unknown mode ' + mode);
  } catch (e) {
    check(false, 'exception: ' + (e && e.stack || e));
  }
  check(st.errors.length === 0, 'page errors: ' + st.errors.join(' | '));
  check(st.dialogs.length === 0, 'unexpected dialogs (script ran?): ' + st.dialogs.join(' | '));
  check(st.requests.length === 0, 'network requests: ' + st.requests.join(' '));
  await ctx.close();
  fs.rmSync(ud, { recursive: true, force: true });
  if (failures) process.exit(1);
  console.log('ok');
})();

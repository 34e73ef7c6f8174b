// diff-shape.js - a differential flame graph drawn with --diff-shape as a person sees it in
// headless Chromium (windows of 800x600 and 1920x1080, device pixel ratios 1 and 2): every
// function of EXPECT.json (written by diff-shape.py from the folded input) is on the page at
// its place and width, painted in its colour (read back from a screenshot, labels hidden),
// its <title> gives both counts and the change, and hovering it with the mouse shows the
// same text on the details line, on screen; labels on deep blue are white (a zoom's too).
// usage: node diff-shape.js GRAPH.svg EXPECT.json [SHOTDIR]
// Prints "ok" and exits 0, or prints what failed and exits 1.
'use strict';
const fs = require('fs');
const path = require('path');
const { launch } = require(path.join(__dirname, '../browser/chromium'));

const [svgPath, expectPath, shotDir] = process.argv.slice(2);
const expect = JSON.parse(fs.readFileSync(expectPath, 'utf8'));
let failures = 0;
function check(cond, what) {
  if (!cond) { console.log('FAIL: ' + what); failures++; }
}

// The frame of a path (its name at its depth; names in EXPECT are unique), scrolled into
// view: its box in page coordinates and its title.
function frameOf(page, want) {
  return page.evaluate((want) => {
    const rs = document.getElementById('frames').getElementsByTagName('rect');
    for (let i = 1; i < rs.length; i++) {
      if (fkN[fkF[i * fkC.S]] !== want.name || fkF[i * fkC.S + 1] !== want.depth) continue;
      rs[i].scrollIntoView({ block: 'center', inline: 'center' });
      const b = rs[i].getBoundingClientRect(), t = rs[i].querySelector('title');
      return { left: b.left, top: b.top, width: b.width, height: b.height, sx: scrollX,
        title: t && t.textContent };
    }
    return null;
  }, want);
}
// Texts on screen that say s (wholly inside the window, not hidden).
function onScreen(page, s) {
  return page.evaluate((s) => {
    let n = 0;
    for (const t of document.getElementsByTagName('text')) {
      if (t.textContent !== s) continue;
      const b = t.getBoundingClientRect();
      let hidden = false;
      for (let e = t; e && e.nodeType === 1; e = e.parentNode) if (getComputedStyle(e).display === 'none') hidden = true;
      if (!hidden && b.width > 0 && b.top >= 0 && b.bottom <= innerHeight && b.left >= 0 && b.right <= innerWidth) n++;
    }
    return n;
  }, s);
}
// The colour painted at (x, y) of the window, from a screenshot decoded by a canvas.
async function pixel(page, decoder, x, y, dpr) {
  const png = await page.screenshot({ clip: { x: Math.floor(x), y: Math.floor(y), width: 1, height: 1 } });
  return decoder.evaluate(async ([b64, k]) => {
    const img = new Image();
    img.src = 'data:image/png;base64,' + b64;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(Math.floor(k / 2), Math.floor(k / 2), 1, 1).data;
    return '#' + [d[0], d[1], d[2]].map((v) => v.toString(16).padStart(2, '0')).join('');
  }, [png.toString('base64'), dpr]);
}
function near(a, b) { // colours within 2 of each other per channel
  for (let k = 1; k < 7; k += 2) if (Math.abs(parseInt(a.slice(k, k + 2), 16) - parseInt(b.slice(k, k + 2), 16)) > 2) return false;
  return true;
}

async function one(browser, w, h, dpr, url, errors) {
  const tag = w + 'x' + h + '@' + dpr;
  const ctx = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: dpr });
  await ctx.route('**/*', (r) => (r.request().url().startsWith('file://') || r.request().url().startsWith('data:') ?
    r.continue() : r.abort()));
  const page = await ctx.newPage(), decoder = await ctx.newPage();
  page.on('pageerror', (e) => errors.push(tag + ' pageerror: ' + e.message));
  await page.goto(url);
  await page.waitForSelector('#frames rect');
  for (const key of Object.keys(expect).sort()) {
    const want = expect[key];
    const f = await frameOf(page, want);
    check(f, tag + ' ' + key + ': not drawn');
    if (!f) continue;
    check(Math.abs(f.width - want.width) <= 0.11, tag + ' ' + key + ': ' + f.width + ' px wide, expected ' + want.width.toFixed(2));
    check(Math.abs(f.left + f.sx - want.x) <= 0.06, tag + ' ' + key + ': at ' + (f.left + f.sx) + ', expected ' + want.x.toFixed(2));
    check(f.title === want.title, tag + ' ' + key + ': title ' + f.title);
    // its colour as painted: labels hidden, the pointer away (no hover outline)
    await page.mouse.move(0, 0);
    await page.evaluate(() => { document.getElementById('labels').style.display = 'none'; });
    const got = await pixel(page, decoder, f.left + f.width / 2, f.top + f.height / 2, dpr);
    await page.evaluate(() => { document.getElementById('labels').style.display = ''; });
    check(near(got, want.fill), tag + ' ' + key + ': painted ' + got + ', expected ' + want.fill);
    // hover: the details line says what the title says
    const hx = Math.max(f.left, 0) + Math.min(f.width / 2, 20);
    check(hx < w, tag + ' ' + key + ': not in the window after scrolling to it');
    await page.mouse.move(hx, f.top + f.height / 2);
    const det = await page.evaluate(() => document.getElementById('details').textContent);
    check(det === 'Function: ' + want.title, tag + ' ' + key + ': details ' + det);
    check(await onScreen(page, det) >= 1, tag + ' ' + key + ': the details are not on screen');
    if (shotDir && (key === 'main;gone' || key === 'main;new' || key === 'main;same'))
      await page.screenshot({ path: path.join(shotDir, path.basename(svgPath, '.svg') + '-' + key.replace(/;/g, '-') + '-' + tag + '.png') });
  }
  // labels: white on the dark (deep blue) fills, black elsewhere; the script's labels after
  // a zoom (it writes them anew) too
  const labelFills = () => page.evaluate(() => Array.from(document.querySelectorAll('#labels text'),
    (t) => [t.textContent, getComputedStyle(t).fill]));
  const checkLabels = (got, when) => {
    for (const want of Object.values(expect)) {
      const l = got.find(([txt]) => txt === want.name);
      if (!l) continue; // too narrow for a label
      check(l[1] === (want.dark ? 'rgb(255, 255, 255)' : 'rgb(0, 0, 0)'), tag + ' ' + when + ': label ' +
        want.name + ' on ' + want.fill + ' is ' + l[1]);
    }
    check(Object.values(expect).some((x) => x.dark) === got.some(([, f]) => f === 'rgb(255, 255, 255)'),
      tag + ' ' + when + ': white labels exactly where the fills are dark');
  };
  checkLabels(await labelFills(), 'static');
  const m = await frameOf(page, { name: 'main', depth: 1 });
  await page.mouse.click(Math.max(m.left, 0) + 5, m.top + m.height / 2);
  check(await page.evaluate(() => document.getElementById('unzoom').classList.contains('show')), tag + ': no zoom');
  checkLabels(await labelFills(), 'zoomed');
  await ctx.close();
}

(async () => {
  const browser = await launch();
  const errors = [];
  try {
    for (const [w, h] of [[800, 600], [1920, 1080]])
      for (const dpr of [1, 2]) await one(browser, w, h, dpr, 'file://' + path.resolve(svgPath), errors);
  } finally {
    await browser.close();
  }
  check(errors.length === 0, 'page errors: ' + errors.join(' | '));
  check(Object.keys(expect).length >= 4, 'EXPECT names only ' + Object.keys(expect).length + ' frames');
  if (failures) process.exit(1);
  console.log('ok (' + Object.keys(expect).length + ' frames, 4 windows)');
})().catch((e) => { console.log('FAIL: ' + (e && e.stack || e)); process.exit(1); });

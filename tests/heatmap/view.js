// view.js - the heat map page as a person sees it, in headless Chromium at device pixel
// ratios 1 and 2 and windows of 800x600, 1000x700 and 1920x1080: the range graph fits its
// pane from the first paint (a range selected by dragging, or given in the URL) and after
// a resize; the dark theme is readable everywhere (text against its real background); in
// an A/B comparison a frame found only in A is drawn and its tooltip gives both counts.
// usage: node view.js PAGE.html [SHOTDIR]     (PAGE from tests/heatmap/data/exact.samples)
// Prints "ok" and exits 0, or prints what failed and exits 1.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { launch } = require(path.join(__dirname, '../browser/chromium'));

const [pagePath, shotDir] = process.argv.slice(2);
let failures = 0;
function check(cond, what) {
  if (!cond) { console.log('FAIL: ' + what); failures++; }
}
const url = 'file://' + path.resolve(pagePath);

async function open(browser, w, h, dpr, hash, errors) {
  const ctx = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: dpr });
  await ctx.route('**/*', (r) => (r.request().url().startsWith('file://') ? r.continue() : r.abort()));
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
  await page.goto(url + (hash || ''));
  await page.waitForSelector('body[data-ready]', { timeout: 20000 });
  return { ctx, page };
}
// two animation frames: what the next paint shows
function painted(page) {
  return page.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res))));
}
async function shot(page, name) {
  if (shotDir) await page.screenshot({ path: path.join(shotDir, name + '.png') });
}

// The range graph's canvas against the pane that shows it, and the root frame's right
// edge: all of it must be in the pane (a clipped graph reads 45% as 26%).
function fit(page) {
  return page.evaluate(() => {
    const c = document.querySelector('#fg .fkflame canvas'), wrap = c.parentNode, fg = document.getElementById('fg');
    const cb = c.getBoundingClientRect(), wb = wrap.getBoundingClientRect(), fb = fg.getBoundingClientRect();
    // the viewer's scroller lies over the canvas: its vertical scrollbar (when the graph is
    // taller than the pane) takes the pane's right edge, the graph the rest
    const sc = flamekit.viewer.flameGraph.scroller, bar = sc ? sc.offsetWidth - sc.clientWidth : 0;
    const L = flamekit.viewer.flameGraph.hit.L;
    let rootRight = -1;
    for (let i = 0; i < L.n; i++) if (L.ns[i] === 0) rootRight = cb.left + L.xs[i] + L.ws[i];
    return { canvas: cb.width, pane: wb.width - bar, right: cb.right, paneRight: Math.min(wb.right, fb.right) - bar,
      rootRight, pixels: c.width, dpr: devicePixelRatio };
  });
}
function checkFit(f, what) {
  check(f.rootRight > 0 && f.rootRight <= f.paneRight + 0.5, what + ': root frame ends at ' + f.rootRight +
    ', past its pane (' + f.paneRight + ')');
  check(Math.abs(f.canvas - f.pane) <= 1, what + ': canvas ' + f.canvas + ' px wide in a pane of ' + f.pane);
  check(f.rootRight >= f.paneRight - 12, what + ': root frame ends at ' + f.rootRight + ', short of ' + f.paneRight);
  check(Math.abs(f.pixels - Math.round(f.canvas * f.dpr)) <= 1, what + ': canvas has ' + f.pixels + ' pixels for ' +
    f.canvas + ' css px at ratio ' + f.dpr);
}

// WCAG contrast of every visible text of the page against the colour behind it
function contrasts(page) {
  return page.evaluate(() => {
    function rgb(s) { const m = /rgba?\(([\d.]+), ([\d.]+), ([\d.]+)(?:, ([\d.]+))?\)/.exec(s); return m ? [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]] : null; }
    function lum(c) {
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
      return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
    }
    function bg(e) {
      for (; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c && c[3] > 0.5) return c;
      }
      return [255, 255, 255, 1];
    }
    const out = [];
    const sel = 'h1, #summary, #legend span, header label, header button, header select, #hmhelp, #sel div, ' +
      '#fgtitle, #hmwrap .ylab, #hmwrap .xlab, .fkbar button, .fksub, .fkdetails';
    document.querySelectorAll(sel).forEach((e) => {
      if (!e.textContent.trim() || !e.getClientRects().length) return;
      const fg = rgb(getComputedStyle(e).color), b = bg(e);
      const l1 = lum(fg), l2 = lum(b), r = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
      out.push({ what: (e.id ? '#' + e.id : e.tagName.toLowerCase() + '.' + e.className) + ' "' +
        e.textContent.trim().slice(0, 24) + '"', ratio: r, fg: getComputedStyle(e).color, bg: b.join(',') });
    });
    return out;
  });
}

// A frame of the range graph as drawn: its screen rectangle and the colour of its pixels
function drawnFrame(page, name) {
  return page.evaluate((name) => {
    document.querySelector('#fg .fkflame canvas').scrollIntoView({ block: 'end' });
    const V = flamekit.viewer, g = V.flameGraph, h = g.hit, L = h.L, c = g.canvas, cb = c.getBoundingClientRect();
    for (let i = 0; i < L.n; i++) {
      if (L.ns[i] === 0 || V.names[L.nm[i]] !== name) continue;
      const y = h.icicle ? h.PAD + L.ds[i] * h.FH : h.H - h.PAD - (L.ds[i] + 1) * h.FH;
      const x = L.xs[i] + Math.min(L.ws[i], 2) / 2, yy = y + h.FH / 2, dpr = devicePixelRatio;
      const d = c.getContext('2d').getImageData(Math.floor(x * dpr), Math.floor(yy * dpr), 1, 1).data;
      return { x: cb.left + x, y: cb.top + yy, w: L.ws[i], rgb: [d[0], d[1], d[2]], node: L.ns[i] };
    }
    return null;
  }, name);
}

async function one(browser, w, h, dpr, errors) {
  const tag = w + 'x' + h + '@' + dpr;
  // 1. a range dragged after load (the graph's pane was hidden when the viewer was made)
  let { ctx, page } = await open(browser, w, h, dpr, '', errors);
  const g = await page.$eval('#hmwrap', (e) => {
    const b = e.getBoundingClientRect();
    return { x: b.left, y: b.top, cw: +e.dataset.cw, ch: +e.dataset.ch, x0: +e.dataset.x0 };
  });
  const at = (s, r) => [g.x + g.x0 + s * g.cw + g.cw / 2, g.y + r * g.ch + g.ch / 2];
  await page.mouse.move(...at(0, 0));
  await page.mouse.down();
  await page.mouse.move(...at(3, 49), { steps: 4 });
  await page.mouse.up();
  await painted(page);
  await shot(page, 'heatmap-drag-' + tag);
  checkFit(await fit(page), tag + ' dragged range');
  // zoom by a real click on a frame: it then fills the pane
  const loop = await drawnFrame(page, 'loop');
  check(loop, tag + ': loop not drawn');
  if (loop) {
    await page.mouse.click(loop.x, loop.y);
    await page.waitForFunction(() => flamekit.view.zoom.length > 0);
    await painted(page);
    await shot(page, 'heatmap-zoom-' + tag);
    const z = await drawnFrame(page, 'loop');
    const f = await fit(page);
    check(z && z.w >= f.pane - 12 && z.w <= f.pane, tag + ': zoomed loop is ' + (z && z.w) + ' px in a pane of ' + f.pane);
    checkFit(f, tag + ' zoomed');
    await page.keyboard.press('Escape');
    await page.evaluate(() => window.scrollTo(0, 0));
  }
  // 2. the window resized: the graph follows
  const w2 = w > 1000 ? 1000 : 1280;
  await page.setViewportSize({ width: w2, height: h });
  await page.waitForTimeout(400);
  await painted(page);
  await shot(page, 'heatmap-resized-' + tag);
  checkFit(await fit(page), tag + ' resized to ' + w2);
  // 3. the dark theme (the viewer's key d): every text readable
  await page.setViewportSize({ width: w, height: h });
  await page.mouse.move(1, 1);
  await page.keyboard.press('d');
  await page.waitForFunction(() => document.documentElement.classList.contains('fkdark'));
  await painted(page);
  await shot(page, 'heatmap-dark-' + tag);
  const cs = await contrasts(page);
  check(cs.length >= 10, tag + ' dark: too few texts measured: ' + cs.length);
  for (const c of cs) check(c.ratio >= 4.5, tag + ' dark: ' + c.what + ' contrast ' + c.ratio.toFixed(2) + ' (' + c.fg + ' on ' + c.bg + ')');
  // the empty cells of the heat map darken with the page
  const empty = await page.$eval('#hmwrap canvas', (cv, a) => {
    const d = cv.getContext('2d').getImageData(a[0] * 0 + 1, a[1] * 30 + 1, 1, 1).data;
    return d[0] + d[1] + d[2];
  }, [g.cw, g.ch]);
  check(empty < 3 * 128, tag + ' dark: empty cells still light (' + empty + ')');
  await ctx.close();

  // 4. A/B from the URL: second 0 rows 0-9 (early_a x2, early_b, busy) against second 3
  ({ ctx, page } = await open(browser, w, h, dpr, '#a=0.0-0.9&b=3.0-3.49', errors));
  await painted(page);
  checkFit(await fit(page), tag + ' A/B from the URL');
  for (const [name, a] of [['early_a', 2], ['early_b', 1], ['busy', 1]]) {
    const f = await drawnFrame(page, name);
    check(f && f.w >= 1, tag + ' A/B: ' + name + ' (only in A) is not drawn: ' + JSON.stringify(f));
    if (!f) continue;
    check(f.rgb[2] === 255 && f.rgb[0] < 255, tag + ' A/B: ' + name + ' (only in A) should be blue: ' + f.rgb);
    await page.mouse.move(f.x, f.y);
    await page.waitForSelector('.fktip:not([hidden])');
    const tip = await page.textContent('.fktip');
    check(tip.startsWith(name + ' (A: ' + a + ' samples') && /; B: 0,/.test(tip) && tip.includes('change \u2212' + a) &&
      /only in A/.test(tip), tag + ' A/B tooltip of ' + name + ': ' + tip);
  }
  const late = await drawnFrame(page, 'late');
  check(late && late.rgb[0] === 255 && late.rgb[2] < 255, tag + ' A/B: late (only in B) should be red: ' + JSON.stringify(late));
  if (late) {
    await page.mouse.move(late.x, late.y);
    await page.waitForFunction(() => /^late /.test(document.querySelector('.fktip').textContent));
    const tip = await page.textContent('.fktip');
    check(/A: 0 samples/.test(tip) && /B: 2,/.test(tip) && tip.includes('change +2'), tag + ' A/B tooltip of late: ' + tip);
  }
  await shot(page, 'heatmap-ab-' + tag);
  await ctx.close();
}

(async () => {
  const browser = await launch();
  const errors = [];
  try {
    for (const [w, h] of [[800, 600], [1000, 700], [1920, 1080]])
      for (const dpr of [1, 2]) await one(browser, w, h, dpr, errors);
  } finally {
    await browser.close();
  }
  check(errors.length === 0, 'page errors: ' + errors.join(' | '));
  if (failures) process.exit(1);
  console.log('ok');
})().catch((e) => { console.log('FAIL: ' + (e && e.stack || e)); process.exit(1); });

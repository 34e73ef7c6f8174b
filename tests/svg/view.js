// view.js - a tall flame graph SVG as a person sees it in headless Chromium (windows of
// 800x600 and 1920x1080, device pixel ratios 1 and 2): hovering a frame at the top shows
// its details on screen (the details line at the bottom of the image is far below), at the
// top of the window when the pointer is near the bottom; every frame carries a <title>
// with the same text (the tooltip that needs no script); Matched says what it is a share of.
// usage: node view.js TALL.svg [SHOTDIR]   (TALL: f0;...;f129 10 and f0;g 5, see t-view.sh)
// Prints "ok" and exits 0, or prints what failed and exits 1.
'use strict';
const path = require('path');
const { launch } = require(path.join(__dirname, '../browser/chromium'));

const [svgPath, shotDir] = process.argv.slice(2);
let failures = 0;
function check(cond, what) {
  if (!cond) { console.log('FAIL: ' + what); failures++; }
}

// The texts on screen that say `s`: any <text> whose box lies inside the window.
function onScreen(page, s) {
  return page.evaluate((s) => {
    const out = [];
    for (const t of document.getElementsByTagName('text')) {
      if (t.textContent !== s) continue;
      const b = t.getBoundingClientRect(), cs = getComputedStyle(t);
      let hidden = false;
      for (let e = t; e && e.nodeType === 1; e = e.parentNode) if (getComputedStyle(e).display === 'none') hidden = true;
      if (!hidden && cs.visibility !== 'hidden' && b.width > 0 && b.top >= 0 && b.bottom <= innerHeight &&
        b.left >= 0 && b.left < innerWidth) out.push({ id: t.id || t.parentNode.id, top: b.top, bottom: b.bottom });
    }
    return out;
  }, s);
}
function rectOf(page, name) {
  return page.evaluate((name) => {
    const rs = document.getElementById('frames').getElementsByTagName('rect');
    for (let i = 0; i < rs.length; i++) {
      if ((i ? fkN[fkF[i * fkC.S]] : 'all') !== name) continue;
      const b = rs[i].getBoundingClientRect();
      return { x: b.left + Math.min(b.width / 2, 20), y: b.top + b.height / 2, title: rs[i].querySelector('title') &&
        rs[i].querySelector('title').textContent };
    }
    return null;
  }, name);
}

async function one(browser, w, h, dpr, url, errors) {
  const tag = w + 'x' + h + '@' + dpr;
  const ctx = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: dpr });
  await ctx.route('**/*', (r) => (r.request().url().startsWith('file://') ? r.continue() : r.abort()));
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
  await page.goto(url);
  await page.waitForSelector('#frames rect');
  const H = await page.evaluate(() => document.documentElement.getBoundingClientRect().height);
  check(H > 2000, tag + ': the graph should be taller than 2000 px: ' + H);

  // the deepest frame, at the top of the image and of the window
  const top = await rectOf(page, 'f129');
  const want = 'Function: f129 (10 samples, 66.67%)';
  check(top && top.y > 0 && top.y < 100, tag + ': f129 at the top: ' + JSON.stringify(top));
  check(top && top.title === 'f129 (10 samples, 66.67%)', tag + ': <title> of f129: ' + (top && top.title));
  await page.mouse.move(top.x, top.y);
  let seen = await onScreen(page, want);
  check(seen.length >= 1, tag + ': after hovering f129 its details are not on screen');
  check(seen.every((s) => s.top > h / 2), tag + ': details should be at the bottom of the window: ' + JSON.stringify(seen));
  if (shotDir) await page.screenshot({ path: path.join(shotDir, 'svg-tall-top-' + tag + '.png') });

  // a frame near the bottom of the window: the details move to its top
  const deep = await page.evaluate((h) => {
    const rs = document.getElementById('frames').getElementsByTagName('rect');
    for (let i = 0; i < rs.length; i++) {
      const b = rs[i].getBoundingClientRect();
      if (b.top > h - 40 && b.bottom < h - 2) return { x: b.left + 20, y: b.top + b.height / 2, name: fkN[fkF[i * fkC.S]] };
    }
    return null;
  }, h);
  check(deep, tag + ': no frame near the bottom of the window');
  if (deep) {
    await page.mouse.move(deep.x, deep.y);
    const d = await page.evaluate(() => document.getElementById('details').textContent);
    check(d.startsWith('Function: ' + deep.name + ' ('), tag + ': details of ' + deep.name + ': ' + d);
    seen = await onScreen(page, d);
    check(seen.length >= 1 && seen.every((s) => s.bottom < h / 2), tag + ': details near the pointer at the bottom ' +
      'should move to the top: ' + JSON.stringify(seen));
    if (shotDir) await page.screenshot({ path: path.join(shotDir, 'svg-tall-bottom-' + tag + '.png') });
  }
  // leaving the frames hides them again
  await page.mouse.move(w - 2, 2);
  check((await onScreen(page, want)).length === 0, tag + ': details stay after leaving the frames');

  // scrolled to the end the details line is on screen itself: nothing else is shown
  await page.evaluate(() => window.scrollTo(0, document.documentElement.getBoundingClientRect().height));
  const root = await rectOf(page, 'all');
  await page.mouse.move(root.x, root.y);
  seen = await onScreen(page, 'Function: all (15 samples, 100%)');
  check(seen.length === 1 && seen[0].id === 'details', tag + ': at the bottom, the details line alone: ' + JSON.stringify(seen));

  // Matched says what it is a share of; Escape clears the search
  page.once('dialog', (dl) => dl.accept('^g$'));
  await page.keyboard.press('Control+f');
  let m = await page.evaluate(() => document.getElementById('matched').textContent);
  check(m === 'Matched: 33.3% of all', tag + ': matched: ' + m);
  await page.mouse.click(root.x, root.y - 16); // f0: the zoom
  m = await page.evaluate(() => document.getElementById('matched').textContent);
  check(m === 'Matched: 33.3% of the zoom', tag + ': matched in the zoom: ' + m);
  const mb = await page.evaluate(() => document.getElementById('matched').getBoundingClientRect().right + scrollX);
  check(mb <= 1200 - 10 + 0.5, tag + ': Matched runs past the image: ' + mb);
  await page.keyboard.press('Escape');
  m = await page.evaluate(() => document.getElementById('matched').textContent);
  check(m.trim() === '', tag + ': Escape clears the search: ' + m);
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
  if (failures) process.exit(1);
  console.log('ok');
})().catch((e) => { console.log('FAIL: ' + (e && e.stack || e)); process.exit(1); });

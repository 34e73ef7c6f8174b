// demo.js - opens the page `make demo` writes (demo.html) in headless Chromium at 800x600
// and 1920x1080, ratios 1 and 2: it loads, draws its graph (pixels that are not the
// background in the canvas) and holds the recording's stacks.
// usage: node demo.js demo.html STACKS [SHOTDIR]    Prints "ok" or what failed.
'use strict';
const path = require('path');
const { launch } = require(path.join(__dirname, '../browser/chromium'));
const [page_path, stacks, shotDir] = process.argv.slice(2);
let failures = 0;
function check(cond, what) { if (!cond) { console.log('FAIL: ' + what); failures++; } }
(async () => {
  const browser = await launch();
  try {
    for (const [w, h] of [[800, 600], [1920, 1080]]) for (const dpr of [1, 2]) {
      const tag = w + 'x' + h + '@' + dpr;
      const ctx = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: dpr });
      await ctx.route('**/*', (r) => (r.request().url().startsWith('file://') ? r.continue() : r.abort()));
      const page = await ctx.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto('file://' + path.resolve(page_path));
      await page.waitForSelector('body[data-ready]', { timeout: 30000 });
      const r = await page.evaluate(() => {
        const c = document.querySelector('canvas'), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let painted = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i + 3] && !(d[i] === 255 && d[i + 1] === 255 && d[i + 2] === 255)) painted++;
        return { painted, folded: flamekit.folded().length, title: document.title };
      });
      check(r.painted > 1000, tag + ': the graph is not drawn (' + r.painted + ' pixels)');
      check(r.folded === +stacks, tag + ': ' + r.folded + ' stacks in the page, ' + stacks + ' in demo.folded');
      check(/flamekit demo/.test(r.title), tag + ': title ' + r.title);
      check(errors.length === 0, tag + ': page errors: ' + errors.join(' | '));
      if (shotDir) await page.screenshot({ path: path.join(shotDir, 'demo-' + tag + '.png') });
      await ctx.close();
    }
  } finally {
    await browser.close();
  }
  if (failures) process.exit(1);
  console.log('ok');
})().catch((e) => { console.log('FAIL: ' + (e && e.stack || e)); process.exit(1); });

// viewer.js - the viewer as a person uses it, in headless Chromium at several device pixel
// ratios and window sizes: deep graphs drawn and reachable (pixels on screen, read from
// screenshots), the first screen showing the root, and the defects of issue 22.
// usage: node viewer.js deep PAGE.html DEPTH      (a chain f0..f{DEPTH-1} plus short stacks)
//        node viewer.js first PAGE.html            (the demo recording: the root on screen)
//        node viewer.js defects MIXED.html THREADS.html WIDE.html LONG.html DEEP.html
// FK_SHOTS=DIR keeps screenshots. Prints "ok" and exits 0, or what failed and exits 1.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');
const { launch } = require(path.join(__dirname, '../browser/chromium'));

let failures = 0;
function check(cond, what) { if (!cond) { console.log('FAIL: ' + what); failures++; } }
const SHOTS = process.env.FK_SHOTS || '';
const SIZES = [[800, 600], [1920, 1080]];

// The RGB of the top left pixel of a PNG (8-bit RGB or RGBA, as Chromium writes them).
function pngPixel(buf) {
  let p = 8, w = 0, ct = 0;
  const idat = [];
  while (p < buf.length) {
    const len = buf.readUInt32BE(p), type = buf.toString('latin1', p + 4, p + 8), d = buf.subarray(p + 8, p + 8 + len);
    if (type === 'IHDR') { w = d.readUInt32BE(0); ct = d[9]; }
    if (type === 'IDAT') idat.push(d);
    p += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat)), bpp = ct === 6 ? 4 : 3, f = raw[0];
  // row 0: no row above; Sub and Paeth see 0 to the left of the first pixel
  if (f !== 0 && f !== 1 && f !== 2 && f !== 3 && f !== 4) throw new Error('png filter ' + f);
  const px = raw.subarray(1, 1 + bpp);
  return [px[0], px[1], px[2]].map((x) => f === 3 ? x : x); // the first pixel of row 0 is its bytes under every filter
}
async function pixel(page, x, y) {
  const b = await page.screenshot({ clip: { x: Math.floor(x), y: Math.floor(y), width: 1, height: 1 } });
  return pngPixel(b);
}
const hex = (c) => '#' + c.map((x) => x.toString(16).padStart(2, '0')).join('');

async function open(browser, url, dpr, size, errors) {
  const ctx = await browser.newContext({ viewport: { width: size[0], height: size[1] }, deviceScaleFactor: dpr });
  await ctx.route('**/*', (r) => (r.request().url().startsWith('file://') ? r.continue() : (errors.push('network: ' + r.request().url()), r.abort())));
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
  await page.goto(url);
  await page.waitForSelector('body[data-ready]', { timeout: 60000 });
  // FK_OLD_SHIM=1: a drawn() for pages made before it existed (to see these checks fail
  // on such a build): every laid-out frame, placed from the whole-graph canvas
  if (process.env.FK_OLD_SHIM) await page.evaluate(() => { if (!flamekit.drawn) flamekit.drawn = () => {
    const V = flamekit.viewer, g = V.graphs[0], h = g.hit, L = h.L, r = g.canvas.getBoundingClientRect(), out = [];
    for (let i = 0; i < L.n; i++) { const d = L.ds[i]; out.push({ name: L.ns[i] ? V.names[L.nm[i]] : 'all', depth: d, node: L.ns[i], x: r.left + L.xs[i], y: r.top + (h.icicle ? h.PAD + d * h.FH : h.H - h.PAD - (d + 1) * h.FH), w: L.ws[i], h: h.FH - 1 }); }
    return out;
  }; });
  page.ctx = ctx;
  return page;
}
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
async function shot(page, name) { if (SHOTS) await page.screenshot({ path: path.join(SHOTS, name + '.png') }); }

// A frame of drawn() is on screen and its pixels are its colour (checked in a screenshot,
// inside the frame, clear of its label).
async function onScreen(page, f, what) {
  const vp = page.viewportSize();
  check(f && f.y >= 0 && f.y + f.h <= vp.height && f.x >= 0 && f.x + f.w <= vp.width, what + ': on screen ' + JSON.stringify(f));
  if (!f) return;
  const want = await page.evaluate((n) => { const V = flamekit.viewer, p = V.framePixel(V.tree, n, V.tree.maxdelta); return [p & 255, p >> 8 & 255, p >> 16 & 255]; }, f.node);
  const got = await pixel(page, f.x + Math.min(f.w - 1, 2), f.y + 1);
  check(hex(got) === hex(want), what + ': pixel ' + hex(got) + ', frame colour ' + hex(want));
}

// The canvas is the view (times the ratio), never the whole graph.
async function canvasSize(page, what) {
  const c = await page.evaluate(() => { const c = document.querySelector('.fkflame canvas'); return { w: c.width, h: c.height, iw: innerWidth, ih: innerHeight, dpr: devicePixelRatio }; });
  check(c.w <= c.iw * c.dpr + 1 && c.h <= c.ih * c.dpr + 1, what + ': canvas ' + c.w + 'x' + c.h + ' for a window of ' + c.iw + 'x' + c.ih + ' at ' + c.dpr);
}

async function deep(browser, url, depth, errors) {
  for (const dpr of [1, 2, 3]) {
    for (const size of (dpr === 3 ? [SIZES[0]] : SIZES)) {
      const what = depth + ' deep, ratio ' + dpr + ', ' + size.join('x');
      const page = await open(browser, url, dpr, size, errors);
      await canvasSize(page, what);
      let d = await page.evaluate(() => flamekit.drawn());
      await onScreen(page, d.find((f) => f.depth === 0), what + ': the root on the first screen');
      await shot(page, 'deep' + depth + '-' + dpr + '-' + size[0] + '-first');
      // the deepest frame: the top of the flame graph, reached with the Home key
      await page.keyboard.press('Home');
      await settle(page);
      d = await page.evaluate(() => flamekit.drawn());
      const top = d.find((f) => f.depth === depth);
      check(top && top.name === 'f' + (depth - 1), what + ': deepest frame drawn after Home: ' + JSON.stringify(d.slice(-2)));
      await onScreen(page, top, what + ': the deepest frame');
      await shot(page, 'deep' + depth + '-' + dpr + '-' + size[0] + '-top');
      // the wheel scrolls back down toward the root
      const before = d[0].depth;
      await page.mouse.move(size[0] / 2, size[1] / 2);
      await page.mouse.wheel(0, 2000);
      await page.waitForFunction((b) => flamekit.drawn()[0].depth < b, before, { timeout: 10000 }).catch(() => check(false, what + ': the wheel did not scroll'));
      // icicle: the root row on the first screen too
      await page.keyboard.press('i');
      await settle(page);
      d = await page.evaluate(() => flamekit.drawn());
      await onScreen(page, d.find((f) => f.depth === 0), what + ': icicle, the root on screen');
      await page.keyboard.press('End');
      await settle(page);
      d = await page.evaluate(() => flamekit.drawn());
      await onScreen(page, d.find((f) => f.depth === depth), what + ': icicle, the deepest frame after End');
      await shot(page, 'deep' + depth + '-' + dpr + '-' + size[0] + '-icicle-end');
      await canvasSize(page, what + ' (icicle)');
      await page.ctx.close();
    }
  }
  // a deep zoom: the frame on screen, a short link that reopens it
  const page = await open(browser, url, 1, SIZES[0], errors);
  const zp = Array.from({ length: Math.min(3000, depth - 1) }, (_, i) => 'f' + i);
  check(await page.evaluate((p) => flamekit.zoom(p), zp), 'zoom ' + zp.length + ' deep');
  await settle(page);
  const d = await page.evaluate(() => flamekit.drawn());
  await onScreen(page, d.find((f) => f.depth === zp.length), 'the zoomed frame ' + zp.length + ' deep');
  await shot(page, 'deep' + depth + '-zoom');
  const link = await page.evaluate(() => flamekit.link());
  check(link.length - url.length < 2048, 'a link to a zoom ' + zp.length + ' deep: ' + (link.length - url.length) + ' characters');
  const p2 = await open(browser, link, 1, SIZES[0], errors);
  check(JSON.stringify((await p2.evaluate(() => flamekit.view)).zoom) === JSON.stringify(zp), 'the link reopens the zoom');
  await p2.ctx.close();
  await page.ctx.close();
  console.log(depth + ' deep: ok');
}

async function first(browser, url, errors) {
  for (const dpr of [1, 2]) {
    for (const size of SIZES) {
      const what = 'first screen, ratio ' + dpr + ', ' + size.join('x');
      const page = await open(browser, url, dpr, size, errors);
      let d = await page.evaluate(() => flamekit.drawn());
      await onScreen(page, d.find((f) => f.depth === 0), what + ': the root');
      // the widest frame below the root, on screen
      const w1 = d.filter((f) => f.depth === 1).sort((a, b) => b.w - a.w)[0];
      await onScreen(page, w1, what + ': the widest frame of depth 1');
      await shot(page, 'demo-' + dpr + '-' + size[0]);
      await page.keyboard.press('i');
      await settle(page);
      d = await page.evaluate(() => flamekit.drawn());
      await onScreen(page, d.find((f) => f.depth === 0), what + ', icicle: the root');
      await shot(page, 'demo-' + dpr + '-' + size[0] + '-icicle');
      await page.ctx.close();
    }
  }
  console.log('first screens: ok');
}

async function defects(browser, [mixed, threads, wide, long, deepUrl], errors) {
  let page = await open(browser, mixed, 1, [1200, 800], errors);
  const V = 'flamekit.viewer';
  // a click selects; m merges it; x then has no frame to act on and says so (it once
  // dropped the stale name: a chip that did nothing)
  const f = (await page.evaluate(() => flamekit.drawn())).find((x) => x.name === 'eval');
  await page.mouse.click(f.x + 3, f.y + 3);
  check(await page.evaluate(() => document.querySelector('.fkselname') && document.querySelector('.fkselname').textContent) === 'eval', 'a click selects the frame');
  await page.keyboard.press('m');
  check(await page.evaluate(() => document.querySelector('.fksel').textContent) === '', 'after m the bar names no frame: ' + await page.evaluate(() => document.querySelector('.fksel').textContent));
  await page.keyboard.press('x');
  check(JSON.stringify(await page.evaluate(() => flamekit.transforms)) === '[["merge","eval"]]', 'x with nothing selected: ' + JSON.stringify(await page.evaluate(() => flamekit.transforms)));
  check(/no frame selected/.test(await page.evaluate(() => (document.querySelector('.fknote') || {}).textContent)), 'x says there is nothing selected');
  await shot(page, 'defect-merge-x');
  // drop on a selected frame removes its stacks
  await page.evaluate(() => flamekit.set({ transforms: [], zoom: [] }));
  const r = (await page.evaluate(() => flamekit.drawn())).find((x) => x.name === 'render');
  await page.mouse.click(r.x + 3, r.y + 3);
  await page.keyboard.press('Escape'); // zoom out again (no search)
  await page.keyboard.press('x');
  check((await page.evaluate(() => flamekit.folded())).every((l) => !/(^|;)render(;| )/.test(l)), 'x drops the selected frame\'s stacks');
  await page.keyboard.press('u');
  check((await page.evaluate(() => flamekit.transforms)).length === 0, 'u undoes');
  await page.keyboard.press('u');
  check(/no transform/.test(await page.evaluate(() => (document.querySelector('.fknote') || {}).textContent)), 'u with nothing to undo says so');

  // an ancestor of the zoom: its share of all, never above 100% of the zoomed frame
  await page.evaluate(() => flamekit.zoom('app-10/10;main;eval'));
  await settle(page);
  const anc = (await page.evaluate(() => flamekit.drawn())).find((x) => x.name === 'main');
  await page.mouse.move(anc.x + anc.w / 2, anc.y + 3);
  const tip = await page.evaluate(() => document.querySelector('.fktip').textContent);
  check(/% of all/.test(tip) && !/zoomed/.test(tip), 'ancestor tooltip: ' + tip);
  const pcts = [...tip.matchAll(/([0-9.]+)%/g)].map((m) => +m[1]);
  check(pcts.every((x) => x <= 100), 'no share above 100%: ' + tip);
  // the tooltip hides on any view change
  check(await page.evaluate(() => !document.querySelector('.fktip').hidden), 'the tooltip shows on hover');
  await page.keyboard.press('t');
  check(await page.evaluate(() => document.querySelector('.fktip').hidden), 'the tooltip hides after t');
  await page.keyboard.press('g');
  // Escape clears the search (then zooms out); Matched says of what
  await page.evaluate(() => flamekit.search('eval'));
  check(/^Matched: [0-9.]+% of all \(/.test(await page.evaluate(() => document.querySelector('.fkmatched').textContent)), 'Matched says of all');
  await page.keyboard.press('Escape');
  let v = await page.evaluate(() => flamekit.view);
  check(v.search === '' && v.zoom.length === 3, 'Escape clears the search first: ' + JSON.stringify([v.search, v.zoom]));
  await page.keyboard.press('Escape');
  check((await page.evaluate(() => flamekit.view)).zoom.length === 0, 'then Escape zooms out');
  await page.keyboard.press('/');
  await page.keyboard.type('eval');
  await page.keyboard.press('Escape');
  await page.waitForTimeout(300);
  check((await page.evaluate(() => flamekit.view)).search === '', 'Escape in the search box clears it');
  // ? lists the keys, from the table the dispatch reads
  await page.keyboard.press('?');
  const keys = await page.evaluate(() => [...document.querySelectorAll('.fkhelp td.fkkey')].map((t) => t.textContent));
  for (const k of ['/', 'Escape', 'n', 'N', 'i', 'l', 'd', 'c', 'g', 't', 'w', 's', 'f', 'F', 'm', 'x', 'r', 'u', 'p', '?', 'Home', 'End'])
    check(keys.includes(k), '? lists ' + k + ': ' + keys.join(' '));
  await shot(page, 'defect-help');
  await page.keyboard.press('q');
  check(await page.evaluate(() => (document.querySelector('.fkhelp') || {}).hidden), 'a key closes the ? list');
  // p on a profile without thread roots: nothing to split, and it says so
  await page.ctx.close();
  page = await open(browser, wide, 1, [1200, 800], errors);
  await page.keyboard.press('p');
  v = await page.evaluate(() => flamekit.view);
  check(v.split === 'thread' && await page.evaluate(() => document.querySelector('.fkbar button[title^="root frames"]').hidden), 'no thread roots: no split button, p changes nothing');
  check(/nothing to split/.test(await page.evaluate(() => (document.querySelector('.fknote') || {}).textContent)), 'p says there is nothing to split');
  // the functions table: all of them, N of M, filtered by the search, the last reachable
  await page.keyboard.press('t');
  const all = await page.evaluate(() => flamekit.top().length);
  check(all > 500 && await page.evaluate(() => document.querySelector('.fkcount').textContent) === all + ' of ' + all + ' functions', 'table count: ' + await page.evaluate(() => document.querySelector('.fkcount').textContent));
  await page.keyboard.press('End');
  await settle(page);
  const last = await page.evaluate(() => flamekit.top().slice(-1)[0].name);
  check(await page.evaluate((n) => [...document.querySelectorAll('.fktable td.fn')].some((t) => t.textContent === n), last), 'the last function is reachable in the table');
  await shot(page, 'defect-table-end');
  await page.evaluate(() => flamekit.search('fn_7'));
  const nm = await page.evaluate(() => flamekit.top().length);
  check(nm > 0 && nm < all && await page.evaluate(() => document.querySelector('.fkcount').textContent).then((s) => s.startsWith(nm + ' of ' + all + ' functions')), 'table filtered by the search');
  // a link zoomed on another profile: the root and a note, never a wrong frame
  await page.evaluate(() => flamekit.set({ view: 'flame', search: '' }));
  await page.ctx.close();
  page = await open(browser, deepUrl, 1, [1200, 800], errors);
  await page.evaluate(() => flamekit.zoom('f0;f1;f2'));
  const link = await page.evaluate(() => flamekit.link());
  await page.ctx.close();
  page = await open(browser, wide + link.slice(link.indexOf('#')), 1, [1200, 800], errors);
  check((await page.evaluate(() => flamekit.view)).zoom.length === 0, 'a link from other data opens the root');
  check(/not a frame of this profile/.test(await page.evaluate(() => (document.querySelector('.fknote') || {}).textContent)), 'with a note');
  await page.ctx.close();
  // comm-?/TID roots (perf script --tid without a PID) are threads
  page = await open(browser, threads, 1, [1200, 800], errors);
  check(await page.evaluate(() => !document.querySelector('.fkbar button[title^="root frames"]').hidden), 'node-?/TID roots: the split button shows');
  await page.keyboard.press('p');
  const roots = await page.evaluate(() => [...new Set(flamekit.folded().map((l) => l.split(';')[0]))]);
  check(JSON.stringify(roots) === '["node-?"]', 'per process: ' + JSON.stringify(roots));
  await page.ctx.close();
  // tooltip numbers never break inside a number (a long name, a big count, a narrow window)
  page = await open(browser, long, 1, [800, 600], errors);
  const lf = (await page.evaluate(() => flamekit.drawn())).find((x) => x.depth === 1);
  await page.mouse.move(lf.x + 5, lf.y + 3);
  const lines = await page.evaluate(() => [...document.querySelectorAll('.fktip .fknum')].map((s) => [s.textContent, s.getClientRects().length]));
  check(lines.length > 3 && lines.every((x) => x[1] === 1), 'tooltip numbers on one line each: ' + JSON.stringify(lines));
  check(await page.evaluate(() => getComputedStyle(document.querySelector('.fktip')).wordBreak) !== 'break-all', 'no break-all in the tooltip');
  await shot(page, 'defect-tooltip');
  await page.ctx.close();
  console.log('defects: ok');
}

(async () => {
  const [mode, ...args] = process.argv.slice(2);
  const browser = await launch();
  const errors = [];
  const url = (f) => 'file://' + path.resolve(f);
  try {
    if (mode === 'deep') await deep(browser, url(args[0]), +args[1], errors);
    else if (mode === 'first') await first(browser, url(args[0]), errors);
    else await defects(browser, args.map(url), errors);
  } finally { await browser.close(); }
  check(errors.length === 0, 'page errors: ' + errors.join(' | '));
  if (failures) process.exit(1);
  console.log('ok');
})().catch((e) => { console.log('FAIL: ' + (e && e.stack || e)); process.exit(1); });

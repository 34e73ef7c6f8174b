// async.js - a transform of a large tree does not freeze the page, and the page never shows
// a stale tree: in headless Chromium at device pixel ratios 1 and 2. The viewer transforms
// trees of asyncMin nodes or more in slices; here asyncMin is 0 (every tree) and the viewer's
// next slice (V.later) is held while a transform is pending, so the checks see the page mid-work
// whatever the machine's load (nothing is timed):
//  - small trees (under the default asyncMin) are still transformed at once;
//  - mid-work the page answers (a task queued after the transform runs before it is done,
//    the tooltip follows the mouse), the graph, the node count and the selection are those
//    of the tree before, and the pending chip and "working..." say so;
//  - when done: the tree on screen is the transformed one (no frame of the merged function
//    drawn, the selection bar cleared as its frame is gone), equal to the same transform
//    made at once; a second transform asked mid-work, and an undo mid-work (a cancel), end
//    on the tree of the list asked for (a library collapsed among them: a name added).
// usage: node async.js PAGE.html   (FK_SHOTS=DIR keeps screenshots)
'use strict';
const path = require('path');
const { launch } = require(path.join(__dirname, '../browser/chromium'));

let failures = 0;
function check(cond, what) { if (!cond) { console.log('FAIL: ' + what); failures++; } }
const SHOTS = process.env.FK_SHOTS || '';
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

// the viewer's next slices held (a pending transform waits) or let go
const hold = (page) => page.evaluate(() => {
  const V = flamekit.viewer;
  window.fkHeld = [];
  window.fkLater = window.fkLater || V.later;
  V.later = (f) => { window.fkHeld.push(f); };
});
const release = (page) => page.evaluate(async () => {
  const V = flamekit.viewer;
  V.later = window.fkLater;
  window.fkHeld.forEach((f) => V.later(f));
  // a guard against a hang (a job that never ends), not a timing: 10 minutes
  await Promise.race([flamekit.idle(), new Promise((res, rej) => setTimeout(() => rej(new Error('the transform never ended')), 600000))]);
});
// the tree of a transform list made at once (no slices, no trees kept from before)
const atOnce = (page, list) => page.evaluate((l) => {
  const V = flamekit.viewer, a = V.asyncMin;
  V.asyncMin = Infinity; V.chain = null;
  flamekit.set({ transforms: l });
  const out = flamekit.folded();
  V.asyncMin = a;
  return out;
}, list);
const state = (page) => page.evaluate(() => ({
  view: flamekit.view,
  names: [...new Set(flamekit.drawn().map((f) => f.name))],
  chips: [...document.querySelectorAll('.fkchip')].map((c) => c.className),
  working: !!document.querySelector('.fkworking'),
  sel: document.querySelector('.fksel').textContent,
  selname: (document.querySelector('.fkselname') || {}).textContent,
}));

async function run(browser, file, dpr) {
  const ctx = await browser.newContext({ viewport: { width: 1000, height: 700 }, deviceScaleFactor: dpr });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('file://' + path.resolve(file));
  await page.waitForSelector('body[data-ready]', { timeout: 120000 });
  // the heaviest function below the roots, and the page as read
  const fn = await page.evaluate(() => {
    const V = flamekit.viewer, t = V.tree, tot = new Float64Array(V.names.length);
    for (let i = 1; i < t.n; i++) if (t.depth[i] === 2) tot[t.name[i]] += t.tot[i];
    let f = 0; for (let k = 1; k < tot.length; k++) if (tot[k] > tot[f]) f = k;
    return V.names[f];
  });
  const base = await page.evaluate(() => flamekit.folded());
  const s0 = await state(page);
  check(s0.view.nodes > 100000 && s0.names.includes(fn), dpr + 'x: the page as read (' + s0.view.nodes + ' nodes, ' + fn + ' drawn)');

  // a tree under the default asyncMin: at once, as before
  const small = await page.evaluate((f) => { flamekit.viewer.asyncMin = 1e9; flamekit.transform('merge', f); const w = flamekit.view.working; flamekit.undo(); return w; }, fn);
  check(small === false, dpr + 'x: a tree under asyncMin is transformed at once');

  await page.evaluate(() => { flamekit.viewer.asyncMin = 0; flamekit.viewer.sliceMs = 40; });
  // select a frame of fn (a click selects and zooms), then out again: the bar names it
  const r = await page.evaluate((f) => flamekit.drawn().filter((x) => x.name === f).sort((a, b) => b.w - a.w)[0], fn);
  await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
  await page.keyboard.press('Escape');
  await settle(page);
  check((await state(page)).selname === fn, dpr + 'x: the click selected ' + fn);

  // m: merge the selected function; the page is held mid-work
  await hold(page);
  await page.keyboard.press('m');
  const mid = await state(page);
  check(mid.view.working === true, dpr + 'x: a transform is pending after m');
  check(mid.view.nodes === s0.view.nodes && mid.names.includes(fn), dpr + 'x: mid-work the graph is the tree before (' + mid.view.nodes + ' nodes)');
  check(mid.selname === fn, dpr + 'x: mid-work the selection is the frame on screen');
  check(mid.working && mid.chips.length === 1 && /fkwork/.test(mid.chips[0]), dpr + 'x: the chip and "working" say the transform is pending: ' + JSON.stringify(mid.chips));
  // the page answers: a task queued now runs while the transform is pending
  const answered = await page.evaluate(() => new Promise((res) => {
    const V = flamekit.viewer;
    V.sliceMs = -1; // a slice of STEP nodes: many slices, whatever the machine's speed
    window.fkHeld.splice(0).forEach((f) => window.fkLater.call(V, f)); // one slice each
    setTimeout(() => res(flamekit.view.working), 0);
  }));
  check(answered === true, dpr + 'x: a task queued during the transform ran before it was done');
  // and the mouse: the tooltip describes a frame of the tree on screen
  const r2 = await page.evaluate((f) => flamekit.drawn().filter((x) => x.name === f).sort((a, b) => b.w - a.w)[0], fn);
  await page.mouse.move(r2.x + r2.w / 2 + 3, r2.y + r2.h / 2, { steps: 2 });
  await settle(page);
  const tip = await page.evaluate(() => { const t = document.querySelector('.fktip'); return t.hidden ? '' : t.textContent; });
  check(tip.startsWith(fn), dpr + 'x: mid-work the tooltip follows the mouse over the graph on screen: ' + tip.slice(0, 80));
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'async-working-' + dpr + 'x.png') });
  await release(page);
  await page.evaluate(() => { flamekit.viewer.sliceMs = 40; });
  await settle(page);
  const done = await state(page);
  check(done.view.working === false && !done.working && done.chips.length === 1 && !/fkwork/.test(done.chips[0]), dpr + 'x: done: no pending chip');
  check(done.view.nodes < s0.view.nodes && !done.names.includes(fn), dpr + 'x: done: the merged tree is on screen (' + done.view.nodes + ' nodes; ' + fn + ' drawn: ' + done.names.includes(fn) + ')');
  check(done.sel === '', dpr + 'x: done: the bar names no frame (its frame was merged away): ' + done.sel);
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'async-done-' + dpr + 'x.png') });
  const merged = await page.evaluate(() => flamekit.folded());
  check(JSON.stringify(merged) === JSON.stringify(await atOnce(page, [['merge', fn]])), dpr + 'x: the tree made in slices is the one made at once');

  // a second transform asked mid-work: the tree of both
  await page.evaluate(() => flamekit.set({ transforms: [] }));
  await hold(page);
  await page.evaluate((f) => { flamekit.viewer.chain = null; flamekit.transform('rec', ''); flamekit.transform('lib', 'std::'); flamekit.transform('drop', f); }, fn);
  const two = await state(page);
  check(two.view.working && two.chips.length === 3 && two.chips.every((c) => /fkwork/.test(c)), dpr + 'x: three pending chips: ' + JSON.stringify(two.chips));
  await release(page);
  const got2 = await page.evaluate(() => flamekit.folded());
  const want2 = await atOnce(page, [['rec', ''], ['lib', 'std::'], ['drop', fn]]);
  check(!(await page.evaluate(() => flamekit.view.working)) && JSON.stringify(got2) === JSON.stringify(want2), dpr + 'x: transforms asked mid-work: the tree of all three (' + got2.length + ' vs ' + want2.length + ' stacks)');

  // an undo mid-work cancels: the tree before, and nothing pending
  await page.evaluate(() => { flamekit.set({ transforms: [] }); flamekit.viewer.chain = null; });
  await hold(page);
  await page.evaluate((f) => flamekit.transform('drop', f), fn);
  await page.evaluate(() => flamekit.undo());
  const cancelled = await state(page);
  check(!cancelled.view.working && !cancelled.working && cancelled.chips.length === 0, dpr + 'x: an undo mid-work cancels the transform');
  await release(page);
  check(JSON.stringify(await page.evaluate(() => flamekit.folded())) === JSON.stringify(base) && (await state(page)).names.includes(fn), dpr + 'x: after the cancel the tree as read is on screen');
  check(errors.length === 0, dpr + 'x: page errors: ' + errors.join('; '));
  await ctx.close();
}

(async () => {
  const browser = await launch();
  try {
    for (const dpr of [1, 2]) await run(browser, process.argv[2], dpr);
  } finally {
    await browser.close();
  }
  if (failures) process.exit(1);
  console.log('ok');
})().catch((e) => { console.error(e); process.exit(1); });

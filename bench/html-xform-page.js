// html-xform-page.js - the viewer's transforms in headless Chromium, page by page: each
// transform (on the heaviest function below the roots, as html-transforms.js picks) timed
// from the call to the pixels, split into the tree's transform (applyTransforms) and the
// rest (table, chips, drawing), then its undo; median of REPS (default 3) in one load.
// usage: node html-xform-page.js PAGE.html...   (FK_REPS=n)
'use strict';
const fs = require('fs'), os = require('os'), path = require('path');
const { chromium } = require(path.join(__dirname, '../tests/browser/node_modules/playwright-core'));
const reps = +(process.env.FK_REPS || 3);
function measure(reps) {
  const V = flamekit.viewer, t = V.tree, flush = () => { const c = document.querySelector('.fkflame canvas'); if (c) c.getContext('2d').getImageData(0, 0, 1, 1); };
  const tot = new Float64Array(V.names.length);
  for (let i = 1; i < t.n; i++) if (t.depth[i] === 2) tot[t.name[i]] += t.tot[i];
  let fn = 0; for (let k = 1; k < tot.length; k++) if (tot[k] > tot[fn]) fn = k;
  const fname = V.names[fn], mod = fname.indexOf('::') > 0 ? fname.slice(0, fname.indexOf('::') + 2) : fname.slice(0, 4);
  let ta = 0;
  const orig = V.applyTransforms;
  V.applyTransforms = function () { const t0 = performance.now(); orig.call(this); ta = performance.now() - t0; };
  const out = { nodes: t.n, fn: fname, ops: {} };
  for (const [op, arg] of [['merge', fname], ['drop', fname], ['rec', fname], ['rec', ''], ['lib', mod], ['focusfn', fname]]) {
    const r = [];
    for (let k = 0; k < reps; k++) {
      const t0 = performance.now();
      flamekit.transform(op, arg);
      flush();
      const t1 = performance.now(), tx = ta, n = V.tree.n;
      flamekit.undo();
      flush();
      r.push([t1 - t0, tx, performance.now() - t1, n]);
    }
    r.sort((a, b) => a[0] - b[0]);
    out.ops[op + (arg ? '' : '(all)')] = r[r.length >> 1];
  }
  V.applyTransforms = orig;
  return out;
}
(async () => {
  const ud = fs.mkdtempSync(path.join(os.tmpdir(), 'fk-chromium-'));
  const ctx = await chromium.launchPersistentContext(ud, {
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'], viewport: { width: 1400, height: 900 },
  });
  try {
    for (const f of process.argv.slice(2)) {
      const page = await ctx.newPage();
      await page.goto('file://' + path.resolve(f));
      await page.waitForSelector('body[data-ready]', { timeout: 300000 });
      const r = await page.evaluate(measure, reps);
      console.log('  ' + path.basename(f) + ' (Chromium, ' + r.nodes + ' nodes, "' + r.fn + '", load ' + fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0] + '; ms, median of ' + reps + ': total = transform + rest, undo)');
      for (const k in r.ops) { const x = r.ops[k]; console.log('    ' + k.padEnd(10) + x[0].toFixed(0).padStart(6) + ' = ' + x[1].toFixed(0).padStart(5) + ' + ' + (x[0] - x[1]).toFixed(0).padStart(4) + ', undo ' + x[2].toFixed(0) + ' (' + x[3] + ' nodes)'); }
      await page.close();
    }
  } finally {
    await ctx.close();
    fs.rmSync(ud, { recursive: true, force: true });
  }
})().catch((e) => { console.error(e); process.exit(1); });

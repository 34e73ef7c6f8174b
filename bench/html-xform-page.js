// html-xform-page.js - the viewer's transforms in headless Chromium, page by page: each
// transform (on the heaviest function below the roots, as html-transforms.js picks) timed
// from the call to the pixels (focus: on its heaviest frame below a root), split into the tree's transform (applyTransforms) and the
// rest (table, chips, drawing), then its undo; and the renderer's CPU time for it (read
// from /proc: less stretched by a loaded machine); median of REPS (default 3) in one load.
// usage: node html-xform-page.js PAGE.html...   (FK_REPS=n)
'use strict';
const fs = require('fs'), os = require('os'), path = require('path');
const { chromium } = require(path.join(__dirname, '../tests/browser/node_modules/playwright-core'));
const reps = +(process.env.FK_REPS || 3);
// the CPU time (ms) of this Chromium's renderers (processes with ud in their command line):
// unlike wall time, not stretched by other work on a loaded machine
function rendererCpu(ud) {
  let t = 0;
  for (const p of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const cmd = fs.readFileSync('/proc/' + p + '/cmdline', 'utf8');
      if (!cmd.includes(ud) || !cmd.includes('--type=renderer')) continue;
      const f = fs.readFileSync('/proc/' + p + '/stat', 'utf8').split(') ')[1].split(' ');
      t += (+f[11] + +f[12]) * 10;
    } catch (e) { /* gone */ }
  }
  return t;
}
function setup() {
  const V = flamekit.viewer, t = V.tree;
  const tot = new Float64Array(V.names.length);
  for (let i = 1; i < t.n; i++) if (t.depth[i] === 2) tot[t.name[i]] += t.tot[i];
  let fn = 0; for (let k = 1; k < tot.length; k++) if (tot[k] > tot[fn]) fn = k;
  const fname = V.names[fn], mod = fname.indexOf('::') > 0 ? fname.slice(0, fname.indexOf('::') + 2) : fname.slice(0, 4);
  // focus: on the heaviest frame of that function below a root (its path)
  let z = -1, zp = '';
  for (let i = 1; i < t.n; i++) if (t.depth[i] === 2 && t.name[i] === fn && (z < 0 || t.tot[i] > t.tot[z])) z = i;
  for (let i = z; i > 0; i--) if (t.depth[i] === 1) { zp = V.names[t.name[i]] + ';' + fname; break; }
  // the tree's transform: from applyTransforms to the tree on screen (showTree; in slices
  // on a large tree, the page answering between them)
  const orig = V.applyTransforms, show = V.showTree;
  V.applyTransforms = function (now) { window.fkT0 = performance.now(); orig.call(this, now); if (!show) window.fkTa = performance.now() - window.fkT0; };
  // (pages made before transforms in slices: no showTree, applyTransforms does all)
  if (show) V.showTree = function (t) { show.call(this, t); window.fkTa = performance.now() - window.fkT0; };
  return { nodes: t.n, fn: fname, mod, zp };
}
async function once([op, arg]) {
  const V = flamekit.viewer, flush = () => { const c = document.querySelector('.fkflame canvas'); if (c) c.getContext('2d').getImageData(0, 0, 1, 1); };
  const t0 = performance.now();
  flamekit.transform(op, arg);
  if (flamekit.idle) await flamekit.idle();
  flush();
  return [performance.now() - t0, window.fkTa, V.tree.n];
}
function undo() {
  const t0 = performance.now();
  flamekit.undo();
  const c = document.querySelector('.fkflame canvas'); if (c) c.getContext('2d').getImageData(0, 0, 1, 1);
  return performance.now() - t0;
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
      const r = await page.evaluate(setup), ops = {};
      for (const [op, arg] of [['merge', r.fn], ['drop', r.fn], ['rec', r.fn], ['rec', ''], ['lib', r.mod], ['focusfn', r.fn], ['focus', r.zp]]) {
        const x = [];
        for (let k = 0; k < reps; k++) {
          const c0 = rendererCpu(ud), y = await page.evaluate(once, [op, arg]), c1 = rendererCpu(ud);
          y.push(await page.evaluate(undo), c1 - c0);
          x.push(y);
        }
        x.sort((a, b) => a[4] - b[4]);
        ops[op + (arg ? '' : '(all)')] = x[x.length >> 1];
      }
      console.log('  ' + path.basename(f) + ' (Chromium, ' + r.nodes + ' nodes, "' + r.fn + '", load ' + fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0] + '; median of ' + reps + ' by cpu: renderer cpu ms; wall ms = transform + rest; undo wall)');
      for (const k in ops) { const x = ops[k]; console.log('    ' + k.padEnd(10) + (x[4].toFixed(0) + ' cpu').padStart(9) + x[0].toFixed(0).padStart(7) + ' = ' + x[1].toFixed(0).padStart(5) + ' + ' + (x[0] - x[1]).toFixed(0).padStart(4) + ', undo ' + x[3].toFixed(0) + ' (' + x[2] + ' nodes)'); }
      await page.close();
    }
  } finally {
    await ctx.close();
    fs.rmSync(ud, { recursive: true, force: true });
  }
})().catch((e) => { console.error(e); process.exit(1); });

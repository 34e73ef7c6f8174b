// diff-page.js - a differential page (flamekit diff A B | flamekit html) as a person uses it,
// in headless Chromium at device pixel ratios 1 and 2 in windows of 800x600 and 1920x1080:
// the widths key and button (after, before, both: frames drawn or not, at their widths, on
// screen), hover with before, after and change, and the functions table with before, after,
// change and change in percent for self and total (numbers from the folded input), sorted
// by any column both ways and filtered by the search.
// usage: node diff-page.js PAGE.html DIFF.folded   FK_SHOTS=DIR keeps screenshots.
'use strict';
const fs = require('fs');
const path = require('path');
const { launch } = require(path.join(__dirname, '../browser/chromium'));

let failures = 0;
function check(cond, what) { if (!cond) { console.log('FAIL: ' + what); failures++; } }
const SHOTS = process.env.FK_SHOTS || '';
const [page_, folded] = process.argv.slice(2);

// the reference: per function, self and total (outermost frame only) of each side
const want = new Map(), all = [0, 0];
for (const line of fs.readFileSync(folded, 'utf8').split('\n')) {
  const m = /^(.*) (\d+) (\d+)$/.exec(line);
  if (!m) continue;
  const fr = m[1].split(';'), c = [+m[2], +m[3]];
  all[0] += c[0]; all[1] += c[1];
  const seen = new Set();
  fr.forEach((f, k) => {
    if (!want.has(f)) want.set(f, { self: [0, 0], total: [0, 0] });
    const w = want.get(f);
    if (!seen.has(f)) { w.total[0] += c[0]; w.total[1] += c[1]; seen.add(f); }
    if (k === fr.length - 1) { w.self[0] += c[0]; w.self[1] += c[1]; }
  });
}
const fmt = (v) => String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const chg = (v) => (v > 0 ? '+' : v < 0 ? '\u2212' : '\u00b1') + fmt(Math.abs(v));
const pc = (b, a) => b > 0 ? ((a - b) > 0 ? '+' : a < b ? '\u2212' : '\u00b1') + Math.abs(100 * (a - b) / b).toFixed(1) + '%' : a > 0 ? 'new' : '\u00b10.0%';

(async () => {
  const browser = await launch();
  try {
    for (const [w, h] of [[800, 600], [1920, 1080]]) for (const dpr of [1, 2]) {
      const ctx = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: dpr });
      const page = await ctx.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto('file://' + path.resolve(page_));
      await page.waitForSelector('body[data-ready]');
      const tag = w + 'x' + h + '@' + dpr;
      // the button and the key are there, and say the shape
      const bar = await page.evaluate(() => ({ button: flamekit.viewer.bShape.hidden ? null : flamekit.viewer.bShape.textContent,
        key: flamekit.viewer.shapeKey.hidden ? null : flamekit.viewer.shapeKey.textContent }));
      check(bar.button === 'Widths: after', tag + ': the widths button: ' + bar.button);
      check(/grew/.test(bar.key || '') && /shrank/.test(bar.key || ''), tag + ': the colour key: ' + bar.key);
      const box = await page.evaluate(() => { const r = flamekit.viewer.bShape.getBoundingClientRect(); return [r.left, r.right, r.top, r.bottom]; });
      check(box[0] >= 0 && box[1] <= w && box[2] >= 0 && box[3] <= h, tag + ': the widths button off screen: ' + box);
      // each shape: which frames are drawn, as wide as the side says, inside the window
      for (const [shape, key] of [['after', 'b'], ['before', 'b'], ['both', 'b']]) {
        const got = await page.evaluate(() => { const d = flamekit.drawn(); return d.map((f) => ({ name: f.name, x: f.x, w: f.w, y: f.y, h: f.h })); });
        const by = new Map(got.map((f) => [f.name, f]));
        const width = (f) => shape === 'after' ? want.get(f).total[1] : shape === 'before' ? want.get(f).total[0] : null;
        for (const [f, v] of want) {
          const onBefore = v.total[0] > 0, onAfter = v.total[1] > 0;
          const drawn = shape === 'after' ? onAfter : shape === 'before' ? onBefore : onAfter || onBefore;
          check(by.has(f) === drawn, tag + ' ' + shape + ': ' + f + (drawn ? ' not drawn' : ' drawn'));
        }
        const main = by.get('main');
        if (main && shape !== 'both') {
          for (const [f] of want) {
            const g = by.get(f);
            if (!g || f === 'main' || width(f) === 0) continue;
            const exp = main.w * width(f) / width('main');
            check(Math.abs(g.w - exp) < 1.5, tag + ' ' + shape + ': ' + f + ' is ' + g.w.toFixed(1) + ' px wide, not ' + exp.toFixed(1));
          }
        }
        if (shape === 'both' && main) {
          // the larger side of each stack: gone (7 before) and new (4 after) side by side
          const gone = by.get('gone'), nw = by.get('new');
          check(gone && nw && Math.abs(gone.w / nw.w - 7 / 4) < 0.05, tag + ' both: gone/new widths ' + (gone && nw && gone.w / nw.w));
        }
        for (const f of got) check(f.x >= -0.5 && f.x + f.w <= w + 0.5 && f.y >= 0 && f.y + f.h <= h, tag + ' ' + shape + ': ' + f.name + ' off screen');
        if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'diff-' + shape + '-' + tag + '.png') });
        // the hover line of the frame that went away says so, with both sides
        if (shape === 'both') {
          // what a person sees: an unchanged frame (main) stands out from the white page, and
          // gone's label is white on its deep blue (the SVG's rule for dark fills)
          const px = await page.evaluate(([f, g]) => {
            const cv = [...document.querySelectorAll('canvas')].find((c) => { const r = c.getBoundingClientRect(); return r.width > 100; });
            const r = cv.getBoundingClientRect(), sx = cv.width / r.width, cx = cv.getContext('2d');
            const at = (x, y) => [...cx.getImageData(Math.floor((x - r.left) * sx), Math.floor((y - r.top) * sx), 1, 1).data];
            // main's middle, right of its label; the brightest pixel of gone's label row
            const m = at(f.x + f.w * 0.6, f.y + f.h / 2);
            let hi = 0;
            for (let x = g.x + 3; x < g.x + 40; x += 0.5) { const p = at(x, g.y + g.h / 2); hi = Math.max(hi, p[0] + p[1] + p[2]); }
            return { main: m, label: hi };
          }, [by.get('main'), by.get('gone')]);
          check(px.main[0] < 250 && px.main[0] > 200 && px.main[0] === px.main[2], tag + ': an unchanged frame on the white page: ' + px.main);
          check(px.label > 600, tag + ': gone\'s label light on blue: ' + px.label);
          const gone = by.get('gone');
          await page.mouse.move(gone.x + gone.w / 2, gone.y + gone.h / 2);
          const tip = await page.evaluate(() => document.querySelector('.fkdetails').textContent);
          check(/before 7, after 0, change \u22127 \(\u2212100\.0%\)/.test(tip) && /only before/.test(tip), tag + ': hover on gone: ' + tip);
          const nw = by.get('new');
          await page.mouse.move(nw.x + nw.w / 2, nw.y + nw.h / 2);
          const tip2 = await page.evaluate(() => document.querySelector('.fkdetails').textContent);
          check(/before 0, after 4, change \+4 \(new\)/.test(tip2) && /only after/.test(tip2), tag + ': hover on new: ' + tip2);
        }
        await page.keyboard.press(key);
      }
      check(await page.evaluate(() => flamekit.viewer.state.shape) === 'after', tag + ': b cycles back to after');
      // the table: every function, both sides, from the folded text
      await page.keyboard.press('t');
      const rows = await page.evaluate(() => [...document.querySelectorAll('.fkrows tr')].map((r) => [...r.children].map((c) => c.textContent)));
      const heads = await page.evaluate(() => [...document.querySelectorAll('.fktable:not(.fkrows) th')].map((c) => c.textContent));
      check(heads.length === 9 && /Function/.test(heads[0]) && /Self before/.test(heads[1]) && /Total %/.test(heads[8]), tag + ': table heads ' + heads.join('|'));
      check(rows.length === want.size, tag + ': ' + rows.length + ' rows for ' + want.size + ' functions');
      for (const r of rows) {
        const v = want.get(r[0]);
        if (!v) { check(false, tag + ': a row for ' + r[0]); continue; }
        const exp = [fmt(v.self[0]), fmt(v.self[1]), chg(v.self[1] - v.self[0]), pc(v.self[0], v.self[1]),
          fmt(v.total[0]), fmt(v.total[1]), chg(v.total[1] - v.total[0]), pc(v.total[0], v.total[1])];
        check(JSON.stringify(r.slice(1)) === JSON.stringify(exp), tag + ': row ' + r[0] + ': ' + r.slice(1).join('|') + ' want ' + exp.join('|'));
      }
      // the names first, with room; a table wider than the window scrolls sideways to its last column
      const fn = await page.evaluate(() => { const c = document.querySelector('.fkrows tr').firstChild.getBoundingClientRect(); return [c.left, c.width]; });
      check(fn[0] >= 0 && fn[1] >= 150, tag + ': the name column at ' + fn);
      const right = await page.evaluate(() => { const m = document.querySelector('.fkmain'); m.scrollLeft = m.scrollWidth;
        const c = document.querySelector('.fkrows tr').lastChild.getBoundingClientRect(), h = document.querySelectorAll('.fktable:not(.fkrows) th')[8].getBoundingClientRect();
        return [c.right, h.right, c.left - h.left]; });
      check(right[0] <= w + 0.5 && right[1] <= w + 0.5 && Math.abs(right[2]) < 1, tag + ': scrolled right, the last column in the window, under its head: ' + right);
      await page.evaluate(() => { document.querySelector('.fkmain').scrollLeft = 0; });
      // sorted by each column, largest first, then (again) smallest first
      const keys = ['self0', 'self', 'dself', 'pself', 'total0', 'total', 'dtotal', 'ptotal'];
      for (let k = 0; k < keys.length; k++) {
        for (const dir of [1, -1]) {
          await page.evaluate((k) => document.querySelectorAll('.fktable:not(.fkrows) th')[k + 1].click(), k);
          const st = await page.evaluate(() => flamekit.viewer.state.sort);
          check(st === (dir > 0 ? keys[k] : '-' + keys[k]), tag + ': sort state ' + st);
          const names = await page.evaluate(() => [...document.querySelectorAll('.fkrows tr')].map((r) => r.firstChild.textContent));
          const val = (f) => {
            const v = want.get(f), key = keys[k], side = /0$/.test(key) ? 0 : 1, kind = /self/.test(key) ? 'self' : 'total';
            if (key[0] === 'd') return v[kind][1] - v[kind][0];
            if (key[0] === 'p') return v[kind][0] > 0 ? (v[kind][1] - v[kind][0]) / v[kind][0] : v[kind][1] > 0 ? Infinity : 0;
            return v[kind][key.endsWith('0') ? 0 : 1];
          };
          const exp = [...want.keys()].sort((a, b) => { const x = val(a), y = val(b), c = x > y ? -1 : x < y ? 1 : 0; return dir * c || (a < b ? -1 : 1); });
          check(JSON.stringify(names) === JSON.stringify(exp), tag + ': sorted by ' + keys[k] + (dir > 0 ? '' : ' (up)') + ': ' + names.join(',') + ' want ' + exp.join(','));
        }
      }
      // the search filters the table
      await page.evaluate(() => flamekit.search('^(gone|new)$'));
      const fl = await page.evaluate(() => [...document.querySelectorAll('.fkrows tr')].map((r) => r.firstChild.textContent).sort());
      check(JSON.stringify(fl) === '["gone","new"]', tag + ': the search filters the table: ' + fl);
      const cnt = await page.evaluate(() => document.querySelector('.fkcount').textContent);
      check(/^2 of 8 functions/.test(cnt) && /before 27, after 28 in all \(change \+1, \+3\.7%\)/.test(cnt), tag + ': count line: ' + cnt);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'diff-table-' + tag + '.png') });
      // the search's line: each side's share of its own total, frames on either side matched
      const m = await page.evaluate(() => document.querySelector('.fkmatched').textContent);
      const sh = (v, t) => (100 * v / t).toFixed(2) + '%';
      const mb = want.get('gone').total[0] + want.get('new').total[0], ma = want.get('gone').total[1] + want.get('new').total[1];
      check(m === 'Matched: before ' + sh(mb, all[0]) + ', after ' + sh(ma, all[1]) + ' of all (before ' + mb + ', after ' + ma +
        ' samples, change ' + chg(ma - mb) + ' (' + pc(mb, ma) + '), 2 frames)', tag + ': matched line: ' + m);
      // n reaches the frame that went away (no count after) as well as the new one
      await page.evaluate(() => flamekit.search('^gone$'));
      await page.evaluate(() => flamekit.viewer.set({ view: 'flame' }));
      await page.keyboard.press('n');
      check(JSON.stringify(await page.evaluate(() => flamekit.viewer.state.zoom)) === '["main","gone"]', tag + ': n to the frame only before');
      // the sandwich of a function: both sides and the change; of one only before too
      for (const f of ['a', 'r', 'gone']) {
        await page.evaluate((f) => flamekit.sandwich(f), f);
        const title = await page.evaluate(() => document.querySelector('.fkswtitle') && document.querySelector('.fkswtitle').textContent);
        const v = want.get(f);
        const exp = f + ': total before ' + v.total[0] + ' (' + sh(v.total[0], all[0]) + '), after ' + v.total[1] + ' (' + sh(v.total[1], all[1]) +
          '), change ' + chg(v.total[1] - v.total[0]) + ' (' + pc(v.total[0], v.total[1]) + '); self before ' + v.self[0] + ', after ' + v.self[1] +
          ', change ' + chg(v.self[1] - v.self[0]) + ' (' + pc(v.self[0], v.self[1]) + ')';
        check(title === exp, tag + ': sandwich title: ' + title + ' want ' + exp);
        if (SHOTS && f === 'a') await page.screenshot({ path: path.join(SHOTS, 'diff-sandwich-' + tag + '.png') });
      }
      // (the last: gone) the callees of gone are drawn in before and both, not in after
      for (const shape of ['after', 'before', 'both']) {
        await page.evaluate((s) => flamekit.viewer.set({ shape: s }), shape);
        const names = await page.evaluate(() => flamekit.drawn().map((d) => d.name));
        check(names.includes('gone') === (shape !== 'after'), tag + ' sandwich ' + shape + ': gone ' + (shape === 'after' ? 'drawn' : 'not drawn') + ': ' + names.join(','));
      }
      await page.evaluate(() => flamekit.viewer.set({ shape: 'after' }));
      check(!errors.length, tag + ': page errors: ' + errors.join('; '));
      await ctx.close();
    }
    // one column: no widths button, b says why
    const ctx = await browser.newContext({ viewport: { width: 800, height: 600 } });
    const page = await ctx.newPage();
    await page.goto('file://' + path.resolve(page_.replace(/\.html$/, '-one.html')));
    await page.waitForSelector('body[data-ready]');
    check(await page.evaluate(() => flamekit.viewer.bShape.hidden), 'one column: the widths button shown');
    await page.keyboard.press('b');
    check(/one column/.test(await page.evaluate(() => document.querySelector('.fknote').textContent)), 'one column: b says nothing to do');
    await ctx.close();
  } finally {
    await browser.close();
  }
  console.log(failures ? failures + ' failures' : 'ok');
  process.exit(failures ? 1 : 0);
})().catch((e) => { console.log('FAIL: ' + (e && e.stack || e)); process.exit(1); });

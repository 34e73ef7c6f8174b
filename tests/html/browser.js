// browser.js - drives `flamekit html` pages in headless Chromium and checks them against
// figures this script computes itself from the folded input.
// usage: node browser.js page PAGE.html INPUT.folded [SHOT.png]   (tests/html/data/mixed.folded)
//        node browser.js share PAGE.html INPUT.folded...   (any input; two columns: differential)
//        node browser.js same PAGE1.html PAGE2.html...   (same data: table, shares, stacks)
//        node browser.js colors PAGE.html SVG...   (every frame drawn in the SVG: same colours)
// Prints "ok" and exits 0, or prints what failed and exits 1.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { transformFrames } = require('./reference');
const { chromium } = require(path.join(__dirname, '../browser/node_modules/playwright-core'));

let failures = 0;
function check(cond, what) {
  if (!cond) { console.log('FAIL: ' + what); failures++; }
}
function near(a, b) { return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)); }

// ---- the reference: folded text read and transformed here, independently of the page
function readFolded(file) {
  const stacks = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^([\s\S]*) (\S+)$/.exec(line); // names may hold U+2028
    if (!m) continue;
    stacks.push({ frames: m[1].split(';'), n: Number(m[2]) });
  }
  return stacks;
}
const sum = (st) => st.reduce((t, s) => t + s.n, 0);
// The frames a graph of width W (css px) shows when zoomed to path: [depth, x, width, name],
// by depth then x. Children in bytewise name order at their offset among all siblings, or
// heaviest first laid side by side (left-heavy); a frame narrower than a third of a pixel is
// not drawn, nor anything below it; the zoomed frame's ancestors span the whole width.
function trieOf(stacks) {
  const root = { name: '', tot: 0, kids: new Map() };
  for (const s of stacks) {
    let n = root;
    root.tot += s.n;
    for (const f of s.frames) {
      let c = n.kids.get(f);
      if (!c) n.kids.set(f, (c = { name: f, tot: 0, kids: new Map() }));
      c.tot += s.n;
      n = c;
    }
  }
  return root;
}
const byName = (a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name));
// The paths of the outermost frames matching re, in preorder (children in name order).
function matchPaths(stacks, re) {
  const out = [];
  (function rec(n, p) {
    for (const k of [...n.kids.values()].sort(byName)) {
      if (re.test(k.name)) { if (k.tot > 0) out.push(p.concat([k.name])); } else rec(k, p.concat([k.name]));
    }
  })(trieOf(stacks), []);
  return out;
}
function drawn(stacks, zpath, W, left) {
  const root = trieOf(stacks), PAD = 4, out = [];
  let z = root;
  zpath.forEach((f, d) => { out.push([d, PAD, W - 2 * PAD, z.name]); z = z.kids.get(f); });
  const scale = (W - 2 * PAD) / z.tot;
  (function rec(n, x, d) {
    out.push([d, x, n.tot * scale, n.name]);
    const ks = [...n.kids.values()].sort(byName);
    if (left) {
      ks.sort((a, b) => b.tot - a.tot); // stable: ties stay in name order
      let cx = x;
      for (const k of ks) {
        if (k.tot * scale < 0.33) break;
        rec(k, cx, d + 1);
        cx += k.tot * scale;
      }
    } else {
      let off = 0;
      for (const k of ks) {
        if (k.tot * scale >= 0.33 && k.tot > 0) rec(k, x + off * scale, d + 1);
        off += k.tot;
      }
    }
  })(z, PAD, zpath.length);
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}
function share(stacks, re) {
  return sum(stacks.filter((s) => s.frames.some((f) => re.test(f)))) / sum(stacks);
}
function transform(stacks, op, arg) {
  const out = [];
  for (const s of stacks) {
    const f = transformFrames(s.frames, op, arg);
    if (f) out.push({ frames: f, n: s.n });
  }
  return out;
}
// folded lines, merged and sorted, as flamekit.folded() gives them
function folded(stacks) {
  const m = new Map();
  for (const s of stacks) { const k = s.frames.join(';'); m.set(k, (m.get(k) || 0) + s.n); }
  return [...m].map(([k, n]) => k + ' ' + n).sort();
}
function sandwich(stacks, fn) {
  let total = 0, self = 0;
  const callers = new Map(), callees = new Map();
  for (const s of stacks) {
    const i = s.frames.indexOf(fn);
    if (i < 0) continue;
    total += s.n;
    if (s.frames[s.frames.length - 1] === fn) self += s.n;
    if (i > 0) callers.set(s.frames[i - 1], (callers.get(s.frames[i - 1]) || 0) + s.n);
    if (i + 1 < s.frames.length) callees.set(s.frames[i + 1], (callees.get(s.frames[i + 1]) || 0) + s.n);
  }
  return { total, self, callers, callees };
}

async function open(ctx, url, errors) {
  const page = await ctx.newPage();
  page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
  await page.goto(url);
  await page.waitForSelector('body[data-ready]', { timeout: 60000 });
  return page;
}
const view = (page) => page.evaluate(() => flamekit.view);

// A page whose data is damaged says so and draws nothing.
async function damagedChecks(ctx, url) {
  const page = await ctx.newPage();
  await page.goto(url);
  const said = await page.waitForFunction(() => /^cannot read the page data: /.test(document.getElementById('fkapp').textContent),
    null, { timeout: 30000 }).then(() => true, () => false);
  check(said, path.basename(url) + ': no word of damaged data: ' + JSON.stringify(await page.evaluate(() => document.getElementById('fkapp').textContent.slice(0, 200))));
  check(await page.evaluate(() => !document.body.hasAttribute('data-ready') && !document.querySelector('canvas')),
    path.basename(url) + ': damaged data drawn');
  await page.close();
}

async function pageChecks(ctx, url, input, errors, shot) {
  const stacks = readFolded(input), total = sum(stacks);
  const page = await open(ctx, url, errors);
  check(await page.evaluate(() => window.pwned) === undefined, 'a frame name ran script');
  let v = await view(page);
  check(v.total === total, 'total ' + v.total + ' != ' + total);

  // exact Matched share for several regexes, against the folded text
  for (const [re, ic] of [['read_line', false], ['^eval$', false], ['APPLY', true], ['libc\\.so`', false],
    ['^(busy|leaf)$', false], ['nomatch_at_all', false], ['<img', false]]) {
    const got = await page.evaluate((a) => flamekit.search(a[0], a[1]), [re, ic]);
    const want = share(stacks, new RegExp(re, ic ? 'i' : ''));
    check(near(got, want), 'search ' + re + ': ' + got + ' != ' + want);
  }
  const shown = await page.evaluate(() => document.querySelector('.fkmatched').textContent);
  check(/^Matched: 4\.0\d%/.test(shown) || shown.startsWith('Matched: ' + (100 * share(stacks, /<img/)).toFixed(2) + '%'),
    'Matched text: ' + shown);

  // next/previous match navigation zooms to each match in turn
  await page.evaluate(() => flamekit.search('^apply$'));
  const seen = [];
  for (let k = 0; k < 4; k++) seen.push((await page.evaluate(() => flamekit.next())).join(';'));
  check(seen[0] !== seen[1] && seen.every((p) => /(^|;)apply$/.test(p)), 'next match: ' + JSON.stringify(seen));
  const back = (await page.evaluate(() => flamekit.previous())).join(';');
  check(back === seen[2], 'previous match: ' + back + ' vs ' + seen[2]);

  // zoom: the zoomed frame's total is that of the stacks below its path
  check(await page.evaluate(() => flamekit.zoom('app-10/10;main;eval')), 'zoom to a path');
  v = await view(page);
  const below = sum(stacks.filter((s) => s.frames.slice(0, 3).join(';') === 'app-10/10;main;eval'));
  check(v.zoomTotal === below, 'zoom total ' + v.zoomTotal + ' != ' + below);
  check(await page.evaluate(() => flamekit.zoom('no;such;path')) === false, 'zoom to a missing path');

  // a real click on a drawn frame zooms into it
  await page.evaluate(() => { flamekit.search(''); flamekit.zoom(''); });
  const box = await page.$eval('.fkflame canvas', (c) => { const b = c.getBoundingClientRect(); return [b.left, b.bottom, b.width]; });
  await page.mouse.click(box[0] + 10, box[1] - 4 - 16 - 8); // first child of the root, bottom-up
  v = await view(page);
  check(v.zoom.length === 1 && v.zoom[0] === 'app-10/10', 'click zoom: ' + JSON.stringify(v.zoom));
  // (the selection bar appeared above the graph: measure again)
  const box2 = await page.$eval('.fkflame canvas', (c) => { const b = c.getBoundingClientRect(); return [b.left, b.bottom, b.width]; });
  await page.mouse.move(box2[0] + box2[2] - 10, box2[1] - 4 - 3 * 16 - 8);
  const tip = await page.evaluate(() => document.querySelector('.fktip').textContent);
  check(tip === "render (14 samples, 7.41% of all, 11.97% of the zoomed frame; self 0)", "hover tooltip: " + tip);

  // sandwich totals (recursion counted once), callers and callees
  for (const fn of ['eval', 'apply', 'read_line', 'libc.so`malloc']) {
    const got = await page.evaluate((f) => flamekit.sandwich(f), fn);
    const want = sandwich(stacks, fn);
    check(got && got.total === want.total && got.self === want.self, fn + ' sandwich total/self ' + JSON.stringify(got && [got.total, got.self]) + ' vs ' + [want.total, want.self]);
    const gc = new Map(got.callers.map((r) => [r.name, r.total])), ge = new Map(got.callees.map((r) => [r.name, r.total]));
    check(JSON.stringify([...gc].sort()) === JSON.stringify([...want.callers].sort()), fn + ' callers ' + JSON.stringify([...gc]) + ' vs ' + JSON.stringify([...want.callers]));
    check(JSON.stringify([...ge].sort()) === JSON.stringify([...want.callees].sort()), fn + ' callees ' + JSON.stringify([...ge]) + ' vs ' + JSON.stringify([...want.callees]));
  }
  check((await view(page)).view === 'sandwich', 'sandwich view shown');

  // functions table: self and total per function from the folded text
  const rows = await page.evaluate(() => flamekit.top());
  const fself = new Map(), ftotal = new Map();
  for (const s of stacks) {
    const leaf = s.frames[s.frames.length - 1];
    fself.set(leaf, (fself.get(leaf) || 0) + s.n);
    for (const f of new Set(s.frames)) ftotal.set(f, (ftotal.get(f) || 0) + s.n);
  }
  check(rows.length === ftotal.size, 'table rows ' + rows.length + ' != ' + ftotal.size);
  for (const r of rows)
    check(r.total === ftotal.get(r.name) && r.self === (fself.get(r.name) || 0), 'table row ' + JSON.stringify(r));
  check(rows[0].self >= rows[rows.length - 1].self, 'table sorted by self');

  // transforms, one at a time and stacked, against the same transforms of the folded text
  const cases = [[['focus', 'app-10/10;main;eval']], [['focusfn', 'eval']], [['merge', 'eval']], [['drop', 'worker']],
    [['rec', 'eval']], [['lib', 'libc.so`']], [['merge', 'parse'], ['rec', 'eval'], ['drop', 'busy']]];
  for (const list of cases) {
    const got = await page.evaluate((l) => { flamekit.set({ transforms: l }); return flamekit.folded(); }, list);
    let want = stacks;
    for (const [op, arg] of list) want = transform(want, op, arg);
    check(JSON.stringify(got) === JSON.stringify(folded(want)), 'transforms ' + JSON.stringify(list) + ':\n' + got.join('\n') + '\n--- want\n' + folded(want).join('\n'));
  }
  // per-thread split: root frames comm-PID/TID per thread, per process (comm-PID) or merged
  const threadRoot = /^([\s\S]*-\d+)(\/\d+)?$/;
  for (const [split, fn] of [['process', (f) => { const m = threadRoot.exec(f[0]); return m ? [m[1]].concat(f.slice(1)) : f; }],
    ['merged', (f) => threadRoot.test(f[0]) ? f.slice(1) : f]]) {
    const got = await page.evaluate((sp) => { flamekit.set({ transforms: [], split: sp }); return flamekit.folded(); }, split);
    const want = folded(stacks.map((s) => ({ frames: fn(s.frames), n: s.n })));
    check(JSON.stringify(got) === JSON.stringify(want), 'split ' + split + ':\n' + got.join('\n'));
  }
  check(await page.evaluate(() => { flamekit.set({ split: 'thread' }); return !document.querySelector('.fkbar button[title^="root frames"]').hidden; }),
    'the thread split button shows for comm-PID/TID roots');
  await page.evaluate(() => flamekit.set({ transforms: [['merge', 'parse'], ['rec', 'eval'], ['drop', 'busy']] }));
  // undo: the list shrinks and the tree follows
  await page.evaluate(() => flamekit.undo());
  const after = await page.evaluate(() => flamekit.folded());
  check(JSON.stringify(after) === JSON.stringify(folded(transform(transform(stacks, 'merge', 'parse'), 'rec', 'eval'))), 'undo');
  check((await page.evaluate(() => flamekit.transforms)).length === 2, 'transforms after undo');

  // URL round trip: every piece of state comes back from the link alone
  await page.evaluate(() => {
    flamekit.set({ view: 'flame', dark: true, left: true, icicle: true, ic: true, split: 'process' });
    flamekit.search('EVAL|<img', true);
    flamekit.zoom('app-10;main');
  });
  const state = await view(page), link = await page.evaluate(() => flamekit.link());
  check(link === await page.evaluate(() => location.href), 'flamekit.link() is the address');
  const p2 = await open(ctx, link, errors);
  const state2 = await view(p2);
  check(JSON.stringify(state2) === JSON.stringify(state), 'URL round trip:\n' + JSON.stringify(state) + '\n' + JSON.stringify(state2));
  check(await p2.evaluate(() => window.pwned) === undefined, 'a name in the URL ran script');
  // without link(), the address follows a moment after a change
  await p2.evaluate(() => flamekit.zoom('app-10'));
  const moved = await p2.waitForFunction(() => /[#&]z=/.test(location.hash) && !/main/.test(decodeURIComponent(location.hash)), null, { timeout: 5000 }).then(() => true, () => false);
  check(moved, 'the address after a zoom: ' + await p2.evaluate(() => location.hash));
  await p2.close();

  // hostile names are text in the table, the tooltip and the selection bar
  await page.evaluate(() => { flamekit.set({ transforms: [], search: '', view: 'table', split: 'thread' }); });
  const cells = await page.$$eval('.fktable td.fn', (tds) => tds.map((t) => t.textContent));
  for (const n of ['<img src=x onerror="window.pwned=1">', '</script><script>window.pwned=2</script>', 'a&b "q" \'s\' \\ \u2028: end'])
    check(cells.includes(n), 'table shows the name as text: ' + JSON.stringify(n));
  const dom = await page.evaluate(() => ({ img: document.images.length, scripts: document.scripts.length, pwned: window.pwned }));
  check(dom.img === 0 && dom.scripts === 4 && dom.pwned === undefined, 'injection: ' + JSON.stringify(dom));

  // the selection bar offers collapsing a module`function name's library
  await page.evaluate(() => flamekit.set({ view: 'flame', transforms: [] }));
  await page.evaluate(() => flamekit.zoom('app-10/10;main;eval'));
  await page.evaluate(() => { const V = flamekit.viewer, n = V.findPath(['app-10/10', 'main', 'eval', 'libc.so`malloc']); V.select(V.graphs[0], n); });
  await page.click('text=Collapse libc.so`');
  check(JSON.stringify(await page.evaluate(() => flamekit.transforms)) === '[["lib","libc.so`"]]', 'collapse library button: ' + JSON.stringify(await page.evaluate(() => flamekit.transforms)));
  await page.evaluate(() => flamekit.set({ transforms: [] }));
  // keyboard: i toggles the icicle, Escape resets the zoom, / focuses the search
  await page.evaluate(() => flamekit.set({ view: 'flame', zoom: ['app-10/10'] }));
  const ic0 = (await view(page)).icicle;
  await page.keyboard.press('i');
  await page.keyboard.press('Escape');
  v = await view(page);
  check(v.icicle === !ic0 && v.zoom.length === 0, 'keys i/Escape: ' + JSON.stringify(v));
  await page.keyboard.press('/');
  check(await page.evaluate(() => document.activeElement.type === 'search'), '/ focuses the search');
  if (shot) await page.screenshot({ path: shot, fullPage: true });
  return page;
}

// Any folded input (one or two counts a line): exact shares, table totals and a
// transform over every frame, drawn or not.
async function shareChecks(ctx, url, input, errors) {
  // two counts a line (every line ending in two numbers) or one; names may hold spaces
  const lines = fs.readFileSync(input, 'utf8').split('\n').filter((l) => l);
  const two = lines.every((l) => /^[\s\S]* [0-9.]+ [0-9.]+$/.test(l));
  const raw = lines.map((l) => {
    const m = two ? /^([\s\S]*) (\S+) (\S+)$/.exec(l) : /^([\s\S]*) (\S+)$/.exec(l);
    return two ? { frames: m[1].split(';'), a: Number(m[2]), n: Number(m[3]) } : { frames: m[1].split(';'), n: Number(m[2]) };
  });
  const diff = raw.some((s) => s.a !== undefined);
  const page = await open(ctx, url, errors);
  const v = await view(page);
  check(v.total === sum(raw), 'total ' + v.total + ' != ' + sum(raw));
  const names = [...new Set(raw.flatMap((s) => s.frames))];
  const res = ['Handler', '^func_1', '::', names[7].replace(/[^A-Za-z0-9_]/g, '.'), '\\[k\\]$'];
  for (const re of res) {
    const got = await page.evaluate((r) => flamekit.search(r), re);
    const want = share(raw, new RegExp(re));
    check(near(got, want), 'search ' + re + ': ' + got + ' != ' + want);
  }
  const rows = await page.evaluate(() => { flamekit.search(''); return flamekit.top(); });
  const ftotal = new Map();
  for (const s of raw) for (const f of new Set(s.frames)) ftotal.set(f, (ftotal.get(f) || 0) + s.n);
  check(rows.length === [...ftotal.values()].filter((x) => x > 0).length, 'table rows ' + rows.length);
  for (const r of rows.slice(0, 200)) check(r.total === ftotal.get(r.name), 'table total of ' + r.name + ': ' + r.total + ' vs ' + ftotal.get(r.name));
  if (diff) {
    // red where a frame's own count grew, blue where it shrank (flamegraph.pl's scale)
    const c = await page.evaluate(() => {
      const V = flamekit.viewer, t = V.tree, out = { red: 0, blue: 0, bad: [] };
      let m = 1;
      for (let i = 0; i < t.n; i++) m = Math.max(m, Math.abs(t.self1[i] - t.self0[i]));
      for (let i = 1; i < t.n; i++) {
        const d = t.self1[i] - t.self0[i], f = V.frameColor(t, i, m);
        if (d > 0 && /^rgb\(255,(\d+),\1\)$/.test(f) && f !== 'rgb(255,255,255)') out.red++;
        else if (d < 0 && /^rgb\((\d+),\1,255\)$/.test(f)) out.blue++;
        else if (d !== 0) out.bad.push(V.names[t.name[i]] + ' ' + d + ' ' + f);
      }
      return out;
    });
    check(c.red > 0 && c.blue > 0 && c.bad.length === 0, 'diff colours: ' + JSON.stringify(c).slice(0, 300));
  } else {
    // next and previous match: the outermost matches in order
    const mp = matchPaths(raw, /Handler/);
    const steps = await page.evaluate(() => { flamekit.search('Handler'); return [flamekit.next(), flamekit.next(), flamekit.next(), flamekit.previous()]; });
    check(mp.length > 3 && JSON.stringify(steps) === JSON.stringify([mp[0], mp[1], mp[2], mp[1]]),
      'next/previous match: ' + JSON.stringify(steps) + ' vs ' + JSON.stringify(mp.slice(0, 3)));
    await page.evaluate(() => flamekit.search(''));
    // the frames drawn, zoomed and not, in name order and left-heavy, against the reference
    const top = [...new Set(raw.map((s) => s.frames[0]))].sort().slice(0, 3);
    const deep = raw.reduce((a, s) => (s.frames.length > a.length ? s.frames : a), []).slice(0, 4);
    for (const zp of [[], ...top.map((f) => [f]), deep]) {
      for (const left of [false, true]) {
        const got = await page.evaluate(([zp, left]) => {
          flamekit.set({ zoom: zp, left: left, view: 'flame' });
          const V = flamekit.viewer, L = V.graphs[0].hit.L, out = [];
          for (let i = 0; i < L.n; i++) out.push([L.ds[i], L.xs[i], L.ws[i], V.names[L.nm[i]]]);
          return { W: V.W, frames: out.sort((a, b) => a[0] - b[0] || a[1] - b[1]) };
        }, [zp, left]);
        const want = drawn(raw, zp, got.W, left), what = 'drawn frames at ' + (zp.join(';') || 'the root') + (left ? ', left-heavy' : '');
        check(got.frames.length === want.length, what + ': ' + got.frames.length + ' vs ' + want.length);
        const bad = want.findIndex((w, i) => !got.frames[i] || got.frames[i][0] !== w[0] || got.frames[i][3] !== w[3] ||
          Math.abs(got.frames[i][1] - w[1]) > 1e-6 || Math.abs(got.frames[i][2] - w[2]) > 1e-6);
        check(bad < 0, what + ': frame ' + bad + ' is ' + JSON.stringify(got.frames[bad]) + ', not ' + JSON.stringify(want[bad]));
      }
    }
    await page.evaluate(() => flamekit.set({ zoom: [], left: false }));
    const got = await page.evaluate(() => { flamekit.set({ transforms: [['merge', 'Handler::run_3'], ['rec', '']] }); return flamekit.folded(); });
    const want = folded(raw.map((s) => ({ frames: s.frames.filter((f) => f !== 'Handler::run_3').filter((f, i, a) => a.indexOf(f) === i), n: s.n })));
    check(JSON.stringify(got) === JSON.stringify(want), 'transforms on ' + input + ': ' + got.length + ' vs ' + want.length + ' lines');
  }
  console.log(raw.length + ' stacks' + (diff ? ' (differential)' : ''));
}

async function sameChecks(ctx, url1, url2, errors) {
  const a = await open(ctx, url1, errors), b = await open(ctx, url2, errors);
  const probe = () => ({ total: flamekit.view.total, top: flamekit.top(), s: flamekit.search('a'), stacks: flamekit.folded() });
  const x = await a.evaluate(probe), y = await b.evaluate(probe);
  check(x.total > 0, 'empty page');
  check(JSON.stringify(x) === JSON.stringify(y), 'pages differ: ' + JSON.stringify(x).slice(0, 400) + '\n' + JSON.stringify(y).slice(0, 400));
  console.log('compared ' + x.stacks.length + ' stacks, ' + x.top.length + ' functions');
}

// The page's frame colours are the SVG's (for an input small enough that the SVG draws every
// frame: its rects are the frames in the same pre-order), and the canvas shows them: the
// pixel inside each frame wide enough to have one.
async function colorChecks(ctx, url, svg, errors) {
  const page = await open(ctx, url, errors);
  const want = [...fs.readFileSync(svg, 'utf8').split('<g id="frames">')[1].split('</g>')[0]
    .matchAll(/<rect [^>]*fill="([^"]*)"/g)].map((m) => m[1]);
  const got = await page.evaluate(() => {
    const V = flamekit.viewer, t = V.tree, g = V.graphs[0], L = g.hit.L, out = { fill: [], px: [] };
    for (let i = 0; i < t.n; i++) out.fill.push(V.frameColor(t, i, t.maxdelta));
    const cx = g.canvas.getContext('2d'), dpr = window.devicePixelRatio || 1;
    for (let k = 0; k < L.n; k++) {
      const v = L.ns[k];
      if (L.ws[k] < 4) continue;
      const y = g.icicle ? g.hit.PAD + t.depth[v] * g.hit.FH : g.hit.H - g.hit.PAD - (t.depth[v] + 1) * g.hit.FH;
      const d = cx.getImageData(Math.floor((L.xs[k] + 1) * dpr), Math.floor((y + 2) * dpr), 1, 1).data;
      const p = V.framePixel(t, v, t.maxdelta);
      out.px.push([v, d[0], d[1], d[2], p & 255, p >> 8 & 255, p >> 16 & 255]);
    }
    return out;
  });
  const hex = (c) => c.startsWith('#') ? c.toLowerCase() : '#' + c.match(/\d+/g).map((x) => (+x).toString(16).padStart(2, '0')).join('');
  check(got.fill.length === want.length, 'frames: page ' + got.fill.length + ', svg ' + want.length);
  for (let i = 0; i < Math.min(got.fill.length, want.length); i++)
    check(hex(got.fill[i]) === hex(want[i]), 'colour of frame ' + i + ': page ' + got.fill[i] + ', svg ' + want[i]);
  check(got.px.length > 3, 'frames with pixels: ' + got.px.length);
  for (const x of got.px) check(x[1] === x[4] && x[2] === x[5] && x[3] === x[6], 'pixel of frame ' + x[0] + ': ' + x.slice(1).join(','));
  console.log(got.fill.length + ' frame colours as in the SVG, ' + got.px.length + ' drawn as computed');
}

(async () => {
  const [mode, a1, a2, a3] = process.argv.slice(2), rest = process.argv.slice(3);
  const ud = fs.mkdtempSync(path.join(os.tmpdir(), 'fk-chromium-'));
  const ctx = await chromium.launchPersistentContext(ud, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1200, height: 800 },
  });
  const errors = [], requests = [];
  // The page must be self-contained: record (and refuse) anything but the file itself.
  await ctx.route('**/*', (route) => {
    const u = route.request().url();
    if (u.startsWith('file://')) return route.continue();
    requests.push(u);
    return route.abort();
  });
  try {
    const url = (f) => f.startsWith('file:') ? f : 'file://' + path.resolve(f);
    // same and share take any number of argument pairs
    if (mode === 'same') for (let k = 0; k + 1 < rest.length; k += 2) await sameChecks(ctx, url(rest[k]), url(rest[k + 1]), errors);
    else if (mode === 'colors') await colorChecks(ctx, url(a1), a2, errors);
    else if (mode === 'damaged') for (const f of rest) await damagedChecks(ctx, url(f));
    else if (mode === 'share') for (let k = 0; k + 1 < rest.length; k += 2) await shareChecks(ctx, url(rest[k]), rest[k + 1], errors);
    else await pageChecks(ctx, 'file://' + path.resolve(a1), a2, errors, a3);
  } finally {
    await ctx.close();
    fs.rmSync(ud, { recursive: true, force: true });
  }
  check(errors.length === 0, 'page errors: ' + errors.join(' | '));
  check(requests.length === 0, 'network requests: ' + requests.join(' '));
  if (failures) process.exit(1);
  console.log('ok');
})().catch((e) => { console.log('FAIL: ' + (e && e.stack || e)); process.exit(1); });

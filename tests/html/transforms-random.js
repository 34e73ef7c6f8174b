// transforms-random.js - every transform of the viewer (transformTree over the tree's
// arrays) against a plain reference over the stacks, on seeded random trees: few names
// (deep recursion, many frames merged into shared ones) and many (wide frames, more than
// a shared frame's short list holds), one and two columns, alone and chained. The tree made
// must hold the reference's stacks and counts exactly (trees with own counts and, as the page
// keeps most profiles, without), and be a well-formed tree: depths
// and subtree ends consistent, each frame's total its subtree's sum, siblings with distinct
// names in the library's order, no frame without a count below.
// usage: node transforms-random.js PAGE-DIR (common/render/page)
'use strict';
const fs = require('fs'), path = require('path');
const { transformFrames } = require('./reference');
global.window = {}; global.document = {};
const dir = process.argv[2], vdir = path.join(dir, 'viewer');
const src = "'use strict';\n" + fs.readFileSync(path.join(dir, 'counts.js'), 'utf8') +
  fs.readdirSync(vdir).filter((f) => f.endsWith('.js')).sort().map((f) => fs.readFileSync(path.join(vdir, f), 'utf8')).join('\n');
new Function(src + '\nwindow.T = { transformTree, transformAct, Viewer, Builder, eachStack, nameCmp };')();
const { transformTree, transformAct, Viewer, Builder, eachStack, nameCmp } = window.T;
// the same code with passes that stop every 2 nodes (16 a chunk), as a large tree's
// transform in slices does every 32,768: each transform is also made so, stopped at every
// chance, and must give the same arrays
if (!src.includes('var STEP = 32768;')) throw new Error('transforms-random: no STEP in the viewer code');
new Function(src.replace('var STEP = 32768;', 'var STEP = 2;') + '\nwindow.S = { TransformJob };')();
function sliced(t, names, rank, act) {
  const job = new window.S.TransformJob(t, names, rank, act, () => true);
  let r = null, k = 0;
  while (!(r = job.run())) if (++k > 1e7) throw new Error('sliced transform does not end');
  return r;
}
function sameArrays(a, b) {
  if (a.n !== b.n) return 'n ' + a.n + ' != ' + b.n;
  for (const k of ['name', 'depth', 'end', 'self0', 'self1', 'tot', 'tot0']) {
    if (!a[k] !== !b[k]) return k + ' kept in one only';
    if (a[k]) for (let i = 0; i < a.n; i++) if (a[k][i] !== b[k][i]) return k + '[' + i + '] ' + a[k][i] + ' != ' + b[k][i];
  }
  return a.maxDepth === b.maxDepth ? '' : 'maxDepth';
}
let seed = 4242;
const rnd = (k) => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return (seed >>> 8) % k; };
function reference(stacks, op, arg) {
  const out = [];
  for (const s of stacks) {
    const f = transformFrames(s.f, op, arg);
    if (f) out.push({ f, a: s.a, b: s.b });
  }
  return out;
}
function foldedOf(stacks, cols) {
  const m = new Map();
  for (const s of stacks) { const k = s.f.join(';'), v = m.get(k) || [0, 0]; v[0] += s.a; v[1] += s.b; m.set(k, v); }
  return [...m].map(([k, v]) => k + ' ' + (cols > 1 ? v[0] + ' ' + v[1] : v[0])).sort();
}
function treeFolded(V, t) {
  const out = [];
  eachStack(t, (p, len, a, b) => { const f = []; for (let k = 0; k < len; k++) f.push(V.names[p[k]]); out.push(f.join(';') + ' ' + (t.cols > 1 ? a + ' ' + b : a)); });
  return out.sort();
}
function kidsTot(t, i) { let s = 0; for (let c = i + 1; c < t.end[i]; c = t.end[c]) s += t.tot[c]; return s; }
function wellFormed(V, t, rank) {
  const bad = [];
  if (t.depth[0] !== 0 || t.end[0] !== t.n) bad.push('root');
  for (let i = 0; i < t.n && bad.length < 3; i++) {
    if (t.end[i] <= i || t.end[i] > t.n) bad.push('end ' + i);
    // (a tree without own counts: a node's is its total less its children's, none below zero)
    const own = t.self0 ? t.self0[i] : t.tot[i] - kidsTot(t, i);
    if (own < 0) bad.push('own count below zero ' + i);
    let sum = t.self1 ? Math.max(t.self1[i], 0) : Math.max(own, 0), prev = -1, any = own !== 0 || (t.self1 && t.self1[i] !== 0);
    for (let c = i + 1; c < t.end[i]; c = t.end[c]) {
      if (t.depth[c] !== t.depth[i] + 1) { bad.push('depth ' + c); break; }
      if (rank[t.name[c]] <= prev) bad.push('order under ' + i + ': ' + V.names[t.name[c]]);
      prev = rank[t.name[c]]; sum += t.tot[c]; any = true;
    }
    if (t.tot[i] !== sum) bad.push('total ' + i + ' ' + t.tot[i] + ' != ' + sum);
    if (!any && i > 0) bad.push('empty frame ' + i);
  }
  return bad;
}
let fails = 0, runs = 0;
for (let trial = 0; trial < 160; trial++) {
  const nn = [3, 6, 40, 400][trial % 4], cols = trial % 3 === 2 ? 2 : 1;
  const pool = [];
  for (let k = 0; k < nn; k++) pool.push((k % 3 === 0 ? 'libc.so`' : k % 3 === 1 ? 'app::' : 'f') + k);
  const stacks = [], nst = 50 + rnd(trial % 8 === 7 ? 6000 : 600), maxd = [4, 10, 40][trial % 3];
  let prev = [];
  for (let k = 0; k < nst; k++) {
    // a new stack shares a prefix with the previous one (bushy), or not (wide at the top)
    const f = rnd(2) ? prev.slice(0, rnd(prev.length + 1)) : [];
    for (let j = rnd(maxd) + 1; j > 0; j--) f.push(pool[nn > 40 && rnd(2) ? rnd(nn) : rnd(Math.min(nn, 8))]);
    stacks.push({ f, a: 1 + rnd(9), b: cols > 1 ? 1 + rnd(9) : 0 });
    prev = f;
  }
  const names = ['all'].concat(pool), id = new Map(names.map((s, i) => [s, i]));
  const B = new Builder(names.length, cols, 0);
  for (const s of stacks) B.add(s.f.map((x) => id.get(x)), s.f.length, s.a, s.b);
  const base = B.finish(names);
  // every other tree of one column without own counts, as the page keeps a profile of counts
  // none below zero (narrowCounts): the trees made keep none either
  const selfless = cols === 1 && trial % 2 === 1;
  if (selfless) base.self0 = null;
  const V = Object.create(Viewer.prototype);
  V.names = names.slice(); V.colors = []; V.rgb = []; V.offColors = []; V.offRgb = [];
  const fn = stacks[rnd(stacks.length)].f[0] || pool[0], deepf = stacks[rnd(stacks.length)].f, fpath = deepf.slice(0, 1 + rnd(Math.max(1, deepf.length))).join(';');
  const ops = [['merge', fn], ['drop', fn], ['rec', fn], ['rec', ''], ['lib', 'libc.so`'], ['lib', 'app::'], ['focusfn', fn], ['focus', fpath]];
  const chains = ops.map((o) => [o]).concat([[ops[0], ops[3]], [ops[4], ops[0], ops[2]], [ops[6], ops[3], ops[5]], [ops[3], ops[0]]]);
  for (const ch of chains) {
    let t = base, want = stacks;
    const shape = [];
    for (const [op, arg] of ch) {
      // the act first: it may add a name (lib), which the names' ranks then hold
      const act = transformAct(V, t, op, arg), t0 = t;
      t = transformTree(t, V.names, V.nameRank(), act);
      const s = sliced(t0, V.names, V.nameRank(), transformAct(V, t0, op, arg)), d = sameArrays(t, s);
      if (d) shape.push('in slices: ' + d);
      want = reference(want, op, arg);
    }
    runs++;
    shape.push(...wellFormed(V, t, V.nameRank()));
    if (selfless && t.self0) shape.push('own counts kept');
    // the ranks (made once, then kept up as a transform adds a name) are the names' order
    const rk = V.nameRank(), order = V.names.map((_, i) => i).sort((x, y) => nameCmp(V.names[x], V.names[y]));
    if (!order.every((x, q) => rk[x] === q)) shape.push('ranks not the names order after ' + JSON.stringify(ch));
    const got = treeFolded(V, t), exp = foldedOf(want, cols);
    if (JSON.stringify(got) !== JSON.stringify(exp) || shape.length) {
      if (fails++ < 4) {
        const miss = exp.filter((x) => !got.includes(x)).slice(0, 3), extra = got.filter((x) => !exp.includes(x)).slice(0, 3);
        console.log('trial ' + trial + ' ' + JSON.stringify(ch) + ': ' + got.length + ' stacks, want ' + exp.length + '; missing ' + JSON.stringify(miss) + ', extra ' + JSON.stringify(extra) + (shape.length ? '; tree: ' + shape.join(', ') : ''));
      }
    }
  }
}
console.log(runs + ' transforms checked, ' + fails + ' wrong');
process.exit(fails ? 1 : 0);

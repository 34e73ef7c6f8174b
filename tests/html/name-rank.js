// name-rank.js - the viewer's order of names (nameRank: the library's bytewise UTF-8
// order, which transforms sort children by) against a sort by nameCmp, on seeded random
// name sets: ASCII and BMP only (the engine's native sort), with surrogates and
// U+E000..U+FFFF (where UTF-16 order differs), with a duplicate name.
// usage: node name-rank.js PAGE-DIR (common/render/page: counts.js and viewer/*.js, joined as
// the build joins them)
'use strict';
const fs = require('fs'), path = require('path');
global.window = {}; global.document = {};
const dir = process.argv[2], vdir = path.join(dir, 'viewer');
new Function("'use strict';\n" + fs.readFileSync(path.join(dir, 'counts.js'), 'utf8') +
  fs.readdirSync(vdir).filter((f) => f.endsWith('.js')).sort().map((f) => fs.readFileSync(path.join(vdir, f), 'utf8')).join('\n') +
  '\nwindow.T = { nameCmp, Viewer };')();
const { nameCmp, Viewer } = window.T;
let seed = 12345;
const rnd = (k) => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return (seed >>> 8) % k; };
const pool = ['a', 'b', 'Z', '_', '\u00e9', '\u4e2d', ':', ' ', '\ud83d\ude00', '\ue000', '\uffee'];
let bad = 0;
for (let t = 0; t < 300; t++) {
  const set = new Set(), k = t % 3 === 0 ? 8 : pool.length;
  while (set.size < 60) { let s = ''; for (let j = rnd(6); j >= 0; j--) s += pool[rnd(k)]; set.add(s); }
  const names = [...set];
  if (t % 5 === 0) names.push(names[rnd(names.length)]);
  const V = Object.create(Viewer.prototype);
  V.names = names; V.colors = []; V.rgb = []; V.offColors = []; V.offRgb = [];
  const r = V.nameRank();
  const want = names.map((_, i) => i).sort((a, b) => nameCmp(names[a], names[b]) || a - b);
  // equal names may take either rank of theirs; every other name its own
  if (!want.every((x, q) => r[x] === q || (q > 0 && names[want[q - 1]] === names[x]) || (q + 1 < want.length && names[want[q + 1]] === names[x]))) {
    console.log('nameRank differs on ' + JSON.stringify(names));
    bad++;
  }
}
if (bad) process.exit(1);
console.log('name-rank: 300 sets ok');

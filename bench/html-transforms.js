// html-transforms.js - the viewer's transforms on a `flamekit html` page, timed in node as
// CPU time (less sensitive than wall time to a loaded machine): the page's own code
// (read as tests/html/page-node.js reads it), median of 3 runs per op, and a
// pass over as many numbers for scale. usage: node html-transforms.js PAGE.html
'use strict';
const { d } = require('../tests/html/page-node.js').load(process.argv[2], '\nwindow.flamekit.T = { transformTree, transformAct, Viewer };');
const { transformTree, transformAct, Viewer } = window.flamekit.T;
const V = Object.create(Viewer.prototype);
V.names = d.names.slice(); V.colors = []; V.rgb = []; V.offColors = []; V.offRgb = []; V.tree = d.tree;
const t = d.tree;
// the heaviest name below the roots (as the bench picks)
const tot = new Float64Array(V.names.length);
for (let i = 1; i < t.n; i++) if (t.depth[i] === 2) tot[t.name[i]] += t.tot[i];
let fn = 0; for (let k = 1; k < tot.length; k++) if (tot[k] > tot[fn]) fn = k;
const fname = V.names[fn], mod = fname.indexOf('::') > 0 ? fname.slice(0, fname.indexOf('::') + 2) : fname.slice(0, 4);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const base = () => { const a = new Float64Array(t.n).fill(1.5); const c0 = cpu(); let x = 0; for (let r = 0; r < 5; r++) for (let i = 0; i < a.length; i++) x += a[i]; return (cpu() - c0) / 5 + (x < 0); };
V.nameRank();
const out = [];
for (const [op, arg] of [['merge', fname], ['drop', fname], ['rec', fname], ['rec', ''], ['lib', mod], ['focusfn', fname]]) {
  const r = [];
  for (let k = 0; k < 3; k++) { const c0 = cpu(); const act = transformAct(V, t, op, arg); const x = transformTree(t, V.names, V.nameRank(), act); r.push([cpu() - c0, x.n]); }
  const cold = r[0][0]; r.sort((a, b) => a[0] - b[0]); r[1].push(cold);
  out.push(op + (arg ? '' : '(all)') + ' ' + r[1][0].toFixed(0) + ' ms cpu (first run ' + r[1][2].toFixed(0) + '; ' + r[1][1] + ' nodes)');
}
const b = base();
console.log('  transforms in node (' + t.n + ' nodes, "' + fname + '"; one pass over as many numbers: ' + b.toFixed(1) + ' ms cpu)');
console.log(out.map((x) => '    ' + x).join('\n'));

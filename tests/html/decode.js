// decode.js - prints the stacks a `flamekit html` page holds, as sorted folded lines,
// by running the page's own decoder in node (page-node.js): adapter tests
// compare them with the folded output of the same run. usage: node decode.js PAGE.html
'use strict';
const { d } = require('./page-node.js').load(process.argv[2]);
const t = d.tree, out = [], stack = [];
// a tree of one column with no own count below zero keeps none: a node's own count is its
// total less its children's
const own = (i) => { if (t.self0) return t.self0[i]; let s = t.tot[i]; for (let c = i + 1; c < t.end[i]; c = t.end[c]) s -= t.tot[c]; return s; };
for (let i = 1; i < t.n; i++) {
  stack.length = t.depth[i] - 1;
  stack.push(d.names[t.name[i]]);
  const a = own(i), b = t.self1 ? t.self1[i] : 0;
  if (a !== 0 || b !== 0) out.push(stack.join(';') + ' ' + (t.self1 ? a + ' ' + b : a));
}
process.stdout.write(out.sort().join('\n') + (out.length ? '\n' : ''));

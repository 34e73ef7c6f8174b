// decode.js - prints the stacks a `flamekit html` page holds, as sorted folded lines,
// by running the page's own decoder (common/render/page/viewer/*.js) in node: adapter tests
// compare them with the folded output of the same run. usage: node decode.js PAGE.html
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
global.window = {};
global.document = {};
// viewer.js only touches the DOM when a viewer is made; its decoder is plain JS
// (the count decoder, then its parts joined in name order into one function, as the build does)
const dir = path.join(__dirname, '../../common/render/page/viewer');
new Function("'use strict';\n" + fs.readFileSync(path.join(dir, '../counts.js'), 'utf8') + fs.readdirSync(dir).filter((f) => f.endsWith('.js')).sort().map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n'))();
const html = fs.readFileSync(process.argv[2], 'utf8');
const meta = JSON.parse(/<script id="fkmeta" type="application\/json">([\s\S]*?)<\/script>/.exec(html)[1]);
const b64 = /<script id="fkdata" type="application\/octet-stream">([\s\S]*?)<\/script>/.exec(html)[1];
const d = window.flamekit.decode(meta, new Uint8Array(zlib.inflateRawSync(Buffer.from(b64.replace(/\s+/g, ''), 'base64'))));
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

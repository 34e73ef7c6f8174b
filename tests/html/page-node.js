// page-node.js - a `flamekit html` page read in node by the page's own decoder
// (common/render/page/viewer/*.js, after the count decoder, joined in name order into one
// function as the build does): for tests/html/decode.js and bench/html-transforms.js.
// load(PAGE, EXTRA) -> { meta, d }: d as window.flamekit.decode gives it; EXTRA is source
// run after the viewer's (to publish its inner functions).
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

function load(page, extra) {
  global.window = {};
  global.document = {};
  // viewer.js only touches the DOM when a viewer is made; its decoder is plain JS
  const dir = path.join(__dirname, '../../common/render/page/viewer');
  new Function("'use strict';\n" + fs.readFileSync(path.join(dir, '../counts.js'), 'utf8') +
    fs.readdirSync(dir).filter((f) => f.endsWith('.js')).sort().map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n') +
    (extra || ''))();
  const html = fs.readFileSync(page, 'utf8');
  const meta = JSON.parse(/<script id="fkmeta" type="application\/json">([\s\S]*?)<\/script>/.exec(html)[1]);
  const b64 = /<script id="fkdata" type="application\/octet-stream">([\s\S]*?)<\/script>/.exec(html)[1];
  // the data: raw deflate streams one after the other, each [its bytes, their bytes inflated]
  const z = Buffer.from(b64.replace(/\s+/g, ''), 'base64');
  let at = 0;
  const parts = meta.parts.map(([zn, n], i) => {
    const b = zlib.inflateRawSync(z.subarray(at, at + zn));
    if (b.length !== n) throw new Error(`${page}: part ${i + 1} inflates to ${b.length} bytes, not ${n}`);
    at += zn;
    return b;
  });
  if (at !== z.length) throw new Error(`${page}: ${z.length - at} bytes after the parts`);
  const raw = Buffer.concat(parts);
  if (raw.length !== meta.raw) throw new Error(`${page}: ${raw.length} bytes, not ${meta.raw}`);
  return { meta, d: window.flamekit.decode(meta, new Uint8Array(raw)) };
}

module.exports = { load };

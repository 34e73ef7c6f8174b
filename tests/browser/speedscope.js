// speedscope.js - checks a speedscope JSON file written by flamekit: it validates against the
// file-format schema shipped in the speedscope npm package (ajv), its stacks and weights fold
// back to the expected folded text, evented profiles nest, and the speedscope viewer of that
// package opens it in headless Chromium (served over local HTTP) without errors.
// usage: node speedscope.js FILE.json EXPECTED.folded [SHOT.png]
// Prints "ok" and exits 0, or what failed and exits 1.
'use strict';
const fs = require('fs');
const http = require('http');
const os = require('os');
const path = require('path');
const { chromium } = require(path.join(__dirname, 'node_modules/playwright-core'));
const Ajv = require(path.join(__dirname, 'node_modules/ajv'));

const [file, expectedPath, shot] = process.argv.slice(2);
const release = path.join(__dirname, 'node_modules/speedscope/dist/release');
let failures = 0;
function check(cond, what) {
  if (!cond) { console.log('FAIL: ' + what); failures++; }
}

function foldSampled(doc, prof) {
  const sums = new Map();
  prof.samples.forEach((s, i) => {
    const k = s.map((f) => doc.shared.frames[f].name).join(';');
    sums.set(k, (sums.get(k) || 0) + prof.weights[i]);
  });
  return sums;
}

// An evented profile's stacks: the open frames between events, weighted by the time between.
function foldEvented(doc, prof) {
  const sums = new Map();
  const open = [];
  let last = prof.startValue;
  for (const e of prof.events) {
    if (e.at < last) throw new Error('events out of order at ' + e.at);
    if (e.at > last && open.length) {
      const k = open.map((f) => doc.shared.frames[f].name).join(';');
      sums.set(k, (sums.get(k) || 0) + (e.at - last));
    }
    last = e.at;
    if (e.type === 'O') open.push(e.frame);
    else if (open.pop() !== e.frame) throw new Error('close of frame ' + e.frame + ' that is not the innermost open');
  }
  if (open.length) throw new Error(open.length + ' frames still open at the end');
  if (last !== prof.endValue) throw new Error('last event at ' + last + ', endValue ' + prof.endValue);
  return sums;
}

function folded(sums) {
  return [...sums.entries()].filter(([, v]) => v !== 0)
    .map(([k, v]) => k + ' ' + v).sort((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b)))).join('\n');
}

async function main() {
  const text = fs.readFileSync(file, 'utf8');
  const doc = JSON.parse(text);
  const schema = JSON.parse(fs.readFileSync(path.join(release, 'file-format-schema.json'), 'utf8'));
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(schema);
  check(validate(doc), 'schema: ' + JSON.stringify(validate.errors).slice(0, 500));
  // flamekit's folded output sorts lines by the stack's bytes; counts are summed the same way
  const want = fs.readFileSync(expectedPath, 'utf8').trim().split('\n')
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))).join('\n');
  for (const prof of doc.profiles) {
    let got;
    try {
      got = folded(prof.type === 'sampled' ? foldSampled(doc, prof) : foldEvented(doc, prof));
    } catch (e) {
      check(false, prof.type + ': ' + e.message);
      continue;
    }
    check(got === want, prof.type + ' profile folds to other stacks:\n' + got.slice(0, 400) + '\nwanted:\n' + want.slice(0, 400));
  }

  // the viewer: speedscope's own release build, the profile fetched by #profileURL
  const server = http.createServer((req, res) => {
    const u = decodeURIComponent(req.url.split('?')[0].split('#')[0]);
    const p = u === '/profile.json' ? file : path.join(release, path.normalize(u).replace(/^\/+/, ''));
    if (u !== '/profile.json' && !p.startsWith(release)) { res.writeHead(403); res.end(); return; }
    fs.readFile(p, (err, data) => {
      if (err) { res.writeHead(404); res.end(); return; }
      const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm' };
      res.writeHead(200, { 'Content-Type': types[path.extname(p)] || 'application/octet-stream' });
      res.end(data);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  const ud = fs.mkdtempSync(path.join(os.tmpdir(), 'fk-speedscope-'));
  const ctx = await chromium.launchPersistentContext(ud, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1200, height: 700 },
  });
  const errors = [];
  try {
    const page = await ctx.newPage();
    page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
    page.on('dialog', async (d) => { errors.push('dialog: ' + d.message()); await d.dismiss(); });
    await page.goto(`http://127.0.0.1:${port}/index.html#profileURL=${encodeURIComponent('/profile.json')}`);
    // loaded: the title names the profile, and a frame name is drawn on the canvas as text
    // speedscope also lists in its hover/search data
    await page.waitForFunction(() => / - speedscope$/.test(document.title), null, { timeout: 90000 });
    const title = await page.title();
    check(title.startsWith(doc.name + ' - ') || title.includes(doc.profiles[0].name), 'viewer title: ' + title);
    const bodyText = await page.evaluate(() => document.body.innerText);
    check(!/Something went wrong|Unrecognized format|Failed to/i.test(bodyText), 'viewer says: ' + bodyText.slice(0, 200));
    check(await page.$('canvas') !== null, 'no canvas drawn');
    if (shot) await page.screenshot({ path: shot });
  } finally {
    await ctx.close();
    server.close();
    fs.rmSync(ud, { recursive: true, force: true });
  }
  check(errors.length === 0, 'page errors: ' + errors.join(' | '));
  if (failures) process.exit(1);
  console.log('ok');
}
main().catch((e) => { console.log('FAIL: ' + (e.stack || e)); process.exit(1); });

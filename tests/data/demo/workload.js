// workload.js - the bundled demo workload: a small "web service" loop in
// node (parse requests, route by regex, render templates, sort results),
// recorded with `perf record -F 999 -g node --perf-basic-prof workload.js`.
'use strict';
function parseRequest(line) {
  const [method, path, body] = line.split(' ');
  return { method, path, body: body ? JSON.parse(body) : null };
}
const routes = [
  [/^\/users\/(\d+)$/, (m, req) => ({ id: +m[1], name: 'user' + m[1] })],
  [/^\/search\?q=([a-z]+)$/, (m) => search(m[1])],
  [/^\/report$/, () => report()],
];
function route(req) {
  for (const [re, fn] of routes) {
    const m = re.exec(req.path);
    if (m) return fn(m, req);
  }
  return { error: 404 };
}
const words = [];
for (let i = 0; i < 20000; i++) words.push('w' + ((i * 2654435761) % 100003).toString(36));
function search(q) {
  return words.filter((w) => w.includes(q)).sort().slice(0, 20);
}
function report() {
  const rows = [];
  for (let i = 0; i < 2000; i++) rows.push({ k: words[(i * 7) % words.length], v: Math.sqrt(i) });
  rows.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
  return renderTemplate(rows);
}
function renderTemplate(rows) {
  let out = '<table>';
  for (const r of rows) out += `<tr><td>${r.k}</td><td>${r.v.toFixed(3)}</td></tr>`;
  return out + '</table>';
}
function serve(lines) {
  let bytes = 0;
  for (const l of lines) bytes += JSON.stringify(route(parseRequest(l))).length;
  return bytes;
}
const reqs = [];
for (let i = 0; i < 60; i++) {
  reqs.push('GET /users/' + i);
  reqs.push('GET /search?q=' + 'abcdefghij'[i % 10] + 'z');
  if (i % 6 === 0) reqs.push('GET /report');
  reqs.push('POST /users/' + i + ' {"name":"n' + i + '","tags":[1,2,3]}');
}
const end = Date.now() + 2500;
let total = 0;
while (Date.now() < end) total += serve(reqs);
console.log('served bytes', total);

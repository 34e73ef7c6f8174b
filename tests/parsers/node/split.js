// split.js - a known JS workload for tests/parsers/t-cpuprofile.sh: heavy() does three times
// the work of light(), 40 rounds each.
function spin(n) { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003; return x; }
function light() { return spin(2e6); }
function heavy() { return spin(6e6); }
let s = 0;
for (let r = 0; r < 40; r++) { s += light(); s += heavy(); }
console.log(s > 0 ? 'done' : 'done');

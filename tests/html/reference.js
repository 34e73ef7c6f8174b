// reference.js - the viewer's transforms written plainly over one stack's frames (root
// first), the reference the page tests hold the viewer to: the frames the stack has after
// op(arg), or null where the transform leaves the stack out. rec with arg '' collapses every
// recursion (each name kept at its first place).
'use strict';
function transformFrames(f, op, arg) {
  if (op === 'focus') {
    const p = arg.split(';');
    if (f.length < p.length || p.some((x, i) => f[i] !== x)) return null;
    return f.slice(p.length - 1);
  }
  if (op === 'focusfn') {
    const i = f.indexOf(arg);
    return i < 0 ? null : f.slice(i);
  }
  if (op === 'merge') return f.filter((x) => x !== arg);
  if (op === 'drop') return f.includes(arg) ? null : f;
  if (op === 'rec' && arg === '') return f.filter((x, i) => f.indexOf(x) === i);
  if (op === 'rec') {
    const i = f.indexOf(arg);
    return i < 0 ? f : f.slice(0, i + 1).concat(f.slice(i + 1).filter((x) => x !== arg));
  }
  if (op === 'lib') {
    const g = [];
    for (const x of f) {
      if (x.includes(arg)) { if (g[g.length - 1] !== arg) g.push(arg); } else g.push(x);
    }
    return g;
  }
  return f;
}
module.exports = { transformFrames };

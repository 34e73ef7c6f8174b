// @ts-check
// sandwich.js - callers and callees of one function, and the folded text of the tree.
/* ---------------------------------------------------------------- sandwich
 * Callers (above, leaf-first) and callees (below) of one function; recursion counted
 * once: only the outermost frame of the function on each stack counts. */
/** @this {FkV} */
Viewer.prototype.sandwichData = function (fname) {
  var V = /** @type {FkV} */ (this), t = V.tree, id = V.nameId(fname), nn = V.names.length, cols = t.cols;
  var callers = new Builder(nn, cols, t.name[0]), callees = new Builder(nn, cols, t.name[0]), total = 0, self = 0, total0 = 0, self0 = 0;
  if (id < 0) return null;
  var path = new Int32Array(maxDepth(t) + 2), open = -1, tot0 = t.tot0;
  var s0 = selfs(t), s1 = cols > 1 ? t.self1 : s0, rev = [];
  for (var i = 1; i < t.n; i++) {
    var d = t.depth[i];
    path[d - 1] = t.name[i];
    if (open >= 0 && i >= t.end[open]) open = -1;
    if (open < 0 && t.name[i] === id) {
      open = i;
      total += t.tot[i];
      if (tot0) total0 += tot0[i];
      rev.length = 0;
      for (var k = d - 1; k >= 0; k--) rev.push(path[k]);
      // the callers graph: the path leaf-first, weighted by this frame's total
      callers.add(rev, rev.length, tot0 ? tot0[i] : t.tot[i], cols > 1 ? t.tot[i] : 0);
    }
    if (t.name[i] === id) { self += s1[i] > 0 ? s1[i] : 0; if (tot0) self0 += s0[i] > 0 ? s0[i] : 0; }
    if (open >= 0) {
      var od = t.depth[open], v0 = s0[i], v1 = cols > 1 ? t.self1[i] : 0;
      if (v0 !== 0 || v1 !== 0) callees.add(path.subarray(od - 1, d), d - od + 1, v0, v1);
    }
  }
  var a = callers.finish(V.names), b = callees.finish(V.names);
  function direct(tr) {
    var out = [], r = tr.n > 1 ? 1 : -1;
    if (r < 0) return out;
    for (var c = r + 1; c < tr.end[r]; c = tr.end[c]) out.push({ name: V.names[tr.name[c]], total: tr.tot[c] });
    out.sort(function (x, y) { return y.total - x.total || (x.name < y.name ? -1 : 1); });
    return out;
  }
  return { name: fname, total: total, self: self, total0: total0, self0: self0, callersTree: a, calleesTree: b, callers: direct(a), callees: direct(b) };
};
/** @this {FkV} */
Viewer.prototype.sandwich = function (name) {
  this.set({ sandwich: String(name), view: 'sandwich' });
  var d = this.sandwichData(String(name));
  return d ? { name: d.name, total: d.total, self: d.self, total0: d.total0, self0: d.self0, callers: d.callers, callees: d.callees } : null;
};
/** @this {FkV} */
Viewer.prototype.renderSandwich = function () {
  var V = /** @type {FkV} */ (this), name = V.state.sandwich;
  if (!name && V.selected) name = V.selected.name;
  if (!name) { V.main.appendChild(el('div', 'fkhint', 'Click a frame, a table row or search, then press s (or pick Sandwich) to see its callers and callees.')); return; }
  var d = V.sandwichData(name), all = V.tree.tot[0], m = V.meta;
  if (!d || !(d.total > 0 || d.total0 > 0)) { V.main.appendChild(el('div', 'fkhint', 'No stack holds ' + name + '.')); return; }
  var f = m.factor, all0 = V.isDiff() ? V.tree.tot0[0] : 0;
  // a differential profile: each side's own numbers and the change, whatever the widths
  V.main.appendChild(el('div', 'fkswtitle', !V.isDiff() ? name + ': total ' + fmtCount(d.total, f) + ' (' + pct(d.total, all) +
    '), self ' + fmtCount(d.self, f) + ' (' + pct(d.self, all) + ')' :
    name + ': total before ' + fmtCount(d.total0, f) + ' (' + pct(d.total0, all0) + '), after ' + fmtCount(d.total, f) + ' (' +
    pct(d.total, all) + '), change ' + fmtChange(d.total - d.total0, f) + ' (' + pctChange(d.total0, d.total) + '); self before ' +
    fmtCount(d.self0, f) + ', after ' + fmtCount(d.self, f) + ', change ' + fmtChange(d.self - d.self0, f) + ' (' + pctChange(d.self0, d.self) + ')'));
  V.main.appendChild(el('div', 'fklabel', 'Callers (leaf-first, the function at the bottom)'));
  // two panes, each with its own scroll, half of the window's height each at most
  var g1 = V.makeGraph('callers'), g2 = V.makeGraph('callees');
  V.main.appendChild(g1.wrap);
  V.main.appendChild(el('div', 'fklabel', 'Callees'));
  V.main.appendChild(g2.wrap);
  g1.tree = d.callersTree; g1.zoom = d.callersTree.n > 1 ? 1 : 0; g1.icicle = false; g1.share = 0.45;
  g2.tree = d.calleesTree; g2.zoom = d.calleesTree.n > 1 ? 1 : 0; g2.icicle = true; g2.share = 0.45;
  V.graphs = [g1, g2];
  V.draw();
};

/* Folded text of the current tree (after the transforms), lines sorted: what the
 * same transforms give on the input's folded text. */
/** @this {FkV} */
Viewer.prototype.folded = function () {
  var V = /** @type {FkV} */ (this), out = [];
  eachStack(V.tree, function (path, len, a, b) {
    var s = '';
    for (var k = 0; k < len; k++) s += (k ? ';' : '') + V.names[path[k]];
    out.push(s + ' ' + (V.tree.cols > 1 ? a + ' ' + b : a));
  });
  return out.sort();
};

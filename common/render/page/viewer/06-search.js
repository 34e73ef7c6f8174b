// @ts-check
// search.js - exact search (each name tested once, one pass over the tree), next/previous
// match, and paths of names to and from nodes.
/* ---------------------------------------------------------------- search */
/** @this {FkV} */
Viewer.prototype.regex = function () {
  var s = this.state;
  if (!s.search) return null;
  try { return new RegExp(s.search, s.ic ? 'i' : ''); } catch (e) { return false; }
};
/* The outermost frames whose names are hit (a match's subtree counted once), in order:
 * forward, jumping past each match's subtree. Each node's end and total are read as the pass
 * goes, hit or not: read only at a match they would be a cache miss each (twice as slow).
 * Returns their count and the sum of their totals (sum0: of the totals before, on a
 * differential tree, where a frame with a count on either side is a match); list, when
 * given, gets their indexes. */
function outerMatches(t, hit, list) {
  var name = t.name, end = t.end, tot = t.tot, n = t.n, sum = 0, sum0 = 0, count = 0, i = 1, e, x, x0;
  var tot0 = t.cols > 1 && t.tot0 ? t.tot0 : null;
  while (i < n) {
    e = end[i];
    x = tot[i];
    if (hit[name[i]] === 1) {
      x0 = tot0 ? tot0[i] : 0;
      if (x > 0 || x0 > 0) { if (list) list[count] = i; sum += x; sum0 += x0; count++; }
      i = e;
    } else i++;
  }
  return { sum: sum, sum0: sum0, count: count };
}
/* Exact share of the tree under the matching frames: each name tested once, then the pass. */
/** @this {FkV} */
Viewer.prototype.searchTree = function (t, re) {
  var V = /** @type {FkV} */ (this), names = V.names, hit = new Uint8Array(names.length), any = false;
  for (var k = 0; k < names.length; k++) if (re.test(names[k])) { hit[k] = 1; any = true; }
  var r = any ? outerMatches(t, hit, null) : { sum: 0, sum0: 0, count: 0 };
  return { hit: hit, sum: r.sum, total: t.tot[0], sum0: r.sum0, total0: t.cols > 1 && t.tot0 ? t.tot0[0] : 0,
    count: r.count, tree: t, list: null };
};
/* The matching frames the search counted, in order: made when the next/previous match is
 * asked for, not by every search. */
function matchList(m) {
  if (!m.list) outerMatches(m.tree, m.hit, (m.list = new Int32Array(m.count)));
  return m.list;
}

/** @this {FkV} */
Viewer.prototype.nextMatch = function (dir) {
  var V = /** @type {FkV} */ (this), m = V.match;
  if (!m) return (dir > 0 ? 'n' : 'N') + ': no search (press / to search)';
  if (!m.count) return (dir > 0 ? 'n' : 'N') + ': no frame matches the search';
  var cur = V.zoomNode(), k, ms = matchList(m);
  if (dir > 0) { for (k = 0; k < ms.length && ms[k] <= cur; k++); if (k === ms.length) k = 0; }
  else { for (k = ms.length - 1; k >= 0 && ms[k] >= cur; k--); if (k < 0) k = ms.length - 1; }
  V.set({ zoom: V.pathOf(ms[k]), view: 'flame' });
};

/* ---------------------------------------------------------------- paths */
/* Ancestors of node, root first: down from the root, jumping over sibling subtrees. */
function ancestors(t, node) {
  var out = [], v = 0, end = t.end;
  while (v !== node) {
    out.push(v);
    var c = v + 1;
    while (end[c] <= node) c = end[c];
    v = c;
  }
  return out;
}
/** @this {FkV} */
Viewer.prototype.pathOf = function (node) {
  var V = /** @type {FkV} */ (this), t = V.tree;
  if (node <= 0) return [];
  return ancestors(t, node).slice(1).concat([node]).map(function (i) { return V.names[t.name[i]]; });
};
/** @this {FkV} */
Viewer.prototype.findPath = function (path) { return this.findPathIn(this.tree, path); };
/** @this {FkV} */
Viewer.prototype.findPathIn = function (t, path) {
  var v = 0;
  for (var k = 0; k < path.length; k++) {
    var id = this.nameId(path[k]), c = v + 1, found = -1;
    while (c < t.end[v]) { if (t.name[c] === id) { found = c; break; } c = t.end[c]; }
    if (found < 0) return -1;
    v = found;
  }
  return v;
};
/** @this {FkV} */
Viewer.prototype.zoomNode = function () {
  var z = this.findPath(this.state.zoom);
  return z < 0 ? 0 : z;
};

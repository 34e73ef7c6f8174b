// @ts-check
// tree.js - the viewer's trees: typed arrays in preorder (name, depth, subtree end, own
// and total counts), built from stacks (Builder) or finished from own counts (finishTree).
/* ---------------------------------------------------------------- trees
 * A tree is a set of typed arrays in preorder (children by name): name (index into
 * names), depth, end (one past the last node of the subtree), self0/self1 (own counts
 * per column) and tot (inclusive count of the drawn column). Node 0 is the root. */
function finishTree(t) {
  var n = t.n, tot = new Float64Array(n), end = t.end, depth = t.depth, self = t.cols > 1 ? t.self1 : t.self0;
  var tot0 = t.cols > 1 ? new Float64Array(n) : null, s0 = t.self0, md = 0, i, c, d, x;
  for (i = 0; i < n; i++) if (depth[i] > md) md = depth[i];
  var st = new Int32Array(md + 2), sp = 0;
  // totals: a node's total goes to its parent when the node closes (negative counts
  // count as zero: a child is never wider than its parent)
  for (i = 0; i < n; i++) {
    x = self[i];
    tot[i] = x > 0 ? x : 0;
    if (tot0) tot0[i] = s0[i] > 0 ? s0[i] : 0;
  }
  for (i = 0; i < n; i++) {
    d = depth[i];
    while (sp > d) {
      c = st[--sp];
      end[c] = i;
      if (sp) { tot[st[sp - 1]] += tot[c]; if (tot0) tot0[st[sp - 1]] += tot0[c]; }
    }
    st[sp++] = i;
  }
  while (sp) {
    c = st[--sp];
    end[c] = n;
    if (sp) { tot[st[sp - 1]] += tot[c]; if (tot0) tot0[st[sp - 1]] += tot0[c]; }
  }
  t.tot = tot;
  t.tot0 = tot0;
  t.kids = new Map(); // node -> its children that can be seen (filled as frames are drawn)
  t.maxDepth = md;
  t.maxdelta = maxDelta(t);
  return t;
}
function maxDepth(t) { return t.maxDepth; }
/* Node i's own count (the first column). A tree of one column whose own counts are none
 * below zero keeps none (self0 null: 4 bytes a node less, narrowCounts): a node's own
 * count is then its total less its children's. */
function selfAt(t, i) {
  if (t.self0) return t.self0[i];
  var tot = t.tot, end = t.end, e = end[i], s = tot[i], c;
  for (c = i + 1; c < e; c = end[c]) s -= tot[c];
  return s;
}
/* Every node's own count (the first column): self0, or made from the totals (a node's
 * total less its children's; none below zero, at most the total: the totals' type holds
 * them). */
function selfs(t) {
  if (t.self0) return t.self0;
  var n = t.n, tot = t.tot, dep = t.depth, a = new (tot instanceof Uint32Array ? Uint32Array : Float64Array)(n);
  var st = new Int32Array(t.maxDepth + 2), i, d;
  for (i = 0; i < n; i++) {
    d = dep[i];
    a[i] = tot[i];
    if (i) a[st[d - 1]] -= tot[i];
    st[d] = i;
  }
  return a;
}
/* The differential colour scale: the largest change of a frame's own count (at least 1). */
function maxDelta(t) {
  var m = 1, i, x, a = t.self0, b = t.self1;
  if (t.cols > 1) {
    for (i = 0; i < t.n; i++) {
      x = Math.abs((b[i] > 0 ? b[i] : 0) - (a[i] > 0 ? a[i] : 0));
      if (x > m) m = x;
    }
  }
  return m;
}

/* Builds a tree from stacks (root-first name ids and a count per column). */
function Builder(nnames, cols, rootName) {
  this.nn = nnames; this.cols = cols;
  this.name = [rootName || 0]; this.parent = [-1]; this.s0 = [0]; this.s1 = [0];
  this.kids = new Map();
}
Builder.prototype.child = function (p, nm) {
  var key = p * this.nn + nm, c = this.kids.get(key);
  if (c === undefined) {
    c = this.name.length;
    this.name.push(nm); this.parent.push(p); this.s0.push(0); this.s1.push(0);
    this.kids.set(key, c);
  }
  return c;
};
Builder.prototype.add = function (path, len, v0, v1) {
  var p = 0;
  for (var k = 0; k < len; k++) p = this.child(p, path[k]);
  this.s0[p] += v0; this.s1[p] += v1;
  return p;
};
Builder.prototype.finish = function (names) {
  var m = this.name.length, first = new Int32Array(m).fill(-1), next = new Int32Array(m).fill(-1);
  var order = new Array(m - 1);
  for (var i = 1; i < m; i++) order[i - 1] = i;
  var nm = this.name;
  // children in name order (descending here, pushed to the front of each list)
  order.sort(function (a, b) { var x = names[nm[a]], y = names[nm[b]]; return x < y ? 1 : x > y ? -1 : 0; });
  for (var k = 0; k < order.length; k++) { var c = order[k], p = this.parent[c]; next[c] = first[p]; first[p] = c; }
  var t = { n: m, cols: this.cols, name: new Int32Array(m), depth: new Int32Array(m), end: new Int32Array(m),
    self0: new Float64Array(m), self1: this.cols > 1 ? new Float64Array(m) : null };
  var st = [0], dep = [0], o = 0;
  while (st.length) {
    var v = st.pop(), d = dep.pop();
    t.name[o] = nm[v]; t.depth[o] = d; t.self0[o] = this.s0[v];
    if (t.self1) t.self1[o] = this.s1[v];
    o++;
    // push children in reverse so the first (smallest name) comes out first
    var ch = [];
    for (var x = first[v]; x >= 0; x = next[x]) ch.push(x);
    for (var j = ch.length - 1; j >= 0; j--) { st.push(ch[j]); dep.push(d + 1); }
  }
  return finishTree(t);
};

/* Every stack of a tree: fn(path, len, self0, self1), path = root-first name ids. */
function eachStack(t, fn) {
  var path = new Int32Array(maxDepth(t) + 1), s0 = selfs(t);
  for (var i = 1; i < t.n; i++) {
    var d = t.depth[i];
    path[d - 1] = t.name[i];
    var a = s0[i], b = t.self1 ? t.self1[i] : 0;
    if (a !== 0 || b !== 0) fn(path, d, a, b);
  }
  if (s0[0] !== 0 || (t.self1 && t.self1[0] !== 0)) fn(path, 0, s0[0], t.self1 ? t.self1[0] : 0);
}

// viewer.js - the canvas flame graph viewer of `flamekit html` pages and of the heat
// map's range graphs: decodes the page data (docs/html.md), draws with canvas, and offers
// zoom, exact search, sandwich, functions table, transforms; window.flamekit drives it.
(function () {
'use strict';
var doc = document;

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
  var path = new Int32Array(maxDepth(t) + 1);
  for (var i = 1; i < t.n; i++) {
    var d = t.depth[i];
    path[d - 1] = t.name[i];
    var a = t.self0[i], b = t.self1 ? t.self1[i] : 0;
    if (a !== 0 || b !== 0) fn(path, d, a, b);
  }
  if (t.self0[0] !== 0 || (t.self1 && t.self1[0] !== 0)) fn(path, 0, t.self0[0], t.self1 ? t.self1[0] : 0);
}

/* ---------------------------------------------------------------- page data */
function varintReader(u8, pos) {
  return {
    p: pos,
    uv: function () {
      var v = 0, mul = 1, b;
      do {
        b = u8[this.p++];
        v += (b & 127) * mul;
        mul *= 128;
      } while (b & 128);
      return v;
    }
  };
}

/* Names: length + UTF-8 bytes each; all-ASCII runs decoded in one call and cut. */
function readNames(u8, at, n) {
  var names = new Array(n), r = varintReader(u8, at), i, j, e;
  var lens = new Int32Array(n), starts = new Int32Array(n), ascii = true;
  for (i = 0; i < n; i++) {
    lens[i] = r.uv();
    starts[i] = r.p;
    r.p += lens[i];
  }
  for (j = at; j < r.p && ascii; j++) if (u8[j] >= 128) ascii = false;
  if (ascii) {
    // one decoder call for all (one char a byte), then substrings
    var all = new TextDecoder('latin1').decode(u8.subarray(at, r.p));
    for (i = 0; i < n; i++) names[i] = all.substr(starts[i] - at, lens[i]);
    return names;
  }
  var td = new TextDecoder('utf-8');
  for (i = 0; i < n; i++) {
    e = starts[i] + lens[i];
    names[i] = td.decode(u8.subarray(starts[i], e));
  }
  return names;
}

/* Own counts: a reader of counts (2v, or 2i+1 for floats[i]) and of the distances before
 * them (self streams: `next` is the node the next count belongs to, -1 at the end). */
function SelfReader(u8, p, e, fl) { this.u8 = u8; this.p = p; this.e = e; this.fl = fl; this.next = -1; }
SelfReader.prototype.uv = function () {
  var u8 = this.u8, v = 0, mul = 1, b;
  do { b = u8[this.p++]; v += (b & 127) * mul; mul *= 128; } while (b & 128);
  return v;
};
SelfReader.prototype.count = function () { var v = this.uv(); return v % 2 === 0 ? v / 2 : this.fl[(v - 1) / 2]; };
SelfReader.prototype.step = function () { this.next = this.p < this.e ? (this.next < 0 ? 0 : this.next) + this.uv() : -1; };

/* The node loop of decode (kept apart so its variables live in registers). A node whose
 * depth is not one more than the one before closes the nodes it is not below; past the
 * last node (i = n) all of them close. */
function readTree(u8, pp, qp, rp, nraw, idw, alpha, NN, n, md, t, sv, sv1, lv, lv1) {
  var name = t.name, dep = t.depth, end = t.end, self0 = t.self0, self1 = t.self1, tot = t.tot, tot0 = t.tot0;
  var two = !!tot0;
  var astart = new Int32Array(alpha ? NN : 1).fill(-1), alen = new Uint8Array(alpha ? NN : 1);
  var apool = new Int32Array(alpha ? 64 * alpha : 1), aused = 0;
  var stk = new Int32Array(md + 2), sp = 0, rj = 0;
  var i, j, b, mul, v, code, id, pn, d, prevd = 0, c, x, y;
  sv.step();
  if (two) sv1.step();
  v = u8[pp++]; if (v >= 128) { v &= 127; mul = 128; do { b = u8[pp++]; v += (b & 127) * mul; mul *= 128; } while (b & 128); }
  var zr = v;
  for (i = 0; i <= n; i++) {
    if (i) {
      if (zr && i < n) { zr--; d = prevd + 1; } else {
        if (i < n) {
          v = u8[pp++]; if (v >= 128) { v &= 127; mul = 128; do { b = u8[pp++]; v += (b & 127) * mul; mul *= 128; } while (b & 128); }
          d = prevd + 1 - v;
          v = u8[pp++]; if (v >= 128) { v &= 127; mul = 128; do { b = u8[pp++]; v += (b & 127) * mul; mul *= 128; } while (b & 128); }
          zr = v;
        } else d = 1;
        // the node before was a leaf: its own count (the root's, a lone node, is a self)
        c = i - 1;
        if (c) {
          x = lv.count();
          self0[c] = x;
          if (two) {
            y = lv1.count();
            self1[c] = y;
            tot0[c] += x > 0 ? x : 0;
            tot[c] += y > 0 ? y : 0;
          } else tot[c] += x > 0 ? x : 0;
        }
        // close the nodes this one is not below: their totals go to their parents
        while (sp >= d) {
          c = stk[sp--];
          end[c] = i;
          tot[stk[sp]] += tot[c];
          if (two) tot0[stk[sp]] += tot0[c];
        }
        if (i === n) break;
      }
      pn = name[stk[sp]];
      code = u8[qp++];
      if (code < alpha) id = apool[astart[pn] + code];
      else {
        if (code < 255) id = code - alpha + 1;
        else {
          id = u8[rp + rj];
          for (j = 1, mul = 256; j < idw; j++, mul *= 256) id += u8[rp + j * nraw + rj] * mul;
          rj++;
        }
        if (alpha && alen[pn] < alpha) {
          if (astart[pn] < 0) {
            if (aused + alpha > apool.length) { var np = new Int32Array(apool.length * 2); np.set(apool); apool = np; }
            astart[pn] = aused;
            aused += alpha;
          }
          apool[astart[pn] + alen[pn]++] = id;
        }
      }
      name[i] = id;
      dep[i] = d;
      stk[++sp] = i;
      prevd = d;
    }
    // other own counts (inner nodes, the root)
    if (i === sv.next) {
      x = sv.count();
      self0[i] = x;
      if (two) tot0[i] += x > 0 ? x : 0; else tot[i] += x > 0 ? x : 0;
      sv.step();
    }
    if (two && i === sv1.next) {
      y = sv1.count();
      self1[i] = y;
      tot[i] += y > 0 ? y : 0;
      sv1.step();
    }
  }
  end[0] = n;
}

/* The tree from the node streams (docs/html.md) in one forward pass: depth from the runs,
 * name from its code, own counts from the leaf and self streams; a node's total goes to its
 * parent when it closes, which also sets its subtree's end. */
function decode(meta, u8) {
  var S = meta.streams, off = 0, at = {}, K = ['names', 'colors', 'pops', 'name', 'raw', 'leaf0', 'leaf1', 'self0', 'self1', 'offcolors'];
  K.forEach(function (k) { at[k] = off; off += S[k] || 0; });
  var NN = meta.names, names = readNames(u8, at.names, NN);
  var hex = '0123456789abcdef', i, j;
  function palette(at) {
    var colors = new Array(NN), rgb = new Uint32Array(NN);
    for (i = 0; i < NN; i++) {
      var q = at + 3 * i, s = '#';
      for (j = 0; j < 3; j++) s += hex[u8[q + j] >> 4] + hex[u8[q + j] & 15];
      colors[i] = s;
      rgb[i] = 0xff000000 | u8[q + 2] << 16 | u8[q + 1] << 8 | u8[q]; // ABGR: canvas pixels little-endian
    }
    return { colors: colors, rgb: rgb };
  }
  var pal = palette(at.colors), colors = pal.colors, rgb = pal.rgb, off = S.offcolors ? palette(at.offcolors) : null;
  var n = meta.nodes, cols = meta.cols, md = meta.depth || 0;
  var t = { n: n, cols: cols, name: new Int32Array(n), depth: md < 256 ? new Uint8Array(n) : md < 65535 ? new Uint16Array(n) : new Int32Array(n),
    end: new Int32Array(n), self0: new Float64Array(n), self1: cols > 1 ? new Float64Array(n) : null,
    tot: new Float64Array(n), tot0: cols > 1 ? new Float64Array(n) : null };
  var fl = meta.floats, alpha = meta.alpha || 0, idw = meta.idw || 1;
  var nraw = idw ? (S.raw || 0) / idw : 0;
  var sv = new SelfReader(u8, at.self0, at.self0 + (S.self0 || 0), fl);
  var sv1 = new SelfReader(u8, at.self1, at.self1 + (S.self1 || 0), fl);
  var lv = new SelfReader(u8, at.leaf0, 0, fl), lv1 = new SelfReader(u8, at.leaf1, 0, fl);
  readTree(u8, at.pops, at.name, at.raw, nraw, idw, alpha, NN, n, md, t, sv, sv1, lv, lv1);
  t.maxDepth = md;
  t.maxdelta = maxDelta(t);
  t.kids = new Map();
  return { tree: t, names: names, colors: colors, rgb: rgb, offColors: off && off.colors, offRgb: off && off.rgb };
}

function base64Bytes(s) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(s);
  var bin = atob(s), u8 = new Uint8Array(bin.length);
  for (var i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
  return u8;
}

/* Inflates into one buffer of the size the meta data gives (no chunk list to join). */
function inflate(u8, size) {
  var out = new Uint8Array(size), o = 0;
  var rd = new Blob([u8]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  function pump() {
    return rd.read().then(function (r) {
      if (r.done) return out;
      if (o + r.value.length > out.length) throw new Error('page data larger than its size');
      out.set(r.value, o);
      o += r.value.length;
      return pump();
    });
  }
  return pump();
}

/* ---------------------------------------------------------------- formatting */
function fmtCount(v, fac) {
  v *= fac || 1;
  var s = Math.abs(v - Math.round(v)) < 1e-9 * Math.max(1, Math.abs(v)) ? String(Math.round(v)) : String(Math.round(v * 1000) / 1000);
  var m = /^(-?)(\d+)(.*)$/.exec(s);
  return m ? m[1] + m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ',') + m[3] : s;
}
function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(2) + '%' : '0%'; }
function el(tag, cls, text) {
  var e = doc.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/* ---------------------------------------------------------------- the viewer
 * opts: { names, colors, tree, meta, hash (keep state in location.hash) } */
function Viewer(root, opts) {
  var V = this;
  V.root = root;
  V.meta = opts.meta || {};
  V.names = opts.names.slice();
  V.colors = opts.colors.slice();
  V.rgb = opts.rgb ? Array.from(opts.rgb) : V.colors.map(function (s) { return cssAbgr(s, 0xffc8c8c8); });
  // combined on/off-CPU graphs: frames whose time is all off-CPU in their own colours
  V.offMark = V.meta.offmark >= 0 && opts.offRgb ? V.meta.offmark : -1;
  V.offColors = opts.offColors ? opts.offColors.slice() : [];
  V.offRgb = opts.offRgb ? Array.from(opts.offRgb) : [];
  V.base = opts.tree;             // the tree as read
  V.tree = opts.tree;             // after the transforms
  V.useHash = !!opts.hash;
  V.state = { view: 'flame', icicle: !!V.meta.inverted, left: false, zoom: [], search: '', ic: false,
    sandwich: '', transforms: [], dark: false, sort: 'self', split: 'thread' };
  V.nameIndex = null;
  V.build();
  if (V.useHash) V.readHash();
  V.applyTransforms();
  V.resolveZoom();
  V.render();
  if (V.useHash) window.addEventListener('hashchange', function () { if (location.hash !== V.lastHash) { V.readHash(); V.applyTransforms(); V.resolveZoom(); V.render(); } });
  window.addEventListener('resize', function () { clearTimeout(V.rt); V.rt = setTimeout(function () { V.W = 0; V.availH = 0; V.draw(); }, 100); });
}

/* A new tree to show (the heat map's next range): transforms, search, zoom kept. */
Viewer.prototype.setTree = function (t) {
  this.base = t;
  this.applyTransforms();
  this.render();
};

Viewer.prototype.build = function () {
  var V = this, m = V.meta;
  V.root.textContent = '';
  V.root.classList.add('fkv');
  var bar = el('div', 'fkbar');
  if (m.title) bar.appendChild(el('span', 'fktitle', m.title));
  function btn(label, title, fn) {
    var b = el('button', null, label);
    b.type = 'button';
    b.title = title;
    b.addEventListener('click', fn);
    bar.appendChild(b);
    return b;
  }
  V.bView = { flame: btn('Flame', 'flame graph (g)', function () { V.set({ view: 'flame' }); }),
    sandwich: btn('Sandwich', 'callers and callees of one function (w)', function () { V.set({ view: 'sandwich' }); }),
    table: btn('Table', 'functions by self and total (t)', function () { V.set({ view: 'table' }); }) };
  V.bIcicle = btn('Icicle', 'root at the top (i)', function () { V.set({ icicle: !V.state.icicle }); });
  V.bLeft = btn('Left-heavy', 'heaviest children first (l)', function () { V.set({ left: !V.state.left }); });
  V.bReset = btn('Reset zoom', 'Escape', function () { V.set({ zoom: [] }); });
  V.bTheme = btn('Dark', 'light/dark theme (d)', function () { V.set({ dark: !V.state.dark }); });
  // per thread / per process / merged: only when root frames name threads (comm-PID/TID)
  V.bSplit = btn('Threads', 'root frames per thread, per process, or merged (p)', function () { V.nextSplit(); });
  V.search = el('input');
  V.search.type = 'search';
  V.search.placeholder = 'search (regex)';
  V.search.size = 22;
  V.search.title = '/ to focus; Enter/n next match, N previous';
  bar.appendChild(V.search);
  V.bCase = btn('Aa', 'case sensitive (toggle; c)', function () { V.set({ ic: !V.state.ic }); });
  btn('\u25c0', 'previous match (N)', function () { V.nextMatch(-1); });
  btn('\u25b6', 'next match (n)', function () { V.nextMatch(1); });
  V.matched = el('span', 'fkmatched');
  bar.appendChild(V.matched);
  btn('?', 'keys (?)', function () { V.help(); });
  V.root.appendChild(bar);
  if (m.subtitle) V.root.appendChild(el('div', 'fksub', m.subtitle));
  V.tbar = el('div', 'fktr');
  V.root.appendChild(V.tbar);
  V.noteEl = el('div', 'fknote');
  V.noteEl.hidden = true;
  V.root.appendChild(V.noteEl);
  V.sel = el('div', 'fksel');
  V.root.appendChild(V.sel);
  V.main = el('div', 'fkmain');
  V.root.appendChild(V.main);
  V.details = el('div', 'fkdetails', '\u00a0');
  V.root.appendChild(V.details);
  V.tip = el('div', 'fktip');
  V.tip.hidden = true;
  V.root.appendChild(V.tip);
  var st;
  V.search.addEventListener('input', function () {
    clearTimeout(st);
    st = setTimeout(function () { V.set({ search: V.search.value }); }, 120);
  });
  V.search.addEventListener('keydown', function (e) {
    if (e.key === 'Enter') { e.preventDefault(); clearTimeout(st); V.set({ search: V.search.value }); V.nextMatch(e.shiftKey ? -1 : 1); }
    if (e.key === 'Escape') { clearTimeout(st); V.search.value = ''; V.set({ search: '' }); V.search.blur(); }
  });
  doc.addEventListener('keydown', function (e) { V.key(e); });
};

/* Every key of the page: [key, what it does, action]. The dispatch and the ? overlay both
 * read this table. An action returns a note when it has nothing to act on. */
function needSel(V, k) { return 'no frame selected: click a frame first, then ' + k; }
var KEYS = [
  ['/', 'search (a regex; Ctrl-F too)', function (V) { V.search.focus(); V.search.select(); }],
  ['Escape', 'clear the search; without one, zoom out to the root', function (V) {
    if (V.state.search) V.set({ search: '' }); else if (V.state.zoom.length) V.set({ zoom: [] }); else return 'Escape: no search and no zoom to clear';
  }],
  ['n', 'zoom to the next match', function (V) { return V.nextMatch(1); }],
  ['N', 'zoom to the previous match', function (V) { return V.nextMatch(-1); }],
  ['c', 'case-insensitive search (toggle)', function (V) { V.set({ ic: !V.state.ic }); }],
  ['g', 'flame graph view', function (V) { V.set({ view: 'flame' }); }],
  ['t', 'functions table view', function (V) { V.set({ view: 'table' }); }],
  ['w', 'sandwich view', function (V) { V.set({ view: 'sandwich' }); }],
  ['i', 'icicle (root at the top) or flame graph', function (V) { V.set({ icicle: !V.state.icicle }); }],
  ['l', 'left-heavy: heaviest children first (toggle)', function (V) { V.set({ left: !V.state.left }); }],
  ['d', 'dark or light theme', function (V) { V.set({ dark: !V.state.dark }); }],
  ['p', 'root frames per thread, per process, or merged', function (V) { return V.nextSplit(); }],
  ['s', 'sandwich of the selected frame\'s function', function (V) { if (!V.selected) return needSel(V, 's'); V.sandwich(V.selected.name); }],
  ['f', 'focus on the selected frame', function (V) { if (!V.selected) return needSel(V, 'f'); V.transform('focus', V.selected.path.join(';')); }],
  ['F', 'focus on the selected function', function (V) { if (!V.selected) return needSel(V, 'F'); V.transform('focusfn', V.selected.name); }],
  ['m', 'merge the selected function into its callers', function (V) { if (!V.selected) return needSel(V, 'm'); V.transform('merge', V.selected.name); }],
  ['x', 'drop the stacks through the selected function', function (V) { if (!V.selected) return needSel(V, 'x'); V.transform('drop', V.selected.name); }],
  ['r', 'collapse the selected function\'s recursion', function (V) { if (!V.selected) return needSel(V, 'r'); V.transform('rec', V.selected.name); }],
  ['u', 'undo the last transform (Ctrl-Z too)', function (V) { return V.undo(); }],
  ['ArrowUp', 'scroll up three rows', function (V) { return V.scrollBy(-3, 'row'); }],
  ['ArrowDown', 'scroll down three rows', function (V) { return V.scrollBy(3, 'row'); }],
  ['PageUp', 'scroll up a screen', function (V) { return V.scrollBy(-1, 'page'); }],
  ['PageDown', 'scroll down a screen', function (V) { return V.scrollBy(1, 'page'); }],
  ['Home', 'scroll to the top', function (V) { return V.scrollBy(-Infinity, 'page'); }],
  ['End', 'scroll to the bottom', function (V) { return V.scrollBy(Infinity, 'page'); }],
  ['?', 'this list of keys', function (V) { V.help(); }]
];

Viewer.prototype.key = function (e) {
  var V = this, t = e.target;
  if (V.helpBox && !V.helpBox.hidden) { V.helpBox.hidden = true; e.preventDefault(); return; }
  if (e.ctrlKey && (e.key === 'f' || e.key === 'F')) { e.preventDefault(); V.search.focus(); V.search.select(); return; }
  if (e.ctrlKey && e.key === 'z') { e.preventDefault(); V.note(V.undo()); return; }
  if (e.ctrlKey || e.metaKey || e.altKey || (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA'))) return;
  for (var k = 0; k < KEYS.length; k++) {
    if (KEYS[k][0] === e.key) {
      e.preventDefault();
      V.note(KEYS[k][2](V));
      return;
    }
  }
};

/* A line that says why a key did nothing (for a few seconds). */
Viewer.prototype.note = function (s) {
  var V = this;
  clearTimeout(V.noteTimer);
  V.noteEl.textContent = s || '';
  V.noteEl.hidden = !s;
  if (s) V.noteTimer = setTimeout(function () { V.noteEl.hidden = true; }, 5000);
};

/* The ? overlay: the key table as it is dispatched. Any key or click closes it. */
Viewer.prototype.help = function () {
  var V = this, box = V.helpBox;
  if (!box) {
    box = V.helpBox = el('div', 'fkhelp');
    box.appendChild(el('div', 'fkhelptitle', 'Keys'));
    var tb = el('table');
    KEYS.forEach(function (k) {
      var tr = el('tr');
      tr.appendChild(el('td', 'fkkey', k[0]));
      tr.appendChild(el('td', null, k[1]));
      tb.appendChild(tr);
    });
    box.appendChild(tb);
    box.appendChild(el('div', 'fkhint', 'Click a frame to zoom into it and select it; the wheel or the scrollbar moves through deep graphs. Any key closes this.'));
    box.addEventListener('click', function () { box.hidden = true; });
    V.root.appendChild(box);
  }
  box.hidden = false;
};

/* Scrolls the view's first scroller (the flame graph, or the table) by rows or screens. */
Viewer.prototype.scrollBy = function (k, unit) {
  var V = this, sc = V.state.view === 'table' ? V.tableScroll : V.graphs && V.graphs[0] && V.graphs[0].scroller;
  if (!sc || !sc.isConnected) return;
  var max = sc.scrollHeight - sc.clientHeight;
  if (max <= 0) return 'nothing to scroll: all of it is in view';
  var step = unit === 'row' ? (V.meta.frameheight || 16) : sc.clientHeight * 0.9;
  sc.scrollTop = Math.max(0, Math.min(max, sc.scrollTop + k * step));
};

Viewer.prototype.set = function (ch) {
  var V = this, retransform = false;
  for (var k in ch) {
    if (k === 'transforms' || k === 'split') retransform = true;
    V.state[k] = ch[k];
  }
  if (retransform) V.applyTransforms();
  V.render();
  V.hashSoon();
};

/* The URL follows the state a moment later, once for a burst of changes: each
 * history.replaceState is work for the browser's own process that stalled the page's
 * redraws (a zoom's p95 went from 8 to 20 ms), and the browser throttles a burst of them. */
Viewer.prototype.hashSoon = function () {
  var V = this;
  if (!V.useHash || V.hashTimer) return;
  V.hashTimer = setTimeout(function () { V.hashTimer = 0; V.writeHash(); }, 100);
};
Viewer.prototype.flushHash = function () {
  if (this.hashTimer) { clearTimeout(this.hashTimer); this.hashTimer = 0; this.writeHash(); }
};

/* ---- state in the URL: #v=flame&z=a;b&s=re&ic=1&l=1&i=1&w=name&t=[...]&th=dark */
Viewer.prototype.writeHash = function () {
  var V = this, s = V.state, p = new URLSearchParams(location.hash.slice(1));
  if (!V.useHash) return;
  // keys of the page around the viewer (the heat map's ranges) are kept
  ['v', 'z', 's', 'c', 'l', 'i', 'w', 't', 'th', 'p'].forEach(function (k) { p.delete(k); });
  if (s.view !== 'flame') p.set('v', s.view);
  // the zoom as a node index and a check of its path: short at any depth, and a link
  // opened on other data falls back to the root (readHash) instead of a wrong frame
  if (s.zoom.length) { var zn = V.findPath(s.zoom); if (zn > 0) p.set('z', zn + '.' + pathCheck(s.zoom)); }
  if (s.search) p.set('s', s.search);
  if (s.ic) p.set('c', '1');
  if (s.left) p.set('l', '1');
  if (s.icicle !== !!V.meta.inverted) p.set('i', s.icicle ? '1' : '0');
  if (s.sandwich) p.set('w', s.sandwich);
  if (s.transforms.length) p.set('t', JSON.stringify(s.transforms));
  if (s.dark) p.set('th', 'dark');
  if (s.split !== 'thread') p.set('p', s.split);
  var h = p.toString() ? '#' + p.toString() : '#';
  V.lastHash = h;
  if (location.hash !== h && !(h === '#' && !location.hash)) history.replaceState(null, '', h === '#' ? location.pathname + location.search : h);
};
Viewer.prototype.readHash = function () {
  var V = this, s = V.state, p = new URLSearchParams(location.hash.slice(1));
  function json(k, d) { try { var v = JSON.parse(p.get(k)); return Array.isArray(v) ? v : d; } catch (e) { return d; } }
  s.view = ({ flame: 1, sandwich: 1, table: 1 })[p.get('v')] ? p.get('v') : 'flame';
  var zm = /^(\d+)\.([0-9a-z]{14})$/.exec(p.get('z') || '');
  V.pendingZoom = zm ? { n: +zm[1], check: zm[2] } : null;
  s.zoom = zm ? [] : p.has('z') ? json('z', []).map(String) : [];
  s.search = p.get('s') || '';
  s.ic = p.get('c') === '1';
  s.left = p.get('l') === '1';
  s.icicle = p.has('i') ? p.get('i') === '1' : !!V.meta.inverted;
  s.sandwich = p.get('w') || '';
  s.transforms = p.has('t') ? json('t', []).filter(function (x) { return Array.isArray(x) && typeof x[0] === 'string'; })
    .map(function (x) { return [x[0], String(x[1] === undefined ? '' : x[1])]; }) : [];
  s.dark = p.get('th') === 'dark';
  s.split = p.get('p') === 'process' || p.get('p') === 'merged' ? p.get('p') : 'thread';
  V.lastHash = location.hash;
};

/* A check of a path of names: two 32-bit FNV-1a hashes (different offsets), 7 base-36
 * digits each. */
function pathCheck(path) {
  var a = 0x811c9dc5, b = 0x01000193 ^ 0x5bd1e995, k, i, c, s = '';
  for (k = 0; k < path.length; k++) {
    var w = path[k] + '\u0000';
    for (i = 0; i < w.length; i++) {
      c = w.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
    }
  }
  [a, b].forEach(function (h) { s += ('000000' + (h >>> 0).toString(36)).slice(-7); });
  return s;
}
/* A zoom read from the URL as index.check, once the tree is there: the frame if its path
 * has that check, else the root and a note. */
Viewer.prototype.resolveZoom = function () {
  var V = this, z = V.pendingZoom;
  if (!z) return;
  V.pendingZoom = null;
  var path = z.n > 0 && z.n < V.tree.n ? V.pathOf(z.n) : null;
  if (path && pathCheck(path) === z.check) V.state.zoom = path;
  else { V.state.zoom = []; V.note('the link\'s zoom is not a frame of this profile (other data?): showing the root'); V.zoomMissed = true; }
};

/* ---------------------------------------------------------------- transforms
 * Each is [op, arg], applied in order to every stack (root-first names):
 *   focus    arg "a;b;c": only stacks starting a;b;c, rooted at c
 *   focusfn  only stacks through the function, cut before its first frame
 *   merge    the function's frames removed (its self time goes to its callers)
 *   drop     stacks through the function removed
 *   rec      recursion collapsed: frames of the function below its first one removed
 *            (arg "" : of every function)
 *   lib      consecutive frames whose name contains arg become one frame named arg
 * Each is one pass over the tree's arrays (transformTree), not a rebuild from stacks. */
var TRANSFORMS = { focus: 'Focus on', focusfn: 'Focus on function', merge: 'Merge', drop: 'Drop',
  rec: 'Collapse recursion of', lib: 'Collapse library' };

/* Names compared as the library sorts them: bytewise UTF-8, which is code point order
 * (UTF-16 order differs only between surrogates and U+E000..U+FFFF). */
function nameCmp(a, b) {
  if (a === b) return 0;
  var n = Math.min(a.length, b.length), i, x, y;
  for (i = 0; i < n; i++) {
    x = a.charCodeAt(i); y = b.charCodeAt(i);
    if (x !== y) {
      if (x >= 0xd800 && y >= 0xd800) { x = x >= 0xe000 ? x - 0x800 : x + 0x2000; y = y >= 0xe000 ? y - 0x800 : y + 0x2000; }
      return x - y;
    }
  }
  return a.length - b.length;
}

/* One transform over tree t in one preorder pass. act(i, d) says what becomes of node i
 * (depth d): a name id >= 0: kept as a frame of that name, under its parent's frame (or
 * the root's when the parent was left out); SKIP: merged into its parent's frame (its own
 * counts go there, its children hang there); OUT: left out with its own counts (its
 * children still asked); CUT: left out with its whole subtree. A frame reached from one
 * node has its children in the node's (name) order; a frame that several nodes reach, or
 * one whose children are renamed, is "shared": its children are found by name in a hash
 * (from then on) and sorted by name at the end. Frames with no count below are dropped. */
var SKIP = -1, OUT = -2, CUT = -3;
/* The hash of shared frames' children: (parent, name) -> frame, open addressing. */
function PairHash() { this.bits = 16; this.mask = 65535; this.used = 0; this.p = new Int32Array(65536).fill(-1); this.q = new Int32Array(65536); this.v = new Int32Array(65536); }
PairHash.prototype.slot = function (p, nm) {
  var hp = this.p, hq = this.q, mask = this.mask, k = (Math.imul(p, 0x9e3779b1) ^ Math.imul(nm + 1, 0x85ebca77)) >>> (32 - this.bits);
  while (hp[k] >= 0 && (hp[k] !== p || hq[k] !== nm)) k = (k + 1) & mask;
  return k;
};
/* The value of (p, nm), or v after putting it there (one probe for both). */
PairHash.prototype.find = function (p, nm, v) {
  var k = this.slot(p, nm);
  if (this.p[k] >= 0) return this.v[k];
  if (2 * (this.used + 1) > this.mask) { this.put(p, nm, v); return v; }
  this.p[k] = p; this.q[k] = nm; this.v[k] = v; this.used++;
  return v;
};
PairHash.prototype.put = function (p, nm, v) {
  if (2 * (this.used + 1) > this.mask) {
    var op = this.p, oq = this.q, ov = this.v, j, k;
    this.bits++; this.mask = (1 << this.bits) - 1;
    this.p = new Int32Array(this.mask + 1).fill(-1); this.q = new Int32Array(this.mask + 1); this.v = new Int32Array(this.mask + 1);
    for (j = 0; j < op.length; j++) if (op[j] >= 0) { k = this.slot(op[j], oq[j]); this.p[k] = op[j]; this.q[k] = oq[j]; this.v[k] = ov[j]; }
  }
  var s = this.slot(p, nm);
  this.p[s] = p; this.q[s] = nm; this.v[s] = v; this.used++;
};
/* Frame p becomes shared: its children so far go into the hash. */
function promote(o, p) {
  o.shared[p] = 1;
  for (var c = o.first[p]; c >= 0; c = o.next[c]) o.hash.put(p, o.name[c], c);
}

function transformTree(t, names, rank, act) {
  var n = t.n, cols = t.cols, tn = t.name, tdep = t.depth, tend = t.end, ts0 = t.self0, ts1 = t.self1;
  var O = { name: new Int32Array(n), first: new Int32Array(n).fill(-1), next: new Int32Array(n), shared: new Uint8Array(n), hash: new PairHash() };
  var oname = O.name, opar = new Int32Array(n), ofirst = O.first, onext = O.next, shared = O.shared, H = O.hash;
  var os0 = new Float64Array(n), os1 = cols > 1 ? new Float64Array(n) : null;
  var outAt = new Int32Array(t.maxDepth + 2), m = 1, i, d, a, P, o;
  oname[0] = tn[0]; opar[0] = -1; outAt[0] = 0;
  // the root's own count: stacks that end there hold no frame to focus on
  if (!act.dropRoot) { os0[0] = ts0[0]; if (os1) os1[0] = ts1[0]; }
  for (i = 1; i < n;) {
    d = tdep[i];
    a = act(i, d);
    if (a === CUT) { i = tend[i]; continue; }
    P = outAt[d - 1];
    if (a === OUT) o = -1;
    else if (a === SKIP) {
      o = P;
      if (o >= 0 && !shared[o]) promote(O, o);
    } else {
      if (P < 0) { P = 0; if (!shared[0]) promote(O, 0); }
      if (!shared[P] && a !== tn[i]) promote(O, P);
      o = shared[P] ? H.find(P, a, m) : m;
      if (o === m) {
        m++;
        oname[o] = a; opar[o] = P; onext[o] = ofirst[P]; ofirst[P] = o;
      } else if (!shared[o]) promote(O, o);
    }
    outAt[d] = o;
    if (o >= 0) { os0[o] += ts0[i]; if (os1) os1[o] += ts1[i]; }
    i++;
  }
  return layOut(m, cols, oname, opar, ofirst, onext, shared, os0, os1, names, rank);
}

/* The frames made by transformTree in preorder: those with a count below them (a frame is
 * made after its parent, so one backward pass gives each its subtree's size and totals),
 * then each frame's place from its parent's: its children's places follow from their
 * sizes, in the order of the list (made by prepending: last first) or, under a shared
 * frame, by name. One forward pass writes every array of the tree. */
function layOut(m, cols, oname, opar, ofirst, onext, shared, os0, os1, names, rank) {
  var size = new Int32Array(m), tot = new Float64Array(m), tot0 = os1 ? new Float64Array(m) : null, o, p, x, y;
  for (o = m - 1; o >= 0; o--) {
    x = os1 ? os1[o] : os0[o];
    tot[o] += x > 0 ? x : 0;
    if (tot0) { y = os0[o]; tot0[o] += y > 0 ? y : 0; }
    if (size[o] || os0[o] !== 0 || (os1 && os1[o] !== 0) || o === 0) {
      size[o]++;
      if (o > 0) { p = opar[o]; size[p] += size[o]; tot[p] += tot[o]; if (tot0) tot0[p] += tot0[o]; }
    }
  }
  var cnt = size[0], pos = new Int32Array(m), dep = new Int32Array(m), c, cur, tmp = [], j, q, md = 0;
  var r = { n: cnt, cols: cols, name: new Int32Array(cnt), depth: new Int32Array(cnt), end: new Int32Array(cnt),
    self0: new Float64Array(cnt), self1: os1 ? new Float64Array(cnt) : null, tot: new Float64Array(cnt), tot0: tot0 ? new Float64Array(cnt) : null };
  var rn = r.name, rd = r.depth, re = r.end, rs0 = r.self0, rs1 = r.self1, rt = r.tot, rt0 = r.tot0, dd, sz;
  function byNameDesc(a, b) { return rank[oname[b]] - rank[oname[a]]; }
  for (o = 0; o < m; o++) {
    sz = size[o];
    if (!sz) continue;
    q = pos[o]; dd = dep[o];
    rn[q] = oname[o]; rd[q] = dd; re[q] = q + sz; rs0[q] = os0[o]; rt[q] = tot[o];
    if (rs1) { rs1[q] = os1[o]; rt0[q] = tot0[o]; }
    if (dd > md) md = dd;
    cur = q + sz;
    dd++;
    if (shared[o]) {
      tmp.length = 0;
      for (c = ofirst[o]; c >= 0; c = onext[c]) if (size[c]) tmp.push(c);
      if (tmp.length > 12) tmp.sort(byNameDesc);
      else {
        // few children (most shared frames): an insertion sort, no call per comparison
        for (j = 1; j < tmp.length; j++) {
          var y0 = tmp[j], ry = rank[oname[y0]], z0 = j - 1;
          for (; z0 >= 0 && rank[oname[tmp[z0]]] < ry; z0--) tmp[z0 + 1] = tmp[z0];
          tmp[z0 + 1] = y0;
        }
      }
      for (j = 0; j < tmp.length; j++) { c = tmp[j]; cur -= size[c]; pos[c] = cur; dep[c] = dd; }
    } else {
      for (c = ofirst[o]; c >= 0; c = onext[c]) { sz = size[c]; if (sz) { cur -= sz; pos[c] = cur; dep[c] = dd; } }
    }
  }
  r.maxDepth = md;
  r.maxdelta = maxDelta(r);
  r.kids = new Map();
  return r;
}

/* Each name's place in the library's order of names (bytewise), made once for the names. */
Viewer.prototype.nameRank = function () {
  var V = this, nn = V.names.length;
  if (V.rank && V.rank.length === nn) return V.rank;
  var idx = new Array(nn), r = new Int32Array(nn), i;
  for (i = 0; i < nn; i++) idx[i] = i;
  idx.sort(function (a, b) { return nameCmp(V.names[a], V.names[b]); });
  for (i = 0; i < nn; i++) r[idx[i]] = i;
  return (V.rank = r);
};

function focusAct(f) { f.dropRoot = true; return f; }
/* What transform op does to each node (transformTree's act), over tree t. Per-depth
 * stacks hold what a node needs to know of its ancestors. */
function transformAct(V, t, op, arg) {
  var name = t.name, end = t.end, md = t.maxDepth + 2, id, z, above, i;
  switch (op) {
  case 'merge':
    id = V.nameId(arg);
    return function (i) { return name[i] === id ? SKIP : name[i]; };
  case 'drop':
    id = V.nameId(arg);
    return function (i) { return name[i] === id ? CUT : name[i]; };
  case 'focus':
    // the node at the path, rooted under the root; its ancestors left out, all else cut
    z = V.findPathIn(t, arg.split(';'));
    return focusAct(function (i) { return z <= 0 ? CUT : i >= z && i < end[z] ? name[i] : i < z && end[i] > z ? OUT : CUT; });
  case 'focusfn':
    id = V.nameId(arg);
    above = new Int32Array(md); // how many frames of the function on the path above depth d
    return focusAct(function (i, d) {
      var x = above[d - 1], f = name[i] === id;
      above[d] = x + (f ? 1 : 0);
      return x || f ? name[i] : OUT;
    });
  case 'rec':
    if (arg === '') {
      // every function: a name already open on the path is merged into it
      var open = new Int32Array(V.names.length), path = new Int32Array(md), pd = 0;
      return function (i, d) {
        while (pd >= d) { pd--; if (path[pd] >= 0) open[path[pd]]--; }
        var x = name[i], r = open[x] ? SKIP : x;
        path[pd++] = r === SKIP ? -1 : x;
        if (r !== SKIP) open[x]++;
        return r;
      };
    }
    id = V.nameId(arg);
    above = new Int32Array(md);
    return function (i, d) {
      var x = above[d - 1], f = name[i] === id;
      above[d] = x + (f ? 1 : 0);
      return f && x ? SKIP : name[i];
    };
  case 'lib':
    id = V.nameId(arg, true);
    var nn = V.names.length, match = new Uint8Array(nn), prev = new Uint8Array(md);
    for (i = 0; i < nn; i++) match[i] = arg !== '' && V.names[i].indexOf(arg) >= 0 ? 1 : 0;
    return function (i, d) {
      var x = match[name[i]];
      prev[d] = x;
      return !x ? name[i] : prev[d - 1] ? SKIP : id;
    };
  case 'proc':
    // comm-PID/TID -> comm-PID: a thread's root frame becomes its process's
    var to = new Map();
    for (i = 1; i < t.n; i = end[i]) {
      var m = THREAD_ROOT.exec(V.names[name[i]]);
      if (m && m[2]) to.set(name[i], V.nameId(m[1], true));
    }
    return function (i, d) { var x = d === 1 ? to.get(name[i]) : undefined; return x === undefined ? name[i] : x; };
  case 'nothread':
    return function (i, d) { return d === 1 && THREAD_ROOT.test(V.names[name[i]]) ? SKIP : name[i]; };
  }
  throw new Error('unknown transform ' + op);
}

Viewer.prototype.nameId = function (s, add) {
  var V = this;
  if (!V.nameIndex) {
    V.nameIndex = new Map();
    for (var i = V.names.length - 1; i >= 0; i--) V.nameIndex.set(V.names[i], i);
  }
  var id = V.nameIndex.get(s);
  if (id === undefined && add) {
    id = V.names.length;
    V.names.push(s);
    V.colors.push('#c8c8c8');
    V.rgb.push(0xffc8c8c8);
    V.offColors.push('#c8c8c8');
    V.offRgb.push(0xffc8c8c8);
    V.nameIndex.set(s, id);
  }
  return id === undefined ? -1 : id;
};

/* Root frames named as perf names threads (comm-PID/TID, comm-PID, and comm-?/TID when the
 * PID is unknown, as `perf script` prints with --tid): the split toggle shows them per
 * thread (as read), per process (comm-PID) or merged (roots removed). */
var THREAD_ROOT = /^([\s\S]*-(?:\d+|\?(?=\/)))(\/\d+)?$/;
Viewer.prototype.threadRoots = function () {
  var V = this, t = V.base, n = 0;
  if (V.hasThreads !== undefined && V.hasThreadsOf === t) return V.hasThreads;
  for (var c = 1; c < t.n; c = t.end[c]) if (THREAD_ROOT.test(V.names[t.name[c]])) n++;
  V.hasThreadsOf = t;
  V.hasThreads = n > 0;
  return V.hasThreads;
};

/* The tree after the split and the transforms. Each prefix of the list keeps its tree, so
 * an undo of the last one is instant and adding one costs one pass. */
Viewer.prototype.applyTransforms = function () {
  var V = this, list = V.state.transforms.slice(), split = V.state.split;
  if (split !== 'thread' && V.threadRoots()) list.unshift([split === 'process' ? 'proc' : 'nothread', '']);
  var chain = V.chain && V.chain.base === V.base ? V.chain : (V.chain = { base: V.base, keys: [], trees: [] });
  var k = 0, t = V.base;
  while (k < list.length && k < chain.keys.length && chain.keys[k] === JSON.stringify(list[k])) t = chain.trees[k++];
  chain.keys.length = chain.trees.length = k;
  for (; k < list.length; k++) {
    var act = transformAct(V, t, list[k][0], list[k][1]);
    t = transformTree(t, V.names, V.nameRank(), act);
    chain.keys.push(JSON.stringify(list[k]));
    chain.trees.push(t);
  }
  V.tree = t;
  V.tableCache = null;
  // the selection follows the tree: the same frame if its path is still there
  if (V.selected) {
    var n = V.findPath(V.selected.path);
    if (n <= 0) V.selected = null;
  }
  if (V.sel) V.renderSelection();
};

Viewer.prototype.nextSplit = function () {
  if (!this.threadRoots()) return 'p: no root frames name threads (comm-PID/TID), nothing to split';
  var next = { thread: 'process', process: 'merged', merged: 'thread' }[this.state.split];
  this.set({ split: next, transforms: this.state.transforms, zoom: [] });
};

Viewer.prototype.transform = function (op, arg) {
  if (!TRANSFORMS[op]) throw new Error('unknown transform ' + op);
  this.set({ transforms: this.state.transforms.concat([[op, String(arg)]]), zoom: [] });
};
Viewer.prototype.undo = function (k) {
  var t = this.state.transforms.slice();
  if (!t.length) return 'u: no transform to undo';
  if (k === undefined) t.pop(); else t.splice(k, 1);
  this.set({ transforms: t, zoom: [] });
};

/* ---------------------------------------------------------------- search */
Viewer.prototype.regex = function () {
  var s = this.state;
  if (!s.search) return null;
  try { return new RegExp(s.search, s.ic ? 'i' : ''); } catch (e) { return false; }
};
/* The outermost frames whose names are hit (a match's subtree counted once), in order:
 * forward, jumping past each match's subtree. Each node's end and total are read as the pass
 * goes, hit or not: read only at a match they would be a cache miss each (twice as slow).
 * Returns their count and the sum of their totals; list, when given, gets their indexes. */
function outerMatches(t, hit, list) {
  var name = t.name, end = t.end, tot = t.tot, n = t.n, sum = 0, count = 0, i = 1, e, x;
  while (i < n) {
    e = end[i];
    x = tot[i];
    if (hit[name[i]] === 1) {
      if (x > 0) { if (list) list[count] = i; sum += x; count++; }
      i = e;
    } else i++;
  }
  return { sum: sum, count: count };
}
/* Exact share of the tree under the matching frames: each name tested once, then the pass. */
Viewer.prototype.searchTree = function (t, re) {
  var V = this, names = V.names, hit = new Uint8Array(names.length), any = false;
  for (var k = 0; k < names.length; k++) if (re.test(names[k])) { hit[k] = 1; any = true; }
  var r = any ? outerMatches(t, hit, null) : { sum: 0, count: 0 };
  return { hit: hit, sum: r.sum, total: t.tot[0], count: r.count, tree: t, list: null };
};
/* The matching frames the search counted, in order: made when the next/previous match is
 * asked for, not by every search. */
function matchList(m) {
  if (!m.list) outerMatches(m.tree, m.hit, (m.list = new Int32Array(m.count)));
  return m.list;
}

Viewer.prototype.nextMatch = function (dir) {
  var V = this, m = V.match;
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
Viewer.prototype.pathOf = function (node) {
  var V = this, t = V.tree;
  if (node <= 0) return [];
  return ancestors(t, node).slice(1).concat([node]).map(function (i) { return V.names[t.name[i]]; });
};
Viewer.prototype.findPath = function (path) { return this.findPathIn(this.tree, path); };
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
Viewer.prototype.zoomNode = function () {
  var z = this.findPath(this.state.zoom);
  return z < 0 ? 0 : z;
};

/* ---------------------------------------------------------------- drawing */
Viewer.prototype.render = function () {
  var V = this, s = V.state;
  doc.documentElement.classList.toggle('fkdark', s.dark);
  V.root.classList.toggle('fkdark', s.dark);
  for (var k in V.bView) V.bView[k].classList.toggle('on', s.view === k);
  V.bIcicle.classList.toggle('on', s.icicle);
  V.bLeft.classList.toggle('on', s.left);
  V.bTheme.classList.toggle('on', s.dark);
  V.bSplit.hidden = !V.threadRoots();
  V.bSplit.textContent = { thread: 'Per thread', process: 'Per process', merged: 'Threads merged' }[s.split];
  V.bCase.classList.toggle('on', !s.ic);
  if (V.search.value !== s.search && doc.activeElement !== V.search) V.search.value = s.search;
  var re = V.regex(), t0 = performance.now();
  // the same search over the same tree (a zoom, a view change) is not run again
  if (!(re && V.match && V.match.tree === V.tree && V.match.re === re.source + '/' + re.flags && V.match.nn === V.names.length)) {
    V.match = re ? V.searchTree(V.tree, re) : null;
    V.searchMs = re ? performance.now() - t0 : 0;
    if (V.match) { V.match.re = re.source + '/' + re.flags; V.match.nn = V.names.length; }
  }
  V.matched.classList.toggle('bad', re === false);
  V.matched.textContent = re === false ? 'bad regex' : V.match ? 'Matched: ' + pct(V.match.sum, V.match.total) +
    ' of all (' + fmtCount(V.match.sum, V.meta.factor) + ' ' + (V.meta.countname || 'samples') + ', ' + V.match.count + ' frames)' : '';
  V.renderTransforms();
  V.main.textContent = '';
  V.availH = 0;
  V.tip.hidden = true; // any change of view: the tooltip described what was under the mouse
  V.canvases = [];
  if (s.view === 'table') V.renderTable();
  else if (s.view === 'sandwich') V.renderSandwich();
  else V.renderFlame();
};

Viewer.prototype.renderTransforms = function () {
  var V = this, list = V.state.transforms;
  V.tbar.textContent = '';
  if (!list.length) return;
  V.tbar.appendChild(el('span', 'fklabel', 'Transforms:'));
  list.forEach(function (x, k) {
    var chip = el('span', 'fkchip', (TRANSFORMS[x[0]] || x[0]) + ' ' + (x[1] === '' ? '(all)' : x[1]) + ' ');
    var b = el('button', null, '\u00d7');
    b.type = 'button';
    b.title = 'undo this transform';
    b.addEventListener('click', function () { V.undo(k); });
    chip.appendChild(b);
    V.tbar.appendChild(chip);
  });
};

/* The flame graph pane: a wrapper the size of the visible area, the canvas behind it (the
 * size of the area times the device pixel ratio: never depth x width), and over both a
 * scroller whose content is as tall as the whole graph, so the wheel, the scrollbar and
 * the keys move through any depth while only the rows in view are drawn. */
Viewer.prototype.makeGraph = function (kind) {
  var V = this, wrap = el('div', 'fkflame'), c = el('canvas'), sc = el('div', 'fkscroll'), sp = el('div', 'fkspace');
  sc.appendChild(sp);
  wrap.appendChild(c);
  wrap.appendChild(sc);
  var g = { wrap: wrap, canvas: c, scroller: sc, space: sp, kind: kind, top: 0 };
  sc.addEventListener('scroll', function () {
    if (sc.scrollTop === g.top || g.raf) return;
    g.raf = requestAnimationFrame(function () { g.raf = 0; if (g.canvas.isConnected) V.drawGraph(g); });
  });
  V.attach(g);
  return g;
};

Viewer.prototype.renderFlame = function () {
  var V = this, t = V.tree, g = V.flameGraph || (V.flameGraph = V.makeGraph('flame'));
  V.main.appendChild(g.wrap);
  var z = V.zoomNode();
  g.tree = t;
  g.zoom = z;
  g.icicle = V.state.icicle;
  g.share = 1;
  V.graphs = [g];
  V.draw();
  V.bReset.disabled = z === 0;
};

Viewer.prototype.draw = function () {
  var V = this, t1 = performance.now();
  (V.graphs || []).forEach(function (g) { if (g.canvas.isConnected) V.drawGraph(g); });
  V.lastDrawMs = performance.now() - t1;
};

/* The height the graphs of the view may take: from the top of the first one to the bottom
 * of the window, less the details line (at least 160 px). */
Viewer.prototype.avail = function () {
  var V = this, g = V.graphs && V.graphs[0];
  if (V.availH && V.availOf === V.state.view + '/' + V.graphs.length) return V.availH;
  var top = g ? g.wrap.getBoundingClientRect().top + (window.scrollY || 0) : 0;
  var h = Math.max(160, Math.floor(window.innerHeight - top - 34));
  V.availOf = V.state.view + '/' + V.graphs.length;
  return (V.availH = h);
};

/* The children lists of frames vs (those of one level of a redraw that have two children or
 * more and no list good at width W): each frame's children that can be seen at width W (css
 * px) or less, at least a third of a pixel wide when the frame spans all of W, heaviest
 * first (ties in name order), each with its total and its offset from the frame's start in
 * name order (counts). A redraw reads down a list until a child is too narrow, so a narrow
 * frame with many children costs no more than what it shows. Cached on the tree. Children
 * lie far apart in memory, and each is found from the one before (its end): the frames'
 * scans go in step, one child of each a round, so that their cache misses overlap. */
function makeKids(t, vs, W) {
  var m = vs.length, end = t.end, tot = t.tot, j, q, k, c, e, x, na = m;
  var cur = new Int32Array(m), stop = new Int32Array(m), act = new Int32Array(m);
  var min = new Float64Array(m), off = new Float64Array(m), acc = new Array(m);
  for (j = 0; j < m; j++) {
    cur[j] = vs[j] + 1; stop[j] = end[vs[j]]; min[j] = tot[vs[j]] * 0.33 / W; acc[j] = []; act[j] = j;
  }
  while (na) {
    for (q = 0, k = 0; q < na; q++) {
      j = act[q]; c = cur[j]; x = tot[c]; e = end[c];
      if (x >= min[j] && x > 0) acc[j].push(c, off[j]);
      off[j] += x;
      cur[j] = e;
      if (e < stop[j]) act[k++] = j;
    }
    na = k;
  }
  for (j = 0; j < m; j++) {
    var a = acc[j], n = a.length / 2, idx = new Array(n);
    for (k = 0; k < n; k++) idx[k] = k;
    idx.sort(function (p, r) { return tot[a[2 * r]] - tot[a[2 * p]] || p - r; });
    var ch = { n: new Int32Array(n), x: new Float64Array(n), t: new Float64Array(n), W: W };
    for (k = 0; k < n; k++) { c = a[2 * idx[k]]; ch.n[k] = c; ch.x[k] = a[2 * idx[k] + 1]; ch.t[k] = tot[c]; }
    t.kids.set(vs[j], ch);
  }
}

/* A frame's colour as canvas pixel bytes (ABGR in a little-endian Uint32). */
function abgr(r, g, b) { return (0xff000000 | b << 16 | g << 8 | r) >>> 0; }
function cssAbgr(s, dflt) {
  var m = /#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(s || '');
  return m ? abgr(parseInt(m[1], 16), parseInt(m[2], 16), parseInt(m[3], 16)) : dflt;
}
var MATCH = abgr(230, 0, 230);

/* Off-CPU frames of a tree with the FK_OFFCPU_MARK frame (as flamekit svg colours them):
 * the mark and all below it, and every frame whose whole time lies under marks. One pass,
 * a frame's off-CPU time going to its parent when it closes; cached on the tree. */
function offFlags(t, mark) {
  if (t.offFlags) return t.offFlags;
  var n = t.n, f = new Uint8Array(n), name = t.name, depth = t.depth, end = t.end, tot = t.tot, i;
  var st = new Int32Array(t.maxDepth + 2), acc = new Float64Array(t.maxDepth + 2), sp = 0, inEnd = -1, c, a, d;
  function close() {
    c = st[sp];
    a = name[c] === mark ? tot[c] : acc[sp];
    if (c > 0 && tot[c] > 0 && a >= tot[c]) f[c] = 1;
    sp--;
    acc[sp] += a;
  }
  for (i = 1; i < n; i++) {
    d = depth[i];
    while (sp >= d) close();
    st[++sp] = i;
    acc[sp] = 0;
    if (i < inEnd) f[i] = 1;
    else if (name[i] === mark) inEnd = end[i];
  }
  while (sp > 0) close();
  t.offFlags = f;
  return f;
}

Viewer.prototype.framePixel = function (t, i, maxd) {
  var V = this;
  if (V.match && V.match.hit[t.name[i]]) return MATCH;
  if (V.offMark >= 0 && !t.tot0 && offFlags(t, V.offMark)[i]) return V.offRgb[t.name[i]];
  if (t.cols > 1 && t.tot0) {
    var d = (t.self1[i] > 0 ? t.self1[i] : 0) - (t.self0[i] > 0 ? t.self0[i] : 0);
    if (V.meta.negate) d = -d;
    var r = 255, g = 255, b = 255;
    if (d > 0) g = b = Math.max(0, Math.floor(210 * (maxd - d) / maxd));
    else if (d < 0) r = g = Math.max(0, Math.floor(210 * (maxd + d) / maxd));
    return abgr(r, g, b);
  }
  return V.rgb[t.name[i]];
};
/* The same as a CSS colour (the name's own colour as the library wrote it). */
Viewer.prototype.frameColor = function (t, i, maxd) {
  var p = this.framePixel(t, i, maxd);
  if (p === this.rgb[t.name[i]] && !(this.match && this.match.hit[t.name[i]])) return this.colors[t.name[i]];
  if (p === this.offRgb[t.name[i]] && this.offMark >= 0 && offFlags(t, this.offMark)[i]) return this.offColors[t.name[i]];
  return 'rgb(' + (p & 255) + ',' + (p >> 8 & 255) + ',' + (p >> 16 & 255) + ')';
};

/* Growable typed arrays for the visible frames of a redraw (kept between redraws): node,
 * x and width (css px), depth and name. */
function FrameList() { this.n = 0; this.grow(4096); }
FrameList.prototype.grow = function (cap) {
  var ns = new Int32Array(cap), xs = new Float64Array(cap), ws = new Float64Array(cap), ds = new Int32Array(cap), nm = new Int32Array(cap);
  if (this.ns) { ns.set(this.ns); xs.set(this.xs); ws.set(this.ws); ds.set(this.ds); nm.set(this.nm); }
  this.ns = ns; this.xs = xs; this.ws = ws; this.ds = ds; this.nm = nm;
};
FrameList.prototype.push = function (n, x, w, d, nm) {
  if (this.n === this.ns.length) this.grow(this.n * 2);
  var i = this.n++;
  this.ns[i] = n; this.xs[i] = x; this.ws[i] = w; this.ds[i] = d; this.nm[i] = nm;
};
/* Entries a..b-1 (one frame's children, of one depth) in x order. */
FrameList.prototype.sortX = function (a, b) {
  var ns = this.ns, xs = this.xs, ws = this.ws, nm = this.nm, i, j, tn, tx, tw, tm;
  if (b - a > 48) {
    var idx = [];
    for (i = a; i < b; i++) idx.push(i);
    idx.sort(function (p, q) { return xs[p] - xs[q]; });
    var n2 = idx.map(function (p) { return ns[p]; }), x2 = idx.map(function (p) { return xs[p]; });
    var w2 = idx.map(function (p) { return ws[p]; }), m2 = idx.map(function (p) { return nm[p]; });
    for (i = a; i < b; i++) { ns[i] = n2[i - a]; xs[i] = x2[i - a]; ws[i] = w2[i - a]; nm[i] = m2[i - a]; }
    return;
  }
  for (i = a + 1; i < b; i++) {
    tn = ns[i]; tx = xs[i]; tw = ws[i]; tm = nm[i];
    for (j = i - 1; j >= a && xs[j] > tx; j--) { ns[j + 1] = ns[j]; xs[j + 1] = xs[j]; ws[j + 1] = ws[j]; nm[j + 1] = nm[j]; }
    ns[j + 1] = tn; xs[j + 1] = tx; ws[j + 1] = tw; nm[j + 1] = tm;
  }
};

/* The frames of graph g at width W: level by level from the zoomed frame, each level's
 * frames left to right (children at their place in name order, or heaviest first when
 * left-heavy; subtrees narrower than a third of a pixel skipped in one step by their end).
 * The zoomed frame's ancestors span the width. Kept until the tree, zoom, width or order
 * changes: a scroll only draws other rows of the same list. */
Viewer.prototype.layout = function (g, W, PAD) {
  var V = this, t = g.tree, left = V.state.left;
  if (g.lay && g.lay.t === t && g.lay.z === g.zoom && g.lay.W === W && g.lay.left === left) return g.lay;
  var z = g.zoom, zt = t.tot[z], anc = z > 0 ? ancestors(t, z) : [];
  var tot = t.tot, end = t.end, name = t.name;
  var i, k, v, x, cx, cw, a, b, d, ch, cn, cxs, cts, s0;
  var L = g.frames || (g.frames = new FrameList());
  L.n = 0;
  var scale = zt > 0 ? (W - 2 * PAD) / zt : 0, minw = 0.33;
  for (i = 0; i < anc.length; i++) L.push(anc[i], PAD, W - 2 * PAD, i, name[anc[i]]);
  // a level's frames are independent of each other, so their reads from the tree overlap
  if (zt > 0) L.push(z, PAD, zt * scale, anc.length, name[z]);
  var need = V.need || (V.need = []);
  for (a = anc.length, b = L.n, d = anc.length + 1; a < b; a = b, b = L.n, d++) {
    need.length = 0;
    for (i = a; i < b; i++) {
      v = L.ns[i]; k = v + 1;
      if (k < end[v] && end[k] !== end[v] && !((ch = t.kids.get(v)) && ch.W >= W)) need.push(v);
    }
    if (need.length) makeKids(t, need, W);
    for (i = a; i < b; i++) {
      v = L.ns[i]; x = L.xs[i]; k = v + 1;
      if (k >= end[v]) continue;
      if (end[k] === end[v]) {
        // one child (most nodes of deep stacks): next to its parent, no list needed
        cw = tot[k] * scale;
        if (cw >= minw) L.push(k, x, cw, d, name[k]);
        continue;
      }
      // more: the list of those that can be seen, heaviest first; in name order each has
      // its place from its offset, left-heavy they are laid out in list order
      ch = t.kids.get(v); cn = ch.n; cxs = ch.x; cts = ch.t; s0 = L.n;
      for (k = 0, cx = x; k < cn.length; k++) {
        cw = cts[k] * scale;
        if (cw < minw) break;
        L.push(cn[k], left ? cx : x + cxs[k] * scale, cw, d, name[cn[k]]);
        cx += cw;
      }
      if (!left) L.sortX(s0, L.n);
    }
  }
  g.lay = { t: t, z: z, W: W, left: left, L: L, nanc: anc.length, rows: L.n ? L.ds[L.n - 1] + 1 : 0 };
  return g.lay;
};

/* The first entry of the frame list at depth d or deeper (the list is in depth order). */
function firstAtDepth(L, d) {
  var lo = 0, hi = L.n, m;
  while (lo < hi) { m = (lo + hi) >> 1; if (L.ds[m] < d) lo = m + 1; else hi = m; }
  return lo;
}

/* Draws graph g: the rows in view only, each row's pixels filled once in a scanline buffer,
 * copied down the row's height and put on the canvas; then their labels. Graph coordinates:
 * the whole graph is H css px high (row r at PAD + r FH from the top in an icicle, from the
 * bottom in a flame graph); the view shows H0 px of it from g.top. */
Viewer.prototype.drawGraph = function (g) {
  var V = this, t = g.tree, c = g.canvas, meta = V.meta;
  // the width is read once (reading it forces a layout), again after a resize
  var dpr = window.devicePixelRatio || 1, W = V.W || (V.W = Math.max(200, g.scroller.clientWidth || 800));
  var FH = meta.frameheight || 16, FS = meta.fontsize || 12, PAD = 4;
  var lay = V.layout(g, W, PAD), L = lay.L, n = L.n, rows = lay.rows, nanc = lay.nanc;
  var H = rows * FH + 2 * PAD, i, k;
  // the view: the graph's height up to what the window leaves (a share of it per graph)
  var H0 = Math.min(H, Math.max(120, Math.floor(V.avail() * (g.share || 1))));
  if (g.wrapH !== H0) { g.wrap.style.height = H0 + 'px'; g.wrapH = H0; }
  if (g.spaceH !== H) { g.space.style.height = H + 'px'; g.spaceH = H; }
  // a new tree, zoom or direction opens on the zoomed frame with two rows of its
  // ancestors: the root row and the widest frames first (bottom of a flame graph, top of
  // an icicle); otherwise the scroll position stays
  var key = lay.z + '/' + g.icicle + '/' + H;
  if (g.viewKey !== key || g.lay0 !== lay) {
    var zr = nanc, shown = Math.min(nanc, 2), top;
    if (g.viewKey === key) top = g.top;
    else if (g.icicle) top = PAD + (zr - shown) * FH - (zr - shown ? 0 : PAD);
    else top = H - PAD - (zr - shown) * FH - H0 + (zr - shown ? 0 : PAD);
    top = Math.max(0, Math.min(H - H0, top));
    g.viewKey = key;
    g.lay0 = lay;
    if (g.scroller.scrollTop !== top) g.scroller.scrollTop = top;
    g.top = g.scroller.scrollTop;
  } else g.top = g.scroller.scrollTop;
  var top0 = g.top;
  // the canvas: the view's size times the ratio; its bitmap only grows (a canvas of a new
  // size costs a new bitmap, more than a redraw), anchored at the wrapper's top
  var pw = Math.round(W * dpr), ph = Math.round(H0 * dpr), CH = g.CH;
  if (c.width !== pw || !(CH >= H0) || g.dpr !== dpr) {
    c.width = pw; c.height = ph;
    c.style.width = W + 'px';
    c.style.height = H0 + 'px';
    CH = g.CH = H0;
    g.dpr = dpr;
  }
  var cx2 = c.getContext('2d');
  // the theme's colours, read once a theme (a style read forces a style recalculation)
  var th = V.theme && V.theme.dark === V.state.dark ? V.theme : null;
  if (!th) {
    var cs = getComputedStyle(V.root);
    th = V.theme = { dark: V.state.dark, bgs: cs.getPropertyValue('--fk-bg') || '#ffffff',
      txt: cs.getPropertyValue('--fk-frame-text') || '#000' };
  }
  var bgs = th.bgs, bg = cssAbgr(bgs, 0xffffffff);
  cx2.setTransform(1, 0, 0, 1, 0, 0);
  cx2.fillStyle = bgs;
  cx2.fillRect(0, 0, pw, Math.round(CH * dpr));
  var rowh = Math.max(1, Math.round(FH * dpr)), fh = Math.max(1, Math.round((FH - 1) * dpr));
  if (!(g.img && g.img.width === pw && g.img.height === rowh)) {
    g.img = cx2.createImageData(pw, rowh);
    g.u32 = new Uint32Array(g.img.data.buffer);
    g.line = new Uint32Array(pw);
  }
  var img = g.img, u32 = g.u32, line = g.line, maxdelta = t.maxdelta;
  // colours by name alone (no diff or off-CPU frames): a table of each name's colour, the
  // search's matches in theirs, looked up here
  var plain = !(V.offMark >= 0) && !(t.cols > 1 && t.tot0), rgb = V.rgb;
  if (plain && V.match) {
    var mt = V.match;
    if (!mt.rgb || mt.rgb.length !== rgb.length) {
      mt.rgb = Uint32Array.from(rgb);
      for (k = 0; k < mt.hit.length && k < rgb.length; k++) if (mt.hit[k]) mt.rgb[k] = MATCH;
    }
    rgb = mt.rgb;
  }
  // the rows in view: r0..r1 (graph y of row r: rowY)
  function rowY(r) { return g.icicle ? PAD + r * FH : H - PAD - (r + 1) * FH; }
  var ra = g.icicle ? Math.floor((top0 - PAD) / FH) : Math.floor((H - PAD - top0 - H0) / FH);
  var r0 = Math.max(0, ra), r1 = Math.min(rows - 1, ra + Math.ceil(H0 / FH) + 1);
  var e0 = firstAtDepth(L, r0), e = e0, r, s1;
  for (r = r0; r <= r1; r++) {
    for (s1 = e; e < n && L.ds[e] === r; e++);
    if (s1 === e) continue;
    line.fill(bg);
    for (i = s1; i < e; i++) {
      var p = plain ? rgb[L.nm[i]] : V.framePixel(t, L.ns[i], maxdelta);
      if (i < nanc) p = fade(p, bg);
      var x0 = Math.floor(L.xs[i] * dpr), x1 = Math.floor((L.xs[i] + L.ws[i]) * dpr);
      if (x1 - x0 >= 3) x1--; // a gap between frames wide enough to show one
      if (x1 <= x0) x1 = x0 + 1;
      if (x1 > pw) x1 = pw;
      line.fill(p, x0, x1);
    }
    for (k = 0; k < fh; k++) u32.set(line, k * pw);
    if (fh < rowh) u32.fill(bg, fh * pw);
    cx2.putImageData(img, 0, Math.round((rowY(r) - top0) * dpr));
  }
  // labels
  cx2.setTransform(dpr, 0, 0, dpr, 0, 0);
  cx2.font = FS + 'px ' + (meta.font || 'Verdana') + ', sans-serif';
  cx2.textBaseline = 'middle';
  var cw1 = V.cw1 || (V.cw1 = cx2.measureText('mmmmmmmmmm').width / 10 || FS * 0.6), minl = 3 * cw1 + 6;
  cx2.fillStyle = th.txt;
  for (i = e0; i < e; i++) {
    if (L.ws[i] <= minl) continue;
    var yy = rowY(L.ds[i]) - top0;
    var label = L.ns[i] === 0 ? 'all' : V.names[L.nm[i]], fit = Math.floor((L.ws[i] - 6) / cw1);
    if (label.length > fit) label = meta.tl ? '..' + label.slice(label.length - fit + 2) : label.slice(0, fit - 2) + '..';
    cx2.fillText(label, L.xs[i] + 3, yy + FH / 2);
  }
  g.hit = { L: L, H: H, H0: H0, FH: FH, PAD: PAD, icicle: g.icicle, top: top0, e0: e0, e1: e };
};
function fade(p, bg) {
  var o = 0, s;
  for (s = 0; s < 24; s += 8) o |= Math.round(((p >> s) & 255) * 0.55 + ((bg >> s) & 255) * 0.45) << s;
  return (0xff000000 | o) >>> 0;
}

/* The frame at (x, y), css px from the view's top left corner; -1 if none. */
Viewer.prototype.nodeAt = function (g, x, y) {
  var h = g.hit;
  if (!h) return -1;
  var L = h.L, vy = y + h.top, dep = h.icicle ? Math.floor((vy - h.PAD) / h.FH) : Math.floor((h.H - h.PAD - vy) / h.FH);
  for (var i = h.e1 - 1; i >= h.e0; i--)
    if (L.ds[i] === dep && x >= L.xs[i] && x < L.xs[i] + Math.max(L.ws[i], 1)) return L.ns[i];
  return -1;
};

/* The frames painted in g's view: name, depth and screen rectangle (css px, client
 * coordinates), for scripts and tests. */
Viewer.prototype.drawnFrames = function (g) {
  var V = this, h = g.hit, out = [];
  if (!h || !g.wrap.isConnected) return out;
  var r = g.wrap.getBoundingClientRect(), L = h.L, t = g.tree;
  for (var i = h.e0; i < h.e1; i++) {
    var d = L.ds[i], y = (h.icicle ? h.PAD + d * h.FH : h.H - h.PAD - (d + 1) * h.FH) - h.top;
    var y0 = Math.max(0, y), y1 = Math.min(h.H0, y + h.FH - 1);
    if (y1 <= y0) continue;
    out.push({ name: L.ns[i] === 0 ? 'all' : V.names[t.name[L.ns[i]]], depth: d, node: L.ns[i], graph: g.kind,
      x: r.left + L.xs[i], y: r.top + y0, w: L.ws[i], h: y1 - y0 });
  }
  return out;
};

/* The hover line: the name and its numbers. A share of the zoomed frame only for frames in
 * it (an ancestor of the zoom is wider: its share of all says it). */
Viewer.prototype.describeParts = function (g, n) {
  var V = this, t = g.tree, m = V.meta, cn = m.countname || 'samples', f = m.factor;
  var name = n === 0 ? 'all' : V.names[t.name[n]], zt = t.tot[g.zoom];
  var self = t.cols > 1 ? t.self1[n] : t.self0[n];
  var s = '(' + fmtCount(t.tot[n], f) + ' ' + cn + ', ' + pct(t.tot[n], t.tot[0]) + ' of all';
  if (g.zoom > 0 && n >= g.zoom && n < t.end[g.zoom]) s += ', ' + pct(t.tot[n], zt) + ' of the zoomed frame';
  s += '; self ' + fmtCount(self, f) + ')';
  if (t.cols > 1) s += ' before ' + fmtCount(t.tot0[n], f) + ', delta ' + fmtCount(t.tot[n] - t.tot0[n], f);
  return [name, s];
};
Viewer.prototype.describe = function (g, n) { return this.describeParts(g, n).join(' '); };

/* The tooltip: the name may wrap anywhere, the numbers only between words. */
Viewer.prototype.showTip = function (parts, x, y) {
  var V = this, tip = V.tip;
  tip.textContent = '';
  tip.appendChild(el('span', 'fktipname', parts[0]));
  parts[1].split(' ').forEach(function (w) { tip.appendChild(doc.createTextNode(' ')); tip.appendChild(el('span', 'fknum', w)); });
  tip.hidden = false;
  tip.style.left = Math.max(0, Math.min(x + 12, window.innerWidth - 330)) + 'px';
  tip.style.top = (y + 14) + 'px';
};

Viewer.prototype.attach = function (g) {
  var V = this, c = g.scroller;
  function at(e) { var r = g.wrap.getBoundingClientRect(); return V.nodeAt(g, e.clientX - r.left, e.clientY - r.top); }
  c.addEventListener('mousemove', function (e) {
    var n = at(e);
    if (n < 0) { V.tip.hidden = true; c.style.cursor = ''; return; }
    var parts = V.describeParts(g, n);
    V.details.textContent = parts.join(' ');
    V.showTip(parts, e.clientX, e.clientY);
    c.style.cursor = 'pointer';
  });
  c.addEventListener('mouseleave', function () { V.tip.hidden = true; });
  c.addEventListener('click', function (e) {
    var n = at(e);
    if (n < 0) return;
    if (g.kind === 'flame') {
      V.select(g, n);
      V.set({ zoom: V.pathOf(n) });
    } else if (n > 0) {
      V.sandwich(V.names[g.tree.name[n]]);
    }
  });
};

/* The frame the transform buttons and keys act on (the last one clicked). */
Viewer.prototype.select = function (g, n) {
  var V = this, name = n === 0 ? '' : V.names[g.tree.name[n]];
  V.selected = n === 0 ? null : { name: name, path: V.pathOf(n) };
  V.renderSelection();
};
Viewer.prototype.renderSelection = function () {
  var V = this, s = V.selected;
  V.sel.textContent = '';
  if (!s) return;
  V.sel.appendChild(el('span', 'fkselname', s.name));
  [['Sandwich', function () { V.sandwich(s.name); }, 's'],
    ['Focus', function () { V.transform('focus', s.path.join(';')); }, 'f'],
    ['Focus function', function () { V.transform('focusfn', s.name); }, 'F'],
    ['Merge', function () { V.transform('merge', s.name); }, 'm'],
    ['Drop', function () { V.transform('drop', s.name); }, 'x'],
    ['Collapse recursion', function () { V.transform('rec', s.name); }, 'r']].concat(
    // module`function names (DTrace, perf --modules style): the library's frames as one
    s.name.indexOf('`') > 0 ? [['Collapse ' + s.name.slice(0, s.name.indexOf('`') + 1),
      function () { V.transform('lib', s.name.slice(0, s.name.indexOf('`') + 1)); }, 'collapse the library']] : []
  ).forEach(function (a) {
    var b = el('button', null, a[0]);
    b.type = 'button';
    b.title = a[2];
    b.addEventListener('click', a[1]);
    V.sel.appendChild(b);
  });
};

/* ---------------------------------------------------------------- functions table */
Viewer.prototype.functions = function () {
  var V = this, t = V.tree;
  if (V.tableCache && V.tableCache.tree === t) return V.tableCache.rows;
  var nn = V.names.length, self = new Float64Array(nn), total = new Float64Array(nn), active = new Int32Array(nn);
  var s1 = t.cols > 1 ? t.self1 : t.self0, st = [], name = t.name, end = t.end, tot = t.tot;
  for (var i = 1; i < t.n; i++) {
    while (st.length && end[st[st.length - 1]] <= i) active[name[st.pop()]]--;
    var k = name[i];
    self[k] += s1[i] > 0 ? s1[i] : 0;
    // recursion counted once: only the outermost frame of a function adds its total
    if (!active[k]) total[k] += tot[i];
    active[k]++;
    st.push(i);
  }
  var rows = [];
  for (k = 0; k < nn; k++) if (total[k] > 0 || self[k] > 0) rows.push({ name: V.names[k], self: self[k], total: total[k] });
  V.tableCache = { tree: t, rows: rows };
  return rows;
};
Viewer.prototype.top = function (n, key) {
  key = key || this.state.sort;
  var rows = this.functions().slice(), re = this.regex();
  if (re) rows = rows.filter(function (r) { return re.test(r.name); });
  rows.sort(function (a, b) { return b[key] - a[key] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0); });
  return rows.slice(0, n === undefined ? rows.length : n);
};
/* The functions table: every function, as a virtual list (rows of one height; only those
 * in view are in the document), with how many the search leaves of all. */
Viewer.prototype.renderTable = function () {
  var V = this, m = V.meta, tot = V.tree.tot[0], rows = V.top(), all = V.functions().length, RH = 21;
  V.main.appendChild(el('div', 'fkcount', rows.length + ' of ' + all + ' functions' + (V.state.search ? ' (those matching the search)' : '')));
  var hd = el('table', 'fktable'), tr = el('tr');
  function cols(t) { ['fkc1', 'fkc2', 'fkc3'].forEach(function (c) { t.appendChild(el('col', c)); }); }
  cols(hd);
  [['self', 'Self'], ['total', 'Total'], ['name', m.nametype ? m.nametype.replace(/:$/, '') : 'Function']].forEach(function (h) {
    var th = el('th', h[0] === V.state.sort ? 'on' : null, h[1]);
    if (h[0] !== 'name') th.addEventListener('click', function () { V.set({ sort: h[0] }); });
    tr.appendChild(th);
  });
  hd.appendChild(tr);
  V.main.appendChild(hd);
  var sc = V.tableScroll = el('div', 'fktscroll'), sp = el('div', 'fkspace'), tb = el('table', 'fktable fkrows');
  sc.appendChild(tb);
  sc.appendChild(sp);
  V.main.appendChild(sc);
  sp.style.height = rows.length * RH + 'px';
  var top = sc.getBoundingClientRect().top;
  sc.style.height = Math.max(120, Math.min(rows.length * RH + 2, window.innerHeight - top - 34)) + 'px';
  function fill() {
    var a = Math.floor(sc.scrollTop / RH), b = Math.min(rows.length, a + Math.ceil(sc.clientHeight / RH) + 1);
    tb.textContent = '';
    cols(tb);
    tb.style.top = a * RH + 'px';
    for (var i = a; i < b; i++) {
      var r = rows[i], row = el('tr');
      row.style.height = RH + 'px';
      row.appendChild(el('td', 'num', fmtCount(r.self, m.factor) + ' (' + pct(r.self, tot) + ')'));
      row.appendChild(el('td', 'num', fmtCount(r.total, m.factor) + ' (' + pct(r.total, tot) + ')'));
      var td = el('td', 'fn', r.name);
      td.title = r.name + '\nclick: the sandwich of this function';
      td.addEventListener('click', V.sandwich.bind(V, r.name));
      row.appendChild(td);
      tb.appendChild(row);
    }
  }
  sc.addEventListener('scroll', function () { if (!V.tfr) V.tfr = requestAnimationFrame(function () { V.tfr = 0; fill(); }); });
  fill();
};

/* ---------------------------------------------------------------- sandwich
 * Callers (above, leaf-first) and callees (below) of one function; recursion counted
 * once: only the outermost frame of the function on each stack counts. */
Viewer.prototype.sandwichData = function (fname) {
  var V = this, t = V.tree, id = V.nameId(fname), nn = V.names.length, cols = t.cols;
  var callers = new Builder(nn, cols, t.name[0]), callees = new Builder(nn, cols, t.name[0]), total = 0, self = 0;
  if (id < 0) return null;
  var path = new Int32Array(maxDepth(t) + 2), open = -1, tot0 = t.tot0;
  var s1 = cols > 1 ? t.self1 : t.self0, rev = [];
  for (var i = 1; i < t.n; i++) {
    var d = t.depth[i];
    path[d - 1] = t.name[i];
    if (open >= 0 && i >= t.end[open]) open = -1;
    if (open < 0 && t.name[i] === id) {
      open = i;
      total += t.tot[i];
      rev.length = 0;
      for (var k = d - 1; k >= 0; k--) rev.push(path[k]);
      // the callers graph: the path leaf-first, weighted by this frame's total
      callers.add(rev, rev.length, tot0 ? tot0[i] : t.tot[i], cols > 1 ? t.tot[i] : 0);
    }
    if (t.name[i] === id) self += s1[i] > 0 ? s1[i] : 0;
    if (open >= 0) {
      var od = t.depth[open], v0 = t.self0[i], v1 = cols > 1 ? t.self1[i] : 0;
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
  return { name: fname, total: total, self: self, callersTree: a, calleesTree: b, callers: direct(a), callees: direct(b) };
};
Viewer.prototype.sandwich = function (name) {
  this.set({ sandwich: String(name), view: 'sandwich' });
  var d = this.sandwichData(String(name));
  return d ? { name: d.name, total: d.total, self: d.self, callers: d.callers, callees: d.callees } : null;
};
Viewer.prototype.renderSandwich = function () {
  var V = this, name = V.state.sandwich;
  if (!name && V.selected) name = V.selected.name;
  if (!name) { V.main.appendChild(el('div', 'fkhint', 'Click a frame, a table row or search, then press s (or pick Sandwich) to see its callers and callees.')); return; }
  var d = V.sandwichData(name), all = V.tree.tot[0], m = V.meta;
  if (!d || !(d.total > 0)) { V.main.appendChild(el('div', 'fkhint', 'No stack holds ' + name + '.')); return; }
  V.main.appendChild(el('div', 'fkswtitle', name + ': total ' + fmtCount(d.total, m.factor) + ' (' + pct(d.total, all) +
    '), self ' + fmtCount(d.self, m.factor) + ' (' + pct(d.self, all) + ')'));
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
Viewer.prototype.folded = function () {
  var V = this, out = [];
  eachStack(V.tree, function (path, len, a, b) {
    var s = '';
    for (var k = 0; k < len; k++) s += (k ? ';' : '') + V.names[path[k]];
    out.push(s + ' ' + (V.tree.cols > 1 ? a + ' ' + b : a));
  });
  return out.sort();
};

/* ---------------------------------------------------------------- window.flamekit */
function api(V) {
  return {
    viewer: V,
    get view() {
      var s = V.state, z = V.zoomNode(), t = V.tree;
      return { view: s.view, icicle: s.icicle, leftHeavy: s.left, dark: s.dark, split: s.split, zoom: s.zoom.slice(),
        zoomTotal: t.tot[z], total: t.tot[0], search: s.search, ignoreCase: s.ic, sandwich: s.sandwich,
        nodes: t.n, transforms: s.transforms.map(function (x) { return x.slice(); }) };
    },
    get transforms() { return V.state.transforms.map(function (x) { return x.slice(); }); },
    link: function () { V.flushHash(); return location.href; },
    search: function (re, ignoreCase) {
      V.set({ search: re instanceof RegExp ? re.source : String(re || ''), ic: re instanceof RegExp ? re.ignoreCase : !!ignoreCase });
      return V.match ? V.match.sum / V.match.total : re ? 0 : null;
    },
    searchStats: function () { return V.match ? { sum: V.match.sum, total: V.match.total, frames: V.match.count, ms: V.searchMs } : null; },
    next: function () { V.nextMatch(1); return V.state.zoom.slice(); },
    previous: function () { V.nextMatch(-1); return V.state.zoom.slice(); },
    zoom: function (path) {
      var p = Array.isArray(path) ? path.map(String) : path ? String(path).split(';') : [];
      if (p.length && V.findPath(p) < 0) return false;
      V.set({ zoom: p, view: 'flame' });
      return true;
    },
    sandwich: function (name) { return V.sandwich(name); },
    top: function (n, key) { return V.top(n, key).map(function (r) { return { name: r.name, self: r.self, total: r.total }; }); },
    transform: function (op, arg) { V.transform(op, arg === undefined ? '' : arg); return this.transforms; },
    undo: function (k) { V.undo(k); return this.transforms; },
    setView: function (v) { V.set({ view: v }); },
    set: function (o) { V.set(o); },
    folded: function () { return V.folded(); },
    drawn: function () { var out = []; (V.graphs || []).forEach(function (g) { out = out.concat(V.drawnFrames(g)); }); return out; },
    setTree: function (t) { V.setTree(t); },
    drawMs: function () { V.draw(); return V.lastDrawMs; }
  };
}

/* ---------------------------------------------------------------- entry points */
var FK = window.flamekit = window.flamekit || {};
FK.Viewer = Viewer;
FK.Builder = Builder;
FK.finishTree = finishTree;
FK.decode = decode;
/* The scripting object's members become window.flamekit's (one viewer a page). */
function publish(a) {
  for (var k in a) {
    var d = Object.getOwnPropertyDescriptor(a, k);
    d.configurable = true;
    Object.defineProperty(FK, k, d);
  }
  return a;
}
/* The flamekit html page: read the data, then draw. flamekit.ready resolves when drawn. */
FK.boot = function () {
  var meta = JSON.parse(doc.getElementById('fkmeta').textContent);
  var t0 = performance.now();
  var bytes = base64Bytes(doc.getElementById('fkdata').textContent), t1 = performance.now();
  FK.ready = inflate(bytes, meta.raw).then(function (u8) {
    var t2 = performance.now(), d = decode(meta, u8), t3 = performance.now();
    FK.timing = { boot: t0, base64: t1 - t0, inflate: t2 - t1, decode: t3 - t2 };
    var V = new Viewer(doc.getElementById('fkapp'), { names: d.names, colors: d.colors, rgb: d.rgb, offColors: d.offColors, offRgb: d.offRgb, tree: d.tree, meta: meta, hash: true });
    publish(api(V));
    FK.loadMs = performance.now() - t0;
    FK.timing.view = performance.now() - t3;
    doc.body.setAttribute('data-ready', '1');
    return FK;
  });
  FK.ready.catch(function (e) { doc.getElementById('fkapp').textContent = 'cannot read the page data: ' + e; });
};
/* For other pages (the heat map): a viewer in element root over a tree built with
 * flamekit.Builder or given as arrays; returns the same scripting object. */
FK.mount = function (root, o) {
  return publish(api(new Viewer(root, o)));
};
})();

// @ts-check
// draw.js - layout and drawing: the view's canvas over a scroller as tall as the graph, the
// rows in view drawn as scanlines, hit tests, tooltips, drawn(), the selection bar.
/** @this {FkV} */
Viewer.prototype.makeGraph = function (kind) {
  var V = /** @type {FkV} */ (this), wrap = el('div', 'fkflame'), c = el('canvas'), sc = el('div', 'fkscroll'), sp = el('div', 'fkspace');
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

/** @this {FkV} */
Viewer.prototype.renderFlame = function () {
  var V = /** @type {FkV} */ (this), t = V.tree, g = V.flameGraph || (V.flameGraph = V.makeGraph('flame'));
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

/** @this {FkV} */
Viewer.prototype.draw = function () {
  var V = /** @type {FkV} */ (this), t1 = performance.now();
  (V.graphs || []).forEach(function (g) { if (g.canvas.isConnected) V.drawGraph(g); });
  V.lastDrawMs = performance.now() - t1;
};

/* The height the graphs of the view may take: from the top of the first one to the bottom
 * of the window, less the details line (at least 160 px). */
/** @this {FkV} */
Viewer.prototype.avail = function () {
  var V = /** @type {FkV} */ (this), g = V.graphs && V.graphs[0];
  if (V.availH && V.availOf === V.state.view + '/' + V.graphs.length) return V.availH;
  var top = g ? g.wrap.getBoundingClientRect().top + (window.scrollY || 0) : 0;
  var h = Math.max(160, Math.floor(window.innerHeight - top - 34));
  V.availOf = V.state.view + '/' + V.graphs.length;
  return (V.availH = h);
};

/* ---- a differential profile's widths (two columns: before in self0/tot0, after in
 * self1/tot): after (flamegraph.pl's), before, or both: each stack as wide as the larger of
 * its two counts (a frame's width, the larger of its own two plus its children's), so
 * frames that exist on one side only are drawn, as flamekit svg --diff-shape both draws
 * them. Numbers shown stay each side's own. */
var SHAPES = ['after', 'before', 'both'];
/** @this {FkV} */
Viewer.prototype.isDiff = function () { var t = this.tree; return t.cols > 1 && !!t.tot0; };
/** @this {FkV} */
Viewer.prototype.nextShape = function () {
  if (!this.isDiff()) return 'b: the profile has one column, not two (flamekit diff makes a differential profile)';
  this.set({ shape: SHAPES[(SHAPES.indexOf(this.state.shape) + 1) % SHAPES.length] });
};
/* The widths tree t is drawn with (t.tot unless a differential shape says otherwise), made
 * once a tree and shape; the children lists cached on the tree go with a change of them. */
function widthsOf(t, shape) {
  if (!(t.cols > 1 && t.tot0)) return t.tot;
  if (t.widShape === shape) return t.wid;
  var w = shape === 'before' ? t.tot0 : t.tot, n = t.n, end = t.end, s0 = t.self0, s1 = t.self1, i, c, x, y;
  if (shape === 'both') {
    w = new Float64Array(n);
    for (i = n - 1; i >= 0; i--) {
      x = s0[i] > 0 ? s0[i] : 0; y = s1[i] > 0 ? s1[i] : 0;
      x = x > y ? x : y;
      for (c = i + 1; c < end[i]; c = end[c]) x += w[c];
      w[i] = x;
    }
  }
  t.wid = w;
  t.widShape = shape;
  t.kids = new Map();
  return w;
}

/* The children lists of frames vs (those of one level of a redraw that have two children or
 * more and no list good at width W): each frame's children that can be seen at width W (css
 * px) or less, at least a third of a pixel wide when the frame spans all of W, heaviest
 * first (ties in name order), each with its total and its offset from the frame's start in
 * name order (counts). A redraw reads down a list until a child is too narrow, so a narrow
 * frame with many children costs no more than what it shows. Cached on the tree. Children
 * lie far apart in memory, and each is found from the one before (its end): the frames'
 * scans go in step, one child of each a round, so that their cache misses overlap. */
function makeKids(t, vs, W) {
  var m = vs.length, end = t.end, tot = t.wid || t.tot, j, q, k, c, e, x, na = m;
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
/* A differential frame with no change is white; on a white page it would not be seen (the
 * SVG has its tinted background): drawn this light grey there instead. */
var EVEN = abgr(236, 236, 236);

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

/** @this {FkV} */
Viewer.prototype.framePixel = function (t, i, maxd) {
  var V = /** @type {FkV} */ (this);
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
/** @this {FkV} */
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
/** @this {FkV} */
Viewer.prototype.layout = function (g, W, PAD) {
  var V = /** @type {FkV} */ (this), t = g.tree, left = V.state.left;
  var tot = widthsOf(t, V.state.shape);
  if (g.lay && g.lay.t === t && g.lay.z === g.zoom && g.lay.W === W && g.lay.left === left && g.lay.tot === tot) return g.lay;
  var z = g.zoom, zt = tot[z], anc = z > 0 ? ancestors(t, z) : [];
  var end = t.end, name = t.name;
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
  g.lay = { t: t, z: z, W: W, left: left, tot: tot, L: L, nanc: anc.length, rows: L.n ? L.ds[L.n - 1] + 1 : 0 };
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
/** @this {FkV} */
Viewer.prototype.drawGraph = function (g) {
  var V = /** @type {FkV} */ (this), t = g.tree, c = g.canvas, meta = V.meta;
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
      if (p === bg && !plain) p = EVEN;
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
  var dk = !plain && !(V.offMark >= 0), ink = th.txt;
  for (i = e0; i < e; i++) {
    if (L.ws[i] <= minl) continue;
    var yy = rowY(L.ds[i]) - top0;
    var label = L.ns[i] === 0 ? 'all' : V.names[L.nm[i]], fit = Math.floor((L.ws[i] - 6) / cw1);
    if (label.length > fit) label = meta.tl ? '..' + label.slice(label.length - fit + 2) : label.slice(0, fit - 2) + '..';
    if (dk) {
      // a differential frame's label is white on a deep colour, as the SVG's (dark_fill)
      p = V.framePixel(t, L.ns[i], maxdelta);
      var want = darkFill(i < nanc ? fade(p, bg) : p) ? '#fff' : th.txt;
      if (want !== ink) cx2.fillStyle = ink = want;
    }
    cx2.fillText(label, L.xs[i] + 3, yy + FH / 2);
  }
  g.hit = { L: L, H: H, H0: H0, FH: FH, PAD: PAD, icicle: g.icicle, top: top0, e0: e0, e1: e };
};
/* A colour (0xAABBGGRR) too dark for black text: relative luminance (sRGB) under 0.18, where
 * black's contrast falls under 4.6:1; the rule of the SVG's labels (svg-write.c dark_fill). */
function darkFill(p) {
  var y = 0, k, v, w = [0.2126, 0.7152, 0.0722];
  for (k = 0; k < 3; k++) {
    v = ((p >> (8 * k)) & 255) / 255;
    y += w[k] * (v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4));
  }
  return y < 0.18;
}
function fade(p, bg) {
  var o = 0, s;
  for (s = 0; s < 24; s += 8) o |= Math.round(((p >> s) & 255) * 0.55 + ((bg >> s) & 255) * 0.45) << s;
  return (0xff000000 | o) >>> 0;
}

/* The frame at (x, y), css px from the view's top left corner; -1 if none. */
/** @this {FkV} */
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
/** @this {FkV} */
Viewer.prototype.drawnFrames = function (g) {
  var V = /** @type {FkV} */ (this), h = g.hit, out = [];
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
/** @this {FkV} */
Viewer.prototype.describeParts = function (g, n) {
  var V = /** @type {FkV} */ (this), t = g.tree, m = V.meta, cn = m.countname || 'samples', f = m.factor;
  var name = n === 0 ? 'all' : V.names[t.name[n]], zt = t.tot[g.zoom];
  var self = t.cols > 1 ? t.self1[n] : selfAt(t, n);
  var s = '(' + fmtCount(t.tot[n], f) + ' ' + cn + ', ' + pct(t.tot[n], t.tot[0]) + ' of all';
  if (g.zoom > 0 && n >= g.zoom && n < t.end[g.zoom]) s += ', ' + pct(t.tot[n], zt) + ' of the zoomed frame';
  s += '; self ' + fmtCount(self, f) + ')';
  if (t.cols > 1 && t.tot0) {
    var b = t.tot0[n], a = t.tot[n], sb = t.self0[n] > 0 ? t.self0[n] : 0, sa = self > 0 ? self : 0;
    s += ' before ' + fmtCount(b, f) + ', after ' + fmtCount(a, f) + ', change ' + fmtChange(a - b, f) + ' (' + pctChange(b, a) +
      '); self before ' + fmtCount(sb, f) + ', after ' + fmtCount(sa, f) + (a > 0 && b === 0 ? ' \u2014 only after' : b > 0 && a === 0 ? ' \u2014 only before' : '');
  }
  return [name, s];
};
/** @this {FkV} */
Viewer.prototype.describe = function (g, n) { return this.describeParts(g, n).join(' '); };

/* The tooltip: the name may wrap anywhere, the numbers only between words. */
/** @this {FkV} */
Viewer.prototype.showTip = function (parts, x, y) {
  var V = /** @type {FkV} */ (this), tip = V.tip;
  tip.textContent = '';
  tip.appendChild(el('span', 'fktipname', parts[0]));
  parts[1].split(' ').forEach(function (w) { tip.appendChild(doc.createTextNode(' ')); tip.appendChild(el('span', 'fknum', w)); });
  tip.hidden = false;
  tip.style.left = Math.max(0, Math.min(x + 12, window.innerWidth - 330)) + 'px';
  tip.style.top = (y + 14) + 'px';
};

/** @this {FkV} */
Viewer.prototype.attach = function (g) {
  var V = /** @type {FkV} */ (this), c = g.scroller;
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
/** @this {FkV} */
Viewer.prototype.select = function (g, n) {
  var V = /** @type {FkV} */ (this), name = n === 0 ? '' : V.names[g.tree.name[n]];
  V.selected = n === 0 ? null : { name: name, path: V.pathOf(n) };
  V.renderSelection();
};
/** @this {FkV} */
Viewer.prototype.renderSelection = function () {
  var V = /** @type {FkV} */ (this), s = V.selected;
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

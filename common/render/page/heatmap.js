// @ts-check
// heatmap.js - the heat map page's script (heatmap.c embeds it after the data it reads):
// draws the heat map on canvases, handles range selection and draws range flame graphs.
(function () {
'use strict';
/* Data written by heatmap.c: per-cell counts and per-cell (stack, count) pairs
 * as compact base64 varint strings, a stack table (nodes in preorder) and names.
 * Every profile string reaches the DOM through textContent or setAttribute only. */
var D = JSON.parse(document.getElementById('fkdata').textContent);
var ROWS = D.rows, NSECS = D.nsecs, NCELLS = NSECS * ROWS, NN = D.nnodes;
var AL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
var B64 = new Uint8Array(128);
for (var i = 0; i < 64; i++) B64[AL.charCodeAt(i)] = i;

function Dec(s, pos) { this.s = s; this.p = pos || 0; }
Dec.prototype.uv = function () {
  var v = 0, mul = 1, c;
  for (;;) {
    c = B64[this.s.charCodeAt(this.p++)];
    if (c < 32) return v + c * mul;
    v += (c - 32) * mul;
    mul *= 32;
  }
};
Dec.prototype.num = function () { return fkCount(this.uv(), D.floats); }; // page/counts.js

/** @param {string} id */
function $(id) { return document.getElementById(id); }
var scaleSel = /** @type {HTMLSelectElement} */ ($('scale'));
function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function fmtNum(v) {
  if (v === Math.floor(v)) return String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return v.toPrecision(6).replace(/\.?0+$/, '');
}
function pct(v, t) { return t > 0 ? (100 * v / t).toFixed(2) + '%' : '0%'; }

/* ---- stack table */
var parent = new Int32Array(NN), nameOf = new Int32Array(NN), depth = new Int32Array(NN);
var firstChild = new Int32Array(NN).fill(-1), nextSib = new Int32Array(NN).fill(-1);
(function () {
  var d = new Dec(D.nodes, 0);
  parent[0] = -1;
  for (var i = 1; i < NN; i++) {
    parent[i] = i - d.uv();
    nameOf[i] = d.uv();
    depth[i] = depth[parent[i]] + 1;
  }
  for (i = NN - 1; i >= 1; i--) {
    nextSib[i] = firstChild[parent[i]];
    firstChild[parent[i]] = i;
  }
})();

/* ---- cells */
var cells = new Float64Array(NCELLS), maxCell = 0;
(function () {
  var d = new Dec(D.cells, 0);
  for (var c = 0; c < NCELLS; c++) {
    cells[c] = d.num();
    if (cells[c] > maxCell) maxCell = cells[c];
  }
})();
var hl = D.hl.map(function (h) {
  var a = new Float64Array(NCELLS), d = new Dec(h.cells, 0), c = 0;
  while (d.p < h.cells.length) { c += d.uv(); a[c] = d.num(); }
  return { comm: h.comm, cells: a };
});
var ranks = null;
function rankScale() {
  if (ranks) return ranks;
  var seen = {}, v = [];
  for (var c = 0; c < NCELLS; c++)
    if (cells[c] > 0 && !seen[cells[c]]) { seen[cells[c]] = 1; v.push(cells[c]); }
  v.sort(function (a, b) { return a - b; });
  ranks = v;
  return v;
}
function level(v, scale) {
  if (v <= 0) return 0;
  if (scale === 'rank') {
    var r = rankScale(), lo = 0, hi = r.length - 1;
    while (lo < hi) { var m = (lo + hi) >> 1; if (r[m] < v) lo = m + 1; else hi = m; }
    return (lo + 1) / r.length;
  }
  return maxCell > 0 ? v / maxCell : 0;
}
var HEAT = [[255, 245, 210], [254, 204, 92], [253, 141, 60], [227, 26, 28], [128, 0, 38]];
var HUES = [[33, 102, 172], [27, 140, 55], [130, 50, 160], [0, 150, 150], [200, 120, 0],
  [90, 90, 90], [180, 40, 120], [100, 130, 20]];
function heatColor(f) {
  var x = Math.min(1, Math.max(0, f)) * (HEAT.length - 1), k = Math.min(HEAT.length - 2, Math.floor(x));
  var t = x - k, a = HEAT[k], b = HEAT[k + 1];
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}
function hueColor(h, f) {
  var t = 0.25 + 0.75 * Math.min(1, f), base = HUES[h % HUES.length];
  return [255 + (base[0] - 255) * t, 255 + (base[1] - 255) * t, 255 + (base[2] - 255) * t];
}
var EMPTY = [244, 244, 244], EMPTY_DARK = [52, 54, 58];

/* ---- heat map layout */
var YAX = 54, XAX = 18, TILE = 4096;
var wrap = $('hmwrap'), scroller = $('hmscroll');
var CH = Math.max(2, Math.min(12, Math.floor(520 / ROWS)));
var CW = 10;
var tiles = [];
function layout() {
  var avail = Math.max(200, Math.floor(window.innerWidth * 0.55) - YAX - 30);
  CW = Math.max(2, Math.min(20, Math.floor(avail / NSECS)));
  wrap.textContent = '';
  tiles = [];
  var W = NSECS * CW, H = ROWS * CH;
  wrap.style.width = (YAX + W + 8) + 'px';
  wrap.style.height = (H + XAX + 4) + 'px';
  wrap.setAttribute('data-cw', String(CW));
  wrap.setAttribute('data-ch', String(CH));
  wrap.setAttribute('data-x0', String(YAX));
  var per = Math.max(1, Math.floor(TILE / CW));
  for (var s0 = 0; s0 < NSECS; s0 += per) {
    var n = Math.min(per, NSECS - s0), cv = document.createElement('canvas');
    cv.width = n * CW;
    cv.height = H;
    cv.style.left = (YAX + s0 * CW) + 'px';
    wrap.appendChild(cv);
    tiles.push({ cv: cv, s0: s0, n: n });
  }
  var ystep = ROWS >= 20 ? Math.ceil(ROWS / 10) : 1;
  for (var r = 0; r <= ROWS; r += ystep) {
    var yl = el('div', 'ylab', Math.round(r * 1000 / ROWS) + ' ms');
    yl.style.top = Math.min(H - 6, Math.max(0, r * CH - 6)) + 'px';
    wrap.appendChild(yl);
  }
  var xstep = 1;
  while (xstep * CW < 44) xstep = xstep < 5 ? xstep + 1 : xstep < 10 ? 10 : xstep * 2;
  for (var s = 0; s < NSECS; s += xstep) {
    var xl = el('div', 'xlab', (D.first + s) + 's');
    xl.style.left = (YAX + s * CW) + 'px';
    xl.style.top = (H + 3) + 'px';
    wrap.appendChild(xl);
  }
  selEls = [];
  draw();
  showSel();
}
function draw() {
  var scale = scaleSel.value, empty = document.documentElement.classList.contains('fkdark') ? EMPTY_DARK : EMPTY;
  for (var t = 0; t < tiles.length; t++) {
    var T = tiles[t], ctx = T.cv.getContext('2d');
    var img = ctx.createImageData(T.cv.width, T.cv.height), px = img.data, W = T.cv.width;
    var gx = CW >= 5 ? 1 : 0, gy = CH >= 5 ? 1 : 0;
    for (var s = 0; s < T.n; s++) {
      for (var r = 0; r < ROWS; r++) {
        var c = (T.s0 + s) * ROWS + r, v = cells[c], col = empty;
        if (v > 0) {
          /* the hue of the highlighted comm with the most samples here, if it
           * beats all other comms together; heat colours otherwise */
          var f = level(v, scale), best = -1, bv = 0, hs = 0;
          for (var h = 0; h < hl.length; h++) {
            hs += hl[h].cells[c];
            if (hl[h].cells[c] > bv) { bv = hl[h].cells[c]; best = h; }
          }
          col = best >= 0 && bv > v - hs ? hueColor(best, f) : heatColor(f);
        }
        for (var y = r * CH; y < (r + 1) * CH - gy; y++) {
          var o = (y * W + s * CW) * 4;
          for (var x = 0; x < CW - gx; x++, o += 4) {
            px[o] = col[0]; px[o + 1] = col[1]; px[o + 2] = col[2]; px[o + 3] = 255;
          }
        }
      }
    }
    ctx.putImageData(img, 0, 0);
  }
  legend(scale);
}
function legend(scale) {
  var lg = $('legend');
  lg.textContent = '';
  var bar = el('canvas', 'bar');
  bar.width = 120; bar.height = 10;
  var cx = bar.getContext('2d');
  for (var x = 0; x < 120; x++) {
    var c = heatColor((x + 1) / 120);
    cx.fillStyle = 'rgb(' + (c[0] | 0) + ',' + (c[1] | 0) + ',' + (c[2] | 0) + ')';
    cx.fillRect(x, 0, 1, 10);
  }
  lg.appendChild(el('span', '', scale === 'rank' ? 'rank: low' : '0'));
  lg.appendChild(bar);
  lg.appendChild(el('span', '', scale === 'rank' ? 'high' : fmtNum(maxCell) + ' ' + D.countname + '/cell'));
  hl.forEach(function (h, k) {
    var it = el('span'), sw = el('span', 'sw'), c = HUES[k % HUES.length];
    sw.style.background = 'rgb(' + c.join(',') + ')';
    it.appendChild(sw);
    it.appendChild(document.createTextNode(h.comm));
    lg.appendChild(it);
  });
}

/* ---- cell addressing; a range is [first cell, last cell] in time order */
function cellAt(ev) {
  var b = wrap.getBoundingClientRect();
  var x = ev.clientX - b.left - YAX, y = ev.clientY - b.top;
  if (x < 0 || y < 0) return -1;
  var s = Math.floor(x / CW), r = Math.floor(y / CH);
  if (s >= NSECS || r >= ROWS) return -1;
  return s * ROWS + r;
}
function cellStart(c) { return D.first + Math.floor(c / ROWS) + (c % ROWS) / ROWS; }
function cellEnd(c) { return cellStart(c) + 1 / ROWS; }
function fmtT(t) { return t.toFixed(3) + 's'; }
function rangeText(r) { return fmtT(cellStart(r[0])) + ' \u2013 ' + fmtT(cellEnd(r[1])); }
function rangeSum(r) { var t = 0; for (var c = r[0]; c <= r[1]; c++) t += cells[c]; return t; }

/* ---- selection state, kept in the URL hash */
var A = null, B = null, pending = -1, drag = -1, dragMoved = false, dragCur = -1;
function cellName(c) { return (D.first + Math.floor(c / ROWS)) + '.' + (c % ROWS); }
function parseCell(t) {
  var m = /^(-?\d+)\.(\d+)$/.exec(t);
  if (!m) return -1;
  var s = parseInt(m[1], 10) - D.first, r = parseInt(m[2], 10);
  if (s < 0 || s >= NSECS || r >= ROWS) return -1;
  return s * ROWS + r;
}
function parseRange(t) {
  var p = (t || '').split('-');
  if (p.length !== 2) return null;
  var a = parseCell(p[0]), b = parseCell(p[1]);
  if (a < 0 || b < 0) return null;
  return a <= b ? [a, b] : [b, a];
}
/* the ranges first; the flame graph viewer keeps its own keys (zoom, search...) */
function writeHash() {
  var h = [], old = new URLSearchParams(location.hash.slice(1));
  if (A) h.push('a=' + cellName(A[0]) + '-' + cellName(A[1]));
  if (B) h.push('b=' + cellName(B[0]) + '-' + cellName(B[1]));
  old.delete('a');
  old.delete('b');
  if (old.toString()) h.push(old.toString());
  var s = h.length ? '#' + h.join('&') : '';
  if (s !== location.hash && (s || location.hash))
    history.replaceState(null, '', s || location.pathname + location.search);
}
function readHash() {
  var q = {};
  location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
    var i = kv.indexOf('=');
    if (i > 0) q[kv.slice(0, i)] = kv.slice(i + 1);
  });
  A = parseRange(q.a);
  B = A ? parseRange(q.b) : null;
  pending = -1;
}

var selEls = [];
function selRects(r, cls) {
  var out = [], s0 = Math.floor(r[0] / ROWS), r0 = r[0] % ROWS, s1 = Math.floor(r[1] / ROWS), r1 = r[1] % ROWS;
  function box(s, ra, rb, n) {
    var d = el('div', 'sel ' + cls);
    d.style.left = (YAX + s * CW) + 'px';
    d.style.top = (ra * CH) + 'px';
    d.style.width = (n * CW) + 'px';
    d.style.height = ((rb - ra + 1) * CH) + 'px';
    out.push(d);
  }
  if (s0 === s1) { box(s0, r0, r1, 1); return out; }
  box(s0, r0, ROWS - 1, 1);
  if (s1 - s0 > 1) box(s0 + 1, 0, ROWS - 1, s1 - s0 - 1);
  box(s1, 0, r1, 1);
  return out;
}
function showSel() {
  selEls.forEach(function (d) { d.remove(); });
  selEls = [];
  if (A) selEls = selEls.concat(selRects(A, 'a'));
  if (B) selEls = selEls.concat(selRects(B, 'b'));
  if (drag >= 0 && dragMoved) selEls = selEls.concat(selRects([Math.min(drag, dragCur), Math.max(drag, dragCur)], 'p'));
  else if (pending >= 0) selEls = selEls.concat(selRects([pending, pending], 'p'));
  selEls.forEach(function (d) { wrap.appendChild(d); });
  var sel = $('sel');
  sel.textContent = '';
  if (A) {
    var a = el('div', 'a', 'Range A: ' + rangeText(A) + ' (' + fmtNum(rangeSum(A)) + ' ' + D.countname + ')');
    sel.appendChild(a);
  }
  if (B) sel.appendChild(el('div', 'b', 'Range B: ' + rangeText(B) + ' (' + fmtNum(rangeSum(B)) + ' ' + D.countname + ')'));
  if (pending >= 0) sel.appendChild(el('div', '', 'Start ' + fmtT(cellStart(pending)) + ': click the end cell (Esc cancels)'));
  else if (A && !B) sel.appendChild(el('div', '', 'Select a second range to compare.'));
}
function commit(r) {
  if (!A || B) { A = r; B = null; } else { B = r; }
  pending = -1;
  if (graph) graph.set({ zoom: [] });
  writeHash();
  showSel();
  renderFlame();
}

wrap.addEventListener('mousedown', function (ev) {
  if (ev.button !== 0) return;
  var c = cellAt(ev);
  if (c < 0) return;
  ev.preventDefault();
  drag = dragCur = c;
  dragMoved = false;
});
window.addEventListener('mousemove', function (ev) {
  var c = cellAt(ev), tip = $('tip');
  if (drag < 0 && !scroller.contains(/** @type {Node} */ (ev.target))) c = -1;
  if (drag >= 0 && c >= 0 && c !== dragCur) {
    dragCur = c;
    if (c !== drag) dragMoved = true;
    showSel();
  }
  if (c < 0) { tip.hidden = true; return; }
  var s = D.first + Math.floor(c / ROWS), r = c % ROWS;
  var t = 'second ' + s + ', ' + fmtNum(+(r * 1000 / ROWS).toFixed(3)) + '\u2013' +
    fmtNum(+((r + 1) * 1000 / ROWS).toFixed(3)) + ' ms (' + fmtT(cellStart(c)) + ' \u2013 ' +
    fmtT(cellEnd(c)) + '): ' + fmtNum(cells[c]) + ' ' + D.countname;
  hl.forEach(function (h) { if (h.cells[c] > 0) t += ', ' + h.comm + ': ' + fmtNum(h.cells[c]); });
  tip.textContent = t;
  tip.hidden = false;
  tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 4) + 'px';
  tip.style.top = (ev.clientY + 16) + 'px';
});
window.addEventListener('mouseup', function (ev) {
  if (drag < 0) return;
  var c = cellAt(ev);
  if (c < 0) c = dragCur;
  var start = drag;
  drag = -1;
  if (dragMoved) {
    dragMoved = false;
    pending = -1;
    commit([Math.min(start, c), Math.max(start, c)]);
  } else if (pending < 0) {
    pending = c;
    showSel();
  } else {
    var p = pending;
    commit([Math.min(p, c), Math.max(p, c)]);
  }
});
wrap.addEventListener('mouseleave', function () { $('tip').hidden = true; });
window.addEventListener('keydown', function (ev) {
  if (ev.key === 'Escape' && pending >= 0) { pending = -1; showSel(); }
});
$('selall').addEventListener('click', function () {
  A = null; B = null;
  commit([0, NCELLS - 1]);
});
$('clear').addEventListener('click', function () {
  A = B = null; pending = -1;
  if (graph) graph.set({ zoom: [] });
  writeHash(); showSel(); renderFlame();
});
scaleSel.value = D.scale;
scaleSel.addEventListener('change', draw);

/* ---- flame graph of a range (or the difference of two), drawn by the viewer of
 * `flamekit html` (viewer.js): same look, same colours, same tools */
function rangeSelf(r) {
  var self = new Float64Array(NN), s0 = Math.floor(r[0] / ROWS), s1 = Math.floor(r[1] / ROWS);
  for (var s = s0; s <= s1; s++) {
    var d = new Dec(D.pairs, D.secoff[s]);
    for (var row = 0; row < ROWS; row++) {
      var c = s * ROWS + row, np = d.uv(), leaf = 0, inr = c >= r[0] && c <= r[1];
      for (var j = 0; j < np; j++) {
        leaf += d.uv();
        var v = d.num();
        if (inr) self[leaf] += v;
      }
      if (c >= r[1]) break;
    }
  }
  return self;
}
/* names for the viewer: the page's names and the root's (''), each with the colour
 * heatmap.c wrote for it (the SVG palette's) */
var vNames = D.names.concat(['']), vColors = [];
for (var k = 0; k <= D.names.length; k++) vColors.push('#' + D.colors.slice(6 * k, 6 * k + 6));
/* The tree the viewer draws. One range: its counts. Two: range A's counts as the first
 * column (before), B's as the second (after): the viewer draws a differential profile in
 * flamegraph.pl's colours (a frame's own change, B - A) at the widths its shape says, here
 * "both" to begin with: as wide as the larger of A and B, so a frame found only in A is
 * drawn too (in blue). Its tree keeps A's inclusive counts in tot0 and B's in tot, under
 * any transform, which describeAB reads. */
/**
 * @param {Float64Array} a  own counts of range A per node
 * @param {Float64Array} [b] range B's, for a differential graph
 */
function rangeTree(a, b) {
  var t = { n: NN, cols: b ? 2 : 1, name: new Int32Array(NN), depth: Int32Array.from(depth),
    end: new Int32Array(NN), self0: a, self1: b };
  t.name[0] = D.names.length;
  for (var i = 1; i < NN; i++) t.name[i] = nameOf[i];
  return flamekit.finishTree(t);
}
/** @param {number} v */
function fmtDelta(v) { return (v > 0 ? '+' : v < 0 ? '\u2212' : '\u00b1') + fmtNum(Math.abs(v)); }
/* The tooltip and details line of a differential graph: both ranges' counts and the change
 * (the viewer's own text for one range, and under transforms, whose trees it builds anew). */
/**
 * @param {FkGraph} g
 * @param {number} n  node of g.tree
 * @returns {string[]} the name, and the numbers (the viewer's hover line and tooltip)
 */
function describeAB(g, n) {
  var V = graph.viewer, t = g.tree;
  if (!(t.cols > 1 && t.tot0)) return Object.getPrototypeOf(V).describeParts.call(V, g, n);
  var cn = D.countname, a = t.tot0[n], b = t.tot[n], ra = t.tot0[0], rb = t.tot[0];
  var s = '(A: ' + fmtNum(a) + ' ' + cn + ', ' + pct(a, ra) +
    ' of A; B: ' + fmtNum(b) + ', ' + pct(b, rb) + ' of B; change ' + fmtDelta(b - a);
  var sa = t.self0[n] > 0 ? t.self0[n] : 0, sb = t.self1[n] > 0 ? t.self1[n] : 0;
  s += '; self A ' + fmtNum(sa) + ', B ' + fmtNum(sb) + ' (' + fmtDelta(sb - sa) + '))';
  if (b === 0 && a > 0) s += ' \u2014 only in A';
  else if (a === 0 && b > 0) s += ' \u2014 only in B';
  return [n === 0 ? 'all' : V.names[t.name[n]], s];
}
/** @type {FkApi} */
var graph = null, fgW = -1;
/* The viewer measures its pane when it draws; the pane was hidden (or of another size)
 * when it last did: measure again and redraw, before the next paint. */
function fitGraph() {
  var w = $('fg').clientWidth;
  if (!graph || $('fg').hidden || w <= 0 || w === fgW) return;
  fgW = w;
  graph.viewer.W = 0;
  graph.viewer.draw();
}
function renderFlame() {
  var t;
  if (!A) {
    $('fgtitle').textContent = 'Select a range in the heat map.';
    t = rangeTree(new Float64Array(NN), null);
  } else if (B) {
    t = rangeTree(rangeSelf(A), rangeSelf(B));
    $('fgtitle').textContent = 'Differential: B ' + rangeText(B) + ' vs A ' + rangeText(A) +
      ' (red: more in B, blue: less or only in A; widths as the Widths button says: both, the larger of A and B, at first)';
  } else {
    t = rangeTree(rangeSelf(A), null);
    $('fgtitle').textContent = 'Range A: ' + rangeText(A) + ', ' + fmtNum(t.tot[0]) + ' ' + D.countname;
  }
  if (A && !(t.tot[0] > 0) && !(t.tot0 && t.tot0[0] > 0)) $('fgtitle').textContent += ' \u2014 no samples in this range';
  $('fg').hidden = !A;
  fgW = -1;
  if (!graph) {
    graph = flamekit.mount($('fg'), { names: vNames, colors: vColors, tree: t, hash: true, shape: 'both',
      meta: { countname: D.countname, fontsize: D.fs, frameheight: D.fh, font: D.font, inverted: D.inverted } });
    graph.viewer.describeParts = describeAB;
  } else {
    graph.viewer.W = 0;
    graph.setTree(t);
  }
  fitGraph();
}
if (window.ResizeObserver) new ResizeObserver(fitGraph).observe($('fg'));

/* The dark theme is the viewer's (its button, key d and URL); the heat map follows it. */
var darkNow = document.documentElement.classList.contains('fkdark');
new MutationObserver(function () {
  var d = document.documentElement.classList.contains('fkdark');
  if (d !== darkNow) { darkNow = d; draw(); }
}).observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });

/* for scripts and tests: the two ranges' inclusive counts of node n of the drawn tree */
window.fkheatmap = {
  counts: function (n) { var t = graph && graph.viewer.tree; return t && t.cols > 1 && t.tot0 ? { a: t.tot0[n], b: t.tot[n] } : null; }
};

$('summary').textContent = fmtNum(D.samples) + ' samples over ' + NSECS +
  ' s (seconds ' + D.first + '\u2013' + (D.first + NSECS - 1) + ' after second ' + D.base +
  '), ' + ROWS + ' rows of ' + fmtNum(+(1000 / ROWS).toFixed(3)) + ' ms' +
  (D.notime ? '; ' + fmtNum(D.notime) + ' samples without a timestamp ignored' : '');
window.addEventListener('hashchange', function () { readHash(); showSel(); renderFlame(); });
var resizeTimer = 0;
window.addEventListener('resize', function () {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(function () { layout(); }, 200);
});
readHash();
layout();
renderFlame();
document.body.setAttribute('data-ready', '1');
})();

// heatmap.js - the heat map page's script (heatmap.c embeds it after the data it reads):
// draws the heat map on canvases, handles range selection and draws range flame graphs.
(function () {
'use strict';
/* Data written by heatmap.c: per-cell counts and per-cell (stack, count) pairs
 * as compact base64 varint strings, a stack table (nodes in preorder) and names.
 * Every profile string reaches the DOM through textContent or setAttribute only. */
var D = JSON.parse(document.getElementById('fkdata').textContent);
var ROWS = D.rows, NSECS = D.nsecs, NCELLS = NSECS * ROWS, NN = D.nnodes;
var SVGNS = 'http://www.w3.org/2000/svg';
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
Dec.prototype.num = function () {
  var v = this.uv();
  return v % 2 ? D.floats[(v - 1) / 2] : v / 2;
};

function $(id) { return document.getElementById(id); }
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
function nodeName(i) { return i === 0 ? 'all' : D.names[nameOf[i]]; }

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
var EMPTY = [244, 244, 244];

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
  wrap.setAttribute('data-cw', CW);
  wrap.setAttribute('data-ch', CH);
  wrap.setAttribute('data-x0', YAX);
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
  var scale = $('scale').value;
  for (var t = 0; t < tiles.length; t++) {
    var T = tiles[t], ctx = T.cv.getContext('2d');
    var img = ctx.createImageData(T.cv.width, T.cv.height), px = img.data, W = T.cv.width;
    var gx = CW >= 5 ? 1 : 0, gy = CH >= 5 ? 1 : 0;
    for (var s = 0; s < T.n; s++) {
      for (var r = 0; r < ROWS; r++) {
        var c = (T.s0 + s) * ROWS + r, v = cells[c], col = EMPTY;
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
var zoom = 0, search = '';
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
function writeHash() {
  var h = [];
  if (A) h.push('a=' + cellName(A[0]) + '-' + cellName(A[1]));
  if (B) h.push('b=' + cellName(B[0]) + '-' + cellName(B[1]));
  if (zoom) h.push('z=' + zoom);
  if (search) h.push('s=' + encodeURIComponent(search));
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
  var z = parseInt(q.z || '0', 10);
  zoom = z > 0 && z < NN ? z : 0;
  try { search = q.s ? decodeURIComponent(q.s) : ''; } catch (e) { search = ''; }
  $('search').value = search;
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
  zoom = 0;
  pending = -1;
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
  if (drag < 0 && !scroller.contains(ev.target)) c = -1;
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
  A = B = null; pending = -1; zoom = 0;
  writeHash(); showSel(); renderFlame();
});
$('scale').value = D.scale;
$('scale').addEventListener('change', draw);

/* ---- flame graph of a range (or the difference of two) */
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
  for (var i = NN - 1; i >= 1; i--) self[parent[i]] += self[i];
  return self; /* now inclusive totals */
}
/* colours written by heatmap.c: the SVG palette's rrggbb per name, the root's last */
function frameColor(nd) {
  var k = 6 * (nd === 0 ? D.names.length : nameOf[nd]);
  return '#' + D.colors.slice(k, k + 6);
}
var cur = null; /* { tot, base (diff: A totals), diff } */
function renderFlame() {
  var fg = $('fg');
  fg.textContent = '';
  $('fgdetails').textContent = '\u00a0';
  if (!A) {
    cur = null;
    $('fgtitle').textContent = 'Select a range in the heat map.';
    $('unzoom').disabled = true;
    $('matched').textContent = '';
    return;
  }
  if (B) {
    cur = { tot: rangeSelf(B), base: rangeSelf(A), diff: true };
    $('fgtitle').textContent = 'Differential: B ' + rangeText(B) + ' vs A ' + rangeText(A) +
      ' (widths: B; red: larger share in B, blue: smaller)';
  } else {
    cur = { tot: rangeSelf(A), base: null, diff: false };
    $('fgtitle').textContent = 'Range A: ' + rangeText(A) + ', ' + fmtNum(cur.tot[0]) + ' ' + D.countname;
  }
  if (zoom && !(cur.tot[zoom] > 0)) zoom = 0;
  drawFlame();
}
function drawFlame() {
  var fg = $('fg'), tot = cur.tot, base = cur.base;
  fg.textContent = '';
  var W = Math.max(300, fg.clientWidth || 600), FH = D.fh, FS = D.fs, PAD = 10;
  var avail = W - 2 * PAD, zt = tot[zoom];
  $('unzoom').disabled = zoom === 0;
  if (!(zt > 0)) {
    $('fgtitle').textContent += ' \u2014 no samples in this range';
    return;
  }
  var vis = [], maxd = 0, minw = D.minw;
  /* ancestors of the zoomed frame are drawn full width */
  var anc = [];
  for (var a = zoom; a >= 0; a = parent[a]) anc.push(a);
  for (var k = anc.length - 1; k >= 1; k--) vis.push([anc[k], 0, avail]);
  var st = [[zoom, 0, avail]];
  while (st.length) {
    var it = st.pop(), n = it[0], x = it[1], w = it[2];
    vis.push(it);
    if (depth[n] > maxd) maxd = depth[n];
    var cx = x;
    for (var ch = firstChild[n]; ch >= 0; ch = nextSib[ch]) {
      var cw = w * tot[ch] / tot[n];
      if (cw >= minw && tot[ch] > 0) st.push([ch, cx, cw]);
      cx += cw;
    }
  }
  var maxAbs = 0, fa = 0, fb = 0;
  if (cur.diff) {
    fa = base[0]; fb = tot[0];
    for (var v = 0; v < vis.length; v++) {
      var dd = Math.abs(tot[vis[v][0]] / fb - (fa > 0 ? base[vis[v][0]] / fa : 0));
      if (dd > maxAbs) maxAbs = dd;
    }
  }
  var H = (maxd + 1) * FH + 2 * PAD;
  var svg = document.createElementNS(SVGNS, 'svg');
  svg.setAttribute('width', W);
  svg.setAttribute('height', H);
  svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
  svg.style.fontFamily = D.font;
  svg.style.fontSize = FS + 'px';
  var re = null;
  if (search) { try { re = new RegExp(search); } catch (e) { re = null; } }
  var frag = document.createDocumentFragment(), cwid = FS * 0.59;
  for (var q = 0; q < vis.length; q++) {
    var nd = vis[q][0], fx = vis[q][1] + PAD, fw = vis[q][2], dep = depth[nd];
    var y = D.inverted ? PAD + dep * FH : H - PAD - (dep + 1) * FH;
    var name = nodeName(nd), g = document.createElementNS(SVGNS, 'g');
    g.setAttribute('class', 'f');
    g.setAttribute('data-n', nd);
    var title = document.createElementNS(SVGNS, 'title'), fill;
    if (cur.diff) {
      var pa = fa > 0 ? base[nd] / fa : 0, pb = tot[nd] / fb, d = pb - pa;
      var t = maxAbs > 0 ? Math.abs(d) / maxAbs : 0, lo = Math.round(255 - 200 * t);
      fill = d > 0 ? 'rgb(255,' + lo + ',' + lo + ')' : d < 0 ? 'rgb(' + lo + ',' + lo + ',255)' : 'rgb(250,250,250)';
      title.textContent = name + ' (A: ' + fmtNum(base[nd]) + ', ' + pct(base[nd], fa) + '; B: ' +
        fmtNum(tot[nd]) + ', ' + pct(tot[nd], fb) + '; ' + (d >= 0 ? '+' : '') + (100 * d).toFixed(2) + ' pts)';
    } else {
      fill = frameColor(nd);
      title.textContent = name + ' (' + fmtNum(tot[nd]) + ' ' + D.countname + ', ' + pct(tot[nd], tot[0]) + ')';
    }
    if (re && nd && re.test(name)) fill = 'rgb(230,0,230)';
    g.appendChild(title);
    var rc = document.createElementNS(SVGNS, 'rect');
    rc.setAttribute('x', fx.toFixed(1));
    rc.setAttribute('y', y);
    rc.setAttribute('width', Math.max(0.1, fw - 0.5).toFixed(1));
    rc.setAttribute('height', FH - 1);
    rc.setAttribute('rx', 2);
    rc.setAttribute('fill', fill);
    if (anc.indexOf(nd) > 0) rc.setAttribute('opacity', '0.5');
    g.appendChild(rc);
    var fit = Math.floor((fw - 6) / cwid);
    if (fit >= 3) {
      var tx = document.createElementNS(SVGNS, 'text');
      tx.setAttribute('x', (fx + 3).toFixed(1));
      tx.setAttribute('y', y + FH - 1 - Math.max(2, (FH - FS) / 2 + 1));
      tx.textContent = name.length <= fit ? name : name.slice(0, fit - 2) + '..';
      g.appendChild(tx);
    }
    frag.appendChild(g);
  }
  svg.appendChild(frag);
  fg.appendChild(svg);
  /* deep stacks: the box scrolls; start where the root is */
  fg.scrollTop = D.inverted ? 0 : fg.scrollHeight;
  matched();
}
function matched() {
  var m = $('matched');
  m.className = '';
  if (!search || !cur) { m.textContent = ''; return; }
  var re;
  try { re = new RegExp(search); } catch (e) { m.textContent = 'bad regex'; m.className = 'bad'; return; }
  var tot = cur.tot, sum = 0, st = [0];
  while (st.length) {
    var n = st.pop();
    if (n && re.test(nodeName(n))) { sum += tot[n]; continue; }
    for (var c = firstChild[n]; c >= 0; c = nextSib[c]) if (tot[c] > 0) st.push(c);
  }
  m.textContent = 'Matched: ' + pct(sum, tot[0]) + ' (' + fmtNum(sum) + ' ' + D.countname + ')';
}
$('fg').addEventListener('click', function (ev) {
  var g = ev.target.closest ? ev.target.closest('g.f') : null;
  if (!g || !cur) return;
  zoom = parseInt(g.getAttribute('data-n'), 10) || 0;
  writeHash();
  drawFlame();
});
$('fg').addEventListener('mouseover', function (ev) {
  var g = ev.target.closest ? ev.target.closest('g.f') : null;
  if (g) $('fgdetails').textContent = g.firstChild.textContent;
});
$('unzoom').addEventListener('click', function () {
  zoom = 0;
  writeHash();
  if (cur) drawFlame();
});
var searchTimer = 0;
$('search').addEventListener('input', function () {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(function () {
    search = $('search').value;
    writeHash();
    if (cur) drawFlame(); else matched();
  }, 150);
});

$('summary').textContent = fmtNum(D.samples) + ' ' + D.countname + ' over ' + NSECS +
  ' s (seconds ' + D.first + '\u2013' + (D.first + NSECS - 1) + ' after second ' + D.base +
  '), ' + ROWS + ' rows of ' + fmtNum(+(1000 / ROWS).toFixed(3)) + ' ms' +
  (D.notime ? '; ' + fmtNum(D.notime) + ' samples without a timestamp ignored' : '');
window.addEventListener('hashchange', function () { readHash(); showSel(); renderFlame(); });
var resizeTimer = 0;
window.addEventListener('resize', function () {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(function () { layout(); if (cur) drawFlame(); }, 200);
});
readHash();
layout();
renderFlame();
document.body.setAttribute('data-ready', '1');
})();

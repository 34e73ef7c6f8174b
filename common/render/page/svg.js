// @ts-check
// svg.js - the script of every flame graph SVG (svg-write.c embeds it after its data):
// hover details, click to zoom, regex search with "Matched", keys, URL state. It reads
// fkC (settings), fkN (names) and fkF (frames); no network, no eval of profile text.
(function () {
"use strict";
var C = fkC, N = fkN, F = fkF, S = C.S, n = F.length / S;
var doc = document, NS = "http://www.w3.org/2000/svg";
function el(id) { return doc.getElementById(id); }
var framesG = el("frames"), labelsG = el("labels"), details = el("details").firstChild;
var unzoomBtn = el("unzoom"), searchBtn = el("search"), icBtn = el("ignorecase");
var matchedT = el("matched").firstChild;
var rects = framesG.getElementsByTagName("rect");
var X = new Float64Array(n), W = new Float64Array(n);
var NM = new Uint32Array(n), D = new Uint32Array(n), P = new Int32Array(n), E = new Int32Array(n);
// fill0: original colours, read when search first changes a frame
var fill0 = new Array(n), lit = new Uint8Array(n), index = new Map(), open = [], i, o;
// parents from depths (pre-order), absolute starts, last descendant E[i]
for (i = 0; i < n; i++) {
  o = i * S;
  NM[i] = F[o]; D[i] = F[o + 1]; W[i] = F[o + 2];
  while (open.length && D[open[open.length - 1]] >= D[i]) E[open.pop()] = i - 1;
  P[i] = open.length ? open[open.length - 1] : -1;
  X[i] = P[i] < 0 ? 0 : X[P[i]] + F[o + 3];
  open.push(i);
  index.set(rects[i], i);
}
while (open.length) E[open.pop()] = n - 1;
var span = C.w - 2 * C.xpad, zoomed = 0, term = null, ic = false, hits = null;

function name(i) { return i ? N[NM[i]] : "all"; }
// the details line shows the frame's title element (svg-write.c writes that text once)
function info(i) {
  var t = rects[i].firstElementChild;
  return t && t.textContent || name(i);
}
// same rule as the static labels: cut between characters (code points), wide
// East Asian characters take two columns, ".." marks the cut
function cols(c) {
  var p = c.codePointAt(0);
  return p >= 0x1100 && (p <= 0x115f || (p >= 0x2e80 && p <= 0xa4cf && p !== 0x303f) ||
    (p >= 0xac00 && p <= 0xd7a3) || (p >= 0xf900 && p <= 0xfaff) || (p >= 0xfe30 && p <= 0xfe4f) ||
    (p >= 0xff00 && p <= 0xff60) || (p >= 0xffe0 && p <= 0xffe6) || (p >= 0x1f300 && p <= 0x1f64f) ||
    (p >= 0x1f900 && p <= 0x1f9ff) || (p >= 0x20000 && p <= 0x3fffd)) ? 2 : 1;
}
function label(i, x, w) {
  var chars = Math.floor(w / (C.fs * C.fw));
  if (chars < 3) return;
  var txt = name(i), a = Array.from(txt), total = 0, used = 0, k;
  for (k = 0; k < a.length && total <= chars; k++) total += cols(a[k]);
  if (total > chars) {
    if (C.tl) {
      for (k = a.length; k > 0 && used + cols(a[k - 1]) <= chars - 2; k--) used += cols(a[k - 1]);
      txt = ".." + a.slice(k).join("");
    } else {
      for (k = 0; k < a.length && used + cols(a[k]) <= chars - 2; k++) used += cols(a[k]);
      txt = a.slice(0, k).join("") + "..";
    }
  }
  var t = doc.createElementNS(NS, "text");
  if (rects[i].classList.contains("dk")) t.setAttribute("class", "dk"); // white on a dark fill
  t.setAttribute("x", (x + 3).toFixed(2));
  t.setAttribute("y", (C.y0 + D[i] * C.dy + 3 + (C.fh - 1) / 2).toFixed(2));
  t.textContent = txt;
  labelsG.appendChild(t);
}
// zoom: frame z fills the width, its ancestors stay (full width, faded), the
// rest hides. Hiding is one class on the group (#frames.z shows only .v rects),
// so a zoom writes to the frames it shows, not to all of them.
var vis = [], orig = new Array(n);
function place(i, x, w, anc) {
  var r = rects[i];
  if (orig[i] === undefined) orig[i] = [r.getAttribute("x"), r.getAttribute("width")];
  r.setAttribute("x", x.toFixed(1));
  r.setAttribute("width", w.toFixed(1));
  if (anc) r.classList.add("anc");
  r.classList.add("v");
  vis.push(i);
  label(i, x, w);
}
function render() {
  var z = zoomed, i, k, r, sc;
  labelsG.textContent = "";
  for (k = 0; k < vis.length; k++) {
    i = vis[k]; r = rects[i];
    r.classList.remove("v", "anc");
    r.setAttribute("x", orig[i][0]);
    r.setAttribute("width", orig[i][1]);
  }
  vis = [];
  if (z === 0) {
    framesG.classList.remove("z");
    sc = span / W[0];
    for (i = 0; i < n; i++) label(i, C.xpad + X[i] * sc, W[i] * sc);
  } else {
    framesG.classList.add("z");
    sc = span / W[z];
    for (i = P[z]; i >= 0; i = P[i]) place(i, C.xpad, span, true);
    for (i = z; i <= E[z]; i++) place(i, C.xpad + (X[i] - X[z]) * sc, W[i] * sc, false);
  }
  unzoomBtn.classList.toggle("show", z !== 0);
}
function zoom(i) {
  zoomed = i;
  render();
  if (hits) matched();
  save();
}
// percent of the zoomed frame covered by matches ("of all" when not zoomed), and
// which it is; a match inside a matched frame is already counted by its ancestor
// (pre-order: skip its subtree)
function matched() {
  var z = zoomed, sum = 0, all = false, a, i;
  for (a = z; a >= 0; a = P[a]) if (hits[a]) all = true;
  if (!all) for (i = z + 1; i <= E[z];) { if (hits[i]) { sum += W[i]; i = E[i] + 1; } else i++; }
  var pct = all ? 100 : 100 * sum / W[z];
  matchedT.nodeValue = "Matched: " + (pct === 100 ? "100" : pct.toFixed(1)) + "% of " +
    (z ? "the zoom" : "all");
}
function paint(i, on) {
  var r = rects[i];
  if (fill0[i] === undefined) fill0[i] = r.getAttribute("fill");
  r.setAttribute("fill", on ? C.sc : fill0[i]);
  lit[i] = on;
}
function search(t) {
  var re, k, i;
  try { re = new RegExp(t, ic ? "i" : ""); }
  catch (e) { matchedT.nodeValue = "Invalid regex"; return; }
  term = t;
  var nh = new Uint8Array(N.length);
  for (k = 1; k < N.length; k++) nh[k] = re.test(N[k]) ? 1 : 0;
  hits = new Uint8Array(n);
  for (i = 1; i < n; i++) hits[i] = nh[NM[i]];
  for (i = 0; i < n; i++) if (hits[i] !== lit[i]) paint(i, hits[i]);
  searchBtn.classList.add("show");
  searchBtn.firstChild.nodeValue = "Reset Search";
  matched();
}
function reset_search() {
  for (var i = 0; i < n; i++) if (lit[i]) paint(i, 0);
  term = null; hits = null;
  searchBtn.classList.remove("show");
  searchBtn.firstChild.nodeValue = "Search";
  matchedT.nodeValue = " ";
}
function ask() {
  var t = window.prompt("Enter a search term (regexp allowed, eg: ^ext4_)" +
    (ic ? ", ignoring case" : "") + ". Press Ctrl-i to toggle case sensitivity.", term === null ? "" : term);
  if (t === null) return;
  if (t === "") reset_search(); else search(t);
  save();
}
function toggle_ic() {
  ic = !ic;
  icBtn.classList.toggle("show", ic);
  if (term !== null) search(term);
  save();
}
// state in the URL (?z=frame&s=regex&i=1), so a reload or a shared link keeps it
function save() {
  var q = new URLSearchParams();
  if (zoomed) q.set("z", String(zoomed));
  if (term !== null) q.set("s", term);
  if (ic) q.set("i", "1");
  var qs = q.toString(), loc = window.location;
  try {
    window.history.replaceState(null, "", loc.pathname + (qs ? "?" + qs : ""));
  } catch (e) {
    try { loc.replace("#" + qs); } catch (e2) { }
  }
}
function load() {
  var loc = window.location, q = new URLSearchParams(loc.search || loc.hash.slice(1));
  if (q.get("i") === "1") { ic = true; icBtn.classList.add("show"); }
  var z = parseInt(q.get("z"), 10);
  if (z > 0 && z < n) { zoomed = z; render(); }
  var s = q.get("s");
  if (s) search(s);
}

// The details line is at the bottom of the image, from where the window starts (a wide
// graph scrolled sideways); when that is out of the window (a tall graph), the same text
// shows on a bar at the bottom of the window (at its top when the pointer is near the
// bottom), drawn over the frames.
var svg = /** @type {SVGSVGElement} */ (/** @type {unknown} */ (doc.documentElement)), detailsT = el("details");
var homeY = +detailsT.getAttribute("y"), bar = null;
/**
 * @param {string} s  the details text
 * @param {MouseEvent} e  the pointer over the frame
 */
function showBar(s, e) {
  var m = svg.getScreenCTM && svg.getScreenCTM();
  if (!m || !m.d) return;
  var top = -m.f / m.d, bot = (window.innerHeight - m.f) / m.d, h = C.fs * 2;
  // a wide graph scrolled sideways: the details line starts where the window does
  detailsT.setAttribute("x", Math.max(C.xpad, C.xpad - m.e / m.a).toFixed(1));
  if (homeY - C.fs >= top && homeY + C.fs / 2 <= bot) { hideBar(); return; }
  if (!bar) {
    bar = doc.createElementNS(NS, "g");
    bar.setAttribute("id", "detailsbar");
    bar.setAttribute("pointer-events", "none");
    var r = doc.createElementNS(NS, "rect"), t = doc.createElementNS(NS, "text");
    r.setAttribute("fill", "#fff");
    r.setAttribute("fill-opacity", "0.92");
    r.setAttribute("stroke", "#999");
    r.setAttribute("height", String(h));
    t.appendChild(doc.createTextNode(" "));
    bar.appendChild(r);
    bar.appendChild(t);
  }
  svg.appendChild(bar); // last: over the frames
  var y = (e.clientY - m.f) / m.d > bot - 3 * h ? top : bot - h;
  var left = Math.max(0, -m.e / m.a), w = Math.min(C.w, window.innerWidth / m.a);
  var r2 = bar.firstChild, t2 = bar.lastChild;
  r2.setAttribute("x", left.toFixed(1));
  r2.setAttribute("y", y.toFixed(1));
  r2.setAttribute("width", w.toFixed(1));
  t2.setAttribute("x", (left + C.xpad).toFixed(1));
  t2.setAttribute("y", (y + h / 2 + C.fs / 3).toFixed(1));
  t2.firstChild.nodeValue = s;
  bar.style.display = "";
}
function hideBar() { if (bar) bar.style.display = "none"; }
framesG.addEventListener("mouseover", function (e) {
  var i = index.get(e.target);
  if (i === undefined) return;
  details.nodeValue = C.nt + " " + info(i);
  showBar(details.nodeValue, e);
});
framesG.addEventListener("mouseout", function () { details.nodeValue = " "; hideBar(); });
framesG.addEventListener("click", function (e) {
  var i = index.get(e.target);
  if (i !== undefined) zoom(i);
});
unzoomBtn.addEventListener("click", function () { zoom(0); });
searchBtn.addEventListener("click", function () { if (term !== null) { reset_search(); save(); } else ask(); });
icBtn.addEventListener("click", toggle_ic);
window.addEventListener("keydown", function (e) {
  var k = e.key, ctrl = e.ctrlKey || e.metaKey;
  if (k === "F3" || (ctrl && (k === "f" || k === "F"))) { e.preventDefault(); ask(); }
  else if (ctrl && (k === "i" || k === "I")) { e.preventDefault(); toggle_ic(); }
  else if (k === "Escape") {
    if (term !== null) { reset_search(); save(); }
    else { matchedT.nodeValue = " "; if (zoomed) zoom(0); }
  }
});
load();
})();

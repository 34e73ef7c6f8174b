// @ts-check
// viewer.js - the viewer: its state, its bar of buttons and search, set() (every change of
// state goes through it) and render() (the view of the state).
var doc = document;
/* ---------------------------------------------------------------- formatting */
function fmtCount(v, fac) {
  v *= fac || 1;
  var s = Math.abs(v - Math.round(v)) < 1e-9 * Math.max(1, Math.abs(v)) ? String(Math.round(v)) : String(Math.round(v * 1000) / 1000);
  var m = /^(-?)(\d+)(.*)$/.exec(s);
  return m ? m[1] + m[2].replace(/\B(?=(\d{3})+(?!\d))/g, ',') + m[3] : s;
}
function pct(a, b) { return b > 0 ? (100 * a / b).toFixed(2) + '%' : '0%'; }
/* A change: its sign always written (a minus sign, not a hyphen), and in percent of before
 * ("new" when there was none before). */
function fmtChange(v, fac) { return (v > 0 ? '+' : v < 0 ? '\u2212' : '\u00b1') + fmtCount(Math.abs(v), fac); }
function changeRatio(b, a) { return b > 0 ? (a - b) / b : a > 0 ? Infinity : 0; }
/* The search's line on a differential profile: each side's share of its own total, and the
 * change of the counts (frames on either side matched). */
function matchedDiff(m, meta) {
  var f = meta.factor;
  return 'Matched: before ' + pct(m.sum0, m.total0) + ', after ' + pct(m.sum, m.total) + ' of all (before ' +
    fmtCount(m.sum0, f) + ', after ' + fmtCount(m.sum, f) + ' ' + (meta.countname || 'samples') + ', change ' +
    fmtChange(m.sum - m.sum0, f) + ' (' + pctChange(m.sum0, m.sum) + '), ' + m.count + ' frames)';
}
function pctChange(b, a) {
  var r = changeRatio(b, a);
  return r === Infinity ? 'new' : (r > 0 ? '+' : r < 0 ? '\u2212' : '\u00b1') + Math.abs(100 * r).toFixed(1) + '%';
}
function el(tag, cls, text) {
  var e = doc.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/* ---------------------------------------------------------------- the viewer
 * opts: { names, colors, tree, meta, hash (keep state in location.hash) } */
function Viewer(root, opts) {
  var V = /** @type {FkV} */ (/** @type {unknown} */ (this));
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
  V.shape0 = SHAPES.indexOf(opts.shape) >= 0 ? opts.shape : 'after';
  V.state = { view: 'flame', icicle: !!V.meta.inverted, left: false, zoom: [], search: '', ic: false,
    sandwich: '', transforms: [], dark: false, sort: 'self', split: 'thread', shape: V.shape0 };
  V.nameIndex = null;
  V.build();
  if (V.useHash) V.readHash();
  // a link's transforms at once: its zoom is a frame of the transformed tree
  V.applyTransforms(true);
  V.resolveZoom();
  V.render();
  if (V.useHash) window.addEventListener('hashchange', function () { if (location.hash !== V.lastHash) { V.readHash(); V.applyTransforms(true); V.resolveZoom(); V.render(); } });
  window.addEventListener('resize', function () { clearTimeout(V.rt); V.rt = setTimeout(function () { V.W = 0; V.availH = 0; V.draw(); }, 100); });
}

/* A new tree to show (the heat map's next range): transforms, search, zoom kept. */
/** @this {FkV} */
Viewer.prototype.setTree = function (t) {
  this.base = t;
  this.applyTransforms();
  this.render();
};

/** @this {FkV} */
Viewer.prototype.build = function () {
  var V = /** @type {FkV} */ (this), m = V.meta;
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
  // a differential profile: whose widths (after, before, or the larger of both), and the key
  V.bShape = btn('Widths', 'differential widths: after, before, or both: the larger of the two, so frames that went away are drawn too (b)', function () { V.nextShape(); });
  V.shapeKey = el('span', 'fkshapekey');
  bar.appendChild(V.shapeKey);
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
/** @this {FkV} */
Viewer.prototype.set = function (ch) {
  var V = /** @type {FkV} */ (this), retransform = false;
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
/* ---------------------------------------------------------------- drawing */
/** @this {FkV} */
Viewer.prototype.render = function () {
  var V = /** @type {FkV} */ (this), s = V.state;
  doc.documentElement.classList.toggle('fkdark', s.dark);
  V.root.classList.toggle('fkdark', s.dark);
  for (var k in V.bView) V.bView[k].classList.toggle('on', s.view === k);
  V.bIcicle.classList.toggle('on', s.icicle);
  V.bLeft.classList.toggle('on', s.left);
  V.bTheme.classList.toggle('on', s.dark);
  V.bSplit.hidden = !V.threadRoots();
  V.bSplit.textContent = { thread: 'Per thread', process: 'Per process', merged: 'Threads merged' }[s.split];
  V.bShape.hidden = V.shapeKey.hidden = !V.isDiff();
  V.bShape.textContent = 'Widths: ' + s.shape;
  if (!V.shapeKey.hidden && !V.shapeKey.firstChild) {
    // the colours say a frame's own change, after - before (reversed by --negate)
    [['fkred', V.meta.negate ? 'shrank' : 'grew'], ['fkblue', V.meta.negate ? 'grew' : 'shrank']].forEach(function (k) {
      V.shapeKey.appendChild(el('span', k[0], '\u25a0'));
      V.shapeKey.appendChild(doc.createTextNode(' ' + k[1] + ' '));
    });
  }
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
  V.matched.textContent = re === false ? 'bad regex' : !V.match ? '' : V.isDiff() ? matchedDiff(V.match, V.meta) :
    'Matched: ' + pct(V.match.sum, V.match.total) + ' of all (' + fmtCount(V.match.sum, V.meta.factor) + ' ' +
    (V.meta.countname || 'samples') + ', ' + V.match.count + ' frames)';
  V.renderTransforms();
  V.main.textContent = '';
  V.main.classList.remove('fkwide');
  V.availH = 0;
  V.tip.hidden = true; // any change of view: the tooltip described what was under the mouse
  V.details.textContent = '\u00a0';
  V.canvases = [];
  if (s.view === 'table') V.renderTable();
  else if (s.view === 'sandwich') V.renderSandwich();
  else V.renderFlame();
};

/** @this {FkV} */
Viewer.prototype.renderTransforms = function () {
  var V = /** @type {FkV} */ (this), list = V.state.transforms, job = V.job;
  // while transforms are worked on: theirs are the chips from the job's first one on (the
  // job's list may begin with the thread split's transform, which has no chip)
  var from = job ? job.k0 - (job.list.length - list.length) : list.length;
  V.tbar.textContent = '';
  if (!list.length) return;
  V.tbar.appendChild(el('span', 'fklabel', 'Transforms:'));
  list.forEach(function (x, k) {
    var chip = el('span', k >= from ? 'fkchip fkwork' : 'fkchip', (TRANSFORMS[x[0]] || x[0]) + ' ' + (x[1] === '' ? '(all)' : x[1]) + ' ');
    if (k >= from) chip.title = 'being worked on: the graph shows the tree before it until it is done; \u00d7 cancels it';
    var b = el('button', null, '\u00d7');
    b.type = 'button';
    b.title = 'undo this transform';
    b.addEventListener('click', function () { V.undo(k); });
    chip.appendChild(b);
    V.tbar.appendChild(chip);
  });
  if (job) V.tbar.appendChild(el('span', 'fkworking', 'working\u2026'));
};

/* The flame graph pane: a wrapper the size of the visible area, the canvas behind it (the
 * size of the area times the device pixel ratio: never depth x width), and over both a
 * scroller whose content is as tall as the whole graph, so the wheel, the scrollbar and
 * the keys move through any depth while only the rows in view are drawn. */

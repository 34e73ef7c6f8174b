// @ts-check
// keys-url.js - the key table (dispatch and the ? overlay), notes for keys that do nothing,
// scrolling keys, and the state in the URL (short zoom links: index and path check).
function needSel(V, k) { return 'no frame selected: click a frame first, then ' + k; }
/** @type {Array<[string, string, function(FkV): (string|void)]>} */
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
  ['b', 'differential widths: after, before, or both (the larger of the two)', function (V) { return V.nextShape(); }],
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

/** @this {FkV} */
Viewer.prototype.key = function (e) {
  var V = /** @type {FkV} */ (this), t = e.target;
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
/** @this {FkV} */
Viewer.prototype.note = function (s) {
  var V = /** @type {FkV} */ (this);
  clearTimeout(V.noteTimer);
  V.noteEl.textContent = s || '';
  V.noteEl.hidden = !s;
  if (s) V.noteTimer = setTimeout(function () { V.noteEl.hidden = true; }, 5000);
};

/* The ? overlay: the key table as it is dispatched. Any key or click closes it. */
/** @this {FkV} */
Viewer.prototype.help = function () {
  var V = /** @type {FkV} */ (this), box = V.helpBox;
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
/** @this {FkV} */
Viewer.prototype.scrollBy = function (k, unit) {
  var V = /** @type {FkV} */ (this), sc = V.state.view === 'table' ? V.tableScroll : V.graphs && V.graphs[0] && V.graphs[0].scroller;
  if (!sc || !sc.isConnected) return;
  var max = sc.scrollHeight - sc.clientHeight;
  if (max <= 0) return 'nothing to scroll: all of it is in view';
  var step = unit === 'row' ? (V.meta.frameheight || 16) : sc.clientHeight * 0.9;
  sc.scrollTop = Math.max(0, Math.min(max, sc.scrollTop + k * step));
};

/** @this {FkV} */
Viewer.prototype.hashSoon = function () {
  var V = /** @type {FkV} */ (this);
  if (!V.useHash || V.hashTimer) return;
  V.hashTimer = setTimeout(function () { V.hashTimer = 0; V.writeHash(); }, 100);
};
/** @this {FkV} */
Viewer.prototype.flushHash = function () {
  if (this.hashTimer) { clearTimeout(this.hashTimer); this.hashTimer = 0; this.writeHash(); }
};

/* ---- state in the URL: #v=flame&z=a;b&s=re&ic=1&l=1&i=1&w=name&t=[...]&th=dark */
/** @this {FkV} */
Viewer.prototype.writeHash = function () {
  var V = /** @type {FkV} */ (this), s = V.state, p = new URLSearchParams(location.hash.slice(1));
  if (!V.useHash) return;
  // keys of the page around the viewer (the heat map's ranges) are kept
  ['v', 'z', 's', 'c', 'l', 'i', 'w', 't', 'th', 'p', 'sh'].forEach(function (k) { p.delete(k); });
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
  if (s.shape !== V.shape0) p.set('sh', s.shape);
  var h = p.toString() ? '#' + p.toString() : '#';
  V.lastHash = h;
  if (location.hash !== h && !(h === '#' && !location.hash)) history.replaceState(null, '', h === '#' ? location.pathname + location.search : h);
};
/** @this {FkV} */
Viewer.prototype.readHash = function () {
  var V = /** @type {FkV} */ (this), s = V.state, p = new URLSearchParams(location.hash.slice(1));
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
  s.shape = SHAPES.indexOf(p.get('sh') || '') >= 0 ? p.get('sh') : V.shape0;
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
/** @this {FkV} */
Viewer.prototype.resolveZoom = function () {
  var V = /** @type {FkV} */ (this), z = V.pendingZoom;
  if (!z) return;
  V.pendingZoom = null;
  var path = z.n > 0 && z.n < V.tree.n ? V.pathOf(z.n) : null;
  if (path && pathCheck(path) === z.check) V.state.zoom = path;
  else { V.state.zoom = []; V.note('the link\'s zoom is not a frame of this profile (other data?): showing the root'); V.zoomMissed = true; }
};

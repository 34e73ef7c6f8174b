// @ts-check
// api.js - window.flamekit: the scripting object, the page's boot and mount for other pages.
/* ---------------------------------------------------------------- window.flamekit */
function api(V) {
  return {
    viewer: V,
    get view() {
      var s = V.state, z = V.zoomNode(), t = V.tree;
      return { view: s.view, icicle: s.icicle, leftHeavy: s.left, dark: s.dark, split: s.split, zoom: s.zoom.slice(),
        zoomTotal: t.tot[z], total: t.tot[0], search: s.search, ignoreCase: s.ic, sandwich: s.sandwich,
        nodes: t.n, transforms: s.transforms.map(function (x) { return x.slice(); }), working: !!V.job };
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
    // kept when the tree on screen is the transforms' (large trees are transformed in slices)
    idle: function () { return V.idle(); },
    setView: function (v) { V.set({ view: v }); },
    set: function (o) { V.set(o); },
    folded: function () { return V.folded(); },
    drawn: function () { var out = []; (V.graphs || []).forEach(function (g) { out = out.concat(V.drawnFrames(g)); }); return out; },
    setTree: function (t) { V.setTree(t); },
    drawMs: function () { V.draw(); return V.lastDrawMs; }
  };
}

/* ---------------------------------------------------------------- entry points */
var FK = /** @type {any} */ (window.flamekit || {});
window.flamekit = FK;
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
  FK.ready = inflate(bytes, meta.raw, meta.parts).then(function (u8) {
    var t2 = performance.now(), d = decode(meta, u8), t3 = performance.now();
    FK.timing = { boot: t0, base64: t1 - t0, inflate: t2 - t1, decode: t3 - t2 };
    var V = new Viewer(doc.getElementById('fkapp'), { names: d.names, colors: d.colors, rgb: d.rgb, offColors: d.offColors, offRgb: d.offRgb, tree: d.tree, meta: meta, hash: true });
    publish(api(V));
    FK.loadMs = performance.now() - t0;
    FK.timing.view = performance.now() - t3;
    doc.body.setAttribute('data-ready', '1');
    // the names' order, which every transform needs (tens of ms on 30k names), made while
    // the page waits for the person, not on their first transform
    (window.requestIdleCallback || setTimeout)(function () { /** @type {any} */ (V).nameRank(); });
    return FK;
  });
  FK.ready.catch(function (e) { doc.getElementById('fkapp').textContent = 'cannot read the page data: ' + e; });
};
/* For other pages (the heat map): a viewer in element root over a tree built with
 * flamekit.Builder or given as arrays; returns the same scripting object. */
FK.mount = function (root, o) {
  return publish(api(new Viewer(root, o)));
};

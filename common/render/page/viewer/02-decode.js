// @ts-check
// decode.js - the page data of `flamekit html` (docs/html.md): base64, inflated, read in one
// forward pass into a tree's typed arrays.
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

/* Names: each the first `shared` bytes of the one before, then `len` bytes of its own
 * (shared, len, bytes); their UTF-8 bytes laid out one after another, all-ASCII decoded in
 * one call and cut. */
function readNames(u8, at, n) {
  var names = new Array(n), r = varintReader(u8, at), i, j, k, o, p, end, ascii = true;
  var starts = new Int32Array(n + 1), shared = new Int32Array(n), from = new Int32Array(n);
  for (i = 0; i < n; i++) {
    shared[i] = r.uv();
    k = r.uv();
    from[i] = r.p;
    r.p += k;
    starts[i + 1] = starts[i] + shared[i] + k;
  }
  var b = new Uint8Array(starts[n]);
  for (i = 0; i < n; i++) {
    o = starts[i];
    p = i ? starts[i - 1] : 0;
    end = o + shared[i];
    for (j = o; j < end; j++) b[j] = b[p++];
    end = starts[i + 1];
    for (k = from[i]; j < end; j++) b[j] = u8[k++];
  }
  for (j = 0; j < b.length && ascii; j++) if (b[j] >= 128) ascii = false;
  if (ascii) {
    // one decoder call for all (one char a byte), then substrings
    var all = new TextDecoder('latin1').decode(b);
    for (i = 0; i < n; i++) names[i] = all.substring(starts[i], starts[i + 1]);
    return names;
  }
  var td = new TextDecoder('utf-8');
  for (i = 0; i < n; i++) names[i] = td.decode(b.subarray(starts[i], starts[i + 1]));
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
SelfReader.prototype.count = function () { return fkCount(this.uv(), this.fl); }; // page/counts.js
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

/* Counts in 32-bit arrays where they hold the same numbers: one column of integer counts
 * (no floats table), totals below 2^32 (a node's total is at most the root's) as Uint32,
 * own counts within +-2^31 as Int32: 8 bytes a node less for most profiles; and where no own
 * count is below zero, none kept (the totals say them: selfAt; 4 bytes a node less). The
 * tree read from the page is never written after this; trees made from it have arrays of
 * their own. */
function narrowCounts(t, fl) {
  if (t.cols > 1 || (fl && fl.length) || !(t.tot[0] < 4294967296)) return;
  var s = t.self0, n = t.n, i, v, ok = true, neg = false, a;
  for (i = 0; i < n; i++) { v = s[i]; if (v < 0) neg = true; if (v >= 2147483648 || v < -2147483648) { ok = false; break; } }
  a = new Uint32Array(n);
  a.set(t.tot);
  t.tot = a;
  if (ok && !neg) t.self0 = null;
  else if (ok) { a = new Int32Array(n); a.set(s); t.self0 = a; }
}

/* The tree from the node streams (docs/html.md) in one forward pass: depth from the runs,
 * name from its code, own counts from the leaf and self streams; a node's total goes to its
 * parent when it closes, which also sets its subtree's end. */
function decode(meta, u8) {
  var S = meta.streams, off = 0, at = {}, K = ['names', 'pops', 'name', 'raw', 'colors', 'offcolors', 'leaf0', 'leaf1', 'self0', 'self1'];
  K.forEach(function (k) { at[k] = off; off += S[k] || 0; });
  var NN = meta.names, names = readNames(u8, at.names, NN);
  var hex = '0123456789abcdef', i;
  // three planes: every name's red, then green, then blue
  function palette(at) {
    var colors = new Array(NN), rgb = new Uint32Array(NN);
    for (i = 0; i < NN; i++) {
      var r = u8[at + i], g = u8[at + NN + i], b = u8[at + 2 * NN + i];
      colors[i] = '#' + hex[r >> 4] + hex[r & 15] + hex[g >> 4] + hex[g & 15] + hex[b >> 4] + hex[b & 15];
      rgb[i] = 0xff000000 | b << 16 | g << 8 | r; // ABGR: canvas pixels little-endian
    }
    return { colors: colors, rgb: rgb };
  }
  var pal = palette(at.colors), colors = pal.colors, rgb = pal.rgb, offp = S.offcolors ? palette(at.offcolors) : null;
  var n = meta.nodes, cols = meta.cols, md = meta.depth || 0;
  // names in 16 bits when there are few enough (most profiles)
  var t = { n: n, cols: cols, name: NN <= 65536 ? new Uint16Array(n) : new Int32Array(n), depth: md < 256 ? new Uint8Array(n) : md < 65535 ? new Uint16Array(n) : new Int32Array(n),
    end: new Int32Array(n), self0: new Float64Array(n), self1: cols > 1 ? new Float64Array(n) : null,
    tot: new Float64Array(n), tot0: cols > 1 ? new Float64Array(n) : null };
  var fl = meta.floats, alpha = meta.alpha || 0, idw = meta.idw || 1;
  var nraw = idw ? (S.raw || 0) / idw : 0;
  var sv = new SelfReader(u8, at.self0, at.self0 + (S.self0 || 0), fl);
  var sv1 = new SelfReader(u8, at.self1, at.self1 + (S.self1 || 0), fl);
  var lv = new SelfReader(u8, at.leaf0, 0, fl), lv1 = new SelfReader(u8, at.leaf1, 0, fl);
  readTree(u8, at.pops, at.name, at.raw, nraw, idw, alpha, NN, n, md, t, sv, sv1, lv, lv1);
  narrowCounts(t, fl);
  t.maxDepth = md;
  t.maxdelta = maxDelta(t);
  t.kids = new Map();
  return { tree: t, names: names, colors: colors, rgb: rgb, offColors: offp && offp.colors, offRgb: offp && offp.rgb };
}

function base64Bytes(s) {
  var U8 = /** @type {any} */ (Uint8Array); // fromBase64: newer browsers, not in tsc's lib yet
  if (U8.fromBase64) return U8.fromBase64(s);
  var bin = atob(s), u8 = new Uint8Array(bin.length);
  for (var i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
  return u8;
}

/* Inflates the parts (each a raw deflate stream: [its bytes, their bytes inflated]) into one
 * buffer of the size the meta data gives, each at its place (no chunk list to join), all
 * under way at once once their sizes add up; a part that inflates to other than its size is
 * damaged data. */
function inflate(u8, size, parts) {
  var zsum = 0, sum = 0;
  parts.forEach(function (p) { zsum += p[0]; sum += p[1]; });
  if (zsum !== u8.length || sum !== size) return Promise.reject(new Error('page data of other than its size'));
  var out = new Uint8Array(size), at = 0, o = 0;
  return Promise.all(parts.map(function (p, i) {
    var from = o, end = o + p[1];
    var rd = new Blob([u8.subarray(at, at + p[0])]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
    at += p[0];
    o = end;
    function pump() {
      return rd.read().then(function (r) {
        if (r.done) {
          if (from !== end) throw new Error('page data part ' + (i + 1) + ' shorter than its size');
          return;
        }
        if (from + r.value.length > end) throw new Error('page data part ' + (i + 1) + ' larger than its size');
        out.set(r.value, from);
        from += r.value.length;
        return pump();
      });
    }
    return pump();
  })).then(function () { return out; });
}

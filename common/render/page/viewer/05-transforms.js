// @ts-check
// transforms.js - focus, merge, drop, collapse recursion, collapse a module, thread split:
// each one pass over the tree's arrays; every prefix of the list keeps its tree.
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
/* The hash of shared frames' children: (parent, name) -> frame, open addressing, each slot
 * three numbers side by side (one cache line for a probe). Kept between transforms (work),
 * emptied for each. */
function PairHash() { this.bits = 0; this.mask = 0; this.used = 0; this.a = new Int32Array(0); this.alloc(16); }
/* Empty, 2^bits slots (set here as it grows too: fields set once and again later made
 * the code that read them deoptimize when a large transform first grew it). */
PairHash.prototype.alloc = function (bits) {
  this.bits = bits; this.mask = (1 << bits) - 1; this.used = 0;
  this.a = new Int32Array(3 * (this.mask + 1)).fill(-1);
};
PairHash.prototype.clear = function () {
  if (this.used) { this.a.fill(-1); this.used = 0; }
  return this;
};
PairHash.prototype.slot = function (p, nm) {
  var h = this.a, mask = this.mask, k = (Math.imul(p, 0x9e3779b1) ^ Math.imul(nm + 1, 0x85ebca77)) >>> (32 - this.bits);
  while (h[3 * k] >= 0 && (h[3 * k] !== p || h[3 * k + 1] !== nm)) k = (k + 1) & mask;
  return 3 * k;
};
PairHash.prototype.put = function (p, nm, v) {
  var h = this.a, j, k, u;
  if (2 * (this.used + 1) > this.mask) {
    u = this.used;
    this.alloc(this.bits + 1);
    for (j = 0; j < h.length; j += 3) if (h[j] >= 0) { k = this.slot(h[j], h[j + 1]); this.a[k] = h[j]; this.a[k + 1] = h[j + 1]; this.a[k + 2] = h[j + 2]; }
    h = this.a; this.used = u;
  }
  k = this.slot(p, nm);
  h[k] = p; h[k + 1] = nm; h[k + 2] = v; this.used++;
};
/* The value of (p, nm), or v after putting it there (one probe for both). */
PairHash.prototype.find = function (p, nm, v) {
  var k = this.slot(p, nm), h = this.a;
  if (h[k] >= 0) return h[k + 2];
  if (2 * (this.used + 1) > this.mask) { this.put(p, nm, v); return v; }
  h[k] = p; h[k + 1] = nm; h[k + 2] = v; this.used++;
  return v;
};
/* Frame p becomes shared. While it has few children (SHORT) they are found by a walk of its
 * list (shared 1: they were made lately, close in memory, where a probe of a hash of
 * millions is a cache miss each); with more, its children go into the hash (shared 2). */
var SHORT = 8;
function promote(o, p) {
  if (o.nk[p] <= SHORT) { o.shared[p] = 1; return; }
  o.shared[p] = 2;
  for (var c = o.first[p]; c >= 0; c = o.next[c]) o.hash.put(p, o.name[c], c);
}

/* Whole subtrees kept as they are (blocks). Most nodes of a large tree lie in subtrees the
 * transform leaves alone: a node whose subtree holds no node the transform acts on (a
 * "hit": the merged, dropped or collapsed function, a module's frame, a name already on the
 * path) becomes one frame, a block, that stands for its subtree: the passes below treat it
 * as a leaf of the subtree's size and total, and the write copies the subtree's arrays
 * (TypedArray set, depths and ends moved). Where a block's frame is reached again (a merge
 * under a shared frame), it is opened: its children become blocks of their own. act.hits
 * says what the transform acts on, act.whole that every node kept keeps its subtree whole
 * (focus, focus-function: all below a kept node is kept as it is). Blocks need every node
 * of the input to have a count below it (else such nodes are dropped, one by one).
 * Where the hits are merged into their parents (merge, collapse recursion of all) or renamed
 * (a module's first frame; the next ones are merged into it) in a tree without own counts
 * (selfAt), a hit that is its parent's only child merges nothing and needs no new order:
 * the blocks (filtered) may hold such hits, left out (the nodes below one less deep) or
 * renamed as the block is copied; only the other hits ("bad") make their ancestors walked. */
function liveTree(t) {
  if (t.live === undefined) {
    var tot = t.tot, t0 = t.tot0, i, n = t.n;
    for (i = 0; i < n && (tot[i] > 0 || (t0 && t0[i] > 0)); i++);
    t.live = i === n;
  }
  return t.live;
}
/* The working arrays of transformTree, kept between transforms (the scan's lists of hits
 * too, grown as needed): fresh arrays of this size cost the page faults of their first
 * touch. A frame's entries are set as it is made (with blocks, frames are far fewer than
 * nodes: no clearing of the whole arrays). */
var scratch = null;
function work(n) {
  if (!scratch || scratch.cap < n) {
    var c = Math.max(n, scratch ? scratch.cap : 0);
    scratch = { cap: c, i32: [], f64: [], u8: new Uint8Array(c), hits: new Int32Array(1024), bad: new Int32Array(1024), sk: new Int32Array(1024), hash: new PairHash() };
    for (var k = 0; k < 8; k++) scratch.i32.push(new Int32Array(c));
    for (k = 0; k < 4; k++) scratch.f64.push(new Float64Array(c));
  }
  return scratch;
}
/* A transform of tree t as a job of passes over arrays (hits, walk, sizes, places, write),
 * each able to stop and go on: job.run() goes on to the end (and returns the tree made) or
 * until clock(job) says its slice of time is over (and returns null; it is asked every STEP
 * nodes, after STEP nodes of work at least). applyTransforms runs a large tree's transform
 * in slices, between which the page draws and answers. clock null: to the end at once. */
var STEP = 32768;
function transformTree(t, names, rank, act) { return new TransformJob(t, names, rank, act, null).run(); }
/** @constructor */
function TransformJob(t, names, rank, act, clock) {
  var n = t.n, W = work(n), J = this;
  J.t = t; J.names = names; J.rank = rank; J.act = act; J.clock = clock; J.pass = -1; J.r = null;
  // nk: each frame's count of children (in the places' nxt, written there before it is read)
  J.O = { name: W.i32[0].subarray(0, n), first: W.i32[1].subarray(0, n), next: W.i32[2].subarray(0, n),
    shared: W.u8.subarray(0, n), hash: W.hash.clear(), nk: W.i32[5].subarray(0, n) };
  J.opar = W.i32[3].subarray(0, n);
  J.blk = W.i32[7].subarray(0, n); // a block's input node + 1 (0: not a block)
  J.os0 = W.f64[0].subarray(0, n);
  J.os1 = t.cols > 1 ? W.f64[1].subarray(0, n) : null;
  // the sizes' arrays too
  J.size = W.i32[4].subarray(0, n); J.tot = W.f64[2].subarray(0, n); J.tot0 = J.os1 ? W.f64[3].subarray(0, n) : null;
  J.outAt = new Int32Array(t.maxDepth + 2);
  J.m = 1; J.i = 1;
  // the hits, in preorder (then n): from the scan
  J.blocks = !!act.hits && liveTree(t);
  J.byHits = act.onHit !== undefined;
  J.W = W; J.hits = W.hits; J.nh = 0; J.hc = 0; J.si = 1;
  // filtered blocks: the bad hits (J.bad, then n) say where blocks may be; bsz: each block's
  // size in the tree made
  // (ren: the name of a hit kept, sk: the hits left out, in preorder, then n)
  J.ren = act.hits && act.hits.rename !== undefined ? act.hits.rename : -1;
  J.filter = J.blocks && (act.onHit === SKIP || J.ren >= 0) && !t.self0 && t.cols === 1;
  J.bad = J.hits; J.bc = 0; J.bsz = J.filter ? W.i32[6].subarray(0, n) : null; J.sk = J.hits; J.nsk = 0; J.sc = 0;
  J.hstk = J.filter ? new Int32Array(t.maxDepth + 2) : null;
  J.pst = J.filter ? new Int32Array(t.maxDepth + 2) : null;
  J.rat = null; // (collapse recursion of all: where the scan's last node of each name ends)
  // the root frame; its own count: stacks that end there hold no frame to focus on
  var O = J.O;
  O.name[0] = t.name[0]; J.opar[0] = -1; O.first[0] = -1; O.shared[0] = 0; O.nk[0] = 0; J.blk[0] = 0;
  J.size[0] = 0; J.tot[0] = 0; if (J.tot0) J.tot0[0] = 0;
  J.os0[0] = act.dropRoot ? 0 : selfAt(t, 0); if (J.os1) J.os1[0] = act.dropRoot ? 0 : t.self1[0];
}
TransformJob.prototype.run = function () {
  var J = this;
  if (J.pass === -1) { if (!scanPass(J)) return null; J.pass = 0; }
  if (J.pass === 0) { if (!walkPass(J)) return null; J.pass = 1; sizesStart(J); }
  if (J.pass === 1) { if (!sizesPass(J)) return null; J.pass = 2; placesStart(J); }
  if (J.pass === 2) { if (!placesPass(J)) return null; J.pass = 3; writeStart(J); }
  if (J.pass === 3) { if (!writePass(J)) return null; J.pass = 4; writeEnd(J); }
  return J.r;
};
function roomFor(a, k) {
  if (a.length >= k) return a;
  var b = new Int32Array(Math.max(k, 2 * a.length));
  b.set(a);
  return b;
}
/* The hits in preorder, 8 x STEP nodes a chunk: nodes of a name (act.hits.id), of the names
 * marked in act.hits.match, named as an ancestor ('rec'), or the nodes listed (at). */
function scanPass(J) {
  var t = J.t, n = t.n, tn = t.name, h = J.act.hits, clock = J.clock, hits = J.hits, nh = J.nh, i = J.si;
  var b, k, tdep, tend, x;
  if (!J.blocks && !J.byHits) return true;
  if (h.kind === 'rec' && !J.rat) J.rat = new Int32Array(J.names.length);
  if (h.kind === 'name' || h.kind === 'match' || h.kind === 'rec') {
    for (k = 0; i < n; k++) {
      if (k && clock && clock(J)) { J.si = i; J.hits = hits; J.nh = nh; return false; }
      b = Math.min(n, i + 8 * STEP);
      hits = J.W.hits = roomFor(hits, nh + b - i + 1);
      nh = h.kind === 'name' ? hitsNamed(tn, h.id, hits, nh, i, b) : h.kind === 'match' ? hitsMatching(tn, h.match, hits, nh, i, b) :
        hitsRec(tn, t.end, J.rat, hits, nh, i, b);
      i = b;
    }
  } else if (h.kind === 'at') {
    hits = roomFor(hits, h.at.length + 1);
    for (k = 0; k < h.at.length; k++) hits[nh++] = h.at[k];
  }
  hits = J.W.hits = roomFor(hits, nh + 1);
  hits[nh++] = n;
  J.hits = hits; J.nh = nh; J.si = n;
  if (J.filter) {
    // the hits that are not their parent's only child (the node before is the parent, and
    // both subtrees end together); of the others, those left out (all, or those whose parent
    // is a hit: a module's frames after its first)
    var bad = J.W.bad = roomFor(J.W.bad, nh), nb = 0, sk = J.ren >= 0 ? (J.W.sk = roomFor(J.W.sk, nh)) : hits, ns = 0;
    for (tdep = t.depth, tend = t.end, k = 0; k < nh - 1; k++) {
      x = hits[k];
      if (tdep[x - 1] !== tdep[x] - 1 || tend[x - 1] !== tend[x]) bad[nb++] = x;
      else if (J.ren >= 0 && k && hits[k - 1] === x - 1) sk[ns++] = x;
    }
    bad[nb++] = n;
    if (J.ren >= 0) sk[ns++] = n; else ns = nh;
    J.bad = bad; J.sk = sk; J.nsk = ns;
  }
  return true;
}
/* The hits among input nodes i..b after nh of them: each kind's loop a function of its own
 * (a function is optimized after more turns of its loops the longer it is: the whole scan
 * ran in the slower tiers for most of a transform's first chunks). Nodes of name id: */
function hitsNamed(tn, id, hits, nh, i, b) {
  for (; i < b; i++) if (tn[i] === id) hits[nh++] = i;
  return nh;
}
/* nodes of the names marked in mt: */
function hitsMatching(tn, mt, hits, nh, i, b) {
  for (; i < b; i++) if (mt[tn[i]]) hits[nh++] = i;
  return nh;
}
/* nodes named as an ancestor: the last node of its name that was not such a hit (the
 * outermost of its name on its path, if any) holds it in its subtree (at: where that node's
 * subtree ends, read in order as the node is met). Without branches (the hits follow no
 * pattern a guess would): a hit's end is within that node's, so at keeps the larger end;
 * and i - y < 0 for a hit. */
function hitsRec(tn, tend, at, hits, nh, i, b) {
  var x, y, e;
  for (; i < b; i++) {
    x = tn[i]; y = at[x]; e = tend[i];
    hits[nh] = i; nh += (i - y) >>> 31;
    at[x] = e + ((y - e) & ((e - y) >> 31));
  }
  return nh;
}
/* The first of a[from..last] (in order, a[last] = n) that is x or more. */
function atLeast(a, last, from, x) {
  var lo = from, hi = from, step = 1, mid;
  while (a[hi] < x) { lo = hi + 1; hi = Math.min(last, hi + step); step *= 2; }
  // a[lo - 1] < x <= a[hi]
  while (lo < hi) { mid = (lo + hi) >> 1; if (a[mid] < x) lo = mid + 1; else hi = mid; }
  return lo;
}
/* The same, searched back from k first when a[k - 1] is x or more. */
function atLeastNear(a, last, k, x) {
  for (var step = 1; k > 0 && a[k - 1] >= x; step *= 2) k = Math.max(0, k - step);
  return atLeast(a, last, k, x);
}
/* How many hits left out in input nodes a..b (k: the first left out at a or after). */
function leftOut(J, k, b) { return atLeast(J.sk, J.nsk - 1, k, b) - k; }
/* Frame o, a block, opened: its input node's children become blocks under it. */
function openBlock(J, o, m) {
  var t = J.t, tn = t.name, tend = t.end, ts0 = t.self0, ts1 = t.self1, O = J.O, blk = J.blk, i0 = blk[o] - 1, c, e = tend[i0], h;
  blk[o] = 0;
  c = i0 + 1;
  if (!ts0) J.os0[o] = selfAt(t, i0); // (not found as the block was made: see the walk)
  if (J.filter) {
    // hits at its top left out, each an only child: their own counts its frame's
    for (h = atLeast(J.sk, J.nsk - 1, 0, c); c < e && J.sk[h] === c; c++, h++) J.os0[o] += selfAt(t, c);
  }
  for (; c < e; c = tend[c], m++) {
    O.name[m] = tn[c];
    if (J.filter) {
      h = atLeast(J.sk, J.nsk - 1, h, c); J.bsz[m] = tend[c] - c - leftOut(J, h, tend[c]);
      // (a hit kept here is o's only child, renamed)
      if (J.ren >= 0 && J.hits[atLeast(J.hits, J.nh - 1, 0, c)] === c) O.name[m] = J.ren;
    }
    J.opar[m] = o; O.next[m] = O.first[o]; O.first[o] = m; O.nk[o]++;
    O.first[m] = -1; O.shared[m] = 0; O.nk[m] = 0; J.size[m] = 0; J.tot[m] = 0; if (J.tot0) J.tot0[m] = 0;
    J.os0[m] = ts0 ? ts0[c] : 0; if (J.os1) J.os1[m] = ts1[c];
    blk[m] = c + 1;
  }
  return m;
}
/* The walk: each node of the input asked what becomes of it (act), its frame found or made
 * (transformTree's comment above says how); a subtree without hits made a block. */
function walkPass(J) {
  var t = J.t, n = t.n, tn = t.name, tdep = t.depth, tend = t.end, ts0 = t.self0, ts1 = t.self1, tt = t.tot, act = J.act, clock = J.clock;
  var O = J.O, oname = O.name, opar = J.opar, ofirst = O.first, onext = O.next, shared = O.shared, H = O.hash, nk = O.nk;
  var os0 = J.os0, os1 = J.os1, size = J.size, tot = J.tot, tot0 = J.tot0, blk = J.blk, outAt = J.outAt;
  var blocks = J.blocks, whole = blocks && !!act.whole, hits = J.hits, hc = J.hc, m = J.m, i = J.i, k, c, sh, d, a, P, o, e, clean;
  var byHits = J.byHits, hitA = act.onHit, hit, filter = J.filter, bad = J.bad, bc = J.bc, bsz = J.bsz, sk = J.sk, sc = J.sc;
  for (k = 1; i < n; k++) {
    if ((k & (STEP - 1)) === 0 && clock && clock(J)) { J.i = i; J.m = m; J.hc = hc; J.bc = bc; J.sc = sc; return false; }
    d = tdep[i];
    // own counts where the input keeps none: a node's total, less each child's as it is met
    // here (selfAt read its children, a cache miss each, ahead of the walk); the root's is set
    if (!ts0 && d > 1 && (o = outAt[d - 1]) >= 0) os0[o] -= tt[i];
    if (byHits) {
      // what becomes of a node is whether it is a hit
      while (hits[hc] < i) hc++;
      hit = hits[hc] === i;
      a = hit ? hitA : tn[i];
    } else a = act(i, d);
    if (a === CUT) { i = tend[i]; continue; }
    e = tend[i];
    clean = false;
    if (blocks) {
      while (hits[hc] <= i) hc++;
      if (filter) { while (bad[bc] <= i) bc++; while (sk[sc] <= i) sc++; clean = bad[bc] >= e; } else clean = hits[hc] >= e;
    }
    P = outAt[d - 1];
    if (a === OUT) {
      if (clean) { i = e; continue; } // nothing below is kept
      o = -1;
    } else if (a === SKIP) {
      o = P;
      if (o >= 0 && !shared[o]) promote(O, o);
    } else {
      if (P < 0) { P = 0; if (!shared[0]) promote(O, 0); }
      if (!shared[P] && a !== tn[i]) promote(O, P);
      sh = shared[P];
      if (sh === 1) { for (o = m, c = ofirst[P]; c >= 0; c = onext[c]) if (oname[c] === a) { o = c; break; } } else o = sh ? H.find(P, a, m) : m;
      if (o === m) {
        m++;
        oname[o] = a; opar[o] = P; onext[o] = ofirst[P]; ofirst[P] = o;
        ofirst[o] = -1; shared[o] = 0; nk[o] = 0; size[o] = 0; tot[o] = 0; if (tot0) tot0[o] = 0;
        // (a block's own count, where the input keeps none, is found if it is opened: the
        // walk of its children to find it was a cache miss a child)
        os0[o] = ts0 ? ts0[i] : clean || whole ? 0 : tt[i]; if (os1) os1[o] = ts1[i];
        if (++nk[P] > SHORT && sh === 1) promote(O, P);
        if (clean || whole) {
          blk[o] = i + 1;
          // (the hits left out in it passed here, not searched: the walk would pass them)
          if (filter) { for (c = sc; sk[sc] < e; sc++); bsz[o] = e - i - (sc - c); }
          i = e;
          continue;
        }
        blk[o] = 0; outAt[d] = o; i++;
        continue;
      }
      if (blk[o]) m = openBlock(J, o, m);
      if (!shared[o]) promote(O, o);
    }
    outAt[d] = o;
    if (o >= 0) { os0[o] += ts0 ? ts0[i] : tt[i]; if (os1) os1[o] += ts1[i]; }
    i++;
  }
  J.m = m; J.hc = hc; J.bc = bc; J.sc = sc;
  return true;
}

/* Then the frames made in preorder: those with a count below them (a frame is made after
 * its parent, so one backward pass, the sizes, gives each its subtree's size and totals;
 * a block's are its input node's), then each frame's place from its parent's (the places):
 * its children's places follow from their sizes, in the order of the list (made by
 * prepending: last first) or, under a shared frame, by name. One forward pass writes every
 * array of the tree. */
function sizesStart(J) {
  J.lo = 0; J.hi = 0; J.o = J.m - 1;
}
function sizesPass(J) {
  var size = J.size, tot = J.tot, tot0 = J.tot0, os0 = J.os0, os1 = J.os1, opar = J.opar, blk = J.blk, clock = J.clock;
  var tend = J.t.end, ttot = J.t.tot, ttot0 = J.t.tot0, bsz = J.filter ? J.bsz : null, lo = J.lo, hi = J.hi, o = J.o, k, p, x, y, b;
  for (k = 1; o >= 0; o--, k++) {
    if ((k & (STEP - 1)) === 0 && clock && clock(J)) { J.o = o; J.lo = lo; J.hi = hi; return false; }
    if (blk[o]) {
      // (its nodes' own counts are the input's: they fit its arrays, and are not in lo..hi)
      b = blk[o] - 1; size[o] = bsz ? bsz[o] : tend[b] - b; tot[o] = ttot[b]; if (tot0) tot0[o] = ttot0[b];
      p = opar[o]; size[p] += size[o]; tot[p] += tot[o]; if (tot0) tot0[p] += tot0[o];
      continue;
    }
    x = os1 ? os1[o] : os0[o];
    if (x < lo) lo = x; else if (x > hi) hi = x;
    tot[o] += x > 0 ? x : 0;
    if (tot0) { y = os0[o]; tot0[o] += y > 0 ? y : 0; }
    if (size[o] || os0[o] !== 0 || (os1 && os1[o] !== 0) || o === 0) {
      size[o]++;
      if (o > 0) { p = opar[o]; size[p] += size[o]; tot[p] += tot[o]; if (tot0) tot0[p] += tot0[o]; }
    }
  }
  J.lo = lo; J.hi = hi;
  return true;
}
// each frame's place from its parent's, in the order frames were made (parents first),
// noted as ord[place] = frame: the arrays of the tree are then written in one sequential
// pass (fresh arrays written at scattered places cost a cache miss and a page fault each).
// A frame's children follow it in the order they were made (the input's, by name), or by
// name under a shared frame. nxt[o]: before o is placed, its place when its parent is
// shared; after, where its next child goes.
function placesStart(J) {
  var m = J.m, W = work(m);
  J.cnt = J.size[0];
  J.nxt = W.i32[5].subarray(0, m); J.ord = W.i32[6].subarray(0, J.cnt);
  J.o = 0; J.tmp = []; J.keys = null;
}
function placesPass(J) {
  var m = J.m, size = J.size, opar = J.opar, shared = J.O.shared, ofirst = J.O.first, onext = J.O.next, oname = J.O.name;
  var nxt = J.nxt, ord = J.ord, rank = J.rank, tmp = J.tmp, clock = J.clock, o = J.o;
  var c, cur, j, q = 0, sz, p, k, y0, ry, z0, ks;
  function byName(a, b) { return rank[oname[a]] - rank[oname[b]]; }
  for (k = 1; o < m; o++, k++) {
    if ((k & (STEP - 1)) === 0 && clock && clock(J)) { J.o = o; return false; }
    sz = size[o];
    if (!sz) continue;
    if (o === 0) q = 0;
    else {
      p = opar[o];
      if (shared[p]) q = nxt[o];
      else { q = nxt[p]; nxt[p] = q + sz; }
    }
    nxt[o] = q + 1;
    if (shared[o]) {
      c = ofirst[o];
      // one child (a frame merged into its only child's parent): its place is the next
      if (c < 0 || onext[c] < 0) { if (c >= 0) nxt[c] = q + 1; ord[q] = o; continue; }
      tmp.length = 0;
      for (; c >= 0; c = onext[c]) if (size[c]) tmp.push(c);
      if (tmp.length > 12) {
        // many: as numbers rank x 2^24 + frame (exact below 2^53), sorted natively
        if (m <= 16777216) {
          if (!J.keys || J.keys.length < tmp.length) J.keys = new Float64Array(Math.max(tmp.length, 1024));
          ks = J.keys.subarray(0, tmp.length);
          for (j = 0; j < tmp.length; j++) ks[j] = rank[oname[tmp[j]]] * 16777216 + tmp[j];
          ks.sort();
          for (j = 0; j < tmp.length; j++) tmp[j] = ks[j] % 16777216;
        } else tmp.sort(byName);
      } else {
        // few children (most shared frames): an insertion sort, no call per comparison
        for (j = 1; j < tmp.length; j++) {
          y0 = tmp[j]; ry = rank[oname[y0]]; z0 = j - 1;
          for (; z0 >= 0 && rank[oname[tmp[z0]]] > ry; z0--) tmp[z0 + 1] = tmp[z0];
          tmp[z0 + 1] = y0;
        }
      }
      for (j = 0, cur = q + 1; j < tmp.length; j++) { c = tmp[j]; nxt[c] = cur; cur += size[c]; }
    }
    ord[q] = o;
  }
  return true;
}
// the narrowest arrays that hold the numbers (memory, and fresh pages to fault in); ints:
// the input's counts are one column of integers in 32 bits (narrowCounts), which the tree
// made keeps where its sums fit; its depth is the input's at most
function writeStart(J) {
  var cnt = J.cnt, os1 = J.os1, t = J.t, md0 = t.maxDepth;
  // (a tree without own counts, selfAt: its totals are in 32 bits, and so the tree made)
  var ints = (t.self0 instanceof Int32Array || (!t.self0 && t.tot instanceof Uint32Array)) && !os1 && J.lo >= -2147483648 && J.hi < 2147483648 && J.tot[0] < 4294967296;
  J.r = { n: cnt, cols: t.cols, name: spare(J.names.length <= 65536 ? Uint16Array : Int32Array, cnt),
    depth: spare(md0 < 256 ? Uint8Array : md0 < 65535 ? Uint16Array : Int32Array, cnt), end: spare(Int32Array, cnt),
    self0: t.self0 ? spare(ints ? Int32Array : Float64Array, cnt) : null, self1: os1 ? spare(Float64Array, cnt) : null,
    tot: spare(ints ? Uint32Array : Float64Array, cnt), tot0: J.tot0 ? spare(Float64Array, cnt) : null };
  // a frame's depth: how many frames before it are still open (their ends on a stack)
  J.q = 0; J.md = 0; J.st = new Int32Array(md0 + 2); J.sp = 0;
  J.bi = 0; J.be = 0; J.boff = 0; J.bdd = 0; // the block being copied: input nodes bi..be
  // a filtered one's: the next hit (fh) and hit left out (fk), the next place (bw), the ends
  // of the hits left out open above (hstk), the places of the nodes open by depth below the
  // block's frame (pst; bd0: the depth of its children)
  J.bf = false; J.fh = 0; J.fk = 0; J.bw = 0; J.hsp = 0; J.psp = 0; J.bd0 = 0;
}
/* The arrays of trees no longer shown nor kept (an undone transform's: showTree), for the
 * next trees: fresh arrays cost the page faults of their first touch (a third of the write
 * on 10M nodes). spare(C, n): one of type C and n numbers, from there if one is as long. */
var spares = [];
function spare(C, n) {
  var b = -1, i;
  for (i = 0; i < spares.length; i++) if (spares[i].constructor === C && spares[i].length >= n && (b < 0 || spares[i].length < spares[b].length)) b = i;
  if (b < 0) return new C(n);
  var a = spares[b];
  spares.splice(b, 1);
  return a.length === n ? a : a.subarray(0, n);
}
function writePass(J) {
  var r = J.r, cnt = J.cnt, ord = J.ord, oname = J.O.name, size = J.size, os0 = J.os0, os1 = J.os1, tot = J.tot, tot0 = J.tot0, blk = J.blk, clock = J.clock;
  var rn = r.name, rd = r.depth, re = r.end, rs0 = r.self0, rs1 = r.self1, rt = r.tot, rt0 = r.tot0, tdep = J.t.depth, tend = J.t.end;
  var q = J.q, md = J.md, st = J.st, sp = J.sp, o, e, u, b, i0;
  // u: nodes written since the clock was last asked (blocks of a few nodes are most of the
  // frames: a clock per block cost as much as their copy)
  for (u = 0; ; ) {
    if (u >= STEP) { u = 0; if (clock && clock(J)) { J.q = q; J.md = md; J.sp = sp; return false; } }
    if (J.bi < J.be) {
      // a block's nodes, copied 8 x STEP a chunk
      b = Math.min(J.be, J.bi + 8 * STEP);
      if (J.bf) copyFiltered(J, J.bi, b); else copyNodes(J, J.bi, b);
      u += b - J.bi;
      J.bi = b;
      if (J.md > md) md = J.md;
      continue;
    }
    if (q >= cnt) break;
    u++;
    o = ord[q];
    while (sp && st[sp - 1] <= q) sp--;
    e = q + size[o];
    rn[q] = oname[o]; rd[q] = sp; re[q] = e; rt[q] = tot[o];
    if (rs0) rs0[q] = os0[o];
    if (rs1 && os1 && rt0 && tot0) { rs1[q] = os1[o]; rt0[q] = tot0[o]; }
    if (sp > md) md = sp;
    if (blk[o]) {
      // its subtree's nodes below it, as they are in the input (depths and ends moved)
      i0 = blk[o] - 1; J.bi = i0 + 1; J.be = tend[i0]; J.boff = q - i0; J.bdd = sp - tdep[i0];
      // (with hits left out: copied node by node)
      // (searched from the last block's: blocks are mostly written in the input's order; the
      // hits left out are all the hits but in collapse library)
      J.fh = J.filter ? atLeastNear(J.hits, J.nh - 1, J.fh, i0 + 1) : 0;
      J.bf = J.filter && J.hits[J.fh] < J.be;
      if (J.bf) { J.fk = J.sk === J.hits ? J.fh : atLeastNear(J.sk, J.nsk - 1, J.fk, i0 + 1); J.bw = q + 1; J.hsp = 0; J.psp = 0; J.bd0 = sp + 1; }
      q = e;
      continue;
    }
    st[sp++] = e;
    q++;
  }
  J.md = md;
  return true;
}
/* Input nodes a..b of the block being copied, to their places in the tree made. */
function copyNodes(J, a, b) {
  var t = J.t, r = J.r, off = J.boff, dd = J.bdd, tdep = t.depth, tend = t.end, rd = r.depth, re = r.end, x, mx = 0, j;
  var rn = r.name, rs0 = r.self0, rt = r.tot, tn = t.name, ts0 = t.self0, tt = t.tot;
  if (b - a < 64) {
    // (a few: a loop; subarrays cost more)
    for (j = a; j < b; j++) { rn[j + off] = tn[j]; rt[j + off] = tt[j]; }
    if (rs0 && ts0) for (j = a; j < b; j++) rs0[j + off] = ts0[j];
  } else {
    rn.set(tn.subarray(a, b), a + off); rt.set(tt.subarray(a, b), a + off);
    if (rs0 && ts0) rs0.set(ts0.subarray(a, b), a + off);
  }
  if (r.self1 && t.self1 && r.tot0 && t.tot0) { r.self1.set(t.self1.subarray(a, b), a + off); r.tot0.set(t.tot0.subarray(a, b), a + off); }
  for (j = a; j < b; j++) { x = tdep[j]; if (x > mx) mx = x; rd[j + off] = x + dd; re[j + off] = tend[j] + off; }
  if (mx + dd > J.md) J.md = mx + dd;
}
/* Input nodes a..b of a filtered block: its hits left out (the nodes below each one less
 * deep: hs holds the ends of those open) or renamed. A node's end is where the next node
 * as deep or less is written, or the block's end (ps: the places of the nodes open, by
 * depth; as finishTree does: a search of the hits left out below each node, for its input
 * end less them, cost more than the rest of the copy). */
function copyFiltered(J, a, b) {
  var t = J.t, r = J.r, tn = t.name, tt = t.tot, tdep = t.depth, tend = t.end, rn = r.name, rt = r.tot, rd = r.depth, re = r.end;
  var hits = J.hits, sk = J.sk, h = J.fh, k = J.fk, ren = J.ren, w = J.bw, dd = J.bdd, hs = J.hstk, hsp = J.hsp;
  var ps = J.pst, psp = J.psp, base = J.bd0, md = J.md, j, od, nx, ds, off, s, x, y;
  for (j = a; j < b;) {
    while (hsp && hs[hsp - 1] <= j) hsp--;
    if (sk[k] === j) { k++; h++; hs[hsp++] = tend[j]; j++; continue; }
    // a run up to the next hit left out, or the end of one open: the same depth less
    s = sk[k]; nx = s < b ? s : b;
    if (hsp && hs[hsp - 1] < nx) nx = hs[hsp - 1];
    ds = dd - hsp; off = w - j;
    for (; j < nx; j++) {
      od = tdep[j] + ds; x = j + off; y = od - base;
      while (psp > y) re[ps[--psp]] = x;
      ps[psp++] = x;
      rn[x] = tn[j]; rt[x] = tt[j]; rd[x] = od;
      if (od > md) md = od;
    }
    // its hits kept: renamed
    for (; hits[h] < nx; h++) rn[hits[h] + off] = ren;
    w = j + off;
  }
  if (b === J.be) while (psp) re[ps[--psp]] = w;
  J.fh = h; J.fk = k; J.bw = w; J.hsp = hsp; J.psp = psp; J.md = md;
}
function writeEnd(J) {
  var r = J.r;
  r.maxDepth = J.md;
  r.maxdelta = maxDelta(r);
  r.kids = new Map();
  // every frame has a count below it (one column, no own count below zero: a frame is
  // kept for a count of its own or below; a block's nodes have theirs in the input)
  if (r.cols === 1 && J.lo >= 0) r.live = true;
}

/* Each name's place in the library's order of names (bytewise), made once for the names. */
/** @this {FkV} */
Viewer.prototype.nameRank = function () {
  var V = /** @type {FkV} */ (this), nn = V.names.length;
  if (V.rank && V.rank.length === nn) return V.rank;
  var r = new Int32Array(nn), i, names = V.names, at, sorted, idx, k, lo, hi, mid, ord;
  if (V.rank && V.rankOrder && V.rank.length < nn) {
    // names added since (a module's name, a process's root): each put in its place by a
    // binary search of the names in order, and the ranks from there on moved up one (not
    // the whole sort again: over millions of names it took seconds)
    ord = Array.prototype.slice.call(V.rankOrder);
    for (k = V.rank.length; k < nn; k++) {
      for (lo = 0, hi = ord.length; lo < hi;) { mid = (lo + hi) >> 1; if (nameCmp(names[ord[mid]], names[k]) < 0) lo = mid + 1; else hi = mid; }
      ord.splice(lo, 0, k);
    }
    for (i = 0; i < nn; i++) r[ord[i]] = i;
    V.rankOrder = Int32Array.from(ord);
    return (V.rank = r);
  }
  V.nameId(''); // makes V.nameIndex
  at = V.nameIndex;
  // the engine's own string order (UTF-16 units) is the library's unless a name holds a
  // unit from U+D800 up; its sort without a comparison function compares natively, and
  // unique names find their ids back in the name index
  for (i = 0; i < nn && !/[\ud800-\uffff]/.test(names[i]); i++);
  if (i === nn && at.size === nn) {
    sorted = names.slice().sort();
    for (i = 0; i < nn; i++) r[at.get(sorted[i])] = i;
  } else {
    // else nameCmp: a comparison loop in script, several times slower
    for (idx = new Array(nn), i = 0; i < nn; i++) idx[i] = i;
    idx.sort(function (a, b) { return nameCmp(names[a], names[b]); });
    for (i = 0; i < nn; i++) r[idx[i]] = i;
  }
  // the names in order, for names added later
  for (V.rankOrder = new Int32Array(nn), i = 0; i < nn; i++) V.rankOrder[r[i]] = i;
  return (V.rank = r);
};

function focusAct(f) { f.dropRoot = true; return f; }
/* act f with what it acts on (the blocks' hits), whether all below a kept node is kept as it
 * is (whole) and, when the hits alone say what becomes of a node, what becomes of a hit
 * (onHit: every other node is kept as it is; the walk then asks the hits, not f). */
function acting(f, hits, whole, onHit) { f.hits = hits; f.whole = whole; if (onHit !== undefined) f.onHit = onHit; return f; }
/* What transform op does to each node (transformTree's act), over tree t. Per-depth
 * stacks hold what a node needs to know of its ancestors. */
function transformAct(V, t, op, arg) {
  var name = t.name, end = t.end, md = t.maxDepth + 2, id, z, above, i;
  switch (op) {
  case 'merge':
    id = V.nameId(arg);
    return acting(function (i) { return name[i] === id ? SKIP : name[i]; }, { kind: 'name', id: id }, false, SKIP);
  case 'drop':
    id = V.nameId(arg);
    return acting(function (i) { return name[i] === id ? CUT : name[i]; }, { kind: 'name', id: id }, false, CUT);
  case 'focus':
    // the node at the path, rooted under the root; its ancestors left out, all else cut
    z = V.findPathIn(t, arg.split(';'));
    return acting(focusAct(function (i) { return z <= 0 ? CUT : i >= z && i < end[z] ? name[i] : i < z && end[i] > z ? OUT : CUT; }),
      { kind: 'at', at: z > 0 ? [z] : [] }, true);
  case 'focusfn':
    id = V.nameId(arg);
    above = new Int32Array(md); // how many frames of the function on the path above depth d
    return acting(focusAct(function (i, d) {
      var x = above[d - 1], f = name[i] === id;
      above[d] = x + (f ? 1 : 0);
      return x || f ? name[i] : OUT;
    }), { kind: 'name', id: id }, true);
  case 'rec':
    if (arg === '') {
      // every function: a name already open on the path is merged into it
      var open = new Int32Array(V.names.length), path = new Int32Array(md), pd = 0;
      return acting(function (i, d) {
        while (pd >= d) { pd--; if (path[pd] >= 0) open[path[pd]]--; }
        var x = name[i], r = open[x] ? SKIP : x;
        path[pd++] = r === SKIP ? -1 : x;
        if (r !== SKIP) open[x]++;
        return r;
      }, { kind: 'rec' }, false, SKIP);
    }
    id = V.nameId(arg);
    above = new Int32Array(md);
    return acting(function (i, d) {
      var x = above[d - 1], f = name[i] === id;
      above[d] = x + (f ? 1 : 0);
      return f && x ? SKIP : name[i];
    }, { kind: 'name', id: id }, false);
  case 'lib':
    id = V.nameId(arg, true);
    var nn = V.names.length, match = new Uint8Array(nn), prev = new Uint8Array(md);
    for (i = 0; i < nn; i++) match[i] = arg !== '' && V.names[i].indexOf(arg) >= 0 ? 1 : 0;
    return acting(function (i, d) {
      var x = match[name[i]];
      prev[d] = x;
      return !x ? name[i] : prev[d - 1] ? SKIP : id;
    }, { kind: 'match', match: match, rename: id }, false);
  case 'proc':
    // comm-PID/TID -> comm-PID: a thread's root frame becomes its process's
    var to = new Map();
    for (i = 1; i < t.n; i = end[i]) {
      var m = THREAD_ROOT.exec(V.names[name[i]]);
      if (m && m[2]) to.set(name[i], V.nameId(m[1], true));
    }
    // (below the roots all is kept as it is)
    return acting(function (i, d) { var x = d === 1 ? to.get(name[i]) : undefined; return x === undefined ? name[i] : x; }, { kind: 'none' }, true);
  case 'nothread':
    return acting(function (i, d) { return d === 1 && THREAD_ROOT.test(V.names[name[i]]) ? SKIP : name[i]; }, { kind: 'none' }, true);
  }
  throw new Error('unknown transform ' + op);
}

/** @this {FkV} */
Viewer.prototype.nameId = function (s, add) {
  var V = /** @type {FkV} */ (this);
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
/** @this {FkV} */
Viewer.prototype.threadRoots = function () {
  var V = /** @type {FkV} */ (this), t = V.base, n = 0;
  if (V.hasThreads !== undefined && V.hasThreadsOf === t) return V.hasThreads;
  for (var c = 1; c < t.n; c = t.end[c]) if (THREAD_ROOT.test(V.names[t.name[c]])) n++;
  V.hasThreadsOf = t;
  V.hasThreads = n > 0;
  return V.hasThreads;
};

/* The tree after the split and the transforms. Each prefix of the list keeps its tree, so
 * an undo of the last one is instant and adding one costs one pass. On a tree of asyncMin
 * nodes or more (now) the passes run in slices of sliceMs between which the page draws and
 * answers: the graph, the selection and the tooltip stay those of the tree on screen (the
 * one before), the pending transforms' chips say "working", and a change of the list (an
 * undo, a chip's x, another transform) cancels the work (trees done so far are kept). */
/** @this {FkV} */
Viewer.prototype.applyTransforms = function (now) {
  var V = /** @type {FkV} */ (this), list = V.state.transforms.slice(), split = V.state.split;
  if (split !== 'thread' && V.threadRoots()) list.unshift([split === 'process' ? 'proc' : 'nothread', '']);
  var chain = V.chain && V.chain.base === V.base ? V.chain : (V.chain = { base: V.base, keys: [], trees: [] });
  var k = 0, t = V.base;
  V.job = null; // a pending one is cancelled: its clock stops it at its next slice
  while (k < list.length && k < chain.keys.length && chain.keys[k] === JSON.stringify(list[k])) t = chain.trees[k++];
  // trees left out of the chain: their arrays are spares once another tree is on screen
  V.dropped = (V.dropped || []).concat(chain.trees.slice(k));
  chain.keys.length = chain.trees.length = k;
  if (k < list.length && !now && t.n >= V.asyncMin) {
    var job = V.job = { list: list, k0: k, k: k, t: t, steps: null, end: 0 };
    // (one clock for all of the viewer's jobs, told which asks: a new function for each made
    // every pass's optimized code give way at its first call, in every transform)
    var clock = V.clock = V.clock || function (J) { var j = V.job; return !j || j.steps !== J || performance.now() > j.end; };
    var slice = function () {
      if (V.job !== job) return;
      job.end = performance.now() + V.sliceMs;
      for (;;) {
        if (!job.steps) {
          // the act first: it may add a name (lib, proc), which the ranks must hold
          var act = transformAct(V, job.t, list[job.k][0], list[job.k][1]);
          job.steps = new TransformJob(job.t, V.names, V.nameRank(), act, clock);
        }
        var r = job.steps.run();
        if (V.job !== job) return;
        if (!r) { V.later(slice); return; }
        job.t = r; job.steps = null;
        chain.keys.push(JSON.stringify(list[job.k]));
        chain.trees.push(job.t);
        if (++job.k === list.length) break;
      }
      V.job = null;
      V.showTree(job.t);
      V.render();
    };
    V.later(slice);
    V.renderTransforms();
    return;
  }
  for (; k < list.length; k++) {
    var act = transformAct(V, t, list[k][0], list[k][1]);
    t = transformTree(t, V.names, V.nameRank(), act);
    chain.keys.push(JSON.stringify(list[k]));
    chain.trees.push(t);
  }
  V.showTree(t);
};
/* Tree t is the one on screen from now: the selection follows it (the same frame if its
 * path is still there), and whoever waits for the transforms (flamekit.idle()) is told. */
/** @this {FkV} */
Viewer.prototype.showTree = function (t) {
  var V = /** @type {FkV} */ (this);
  V.tree = t;
  V.tableCache = null;
  new Set(V.dropped || []).forEach(function (d) {
    if (d === t || d === V.base || V.chain.trees.indexOf(d) >= 0) return;
    ['name', 'depth', 'end', 'self0', 'self1', 'tot', 'tot0'].forEach(function (k) { if (d[k]) spares.push(d[k]); });
  });
  V.dropped = [];
  // the working arrays (65 bytes a frame made; most nodes are in blocks, not frames) and
  // spares are let go a few seconds after the last transform
  clearTimeout(V.scratchTimer);
  V.scratchTimer = setTimeout(function () { if (!V.job) { scratch = null; spares = []; } }, 5000);
  if (V.selected) {
    var n = V.findPath(V.selected.path);
    if (n <= 0) V.selected = null;
  }
  if (V.sel) V.renderSelection();
  var w = V.idleWaiters || [];
  V.idleWaiters = [];
  w.forEach(function (f) { f(); });
};
/* fn as a task of its own, soon: between two tasks the page draws and answers. A message
 * to itself, not setTimeout(fn, 0): timers set from timers wait 4 ms at least from the
 * fifth on (25 slices of a second's work: 0.1 s more). */
/** @this {FkV} */
Viewer.prototype.later = function (fn) {
  var V = /** @type {FkV} */ (this);
  if (!V.laterQ) {
    var q = V.laterQ = [], ch = new MessageChannel();
    ch.port1.onmessage = function () { var f = q.shift(); if (f) f(); };
    V.laterPost = function () { ch.port2.postMessage(0); };
  }
  V.laterQ.push(fn);
  V.laterPost();
};
Viewer.prototype.asyncMin = 1 << 20;
Viewer.prototype.sliceMs = 40;
/* A promise kept when the tree on screen is the one of the transforms listed. */
/** @this {FkV} */
Viewer.prototype.idle = function () {
  var V = /** @type {FkV} */ (this);
  return new Promise(function (f) { if (!V.job) f(); else (V.idleWaiters = V.idleWaiters || []).push(f); });
};

/** @this {FkV} */
Viewer.prototype.nextSplit = function () {
  if (!this.threadRoots()) return 'p: no root frames name threads (comm-PID/TID), nothing to split';
  var next = { thread: 'process', process: 'merged', merged: 'thread' }[this.state.split];
  this.set({ split: next, transforms: this.state.transforms, zoom: [] });
};

/** @this {FkV} */
Viewer.prototype.transform = function (op, arg) {
  if (!TRANSFORMS[op]) throw new Error('unknown transform ' + op);
  this.set({ transforms: this.state.transforms.concat([[op, String(arg)]]), zoom: [] });
};
/** @this {FkV} */
Viewer.prototype.undo = function (k) {
  var t = this.state.transforms.slice();
  if (!t.length) return 'u: no transform to undo';
  if (k === undefined) t.pop(); else t.splice(k, 1);
  this.set({ transforms: t, zoom: [] });
};

// @ts-check
// table.js - the functions table: self and total of every function, a virtual list.
/* ---------------------------------------------------------------- functions table */
/** @this {FkV} */
Viewer.prototype.functions = function () {
  var V = /** @type {FkV} */ (this), t = V.tree;
  if (V.tableCache && V.tableCache.tree === t) return V.tableCache.rows;
  var nn = V.names.length, self = new Float64Array(nn), total = new Float64Array(nn), active = new Int32Array(nn);
  var s1 = t.cols > 1 ? t.self1 : selfs(t), st = [], name = t.name, end = t.end, tot = t.tot;
  // a differential profile: before (self0, tot0) beside after
  var diff = t.cols > 1 && !!t.tot0, s0 = t.self0, tot0 = t.tot0, self0 = new Float64Array(diff ? nn : 0), total0 = new Float64Array(diff ? nn : 0);
  for (var i = 1; i < t.n; i++) {
    while (st.length && end[st[st.length - 1]] <= i) active[name[st.pop()]]--;
    var k = name[i];
    self[k] += s1[i] > 0 ? s1[i] : 0;
    // recursion counted once: only the outermost frame of a function adds its total
    if (!active[k]) total[k] += tot[i];
    if (diff) {
      self0[k] += s0[i] > 0 ? s0[i] : 0;
      if (!active[k]) total0[k] += tot0[i];
    }
    active[k]++;
    st.push(i);
  }
  var rows = [];
  for (k = 0; k < nn; k++) {
    if (diff && (total[k] > 0 || self[k] > 0 || total0[k] > 0 || self0[k] > 0))
      rows.push({ name: V.names[k], self: self[k], total: total[k], self0: self0[k], total0: total0[k],
        dself: self[k] - self0[k], dtotal: total[k] - total0[k], pself: changeRatio(self0[k], self[k]), ptotal: changeRatio(total0[k], total[k]) });
    else if (!diff && (total[k] > 0 || self[k] > 0)) rows.push({ name: V.names[k], self: self[k], total: total[k] });
  }
  V.tableCache = { tree: t, rows: rows };
  return rows;
};
/* The functions matching the search, by key (a column: self, total, and on a differential
 * profile self0, total0, dself, dtotal, pself, ptotal), largest first, or smallest first
 * for "-key"; ties by name. */
/** @this {FkV} */
Viewer.prototype.top = function (n, key) {
  key = key || this.state.sort;
  var rows = this.functions().slice(), re = this.regex(), up = key.charAt(0) === '-';
  if (up) key = key.slice(1);
  if (!(key in (rows[0] || { self: 0 }))) key = 'self';
  if (re) rows = rows.filter(function (r) { return re.test(r.name); });
  rows.sort(function (a, b) {
    var x = a[key], y = b[key], c = x > y ? -1 : x < y ? 1 : 0;
    return (up ? -c : c) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  });
  return rows.slice(0, n === undefined ? rows.length : n);
};
/* The functions table: every function, as a virtual list (rows of one height; only those
 * in view are in the document), with how many the search leaves of all. A header sorts
 * by its column, largest first; again, smallest first. */
/** @this {FkV} */
Viewer.prototype.renderTable = function () {
  var V = /** @type {FkV} */ (this), m = V.meta, t = V.tree, tot = t.tot[0], rows = V.top(), all = V.functions().length, RH = 21;
  var diff = V.isDiff(), tot0 = diff ? t.tot0[0] : 0, f = m.factor, sort = V.state.sort;
  var heads = diff ? [['self0', 'Self before'], ['self', 'Self after'], ['dself', 'Self change'], ['pself', 'Self %'],
    ['total0', 'Total before'], ['total', 'Total after'], ['dtotal', 'Total change'], ['ptotal', 'Total %']] : [['self', 'Self'], ['total', 'Total']];
  // the names last, or first on a differential table (wider than a small window: its
  // numbers scroll sideways, the names stay in view)
  var nameHead = ['name', m.nametype ? m.nametype.replace(/:$/, '') : 'Function'];
  if (diff) heads.unshift(nameHead); else heads.push(nameHead);
  V.main.appendChild(el('div', 'fkcount', rows.length + ' of ' + all + ' functions' + (V.state.search ? ' (those matching the search)' : '') +
    (diff ? '; before ' + fmtCount(tot0, f) + ', after ' + fmtCount(tot, f) + ' in all (change ' + fmtChange(tot - tot0, f) + ', ' + pctChange(tot0, tot) + ')' : '')));
  var hd = el('table', diff ? 'fktable fkdiff' : 'fktable'), tr = el('tr');
  function cols(tb) { heads.forEach(function (h, k) { tb.appendChild(el('col', h[0] === 'name' ? 'fkcn' : 'fkc' + (diff ? k : k + 1))); }); }
  cols(hd);
  heads.forEach(function (h) {
    var on = sort === h[0] || sort === '-' + h[0];
    var th = el('th', (on ? 'on' : '') + (h[0] !== 'name' ? ' num' : ''), h[1] + (on ? (sort.charAt(0) === '-' ? ' \u25b2' : ' \u25bc') : ''));
    if (h[0] !== 'name') {
      th.title = 'sort by this column, largest first; again: smallest first';
      th.addEventListener('click', function () { V.set({ sort: sort === h[0] ? '-' + h[0] : h[0] }); });
    }
    tr.appendChild(th);
  });
  hd.appendChild(tr);
  V.main.appendChild(hd);
  // a differential table is wider than a small window: it scrolls sideways, as a whole
  V.main.classList.toggle('fkwide', diff);
  var sc = V.tableScroll = el('div', diff ? 'fktscroll fkdiffw' : 'fktscroll'), sp = el('div', 'fkspace'), tb = el('table', hd.className + ' fkrows');
  sc.appendChild(tb);
  sc.appendChild(sp);
  V.main.appendChild(sc);
  sp.style.height = rows.length * RH + 'px';
  var top = sc.getBoundingClientRect().top;
  sc.style.height = Math.max(120, Math.min(rows.length * RH + 2, window.innerHeight - top - 34)) + 'px';
  function num(row, s) { row.appendChild(el('td', 'num', s)); }
  function fill() {
    var a = Math.floor(sc.scrollTop / RH), b = Math.min(rows.length, a + Math.ceil(sc.clientHeight / RH) + 1);
    tb.textContent = '';
    cols(tb);
    tb.style.top = a * RH + 'px';
    for (var i = a; i < b; i++) {
      var r = rows[i], row = el('tr'), td = el('td', 'fn', r.name);
      row.style.height = RH + 'px';
      td.title = r.name + '\nclick: the sandwich of this function';
      td.addEventListener('click', V.sandwich.bind(V, r.name));
      if (diff) row.appendChild(td);
      if (diff) {
        num(row, fmtCount(r.self0, f)); num(row, fmtCount(r.self, f)); num(row, fmtChange(r.dself, f)); num(row, pctChange(r.self0, r.self));
        num(row, fmtCount(r.total0, f)); num(row, fmtCount(r.total, f)); num(row, fmtChange(r.dtotal, f)); num(row, pctChange(r.total0, r.total));
      } else {
        num(row, fmtCount(r.self, f) + ' (' + pct(r.self, tot) + ')');
        num(row, fmtCount(r.total, f) + ' (' + pct(r.total, tot) + ')');
      }
      if (!diff) row.appendChild(td);
      tb.appendChild(row);
    }
  }
  sc.addEventListener('scroll', function () { if (!V.tfr) V.tfr = requestAnimationFrame(function () { V.tfr = 0; fill(); }); });
  fill();
};

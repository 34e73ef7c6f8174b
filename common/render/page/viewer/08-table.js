// table.js - the functions table: self and total of every function, a virtual list.
/* ---------------------------------------------------------------- functions table */
Viewer.prototype.functions = function () {
  var V = this, t = V.tree;
  if (V.tableCache && V.tableCache.tree === t) return V.tableCache.rows;
  var nn = V.names.length, self = new Float64Array(nn), total = new Float64Array(nn), active = new Int32Array(nn);
  var s1 = t.cols > 1 ? t.self1 : t.self0, st = [], name = t.name, end = t.end, tot = t.tot;
  for (var i = 1; i < t.n; i++) {
    while (st.length && end[st[st.length - 1]] <= i) active[name[st.pop()]]--;
    var k = name[i];
    self[k] += s1[i] > 0 ? s1[i] : 0;
    // recursion counted once: only the outermost frame of a function adds its total
    if (!active[k]) total[k] += tot[i];
    active[k]++;
    st.push(i);
  }
  var rows = [];
  for (k = 0; k < nn; k++) if (total[k] > 0 || self[k] > 0) rows.push({ name: V.names[k], self: self[k], total: total[k] });
  V.tableCache = { tree: t, rows: rows };
  return rows;
};
Viewer.prototype.top = function (n, key) {
  key = key || this.state.sort;
  var rows = this.functions().slice(), re = this.regex();
  if (re) rows = rows.filter(function (r) { return re.test(r.name); });
  rows.sort(function (a, b) { return b[key] - a[key] || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0); });
  return rows.slice(0, n === undefined ? rows.length : n);
};
/* The functions table: every function, as a virtual list (rows of one height; only those
 * in view are in the document), with how many the search leaves of all. */
Viewer.prototype.renderTable = function () {
  var V = this, m = V.meta, tot = V.tree.tot[0], rows = V.top(), all = V.functions().length, RH = 21;
  V.main.appendChild(el('div', 'fkcount', rows.length + ' of ' + all + ' functions' + (V.state.search ? ' (those matching the search)' : '')));
  var hd = el('table', 'fktable'), tr = el('tr');
  function cols(t) { ['fkc1', 'fkc2', 'fkc3'].forEach(function (c) { t.appendChild(el('col', c)); }); }
  cols(hd);
  [['self', 'Self'], ['total', 'Total'], ['name', m.nametype ? m.nametype.replace(/:$/, '') : 'Function']].forEach(function (h) {
    var th = el('th', h[0] === V.state.sort ? 'on' : null, h[1]);
    if (h[0] !== 'name') th.addEventListener('click', function () { V.set({ sort: h[0] }); });
    tr.appendChild(th);
  });
  hd.appendChild(tr);
  V.main.appendChild(hd);
  var sc = V.tableScroll = el('div', 'fktscroll'), sp = el('div', 'fkspace'), tb = el('table', 'fktable fkrows');
  sc.appendChild(tb);
  sc.appendChild(sp);
  V.main.appendChild(sc);
  sp.style.height = rows.length * RH + 'px';
  var top = sc.getBoundingClientRect().top;
  sc.style.height = Math.max(120, Math.min(rows.length * RH + 2, window.innerHeight - top - 34)) + 'px';
  function fill() {
    var a = Math.floor(sc.scrollTop / RH), b = Math.min(rows.length, a + Math.ceil(sc.clientHeight / RH) + 1);
    tb.textContent = '';
    cols(tb);
    tb.style.top = a * RH + 'px';
    for (var i = a; i < b; i++) {
      var r = rows[i], row = el('tr');
      row.style.height = RH + 'px';
      row.appendChild(el('td', 'num', fmtCount(r.self, m.factor) + ' (' + pct(r.self, tot) + ')'));
      row.appendChild(el('td', 'num', fmtCount(r.total, m.factor) + ' (' + pct(r.total, tot) + ')'));
      var td = el('td', 'fn', r.name);
      td.title = r.name + '\nclick: the sandwich of this function';
      td.addEventListener('click', V.sandwich.bind(V, r.name));
      row.appendChild(td);
      tb.appendChild(row);
    }
  }
  sc.addEventListener('scroll', function () { if (!V.tfr) V.tfr = requestAnimationFrame(function () { V.tfr = 0; fill(); }); });
  fill();
};

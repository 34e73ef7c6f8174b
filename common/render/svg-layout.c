/* svg-layout.c - which frames a flame graph draws and where: the merged call
 * tree (or a time-ordered flame chart), with --reverse, --focus and --range
 * applied, children ordered by name or weight, narrow frames merged into
 * their parents (minwidth and the max_frames size guard). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "svg-internal.h"

#define XPAD 10

size_t fk_svg_strip_annotation(const char *s, size_t len)
{
	if (len >= 4 && s[len - 4] == '_' && s[len - 3] == '[' && s[len - 1] == ']' &&
	    (s[len - 2] == 'k' || s[len - 2] == 'j' || s[len - 2] == 'i' || s[len - 2] == 'w'))
		return len - 4;
	return len;
}

/* ------------------------------------------------------------------ stack streams
 * Every derived view is built from a stream of stacks (root-first frame ids of
 * the source profile), transformed by --reverse and --focus on the way. */
typedef int (*emit_fn)(void *ctx, const uint32_t *ids, size_t n, unsigned col, double count);

typedef struct stream {
	const fk_profile *p;
	const fk_svg_opts *o;
	uint8_t *focus;        /* per source name id: 1 = the focused function */
	uint32_t *path, *rev;
	size_t path_cap, rev_cap;
	size_t emitted;
} stream;

static int emit(stream *s, const uint32_t *ids, size_t n, unsigned col, double c, emit_fn fn,
		void *ctx)
{
	if (s->o->reverse && n > 1) {
		if (FK_GROW(s->rev, s->rev_cap, n))
			return -FK_E_NOMEM;
		for (size_t i = 0; i < n; i++)
			s->rev[i] = ids[n - 1 - i];
		ids = s->rev;
	}
	if (s->focus) {
		/* cut everything before the first occurrence: with the stack root
		 * first that merges all callees under the function; reversed, all its
		 * callers. Stacks without it are left out. */
		size_t i = 0;
		while (i < n && !s->focus[ids[i]])
			i++;
		if (i == n)
			return 0;
		ids += i;
		n -= i;
	}
	s->emitted++;
	return fn(ctx, ids, n, col, c);
}

struct sample_ord {
	double t;
	size_t i;
};

static int cmp_sample_ord(const void *a, const void *b)
{
	const struct sample_ord *x = a, *y = b;
	if (x->t < y->t)
		return -1;
	if (x->t > y->t)
		return 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static bool has_range(const fk_svg_opts *o)
{
	return !isnan(o->range_start) || !isnan(o->range_end);
}

/* Samples (in time order when sort_time and every sample has a time), or the
 * unique stacks in the order their leaf nodes were created. */
static int for_each_stack(stream *s, bool use_samples, bool sort_time, emit_fn fn, void *ctx)
{
	const fk_profile *p = s->p;
	size_t nn;
	const fk_node *nodes = fk_profile_nodes(p, &nn);
	int rc = 0;
	if (!use_samples) {
		for (size_t i = 0; i < nn && !rc; i++) {
			for (unsigned col = 0; col < 2 && !rc; col++) {
				if (nodes[i].self[col] == 0)
					continue;
				size_t n;
				if ((rc = fk_profile_path_ids(p, (uint32_t)i, &s->path, &s->path_cap, &n)))
					break;
				rc = emit(s, s->path, n, col, nodes[i].self[col], fn, ctx);
			}
		}
		return rc;
	}
	size_t ns;
	const fk_sample *smp = fk_profile_samples(p, &ns);
	double t0 = INFINITY;
	bool all_timed = true;
	for (size_t i = 0; i < ns; i++) {
		if (isnan(smp[i].time))
			all_timed = false;
		else if (smp[i].time < t0)
			t0 = smp[i].time;
	}
	double lo = -INFINITY, hi = INFINITY;
	bool range = has_range(s->o);
	/* Range seconds count from the start of the first sample's whole second
	 * and the end is exclusive, exactly as the heat map numbers its cells, so
	 * a range read off the heat map page selects the same samples here. */
	if (range && ns)
		t0 = fk_profile_time_origin(p);
	if (range) {
		if (!isnan(s->o->range_start))
			lo = t0 + s->o->range_start;
		if (!isnan(s->o->range_end))
			hi = t0 + s->o->range_end;
	}
	struct sample_ord *ord = NULL;
	if (sort_time && all_timed && ns) {
		ord = malloc(ns * sizeof(*ord));
		if (!ord)
			return -FK_E_NOMEM;
		for (size_t i = 0; i < ns; i++)
			ord[i] = (struct sample_ord){ smp[i].time, i };
		qsort(ord, ns, sizeof(*ord), cmp_sample_ord);
	}
	for (size_t k = 0; k < ns && !rc; k++) {
		const fk_sample *x = &smp[ord ? ord[k].i : k];
		if (range && (isnan(x->time) || x->time < lo || x->time >= hi))
			continue;
		size_t n;
		if ((rc = fk_profile_path_ids(p, x->node, &s->path, &s->path_cap, &n)))
			break;
		rc = emit(s, s->path, n, x->col, x->weight, fn, ctx);
	}
	free(ord);
	return rc;
}

/* ---- merged view of transformed stacks: a new profile */
typedef struct derive_ctx {
	const fk_profile *src;
	fk_profile *dst;
	uint32_t *map;     /* source name id -> dst id + 1 (0 = not interned yet) */
	uint32_t *ids;
	size_t cap;
} derive_ctx;

static int derive_emit(void *vctx, const uint32_t *ids, size_t n, unsigned col, double count)
{
	derive_ctx *d = vctx;
	if (FK_GROW(d->ids, d->cap, n + 1))
		return -FK_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		uint32_t id = ids[i];
		if (!d->map[id]) {
			size_t len;
			const char *s = fk_profile_name(d->src, id, &len);
			int64_t nid = fk_profile_intern(d->dst, s, len);
			if (nid < 0)
				return (int)nid;
			d->map[id] = (uint32_t)nid + 1;
		}
		d->ids[i] = d->map[id] - 1;
	}
	int64_t r = fk_profile_add_stack(d->dst, d->ids, n, col, count);
	return r < 0 ? (int)r : 0;
}

/* All stacks of the stream, transformed, into a new profile *out (set even on error). */
static int derive(stream *s, bool use_samples, fk_profile **out)
{
	derive_ctx d = { .src = s->p };
	*out = d.dst = fk_profile_new(0);
	d.map = calloc(fk_profile_name_count(s->p) + 1, sizeof(*d.map));
	int rc = !d.dst || !d.map ? -FK_E_NOMEM : for_each_stack(s, use_samples, false, derive_emit, &d);
	free(d.map);
	free(d.ids);
	return rc;
}

/* Per name id: 1 = the --focus function (with or without its annotation). */
static uint8_t *focus_table(const fk_profile *p, const char *fname)
{
	size_t nn = fk_profile_name_count(p), flen = strlen(fname);
	uint8_t *focus = calloc(nn ? nn : 1, 1);
	if (!focus)
		return NULL;
	for (size_t i = 1; i < nn; i++) {
		size_t len;
		const char *nm = fk_profile_name(p, (uint32_t)i, &len);
		size_t sl = fk_svg_strip_annotation(nm, len);
		focus[i] = (len == flen || sl == flen) && !memcmp(nm, fname, flen);
	}
	return focus;
}

int fk_svg_derive(const fk_profile *p, const fk_svg_opts *o, fk_profile **out)
{
	*out = NULL;
	bool range = has_range(o);
	if (!o->reverse && !o->focus && !range)
		return 0;
	size_t nsamples, timed = 0;
	const fk_sample *smp = fk_profile_samples(p, &nsamples);
	for (size_t i = 0; i < nsamples && !timed; i++)
		timed += !isnan(smp[i].time);
	if (range && !timed) {
		fk_warn("--range needs timestamped samples (perf script or flamekit samples input)");
		return -FK_E_INVAL;
	}
	stream s = { .p = p, .o = o };
	if (o->focus && !(s.focus = focus_table(p, o->focus)))
		return -FK_E_NOMEM;
	int rc = derive(&s, range, out);
	if (!rc && o->focus && s.emitted == 0) {
		fk_warn("--focus '%s': no stack contains that function", o->focus);
		rc = -FK_E_EMPTY;
	}
	if (rc) {
		fk_profile_free(*out);
		*out = NULL;
	}
	free(s.focus);
	free(s.path);
	free(s.rev);
	return rc;
}

/* ---- flame chart: stacks merged only with the previous one (time order) */
typedef struct chart {
	fk_node *nodes;
	double *starts;
	uint32_t *last_child;
	size_t n, cap, scap, lcap;
	uint32_t *open;        /* open[d] = node at depth d of the current stack */
	size_t nopen, ocap;
	double time;
	unsigned wcol;
} chart;

static int chart_node(chart *c, uint32_t parent, uint32_t frame)
{
	if (c->n >= UINT32_MAX - 1)
		return -FK_E_TOOBIG;
	if (FK_GROW(c->nodes, c->cap, c->n + 1) || FK_GROW(c->starts, c->scap, c->n + 1) ||
	    FK_GROW(c->last_child, c->lcap, c->n + 1))
		return -FK_E_NOMEM;
	uint32_t id = (uint32_t)c->n++;
	c->nodes[id] = (fk_node){ .parent = parent, .frame = frame, .first_child = FK_NONE,
				  .next_sibling = FK_NONE,
				  .depth = parent == FK_NONE ? 0 : c->nodes[parent].depth + 1 };
	c->starts[id] = c->time;
	c->last_child[id] = FK_NONE;
	if (parent != FK_NONE) {
		/* append: children stay in time order */
		if (c->last_child[parent] == FK_NONE)
			c->nodes[parent].first_child = id;
		else
			c->nodes[c->last_child[parent]].next_sibling = id;
		c->last_child[parent] = id;
	}
	return (int)id;
}

static int chart_emit(void *vctx, const uint32_t *ids, size_t n, unsigned col, double count)
{
	chart *c = vctx;
	size_t m = 0;
	while (m < n && m + 1 < c->nopen && c->nodes[c->open[m + 1]].frame == ids[m])
		m++;
	c->nopen = m + 1;
	if (FK_GROW(c->open, c->ocap, n + 1))
		return -FK_E_NOMEM;
	for (size_t i = m; i < n; i++) {
		int id = chart_node(c, c->open[c->nopen - 1], ids[i]);
		if (id < 0)
			return id;
		c->open[c->nopen++] = (uint32_t)id;
	}
	c->nodes[c->open[c->nopen - 1]].self[col] += count;
	if (col == c->wcol)
		c->time += count;
	return 0;
}

/* ------------------------------------------------------------------ layout */
/* Negative counts (which some inputs can carry) would draw a child wider than
 * its parent: they count as zero here. */
static inline double pos(double v) { return v > 0 ? v : 0; }

/* Inclusive counts of every node; children always come after their parent. */
static size_t tree_totals(const fk_node *nodes, size_t n, double *totals)
{
	size_t neg = 0;
	for (size_t i = 0; i < n; i++) {
		neg += nodes[i].self[0] < 0 || nodes[i].self[1] < 0;
		totals[2 * i] = pos(nodes[i].self[0]);
		totals[2 * i + 1] = pos(nodes[i].self[1]);
	}
	for (size_t i = n; i-- > 1;) {
		uint32_t par = nodes[i].parent;
		totals[2 * par] += totals[2 * i];
		totals[2 * par + 1] += totals[2 * i + 1];
	}
	return neg;
}

typedef struct tree {
	const fk_node *nodes;
	size_t n;
	double *totals;        /* 2 per node */
	uint8_t *offcpu;       /* per node: all of its time is off-CPU; NULL = no FK_OFFCPU_MARK */
	uint32_t markid;       /* name id of FK_OFFCPU_MARK */
	const double *starts;  /* flame chart: x of each node; NULL = pack children */
	const fk_profile *names;
} tree;

/* On/off-CPU graphs: mark the nodes whose whole time lies in stacks ending with
 * FK_OFFCPU_MARK (their own colour). Children come after their parent. */
static int offcpu_nodes(tree *t, unsigned col)
{
	int64_t mark = fk_profile_find_name(t->names, FK_OFFCPU_MARK, strlen(FK_OFFCPU_MARK));
	if (mark < 0)
		return 0;
	t->markid = (uint32_t)mark;
	double *off = calloc(t->n ? t->n : 1, sizeof(*off));
	t->offcpu = calloc(t->n ? t->n : 1, 1);
	if (!off || !t->offcpu) {
		free(off);
		return -FK_E_NOMEM;
	}
	for (size_t i = t->n; i-- > 0;) {
		if (t->nodes[i].frame == t->markid)
			off[i] = t->totals[2 * i + col];
		t->offcpu[i] = i > 0 && t->totals[2 * i + col] > 0 && off[i] >= t->totals[2 * i + col];
		if (i > 0)
			off[t->nodes[i].parent] += off[i];
	}
	free(off);
	return 0;
}

typedef struct kid {
	uint32_t node;
	uint32_t len;
	const char *name;
	double total;
} kid;

static int cmp_kid_name(const void *a, const void *b)
{
	const kid *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);
	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int cmp_kid_weight(const void *a, const void *b)
{
	const kid *x = a, *y = b;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return cmp_kid_name(a, b);
}

typedef struct pending {
	uint32_t node, parent_frame, flags;
	double x, rel;
} pending;

static int layout_tree(fk_svg_layout *L, const tree *t, const fk_svg_opts *o, unsigned col,
		       double minw)
{
	pending *stack = NULL;
	size_t sn = 0, scap = 0;
	kid *kids = NULL;
	size_t kcap = 0;
	int rc = 0;
	bool by_weight = o->sort == FK_SORT_WEIGHT && !t->starts;
	L->n = 0;
	L->depthmax = 0;
	if (FK_GROW(stack, scap, 1))
		return -FK_E_NOMEM;
	stack[sn++] = (pending){ 0, FK_NONE, 0, 0, 0 };
	while (sn) {
		pending pe = stack[--sn];
		uint32_t v = pe.node;
		const fk_node *nd = &t->nodes[v];
		if (FK_GROW(L->frames, L->cap, L->n + 1)) {
			rc = -FK_E_NOMEM;
			break;
		}
		uint32_t fi = (uint32_t)L->n++;
		double w = v == 0 ? L->timemax : t->totals[2 * v + col];
		double delta = 0;
		if (L->diff)
			delta = o->diff_mode == FK_DIFF_TOTAL ? t->totals[2 * v + 1] - t->totals[2 * v]
							      : pos(nd->self[1]) - pos(nd->self[0]);
		uint32_t fflags = pe.flags | (t->offcpu && t->offcpu[v] ? FK_SVGF_OFFCPU : 0);
		L->frames[fi] = (fk_svg_frame){ .name = nd->frame, .depth = nd->depth,
						.parent = pe.parent_frame, .flags = fflags,
						.x = pe.x, .rel = pe.rel, .w = w, .delta = delta };
		if (nd->depth > L->depthmax)
			L->depthmax = nd->depth;
		/* children: all of them take room (pruned ones leave a gap) */
		size_t nk = 0;
		for (uint32_t c = nd->first_child; c != FK_NONE; c = t->nodes[c].next_sibling) {
			double tw = t->totals[2 * c + col];
			if (!(tw > 0))
				continue;
			if (FK_GROW(kids, kcap, nk + 1)) {
				rc = -FK_E_NOMEM;
				goto out;
			}
			size_t len;
			const char *name = fk_profile_name(t->names, t->nodes[c].frame, &len);
			kids[nk++] = (kid){ c, (uint32_t)len, name, tw };
		}
		if (!nk)
			continue;
		if (!t->starts)
			qsort(kids, nk, sizeof(*kids), by_weight ? cmp_kid_weight : cmp_kid_name);
		size_t len;
		const char *myname = fk_profile_name(t->names, nd->frame, &len);
		uint32_t kflags = pe.flags | ((v != 0 && len == 2 && !memcmp(myname, "--", 2)) ? FK_SVGF_WAKER : 0);
		/* callees of an off-CPU mark (reversed graphs) are off-CPU too */
		if (t->offcpu && v != 0 && t->offcpu[v] && t->nodes[v].frame == t->markid)
			kflags |= FK_SVGF_OFFCPU;
		size_t push = 0;
		for (size_t k = 0; k < nk; k++)
			push += kids[k].total >= minw;
		if (FK_GROW(stack, scap, sn + push)) {
			rc = -FK_E_NOMEM;
			break;
		}
		/* positions in order, pushed in reverse so they pop in order */
		double acc = pos(nd->self[col]);
		size_t top = sn + push;
		for (size_t k = 0; k < nk; k++) {
			double rel = t->starts ? t->starts[kids[k].node] - t->starts[v] : acc;
			acc += kids[k].total;
			if (kids[k].total < minw)
				continue;
			stack[--top] = (pending){ kids[k].node, fi, kflags, pe.x + rel, rel };
		}
		sn += push;
	}
out:
	free(stack);
	free(kids);
	return rc;
}

static int cmp_double_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x > y ? -1 : x < y;
}

static size_t default_max_frames(void) { return 50000; }

int fk_svg_layout_build(fk_svg_layout *L, const fk_profile *p, const fk_svg_opts *o)
{
	memset(L, 0, sizeof(*L));
	L->names = p;
	L->diff = fk_profile_columns(p) > 1;
	unsigned col = L->diff ? 1 : 0;
	size_t nsamples, timed = 0;
	const fk_sample *smp = fk_profile_samples(p, &nsamples);
	for (size_t i = 0; i < nsamples && !timed; i++)
		timed += !isnan(smp[i].time);
	bool range = has_range(o);
	if (range && !timed) {
		fk_warn("--range needs timestamped samples (perf script or flamekit samples input)");
		return -FK_E_INVAL;
	}
	bool use_samples = range || (o->flamechart && nsamples > 0);
	L->full_total = fk_profile_total(p, col);

	stream s = { .p = p, .o = o };
	int rc = 0;
	tree t = { 0 };
	chart ch = { .wcol = col };
	uint8_t *focus = NULL;
	if (o->focus) {
		if (!(focus = focus_table(p, o->focus)))
			return -FK_E_NOMEM;
		s.focus = focus;
	}

	if (o->flamechart) {
		if ((rc = chart_node(&ch, FK_NONE, 0)) < 0)
			goto out;
		if (FK_GROW(ch.open, ch.ocap, 1)) {
			rc = -FK_E_NOMEM;
			goto out;
		}
		ch.open[0] = 0;
		ch.nopen = 1;
		if ((rc = for_each_stack(&s, use_samples, true, chart_emit, &ch)))
			goto out;
		t.nodes = ch.nodes;
		t.n = ch.n;
		t.starts = ch.starts;
		t.names = p;
	} else {
		const fk_profile *src = p;
		if (o->reverse || o->focus || range) {
			rc = derive(&s, use_samples, &L->owned);
			if (rc)
				goto out;
			src = L->owned;
		}
		t.nodes = fk_profile_nodes(src, &t.n);
		t.names = src;
	}
	t.totals = malloc(2 * t.n * sizeof(double));
	if (!t.totals) {
		rc = -FK_E_NOMEM;
		goto out;
	}
	size_t neg = tree_totals(t.nodes, t.n, t.totals);
	if (!L->diff && (rc = offcpu_nodes(&t, col)))
		goto out;
	if (neg)
		fk_warn("%zu stacks with negative counts drawn as 0", neg);
	L->names = t.names;
	if (o->focus && s.emitted == 0) {
		fk_warn("--focus '%s': no stack contains that function", o->focus);
		rc = -FK_E_EMPTY;
		goto out;
	}
	L->total = t.totals[col];
	if (!(L->total > 0)) {
		rc = -FK_E_EMPTY;
		goto out;
	}
	L->timemax = L->total;
	if (o->total > L->total) {
		L->timemax = o->total;
	} else if (o->total > 0 && o->total < L->total && o->total / L->total > 0.02) {
		char a[32], b[32];
		fk_format_count(a, sizeof(a), o->total);
		fk_format_count(b, sizeof(b), L->total);
		fk_warn("--total %s is less than the actual total %s, so ignored", a, b);
	}
	int width = o->width > 0 ? o->width : 1200;
	double widthpertime = (width - 2.0 * XPAD) / L->timemax;
	double minw = o->minwidth_pct ? L->timemax * o->minwidth / 100 : o->minwidth / widthpertime;
	if (!(minw > 0))
		minw = 0x1p-1074; /* zero-width frames are never drawn */
	L->maxdelta = 1;
	if (L->diff) {
		double m = 0;
		for (size_t i = 0; i < t.n; i++) {
			double d = o->diff_mode == FK_DIFF_TOTAL ? t.totals[2 * i + 1] - t.totals[2 * i]
								 : pos(t.nodes[i].self[1]) - pos(t.nodes[i].self[0]);
			if (fabs(d) > m)
				m = fabs(d);
		}
		/* flamegraph.pl starts its maximum at 1; kept for the self mode */
		if (o->diff_mode == FK_DIFF_TOTAL)
			L->maxdelta = m > 0 ? m : 1;
		else
			L->maxdelta = m > 1 ? m : 1;
	}
	if ((rc = layout_tree(L, &t, o, col, minw)))
		goto out;
	size_t maxf = o->max_frames ? o->max_frames : default_max_frames();
	if (maxf < 1)
		maxf = 1;
	if (L->n > maxf) {
		/* size guard: keep the widest frames; a child is never wider than its
		 * parent, so a width threshold keeps every kept frame's ancestors */
		size_t before = L->n;
		double *ws = malloc(L->n * sizeof(double));
		if (!ws) {
			rc = -FK_E_NOMEM;
			goto out;
		}
		for (size_t i = 0; i < L->n; i++)
			ws[i] = L->frames[i].w;
		qsort(ws, L->n, sizeof(double), cmp_double_desc);
		double th = ws[maxf - 1];
		size_t ge = maxf;
		while (ge < L->n && ws[ge] >= th)
			ge++;
		free(ws);
		if (ge > maxf)
			th = nextafter(th, INFINITY);
		if (th > minw)
			minw = th;
		if ((rc = layout_tree(L, &t, o, col, minw)))
			goto out;
		L->guard_dropped = before - L->n;
	}
	L->minw = minw;
out:
	free(focus);
	free(s.path);
	free(s.rev);
	free(t.totals);
	free(t.offcpu);
	free(ch.nodes);
	free(ch.starts);
	free(ch.last_child);
	free(ch.open);
	return rc;
}

void fk_svg_layout_free(fk_svg_layout *L)
{
	if (!L)
		return;
	free(L->frames);
	fk_profile_free(L->owned);
	L->frames = NULL;
	L->owned = NULL;
}

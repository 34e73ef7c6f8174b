/* svg-layout.c - which frames a flame graph draws and where: the merged call
 * tree (or a time-ordered flame chart), with --reverse, --focus and --range
 * applied, children ordered by name or weight, narrow frames merged into
 * their parents (minwidth and the max_frames size guard). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
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

struct each_ctx {
	stream *s;
	emit_fn fn;
	void *ctx;
};

static int each_stack(void *vctx, const uint32_t *ids, size_t n, const double self[2])
{
	struct each_ctx *e = vctx;
	int rc = 0;
	for (unsigned col = 0; col < 2 && !rc; col++)
		if (self[col] != 0)
			rc = emit(e->s, ids, n, col, self[col], e->fn, e->ctx);
	return rc;
}

/* Samples (in time order when sort_time and every sample has a time), or the
 * unique stacks (fk_profile_each_stack's order). */
static int for_each_stack(stream *s, bool use_samples, bool sort_time, emit_fn fn, void *ctx)
{
	const fk_profile *p = s->p;
	int rc = 0;
	if (!use_samples) {
		struct each_ctx e = { s, fn, ctx };
		return fk_profile_each_stack(p, each_stack, &e);
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
	return fk_profile_add_seq(d->dst, d->ids, n, col, count);
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
/* Room for `need` frames: past FK_RESERVE_FROM bytes, in a stretch of their own on huge
 * pages (written in order once, right after the walk or the read: 64 MB of perf text's 32k
 * frames took 560 faults in 4 KiB pages, the other thread idle). */
static int frames_room(fk_svg_layout *L, size_t need)
{
	return need <= L->cap ? 0
	       : fk_grow_reserved_from((void **)&L->frames, &L->cap, &L->reserved, need,
				       sizeof(*L->frames), 0);
}

/* Negative counts (which some inputs can carry) would draw a child wider than
 * its parent: they count as zero here. */
static inline double pos(double v) { return v > 0 ? v : 0; }

/* The width column: 0 or 1, or WCOL_MAX for a diff drawn with both sides (each stack as
 * wide as the larger of its two counts; the colour and the titles keep the real ones). */
#define WCOL_MAX 2u

/* A stack's (or node's) own width. */
static inline double own_width(const double self[2], unsigned col)
{
	if (col < WCOL_MAX)
		return pos(self[col]);
	return pos(self[0]) > pos(self[1]) ? pos(self[0]) : pos(self[1]);
}

/* Append a differential frame's real counts; its index goes into the frame. */
static int add_ab(fk_svg_layout *L, double delta, double before, double after, uint32_t *idx)
{
	if (L->nab >= UINT32_MAX)
		return -FK_E_TOOBIG;
	if (FK_GROW(L->ab, L->abcap, L->nab + 1))
		return -FK_E_NOMEM;
	*idx = (uint32_t)L->nab;
	L->ab[L->nab++] = (fk_svg_ab){ delta, before, after };
	return 0;
}

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
	size_t totals_cap, totals_res; /* (fk_grow_reserved_from: huge pages, as the frames) */
	double *wt;            /* WCOL_MAX: per node, own_width summed over its subtree */
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

static inline double tree_width(const tree *t, uint32_t v, unsigned col)
{
	return col < WCOL_MAX ? t->totals[2 * v + col] : t->wt[v];
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
	uint32_t node, flags;
	double x, rel;
} pending;

/* A layout of the tree's drawn frames into L, in pre-order, from the subtrees on its stack
 * of pending ones (each popped, its frame written, its drawn children pushed). */
typedef struct lay {
	fk_svg_layout *L;
	const tree *t;
	const fk_svg_opts *o;
	unsigned col;
	double minw;
	bool by_weight;
	pending *stack;
	size_t sn, scap;
	kid *kids;
	size_t kcap;
	int rc;
	size_t limit;       /* frames L may hold (a first part: the room made for all) */
	fk_svg_layout *dst; /* (a second part) the first's layout, where its frames end up */
	size_t drawn;       /* (a second part) the frames drawn in all */
	bool placed;        /* (a second part) its frames are at the end of dst's */
} lay;

enum { LAY_OVER = 1 }; /* (lay_step: L holds its limit already) */

/* The subtree on top of the stack: its frame, its children's places. 0, LAY_OVER or a
 * negative error. */
static int lay_step(lay *w)
{
	fk_svg_layout *L = w->L;
	const tree *t = w->t;
	const fk_svg_opts *o = w->o;
	if (L->n >= w->limit)
		return LAY_OVER;
	pending pe = w->stack[--w->sn];
	uint32_t v = pe.node;
	const fk_node *nd = &t->nodes[v];
	if (frames_room(L, L->n + 1))
		return -FK_E_NOMEM;
	uint32_t fi = (uint32_t)L->n++;
	double wd = v == 0 ? L->timemax : tree_width(t, v, w->col);
	uint32_t ab = 0;
	if (L->diff) {
		double delta = o->diff_mode == FK_DIFF_TOTAL ? t->totals[2 * v + 1] - t->totals[2 * v]
							     : pos(nd->self[1]) - pos(nd->self[0]);
		int rc = add_ab(L, delta, t->totals[2 * v], t->totals[2 * v + 1], &ab);
		if (rc)
			return rc;
	}
	uint32_t fflags = pe.flags | (t->offcpu && t->offcpu[v] ? FK_SVGF_OFFCPU : 0);
	L->frames[fi] = (fk_svg_frame){ .name = nd->frame, .depth = nd->depth,
					.flags = fflags, .ab = ab,
					.x = pe.x, .rel = pe.rel, .w = wd };
	if (nd->depth > L->depthmax)
		L->depthmax = nd->depth;
	/* children: all of them take room (pruned ones leave a gap) */
	size_t nk = 0;
	for (uint32_t c = nd->first_child; c != FK_NONE; c = t->nodes[c].next_sibling) {
		double tw = tree_width(t, c, w->col);
		if (!(tw > 0))
			continue;
		if (FK_GROW(w->kids, w->kcap, nk + 1))
			return -FK_E_NOMEM;
		size_t len;
		const char *name = fk_profile_name(t->names, t->nodes[c].frame, &len);
		w->kids[nk++] = (kid){ c, (uint32_t)len, name, tw };
	}
	if (!nk)
		return 0;
	kid *kids = w->kids;
	if (!t->starts)
		qsort(kids, nk, sizeof(*kids), w->by_weight ? cmp_kid_weight : cmp_kid_name);
	size_t len;
	const char *myname = fk_profile_name(t->names, nd->frame, &len);
	uint32_t kflags = pe.flags | ((v != 0 && len == 2 && !memcmp(myname, "--", 2)) ? FK_SVGF_WAKER : 0);
	/* callees of an off-CPU mark (reversed graphs) are off-CPU too */
	if (t->offcpu && v != 0 && t->offcpu[v] && t->nodes[v].frame == t->markid)
		kflags |= FK_SVGF_OFFCPU;
	size_t push = 0;
	for (size_t k = 0; k < nk; k++)
		push += kids[k].total >= w->minw;
	if (FK_GROW(w->stack, w->scap, w->sn + push))
		return -FK_E_NOMEM;
	/* positions in order, pushed in reverse so they pop in order */
	double acc = own_width(nd->self, w->col);
	size_t top = w->sn + push;
	for (size_t k = 0; k < nk; k++) {
		double rel = t->starts ? t->starts[kids[k].node] - t->starts[v] : acc;
		acc += kids[k].total;
		if (kids[k].total < w->minw)
			continue;
		w->stack[--top] = (pending){ kids[k].node, kflags, pe.x + rel, rel };
	}
	w->sn += push;
	return 0;
}

static void lay_all(lay *w)
{
	while (w->sn && !w->rc)
		w->rc = lay_step(w);
}

/* The second part: its frames laid out, then put where they end up, the last of all drawn
 * (every node as wide as minw is drawn, its parent being at least as wide: the first part
 * draws the rest), while the first part may still be laying out its own before them. */
static void *lay_second(void *arg)
{
	lay *w = arg;
	lay_all(w);
	fk_svg_layout *L = w->L, *dst = w->dst;
	if (w->rc || L->n > w->drawn)
		return NULL;
	uint32_t off = (uint32_t)(w->drawn - L->n);
	for (size_t i = 0; i < L->n; i++) {
		fk_svg_frame f = L->frames[i];
		if (L->diff)
			f.ab += off; /* (a differential frame has one each) */
		dst->frames[off + i] = f;
	}
	w->placed = true;
	return NULL;
}

/* Where the pending subtrees split into two parts of about equal width (the drawn frames
 * go with it): how many of the bottom of the stack (the last in pre-order) go to the
 * second part, or 0 where no split leaves each part between a third and two thirds. */
static size_t lay_cut(const lay *w)
{
	double all = 0;
	for (size_t k = 0; k < w->sn; k++)
		all += tree_width(w->t, w->stack[k].node, w->col);
	double acc = 0;
	for (size_t k = 0; k + 1 < w->sn; k++) {
		acc += tree_width(w->t, w->stack[k].node, w->col);
		if (acc >= all / 3)
			return acc <= all * 2 / 3 ? k + 1 : 0;
	}
	return 0;
}

enum { LAY_TWO_MIN = 16384, /* drawn frames, for two threads to pay */
       LAY_CUT_STEPS = 256 /* frames laid out before a cut is given up */ };

/* The drawn frames of the tree (wider than minw, and the root), in pre-order. two: the
 * pending subtrees may be cut into two parts, the second laid out by another thread
 * (where LAY_TWO_MIN frames or more are drawn, and a CPU is free): the same frames. */
static int layout_tree(fk_svg_layout *L, const tree *t, const fk_svg_opts *o, unsigned col,
		       double minw, bool two)
{
	lay w = { .L = L, .t = t, .o = o, .col = col, .minw = minw,
		  .by_weight = o->sort == FK_SORT_WEIGHT && !t->starts, .limit = SIZE_MAX };
	L->n = 0;
	L->nab = 0;
	L->depthmax = 0;
	/* room for the frames at least minw wide at once, no copies as they grow (a frame is
	 * never wider than its parent: exactly those are drawn, with the root) */
	size_t wide = 1;
	for (size_t v = 1; v < t->n; v++)
		wide += tree_width(t, (uint32_t)v, col) >= minw;
	if (frames_room(L, wide) || FK_GROW(w.stack, w.scap, 1))
		return -FK_E_NOMEM;
	w.stack[w.sn++] = (pending){ 0, 0, 0, 0 };
	if (two && wide >= LAY_TWO_MIN) {
		fk_looks looks;
		fk_looks_start(&looks, false);
		two = fk_looks_ask(&looks) == 1;
	} else {
		two = false;
	}
	/* (two parts: L's frames stay where they are, the second part's go after them) */
	if (two)
		w.limit = wide;
	fk_svg_layout L2 = { .diff = L->diff, .timemax = L->timemax };
	lay w2 = { .L = &L2, .t = t, .o = o, .col = col, .minw = minw, .by_weight = w.by_weight,
		   .limit = SIZE_MAX, .dst = L, .drawn = wide };
	pthread_t th;
	bool cut = false, spawned = false;
	int rc = 0;
	/* (the cuts looked at: pending subtrees summed, fewer than half the frames to draw) */
	size_t budget = wide / 2;
	for (size_t steps = 0; w.sn && !rc; steps++) {
		rc = lay_step(&w);
		size_t k = 0;
		if (!rc && two && !cut && steps < LAY_CUT_STEPS && w.sn > 1 && w.sn <= budget) {
			budget -= w.sn;
			k = lay_cut(&w);
		}
		if (!k)
			continue;
		/* the bottom k pending subtrees to the second part */
		if (FK_GROW(w2.stack, w2.scap, k) || frames_room(&L2, wide - L->n)) {
			rc = -FK_E_NOMEM;
			break;
		}
		memcpy(w2.stack, w.stack, k * sizeof(*w.stack));
		memmove(w.stack, w.stack + k, (w.sn - k) * sizeof(*w.stack));
		w2.sn = k;
		w.sn -= k;
		cut = true;
		spawned = fk_thread_start(&th, lay_second, &w2) == 0;
		fk_log(FK_LEVEL_DEBUG, "svg: frames laid out in two parts, the second from %zu pending "
		       "of %zu after %zu frames%s", k, k + w.sn, L->n, spawned ? "" : " (one thread)");
	}
	if (spawned)
		pthread_join(th, NULL);
	else if (cut && !rc)
		lay_second(&w2);
	bool again = rc == LAY_OVER;
	if (!rc)
		rc = w2.rc;
	if (!rc && cut) {
		/* the parts add up to all drawn, the second's frames placed after the first's;
		 * its differential counts (one per frame) go after the first's too */
		if (!w2.placed || L->n + L2.n != wide || (L->diff && (L->nab != L->n || L2.nab != L2.n)))
			again = true;
		else if (L2.nab && FK_GROW(L->ab, L->abcap, L->nab + L2.nab))
			rc = -FK_E_NOMEM;
		if (!rc && !again) {
			if (L2.nab)
				memcpy(L->ab + L->nab, L2.ab, L2.nab * sizeof(*L->ab));
			L->nab += L2.nab;
			L->n = wide;
			if (L2.depthmax > L->depthmax)
				L->depthmax = L2.depthmax;
		}
	}
	fk_free_reserved(L2.frames, L2.reserved);
	free(L2.ab);
	free(w.stack);
	free(w.kids);
	free(w2.stack);
	free(w2.kids);
	/* (never seen: the parts did not add up; one thread, no limit) */
	return again ? layout_tree(L, t, o, col, minw, false) : rc;
}

/* ---- the merged graph from the profile's walk (fk_profile_walk): no tree. A frame's x is
 * its parent's x plus what came before it there (the parent's own count, then its earlier
 * children); its width is known when it closes, and it is drawn when that is at least
 * minw (a child is never wider than its parent, so a drawn frame's parent is drawn).
 * Frames are kept in walk order (pre-order: the root's children sorted by name). */
struct wopen {
	uint32_t flags_in;  /* inherited from the parent */
	uint32_t kflags;    /* what its children inherit */
	double x, rel, acc; /* acc: own width and closed children's so far (col) */
	double tot[2];      /* positive counts below and at it, per column */
	double off;         /* of tot[col], what lies in off-CPU mark frames */
	double sdelta;      /* self delta */
	bool seam_child;    /* (a split walk's second part) its parent is a seam frame, or the root */
};

/* (a split walk's second part) A seam frame as the second part closed it: its frame's place
 * in the part's frames, and the part's own counts below it. */
struct seam_close {
	size_t at;
	uint32_t depth;
	double tot[2], off;
	double up_off;      /* what it gave its parent's off */
};

typedef struct wl {
	fk_svg_layout *L;
	const fk_svg_opts *o;
	unsigned col;       /* width column (or WCOL_MAX) */
	double minw, maxd;
	int64_t markid, dashid;
	bool offmark;       /* draw off-CPU frames (not a diff, and the mark exists) */
	struct wopen *op;
	size_t ocap, neg;
	/* a split walk (layout_walk; counted only where one may be made): the stacks' own
	 * widths so far, the root's too (the first part's: the second part's x start past
	 * them), and whether a count is not a whole number under 2^53 (the parts' sums could
	 * then differ from one walk's) */
	bool counted;
	double sum;
	bool inexact;
	/* the second part: the seam frames still open (depths 1..seam_top), as they closed,
	 * and its frames whose parent was a seam frame or the root (their rel made at the join) */
	bool second;
	uint32_t seam_top;
	struct seam_close *sc;
	size_t nsc, sccap;
	size_t *fix;
	size_t nfix, fixcap;
} wl;

/* (a split walk) The counts of a stack walked: its own width summed, and whether they are
 * whole numbers the parts' sums keep exact. */
static inline void wl_count(wl *w, const double self[2])
{
	if (!w->counted)
		return;
	w->sum += own_width(self, w->col);
	for (int c = 0; c < 2; c++)
		if (self[c] != floor(self[c]) || fabs(self[c]) >= 0x1p53)
			w->inexact = true;
}

/* The flags a frame's children inherit: its own (fin, inherited) and, for the "--" frame
 * and the off-CPU mark, what lies past them. */
static inline uint32_t wl_kflags(const wl *w, uint32_t fin, uint32_t frame)
{
	return fin | ((int64_t)frame == w->dashid ? FK_SVGF_WAKER : 0) |
	       (w->offmark && (int64_t)frame == w->markid ? FK_SVGF_OFFCPU : 0);
}

/* What a closed frame of width wd gives its parent's off-CPU time (the mark frame: all of
 * it; another: its off, from its children), and its flags as drawn: drawn off-CPU where
 * that is all of its time. */
static inline double wl_up_off(const wl *w, uint32_t frame, double wd, double off)
{
	return (int64_t)frame == w->markid ? wd : off;
}
static inline uint32_t wl_drawn_flags(const wl *w, uint32_t fin, double wd, double up_off)
{
	return fin | (w->offmark && wd > 0 && up_off >= wd ? FK_SVGF_OFFCPU : 0);
}

static int wl_open(void *vctx, uint32_t d, uint32_t frame, const double self[2])
{
	wl *w = vctx;
	if (FK_UNLIKELY(d >= w->ocap) && FK_GROW(w->op, w->ocap, (size_t)d + 1))
		return -FK_E_NOMEM;
	struct wopen *up = &w->op[d - 1], *me = &w->op[d];
	w->neg += self[0] < 0 || self[1] < 0;
	if (self[0] != 0 || self[1] != 0)
		wl_count(w, self);
	uint32_t fin = up->kflags;
	*me = (struct wopen){ .flags_in = fin, .x = up->x + up->acc, .rel = up->acc,
			      .acc = own_width(self, w->col), .tot = { pos(self[0]), pos(self[1]) },
			      .sdelta = pos(self[1]) - pos(self[0]),
			      .seam_child = w->second && d - 1 <= w->seam_top };
	me->kflags = wl_kflags(w, fin, frame);
	return 0;
}

/* ab: the frame's delta, before and after (a diff only) */
static int wl_keep(wl *w, uint32_t frame, uint32_t depth, uint32_t flags, double x, double rel,
		   double wd, const double ab[3])
{
	fk_svg_layout *L = w->L;
	if (frames_room(L, L->n + 1))
		return -FK_E_NOMEM;
	uint32_t abi = 0;
	int rc;
	if (L->diff && (rc = add_ab(L, ab[0], ab[1], ab[2], &abi)))
		return rc;
	L->frames[L->n] = (fk_svg_frame){ .name = frame, .depth = depth, .flags = flags, .ab = abi,
					  .x = x, .rel = rel, .w = wd };
	L->n++;
	return 0;
}

static int wl_close(void *vctx, uint32_t d, uint32_t frame, const double total[2])
{
	(void)total; /* the layout adds positive counts itself */
	wl *w = vctx;
	struct wopen *me = &w->op[d], *up = &w->op[d - 1];
	double wd = w->col < WCOL_MAX ? me->tot[w->col] : me->acc;
	double off = wl_up_off(w, frame, wd, me->off);
	double delta = w->o->diff_mode == FK_DIFF_TOTAL ? me->tot[1] - me->tot[0] : me->sdelta;
	if (fabs(delta) > w->maxd)
		w->maxd = fabs(delta);
	if (w->second && d <= w->seam_top) {
		/* a seam frame: drawn or not once the join has its first part's counts */
		static const double ab0[3] = { 0, 0, 0 };
		if (FK_GROW(w->sc, w->sccap, w->nsc + 1) || wl_keep(w, frame, d, 0, 0, 0, 0, ab0))
			return -FK_E_NOMEM;
		w->sc[w->nsc++] = (struct seam_close){ w->L->n - 1, d, { me->tot[0], me->tot[1] },
						       me->off, off };
		w->seam_top = d - 1;
	} else if (wd >= w->minw) {
		uint32_t fl = wl_drawn_flags(w, me->flags_in, wd, off);
		const double ab[3] = { delta, me->tot[0], me->tot[1] };
		int rc = wl_keep(w, frame, d, fl, me->x, me->rel, wd, ab);
		if (rc)
			return rc;
		if (me->seam_child) {
			if (FK_GROW(w->fix, w->fixcap, w->nfix + 1))
				return -FK_E_NOMEM;
			w->fix[w->nfix++] = w->L->n - 1;
		}
	}
	up->acc += wd;
	up->tot[0] += me->tot[0];
	up->tot[1] += me->tot[1];
	up->off += off;
	return 0;
}

/* A chain too narrow to draw (every frame's width is the stack's count) only adds to its
 * parent; one that could show, or whose frames carry a mark, is opened frame by frame. */
static int wl_chain(void *vctx, uint32_t d, const uint32_t *frames, uint32_t n, const double self[2])
{
	wl *w = vctx;
	double wd = own_width(self, w->col);
	bool plain = wd < w->minw && !w->L->diff;
	/* (no mark in the profile: no frame to look at; b-wide's wide shape, 210k chains of
	 * ~20 frames, took 5 ms to look) */
	for (uint32_t i = 0; plain && (w->markid >= 0 || w->dashid >= 0) && i < n; i++)
		plain = (int64_t)frames[i] != w->markid && (int64_t)frames[i] != w->dashid;
	if (plain) {
		struct wopen *up = &w->op[d - 1];
		wl_count(w, self);
		up->acc += wd;
		up->tot[0] += pos(self[0]);
		up->tot[1] += pos(self[1]);
		return 0;
	}
	static const double zero[2] = { 0, 0 };
	for (uint32_t i = 0; i < n; i++) {
		int rc = wl_open(w, d + i, frames[i], i + 1 == n ? self : zero);
		if (rc)
			return rc;
	}
	for (uint32_t i = n; i-- > 0;) {
		int rc = wl_close(w, d + i, frames[i], NULL);
		if (rc)
			return rc;
	}
	return 0;
}

/* Keep the frames at least minw wide (and the root), in order (the size guard on a walk's
 * frames too), and the depth of the deepest one kept (the graph's height: what the guard
 * dropped is not drawn). */
static void refilter(fk_svg_layout *L, double minw)
{
	size_t k = 0;
	uint32_t dmax = 0;
	for (size_t i = 0; i < L->n; i++) {
		fk_svg_frame f = L->frames[i];
		if (i && !(f.w >= minw))
			continue;
		L->frames[k++] = f;
		if (f.depth > dmax)
			dmax = f.depth;
	}
	L->n = k;
	L->depthmax = dmax;
}

/* Frames (the root first, then as they closed: post-order) into pre-order, in place: read
 * backwards, the closed frames come each before its descendants, its parent the last frame
 * met one level up, and siblings last to first, so each put first among its parent's
 * children lists them in order; a walk of those lists is the pre-order, and the frames
 * move along the permutation's cycles (no second copy of the frames: the layout's peak
 * memory; 12 bytes a frame, where the pre-order numbers of a radix sort took 32). */
static int wl_finish(wl *w, double minw)
{
	fk_svg_layout *L = w->L;
	size_t n = L->n;
	uint32_t *first = malloc((n ? n : 1) * sizeof(*first)), *next = malloc((n ? n : 1) * sizeof(*next));
	uint32_t *ord = malloc((n ? n : 1) * sizeof(*ord)), *up = NULL;
	int rc = -FK_E_NOMEM;
	uint32_t dmax = 0;
	for (size_t i = 0; i < n; i++)
		if (L->frames[i].depth > dmax)
			dmax = L->frames[i].depth;
	if (!first || !next || !ord || n > UINT32_MAX || !(up = malloc(((size_t)dmax + 1) * sizeof(*up))))
		goto out;
	for (size_t i = 0; i < n; i++)
		first[i] = FK_NONE;
	up[0] = 0; /* the root: frame 0 */
	for (size_t i = n; i-- > 1;) {
		uint32_t d = L->frames[i].depth, par = up[d - 1];
		next[i] = first[par];
		first[par] = (uint32_t)i;
		up[d] = (uint32_t)i;
	}
	/* the pre-order (up: the next sibling of each frame on the way down) */
	size_t k = 0, sp = 0;
	ord[k++] = 0;
	for (uint32_t v = n ? first[0] : FK_NONE; v != FK_NONE;) {
		ord[k++] = v;
		if (first[v] != FK_NONE) {
			up[sp++] = next[v];
			v = first[v];
			continue;
		}
		v = next[v];
		while (v == FK_NONE && sp)
			v = up[--sp];
	}
	/* place i takes frame ord[i]; each cycle once, ord[i] := i marks a place done */
	for (size_t i = 0; i < n; i++) {
		if (ord[i] == i)
			continue;
		fk_svg_frame f = L->frames[i];
		size_t j = i;
		while (ord[j] != i) {
			size_t from = ord[j];
			L->frames[j] = L->frames[from];
			ord[j] = (uint32_t)j;
			j = from;
		}
		L->frames[j] = f;
		ord[j] = (uint32_t)j;
	}
	L->depthmax = dmax;
	rc = 0;
out:
	free(first);
	free(next);
	free(ord);
	free(up);
	if (!rc)
		refilter(L, minw);
	return rc;
}

/* ---- the walk in two parts (fk_profile_walk_two): the second part starts with the seam's
 * frames open and no counts in them, its x from 0; at the join its x are moved past the
 * first part's stacks (their widths summed: the x one walk gives, with whole counts), the
 * seam frames made whole from both parts' counts (deepest first: what the second part gave
 * each one's parent lacks the first part's share of it), and its frames put after the
 * first part's, in the order one walk closes them (the seam frames where the second part
 * closed them). A count not a whole number (or the total past 2^53): declined. */
static void wl_begin(void *ctx2, const fk_walk_seam *seam)
{
	wl *b = ctx2;
	b->second = true;
	b->seam_top = seam->shared;
	if (FK_GROW(b->op, b->ocap, (size_t)seam->shared + 1)) {
		b->inexact = true; /* (out of memory: declined, walked again by the first thread) */
		b->seam_top = 0;
		return;
	}
	b->op[0] = (struct wopen){ 0 };
	for (uint32_t d = 1; d <= seam->shared; d++) {
		uint32_t fin = b->op[d - 1].kflags;
		b->op[d] = (struct wopen){ .flags_in = fin,
					   .kflags = wl_kflags(b, fin, seam->frames[d - 1]) };
	}
}

static int wl_join(void *ctx, void *ctx2, const fk_walk_seam *seam)
{
	wl *a = ctx, *b = ctx2;
	fk_svg_layout *L = a->L, *L2 = b->L;
	if (a->inexact || b->inexact || !(L->total < 0x1p53) || b->nsc != seam->shared)
		return 0;
	for (size_t i = 0; i < L2->n; i++)
		L2->frames[i].x += a->sum;
	for (size_t i = 0; i < b->nfix; i++) {
		fk_svg_frame *f = &L2->frames[b->fix[i]];
		f->rel = f->x - a->op[f->depth - 1].x;
	}
	/* the seam frames, deepest first */
	double more[2] = { 0, 0 }, more_off = 0;
	for (size_t i = 0; i < b->nsc; i++) {
		const struct seam_close *c = &b->sc[i];
		const struct wopen *me = &a->op[c->depth];
		fk_svg_frame *f = &L2->frames[c->at];
		double tot[2] = { me->tot[0] + c->tot[0] + more[0], me->tot[1] + c->tot[1] + more[1] };
		double wd = tot[a->col], off = me->off + c->off + more_off;
		double up_off = wl_up_off(a, f->name, wd, off);
		more[0] = tot[0] - c->tot[0];
		more[1] = tot[1] - c->tot[1];
		more_off = up_off - c->up_off;
		f->x = me->x;
		f->rel = me->rel;
		f->w = wd;
		f->flags = wl_drawn_flags(a, me->flags_in, wd, up_off);
		if (!(wd >= a->minw))
			f->depth = UINT32_MAX; /* (not drawn: dropped below) */
	}
	if (frames_room(L, L->n + L2->n))
		return -FK_E_NOMEM;
	for (size_t i = 0; i < L2->n; i++)
		if (L2->frames[i].depth != UINT32_MAX)
			L->frames[L->n++] = L2->frames[i];
	a->neg += b->neg;
	return 1;
}

static int layout_walk(fk_svg_layout *L, const fk_profile *src, const fk_svg_opts *o, unsigned col,
		       double minw)
{
	wl w = { .L = L, .o = o, .col = col, .minw = minw };
	w.markid = L->diff ? -1 : fk_profile_find_name(src, FK_OFFCPU_MARK, strlen(FK_OFFCPU_MARK));
	w.offmark = w.markid >= 0;
	w.dashid = fk_profile_find_name(src, "--", 2);
	double rs[2];
	fk_profile_root_self(src, rs);
	L->n = 0;
	int rc = -FK_E_NOMEM;
	if (FK_GROW(w.op, w.ocap, 64))
		goto out;
	w.op[0] = (struct wopen){ .acc = own_width(rs, col), .tot = { pos(rs[0]), pos(rs[1]) },
				  .sdelta = pos(rs[1]) - pos(rs[0]) };
	w.sum = own_width(rs, col);
	/* the root first (its width is the graph's), then the walk's frames */
	static const double ab0[3] = { 0, 0, 0 };
	L->nab = 0;
	if ((rc = wl_keep(&w, 0, 0, 0, 0, 0, L->timemax, ab0)))
		goto out;
	static const fk_walk_ops ops = { wl_open, wl_close, wl_chain };
	/* (two parts: not a diff, whose deltas and colour scale the parts would have to share) */
	fk_svg_layout L2 = { .timemax = L->timemax };
	bool two = !L->diff && col < WCOL_MAX && fk_profile_threads(src) >= 2;
	w.counted = two;
	wl w2 = { .L = &L2, .o = o, .col = col, .minw = minw, .markid = w.markid,
		  .dashid = w.dashid, .offmark = w.offmark, .counted = true };
	fk_walk_split sp = { &w2, wl_begin, NULL, wl_join };
	rc = fk_profile_walk_two(src, &ops, &w, two ? &sp : NULL);
	free(w2.op);
	free(w2.sc);
	free(w2.fix);
	fk_svg_layout_free(&L2);
	if (rc)
		goto out;
	double rdelta = o->diff_mode == FK_DIFF_TOTAL ? w.op[0].tot[1] - w.op[0].tot[0] : w.op[0].sdelta;
	if (fabs(rdelta) > w.maxd)
		w.maxd = fabs(rdelta);
	if (L->diff)
		L->ab[L->frames[0].ab] = (fk_svg_ab){ rdelta, w.op[0].tot[0], w.op[0].tot[1] };
	if (o->diff_mode == FK_DIFF_TOTAL)
		L->maxdelta = L->diff && w.maxd > 0 ? w.maxd : 1;
	else
		L->maxdelta = L->diff && w.maxd > 1 ? w.maxd : 1;
	rc = wl_finish(&w, minw);
out:
	free(w.op);
	return rc;
}

/* The k-th largest of a[0..n) (k from 0), a reordered: a selection (Hoare's partition
 * around a median of three), in linear time; sorting all the widths was 3 ms of drawing
 * 64 MB of folded stacks (100k frames). */
static double kth_largest(double *a, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
	while (lo < hi) {
		double x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi];
		double piv = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
		ptrdiff_t i = lo, j = hi;
		while (i <= j) {
			while (a[i] > piv)
				i++;
			while (a[j] < piv)
				j--;
			if (i <= j) {
				double t = a[i];
				a[i++] = a[j];
				a[j--] = t;
			}
		}
		/* [lo, j] >= piv >= [i, hi]; between them, equal to it */
		if (kk <= j)
			hi = j;
		else if (kk >= i)
			lo = i;
		else
			return a[kk];
	}
	return a[kk];
}

/* The most frames the size guard keeps (--max-frames; all: SIZE_MAX). */
static size_t max_frames(const fk_svg_opts *o) { return o->max_frames ? o->max_frames : 50000; }

/* The width past which max_frames frames are kept (the size guard): the widest ones; a
 * child is never wider than its parent, so a width threshold keeps every kept frame's
 * ancestors. 0 when the frames fit. */
static double guard_width(const fk_svg_layout *L, const fk_svg_opts *o, int *err)
{
	size_t maxf = max_frames(o);
	if (maxf < 1)
		maxf = 1;
	*err = 0;
	if (L->n <= maxf)
		return 0;
	double *ws = malloc(L->n * sizeof(double));
	if (!ws) {
		*err = -FK_E_NOMEM;
		return 0;
	}
	for (size_t i = 0; i < L->n; i++)
		ws[i] = L->frames[i].w;
	double th = kth_largest(ws, L->n, maxf - 1);
	size_t ge = 0;
	for (size_t i = 0; i < L->n; i++)
		ge += L->frames[i].w >= th;
	free(ws);
	return ge > maxf ? nextafter(th, INFINITY) : th;
}

static double minw_of(const fk_svg_layout *L, const fk_svg_opts *o)
{
	int width = o->width > 0 ? o->width : 1200;
	double widthpertime = (width - 2.0 * XPAD) / L->timemax;
	double minw = o->minwidth_pct ? L->timemax * o->minwidth / 100 : o->minwidth / widthpertime;
	return minw > 0 ? minw : 0x1p-1074; /* zero-width frames are never drawn */
}

static void set_timemax(fk_svg_layout *L, const fk_svg_opts *o)
{
	L->timemax = L->total;
	if (o->total > L->total) {
		L->timemax = o->total;
	} else if (o->total > 0 && o->total < L->total && o->total / L->total > 0.02) {
		char a[32], b[32];
		fk_format_count(a, sizeof(a), o->total);
		fk_format_count(b, sizeof(b), L->total);
		fk_warn("--total %s is less than the actual total %s, so ignored", a, b);
	}
}

/* The merged graph (any order but by weight, any view but the flame chart), from the walk. */
static int layout_merged(fk_svg_layout *L, const fk_profile *p, const fk_svg_opts *o, stream *s,
			 unsigned col, bool use_samples)
{
	const fk_profile *src = p;
	int rc;
	if (o->reverse || o->focus || has_range(o)) {
		if ((rc = derive(s, use_samples, &L->owned)))
			return rc;
		src = L->owned;
	}
	size_t neg;
	L->names = src;
	L->total = fk_profile_total_pos(src, col, &neg);
	if (neg)
		fk_warn("%zu stacks with negative counts drawn as 0", neg);
	if (o->focus && s->emitted == 0) {
		fk_warn("--focus '%s': no stack contains that function", o->focus);
		return -FK_E_EMPTY;
	}
	if (!(L->total > 0))
		return -FK_E_EMPTY;
	set_timemax(L, o);
	double minw = minw_of(L, o);
	if ((rc = layout_walk(L, src, o, col, minw)))
		return rc;
	double th = guard_width(L, o, &rc);
	if (rc)
		return rc;
	if (th > minw) {
		size_t before = L->n;
		minw = th;
		refilter(L, minw);
		L->guard_dropped = before - L->n;
	}
	L->minw = minw;
	return 0;
}

int fk_svg_layout_build(fk_svg_layout *L, const fk_profile *p, const fk_svg_opts *o)
{
	memset(L, 0, sizeof(*L));
	L->names = p;
	L->diff = fk_profile_columns(p) > 1;
	L->shape = L->diff ? o->diff_shape : FK_SHAPE_AFTER;
	if (!L->diff && o->diff_shape != FK_SHAPE_AFTER)
		fk_warn("--diff-shape %s: the profile has one column, not two (flamekit diff makes "
			"a differential profile): ignored", o->diff_shape == FK_SHAPE_BOTH ? "both" : "before");
	unsigned col = !L->diff ? 0 : L->shape == FK_SHAPE_BEFORE ? 0 : L->shape == FK_SHAPE_BOTH ? WCOL_MAX : 1;
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
	L->full_total = col < WCOL_MAX ? fk_profile_total(p, col) : fk_profile_total_pos(p, col, NULL);

	stream s = { .p = p, .o = o };
	int rc = 0;
	tree t = { 0 };
	chart ch = { .wcol = col }; /* not WCOL_MAX: fk_svg_opts_check refuses it */
	uint8_t *focus = NULL;
	if (o->focus) {
		if (!(focus = focus_table(p, o->focus)))
			return -FK_E_NOMEM;
		s.focus = focus;
	}

	/* the walk for stack mode, where a tree would be built for it, and views drawn from a
	 * derived profile (stack mode too); a tree's own view from the tree, narrow subtrees
	 * passed over (102k nodes, 29k frames drawn: 3.0 ms against 3.5) */
	if (!o->flamechart && o->sort != FK_SORT_WEIGHT &&
	    (!fk_profile_is_tree(p) || o->reverse || o->focus || range)) {
		rc = layout_merged(L, p, o, &s, col, use_samples);
		goto out;
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
		if (!(t.nodes = fk_profile_nodes(src, &t.n))) {
			rc = -FK_E_NOMEM;
			goto out;
		}
		t.names = src;
	}
	if (fk_grow_reserved_from((void **)&t.totals, &t.totals_cap, &t.totals_res, 2 * t.n + 2,
				  sizeof(double), 0)) {
		rc = -FK_E_NOMEM;
		goto out;
	}
	size_t neg = tree_totals(t.nodes, t.n, t.totals);
	if (col == WCOL_MAX) {
		if (!(t.wt = malloc((t.n ? t.n : 1) * sizeof(double)))) {
			rc = -FK_E_NOMEM;
			goto out;
		}
		for (size_t i = 0; i < t.n; i++)
			t.wt[i] = own_width(t.nodes[i].self, col);
		for (size_t i = t.n; i-- > 1;)
			t.wt[t.nodes[i].parent] += t.wt[i];
	}
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
	L->total = tree_width(&t, 0, col);
	if (!(L->total > 0)) {
		rc = -FK_E_EMPTY;
		goto out;
	}
	set_timemax(L, o);
	double minw = minw_of(L, o);
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
	bool two = fk_profile_threads(p) >= 2;
	if ((rc = layout_tree(L, &t, o, col, minw, two)))
		goto out;
	double th = guard_width(L, o, &rc);
	if (rc)
		goto out;
	if (th > 0) {
		/* size guard (see guard_width) */
		size_t before = L->n;
		if (th > minw)
			minw = th;
		if ((rc = layout_tree(L, &t, o, col, minw, two)))
			goto out;
		L->guard_dropped = before - L->n;
	}
	L->minw = minw;
out:
	free(focus);
	free(s.path);
	free(s.rev);
	fk_free_reserved(t.totals, t.totals_res);
	free(t.wt);
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
	fk_free_reserved(L->frames, L->reserved);
	free(L->ab);
	fk_profile_free(L->owned);
	L->frames = NULL;
	L->reserved = 0;
	L->ab = NULL;
	L->owned = NULL;
}

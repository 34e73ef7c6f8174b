/* gate.c - the regression gate: each function's share of its profile's total, before
 * against after, medians over several runs a side (flamekit diff --fail-above). The table
 * of changes it leaves is written by export/gate-report.c. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "internal.h"

/* One run: the functions it has, as (gate name id, share) sorted by id. */
typedef struct gate_run {
	uint32_t *id;
	double *incl, *self;
	size_t n;
} gate_run;

struct fk_gate {
	fk_gate_opts o;
	fk_profile *names;     /* interns every function of every run: the ids rows use */
	gate_run *runs[2];
	size_t nruns[2], cap[2];
	char *unit;            /* the first known unit, and the run that had it */
	char *unit_from;
	fk_gate_row *rows;
	size_t nrows, failed;
	char *hexbuf;          /* strip_hex's scratch */
	size_t hexcap;
};

void fk_gate_opts_init(fk_gate_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
	o->limit = 0.10;
	o->min_share = 0.01;
}

fk_gate *fk_gate_new(const fk_gate_opts *user)
{
	fk_gate_opts o;
	fk_gate_opts_init(&o);
	if (user)
		FK_OPTS_ADOPT(o, user);
	if (!isfinite(o.limit) || o.limit < 0 || !isfinite(o.min_share) || o.min_share < 0 ||
	    o.min_share > 1) {
		fk_warn("gate: the limit must be a finite number >= 0, the minimum share in [0, 1]");
		errno = EINVAL;
		return NULL;
	}
	fk_gate *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->o = o;
	g->o.sz = sizeof(o);
	if (!(g->names = fk_profile_new(0))) {
		free(g);
		return NULL;
	}
	return g;
}

static void run_free(gate_run *r)
{
	free(r->id);
	free(r->incl);
	free(r->self);
}

void fk_gate_free(fk_gate *g)
{
	if (!g)
		return;
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < g->nruns[s]; i++)
			run_free(&g->runs[s][i]);
		free(g->runs[s]);
	}
	fk_profile_free(g->names);
	free(g->unit);
	free(g->unit_from);
	free(g->rows);
	free(g->hexbuf);
	free(g);
}

/* ---- one run's functions: inclusive (each stack once per function, however often the
 * function recurses in it) and self (the stack's leaf), by the run's own name ids */
struct tally {
	double *incl, *self, total;
	uint64_t *stamp;   /* the stack a name was last counted for (1-based) */
	uint64_t stack;
};

static int tally_stack(void *ctx, const uint32_t *ids, size_t n, const double self[2])
{
	struct tally *t = ctx;
	double c = self[0];
	if (!(c > 0))
		return 0; /* a negative count (a diff's column) is no share of anything */
	t->total += c;
	if (!n)
		return 0;
	t->stack++;
	for (size_t k = 0; k < n; k++)
		if (t->stamp[ids[k]] != t->stack) {
			t->stamp[ids[k]] = t->stack;
			t->incl[ids[k]] += c;
		}
	t->self[ids[n - 1]] += c;
	return 0;
}

static int unit_check(fk_gate *g, const fk_profile *p, const char *name)
{
	const char *u = fk_profile_unit(p);
	if (!u)
		return 0;
	if (!g->unit) {
		g->unit = strdup(u);
		g->unit_from = strdup(name);
		return g->unit && g->unit_from ? 0 : -FK_E_NOMEM;
	}
	if (strcmp(u, g->unit)) {
		fk_warn("%s counts %s, %s counts %s: the sides must measure the same thing",
			g->unit_from, g->unit, name, u);
		return -FK_E_INVAL;
	}
	return 0;
}

/* 0x<hex> as "0x..." (diff.c's rule for names whose addresses moved between runs) */
static int gate_name(fk_gate *g, const char *s, size_t len, uint32_t *id)
{
	if (g->o.strip_hex && memmem(s, len, "0x", 2)) {
		if (FK_GROW(g->hexbuf, g->hexcap, len * 2 + 8))
			return -FK_E_NOMEM;
		len = fk_strip_hex(s, len, g->hexbuf);
		s = g->hexbuf;
	}
	int64_t r = fk_profile_intern(g->names, s, len);
	if (r < 0)
		return (int)r;
	*id = (uint32_t)r;
	return 0;
}

static int by_id(const void *a, const void *b, void *ctx)
{
	const uint32_t *id = ctx;
	uint32_t x = id[*(const uint32_t *)a], y = id[*(const uint32_t *)b];
	return (x > y) - (x < y);
}

int fk_gate_add(fk_gate *g, unsigned side, const fk_profile *p, const char *name)
{
	if (side > 1 || !p)
		return -FK_E_INVAL;
	int rc = unit_check(g, p, name ? name : "a profile");
	if (rc)
		return rc;
	size_t nn = fk_profile_name_count(p);
	struct tally t = { calloc(nn + 1, sizeof(double)), calloc(nn + 1, sizeof(double)), 0,
			   calloc(nn + 1, sizeof(uint64_t)), 0 };
	gate_run r = { 0 };
	uint32_t *ord = NULL, *gid = NULL;
	rc = -FK_E_NOMEM;
	if (!t.incl || !t.self || !t.stamp)
		goto out;
	if ((rc = fk_profile_each_stack(p, tally_stack, &t)))
		goto out;
	if (!(t.total > 0)) {
		fk_warn("%s: no stacks with a positive count", name ? name : "a profile");
		rc = -FK_E_EMPTY;
		goto out;
	}
	/* the run's functions under the gate's ids; names that strip_hex makes equal add up */
	size_t m = 0;
	for (size_t i = 1; i < nn; i++)
		m += t.incl[i] > 0;
	ord = malloc((m + 1) * sizeof(*ord));
	gid = malloc((m + 1) * sizeof(*gid));
	r.id = malloc((m + 1) * sizeof(*r.id));
	r.incl = malloc((m + 1) * sizeof(double));
	r.self = malloc((m + 1) * sizeof(double));
	rc = -FK_E_NOMEM;
	if (!ord || !gid || !r.id || !r.incl || !r.self)
		goto out;
	size_t k = 0;
	for (size_t i = 1; i < nn; i++) {
		if (!(t.incl[i] > 0))
			continue;
		size_t len;
		const char *s = fk_profile_name(p, (uint32_t)i, &len);
		if ((rc = gate_name(g, s, len, &gid[k])))
			goto out;
		ord[k] = (uint32_t)i;
		k++;
	}
	uint32_t *pos = malloc((m + 1) * sizeof(*pos));
	rc = -FK_E_NOMEM;
	if (!pos)
		goto out;
	for (size_t i = 0; i < m; i++)
		pos[i] = (uint32_t)i;
	qsort_r(pos, m, sizeof(*pos), by_id, gid);
	for (size_t i = 0; i < m; i++) {
		uint32_t src = ord[pos[i]], id = gid[pos[i]];
		double in = t.incl[src] / t.total, se = t.self[src] / t.total;
		if (r.n && r.id[r.n - 1] == id) {
			/* two names blanked to one: self adds up; inclusive can only be bounded,
			 * a stack through both would count twice: keep it within the whole */
			r.incl[r.n - 1] = fmin(1.0, r.incl[r.n - 1] + in);
			r.self[r.n - 1] += se;
			continue;
		}
		r.id[r.n] = id;
		r.incl[r.n] = in;
		r.self[r.n] = se;
		r.n++;
	}
	free(pos);
	rc = -FK_E_NOMEM;
	if (FK_GROW(g->runs[side], g->cap[side], g->nruns[side] + 1))
		goto out;
	g->runs[side][g->nruns[side]++] = r;
	r = (gate_run){ 0 };
	free(g->rows);
	g->rows = NULL;
	g->nrows = g->failed = 0;
	rc = 0;
out:
	run_free(&r);
	free(t.incl);
	free(t.self);
	free(t.stamp);
	free(ord);
	free(gid);
	return rc;
}

/* ---- the comparison */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted here); the mean of the two middle ones for even n. */
static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each side's medians, function by function: a cursor per run walks its sorted ids. */
static int side_medians(fk_gate *g, int s, size_t nn, double *med, bool *seen)
{
	size_t R = g->nruns[s];
	size_t *cur = calloc(R, sizeof(*cur));
	double *v = malloc(R * sizeof(*v));
	if (!cur || !v) {
		free(cur);
		free(v);
		return -FK_E_NOMEM;
	}
	for (size_t id = 0; id < nn; id++) {
		bool any = false;
		for (size_t r = 0; r < R; r++) {
			const gate_run *run = &g->runs[s][r];
			if (cur[r] < run->n && run->id[cur[r]] == id) {
				v[r] = g->o.self ? run->self[cur[r]] : run->incl[cur[r]];
				cur[r]++;
				any = true;
			} else {
				v[r] = 0;
			}
		}
		seen[id] = any;
		med[id] = any ? median(v, R) : 0;
	}
	free(cur);
	free(v);
	return 0;
}

static int row_order(const void *a, const void *b)
{
	const fk_gate_row *x = a, *y = b;
	if (x->over != y->over)
		return x->over ? -1 : 1;
	double dx = fabs(x->after - x->before), dy = fabs(y->after - y->before);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return fk_bytes_cmp(x->name, x->len, y->name, y->len);
}

static bool grew_past(const fk_gate_opts *o, double before, double after)
{
	if (o->points)
		return 100 * (after - before) > o->limit;
	return before > 0 ? after / before - 1 > o->limit : after > 0;
}

const fk_gate_row *fk_gate_rows(fk_gate *g, size_t *n)
{
	*n = 0;
	if (!g->nruns[0] || !g->nruns[1]) {
		errno = EINVAL;
		return NULL;
	}
	if (g->rows) {
		*n = g->nrows;
		return g->rows;
	}
	size_t nn = fk_profile_name_count(g->names);
	double *med[2] = { malloc((nn + 1) * sizeof(double)), malloc((nn + 1) * sizeof(double)) };
	bool *seen[2] = { malloc(nn + 1), malloc(nn + 1) };
	g->rows = malloc((nn + 1) * sizeof(*g->rows));
	int rc = -FK_E_NOMEM;
	if (med[0] && med[1] && seen[0] && seen[1] && g->rows &&
	    !(rc = side_medians(g, 0, nn, med[0], seen[0])))
		rc = side_medians(g, 1, nn, med[1], seen[1]);
	if (rc) {
		free(g->rows);
		g->rows = NULL;
	} else {
		size_t k = 0;
		g->failed = 0;
		for (size_t id = 1; id < nn; id++) {
			double b = med[0][id], a = med[1][id];
			bool judged = fmax(a, b) >= g->o.min_share && fmax(a, b) > 0;
			if (!judged)
				continue;
			fk_gate_row *row = &g->rows[k++];
			row->name = fk_profile_name(g->names, (uint32_t)id, &row->len);
			row->before = b;
			row->after = a;
			/* "only before/after" by the medians: a function in one run of three is noise */
			row->change = a <= 0 ? FK_GATE_REMOVED : b <= 0 ? FK_GATE_NEW : FK_GATE_SAME;
			row->over = row->change != FK_GATE_REMOVED && grew_past(&g->o, b, a);
			if (row->over && row->change == FK_GATE_SAME)
				row->change = FK_GATE_OVER;
			g->failed += row->over;
		}
		g->nrows = k;
		qsort(g->rows, k, sizeof(*g->rows), row_order);
	}
	for (int s = 0; s < 2; s++) {
		free(med[s]);
		free(seen[s]);
	}
	if (rc) {
		errno = ENOMEM;
		return NULL;
	}
	*n = g->nrows;
	return g->rows;
}

size_t fk_gate_failed(const fk_gate *g)
{
	return g->failed;
}

const fk_gate_opts *fk_gate_state(const fk_gate *g, size_t runs[2], const char **unit)
{
	runs[0] = g->nruns[0];
	runs[1] = g->nruns[1];
	*unit = g->unit;
	return &g->o;
}

/* walk.c - fk_profile_walk: the merged call tree in pre-order, siblings by name, with each
 * node's inclusive counts at its close. Renderers and writers draw from this walk, so it is
 * the one place that orders siblings. */
#include <stdlib.h>
#include "model.h"

/* Sibling order: the names' bytes, a prefix before what extends it. */
static int cmp_child(const void *a, const void *b, void *ctx)
{
	const fk_profile *p = ctx;
	const struct name_ent *x = &p->names[p->nodes[*(const uint32_t *)a].frame];
	const struct name_ent *y = &p->names[p->nodes[*(const uint32_t *)b].frame];
	return fk_bytes_cmp(p->str + x->off, x->len, p->str + y->off, y->len);
}

struct lvl {
	size_t start, next, end; /* the sibling group: kids[start..end), next unvisited */
	uint32_t node;
	double total[2];
};

/* Tree mode: a depth-first walk with each sibling group sorted as it is entered. */
static int walk_tree(const fk_profile *p, const fk_walk_ops *ops, void *ctx)
{
	uint32_t *kids = NULL;
	size_t nkids = 0, kcap = 0;
	struct lvl *lv = NULL;
	size_t nlv = 0, lcap = 0;
	int rc = 0;
	uint32_t v = 0;
	for (;;) {
		/* enter v: open it, push its children */
		const fk_node *nd = &p->nodes[v];
		if (v && ops->open && (rc = ops->open(ctx, nd->depth, nd->frame, nd->self)))
			goto out;
		if (FK_GROW(lv, lcap, nlv + 1)) {
			rc = -FK_E_NOMEM;
			goto out;
		}
		size_t start = nkids;
		for (uint32_t c = nd->first_child; c != FK_NONE; c = p->nodes[c].next_sibling) {
			if (FK_GROW(kids, kcap, nkids + 1)) {
				rc = -FK_E_NOMEM;
				goto out;
			}
			kids[nkids++] = c;
		}
		if (nkids - start > 1)
			qsort_r(kids + start, nkids - start, sizeof(*kids), cmp_child, (void *)p);
		lv[nlv++] = (struct lvl){ start, start, nkids, v, { nd->self[0], nd->self[1] } };
		/* next: the first unvisited child up the stack, closing finished levels */
		for (;;) {
			struct lvl *L = &lv[nlv - 1];
			if (L->next < L->end) {
				v = kids[L->next++];
				break;
			}
			const fk_node *ln = &p->nodes[L->node];
			if (L->node && ops->close && (rc = ops->close(ctx, ln->depth, ln->frame, L->total)))
				goto out;
			nkids = L->start; /* drop this group */
			double t0 = L->total[0], t1 = L->total[1];
			nlv--;
			if (!nlv)
				goto out;
			lv[nlv - 1].total[0] += t0;
			lv[nlv - 1].total[1] += t1;
		}
	}
out:
	free(kids);
	free(lv);
	return rc;
}

int fk_profile_walk(const fk_profile *p, const fk_walk_ops *ops, void *ctx)
{
	return fk_profile_walk_two(p, ops, ctx, NULL);
}

int fk_profile_walk_split(const fk_profile *p, const fk_walk_ops *ops, void *ctx, const fk_walk_split *sp,
			  uint32_t **rank)
{
	*rank = NULL;
	int rc = p->nstk ? fk_stacks_walk(p, ops, ctx, sp, rank) : walk_tree(p, ops, ctx);
	if (!rc && !*rank && !(*rank = fk_profile_name_ranks(p)))
		rc = -FK_E_NOMEM;
	return rc;
}

int fk_profile_walk_two(const fk_profile *p, const fk_walk_ops *ops, void *ctx, const fk_walk_split *sp)
{
	return p->nstk ? fk_stacks_walk(p, ops, ctx, sp, NULL) : walk_tree(p, ops, ctx);
}

int fk_profile_walk_ranked(const fk_profile *p, const fk_walk_ops *ops, void *ctx, uint32_t **rank)
{
	return fk_profile_walk_split(p, ops, ctx, NULL, rank);
}

void fk_profile_root_self(const fk_profile *p, double self[2])
{
	/* stack mode keeps the root without counts (stacks of no frame make a tree) */
	self[0] = p->nstk ? 0 : p->nodes[0].self[0];
	self[1] = p->nstk ? 0 : p->nodes[0].self[1];
}

static inline double pos(double v) { return v > 0 ? v : 0; }

/* A stack's positive count in col, or (col 2) the larger of its two. */
static inline double col_pos(const double self[2], unsigned col)
{
	if (col < 2)
		return pos(self[col]);
	return pos(self[0]) > pos(self[1]) ? pos(self[0]) : pos(self[1]);
}

double fk_profile_total_pos(const fk_profile *p, unsigned col, size_t *neg)
{
	double t = 0;
	size_t ng = 0;
	for (size_t i = 0; i < p->nstk; i++) {
		t += col_pos(p->stk[i].self, col);
		ng += p->stk[i].self[0] < 0 || p->stk[i].self[1] < 0;
	}
	for (size_t i = 0; i < p->nnodes; i++) {
		t += col_pos(p->nodes[i].self, col);
		ng += p->nodes[i].self[0] < 0 || p->nodes[i].self[1] < 0;
	}
	if (neg)
		*neg = ng;
	return t;
}

int fk_profile_each_stack(const fk_profile *p,
			  int (*fn)(void *ctx, const uint32_t *ids, size_t n, const double self[2]),
			  void *ctx)
{
	int rc = 0;
	for (size_t i = 0; i < p->nstk && !rc; i++) {
		const struct stk *s = &p->stk[i];
		if (s->self[0] != 0 || s->self[1] != 0)
			rc = fn(ctx, p->sid + s->off, s->len, s->self);
	}
	if (p->nstk || rc)
		return rc;
	uint32_t *ids = NULL;
	size_t cap = 0, n;
	for (size_t i = 0; i < p->nnodes && !rc; i++) {
		if (p->nodes[i].self[0] == 0 && p->nodes[i].self[1] == 0)
			continue;
		if (!(rc = fk_profile_path_ids(p, (uint32_t)i, &ids, &cap, &n)))
			rc = fn(ctx, ids, n, p->nodes[i].self);
	}
	free(ids);
	return rc;
}

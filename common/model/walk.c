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
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(p->str + x->off, p->str + y->off, n);
	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
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
	return p->nstk ? fk_stacks_walk(p, ops, ctx) : walk_tree(p, ops, ctx);
}

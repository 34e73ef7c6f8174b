/* write.c - the profile's text outputs: folded stacks (sorted bytewise by stack
 * text, as stackcollapse-*.pl and sort(1) give them) and timestamped samples,
 * both through the one buffered writer of base/out.c. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "base/out.h"

/* ---- folded output, sorted bytewise by stack text.
 * Depth-first over the tree with each sibling group sorted. A node that has
 * both its own count and children gives two entries: its own line sorts as
 * the bare name, its subtree as name + ';'. Comparing names with those
 * virtual terminators orders every line exactly as a bytewise sort of the
 * whole stack texts would (e.g. "a;b" < "a;b.c" < "a;b;x"), without building
 * all the strings at once. */
struct entry {
	uint32_t node;
	int own;        /* 1: the node's own line, 0: its subtree */
};

static int entry_cmp(const void *a, const void *b, void *ctx)
{
	const fk_profile *sort_p = ctx;
	const struct entry *x = a, *y = b;
	const struct name_ent *nx = &sort_p->names[sort_p->nodes[x->node].frame];
	const struct name_ent *ny = &sort_p->names[sort_p->nodes[y->node].frame];
	size_t lx = nx->len, ly = ny->len, l = lx < ly ? lx : ly;
	int c = memcmp(sort_p->str + nx->off, sort_p->str + ny->off, l);
	if (c)
		return c;
	/* Virtual next character: -1 (end) for an own line, ';' for a subtree. */
	int cx = lx > l ? (unsigned char)sort_p->str[nx->off + l] : (x->own ? -1 : ';');
	int cy = ly > l ? (unsigned char)sort_p->str[ny->off + l] : (y->own ? -1 : ';');
	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return x->own != y->own ? (x->own ? -1 : 1) : 0;
}

/* Push the entries of parent's children (sorted) onto ents. */
static int push_group(const fk_profile *p, uint32_t parent, struct entry **ents, size_t *nents,
		      size_t *cap)
{
	size_t start = *nents;
	for (uint32_t c = p->nodes[parent].first_child; c != FK_NONE; c = p->nodes[c].next_sibling) {
		bool has_self = p->nodes[c].self[0] != 0 || p->nodes[c].self[1] != 0;
		bool has_kids = p->nodes[c].first_child != FK_NONE;
		if (FK_GROW(*ents, *cap, *nents + 2))
			return -FK_E_NOMEM;
		if (has_self)
			(*ents)[(*nents)++] = (struct entry){ c, 1 };
		if (has_kids)
			(*ents)[(*nents)++] = (struct entry){ c, 0 };
	}
	if (*nents - start > 1) /* most groups of a deep tree hold one entry */
		qsort_r(*ents + start, *nents - start, sizeof(**ents), entry_cmp, (void *)p);
	return 0;
}

/* Stack mode: the stacks sorted by their text, each line's text kept from the line before
 * up to the frames they share. */
static int write_folded_stacks(const fk_profile *p, fk_obuf *o)
{
	size_t ns = p->nstk;
	uint32_t *ord = malloc((ns ? ns : 1) * sizeof(*ord));
	size_t *end = NULL, ecap = 0;   /* end of each frame's text in path */
	char *path = NULL;
	size_t pcap = 0;
	int err = ord ? fk_stacks_sorted(p, FK_ORDER_TEXT, ord, NULL) : -FK_E_NOMEM;
	const uint32_t *prev = NULL;
	uint32_t prevn = 0;
	for (size_t k = 0; k < ns && !err; k++) {
		/* names are read at random (many distinct names are misses): the entries of the
		 * stack 8 ahead, then the text of the one 4 ahead, are fetched meanwhile */
		if (k + 8 < ns) {
			const struct stk *a = &p->stk[ord[k + 8]];
			for (uint32_t j = 0; j < a->len; j++)
				__builtin_prefetch(&p->names[p->sid[a->off + j]]);
		}
		if (k + 4 < ns) {
			const struct stk *a = &p->stk[ord[k + 4]];
			for (uint32_t j = 0; j < a->len; j++)
				__builtin_prefetch(p->str + p->names[p->sid[a->off + j]].off);
		}
		const struct stk *s = &p->stk[ord[k]];
		if (s->self[0] == 0 && s->self[1] == 0)
			continue;
		const uint32_t *q = p->sid + s->off;
		uint32_t n = s->len, l = 0, lim = n < prevn ? n : prevn;
		while (l < lim && q[l] == prev[l])
			l++;
		if (FK_GROW(end, ecap, n)) {
			err = -FK_E_NOMEM;
			break;
		}
		size_t pl = l ? end[l - 1] : 0;
		for (uint32_t j = l; j < n; j++) {
			const struct name_ent *ne = &p->names[q[j]];
			if (FK_GROW(path, pcap, pl + ne->len + 1)) {
				err = -FK_E_NOMEM;
				goto out;
			}
			if (j)
				path[pl++] = ';';
			memcpy(path + pl, p->str + ne->off, ne->len);
			pl += ne->len;
			end[j] = pl;
		}
		fk_obuf_put(o, path, pl);
		fk_obuf_counts(o, s->self, p->ncols);
		if (o->err)
			err = o->err;
		prev = q;
		prevn = n;
	}
out:
	free(ord);
	free(end);
	free(path);
	return err;
}

int fk_profile_write_folded(const fk_profile *p, FILE *f)
{
	fk_obuf o;
	struct entry *ents = NULL;         /* stack of sibling groups */
	size_t nents = 0, ents_cap = 0;
	struct level { size_t start, next, end, pathlen; } *lv = NULL;
	size_t nlv = 0, lv_cap = 0;
	char *path = NULL;
	size_t path_cap = 0;
	int err = 0;

	if (fk_obuf_init(&o, f))
		return -FK_E_NOMEM;
	if (p->nstk) {
		err = write_folded_stacks(p, &o);
		if (!err)
			err = fk_obuf_finish(&o);
		goto out;
	}
	/* Open the root's group, then walk down. */
	uint32_t parent = 0;
	size_t pathlen = 0;
	for (;;) {
		size_t start = nents;
		if ((err = push_group(p, parent, &ents, &nents, &ents_cap)))
			goto out;
		if (FK_GROW(lv, lv_cap, nlv + 1)) {
			err = -FK_E_NOMEM;
			goto out;
		}
		lv[nlv++] = (struct level){ start, start, nents, pathlen };
		/* Walk groups until one entry needs descending. */
		for (;;) {
			if (!nlv)
				goto done;
			struct level *L = &lv[nlv - 1];
			if (L->next == L->end) {
				nents = L->start;
				nlv--;
				continue;
			}
			struct entry e = ents[L->next++];
			const struct name_ent *ne = &p->names[p->nodes[e.node].frame];
			size_t base = L->pathlen;
			if (FK_GROW(path, path_cap, base + ne->len + 2)) {
				err = -FK_E_NOMEM;
				goto out;
			}
			size_t pl = base;
			if (nlv > 1) /* below a root frame (whose name may be empty) */
				path[pl++] = ';';
			memcpy(path + pl, p->str + ne->off, ne->len);
			pl += ne->len;
			if (e.own) {
				fk_obuf_put(&o, path, pl);
				fk_obuf_counts(&o, p->nodes[e.node].self, p->ncols);
				if (o.err) {
					err = o.err;
					goto out;
				}
				continue;
			}
			/* Down a chain (one child, no count of its own: most of a deep tree) no
			 * group needs sorting or a level of its own. */
			for (;;) {
				uint32_t d = p->nodes[e.node].first_child;
				const fk_node *dn = &p->nodes[d];
				/* a chain's nodes usually follow each other: fetch those further
				 * on meanwhile, in three steps (the node, its name's entry, the
				 * name), each from what the step before fetched earlier */
				if (d + 16 < p->nnodes) {
					__builtin_prefetch(&dn[16]);
					__builtin_prefetch(&p->names[dn[8].frame]);
					__builtin_prefetch(p->str + p->names[dn[4].frame].off);
				}
				if (dn->next_sibling != FK_NONE || dn->first_child == FK_NONE ||
				    dn->self[0] != 0 || dn->self[1] != 0)
					break;
				ne = &p->names[dn->frame];
				if (FK_GROW(path, path_cap, pl + ne->len + 2)) {
					err = -FK_E_NOMEM;
					goto out;
				}
				path[pl++] = ';';
				memcpy(path + pl, p->str + ne->off, ne->len);
				pl += ne->len;
				e.node = d;
			}
			parent = e.node;
			pathlen = pl;
			break;
		}
	}
done:
	err = fk_obuf_finish(&o);
out:
	fk_obuf_free(&o);
	free(ents);
	free(lv);
	free(path);
	return err;
}

int fk_profile_write_samples(const fk_profile *p, FILE *f)
{
	if (!(p->flags & FK_PROFILE_SAMPLES))
		return -FK_E_INVAL;
	fk_obuf o;
	char *path = NULL;
	size_t path_cap = 0, plen = 0;
	uint32_t cached = FK_NONE;
	int err = 0;
	if (fk_obuf_init(&o, f))
		return -FK_E_NOMEM;
	static const char hdr[] = "# flamekit samples v1\n"
				  "# time\tpid\ttid\tcpu\tcomm\tweight\tstack\n";
	fk_obuf_put(&o, hdr, sizeof(hdr) - 1);
	for (size_t i = 0; i < p->nsamples && !o.err; i++) {
		const fk_sample *s = &p->samples[i];
		char head[160];
		int k;
		if (isnan(s->time))
			k = snprintf(head, sizeof(head), "-\t");
		else
			k = snprintf(head, sizeof(head), "%.9f\t", s->time);
		k += snprintf(head + k, sizeof(head) - (size_t)k, "%d\t%d\t%d\t", s->pid, s->tid, s->cpu);
		fk_obuf_put(&o, head, (size_t)k);
		size_t cl;
		const char *comm = fk_profile_name(p, s->comm, &cl);
		for (size_t j = 0; j < cl; j++) {
			char ch = comm[j];
			if (ch == '\t' || ch == '\n' || ch == '\r')
				ch = ' ';
			fk_obuf_put(&o, &ch, 1);
		}
		char num[40];
		num[0] = '\t';
		k = fk_format_count(num + 1, sizeof(num) - 2, s->weight);
		num[k + 1] = '\t';
		fk_obuf_put(&o, num, (size_t)k + 2);
		if (s->node != cached) {
			if ((err = fk_profile_path_text(p, s->node, &path, &path_cap, &plen)))
				break;
			cached = s->node;
		}
		fk_obuf_put(&o, path, plen);
		fk_obuf_put(&o, "\n", 1);
	}
	if (fk_obuf_finish(&o) && !err)
		err = o.err;
	free(path);
	return err;
}

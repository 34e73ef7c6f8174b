/* build.c - bulk tree building: a parser that gathers its unique stacks first (the perf
 * script parser) adds them to the tree in one sorted pass, or merges a second thread's stacks
 * along the first's. The shortcuts rest on the tree's invariants, which stay in the model. */
#include <stdlib.h>
#include "model.h"

static int stack_cmp(const void *a, const void *b, void *arg)
{
	const fk_seqs *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const uint32_t *p = c->ids + c->off[x], *q = c->ids + c->off[y];
	uint32_t n = c->len[x] < c->len[y] ? c->len[x] : c->len[y];
	for (uint32_t i = 0; i < n; i++)
		if (p[i] != q[i])
			return p[i] < q[i] ? -1 : 1;
	return (c->len[x] > c->len[y]) - (c->len[x] < c->len[y]);
}

/* Sort ord[0..ns) by the id sequences (ids + off[x], len[x] ids) in stack_cmp's order,
 * all of which share their first d ids. Most-significant first: ids d..d+2 (+1, 21 bits
 * each; 0 past the end) make a 63-bit key, sorted by radix (11 bits a pass); runs of
 * equal keys go one level deeper; small runs are compared whole. */
static void sort_seqs_at(uint32_t *ord, size_t ns, const fk_seqs *sc, uint32_t d, uint64_t *key,
			 uint64_t *k2, uint32_t *tmp)
{
	if (ns < 64) {
		qsort_r(ord, ns, sizeof(*ord), stack_cmp, (void *)sc);
		return;
	}
	for (size_t i = 0; i < ns; i++) {
		uint32_t x = ord[i], n = sc->len[x];
		const uint32_t *q = sc->ids + sc->off[x];
		uint64_t k = 0;
		for (uint32_t j = d; j < d + 3; j++) {
			uint64_t v = j < n ? (uint64_t)q[j] + 1 : 0;
			if (v >= 1u << 21) { /* ids past 2^21 - 2: compare whole */
				qsort_r(ord, ns, sizeof(*ord), stack_cmp, (void *)sc);
				return;
			}
			k = k << 21 | v;
		}
		key[i] = k;
	}
	fk_radix64(key, ord, ns, 63, k2, tmp);
	for (size_t i = 0; i < ns;) {
		size_t j = i + 1;
		while (j < ns && key[j] == key[i])
			j++;
		/* equal keys with the last id present: they go on past d + 3 */
		if (j - i > 1 && (key[i] & ((1u << 21) - 1)))
			sort_seqs_at(ord + i, j - i, sc, d + 3, key + i, k2 + i, tmp + i);
		i = j;
	}
}

void fk_seqs_sort(const fk_seqs *s, uint32_t *ord)
{
	size_t ns = s->n;
	for (size_t i = 0; i < ns; i++)
		ord[i] = (uint32_t)i;
	uint64_t *key = malloc(2 * ns * sizeof(*key));
	uint32_t *tmp = malloc(ns * sizeof(*tmp));
	if (key && tmp)
		sort_seqs_at(ord, ns, s, 0, key, key + ns, tmp);
	else
		qsort_r(ord, ns, sizeof(*ord), stack_cmp, (void *)s);
	free(key);
	free(tmp);
}

int fk_profile_build(fk_profile *p, const fk_seqs *s, const uint32_t *ord, const uint32_t *fmap,
		     uint32_t *leaf, uint32_t *path_out)
{
	size_t ns = s->n;
	const uint64_t *off = s->off;
	const uint32_t *len = s->len;
	uint32_t *path = NULL;
	size_t path_cap = 0;
	/* In sorted order the nodes a stack adds are those past its common prefix with the one
	 * before: reserve them all. */
	const uint32_t *prev = NULL;
	uint32_t prevn = 0;
	size_t total = 0;
	for (size_t i = 0; i < ns; i++) {
		uint32_t x = ord[i], n = len[x], l = 0;
		const uint32_t *seq = s->ids + off[x];
		while (prev && l < n && l < prevn && seq[l] == prev[l])
			l++;
		total += n - l;
		prev = seq;
		prevn = n;
	}
	int rc = fk_profile_reserve_nodes(p, total);
	if (rc)
		return rc;
	prev = NULL;
	prevn = 0;
	for (size_t i = 0; i < ns; i++) {
		uint32_t x = ord[i], n = len[x];
		const uint32_t *seq = s->ids + off[x];
		if (FK_GROW(path, path_cap, n)) {
			rc = -FK_E_NOMEM;
			goto out;
		}
		uint32_t l = 0;
		while (prev && l < n && l < prevn && seq[l] == prev[l])
			l++;
		/* In sorted order no node this loop adds can be the child looked up here (the
		 * stacks sharing a prefix are contiguous), so only nodes that were there before
		 * are searched, and new ones are not indexed one by one. */
		for (uint32_t k = l; k < n; k++) {
			int64_t c = fk_profile_child_unindexed(p, k ? path[k - 1] : 0,
							       fmap ? fmap[seq[k]] : seq[k]);
			if (c < 0) {
				rc = (int)c;
				goto out;
			}
			path[k] = (uint32_t)c;
			size_t nn;
			fk_profile_nodes(p, &nn);
			if (!fmap && (size_t)c == nn - 1) {
				/* a new node: all below it are new too, appended as a chain */
				if ((rc = fk_profile_append_chain(p, (uint32_t)c, seq + k + 1, n - k - 1,
								  path + k + 1)))
					goto out;
				break;
			}
		}
		leaf[x] = path[n - 1];
		if (path_out)
			memcpy(path_out + off[x], path, n * sizeof(*path));
		prev = seq;
		prevn = n;
	}
out:
	free(path);
	return rc;
}

int fk_profile_index(fk_profile *p)
{
	return fk_profile_reserve_nodes(p, 0);
}

/* Order of two id sequences, and the length of their common prefix in *lcp. */
static int seq_cmp(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb, uint32_t *lcp)
{
	uint32_t n = na < nb ? na : nb, i = 0;
	while (i < n && a[i] == b[i])
		i++;
	*lcp = i;
	if (i < n)
		return a[i] < b[i] ? -1 : 1;
	return (na > nb) - (na < nb);
}

/* The new stacks, mapped to the tree's ids and sorted, are walked along base's sorted ones;
 * the longest prefix a new stack shares with the tree is the one it shares with its
 * neighbour before or after it in that order (base's, or the new stack added just before),
 * and the nodes of that prefix are the neighbour's leaf and its parents. Only the rest is
 * created. */
struct fk_merge_plan {
	uint32_t *ids;   /* the stacks in the tree's ids (same offsets as the input's) */
	uint32_t *ord;   /* the stacks sorted */
	uint32_t *from;  /* per ord entry: base's equal stack, or the base stack to copy the
			  * prefix from, or UINT32_MAX (the prefix is the previous new stack's) */
	uint32_t *plen;  /* per ord entry: UINT32_MAX when equal to from, else the prefix length */
	uint64_t *soff;  /* per ord entry: the stack's offset in ids (read in order when applied) */
	uint32_t *slen;  /* per ord entry: its length */
	size_t n;        /* stacks */
	size_t nnew;     /* nodes the merge adds */
};

void fk_merge_plan_free(fk_merge_plan *m)
{
	if (!m)
		return;
	free(m->ids);
	free(m->ord);
	free(m->from);
	free(m->plen);
	free(m->soff);
	free(m->slen);
	free(m);
}

fk_merge_plan *fk_merge_plan_new(const fk_seqs *s, const uint32_t *fmap, const fk_seqs *base,
				 const uint32_t *base_ord, int *err)
{
	size_t ns = s->n, nids = s->nids;
	fk_merge_plan *m = calloc(1, sizeof(*m));
	if (!m) {
		*err = -FK_E_NOMEM;
		return NULL;
	}
	m->n = ns;
	m->ids = malloc((nids ? nids : 1) * sizeof(*m->ids));
	m->ord = malloc((ns ? ns : 1) * sizeof(*m->ord));
	m->from = malloc((ns ? ns : 1) * sizeof(*m->from));
	m->plen = malloc((ns ? ns : 1) * sizeof(*m->plen));
	m->soff = malloc((ns ? ns : 1) * sizeof(*m->soff));
	m->slen = malloc((ns ? ns : 1) * sizeof(*m->slen));
	if (!m->ids || !m->ord || !m->from || !m->plen || !m->soff || !m->slen) {
		fk_merge_plan_free(m);
		*err = -FK_E_NOMEM;
		return NULL;
	}
	for (size_t i = 0; i < nids; i++)
		m->ids[i] = fmap[s->ids[i]];
	fk_seqs mapped = { m->ids, nids, s->off, s->len, ns };
	fk_seqs_sort(&mapped, m->ord);
	const uint32_t *bord = base_ord, *blen = base->len;
	const uint64_t *boff = base->off;
	size_t bi = 0, bn = base->n;
	const uint32_t *prev = NULL; /* the last new stack */
	uint32_t prevn = 0;
	for (size_t j = 0; j < ns; j++) {
		uint32_t x = m->ord[j], n = s->len[x], lq = 0, lp = 0, lv = 0;
		const uint32_t *seq = m->ids + s->off[x];
		m->soff[j] = s->off[x];
		m->slen[j] = n;
		int c = 1;
		while (bi < bn && (c = seq_cmp(base->ids + boff[bord[bi]], blen[bord[bi]], seq, n, &lq)) < 0)
			bi++;
		if (bi < bn && c == 0) {
			m->from[j] = bord[bi];
			m->plen[j] = UINT32_MAX;
			continue;
		}
		if (bi == bn)
			lq = 0;
		if (bi > 0)
			seq_cmp(base->ids + boff[bord[bi - 1]], blen[bord[bi - 1]], seq, n, &lp);
		if (prev)
			seq_cmp(prev, prevn, seq, n, &lv);
		if (lp > lv || lq > lv) {
			m->from[j] = lp >= lq ? bord[bi - 1] : bord[bi];
			m->plen[j] = lp >= lq ? lp : lq;
		} else {
			m->from[j] = UINT32_MAX;
			m->plen[j] = lv;
		}
		m->nnew += n - m->plen[j];
		prev = seq;
		prevn = n;
	}
	return m;
}

int fk_merge_plan_apply(const fk_merge_plan *m, fk_profile *p, const fk_seqs *base, const uint32_t *base_leaf,
			const uint32_t *base_path, uint32_t *leaf)
{
	size_t path_cap = 0;
	uint32_t *path = NULL;
	int rc = fk_profile_grow_nodes(p, m->nnew);
	for (size_t j = 0; j < m->n && !rc; j++) {
		uint32_t x = m->ord[j], n = m->slen[j], y = m->from[j], l = m->plen[j];
		if (l == UINT32_MAX) {
			leaf[x] = base_leaf[y];
			continue;
		}
		const uint32_t *seq = m->ids + m->soff[j];
		if (FK_GROW(path, path_cap, n)) {
			rc = -FK_E_NOMEM;
			break;
		}
		/* the nodes of the prefix: a base neighbour's (else path[] still holds the
		 * previous new stack's) */
		if (y != UINT32_MAX)
			memcpy(path, base_path + base->off[y], l * sizeof(*path));
		/* none of the rest exists (l is the longest prefix the tree has) */
		if ((rc = fk_profile_append_chain(p, l ? path[l - 1] : 0, seq + l, n - l, path + l)))
			break;
		leaf[x] = path[n - 1];
	}
	free(path);
	return rc;
}

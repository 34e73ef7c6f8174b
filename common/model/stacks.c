/* stacks.c - stack mode: a profile held as its unique stacks (4 bytes per frame, the counts
 * per stack, deduplicated by a hash of the id sequence) rather than a tree. Walks and the
 * folded writer sort the stacks (names ranked once, then a radix sort of rank sequences)
 * and sweep them: a frame opens where a stack leaves the previous one and closes when a
 * later one leaves it, so only the open path is kept. The tree is built only for callers
 * that ask for nodes. */
#include <stdlib.h>
#include "model.h"

bool fk_profile_takes_seqs(const fk_profile *p)
{
	return p->nstk > 0 || (p->nnodes == 1 && p->nodes[0].self[0] == 0 &&
			       p->nodes[0].self[1] == 0 && !(p->flags & FK_PROFILE_SAMPLES));
}

void fk_stacks_drop_index(fk_profile *p)
{
	fk_zfree(p->stk_tab, p->stk_tab_mask + 1, sizeof(*p->stk_tab));
	p->stk_tab = NULL;
	p->stk_tab_mask = 0;
}

void fk_stacks_free(fk_profile *p)
{
	fk_free_reserved(p->sid, p->sid_reserved);
	fk_free_reserved(p->stk, p->stk_reserved);
	fk_stacks_drop_index(p);
	p->sid = NULL;
	p->stk = NULL;
	p->nsid = p->sid_cap = p->sid_reserved = p->nstk = p->stk_cap = p->stk_reserved = 0;
}

static uint64_t seq_hash(const fk_profile *p, const uint32_t *ids, size_t n)
{
	uint64_t h = FK_SEQ_SEED;
	for (size_t i = 0; i < n; i++)
		h = fk_seq_step(h, p->names[ids[i]].hash);
	return fk_seq_hash(h, n);
}

void fk_profile_seq_prefetch(const fk_profile *p, uint64_t hash)
{
	if (p->stk_tab)
		__builtin_prefetch(&p->stk_tab[(uint32_t)hash & p->stk_tab_mask]);
}

static int stk_tab_grow(fk_profile *p, size_t size)
{
	uint64_t *tab = fk_zalloc_by(size, sizeof(*tab), &p->toucher);
	if (!tab)
		return -FK_E_NOMEM;
	/* a slot's home is the hash's low bits, which the slot holds: the stacks themselves
	 * (at random in memory) are read only past 2^32 slots */
	bool low = size - 1 <= UINT32_MAX;
	for (size_t k = 0; p->stk_tab && k <= p->stk_tab_mask; k++) {
		uint64_t v = p->stk_tab[k];
		if (!v)
			continue;
		uint64_t h = low ? v >> 32 : (uint64_t)p->stk[(uint32_t)v - 1].hash << 32 | (v >> 32);
		size_t i = h & (size - 1);
		while (tab[i])
			i = (i + 1) & (size - 1);
		tab[i] = v;
	}
	fk_zfree(p->stk_tab, p->stk_tab_mask + 1, sizeof(*tab));
	p->stk_tab = tab;
	p->stk_tab_mask = size - 1;
	return 0;
}

int fk_profile_add_seq(fk_profile *p, const uint32_t *ids, size_t n, unsigned col, double count)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] >= p->nnames)
			return -FK_E_INVAL;
	return fk_profile_add_seq_h(p, ids, n, col, count, seq_hash(p, ids, n));
}

int fk_profile_add_seq_h(fk_profile *p, const uint32_t *ids, size_t n, unsigned col, double count,
			 uint64_t h)
{
	if (!n || !fk_profile_takes_seqs(p)) {
		int64_t r = fk_profile_add_stack(p, ids, n, col, count);
		return r < 0 ? (int)r : 0;
	}
	if (col > 1 || p->sealed)
		return -FK_E_INVAL;
	if (!p->stk_tab && stk_tab_grow(p, 1024))
		return -FK_E_NOMEM;
	uint32_t lo = (uint32_t)h, hi = (uint32_t)(h >> 32);
	size_t i = lo & p->stk_tab_mask;
	for (uint64_t v; (v = p->stk_tab[i]); i = (i + 1) & p->stk_tab_mask) {
		if ((uint32_t)(v >> 32) != lo)
			continue;
		struct stk *s = &p->stk[(uint32_t)v - 1];
		if (s->hash == hi && s->len == n && !memcmp(p->sid + s->off, ids, n * sizeof(*ids))) {
			s->self[col] += count;
			if (col == 1)
				p->ncols = 2;
			return 0;
		}
	}
	if (n > UINT32_MAX || p->nstk >= UINT32_MAX - 1)
		return -FK_E_TOOBIG;
	if (FK_GROW_RESERVED(p->sid, p->sid_cap, p->sid_reserved, p->nsid + n) ||
	    FK_GROW_RESERVED(p->stk, p->stk_cap, p->stk_reserved, p->nstk + 1))
		return -FK_E_NOMEM;
	memcpy(p->sid + p->nsid, ids, n * sizeof(*ids));
	struct stk *s = &p->stk[p->nstk];
	*s = (struct stk){ .off = p->nsid, .len = (uint32_t)n, .hash = hi };
	s->self[col] += count; /* as a tree node's count starts: 0 + -0 is 0 */
	if (col == 1)
		p->ncols = 2;
	p->nsid += n;
	p->stk_tab[i] = (uint64_t)lo << 32 | (p->nstk + 1);
	p->nstk++;
	if (p->nstk * 2 > p->stk_tab_mask + 1)
		return stk_tab_grow(p, (p->stk_tab_mask + 1) * 2);
	return 0;
}

int fk_model_tree(fk_profile *p)
{
	if (!p->nstk)
		return 0;
	size_t ns = p->nstk;
	uint64_t *off = malloc(ns * sizeof(*off));
	uint32_t *len = malloc(ns * sizeof(*len)), *ord = malloc(ns * sizeof(*ord));
	uint32_t *leaf = malloc(ns * sizeof(*leaf));
	int rc = -FK_E_NOMEM;
	if (off && len && ord && leaf) {
		for (size_t i = 0; i < ns; i++) {
			off[i] = p->stk[i].off;
			len[i] = p->stk[i].len;
		}
		fk_seqs s = { .ids = p->sid, .nids = p->nsid, .off = off, .len = len, .n = ns };
		fk_seqs_sort(&s, ord);
		/* the stacks leave first: the tree's calls see a profile in tree mode */
		struct stk *stk = p->stk;
		uint32_t *sid = p->sid;
		size_t stk_res = p->stk_reserved, sid_res = p->sid_reserved;
		p->stk = NULL;
		p->sid = NULL;
		p->stk_reserved = p->sid_reserved = 0; /* (theirs now: freed below) */
		fk_stacks_free(p);
		s.ids = sid;
		rc = fk_profile_build(p, &s, ord, NULL, leaf, NULL);
		for (size_t i = 0; !rc && i < ns; i++) {
			p->nodes[leaf[i]].self[0] += stk[i].self[0];
			p->nodes[leaf[i]].self[1] += stk[i].self[1];
		}
		fk_free_reserved(stk, stk_res);
		fk_free_reserved(sid, sid_res);
	}
	free(off);
	free(len);
	free(ord);
	free(leaf);
	return rc;
}

/* ---- ranking names: every name (FK_ORDER_NAME), or every name as a stack's last frame and
 * as one that goes on (FK_ORDER_TEXT: entry 2 * id + last), gets its place in the order. */
struct rank_ctx {
	const fk_profile *p;
	int order;
	size_t n;       /* entries in all */
	fk_looks *looks; /* for a CPU free for a level's second half (asked level by level) */
};

/* The entry's text from byte `at` on, 8 bytes big-endian, zero past its end; in FK_ORDER_TEXT
 * an entry that goes on has ';' after its name. Keys that differ order their entries. */
static uint64_t entry_key(const fk_profile *p, int order, uint32_t e, size_t at)
{
	uint32_t id = order == FK_ORDER_TEXT ? e >> 1 : e;
	const struct name_ent *ne = &p->names[id];
	const unsigned char *s = (const unsigned char *)p->str + ne->off;
	size_t len = ne->len;
	uint64_t k = 0;
	if (at + 8 <= len) {
		memcpy(&k, s + at, 8);
		return __builtin_bswap64(k);
	}
	for (size_t i = at; i < len; i++)
		k |= (uint64_t)s[i] << (56 - 8 * (i - at));
	if (order == FK_ORDER_TEXT && !(e & 1) && len >= at)
		k |= (uint64_t)';' << (56 - 8 * (len - at));
	return k;
}

/* Whether the entry's text (its ';' too) ends before byte at + 8: its later keys are 0. */
static bool entry_ends(const fk_profile *p, int order, uint32_t e, size_t at)
{
	size_t len = p->names[order == FK_ORDER_TEXT ? e >> 1 : e].len;
	return len + (order == FK_ORDER_TEXT && !(e & 1)) <= at + 8;
}

static int entry_cmp(const void *a, const void *b, void *arg)
{
	const struct rank_ctx *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	bool text = c->order == FK_ORDER_TEXT;
	const struct name_ent *nx = &c->p->names[text ? x >> 1 : x];
	const struct name_ent *ny = &c->p->names[text ? y >> 1 : y];
	const char *sx = c->p->str + nx->off, *sy = c->p->str + ny->off;
	size_t lx = nx->len, ly = ny->len, l = lx < ly ? lx : ly;
	if (!text)
		return fk_bytes_cmp(sx, lx, sy, ly);
	int r = memcmp(sx, sy, l);
	if (r)
		return r;
	/* the virtual next character: none (-1) for a last frame, ';' for one that goes on */
	int cx = lx > l ? (unsigned char)sx[l] : (x & 1 ? -1 : ';');
	int cy = ly > l ? (unsigned char)sy[l] : (y & 1 ? -1 : ';');
	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return (int)(x & 1) > (int)(y & 1) ? -1 : (x & 1) != (y & 1);
}

/* A stretch ord[at .. at + len) whose entries have equal keys so far. */
struct run {
	uint32_t at, len;
};

/* ord[i..j) by key[i..j), stably: radix passes, or insertion for a few (not a comparison
 * of all their bytes again). k2 and tmp: scratch of j - i. */
static void sort_run(uint32_t *ord, uint64_t *key, size_t i, size_t j, uint64_t *k2, uint32_t *tmp)
{
	if (j - i > 16) {
		fk_radix64(key + i, ord + i, j - i, 64, k2, tmp);
		return;
	}
	for (size_t k = i + 1; k < j; k++) {
		uint64_t kk = key[k];
		uint32_t o = ord[k];
		size_t q = k;
		for (; q > i && key[q - 1] > kk; q--) {
			key[q] = key[q - 1];
			ord[q] = ord[q - 1];
		}
		key[q] = kk;
		ord[q] = o;
	}
}

/* One level's work on its runs, in steps, each in two parts or in pieces (done by two
 * threads at once where the profile may use them): the key at byte `at` of every entry
 * ord[k] of the runs, then each run sorted by them. Entries come in key order, at random in memory; when the
 * runs hold many of them (names after the shared bytes of a namespace, level by level),
 * every entry's key is first taken in id order, where the names lie one after another, into
 * byid (k2, scratch of c->n), and each run picks its own from there. */
struct level {
	const struct rank_ctx *c;
	uint32_t *ord, *tmp;
	uint64_t *key, *k2;
	const struct run *runs;
	size_t nruns;
	size_t cut, mid;     /* the keys of entries before place mid are part 0's, the others
			      * part 1's: run cut holds mid (cut == nruns: none) */
	size_t giant;        /* a run sorted by both threads at once, not by a part (SIZE_MAX: none) */
	size_t at;
	bool byid;
	const uint8_t *mark; /* byid: only the entries marked stamp are in runs (NULL: all) */
	uint8_t stamp;
	int step;            /* 0: keys by id; 1: each run's keys; 2: each run sorted */
};

/* Steps 0 and 2 in pieces (fk_run2_pieces): the keys by id of entries [from, to), or runs
 * [from, to) sorted. */
static void level_piece(void *arg, size_t from, size_t to)
{
	struct level *l = arg;
	const struct rank_ctx *c = l->c;
	if (l->step == 0) {
		size_t e = from;
		if (l->mark) {
			for (; e < to; e++)
				if (l->mark[e] == l->stamp)
					l->k2[e] = entry_key(c->p, c->order, (uint32_t)e, l->at);
			return;
		}
		for (; e < to; e++)
			l->k2[e] = entry_key(c->p, c->order, (uint32_t)e, l->at);
		return;
	}
	for (size_t r = from; r < to; r++) {
		size_t i = l->runs[r].at, j = i + l->runs[r].len;
		/* (each run's scratch is its own stretch of k2 and tmp) */
		if (r != l->giant)
			sort_run(l->ord, l->key, i, j, l->k2 + i, l->tmp + i);
	}
}

/* Step 1 in two parts (a run may be cut: see struct level). */
static void level_part(void *arg, unsigned part)
{
	struct level *l = arg;
	const struct rank_ctx *c = l->c;
	const fk_profile *p = c->p;
	unsigned sh = c->order == FK_ORDER_TEXT;
	/* the keys: each entry's own, so a run may be cut (a run of most of the entries, a
	 * namespace's names, was part 0's alone: 0.4 ms of jvm's levels, the other waiting) */
	size_t r0 = part ? l->cut : 0, r1 = part ? l->nruns : l->cut + (l->cut < l->nruns);
	for (size_t r = r0; r < r1; r++) {
		size_t i = l->runs[r].at, j = i + l->runs[r].len;
		if (r == l->cut && part)
			i = l->mid;
		else if (r == l->cut)
			j = l->mid;
		if (l->byid) {
			for (size_t k = i; k < j; k++)
				l->key[k] = l->k2[l->ord[k]];
			continue;
		}
		for (size_t k = i; k < j; k++) {
			/* the entry 16 ahead and its text 8 ahead: fetched before they are read */
			if (k + 16 < j)
				__builtin_prefetch(&p->names[l->ord[k + 16] >> sh]);
			if (k + 8 < j) {
				const struct name_ent *ne = &p->names[l->ord[k + 8] >> sh];
				if (l->at < ne->len)
					__builtin_prefetch(p->str + ne->off + l->at);
			}
			l->key[k] = entry_key(p, c->order, l->ord[k], l->at);
		}
	}
}

/* fn's two parts: by two threads (fk_run2) where two, else one after the other here. */
static void run_parts(void (*fn)(void *arg, unsigned part), void *arg, bool two)
{
	if (two) {
		fk_run2(fn, arg);
	} else {
		fn(arg, 0);
		fn(arg, 1);
	}
}

static void level_step(struct level *l, int step, bool two)
{
	l->step = step;
	if (step == 1)
		run_parts(level_part, l, two);
	else if (step == 0)
		fk_run2_pieces(level_piece, l, l->c->n, FK_PIECE(l->c->n), two);
	else
		fk_run2_pieces(level_piece, l, l->nruns, l->nruns / 32 ? l->nruns / 32 : 1, two);
}

/* The runs' keys at byte at, then each run sorted by them. *mark: scratch of c->n bytes kept
 * from level to level, made here when first wanted (the caller frees it). */
static void level_sort(const struct rank_ctx *c, uint32_t *ord, uint64_t *key, const struct run *runs,
		       size_t nruns, size_t total, size_t at, uint64_t *k2, uint32_t *tmp, uint8_t **mark)
{
	struct level l = { .c = c, .ord = ord, .tmp = tmp, .key = key, .k2 = k2, .runs = runs,
			   .nruns = nruns, .at = at, .byid = total >= 4096 && total >= c->n / 8,
			   .giant = SIZE_MAX };
	/* under half the entries in runs (names past a namespace's shared bytes, deeper
	 * levels): the keys by id of those alone, marked (a stamp a level: never cleared; an
	 * entry marked at a level 256 before only costs its key; no scratch: all keys) */
	if (l.byid && total < c->n / 2 && (*mark || (*mark = calloc(c->n, 1)))) {
		l.stamp = (uint8_t)(at / 8);
		for (size_t r = 0; r < nruns; r++)
			for (size_t k = runs[r].at, end = k + runs[r].len; k < end; k++)
				(*mark)[ord[k]] = l.stamp;
		l.mark = *mark;
	}
	/* the runs halved by entries for the keys (run cut holds the middle entry) */
	size_t sum = 0;
	for (; l.cut < nruns && sum + runs[l.cut].len <= total / 2; l.cut++)
		sum += runs[l.cut].len;
	l.mid = l.cut < nruns ? runs[l.cut].at + (total / 2 - sum) : 0;
	bool two = c->p->threads >= 2 && total >= 65536 && fk_looks_ask(c->looks) == 1;
	if (l.byid)
		level_step(&l, 0, two);
	level_step(&l, 1, two);
	/* a run of most of the entries (names that share their first bytes) would be one part's
	 * alone: sorted by both threads (same16's 793k names at byte 16: 11-13 ms alone) */
	for (size_t r = 0; two && r < nruns && l.giant == SIZE_MAX; r++)
		if (runs[r].len >= FK_RADIX_TWO_MIN && runs[r].len * 2 >= total) {
			size_t i = runs[r].at;
			fk_radix64_two(key + i, ord + i, runs[r].len, 64, k2 + i, tmp + i);
			l.giant = r;
		}
	level_step(&l, 2, two);
}

/* How many bytes from `at` on (a multiple of 8) every entry of the run ord[0..n) has as its
 * first entry has, within the texts (a ';' an FK_ORDER_TEXT entry goes on with is not
 * counted): levels whose keys would all be equal and fill their 8 bytes, passed over where
 * a run alone goes on (b-wide's jvm names: bytes 8-31, three levels of 977k keys). The
 * entries are read in the run's order, which is still the names' own where no level has
 * told them apart (the sorts are stable): text read in the order it was written. The first
 * entry that does not share the next 8 bytes ends it. At most 256 bytes a call. */
static size_t run_shared(const struct rank_ctx *c, const uint32_t *ord, size_t n, size_t at)
{
	const fk_profile *p = c->p;
	unsigned sh = c->order == FK_ORDER_TEXT;
	const struct name_ent *r = &p->names[ord[0] >> sh];
	if (r->len < at + 8)
		return 0;
	const char *ref = p->str + r->off + at;
	size_t most = (r->len - at) & ~(size_t)7;
	if (most > 256)
		most = 256;
	for (size_t i = 1; i < n && most; i++) {
		const struct name_ent *e = &p->names[ord[i] >> sh];
		if (e->len < at + 8)
			return 0;
		size_t l = e->len - at < most ? e->len - at : most;
		most = fk_common_prefix(p->str + e->off + at, l, ref, l) & ~(size_t)7;
	}
	return most;
}

/* ord[0..n), sorted by their keys at byte 0 (key[] holds them), put in order: level by
 * level, the runs of equal keys are sorted by their next 8 bytes, so names that share long
 * first bytes (namespaces, packages, import paths) are ordered without comparisons that
 * read the shared bytes again each time; a run whose texts all end is compared whole;
 * where one run alone goes on, the bytes all its entries share are passed over
 * (run_shared). 0 or -FK_E_NOMEM. */
static int rank_levels(const struct rank_ctx *c, uint32_t *ord, uint64_t *key, uint64_t *k2,
		       uint32_t *tmp)
{
	size_t n = c->n, cap = n / 2 + 1, ncur = 0, total = 0;
	uint8_t *mark = NULL;
	struct run *cur = malloc(cap * sizeof(*cur)), *next = malloc(cap * sizeof(*next));
	if (!cur || !next) {
		free(cur);
		free(next);
		return -FK_E_NOMEM;
	}
	/* the runs at level at (their keys from byte at) that go on: into next */
	size_t at = 0;
	struct run all = { 0, (uint32_t)n };
	const struct run *from = &all;
	size_t nfrom = 1;
	for (;;) {
		ncur = 0;
		total = 0;
		for (size_t r = 0; r < nfrom; r++) {
			size_t end = (size_t)from[r].at + from[r].len;
			for (size_t i = from[r].at; i < end;) {
				size_t j = i + 1;
				while (j < end && key[j] == key[i])
					j++;
				/* two entries of one text cannot be, so where the run's key fills
				 * its 8 bytes, one of its entries at least goes on (no entry read) */
				bool go_on = j - i > 1 && (key[i] & 0xff);
				for (size_t k = i; k < j && j - i > 1 && !go_on; k++)
					go_on = !entry_ends(c->p, c->order, ord[k], at);
				if (go_on) {
					next[ncur++] = (struct run){ (uint32_t)i, (uint32_t)(j - i) };
					total += j - i;
				} else if (j - i > 1) {
					qsort_r(ord + i, j - i, sizeof(*ord), entry_cmp, (void *)c);
				}
				i = j;
			}
		}
		if (!ncur)
			break;
		struct run *t = cur;
		cur = next;
		next = t;
		at += 8;
		if (ncur == 1)
			at += run_shared(c, ord + cur[0].at, cur[0].len, at);
		level_sort(c, ord, key, cur, ncur, total, at, k2, tmp, &mark);
		from = cur;
		nfrom = ncur;
	}
	free(cur);
	free(next);
	free(mark);
	return 0;
}

/* Entries [from, to): each one's place and its key at byte 0. */
struct first_keys {
	const struct rank_ctx *c;
	uint32_t *ord;
	uint64_t *key;
};
static void first_keys(void *arg, size_t i, size_t end)
{
	struct first_keys *f = arg;
	for (; i < end; i++) {
		f->ord[i] = (uint32_t)i;
		f->key[i] = entry_key(f->c->p, f->c->order, (uint32_t)i, 0);
	}
}

/* Whether a sort of n things of the walk of p goes to two threads: enough of them, p's work
 * may use two, and a look (looks: the walk's) finds a CPU free. */
static bool sort_two(const fk_profile *p, size_t n, fk_looks *looks)
{
	return n >= FK_RADIX_TWO_MIN && fk_profile_threads(p) >= 2 && fk_looks_ask(looks) == 1;
}

/* rank[ord[i]] = i for places [from, to). */
struct ranks {
	const uint32_t *ord;
	uint32_t *rank;
};
static void ranks_piece(void *arg, size_t from, size_t to)
{
	struct ranks *r = arg;
	for (size_t i = from; i < to; i++)
		r->rank[r->ord[i]] = (uint32_t)i;
}

/* rank[e] for every entry: a radix sort by key, run by run deeper where keys are equal. */
static uint32_t *rank_names(const fk_profile *p, int order, size_t *nent, fk_looks *looks)
{
	size_t n = p->nnames * (order == FK_ORDER_TEXT ? 2 : 1);
	size_t big = n * (2 * sizeof(uint64_t) + sizeof(uint32_t));
	char *blk = fk_big_alloc(big);
	uint32_t *tmp = malloc(n * sizeof(*tmp));
	uint32_t *rank = NULL;
	if (!blk || !tmp)
		goto out;
	uint64_t *key = (uint64_t *)blk, *k2 = key + n;
	uint32_t *ord = (uint32_t *)(k2 + n);
	struct rank_ctx c = { p, order, n, looks };
	struct first_keys fk = { &c, ord, key };
	bool two = sort_two(p, n, looks); /* (asked once: the first keys and the places) */
	fk_run2_pieces(first_keys, &fk, n, FK_PIECE(n), two);
	if (two)
		fk_radix64_two(key, ord, n, 64, k2, tmp);
	else
		fk_radix64(key, ord, n, 64, k2, tmp);
	if (rank_levels(&c, ord, key, k2, tmp))
		goto out;
	rank = tmp; /* reuse: rank[entry] = place */
	tmp = NULL;
	struct ranks r = { ord, rank };
	fk_run2_pieces(ranks_piece, &r, n, FK_PIECE(n), two);
	*nent = n;
out:
	free(tmp);
	fk_big_free(blk, big);
	return rank;
}

/* ---- sorting stacks by their ranked frames */
struct sort_ctx {
	const fk_profile *p;
	const uint32_t *rank;
	bool text;          /* a stack's last frame ranks as entry 2 * id + 1, others 2 * id */
	bool two;           /* the first radix sort by two threads */
	unsigned bits, per; /* bits per frame in a radix key, frames per key */
};

static inline uint32_t elem(const struct sort_ctx *c, const uint32_t *q, uint32_t n, uint32_t j)
{
	if (c->text)
		return c->rank[2 * q[j] + (j + 1 == n)];
	return c->rank[q[j]];
}

static int stack_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	const struct stk *x = &c->p->stk[*(const uint32_t *)a], *y = &c->p->stk[*(const uint32_t *)b];
	const uint32_t *p = c->p->sid + x->off, *q = c->p->sid + y->off;
	uint32_t n = x->len < y->len ? x->len : y->len;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t u = elem(c, p, x->len, i), v = elem(c, q, y->len, i);
		if (u != v)
			return u < v ? -1 : 1;
	}
	return (x->len > y->len) - (x->len < y->len);
}

static void sort_at(uint32_t *ord, size_t ns, const struct sort_ctx *c, uint32_t d, uint64_t *key,
		    uint64_t *k2, uint32_t *tmp);

/* The first sort's work by two threads (fk_run2_pieces: stretches of the stacks taken by
 * either as it is free): their keys; where a run of equal keys starts in each stretch; then
 * the runs that go on, each sorted by the thread that takes the stretch it starts in. */
struct sort_pieces {
	const struct sort_ctx *c;
	uint32_t *ord, *tmp;
	uint64_t *key, *k2;
	size_t piece;
	size_t *start; /* stretch k's first run: its start, the next one's past it (SIZE_MAX:
			* none, before the fill), [npieces]: ns */
	int step;      /* 0: keys, 1: the runs' starts, 2: the runs sorted */
};

/* Stacks [from, to) of ord: the keys of `per` frames from d on. */
static void stack_keys(const struct sort_ctx *c, const uint32_t *ord, size_t from, size_t to, uint32_t d,
		       uint64_t *key)
{
	const struct stk *stk = c->p->stk;
	const uint32_t *sid = c->p->sid;
	for (size_t i = from; i < to; i++) {
		const struct stk *s = &stk[ord[i]];
		const uint32_t *q = sid + s->off;
		uint64_t k = 0;
		for (uint32_t j = d; j < d + c->per; j++)
			k = k << c->bits | (j < s->len ? (uint64_t)elem(c, q, s->len, j) + 1 : 0);
		key[i] = k;
	}
}

/* The runs of equal keys that start in [from, to) (from starts one) and go on (their last
 * frame is not in the key), each sorted from d + per on; the last ends by `end`, where the
 * next run starts (the keys past it may be another thread's, being sorted: a run's sort
 * writes the deeper keys of its own stretch). */
static void sort_runs(uint32_t *ord, const struct sort_ctx *c, uint32_t d, uint64_t *key,
		      uint64_t *k2, uint32_t *tmp, size_t from, size_t to, size_t end)
{
	uint64_t lastmask = (c->bits == 64 ? ~0ULL : (1ULL << c->bits) - 1);
	for (size_t i = from; i < to;) {
		size_t j = i + 1;
		while (j < end && key[j] == key[i])
			j++;
		if (j - i > 1 && (key[i] & lastmask))
			sort_at(ord + i, j - i, c, d + c->per, key + i, k2 + i, tmp + i);
		i = j;
	}
}

static void sort_piece(void *arg, size_t from, size_t to)
{
	struct sort_pieces *t = arg;
	size_t k = from / t->piece, i = from;
	if (t->step == 0) {
		stack_keys(t->c, t->ord, from, to, 0, t->key);
	} else if (t->step == 1) {
		while (i > 0 && i < to && t->key[i] == t->key[i - 1])
			i++;
		t->start[k] = i < to ? i : SIZE_MAX;
	} else if (t->start[k] < to) {
		sort_runs(t->ord, t->c, 0, t->key, t->k2, t->tmp, t->start[k], to, t->start[k + 1]);
	}
}

/* Most-significant first: `per` frames from d on (rank + 1, 0 past the end) make a key,
 * sorted by radix (11 bits a pass, passes where all keys agree skipped); runs of equal
 * keys whose last frame is there go on from d + per. Small runs are compared whole. The
 * first sort (d 0) by two threads where c->two. */
static void sort_at(uint32_t *ord, size_t ns, const struct sort_ctx *c, uint32_t d, uint64_t *key,
		    uint64_t *k2, uint32_t *tmp)
{
	if (ns < 48) {
		qsort_r(ord, ns, sizeof(*ord), stack_cmp, (void *)c);
		return;
	}
	size_t piece = FK_PIECE(ns), np = (ns + piece - 1) / piece;
	size_t *start = d == 0 && c->two ? malloc((np + 1) * sizeof(*start)) : NULL;
	if (start) {
		struct sort_pieces t = { c, ord, tmp, key, k2, piece, start, 0 };
		fk_run2_pieces(sort_piece, &t, ns, piece, true);
		fk_radix64_two(key, ord, ns, c->bits * c->per, k2, tmp);
		for (t.step = 1; t.step <= 2; t.step++) {
			fk_run2_pieces(sort_piece, &t, ns, piece, true);
			start[np] = ns;
			for (size_t k = np; t.step == 1 && k-- > 0;)
				if (start[k] == SIZE_MAX)
					start[k] = start[k + 1];
		}
		free(start);
		return;
	}
	stack_keys(c, ord, 0, ns, d, key);
	fk_radix64(key, ord, ns, c->bits * c->per, k2, tmp);
	sort_runs(ord, c, d, key, k2, tmp, 0, ns, ns);
}

/* Whether each stack of ord comes after the one before it: part 0 the places before the
 * middle, part 1 the others. */
struct in_order {
	const uint32_t *ord;
	size_t ns;
	const struct sort_ctx *c;
	bool ok[2];
};
static void in_order_part(void *arg, unsigned part)
{
	struct in_order *o = arg;
	size_t i = part && o->ns / 2 ? o->ns / 2 : 1, end = part ? o->ns : o->ns / 2;
	for (; i < end && o->ok[part]; i++)
		o->ok[part] = stack_cmp(&o->ord[i - 1], &o->ord[i], (void *)o->c) < 0;
}

int fk_stacks_sorted(const fk_profile *p, int order, uint32_t *ord, uint32_t **rank_out)
{
	size_t ns = p->nstk, nent = 0;
	fk_looks looks;
	fk_looks_start(&looks, false);
	uint32_t *rank = rank_names(p, order, &nent, &looks);
	size_t big = (ns ? ns : 1) * (2 * sizeof(uint64_t) + sizeof(uint32_t));
	uint64_t *key = fk_big_alloc(big);
	uint32_t *tmp = key ? (uint32_t *)(key + 2 * (ns ? ns : 1)) : NULL;
	int rc = -FK_E_NOMEM;
	if (rank && key && tmp) {
		struct sort_ctx c = { .p = p, .rank = rank, .text = order == FK_ORDER_TEXT,
				      .two = sort_two(p, ns, &looks) };
		/* ranks + 1 in 21 bits: three frames a key; else two of 32 bits */
		if (nent + 1 < (1u << 21)) {
			c.bits = 21;
			c.per = 3;
		} else {
			c.bits = 32;
			c.per = 2;
		}
		for (size_t i = 0; i < ns; i++)
			ord[i] = (uint32_t)i;
		/* already in order (a sorted file read in order): one pass tells (by two threads,
		 * each over half of the stacks, as the first sort) */
		struct in_order io = { ord, ns, &c, { true, true } };
		if (c.two) {
			fk_run2(in_order_part, &io);
		} else {
			in_order_part(&io, 0);
			if (io.ok[0])
				in_order_part(&io, 1);
		}
		if (!io.ok[0] || !io.ok[1])
			sort_at(ord, ns, &c, 0, key, key + ns, tmp);
		rc = 0;
	}
	if (!rc && rank_out) {
		*rank_out = rank;
		rank = NULL;
	}
	free(rank);
	fk_big_free(key, big);
	return rc;
}

uint32_t *fk_profile_name_ranks(const fk_profile *p)
{
	size_t nent;
	fk_looks looks;
	fk_looks_start(&looks, false);
	return rank_names(p, FK_ORDER_NAME, &nent, &looks);
}

/* ---- the walk of stack mode: a sweep over the stacks in name order */
struct open {
	uint32_t frame;
	double total[2];
};

/* Closes the open frames at depths from .. to + 1, each one's total going to its parent. */
static int close_down(const fk_walk_ops *ops, void *ctx, struct open *op, uint32_t from,
		      uint32_t to)
{
	for (uint32_t d = from; d > to; d--) {
		int rc;
		if (ops->close && (rc = ops->close(ctx, d, op[d].frame, op[d].total)))
			return rc;
		op[d - 1].total[0] += op[d].total[0];
		op[d - 1].total[1] += op[d].total[1];
	}
	return 0;
}

/* Frames stacks a and b share from the root. */
static uint32_t shared_frames(const fk_profile *p, uint32_t a, uint32_t b)
{
	const struct stk *s = &p->stk[a], *t = &p->stk[b];
	const uint32_t *q = p->sid + s->off, *r = p->sid + t->off;
	uint32_t lim = s->len < t->len ? s->len : t->len, l = 0;
	while (l < lim && q[l] == r[l])
		l++;
	return l;
}

/* A walk of ops with open alone (no close, no chain: nothing is owed when a frame closes)
 * over stacks ord[from, to): each frame a stack does not share with the stack before it is
 * opened (the stack before ord[from] is ord[from - 1], opened already), as fk_stacks_walk
 * opens them. */
static int walk_opens(const fk_profile *p, const fk_walk_ops *ops, void *ctx, const uint32_t *ord,
		      size_t from, size_t to)
{
	static const double zero[2] = { 0, 0 };
	for (size_t k = from; k < to; k++) {
		const struct stk *s = &p->stk[ord[k]];
		const uint32_t *q = p->sid + s->off;
		for (uint32_t j = k ? shared_frames(p, ord[k - 1], ord[k]) : 0; j < s->len; j++) {
			int rc = ops->open(ctx, j + 1, q[j], j + 1 == s->len ? s->self : zero);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* A split walk's two parts (fk_run2): part 0 the stacks before ord[mid], into ctx; part 1
 * the others, into sp->ctx2. */
struct walk_parts {
	const fk_profile *p;
	const fk_walk_ops *ops;
	void *ctx;
	const fk_walk_split *sp;
	const uint32_t *ord;
	size_t mid, ns;
	fk_walk_seam seam;
	int rc[2];
};
static void walk_part(void *arg, unsigned part)
{
	struct walk_parts *w = arg;
	void *ctx = part ? w->sp->ctx2 : w->ctx;
	if (part)
		w->sp->begin(ctx, &w->seam);
	w->rc[part] = walk_opens(w->p, w->ops, ctx, w->ord, part ? w->mid : 0, part ? w->ns : w->mid);
	if (!w->rc[part] && w->sp->end)
		w->sp->end(ctx);
}

/* A split walk's parts walked (their errors: prc): the caller's join, and the second part
 * walked again by this thread (redo(arg)) where the join declines it or the second part
 * failed. 0 or an error. */
static int split_end(void *ctx, const fk_walk_split *sp, const fk_walk_seam *seam, const int prc[2],
		     size_t mid, int (*redo)(void *arg), void *arg)
{
	int took = 0, rc = prc[0];
	if (!rc && !prc[1] && (took = sp->join(ctx, sp->ctx2, seam)) < 0)
		rc = took;
	if (!rc && took != 1)
		rc = redo(arg);
	if (!rc)
		fk_log(FK_LEVEL_DEBUG, "walk: in two parts from stack %zu%s", mid,
		       took == 1 ? "" : ", the second walked again by the first thread");
	return rc;
}

static int redo_opens(void *arg)
{
	const struct walk_parts *w = arg;
	return walk_opens(w->p, w->ops, w->ctx, w->ord, w->mid, w->ns);
}

/* (a split walk: fk_profile_walk_split) The stacks ord[0, ns) opened in two parts, the
 * second by a second thread from the middle stack on, where it pays; the second part
 * walked again by this thread where the caller's join declines it. Whether it walked them
 * (*rc: 0 or the walk's error); if not, the plain walk does. */
static bool walk_split(const fk_profile *p, const fk_walk_ops *ops, void *ctx, const fk_walk_split *sp,
		       const uint32_t *ord, size_t ns, int *rc)
{
	/* (b-wide's same16 shape, 200k stacks, 3.97M nodes: its page's walk took 51-69 ms on
	 * one thread; tests split small profiles) */
	size_t min = getenv("FLAMEKIT_SPLIT_MIN") ? 2 : 1u << 16;
	if (!sp || ops->close || ops->chain || !ops->open || ns < min || fk_profile_threads(p) < 2)
		return false;
	size_t mid = ns / 2;
	if (!p->stk[ord[mid - 1]].len) /* (the seam's last frame: the stack before opens one) */
		return false;
	struct walk_parts w = { p, ops, ctx, sp, ord, mid, ns,
				{ p->stk[ord[mid - 1]].len, shared_frames(p, ord[mid - 1], ord[mid]),
				  p->sid + p->stk[ord[mid]].off }, { 0, 0 } };
	fk_run2(walk_part, &w);
	*rc = split_end(ctx, sp, &w.seam, w.rc, mid, redo_opens, &w);
	return true;
}

/* Stacks ord[from, to) of ord[0, ns) walked with ops into ctx, as one walk of them all
 * does: frames 1..open are open as it starts (their records in (*op)[0..open]; 0: none,
 * ord[from] the first stack), each stack's frames past those it shares with the stack
 * before opened (or given as a chain), and, at the end, the frames deeper than `keep`
 * closed (those to `keep` left open: the first of a split walk's parts). */
static int walk_range(const fk_profile *p, const fk_walk_ops *ops, void *ctx, const uint32_t *ord,
		      size_t from, size_t to, size_t ns, uint32_t open, uint32_t keep, struct open **opp,
		      size_t *ocap)
{
	static const double zero[2] = { 0, 0 };
	uint32_t prevn = open, l = open; /* l: frames this stack shares with the one before */
	int rc = 0;
	if (FK_GROW(*opp, *ocap, (size_t)open + 1))
		return -FK_E_NOMEM;
	if (!open)
		(*opp)[0] = (struct open){ 0, { 0, 0 } };
	for (size_t k = from; k < to; k++) {
		const struct stk *s = &p->stk[ord[k]];
		const uint32_t *q = p->sid + s->off;
		uint32_t n = s->len;
		/* frames it shares with the next stack (the next one's l) */
		uint32_t l2 = 0;
		if (k + 1 < ns) {
			const struct stk *t = &p->stk[ord[k + 1]];
			const uint32_t *r = p->sid + t->off;
			uint32_t lim2 = n < t->len ? n : t->len;
			while (l2 < lim2 && q[l2] == r[l2])
				l2++;
		}
		/* close what this stack leaves (depths prevn .. l + 1) */
		if ((rc = close_down(ops, ctx, *opp, prevn, l)))
			return rc;
		if (FK_GROW(*opp, *ocap, (size_t)n + 1))
			return -FK_E_NOMEM;
		struct open *op = *opp;
		/* the frames past what the next stack shares are this stack's alone: a chain,
		 * each frame's total the stack's count (given whole to ops->chain) */
		uint32_t m = ops->chain ? (l > l2 ? l : l2) : n;
		for (uint32_t j = l; j < m; j++) {
			const double *self = j + 1 == n ? s->self : zero;
			op[j + 1] = (struct open){ q[j], { self[0], self[1] } };
			if (ops->open && (rc = ops->open(ctx, j + 1, q[j], self)))
				return rc;
		}
		if (m < n) {
			if ((rc = ops->chain(ctx, m + 1, q + m, n - m, s->self)))
				return rc;
			op[m].total[0] += s->self[0];
			op[m].total[1] += s->self[1];
		}
		prevn = m;
		l = l2; /* at most m: the next stack's shared frames are still open */
	}
	return close_down(ops, ctx, *opp, prevn, keep);
}

/* A split walk of ops with close or chain (fk_profile_walk_split): the first part's frames
 * shared with the second's first stack stay open at its end; the second part starts with
 * them open (its records of them: no counts yet), and the caller's join makes the seam's
 * frames whole. */
struct full_parts {
	struct walk_parts w;
	struct open *op[2]; /* each part's open frames */
	size_t ocap[2];
};
static void full_part(void *arg, unsigned part)
{
	struct full_parts *f = arg;
	struct walk_parts *w = &f->w;
	uint32_t sh = w->seam.shared;
	if (!part) {
		w->rc[0] = walk_range(w->p, w->ops, w->ctx, w->ord, 0, w->mid, w->ns, 0, sh, &f->op[0],
				      &f->ocap[0]);
		if (!w->rc[0] && w->sp->end)
			w->sp->end(w->ctx);
		return;
	}
	w->sp->begin(w->sp->ctx2, &w->seam);
	if (FK_GROW(f->op[1], f->ocap[1], (size_t)sh + 1)) {
		w->rc[1] = -FK_E_NOMEM;
		return;
	}
	f->op[1][0] = (struct open){ 0, { 0, 0 } };
	for (uint32_t d = 1; d <= sh; d++)
		f->op[1][d] = (struct open){ w->seam.frames[d - 1], { 0, 0 } };
	w->rc[1] = walk_range(w->p, w->ops, w->sp->ctx2, w->ord, w->mid, w->ns, w->ns, sh, 0, &f->op[1],
			      &f->ocap[1]);
	if (!w->rc[1] && w->sp->end)
		w->sp->end(w->sp->ctx2);
}

/* (split_end) The second part walked by this thread, from where the first left off. */
static int redo_range(void *arg)
{
	struct full_parts *f = arg;
	const struct walk_parts *w = &f->w;
	return walk_range(w->p, w->ops, w->ctx, w->ord, w->mid, w->ns, w->ns, w->seam.shared, 0,
			  &f->op[0], &f->ocap[0]);
}

/* (a split walk of ops with close or chain) As walk_split: the second part walked again by
 * this thread where the join declines it, from where the first part left off. */
static bool walk_split_full(const fk_profile *p, const fk_walk_ops *ops, void *ctx,
			    const fk_walk_split *sp, const uint32_t *ord, size_t ns, int *rc)
{
	size_t min = getenv("FLAMEKIT_SPLIT_MIN") ? 2 : 1u << 16;
	if (!sp || ns < min || fk_profile_threads(p) < 2)
		return false;
	size_t mid = ns / 2;
	const struct stk *a = &p->stk[ord[mid - 1]], *b = &p->stk[ord[mid]];
	struct full_parts f = { .w = { p, ops, ctx, sp, ord, mid, ns,
				       { a->len, shared_frames(p, ord[mid - 1], ord[mid]), p->sid + b->off },
				       { 0, 0 } } };
	fk_run2(full_part, &f);
	*rc = split_end(ctx, sp, &f.w.seam, f.w.rc, mid, redo_range, &f);
	free(f.op[0]);
	free(f.op[1]);
	return true;
}

int fk_stacks_walk(const fk_profile *p, const fk_walk_ops *ops, void *ctx, const fk_walk_split *sp,
		   uint32_t **rank)
{
	size_t ns = p->nstk;
	uint32_t *ord = fk_big_alloc((ns ? ns : 1) * sizeof(*ord));
	struct open *op = NULL;
	size_t ocap = 0;
	int rc = ord ? fk_stacks_sorted(p, FK_ORDER_NAME, ord, rank) : -FK_E_NOMEM;
	if (!rc)
		fk_log(FK_LEVEL_DEBUG, "walk: %zu names ranked, %zu stacks sorted", p->nnames, ns);
	bool split = !rc && (ops->close || ops->chain ? walk_split_full(p, ops, ctx, sp, ord, ns, &rc)
						     : walk_split(p, ops, ctx, sp, ord, ns, &rc));
	if (!rc && !split)
		rc = walk_range(p, ops, ctx, ord, 0, ns, ns, 0, 0, &op, &ocap);
	fk_big_free(ord, (ns ? ns : 1) * sizeof(*ord));
	free(op);
	return rc;
}

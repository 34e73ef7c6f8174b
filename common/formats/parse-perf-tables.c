/* parse-perf-tables.c - the perf parser's hash tables: the frame-line and process-name caches
 * (each distinct line tidied once), the unique-stack table (each distinct stack stored once,
 * with its total weight). Their memory: fk_zalloc (big ones on huge pages). */
#include "parse-perf.h"

static int ftab_init(struct ftab *f, size_t size)
{
	f->t = fk_zalloc(size, sizeof(*f->t));
	if (!f->t)
		return -FK_E_NOMEM;
	f->mask = size - 1;
	f->n = 0;
	return 0;
}

_Static_assert(offsetof(struct fent, hash) == 0, "table_double reads the hash first");
_Static_assert(offsetof(struct sent, hash) == 0, "table_double reads the hash first");

/* Double an open-addressing table whose entries start with a uint64_t hash
 * (0 = empty slot): the new table, with the old one freed, or NULL with the
 * old one kept. Shared by the frame-line and the stack tables. */
static void *table_double(struct pp *t, void *old, size_t n, size_t elem)
{
	size_t size = n * 2;
	char *nt = fk_zalloc(size, elem);
	if (!nt)
		return NULL;
	const char *ot = old;
	for (size_t i = 0; i < n; i++) {
		uint64_t h, hj;
		memcpy(&h, ot + i * elem, sizeof(h));
		if (!h)
			continue;
		size_t j = h & (size - 1);
		for (;; j = (j + 1) & (size - 1)) {
			memcpy(&hj, nt + j * elem, sizeof(hj));
			if (!hj)
				break;
		}
		memcpy(nt + j * elem, ot + i * elem, elem);
	}
	if (n * elem >= FK_BIG_FROM && t->ngrave < sizeof(t->grave) / sizeof(t->grave[0])) {
		/* unmapped at the end: unmapping now would interrupt the other thread's CPU
		 * to flush its TLB */
		t->grave[t->ngrave].p = old;
		t->grave[t->ngrave++].size = n * elem;
	} else {
		fk_zfree(old, n, elem);
	}
	return nt;
}

static int ftab_grow(struct pp *t, struct ftab *f)
{
	struct fent *nt = table_double(t, f->t, f->mask + 1, sizeof(*nt));
	if (!nt)
		return -FK_E_NOMEM;
	f->t = nt;
	f->mask = f->mask * 2 + 1;
	return 0;
}

int fk_perf_tables_init(struct pp *t)
{
	t->st = fk_zalloc(4096, sizeof(*t->st));
	t->st_mask = 4095;
	if (!t->st || ftab_init(&t->fc, 16384) || ftab_init(&t->fc2, 4096) || ftab_init(&t->pc, 256))
		return -FK_E_NOMEM;
	return 0;
}

void fk_perf_tables_fini(struct pp *t)
{
	fk_zfree(t->fc.t, t->fc.mask + 1, sizeof(*t->fc.t));
	fk_zfree(t->pc.t, t->pc.mask + 1, sizeof(*t->pc.t));
	fk_zfree(t->fc2.t, t->fc2.mask + 1, sizeof(*t->fc2.t));
	fk_zfree(t->st, t->st_mask + 1, sizeof(*t->st));
	for (unsigned i = 0; i < t->ngrave; i++)
		fk_big_free(t->grave[i].p, t->grave[i].size);
}

int fk_perf_push_name(struct pp *t, const char *s, size_t n, bool split)
{
	size_t i = 0;
	for (;;) {
		const char *sc = split ? memchr(s + i, ';', n - i) : NULL;
		size_t e = sc ? (size_t)(sc - s) : n;
		int64_t id = fk_profile_intern(t->p, s + i, e - i);
		if (id < 0)
			return (int)id;
		if (FK_GROW(t->tmp, t->tmp_cap, t->tmp_n + 1))
			return -FK_E_NOMEM;
		t->tmp[t->tmp_n++] = (uint32_t)id;
		if (!sc)
			return 0;
		i = e + 1;
	}
}

/* ids/nres of a table result (see struct fent). */
static inline void decode_res(struct pp *t, uint32_t r, const uint32_t **ids, uint32_t *nres)
{
	if (FK_LIKELY(r < RES_MULTI)) {
		t->one = r;
		*ids = &t->one;
		*nres = 1;
	} else if (r == RES_BAD) {
		*nres = NRES_BAD;
	} else if (r == RES_NONE) {
		*nres = 0;
	} else {
		*nres = t->rids[r & ~RES_MULTI];
		*ids = t->rids + (r & ~RES_MULTI) + 1;
	}
}


int fk_perf_cache_lookup(struct pp *t, struct ftab *tab, struct h128 h, const uint32_t **ids,
			uint32_t *nres, bool is_pname, const char *line, size_t llen)
{
	h.a |= 1ull << 63; /* 0 marks an empty slot */
	uint32_t chk = (uint32_t)h.b;
	size_t i = h.a & tab->mask;
	const struct fent *e;
	for (; (e = &tab->t[i])->hash; i = (i + 1) & tab->mask) {
		if (e->hash == h.a && e->check == chk) {
			decode_res(t, e->res, ids, nres);
			return 0;
		}
	}
	int rc;
	struct h128 g = { 0, 0 };
	bool g_ok = false;
	size_t gj = 0;
	if (is_pname) {
		t->tmp_n = 0;
		rc = fk_perf_push_name(t, line, llen, true);
		if (!t->saw_utf8 && !fk_utf8_valid((const unsigned char *)line, llen)) {
			t->saw_utf8 = true;
			t->utf8_line = t->lineno;
		}
	} else {
		/* second chance: the same function text in another module of the same class */
		if (!t->pc_key) {
			g = fk_perf_frame_key_modfree(t, line, llen, &g_ok);
			if (g_ok) {
				g.a |= 1ull << 63;
				if (t->java)
					g.b ^= JAVA_MARK;
				gj = g.a & t->fc2.mask;
				for (const struct fent *f; (f = &t->fc2.t[gj])->hash; gj = (gj + 1) & t->fc2.mask) {
					if (f->hash == g.a && f->check == (uint32_t)g.b) {
						uint32_t r = f->res;
						tab->t[i] = (struct fent){ h.a, chk, r };
						if (++tab->n * 2 > tab->mask + 1 && ftab_grow(t, tab))
							return -FK_E_NOMEM;
						decode_res(t, r, ids, nres);
						return 0;
					}
				}
			}
		}
		rc = fk_perf_frame_names(t, line, llen);
	}
	if (rc < 0)
		return rc;
	uint32_t nr = rc == 1 ? NRES_BAD : (uint32_t)t->tmp_n, res;
	*nres = nr;
	*ids = t->tmp;
	if (nr == NRES_BAD)
		res = RES_BAD;
	else if (nr == 0)
		res = RES_NONE;
	else if (nr == 1 && t->tmp[0] < RES_MULTI)
		res = t->tmp[0];
	else if (t->rids_len + nr + 1 >= RES_MULTI - 2)
		return 0; /* no room to cache it: computed again next time */
	else if (FK_GROW(t->rids, t->rids_cap, t->rids_len + nr + 1))
		return -FK_E_NOMEM;
	else {
		res = RES_MULTI | (uint32_t)t->rids_len;
		t->rids[t->rids_len] = nr;
		memcpy(t->rids + t->rids_len + 1, t->tmp, nr * sizeof(uint32_t));
		*ids = t->rids + t->rids_len + 1;
		t->rids_len += nr + 1;
	}
	tab->t[i] = (struct fent){ h.a, chk, res };
	if (g_ok) {
		t->fc2.t[gj] = (struct fent){ g.a, (uint32_t)g.b, res };
		if (++t->fc2.n * 2 > t->fc2.mask + 1 && ftab_grow(t, &t->fc2))
			return -FK_E_NOMEM;
	}
	if (++tab->n * 2 > tab->mask + 1 && ftab_grow(t, tab))
		return -FK_E_NOMEM;
	return 0;
}

/* A sample's stack is found among the unique ones (or added) and its weight added there.
 * The call tree is built once at the end (fk_profile_build), so a new stack costs no tree
 * walk here and the second thread needs no merge of trees. */
void fk_perf_stack_add(struct pp *t, const uint32_t *k, size_t n, struct h128 hh, double w)
{
	uint64_t h = hh.a | 1ull << 63;
	size_t i = h & t->st_mask;
	struct sent *e;
	for (; (e = &t->st[i])->hash; i = (i + 1) & t->st_mask)
		if (e->hash == h && e->check == hh.b && e->n == n)
			break;
	uint32_t idx;
	if (e->hash) {
		idx = e->idx;
		e->w += w;
	} else {
		if (n > UINT32_MAX || t->nstk >= UINT32_MAX || FK_GROW(t->sids, t->sids_cap, t->sids_len + n))
			return fk_perf_set_err(t, -FK_E_NOMEM);
		memcpy(t->sids + t->sids_len, k, n * sizeof(uint32_t));
		idx = (uint32_t)t->nstk++;
		*e = (struct sent){ h, hh.b, t->sids_len, (uint32_t)n, idx, w };
		t->sids_len += n;
		if (++t->st_n * 2 > t->st_mask + 1) {
			struct sent *nt = table_double(t, t->st, t->st_mask + 1, sizeof(*nt));
			if (!nt)
				return fk_perf_set_err(t, -FK_E_NOMEM);
			t->st = nt;
			t->st_mask = t->st_mask * 2 + 1;
		}
	}
	if (t->keep_samples) {
		if (FK_GROW(t->ps, t->ps_cap, t->ps_n + 1))
			return fk_perf_set_err(t, -FK_E_NOMEM);
		const fk_sample_info *in = &t->info;
		uint32_t comm = 0;
		if (in->comm && in->comm_len) {
			int64_t id = fk_profile_intern(t->p, in->comm, in->comm_len);
			if (id < 0)
				return fk_perf_set_err(t, (int)id);
			comm = (uint32_t)id;
		}
		t->ps[t->ps_n++] = (struct psamp){ in->time, w, idx, comm, in->pid, in->tid, in->cpu };
	}
	t->samples++;
}

/* The unique stacks of t as arrays by index (offsets into sids, lengths, weights), then
 * their order root-first in sord (each needs only t: the second thread makes them before
 * it hands over). */
int fk_perf_stack_arrays(struct pp *t)
{
	size_t ns = t->nstk;
	if (t->soff || !ns)
		return 0;
	t->soff = malloc(ns * sizeof(*t->soff));
	t->slen = malloc(ns * sizeof(*t->slen));
	t->sw = malloc(ns * sizeof(*t->sw));
	if (!t->soff || !t->slen || !t->sw)
		return -FK_E_NOMEM;
	for (size_t i = 0; i <= t->st_mask; i++) {
		if (t->st[i].hash) {
			t->soff[t->st[i].idx] = t->st[i].off;
			t->slen[t->st[i].idx] = t->st[i].n;
			t->sw[t->st[i].idx] = t->st[i].w;
		}
	}
	return 0;
}

int fk_perf_sort_stacks(struct pp *t)
{
	size_t ns = t->nstk;
	int rc = fk_perf_stack_arrays(t);
	if (rc || t->sord || !ns)
		return rc;
	if (!(t->sord = malloc(ns * sizeof(*t->sord))))
		return -FK_E_NOMEM;
	fk_seqs s = fk_perf_seqs(t);
	fk_seqs_sort(&s, t->sord);
	return 0;
}


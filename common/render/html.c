/* html.c - fk_render_html: one self-contained HTML page holding every unique stack of a
 * profile in a compact form (deflated, base64), drawn with canvas by page/viewer.js.
 * The data format is described in docs/html.md ("The data in the page"). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <strings.h>
#include <libdeflate.h>
#include "svg-internal.h"

/* ---- the byte streams (see docs/html.md): each is a growable buffer of varints */
typedef struct bytes {
	uint8_t *b;
	size_t n, cap;
} bytes;

static inline int put_byte(bytes *s, uint8_t v)
{
	if (FK_UNLIKELY(s->n == s->cap) && FK_GROW(s->b, s->cap, s->n + 1))
		return -FK_E_NOMEM;
	s->b[s->n++] = v;
	return 0;
}

static inline int put_uv(bytes *s, uint64_t v)
{
	if (FK_UNLIKELY(s->cap - s->n < 10) && FK_GROW(s->b, s->cap, s->n + 10))
		return -FK_E_NOMEM;
	while (v >= 0x80) {
		s->b[s->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	s->b[s->n++] = (uint8_t)v;
	return 0;
}

static int put_mem(bytes *s, const void *p, size_t n)
{
	if (!n)
		return 0;
	if (FK_GROW(s->b, s->cap, s->n + n))
		return -FK_E_NOMEM;
	memcpy(s->b + s->n, p, n);
	s->n += n;
	return 0;
}

static inline uint64_t get_uv(const uint8_t **p)
{
	uint64_t v = 0;
	unsigned sh = 0;
	uint8_t b;
	do {
		b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << sh;
		sh += 7;
	} while (b & 0x80);
	return v;
}

/* (in the order they follow each other: those deflated with LZ, those in Huffman blocks
 * only, then LZ again: encode_deflate) */
enum { S_NAMES, S_POPS, S_NAME, S_RAW, S_COLORS, S_OFFCOLORS, S_LEAF0, S_LEAF1, S_SELF0, S_SELF1, S_COUNT };
static const char *const stream_names[S_COUNT] = { "names", "pops", "name", "raw", "colors", "offcolors",
						    "leaf0", "leaf1", "self0", "self1" };

/* Names: page name 0 is the root's "", the frames' names follow by how many nodes carry them
 * (most first; a tie by the names' bytes), so the common names have small ids. Name codes,
 * one byte a node: 0..alpha-1 = entry k of the alphabet of the parent's name (the names
 * seen under that name, in order of first use), alpha..254 = page name
 * code - alpha + 1, ESC = any other name: its id follows in `raw` (idw bytes, stored as
 * byte planes: all low bytes, then the next, ...). A name not coded from the alphabet joins
 * it while it has room. alpha is ALPHA or 0 (no alphabets): see encode_codes. */
enum { ALPHA = 32, ESC = 255 };

/* One parent name's alphabet as a small open-addressing table inside one pool: slots hold
 * (child page name + 1) << 8 | code + 1, so a sibling group's lookups stay in a few cache
 * lines. */
typedef struct alpha {
	uint32_t off;   /* first slot in the pool, in units of 8 slots */
	uint8_t bits;   /* table size 1 << bits (0 = no table yet) */
	uint8_t n;      /* entries */
} alpha;

typedef struct enc {
	const fk_profile *p;
	bytes s[S_COUNT];
	uint32_t *fr;       /* the walk, kept: each node's source name */
	size_t nfr, fr_cap;
	uint32_t *uses;     /* per source name: nodes carrying it (0 = unused) */
	size_t counted;     /* fr[0, counted): counted in uses (and uses2), by the walk's parts */
	uint32_t *uses2;    /* a walk's second part's uses, counted by its thread */
	uint32_t nused;     /* names used */
	uint32_t *page;     /* source name -> page name id */
	uint32_t *rank;     /* source name -> its place in the order of the names' bytes */
	uint32_t *src_of;   /* page name id -> source name id (page name 0: the root's "") */
	uint32_t nnames;
	unsigned idw;       /* bytes of a raw id */
	size_t nesc;        /* nodes escaped without alphabets */
	unsigned nalpha;    /* alphabet size: ALPHA or 0 */
	alpha *al;
	uint64_t *pool;
	size_t npool, pool_cap;
	uint32_t prev_depth, maxdepth;
	uint64_t run;       /* nodes one level deeper than the one before, since the last pop */
	struct fk_page_floats fl; /* counts that are not integers */
	uint64_t nodes_out;
	uint64_t last_self[2];
	double root_self[2];
	double pend[2];     /* own counts of the last node opened */
	unsigned ncols;
	int64_t mark_src;   /* source name FK_OFFCPU_MARK in a one-column profile, -1 if none */
	int64_t offmark;    /* its page name, where a frame carries it, -1 if none */
	bool two;           /* a second thread may take part (asked once: the looks take time) */
	uint32_t *col;      /* per source name (the root's "" last): its colour, where made early */
	uint32_t *offcol;   /* its off-CPU colour, where a frame is named FK_OFFCPU_MARK */
} enc;

/* A count in the pages' encoding (render/page.h). */
static int put_count(enc *e, bytes *s, double v)
{
	uint64_t code;
	int rc = fk_page_count(&e->fl, v, &code);
	return rc ? rc : put_uv(s, code);
}

/* The own counts of the node before the one now opening: a leaf's (no child follows) go to
 * the leaf streams, one count each, zero too; another node's only when not zero, with its
 * distance in nodes from the last such node. */
static int put_selfs(enc *e, bool leaf)
{
	if (!leaf && e->pend[0] == 0 && e->pend[1] == 0)
		return 0; /* most inner nodes */
	for (unsigned c = 0; c < 2; c++) {
		double v = e->pend[c];
		int rc = 0;
		if (leaf && c < e->ncols) {
			rc = put_count(e, &e->s[S_LEAF0 + c], v);
		} else if (v != 0) {
			bytes *s = &e->s[S_SELF0 + c];
			rc = put_uv(s, e->nodes_out - e->last_self[c]);
			if (!rc)
				rc = put_count(e, s, v);
			e->last_self[c] = e->nodes_out;
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* One node of the walk (pre-order): its depth as pops, own counts; its name kept for the
 * codes, which need every name's use count first. */
static int on_open(void *ctx, uint32_t depth, uint32_t frame, const double self[2])
{
	enc *e = ctx;
	int rc;
	if (FK_UNLIKELY(e->nfr == e->fr_cap) &&
	    FK_GROW(e->fr, e->fr_cap, e->nfr + 1))
		return -FK_E_NOMEM;
	if (e->nodes_out && (rc = put_selfs(e, depth <= e->prev_depth)))
		return rc;
	e->fr[e->nfr++] = frame; /* (its uses are counted after the walk: count_uses) */
	if (depth > e->maxdepth)
		e->maxdepth = depth;
	/* depths as runs: how many nodes go one level deeper, then how many levels up from
	 * the previous node's child the next one is (pops >= 1) */
	uint32_t pops = e->prev_depth + 1 - depth;
	e->prev_depth = depth;
	if (pops) {
		if (put_uv(&e->s[S_POPS], e->run) || put_uv(&e->s[S_POPS], pops))
			return -FK_E_NOMEM;
		e->run = 0;
	} else {
		e->run++;
	}
	e->nodes_out++;
	e->pend[0] = self[0];
	e->pend[1] = self[1];
	return 0;
}

/* Every source name's nodes, and the names used, from the walk kept in fr: one pass in
 * order, each name's counter fetched some nodes ahead (names are met at random). */
static void count_fr(const uint32_t *fr, size_t n, uint32_t *uses, uint32_t *nused)
{
	for (size_t i = 0; i < n; i++) {
		if (i + 16 < n)
			__builtin_prefetch(&uses[fr[i + 16]], 1);
		if (!uses[fr[i]]++)
			(*nused)++;
	}
}

static void count_uses(enc *e)
{
	count_fr(e->fr + e->counted, e->nfr - e->counted, e->uses, &e->nused);
	e->counted = e->nfr;
	if (!e->uses2)
		return;
	/* a second part's, counted by its thread, added */
	for (size_t s = 0, n = fk_profile_name_count(e->p); s <= n; s++)
		if (e->uses2[s]) {
			e->nused += !e->uses[s];
			e->uses[s] += e->uses2[s];
		}
}

static inline size_t slot_of(uint32_t id, unsigned bits)
{
	return (uint32_t)((id + 1) * 2654435761u) >> (32 - bits);
}

/* Adds id to alphabet a as its next code, growing its table at half full. */
static int alpha_add(enc *e, alpha *a, uint32_t id)
{
	if (a->n >= e->nalpha)
		return 0;
	if (!a->bits || 2 * (a->n + 1u) > (1u << a->bits)) {
		unsigned bits = a->bits ? a->bits + 1u : 3;
		size_t size = (size_t)1 << bits, off = e->npool;
		if (off / 8 > UINT32_MAX || FK_GROW(e->pool, e->pool_cap, off + size))
			return -FK_E_NOMEM;
		uint64_t *t = e->pool + off;
		memset(t, 0, size * sizeof(*t));
		for (size_t i = 0; a->bits && i < ((size_t)1 << a->bits); i++) {
			uint64_t v = e->pool[(size_t)a->off * 8 + i];
			if (!v)
				continue;
			size_t j = slot_of((uint32_t)((v >> 8) - 1), bits);
			while (t[j])
				j = (j + 1) & (size - 1);
			t[j] = v;
		}
		e->npool += size;
		a->off = (uint32_t)(off / 8);
		a->bits = (uint8_t)bits;
	}
	size_t mask = ((size_t)1 << a->bits) - 1, j = slot_of(id, a->bits);
	uint64_t *t = e->pool + (size_t)a->off * 8;
	while (t[j])
		j = (j + 1) & mask;
	t[j] = (uint64_t)(id + 1) << 8 | (uint64_t)(a->n + 1);
	a->n++;
	return 0;
}

/* The code + 1 of id in alphabet a, 0 if it is not there. */
static inline unsigned alpha_code(const enc *e, const alpha *a, uint32_t id)
{
	if (!a->bits)
		return 0;
	size_t mask = ((size_t)1 << a->bits) - 1, j = slot_of(id, a->bits);
	const uint64_t *t = e->pool + (size_t)a->off * 8;
	uint64_t want = (uint64_t)(id + 1);
	for (; t[j]; j = (j + 1) & mask)
		if (t[j] >> 8 == want)
			return (unsigned)(t[j] & 0xff);
	return 0;
}

/* Order-0 entropy in bits of the bytes counted in h. */
static double entropy_bits(const size_t *h)
{
	size_t n = 0;
	double b = 0;
	for (int i = 0; i < 256; i++)
		n += h[i];
	for (int i = 0; i < 256; i++)
		if (h[i])
			b -= (double)h[i] * log2((double)h[i] / (double)n);
	return b;
}

/* The name codes of the first n nodes (all of them: into the streams; fewer: only their
 * estimated size in *bits, the streams untouched). */
static int name_codes(enc *e, size_t n, double *bits)
{
	bytes *codes = &e->s[S_NAME];
	uint32_t *raw = NULL, *stk = NULL;
	size_t nraw = 0, raw_cap = 0, stk_cap = 0, hist[5][256];
	int rc = 0;
	unsigned direct = ESC - e->nalpha; /* page names 1..direct have a code of their own */
	if (e->nalpha)
		memset(e->al, 0, (size_t)e->nnames * sizeof(*e->al));
	e->npool = 0;
	codes->n = 0;
	if (FK_GROW(codes->b, codes->cap, n + 1))
		return -FK_E_NOMEM;
	uint8_t *out = codes->b;
	uint8_t *planes = NULL; /* the raw ids' byte planes, written in the pass */
	if (!e->nalpha) {
		/* no alphabets: each name its own code or an escape (the arrays in locals: the
		 * byte stores could alias them otherwise). All nodes: the escaped ids straight
		 * into their byte planes, their number known from the names' uses */
		const uint32_t *fr = e->fr, *page = e->page;
		size_t nesc = e->nesc;
		unsigned idw = e->idw;
		if (!bits && n == e->nfr) {
			bytes *r = &e->s[S_RAW];
			if (FK_GROW(r->b, r->cap, nesc * idw + 1))
				return -FK_E_NOMEM;
			planes = r->b;
		}
		for (size_t i = 0; i < n; i++) {
			if (i + 16 < n)
				__builtin_prefetch(&page[fr[i + 16]]);
			uint32_t id = page[fr[i]];
			if (id <= direct) {
				out[i] = (uint8_t)(id - 1);
				continue;
			}
			out[i] = ESC;
			if (planes) {
				if (FK_UNLIKELY(nraw == nesc)) { /* (cannot be: the uses say so) */
					rc = -FK_E_INVAL;
					break;
				}
				for (unsigned k = 0; k < idw; k++)
					planes[k * nesc + nraw] = (uint8_t)(id >> (8 * k));
				nraw++;
				continue;
			}
			if (FK_UNLIKELY(nraw == raw_cap) && FK_GROW(raw, raw_cap, nraw + 1)) {
				rc = -FK_E_NOMEM;
				break;
			}
			raw[nraw++] = id;
		}
		codes->n = n;
	}
	/* alphabets: each node's parent name, from the depths (the pops runs read back), found
	 * AHEAD nodes before its coding: on the way the parent's alphabet, then the slot the
	 * name hashes to in it, are fetched (both met at random) */
	enum { AHEAD = 16, RING = 32 };
	struct { uint32_t id, par; } ring[RING];
	const uint8_t *pp = e->s[S_POPS].b;
	uint64_t run = e->nalpha ? get_uv(&pp) : 0;
	uint32_t d = 0;
	size_t ahead = 0; /* nodes whose parent is found */
	for (size_t i = 0; e->nalpha && i < n && !rc; i++) {
		for (; ahead < n && ahead <= i + AHEAD; ahead++) {
			if (run) {
				run--;
				d++;
			} else {
				d = d + 1 - (uint32_t)get_uv(&pp);
				run = get_uv(&pp);
			}
			if (ahead + 16 < n) /* (page ids met at random: fetched ahead) */
				__builtin_prefetch(&e->page[e->fr[ahead + 16]]);
			if (FK_UNLIKELY(d + 1 > stk_cap)) {
				if (FK_GROW(stk, stk_cap, d + 1)) {
					rc = -FK_E_NOMEM;
					break;
				}
				stk[0] = 0;
			}
			uint32_t id = e->page[e->fr[ahead]];
			ring[ahead % RING].id = id;
			ring[ahead % RING].par = stk[d - 1];
			stk[d] = id;
			__builtin_prefetch(&e->al[stk[d - 1]]);
		}
		if (rc)
			break;
		if (i + AHEAD / 2 < n) {
			uint32_t nid = ring[(i + AHEAD / 2) % RING].id;
			const alpha *na = &e->al[ring[(i + AHEAD / 2) % RING].par];
			if (na->bits)
				__builtin_prefetch(e->pool + (size_t)na->off * 8 + slot_of(nid, na->bits));
		}
		uint32_t id = ring[i % RING].id;
		alpha *a = &e->al[ring[i % RING].par];
		unsigned c = alpha_code(e, a, id);
		if (c) {
			codes->b[codes->n++] = (uint8_t)(c - 1);
		} else {
			if (id <= direct) {
				codes->b[codes->n++] = (uint8_t)(e->nalpha + id - 1);
			} else {
				codes->b[codes->n++] = ESC;
				if (FK_UNLIKELY(nraw == raw_cap) && FK_GROW(raw, raw_cap, nraw + 1)) {
					rc = -FK_E_NOMEM;
					break;
				}
				raw[nraw++] = id;
			}
			rc = alpha_add(e, a, id);
		}
	}
	if (bits && !rc) {
		memset(hist, 0, sizeof(hist));
		for (size_t i = 0; i < codes->n; i++)
			hist[0][codes->b[i]]++;
		for (size_t j = 0; j < nraw; j++)
			for (unsigned k = 0; k < e->idw; k++)
				hist[1 + k][(raw[j] >> (8 * k)) & 0xff]++;
		*bits = 0;
		for (unsigned k = 0; k <= e->idw; k++)
			*bits += entropy_bits(hist[k]);
		codes->n = 0;
	} else if (planes && !rc) {
		e->s[S_RAW].n = nraw * e->idw;
		if (nraw != e->nesc)
			rc = -FK_E_INVAL;
	} else if (!rc) {
		bytes *r = &e->s[S_RAW];
		if (FK_GROW(r->b, r->cap, nraw * e->idw + 1))
			rc = -FK_E_NOMEM;
		for (unsigned k = 0; k < e->idw && !rc; k++)
			for (size_t j = 0; j < nraw; j++)
				r->b[r->n++] = (uint8_t)(raw[j] >> (8 * k));
	}
	free(raw);
	free(stk);
	return rc;
}

/* The names stream's bytes of page names from .. to - 1 (see docs/html.md): each name as the
 * bytes it shares with the one before and its own (names of a tie in uses follow each other
 * by their bytes: those of one namespace, package or path share its bytes; 1M names of JVM
 * packages, 55 MB -> 11 MB to deflate). Page name 0 is the root's "". */
static int names_bytes(const enc *e, uint32_t from, uint32_t to, bytes *out)
{
	const char *prev = "";
	size_t plen = 0;
	if (from > 1)
		prev = fk_profile_name(e->p, e->src_of[from - 1], &plen);
	for (uint32_t i = from; i < to; i++) {
		if (i == 0) {
			if (put_byte(out, 0) || put_byte(out, 0))
				return -FK_E_NOMEM;
			continue;
		}
		fk_profile_name_ahead(e->p, i + 16 < to ? e->src_of[i + 16] : UINT32_MAX,
				      i + 8 < to ? e->src_of[i + 8] : UINT32_MAX);
		size_t len;
		const char *name = fk_profile_name(e->p, e->src_of[i], &len);
		size_t sh = fk_common_prefix(prev, plen, name, len);
		if (put_uv(out, sh) || put_uv(out, len - sh) || put_mem(out, name + sh, len - sh))
			return -FK_E_NOMEM;
		prev = name;
		plen = len;
	}
	return 0;
}

/* Page names by use, then one code a node (the codes above). */
static int encode_names(enc *e)
{
	uint32_t n = e->nused;
	e->nnames = n + 1;
	e->src_of = malloc((size_t)(n + 1) * sizeof(*e->src_of));
	e->al = calloc((size_t)n + 1, sizeof(*e->al));
	if (!e->src_of || !e->al)
		return -FK_E_NOMEM;
	/* most nodes first, a tie by the names' bytes: the names used, in the order of their
	 * bytes (the ranks' inverse), then a radix sort by uses alone, which keeps that order
	 * where uses tie (least significant digit first: stable); two passes of the uses'
	 * varying digits where keys of uses and ranks took four (b-wide's jvm shape, 1M names:
	 * 30 -> 17 ms) */
	size_t nsrc = fk_profile_name_count(e->p);
	size_t big = ((size_t)n + 1) * 2 * sizeof(uint64_t) + ((nsrc > n ? nsrc : n) + 1) * sizeof(uint32_t);
	uint64_t *key = fk_big_alloc(big);
	if (!key)
		return -FK_E_NOMEM;
	uint64_t *k2 = key + n + 1;
	uint32_t *tmp = (uint32_t *)(k2 + n + 1);
	uint32_t *order = e->src_of + 1; /* (the page's names: src_of from page name 1 on) */
	for (size_t s = 0; s < nsrc; s++)
		tmp[e->rank[s]] = (uint32_t)s;
	uint32_t k = 0;
	for (size_t r = 0; r < nsrc; r++)
		if (e->uses[tmp[r]] && k < n)
			order[k++] = tmp[r];
	for (uint32_t i = 0; i < n; i++)
		key[i] = UINT32_MAX - e->uses[order[i]];
	if (e->two) /* (by two threads from FK_RADIX_TWO_MIN names on: the same order) */
		fk_radix64_two(key, order, n, 32, k2, tmp);
	else
		fk_radix64(key, order, n, 32, k2, tmp);
	fk_big_free(key, big);
	e->src_of[0] = UINT32_MAX;
	for (uint32_t i = 0; i < n; i++)
		e->page[order[i]] = i + 1;
	/* the off-CPU mark's page name, where a frame carries it (its colours: encode_colors) */
	e->offmark = e->mark_src >= 0 && e->uses[e->mark_src] ? (int64_t)e->page[e->mark_src] : -1;
	uint32_t nn = e->nnames;
	e->idw = nn <= 0x100 ? 1 : nn <= 0x10000 ? 2 : nn <= 0x1000000 ? 3 : 4;
	/* the nodes whose name has no code of its own without alphabets (page names past ESC) */
	size_t direct = 0;
	for (uint32_t i = 0; i < n && i < ESC; i++)
		direct += e->uses[order[i]];
	e->nesc = e->nfr - direct;
	free(e->uses); /* (the page's names are ordered) */
	free(e->rank);
	e->uses = e->rank = NULL;
	return 0;
}

/* One code a node (name_codes). */
enum { PROBE_NODES = 1 << 16 };
static int encode_codes(enc *e)
{
	/* which names go by their own code first: none (each parent name's alphabet first:
	 * call trees where a function calls a few others) or all (names drawn from everywhere,
	 * as in b-html.sh's generated profile): the alphabets where they code the first nodes
	 * (64k: on every bench shape the sizes of 250k in the same ratio, within 0.02) a tenth
	 * smaller at least. They cost ~20 ns a node more (b-wide's names shape: 131 against 26
	 * ms for 4.8M nodes), for 4-9% fewer bytes of page on b-wide's shapes whose names are
	 * drawn at random (0.93-0.95 of the probe's bytes); a perf profile's call tree: 0.65 */
	size_t probe = e->nfr < PROBE_NODES ? e->nfr : PROBE_NODES;
	double bits[2];
	int rc = 0;
	for (int m = 0; m < 2 && !rc; m++) {
		e->nalpha = m ? 0 : ALPHA;
		rc = name_codes(e, probe, &bits[m]);
	}
	e->nalpha = bits[0] < 0.9 * bits[1] ? ALPHA : 0;
	return rc ? rc : name_codes(e, e->nfr, NULL);
}

static void enc_free(enc *e);

/* The walk in two parts (fk_profile_walk_split): the second part's nodes go to streams of
 * its own, numbered from 0, as if its first node followed a node at the seam's depth; joined
 * after the first part's, the values that hang on what came before (the run of deeper
 * nodes the first part left open, the distance of the first own counts from the last ones)
 * are its streams' first values, made whole at the join. */
static void part_begin(void *ctx2, const fk_walk_seam *seam)
{
	enc *e2 = ctx2;
	e2->prev_depth = seam->depth;
}

/* (each part's thread, once its part is walked) Its names' uses counted, by both threads at
 * once (the second part's in a table of its own: none if out of memory, and the join then
 * declines). */
static void part_end(void *ctx)
{
	enc *e = ctx;
	if (e->uses || (e->uses = calloc(fk_profile_name_count(e->p) + 1, sizeof(*e->uses))))
		count_uses(e);
}

/* Stream s2 (a second part's) after s, its first value raised by add. */
static int join_stream(bytes *s, const bytes *s2, uint64_t add)
{
	if (!s2->n)
		return 0;
	const uint8_t *q = s2->b;
	uint64_t v = get_uv(&q);
	if (put_uv(s, v + add))
		return -FK_E_NOMEM;
	return put_mem(s, q, (size_t)(s2->b + s2->n - q));
}

static int part_join(void *ctx, void *ctx2, const fk_walk_seam *seam)
{
	enc *e = ctx, *e2 = ctx2;
	/* counts that are not integers are numbered by the floats table in the order met: the
	 * second part's would be numbered from 0 (rare: the first thread walks it again) */
	if (e2->fl.n || !e->nodes_out || !e2->nodes_out || !e2->uses)
		return 0;
	/* the first part's last node, its own counts now that the next node's depth is known */
	int rc = put_selfs(e, seam->shared + 1 <= seam->depth);
	if (rc)
		return rc;
	if (e2->s[S_POPS].n) {
		if ((rc = join_stream(&e->s[S_POPS], &e2->s[S_POPS], e->run)))
			return rc;
		e->run = e2->run;
	} else {
		e->run += e2->run;
	}
	for (unsigned c = 0; c < 2; c++) {
		bytes *s = &e->s[S_SELF0 + c];
		if (e2->s[S_SELF0 + c].n) {
			if ((rc = join_stream(s, &e2->s[S_SELF0 + c], e->nodes_out - e->last_self[c])))
				return rc;
			e->last_self[c] = e->nodes_out + e2->last_self[c];
		}
		if ((rc = put_mem(&e->s[S_LEAF0 + c], e2->s[S_LEAF0 + c].b, e2->s[S_LEAF0 + c].n)))
			return rc;
	}
	if (FK_GROW(e->fr, e->fr_cap, e->nfr + e2->nfr))
		return -FK_E_NOMEM;
	memcpy(e->fr + e->nfr, e2->fr, e2->nfr * sizeof(*e->fr));
	e->nfr += e2->nfr;
	e->counted += e2->counted;
	e->uses2 = e2->uses; /* (added up by count_uses) */
	e2->uses = NULL;
	e->nodes_out += e2->nodes_out;
	e->maxdepth = e2->maxdepth > e->maxdepth ? e2->maxdepth : e->maxdepth;
	e->prev_depth = e2->prev_depth;
	e->pend[0] = e2->pend[0];
	e->pend[1] = e2->pend[1];
	return 1;
}

/* Pre-order walk of the merged tree, siblings by name (fk_profile_walk), so the page is
 * the same for the same stacks whatever order they were read in; of many stacks, in two
 * parts at once where a CPU is free. */
static int encode_tree(enc *e)
{
	size_t nsrc = fk_profile_name_count(e->p);
	e->uses = calloc(nsrc + 1, sizeof(*e->uses));
	e->page = malloc((nsrc + 1) * sizeof(*e->page));
	if (!e->uses || !e->page)
		return -FK_E_NOMEM;
	fk_walk_ops ops = { .open = on_open };
	enc e2 = { .p = e->p, .ncols = e->ncols };
	fk_walk_split sp = { &e2, part_begin, part_end, part_join };
	int rc = fk_profile_walk_split(e->p, &ops, e, e->two ? &sp : NULL, &e->rank);
	enc_free(&e2);
	if (!rc && e->nodes_out)
		rc = put_selfs(e, true);
	if (!rc && put_uv(&e->s[S_POPS], e->run))
		rc = -FK_E_NOMEM;
	if (rc)
		return rc;
	fk_profile_root_self(e->p, e->root_self); /* stacks of no frame (the walk opens none) */
	count_uses(e);
	free(e->uses2);
	e->uses2 = NULL;
	return encode_names(e);
}

/* A name's colour as fk_render_svg gives it (off: its off-CPU colour): the separators'
 * fixed grey, else the palette's. */
static uint32_t name_color(fk_palette *pal, const char *name, size_t len, bool off)
{
	uint32_t c = fk_palette_fixed(name, len);
	if (c != UINT32_MAX)
		return c;
	return off ? fk_palette_offcpu_color(pal, name, len) : fk_palette_color(pal, name, len, false);
}

/* The colours fk_render_svg gives the page's names, as three byte planes: the red of every
 * name, then the green, then the blue (colours are much alike in each plane, rarely as a
 * whole: Huffman codes alone pay); in combined on/off-CPU graphs (a frame named
 * FK_OFFCPU_MARK) also the off-CPU colour of each name. */
static int encode_colors(enc *e, const fk_svg_opts *o)
{
	fk_palette *pal = e->col ? NULL : fk_palette_new(o);
	if (!e->col && !pal)
		return errno == ENOMEM || errno == FK_E_NOMEM ? -FK_E_NOMEM : -(errno ? errno : FK_E_INVAL);
	size_t nsrc = fk_profile_name_count(e->p);
	int rc = 0;
	for (int k = 0; k < (e->offmark >= 0 ? 2 : 1) && !rc; k++) {
		bytes *s = &e->s[k ? S_OFFCOLORS : S_COLORS];
		size_t nn = e->nnames;
		if (FK_GROW(s->b, s->cap, nn * 3))
			rc = -FK_E_NOMEM;
		uint8_t *out = s->b; /* (not through s: the name codes' thread writes beside it) */
		const uint32_t *early = k ? e->offcol : e->col;
		for (uint32_t i = 0; i < e->nnames && !rc; i++) {
			uint32_t c, src = e->src_of[i];
			if (early) { /* (the root's "": after the source names) */
				c = early[src == UINT32_MAX ? nsrc : src];
			} else {
				if (i + 8 < e->nnames)
					fk_profile_name_ahead(e->p, i + 16 < e->nnames ? e->src_of[i + 16] : UINT32_MAX,
							      e->src_of[i + 8]);
				size_t len = 0;
				const char *name = src == UINT32_MAX ? "" : fk_profile_name(e->p, src, &len);
				c = name_color(pal, name, len, k);
			}
			out[i] = (uint8_t)(c >> 16);
			out[nn + i] = (uint8_t)(c >> 8);
			out[2 * nn + i] = (uint8_t)c;
		}
		if (!rc)
			s->n = 3 * nn;
	}
	if (!rc && pal)
		rc = fk_palette_save(pal);
	fk_palette_free(pal);
	return rc;
}

/* The colours of every source name, made by a second thread while the first walks the tree
 * (encode_colors then only puts them in the page's order): where names are many, a CPU is
 * free and a name's colour is the name's alone (not --random, whose colours follow the
 * page's order, nor a palette map file, which would learn names no frame carries). */
struct early_job {
	enc *e;
	const fk_svg_opts *o;
	bool off;
	int rc;
};

static void *early_colors(void *v)
{
	struct early_job *j = v;
	enc *e = j->e;
	fk_palette *pal = fk_palette_new(j->o);
	if (!pal) {
		j->rc = errno == ENOMEM || errno == FK_E_NOMEM ? -FK_E_NOMEM : -(errno ? errno : FK_E_INVAL);
		return NULL;
	}
	size_t n = fk_profile_name_count(e->p);
	for (size_t s = 0; s <= n; s++) {
		if (s + 8 < n)
			fk_profile_name_ahead(e->p, s + 16 < n ? (uint32_t)(s + 16) : UINT32_MAX, (uint32_t)(s + 8));
		size_t len = 0;
		const char *name = s == n ? "" : fk_profile_name(e->p, (uint32_t)s, &len);
		e->col[s] = name_color(pal, name, len, false);
		if (j->off)
			e->offcol[s] = name_color(pal, name, len, true);
	}
	fk_palette_free(pal);
	return NULL;
}

static void enc_free(enc *e)
{
	for (int i = 0; i < S_COUNT; i++)
		free(e->s[i].b);
	free(e->al);
	free(e->pool);
	free(e->col);
	free(e->offcol);
	free(e->fr);
	free(e->uses);
	free(e->uses2);
	free(e->page);
	free(e->rank);
	free(e->src_of);
	free(e->fl.v);
}

/* ---- deflate blocks of Huffman codes only (RFC 1951, BTYPE 2), for the two large streams
 * whose bytes are close to random (name codes, raw ids): LZ matching finds nothing there,
 * and zlib's byte loop for them was most of the encoder's time once. */
typedef struct bitw {
	uint8_t *p;     /* next byte to write (room checked by the caller) */
	uint64_t acc;
	unsigned n;     /* bits in acc */
} bitw;

static inline void bw_put(bitw *w, uint32_t bits, unsigned n)
{
	w->acc |= (uint64_t)bits << w->n;
	w->n += n;
	if (w->n >= 32) {
		uint32_t v = (uint32_t)w->acc;
		w->p[0] = (uint8_t)v;
		w->p[1] = (uint8_t)(v >> 8);
		w->p[2] = (uint8_t)(v >> 16);
		w->p[3] = (uint8_t)(v >> 24);
		w->p += 4;
		w->acc >>= 32;
		w->n -= 32;
	}
}

/* Writes out the bits left, the last byte padded with zeros. */
static void bw_flush(bitw *w)
{
	while (w->n > 0) {
		*w->p++ = (uint8_t)w->acc;
		w->acc >>= 8;
		w->n = w->n > 8 ? w->n - 8 : 0;
	}
	w->acc = 0;
}

/* Code lengths of a Huffman code for n symbols (f: frequencies, 0 = unused), none longer
 * than maxbits (frequencies halved until it fits). Two-queue construction over the symbols
 * sorted by frequency; ties by symbol, so the code is the same for the same counts. */
static void huff_lengths(const uint32_t *freq, int n, int maxbits, uint8_t *len)
{
	uint32_t f[320], w[640];
	int sym[320], parent[640], depth[640];
	for (int i = 0; i < n; i++)
		f[i] = freq[i];
	for (;;) {
		int m = 0;
		for (int i = 0; i < n; i++)
			if (f[i])
				sym[m++] = i;
		/* insertion sort by (frequency, symbol): n <= 286 */
		for (int i = 1; i < m; i++) {
			int s = sym[i], j = i;
			while (j > 0 && (f[sym[j - 1]] > f[s] || (f[sym[j - 1]] == f[s] && sym[j - 1] > s))) {
				sym[j] = sym[j - 1];
				j--;
			}
			sym[j] = s;
		}
		memset(len, 0, (size_t)n);
		if (m == 1) {
			len[sym[0]] = 1;
			return;
		}
		/* leaves 0..m-1 (sorted), internal nodes m.. in the order made */
		for (int i = 0; i < m; i++)
			w[i] = f[sym[i]];
		int a = 0, b = m, top = m;
		for (int k = 0; k < m - 1; k++) {
			int x[2];
			for (int t = 0; t < 2; t++)
				x[t] = (a < m && (b >= top || w[a] <= w[b])) ? a++ : b++;
			w[top] = w[x[0]] + w[x[1]];
			parent[x[0]] = parent[x[1]] = top++;
		}
		int maxd = 0;
		depth[top - 1] = 0;
		for (int i = top - 2; i >= 0; i--) {
			depth[i] = depth[parent[i]] + 1;
			if (i < m && depth[i] > maxd)
				maxd = depth[i];
		}
		if (maxd <= maxbits) {
			for (int i = 0; i < m; i++)
				len[sym[i]] = (uint8_t)depth[i];
			return;
		}
		for (int i = 0; i < n; i++)
			if (f[i])
				f[i] = (f[i] >> 1) | 1;
	}
}

/* Canonical codes of the lengths, bit-reversed (deflate sends a code's top bit first). */
static void huff_codes(const uint8_t *len, int n, uint16_t *code)
{
	uint16_t count[16] = { 0 }, next[16];
	for (int i = 0; i < n; i++)
		count[len[i]]++;
	count[0] = 0;
	unsigned c = 0;
	for (int b = 1; b < 16; b++) {
		c = (c + count[b - 1]) << 1;
		next[b] = (uint16_t)c;
	}
	for (int i = 0; i < n; i++) {
		if (!len[i])
			continue;
		unsigned v = next[len[i]]++, r = 0;
		for (int k = 0; k < len[i]; k++)
			r |= ((v >> k) & 1u) << (len[i] - 1 - k);
		code[i] = (uint16_t)r;
	}
}

/* One dynamic-Huffman block (not the last) of the n bytes at d: literals and end of block. */
static void huff_block(bitw *w, const uint8_t *d, size_t n)
{
	static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
	uint32_t freq[286] = { 0 }, cf[19] = { 0 };
	uint8_t len[288], clen[19];
	uint16_t code[288], ccode[19];
	for (size_t i = 0; i < n; i++)
		freq[d[i]]++;
	freq[256] = 1;
	huff_lengths(freq, 257, 15, len);
	len[257] = len[258] = 1; /* two distance codes of one bit: none is used */
	for (int i = 0; i < 259; i++)
		cf[len[i]]++;
	huff_lengths(cf, 19, 7, clen);
	huff_codes(len, 257, code);
	huff_codes(clen, 19, ccode);
	int hclen = 19;
	while (hclen > 4 && !clen[order[hclen - 1]])
		hclen--;
	bw_put(w, 0 | 2u << 1, 3); /* BFINAL 0, BTYPE 2 */
	bw_put(w, 0, 5);           /* HLIT: 257 codes */
	bw_put(w, 1, 5);           /* HDIST: 2 codes */
	bw_put(w, (uint32_t)(hclen - 4), 4);
	for (int i = 0; i < hclen; i++)
		bw_put(w, clen[order[i]], 3);
	for (int i = 0; i < 259; i++)
		bw_put(w, ccode[len[i]], clen[len[i]]);
	/* the symbols: three at a time into the 64-bit accumulator (at most 7 + 45 bits), then
	 * its whole bytes stored at once */
	size_t i = 0;
	bw_put(w, 0, 0);
	while (w->n >= 8) { /* bw_put leaves up to 31 bits: down to fewer than 8 */
		*w->p++ = (uint8_t)w->acc;
		w->acc >>= 8;
		w->n -= 8;
	}
	uint64_t acc = w->acc;
	unsigned nb = w->n;
	uint8_t *q = w->p;
	for (; i + 3 <= n; i += 3) {
		uint8_t a = d[i], b = d[i + 1], c = d[i + 2];
		acc |= (uint64_t)code[a] << nb;
		nb += len[a];
		acc |= (uint64_t)code[b] << nb;
		nb += len[b];
		acc |= (uint64_t)code[c] << nb;
		nb += len[c];
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		memcpy(q, &acc, 8);
#else
		for (unsigned k = 0; k < 8; k++)
			q[k] = (uint8_t)(acc >> (8 * k));
#endif
		q += nb >> 3;
		acc >>= nb & ~7u;
		nb &= 7;
	}
	w->p = q;
	w->acc = acc;
	w->n = nb;
	for (; i < n; i++)
		bw_put(w, code[d[i]], len[d[i]]);
	bw_put(w, code[256], len[256]);
}

/* Huffman blocks for the n bytes at d (a block per 128 KB: codes follow the local counts). */
static int huff_stream(bytes *z, const uint8_t *d, size_t n, bitw *w)
{
	for (size_t off = 0; off < n; off += (size_t)128 << 10) {
		size_t k = n - off < ((size_t)128 << 10) ? n - off : (size_t)128 << 10;
		size_t at = (size_t)(w->p - z->b);
		/* room: 15 bits a byte at most, the header, 8 bytes of bits in flight */
		if (FK_GROW(z->b, z->cap, at + 2 * k + 1024))
			return -FK_E_NOMEM;
		w->p = z->b + at;
		huff_block(w, d + off, k);
	}
	return 0;
}

/* libdeflate's level for the pieces where repeats pay (see encode_deflate). */
enum { LZ_LEVEL = 1 };

enum { NAMES_PIECE = 1 << 15, NAMES_PIECES = 16, PIECE_INS = 12 };
struct piece {
	bool huff;
	const enc *names;     /* a piece of the names: page names from .. to - 1, their bytes */
	uint32_t from, to;    /* made by the piece's thread first, as its first input (in[0]) */
	size_t names_n;
	struct {
		const uint8_t *b;
		size_t n;
	} in[PIECE_INS];
	int nin;
	size_t raw;           /* the bytes it holds before deflate */
	bytes z;
	int rc;
};

/* The pieces in the stream's order: the names' (+ the depths), the name codes', the
 * colours', the counts' (the last). The names' and the counts' are ready once the tree is
 * walked: either thread takes the next one of them not taken (queue, next: atomic); the
 * codes' piece is made by the thread that coded them, the colours' by the one that made
 * those. */
struct pieces {
	struct piece p[NAMES_PIECES + 3];
	int n, codes, colors;
	int queue[NAMES_PIECES + 1], nqueue, next;
};

static void piece_in(struct piece *pc, const uint8_t *b, size_t n)
{
	if (n && pc->nin < PIECE_INS) { /* (at most 8 a piece) */
		pc->in[pc->nin].b = b;
		pc->in[pc->nin++].n = n;
	}
}

static int piece_deflate(struct piece *pc, struct libdeflate_compressor *c);

/* (c: the thread's compressor, for pieces not made of Huffman blocks) */
static int piece_make(struct piece *pc, struct libdeflate_compressor *c)
{
	if (pc->names) {
		bytes own = { 0 };
		int rc = names_bytes(pc->names, pc->from, pc->to, &own);
		pc->in[0].b = own.b;
		pc->in[0].n = pc->names_n = own.n;
		if (!rc)
			rc = piece_deflate(pc, c);
		free(own.b); /* (deflated: only their number is asked for) */
		pc->in[0].b = NULL;
		return rc;
	}
	return piece_deflate(pc, c);
}

static int piece_deflate(struct piece *pc, struct libdeflate_compressor *c)
{
	bytes *z = &pc->z;
	pc->raw = 0;
	for (int i = 0; i < pc->nin; i++)
		pc->raw += pc->in[i].n;
	if (pc->huff) {
		bitw w = { z->b, 0, 0 };
		for (int i = 0; i < pc->nin; i++) {
			int rc = huff_stream(z, pc->in[i].b, pc->in[i].n, &w);
			if (rc)
				return rc;
		}
		/* the stream's end: an empty stored block, the last (BFINAL 1, BTYPE 0) */
		size_t at = (size_t)(w.p - z->b);
		if (FK_GROW(z->b, z->cap, at + 16))
			return -FK_E_NOMEM;
		w.p = z->b + at;
		bw_put(&w, 1, 3);
		bw_flush(&w);
		*w.p++ = 0;
		*w.p++ = 0;
		*w.p++ = 0xff;
		*w.p++ = 0xff;
		z->n = (size_t)(w.p - z->b);
		return 0;
	}
	/* libdeflate takes one buffer: the inputs joined when there are several */
	const uint8_t *in = pc->nin ? pc->in[0].b : NULL;
	uint8_t *joined = NULL;
	if (pc->nin > 1) {
		if (!(joined = malloc(pc->raw)))
			return -FK_E_NOMEM;
		size_t at = 0;
		for (int i = 0; i < pc->nin; i++) {
			memcpy(joined + at, pc->in[i].b, pc->in[i].n);
			at += pc->in[i].n;
		}
		in = joined;
	}
	int rc = c ? 0 : -FK_E_NOMEM;
	size_t bound = c ? libdeflate_deflate_compress_bound(c, pc->raw) : 0;
	if (!rc && FK_GROW(z->b, z->cap, bound + 1))
		rc = -FK_E_NOMEM;
	if (!rc) {
		static const uint8_t none;
		z->n = libdeflate_deflate_compress(c, in ? in : &none, pc->raw, z->b, z->cap);
		if (!z->n)
			rc = -FK_E_NOMEM; /* (cannot be: room for the bound) */
	}
	free(joined);
	return rc;
}

/* The pieces of the queue not taken yet, one after the other, with a compressor of this
 * thread's (made once: its tables, fresh memory, cost as much as a small piece). */
static void pieces_run(struct pieces *ps)
{
	struct libdeflate_compressor *c = NULL;
	for (int k; (k = __atomic_fetch_add(&ps->next, 1, __ATOMIC_RELAXED)) < ps->nqueue;) {
		if (!c)
			c = libdeflate_alloc_compressor(LZ_LEVEL);
		ps->p[ps->queue[k]].rc = piece_make(&ps->p[ps->queue[k]], c);
	}
	libdeflate_free_compressor(c);
}

/* Cuts the streams into pieces (by the input only: the same pieces whoever makes them). The
 * names: a piece for each NAMES_PIECE names (at most NAMES_PIECES), whose bytes its thread
 * makes; the next piece cannot refer back into the one before (b-wide's jvm shape: its 11
 * MB of names in 2 pieces or 16, the page the same size within 0.03%). pre[i] goes before
 * stream i (the root's own counts; none before the names). */
static void pieces_plan(const enc *e, const bytes *pre, struct pieces *ps)
{
	const bytes *s = e->s;
	size_t nn = e->nnames, k = nn / NAMES_PIECE;
	k = k < 1 ? 1 : k > NAMES_PIECES ? NAMES_PIECES : k;
	struct piece *pc = NULL;
	for (size_t i = 0; i < k; i++) {
		ps->queue[ps->nqueue++] = ps->n;
		pc = &ps->p[ps->n++];
		pc->names = e;
		pc->from = (uint32_t)(nn * i / k);
		pc->to = (uint32_t)(nn * (i + 1) / k);
		pc->nin = 1; /* (in[0]: their bytes) */
	}
	for (int i = S_POPS; i < S_NAME; i++) {
		piece_in(pc, pre[i].b, pre[i].n);
		piece_in(pc, s[i].b, s[i].n);
	}
	/* the name codes and each plane of the raw ids; the colours' planes (their inputs
	 * are there once the codes and colours are made: piece_in is called then) */
	ps->codes = ps->n++;
	ps->p[ps->codes].huff = true;
	ps->colors = ps->n++;
	ps->p[ps->colors].huff = true;
	/* the counts, and the stream's end */
	ps->queue[ps->nqueue++] = ps->n;
	pc = &ps->p[ps->n++];
	for (int i = S_LEAF0; i < S_COUNT; i++) {
		piece_in(pc, pre[i].b, pre[i].n);
		piece_in(pc, s[i].b, s[i].n);
	}
}

static void piece_codes(const enc *e, struct pieces *ps)
{
	struct piece *pc = &ps->p[ps->codes];
	const bytes *s = e->s;
	piece_in(pc, s[S_NAME].b, s[S_NAME].n);
	size_t nraw = e->idw ? s[S_RAW].n / e->idw : 0;
	for (unsigned k = 0; k < e->idw && nraw; k++)
		piece_in(pc, s[S_RAW].b + k * nraw, nraw);
	pc->rc = piece_make(pc, NULL);
}

static void piece_colors(const enc *e, struct pieces *ps)
{
	struct piece *pc = &ps->p[ps->colors];
	const bytes *s = e->s;
	for (int i = S_COLORS; i <= S_OFFCOLORS; i++)
		for (unsigned k = 0; k < 3 && s[i].n; k++)
			piece_in(pc, s[i].b + k * (s[i].n / 3), s[i].n / 3);
	pc->rc = piece_make(pc, NULL);
}

/* The parts: the pieces' raw deflate streams, one after the other (base64 runs across their
 * joins: not copied into one buffer, 22 MB for b-wide's names shape). */
typedef struct zparts {
	bytes p[NAMES_PIECES + 3];
	size_t raw[NAMES_PIECES + 3]; /* each one's bytes inflated */
	int n;
} zparts;

static int pieces_take(struct pieces *ps, zparts *z)
{
	int rc = 0;
	for (int k = 0; k < ps->n; k++) {
		if (!rc)
			rc = ps->p[k].rc;
		z->raw[z->n] = ps->p[k].raw;
		z->p[z->n++] = ps->p[k].z;
	}
	return rc;
}

/* What the second thread does while the first codes the nodes' names: the colours where
 * names are many (those made during the walk put in the page's order, or made here: the 1M
 * names of b-wide's jvm shape ~45 ms), their piece, then pieces of the queue, as the first
 * does once its codes' piece is made. */
enum { COLORS_TWO = 1 << 16, PIECES_TWO = 4 << 20 };
struct side_job {
	enc *e;
	const fk_svg_opts *o;
	struct pieces *ps;
	bool colors;
	int rc;
};

static void *side_run(void *v)
{
	struct side_job *j = v;
	if (j->colors && !(j->rc = encode_colors(j->e, j->o)))
		piece_colors(j->e, j->ps);
	pieces_run(j->ps);
	return NULL;
}

/* The streams, concatenated, cut into pieces, each deflated as a raw deflate stream of its
 * own (a part: the page inflates each into its place), so they follow each other whoever
 * made them: libdeflate (LZ and Huffman) for the streams where repeats pay (names,
 * depth runs, counts), Huffman blocks only for the name codes, each byte plane of the raw
 * ids and the colours' planes. Where names are many or the streams hold 4 MB or more and a
 * CPU is free, a second thread takes part (side_run) from the walk's end. libdeflate, not
 * zlib: it takes one buffer at a time, which is what a piece is, and at level 1 deflated
 * 8 MB of JVM names in a third of zlib level 1's time, 40% smaller; b-wide's pages came out
 * 0.97-0.99 of zlib's size in 0.90-0.97 of the time (cxx, jvm, names, same16; alternating
 * runs). Level 1: levels 2 and 4 wrote pages 0.2-2% smaller in 1.0-1.1x the time. */
static int encode_deflate(enc *e, const fk_svg_opts *o, bytes *pre, zparts *z)
{
	/* the root's own counts lead their streams (node 0, distance 0) */
	int rc = 0;
	for (unsigned c = 0; c < 2 && !rc; c++)
		if (e->root_self[c] != 0 && !(rc = put_uv(&pre[S_SELF0 + c], 0)))
			rc = put_count(e, &pre[S_SELF0 + c], e->root_self[c]);
	if (rc)
		return rc;
	struct pieces ps = { 0 };
	pieces_plan(e, pre, &ps);
	size_t ready = 0;
	for (int i = 0; i < S_COUNT; i++)
		ready += pre[i].n + e->s[i].n;
	struct side_job j = { e, o, &ps, e->nnames >= COLORS_TWO, 0 };
	pthread_t th;
	/* (the codes take about a byte a node, the raw ids idw more for some; the names are
	 * many or ready is not small) */
	bool spawned = e->two && (j.colors || ready + e->nfr >= PIECES_TWO) &&
		       fk_thread_start(&th, side_run, &j) == 0;
	rc = encode_codes(e);
	free(e->fr); /* (the walk's names: coded) */
	e->fr = NULL;
	if (!rc)
		piece_codes(e, &ps);
	if (!spawned) {
		if (!rc && !(rc = encode_colors(e, o)))
			piece_colors(e, &ps);
	} else if (!j.colors && !rc) {
		rc = encode_colors(e, o);
		if (!rc)
			piece_colors(e, &ps);
	}
	pieces_run(&ps);
	if (spawned)
		pthread_join(th, NULL);
	if (!rc)
		rc = j.rc;
	int prc = pieces_take(&ps, z);
	for (int k = 0; k < ps.n; k++)
		e->s[S_NAMES].n += ps.p[k].names_n;
	for (int i = 0; i < S_COUNT; i++) { /* (deflated: only their sizes are still asked for) */
		free(e->s[i].b);
		e->s[i].b = NULL;
	}
	return rc ? rc : prc;
}

/* base64 of the deflated streams, one line (the page decodes it in one call). */
static const char b64_tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static inline void b64_put3(const uint8_t *d, char *o)
{
	uint32_t v = (uint32_t)d[0] << 16 | (uint32_t)d[1] << 8 | d[2];
	o[0] = b64_tab[v >> 18];
	o[1] = b64_tab[(v >> 12) & 63];
	o[2] = b64_tab[(v >> 6) & 63];
	o[3] = b64_tab[v & 63];
}

static void put_base64(fk_obuf *b, const zparts *z)
{
	char buf[4096];
	size_t k = 0;
	uint8_t c[3]; /* bytes carried over a join of two pieces */
	unsigned nc = 0;
	for (int p = 0; p < z->n; p++) {
		const uint8_t *d = z->p[p].b;
		size_t n = z->p[p].n, i = 0;
		while (nc && nc < 3 && i < n)
			c[nc++] = d[i++];
		if (nc == 3) {
			b64_put3(c, buf + k);
			k += 4;
			nc = 0;
		}
		for (; i + 3 <= n; i += 3) {
			if (k + 4 > sizeof(buf)) {
				fk_obuf_put(b, buf, k);
				k = 0;
			}
			b64_put3(d + i, buf + k);
			k += 4;
		}
		while (i < n)
			c[nc++] = d[i++];
		if (k + 4 > sizeof(buf)) {
			fk_obuf_put(b, buf, k);
			k = 0;
		}
	}
	if (nc) {
		c[1] = nc > 1 ? c[1] : 0;
		c[2] = 0;
		b64_put3(c, buf + k);
		if (nc == 1)
			buf[k + 2] = '=';
		buf[k + 3] = '=';
		k += 4;
	}
	fk_obuf_put(b, buf, k);
}

static void put_json_str(fk_obuf *b, const char *key, const char *v)
{
	fk_obuf_printf(b, ",\"%s\":", key);
	if (v)
		fk_obuf_js(b, v, strlen(v));
	else
		fk_obuf_puts(b, "null");
}

static void put_json_num(fk_obuf *b, const char *key, double v)
{
	fk_obuf_printf(b, ",\"%s\":", key);
	fk_obuf_exact(b, isfinite(v) ? v : 0);
}

static int write_page(fk_obuf *b, const enc *e, const fk_svg_opts *o, const zparts *z, const size_t *sizes,
		      size_t raw_len, unsigned ncols)
{
	const char *title = o->title && *o->title ? o->title : o->inverted ? "Icicle Graph" : "Flame Graph";
	char bg1[8], bg2[8];
	fk_palette_background(o->colors, o->bgcolors, bg1, bg2);
	fk_obuf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
			"<meta name=\"generator\" content=\"flamekit " FK_VERSION_STRING "\">\n"
			"<meta name=\"viewport\" content=\"width=device-width\">\n"
			"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			"script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n<title>");
	fk_obuf_xml(b, title, strlen(title));
	fk_obuf_puts(b, "</title>\n<style>\n");
	fk_obuf_puts(b, fk_page_viewer_css);
	fk_obuf_puts(b, "</style>\n</head>\n<body>\n<div id=\"fkapp\"></div>\n"
			"<noscript>This page needs JavaScript.</noscript>\n"
			"<script id=\"fkmeta\" type=\"application/json\">{\"v\":4");
	put_json_str(b, "title", title);
	put_json_str(b, "subtitle", o->subtitle && *o->subtitle ? o->subtitle : NULL);
	put_json_str(b, "countname", o->countname);
	put_json_str(b, "nametype", o->nametype);
	put_json_str(b, "font", o->fonttype);
	put_json_num(b, "fontsize", o->fontsize);
	put_json_num(b, "frameheight", o->frameheight);
	put_json_num(b, "factor", o->factor);
	fk_obuf_printf(b, ",\"bg\":[\"%s\",\"%s\"],\"inverted\":%s,\"reverse\":%s,\"negate\":%s,"
			  "\"tl\":%s,\"cols\":%u,\"nodes\":%llu,\"depth\":%u,\"names\":%u,\"alpha\":%u,"
			  "\"idw\":%u,\"raw\":%zu,",
		       bg1, bg2, o->inverted ? "true" : "false", o->reverse ? "true" : "false",
		       o->negate ? "true" : "false", o->truncate == FK_TRUNC_LEFT ? "true" : "false", ncols,
		       (unsigned long long)e->nodes_out + 1, e->maxdepth, e->nnames, e->nalpha, e->idw, raw_len);
	if (e->offmark >= 0)
		fk_obuf_printf(b, "\"offmark\":%lld,", (long long)e->offmark);
	fk_obuf_puts(b, "\"streams\":{");
	for (int i = 0; i < S_COUNT; i++)
		fk_obuf_printf(b, "%s\"%s\":%zu", i ? "," : "", stream_names[i], sizes[i]);
	fk_obuf_puts(b, "},\"parts\":[");
	for (int k = 0; k < z->n; k++)
		fk_obuf_printf(b, "%s[%zu,%zu]", k ? "," : "", z->p[k].n, z->raw[k]);
	fk_obuf_puts(b, "],\"floats\":[");
	fk_page_floats_json(b, &e->fl);
	fk_obuf_puts(b, "]}</script>\n<script id=\"fkdata\" type=\"application/octet-stream\">");
	put_base64(b, z);
	fk_obuf_puts(b, "</script>\n<script>\n");
	fk_obuf_puts(b, fk_page_counts_js);
	fk_obuf_puts(b, fk_page_viewer_js);
	fk_obuf_puts(b, "</script>\n<script>\nflamekit.boot();\n</script>\n</body></html>\n");
	return 0;
}

int fk_render_html(const fk_profile *p, const fk_svg_opts *opts, FILE *out)
{
	if (!p || !opts || !out)
		return -FK_E_INVAL;
	fk_svg_opts o = *opts;
	if (!o.fonttype)
		o.fonttype = "Verdana";
	fk_svg_opts_defaults(&o, p); /* countname, palette, title by what the profile counts */
	if (!o.nametype)
		o.nametype = "Function:";
	int rc = fk_svg_opts_check(&o);
	if (rc)
		return rc;
	if (o.flamechart) {
		fk_warn("the HTML page draws merged stacks (no --flamechart): use flamekit svg");
		return -FK_E_INVAL;
	}
	fk_profile *owned = NULL;
	if ((rc = fk_svg_derive(p, &o, &owned)))
		return rc;
	const fk_profile *src = owned ? owned : p;
	enc e = { .p = src, .ncols = fk_profile_columns(src) > 1 ? 2 : 1, .offmark = -1 };
	e.mark_src = e.ncols > 1 ? -1 : fk_profile_find_name(src, FK_OFFCPU_MARK, strlen(FK_OFFCPU_MARK));
	bytes pre[S_COUNT] = { { 0 } };
	zparts z = { .n = 0 };
	if (fk_profile_total(src, 0) == 0 && fk_profile_total(src, 1) == 0) {
		rc = -FK_E_EMPTY;
		goto out;
	}
	e.two = fk_profile_second_cpu(src);
	struct early_job ej = { &e, &o, false, 0 };
	pthread_t eth;
	bool early = false;
	size_t nsrc = fk_profile_name_count(src);
	if (e.two && nsrc >= COLORS_TWO && !o.cp_file && !(o.random && !o.hash)) {
		ej.off = e.mark_src >= 0;
		e.col = malloc((nsrc + 1) * sizeof(*e.col));
		e.offcol = ej.off ? malloc((nsrc + 1) * sizeof(*e.offcol)) : NULL;
		early = e.col && (!ej.off || e.offcol) && fk_thread_start(&eth, early_colors, &ej) == 0;
		if (!early) {
			free(e.col);
			free(e.offcol);
			e.col = e.offcol = NULL;
		}
	}
	rc = encode_tree(&e);
	if (early) {
		pthread_join(eth, NULL);
		if (!rc)
			rc = ej.rc;
	}
	if (rc)
		goto out;
	fk_log(FK_LEVEL_DEBUG, "html: stacks encoded");
	if ((rc = encode_deflate(&e, &o, pre, &z)))
		goto out;
	fk_log(FK_LEVEL_DEBUG, "html: compressed");
	size_t sizes[S_COUNT], raw_len = 0;
	for (int i = 0; i < S_COUNT; i++)
		raw_len += sizes[i] = pre[i].n + e.s[i].n;
	fk_obuf b;
	if ((rc = fk_obuf_init(&b, out)))
		goto out;
	rc = write_page(&b, &e, &o, &z, sizes, raw_len, fk_profile_columns(src));
	int wrc = fk_obuf_finish(&b);
	fk_log(FK_LEVEL_DEBUG, "html: written, %llu bytes", (unsigned long long)b.flushed);
	if (!rc)
		rc = wrc;
out:
	for (int i = 0; i < S_COUNT; i++)
		free(pre[i].b);
	for (int k = 0; k < z.n; k++)
		free(z.p[k].b);
	enc_free(&e);
	fk_profile_free(owned);
	return rc;
}

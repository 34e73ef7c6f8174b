/* profile.c - the profile model: interned names, a call tree of index-linked
 * nodes with per-column self counts, optional per-sample records, merge and
 * filter. Its text outputs (folded stacks, samples) are in write.c. */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "base/out.h"

/* Room for `need` nodes. From FK_RESERVE_FROM on the array is in a stretch of its own,
 * where it grows in place (no copy, and no old copy left behind in the heap), on huge pages
 * from its start: a tree is written in order, and 64 MB of perf text's 97k nodes took 950
 * faults in 4 KiB pages, half of them in the halves' merge, where the other thread waits. */
static int nodes_reserve(fk_profile *p, size_t need)
{
	return fk_grow_reserved_from((void **)&p->nodes, &p->nodes_cap, &p->nodes_reserved, need,
				     sizeof(fk_node), 0);
}

/* The name table's two halves are two tables: a name's slots are in the half of its tag's
 * parity, so two threads can intern names of either parity at once (fk_profile_intern_parity),
 * each writing slots in cache lines of its own half. NAME_HOME: a tag's first slot (the
 * tag's other bits pick it in its half); NAME_NEXT: the next slot in the same half. */
#define NAME_HOME(tag, mask) (((size_t)(tag) & 1) * (((mask) >> 1) + 1) | ((size_t)(tag) >> 1 & (mask) >> 1))
#define NAME_NEXT(i, mask) (((i) & ~((mask) >> 1)) | (((i) + 1) & (mask) >> 1))
#define NAME_HALF(i, mask) ((i) > (mask) >> 1)

/* The names of one half of the old table moved into the same half of a new one (part 0
 * or 1: each half's own slots, so two threads can move both at once). */
struct rehash {
	const struct name_slot *old;
	struct name_slot *tab;
	size_t old_size, size;
};
static void rehash_half(void *arg, unsigned part)
{
	const struct rehash *r = arg;
	size_t half = r->old_size / 2, mask = r->size - 1;
	for (size_t k = part ? half : 0, end = part ? r->old_size : half; k < end; k++) {
		if (!r->old[k].id1)
			continue;
		size_t i = NAME_HOME(r->old[k].tag, mask);
		while (r->tab[i].id1)
			i = NAME_NEXT(i, mask);
		r->tab[i] = r->old[k];
	}
}

/* (a table of 512k slots or more, where two threads may read and a CPU is free: the halves
 * moved by two; 800k names' last doublings took 6.5 ms of the first thread's, the second
 * waiting, and 3.8 by two) */
enum { REHASH_TWO_FROM = 1 << 19 };

static int name_tab_rehash(fk_profile *p, size_t size)
{
	if (size - 1 > UINT32_MAX)
		return 0; /* the tag picks the slot: no more slots than 32 bits address (fuller) */
	struct name_slot *tab = fk_zalloc_by(size, sizeof(*tab), &p->toucher);
	if (!tab)
		return -FK_E_NOMEM;
	if (p->name_tab) {
		struct rehash r = { p->name_tab, tab, p->name_tab_mask + 1, size };
		if (r.old_size >= REHASH_TWO_FROM && p->threads >= 2 && fk_cpu_free()) {
			fk_run2(rehash_half, &r);
		} else {
			rehash_half(&r, 0);
			rehash_half(&r, 1);
		}
	}
	fk_zfree(p->name_tab, p->name_tab_mask + 1, sizeof(*tab));
	p->name_tab = tab;
	p->name_tab_mask = size - 1;
	return 0;
}

static void name_tab_drop(fk_profile *p)
{
	fk_zfree(p->name_tab, p->name_tab_mask + 1, sizeof(*p->name_tab));
	p->name_tab = NULL;
	p->name_tab_mask = 0;
}

static int child_tab_rehash(fk_profile *p, size_t size)
{
	struct child_ent *tab = fk_zalloc(size, sizeof(*tab));
	if (!tab)
		return -FK_E_NOMEM;
	for (size_t n = 1; n < p->nnodes; n++) {
		uint64_t key = (uint64_t)p->nodes[n].parent << 32 | p->nodes[n].frame;
		size_t i = fk_mix64(key) & (size - 1);
		while (tab[i].node)
			i = (i + 1) & (size - 1);
		tab[i].key = key;
		tab[i].node = (uint32_t)n;
	}
	fk_zfree(p->child_tab, p->child_tab_mask + 1, sizeof(*tab));
	p->child_tab = tab;
	p->child_tab_mask = size - 1;
	p->nindexed = p->nnodes;
	return 0;
}

/* Index the nodes fk_profile_child_unindexed left out, in one pass. */
static int child_tab_fresh(fk_profile *p)
{
	size_t size = p->child_tab_mask + 1;
	while (p->nnodes * 2 > size && size <= SIZE_MAX / 4)
		size *= 2;
	return child_tab_rehash(p, size);
}

fk_profile *fk_profile_new(unsigned flags)
{
	fk_profile *p = calloc(1, sizeof(*p));
	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	p->flags = flags;
	p->ncols = 1;
	if (name_tab_rehash(p, 1024) || child_tab_rehash(p, 1024) ||
	    nodes_reserve(p, 1024) || fk_profile_intern(p, "", 0) != 0) {
		fk_profile_free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->nodes[0] = (fk_node){ .parent = FK_NONE, .frame = 0, .first_child = FK_NONE,
				 .next_sibling = FK_NONE, .depth = 0 };
	p->nnodes = 1;
	p->nindexed = 1;
	return p;
}

void fk_profile_free(fk_profile *p)
{
	if (!p)
		return;
	free(p->unit_from);
	fk_free_reserved(p->str, p->str_reserved);
	fk_free_reserved(p->names, p->names_reserved);
	name_tab_drop(p);
	fk_free_reserved(p->nodes, p->nodes_reserved);
	fk_zfree(p->child_tab, p->child_tab_mask + 1, sizeof(*p->child_tab));
	free(p->samples);
	free(p->scratch);
	fk_stacks_free(p);
	free(p->unit);
	free(p);
}

static int64_t name_lookup(const fk_profile *p, const char *s, size_t len, uint64_t h, size_t *slot);

/* The names the renderers look up in a profile (drawn sealed): found from the name table as
 * it goes, where a search reads every name (800k names: ~0.6 ms for the two of a drawing,
 * the second thread waiting). */
static const struct {
	const char *s;
	size_t len;
} asked[FK_ASKED] = { { FK_OFFCPU_MARK, sizeof(FK_OFFCPU_MARK) - 1 }, { "--", 2 } };

void fk_profile_seal(fk_profile *p)
{
	size_t slot;
	for (size_t k = 0; k < FK_ASKED && p->name_tab; k++)
		p->asked_id[k] = name_lookup(p, asked[k].s, asked[k].len,
					     fk_name_hash(asked[k].s, asked[k].len), &slot);
	p->sealed = true;
	name_tab_drop(p);
	fk_stacks_drop_index(p);
}

unsigned fk_profile_flags(const fk_profile *p) { return p->flags; }
void fk_profile_use_threads(fk_profile *p, unsigned threads)
{
	if (threads > p->threads)
		p->threads = threads;
}

void fk_profile_set_toucher(fk_profile *p, const fk_toucher *t)
{
	p->toucher = t ? *t : (fk_toucher){ 0 };
}

/* An array's front: where it ends and where its stretch does (none while on the heap). */
static fk_front front(void *data, size_t used, size_t reserved)
{
	if (!reserved)
		return (fk_front){ NULL, NULL };
	return (fk_front){ (char *)data + used, (char *)data + reserved };
}

void fk_profile_fronts(const fk_profile *p, fk_front out[FK_FRONTS])
{
	out[0] = front(p->names, p->nnames * sizeof(*p->names), p->names_reserved);
	out[1] = front(p->str, p->str_len, p->str_reserved);
	out[2] = front(p->sid, p->nsid * sizeof(*p->sid), p->sid_reserved);
	out[3] = front(p->stk, p->nstk * sizeof(*p->stk), p->stk_reserved);
}

void fk_profile_one_thread(fk_profile *p)
{
	p->threads = 1;
}

unsigned fk_profile_threads(const fk_profile *p) { return p->threads ? p->threads : 1; }
bool fk_profile_second_cpu(const fk_profile *p) { return fk_profile_threads(p) >= 2 && fk_cpu_free_looks(); }
size_t fk_profile_frames_bound(const fk_profile *p) { return p->nnodes + p->nsid; }

int fk_profile_set_unit(fk_profile *p, const char *unit)
{
	char *u = NULL;
	if (unit && !(u = strdup(unit)))
		return -FK_E_NOMEM;
	free(p->unit);
	p->unit = u;
	return 0;
}

const char *fk_profile_unit(const fk_profile *p) { return p->unit; }

int fk_profile_set_unit_source(fk_profile *p, const char *name, const char *format)
{
	char *n = name ? strdup(name) : NULL;
	if (name && !n)
		return -FK_E_NOMEM;
	free(p->unit_from);
	p->unit_from = n;
	snprintf(p->unit_format, sizeof(p->unit_format), "%s", format ? format : "");
	return 0;
}

const char *fk_profile_unit_source(const fk_profile *p, const char **format)
{
	*format = p->unit_format[0] ? p->unit_format : NULL;
	return p->unit_from;
}

/* perf script text weighs samples by their period unless told --samples: the one input
 * whose unit that option changes */
static bool periods_of_perf(const char *format, const char *unit)
{
	return format && !strcmp(format, "perf") && unit && strcmp(unit, "samples");
}

void fk_warn_mixed_units(const char *name, const char *unit, const char *format,
			 const char *before, const char *before_unit, const char *before_format)
{
	bool hint = periods_of_perf(format, unit) || periods_of_perf(before_format, before_unit);
	fk_warn("warning: %s counts %s, %s counts %s: their sums mix units%s", name,
		unit ? unit : "?", before ? before : "the input before it",
		before_unit ? before_unit : "?",
		hint ? " (perf script input counts samples with --samples)" : "");
}
void fk_profile_set_kind(fk_profile *p, int kind) { p->kind = kind; }
int fk_profile_kind(const fk_profile *p) { return p->kind; }

/* Whether a's and b's first len bytes are equal: words, the last one overlapping. */
static inline bool same_bytes(const char *a, const char *b, size_t len)
{
	uint64_t x, y;
	if (len >= 8) {
		size_t i = 0;
		for (; i + 8 < len; i += 8) {
			memcpy(&x, a + i, 8);
			memcpy(&y, b + i, 8);
			if (x != y)
				return false;
		}
		memcpy(&x, a + len - 8, 8);
		memcpy(&y, b + len - 8, 8);
		return x == y;
	}
	if (len >= 4) {
		uint32_t u, v, u2, v2;
		memcpy(&u, a, 4);
		memcpy(&v, b, 4);
		memcpy(&u2, a + len - 4, 4);
		memcpy(&v2, b + len - 4, 4);
		return u == v && u2 == v2;
	}
	for (size_t i = 0; i < len; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Whether slot t holds the name s of len bytes (its tag already matched). */
static inline bool slot_is(const fk_profile *p, const struct name_slot *t, const char *s, size_t len)
{
	if (t->at != NAME_AT_FAR)
		return (t->at & 0xffffff) == len && same_bytes(p->str + (t->at >> 24), s, len);
	const struct name_ent *e = &p->names[t->id1 - 1];
	return e->len == len && same_bytes(p->str + e->off, s, len);
}

/* The id of name s (hash h), or -1 with *slot the empty slot where it would go. */
static int64_t name_lookup(const fk_profile *p, const char *s, size_t len, uint64_t h, size_t *slot)
{
	uint32_t tag = (uint32_t)(h >> 32);
	size_t i = NAME_HOME(tag, p->name_tab_mask);
	/* the tag rules out most other names without reading their bytes */
	for (; p->name_tab[i].id1; i = NAME_NEXT(i, p->name_tab_mask))
		if (p->name_tab[i].tag == tag && slot_is(p, &p->name_tab[i], s, len))
			return p->name_tab[i].id1 - 1;
	*slot = i;
	return -1;
}

/* The table grown while a parity's half is over half full, or would be over 3/4 full with
 * `more` new names of one parity (a batch: fk_profile_intern_parity claims a slot for each).
 * 0, or -FK_E_TOOBIG when the biggest table (2^32 slots) has no such room, or -FK_E_NOMEM. */
static int names_room(fk_profile *p, size_t more)
{
	size_t most = p->name_par[0] > p->name_par[1] ? p->name_par[0] : p->name_par[1];
	for (;;) {
		size_t size = p->name_tab_mask + 1, half = size / 2;
		bool fits = (most + more) * 4 <= half * 3;
		if (most * 2 <= half && fits)
			return 0;
		int err = name_tab_rehash(p, size * 2);
		if (err)
			return err;
		if (p->name_tab_mask + 1 == size) /* (it grows no more) */
			return fits ? 0 : -FK_E_TOOBIG;
	}
}

/* Name s (hash h) written as id: its entry, its bytes at off in str (room made there), and
 * what the table slot that finds it holds. */
static inline struct name_slot name_put(struct name_ent *names, char *str, uint32_t id,
					uint64_t off, const char *s, uint32_t len, uint64_t h)
{
	names[id] = (struct name_ent){ .off = off, .len = len, .hash = (uint32_t)h };
	if (len)
		memcpy(str + off, s, len);
	str[off + len] = 0;
	return (struct name_slot){ .tag = (uint32_t)(h >> 32), .id1 = id + 1,
		.at = len < 0xffffff && off < (1ULL << 40) ? off << 24 | len : NAME_AT_FAR };
}

/* A new name s (hash h) given the next id, its bytes appended; *v: what its table slot
 * (slot i: empty, or claimed for it) is to hold, counted in its half. The id or a negative
 * error. */
static int64_t name_new(fk_profile *p, const char *s, size_t len, uint64_t h, size_t i,
			struct name_slot *v)
{
	if (len > UINT32_MAX - 1 || p->nnames >= UINT32_MAX - 1)
		return -FK_E_TOOBIG;
	if (FK_GROW_RESERVED(p->names, p->names_cap, p->names_reserved, p->nnames + 1) ||
	    FK_GROW_RESERVED(p->str, p->str_cap, p->str_reserved, p->str_len + len + 1))
		return -FK_E_NOMEM;
	uint32_t id = (uint32_t)p->nnames++;
	*v = name_put(p->names, p->str, id, p->str_len, s, (uint32_t)len, h);
	p->str_len += len + 1;
	p->name_par[NAME_HALF(i, p->name_tab_mask)]++;
	return id;
}

/* name_new, its slot i written. */
static int64_t name_add(fk_profile *p, const char *s, size_t len, uint64_t h, size_t i)
{
	struct name_slot v;
	int64_t id = name_new(p, s, len, h, i, &v);
	if (id >= 0)
		p->name_tab[i] = v;
	return id;
}

int64_t fk_profile_find_name(const fk_profile *p, const char *s, size_t len)
{
	size_t i;
	uint64_t h = fk_name_hash(s, len);
	if (p->name_tab)
		return name_lookup(p, s, len, h, &i);
	for (size_t k = 0; k < FK_ASKED; k++)
		if (len == asked[k].len && !memcmp(s, asked[k].s, len))
			return p->asked_id[k];
	/* sealed: the entries in order, by length and the hash's low bits first (others: 1M
	 * names in ~1 ms) */
	for (i = 0; i < p->nnames; i++)
		if (p->names[i].len == len && p->names[i].hash == (uint32_t)h &&
		    same_bytes(p->str + p->names[i].off, s, len))
			return (int64_t)i;
	return -1;
}

int64_t fk_profile_intern_h(fk_profile *p, const char *s, size_t len, uint64_t h)
{
	if (p->sealed)
		return -FK_E_INVAL;
	size_t i;
	int64_t found = name_lookup(p, s, len, h, &i);
	if (found >= 0)
		return found;
	int64_t id = name_add(p, s, len, h, i);
	if (id < 0)
		return id;
	int err = names_room(p, 0);
	if (err)
		return err; /* (the name is interned; the table is merely full-ish) */
	return id;
}

int64_t fk_profile_intern(fk_profile *p, const char *s, size_t len)
{
	return fk_profile_intern_h(p, s, len, fk_name_hash(s, len));
}

/* A stack's names in steps, each over up to 32 names before the next (a name's lookup is
 * two dependent reads: its table slot, then its bytes; done name by name, each waits for
 * memory in turn, and with many distinct names most are misses): the slots fetched, then
 * the bytes of the slots whose tags match, then compared. A name not found this way (new,
 * or a tag twin) takes the full lookup, which also sees names an earlier name of the same
 * stack just added. */
#define INTERN_STEP 32
int fk_profile_intern_names(fk_profile *p, const char *s, const size_t *end, const uint64_t *hash,
			    size_t from, size_t n, uint32_t *ids)
{
	if (p->sealed)
		return -FK_E_INVAL;
	const struct name_slot *cand[INTERN_STEP];
	for (size_t c0 = from; c0 < n; c0 += INTERN_STEP) {
		size_t c1 = n - c0 < INTERN_STEP ? n : c0 + INTERN_STEP;
		const struct name_slot *tab = p->name_tab;
		size_t mask = p->name_tab_mask;
		for (size_t i = c0; i < c1; i++)
			__builtin_prefetch(&tab[NAME_HOME(hash[i] >> 32, mask)]);
		for (size_t i = c0; i < c1; i++) {
			uint32_t tag = (uint32_t)(hash[i] >> 32);
			size_t k = NAME_HOME(tag, mask);
			while (tab[k].id1 && tab[k].tag != tag)
				k = NAME_NEXT(k, mask);
			cand[i - c0] = tab[k].id1 ? &tab[k] : NULL;
			if (tab[k].id1 && tab[k].at != NAME_AT_FAR)
				__builtin_prefetch(p->str + (tab[k].at >> 24));
		}
		for (size_t i = c0; i < c1; i++) {
			size_t b = i ? end[i - 1] + 1 : 0, len = end[i] - b;
			const struct name_slot *t = cand[i - c0];
			/* (an earlier name of this step may have grown the table: t is stale then) */
			if (t && tab == p->name_tab && slot_is(p, t, s + b, len)) {
				ids[i] = t->id1 - 1;
				continue;
			}
			int64_t r = fk_profile_intern_h(p, s + b, len, hash[i]);
			if (r < 0)
				return (int)r;
			ids[i] = (uint32_t)r;
		}
	}
	return 0;
}

#define FK_TOK_AHEAD 12
int fk_profile_intern_toks(fk_profile *p, const char *base, const fk_name_tok *t, size_t n,
			   uint32_t *ids)
{
	if (p->sealed)
		return -FK_E_INVAL;
	enum { RING = 16 }; /* >= FK_TOK_AHEAD, a power of two */
	const struct name_slot *cand[RING];
	const struct name_slot *seen[RING]; /* the table cand[] was found in */
	for (size_t i = 0; i < n + 2 * FK_TOK_AHEAD; i++) {
		const struct name_slot *tab = p->name_tab;
		size_t mask = p->name_tab_mask;
		if (i < n)
			__builtin_prefetch(&tab[NAME_HOME(t[i].hash >> 32, mask)]);
		if (i >= FK_TOK_AHEAD && i - FK_TOK_AHEAD < n) {
			size_t j = i - FK_TOK_AHEAD;
			uint32_t tag = (uint32_t)(t[j].hash >> 32);
			size_t k = NAME_HOME(tag, mask);
			while (tab[k].id1 && tab[k].tag != tag)
				k = NAME_NEXT(k, mask);
			cand[j % RING] = tab[k].id1 ? &tab[k] : NULL;
			seen[j % RING] = tab;
			if (tab[k].id1 && tab[k].at != NAME_AT_FAR)
				__builtin_prefetch(p->str + (tab[k].at >> 24));
		}
		if (i < 2 * FK_TOK_AHEAD)
			continue;
		size_t j = i - 2 * FK_TOK_AHEAD;
		const struct name_slot *c = cand[j % RING];
		/* (a name interned since may have grown the table: c is stale then) */
		if (c && seen[j % RING] == p->name_tab && slot_is(p, c, base + t[j].off, t[j].len)) {
			ids[j] = c->id1 - 1;
			continue;
		}
		int64_t r = fk_profile_intern_h(p, base + t[j].off, t[j].len, t[j].hash);
		if (r < 0)
			return (int)r;
		ids[j] = (uint32_t)r;
	}
	return 0;
}

/* A slot claimed by fk_profile_intern_parity for a name new in its batch: id1 NAME_PENDING,
 * at the name's index among its parity's, until fk_profile_intern_settle gives it its id. */
#define NAME_PENDING UINT32_MAX

int fk_profile_names_room(fk_profile *p, size_t n, size_t bytes)
{
	if (p->sealed)
		return -FK_E_INVAL;
	if (p->nnames + n >= UINT32_MAX - 1)
		return -FK_E_TOOBIG;
	if (FK_GROW_RESERVED(p->names, p->names_cap, p->names_reserved, p->nnames + n) ||
	    FK_GROW_RESERVED(p->str, p->str_cap, p->str_reserved, p->str_len + bytes))
		return -FK_E_NOMEM;
	return names_room(p, n);
}

/* Name t[i] (of o's parity) in its parity's slots, pending names of this batch too: o->ids[i]
 * or o->first[i] set, a slot claimed when it is new. */
static void parity_lookup(fk_profile *p, const char *base, const fk_name_tok *t, size_t i,
			  fk_parity_out *o)
{
	struct name_slot *tab = p->name_tab;
	size_t mask = p->name_tab_mask;
	uint32_t tag = (uint32_t)(t[i].hash >> 32);
	size_t k = NAME_HOME(tag, mask);
	for (; tab[k].id1; k = NAME_NEXT(k, mask)) {
		if (tab[k].tag != tag)
			continue;
		if (tab[k].id1 == NAME_PENDING) {
			/* (a name like this one has its parity: t holds it) */
			const fk_name_tok *f = &t[tab[k].at];
			if (f->len == t[i].len && same_bytes(base + f->off, base + t[i].off, f->len)) {
				o->first[i] = (uint32_t)tab[k].at + 1;
				return;
			}
		} else if (slot_is(p, &tab[k], base + t[i].off, t[i].len)) {
			o->ids[i] = tab[k].id1 - 1;
			o->first[i] = 0;
			return;
		}
	}
	tab[k] = (struct name_slot){ .tag = tag, .id1 = NAME_PENDING, .at = i };
	o->first[i] = (uint32_t)i + 1;
	o->fresh[o->nfresh] = (uint32_t)i;
	o->slot[o->nfresh++] = k;
}

void fk_profile_intern_parity(fk_profile *p, const char *base, const fk_name_tok *t,
			      fk_parity_out *o, const int *stop)
{
	const struct name_slot *tab = p->name_tab;
	size_t mask = p->name_tab_mask, from = o->done, m = o->nmine;
	if (!from)
		o->nfresh = 0;
	enum { RING = 16 };
	const struct name_slot *cand[RING];
	for (size_t i = from; i < m + 2 * FK_TOK_AHEAD; i++) {
		if (i < m)
			__builtin_prefetch(&tab[NAME_HOME(t[i].hash >> 32, mask)]);
		if (i >= from + FK_TOK_AHEAD && i - FK_TOK_AHEAD < m) {
			uint32_t tag = (uint32_t)(t[i - FK_TOK_AHEAD].hash >> 32);
			size_t k = NAME_HOME(tag, mask);
			while (tab[k].id1 && tab[k].tag != tag)
				k = NAME_NEXT(k, mask);
			bool real = tab[k].id1 && tab[k].id1 != NAME_PENDING;
			cand[(i - FK_TOK_AHEAD) % RING] = real ? &tab[k] : NULL;
			if (real && tab[k].at != NAME_AT_FAR)
				__builtin_prefetch(p->str + (tab[k].at >> 24));
		}
		if (i < from + 2 * FK_TOK_AHEAD)
			continue;
		size_t q = i - 2 * FK_TOK_AHEAD;
		const struct name_slot *c = cand[q % RING];
		if (c && slot_is(p, c, base + t[q].off, t[q].len)) {
			o->ids[q] = c->id1 - 1;
			o->first[q] = 0;
		} else {
			parity_lookup(p, base, t, q, o);
		}
		/* (names from q + 1 on not yet taken: the candidates fetched are dropped) */
		if (stop && (q + 1) % FK_STOP_STEP == 0 && q + 1 < m &&
		    __atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
			o->done = q + 1;
			return;
		}
	}
	o->done = m;
}

int fk_profile_intern_settle(fk_profile *p, const char *base, const fk_name_tok *t,
			     fk_parity_out o[2], unsigned parity)
{
	/* (parity 0's settle comes after parity 1's, and counts its names in then) */
	size_t id = p->nnames, off = p->str_len;
	if (!parity) {
		id += o[1].nfresh;
		off += o[1].nbytes;
	}
	fk_parity_out *x = &o[parity];
	size_t n = x->nfresh, off0 = off;
	/* (room made by fk_profile_names_room: nothing moves while the other thread reads; the
	 * profile's counts are left as they were, their cache line holding the arrays'
	 * addresses, which the other reads at each name) */
	if (id + n >= UINT32_MAX - 1)
		return -FK_E_TOOBIG;
	if (id + n > p->names_cap)
		return -FK_E_NOMEM;
	struct name_ent *names = p->names;
	char *str = p->str;
	struct name_slot *tab = p->name_tab;
	for (size_t q = 0; q < n; q++, id++) {
		size_t i = x->fresh[q];
		if (off + t[i].len + 1 > p->str_cap)
			return -FK_E_NOMEM;
		tab[x->slot[q]] = name_put(names, str, (uint32_t)id, off, base + t[i].off, t[i].len,
					   t[i].hash);
		x->ids[i] = (uint32_t)id;
		off += t[i].len + 1;
	}
	x->nbytes = off - off0;
	if (parity)
		return 0;
	p->nnames = id;
	p->str_len = off;
	p->name_par[0] += o[0].nfresh;
	p->name_par[1] += o[1].nfresh;
	return names_room(p, 0);
}

void fk_profile_intern_ids(const fk_parity_out o[2], const uint64_t *pbit, size_t n,
			   uint32_t *ids)
{
	size_t at[2] = { 0, 0 };
	for (size_t j = 0; j < n; j++) {
		unsigned q = pbit[j >> 6] >> (j & 63) & 1;
		const fk_parity_out *x = &o[q];
		size_t i = at[q]++;
		ids[j] = x->first[i] ? x->ids[x->first[i] - 1] : x->ids[i];
	}
}

void fk_profile_name_ahead(const fk_profile *p, uint32_t far, uint32_t near)
{
	if (far < p->nnames)
		__builtin_prefetch(&p->names[far]);
	if (near < p->nnames)
		__builtin_prefetch(p->str + p->names[near].off);
}

const char *fk_profile_name(const fk_profile *p, uint32_t id, size_t *len)
{
	if (id >= p->nnames) {
		if (len)
			*len = 0;
		return "";
	}
	if (len)
		*len = p->names[id].len;
	return p->str + p->names[id].off;
}

size_t fk_profile_name_count(const fk_profile *p) { return p->nnames; }

int fk_profile_grow_nodes(fk_profile *p, size_t n)
{
	int terr = fk_model_tree(p);
	if (terr)
		return terr;
	size_t need = p->nnodes + n;
	return need < n || nodes_reserve(p, need) ? -FK_E_NOMEM : 0;
}

int fk_profile_reserve_nodes(fk_profile *p, size_t n)
{
	int rc = fk_profile_grow_nodes(p, n);
	/* a bulk build adds through fk_profile_child_unindexed, which needs every node that
	 * is already there in the table (and grows none) */
	return rc ? rc : p->nindexed < p->nnodes ? child_tab_fresh(p) : 0;
}

static int64_t new_child(fk_profile *p, uint32_t parent, uint32_t frame)
{
	if (parent >= p->nnodes || frame >= p->nnames)
		return -FK_E_INVAL;
	if (p->nnodes >= UINT32_MAX - 1)
		return -FK_E_TOOBIG;
	if (nodes_reserve(p, p->nnodes + 1))
		return -FK_E_NOMEM;
	uint32_t n = (uint32_t)p->nnodes++;
	fk_node *par = &p->nodes[parent];
	p->nodes[n] = (fk_node){ .parent = parent, .frame = frame, .first_child = FK_NONE,
				 .next_sibling = par->first_child, .depth = par->depth + 1 };
	par->first_child = n;
	return n;
}

int fk_profile_append_chain(fk_profile *p, uint32_t parent, const uint32_t *frames, size_t n,
			    uint32_t *nodes_out)
{
	int terr = fk_model_tree(p);
	if (terr)
		return terr;
	if (!n)
		return 0;
	if (parent >= p->nnodes)
		return -FK_E_INVAL;
	if (p->nnodes + n >= UINT32_MAX - 1)
		return -FK_E_TOOBIG;
	if (nodes_reserve(p, p->nnodes + n))
		return -FK_E_NOMEM;
	uint32_t first = (uint32_t)p->nnodes, depth = p->nodes[parent].depth;
	for (size_t k = 0; k < n; k++) {
		if (frames[k] >= p->nnames)
			return -FK_E_INVAL; /* the nodes before stay, a valid chain */
		uint32_t me = first + (uint32_t)k, up = k ? me - 1 : parent;
		p->nodes[me] = (fk_node){ .parent = up, .frame = frames[k], .first_child = FK_NONE,
					  .next_sibling = k ? FK_NONE : p->nodes[parent].first_child,
					  .depth = depth + 1 + (uint32_t)k };
		if (k)
			p->nodes[me - 1].first_child = me;
		else
			p->nodes[parent].first_child = me;
		p->nnodes++;
		nodes_out[k] = me;
	}
	return 0;
}

/* The child-table slot of (parent, frame): its entry, or the empty slot where it goes. */
static size_t child_slot(const fk_profile *p, uint64_t key)
{
	size_t i = fk_mix64(key) & p->child_tab_mask;
	while (p->child_tab[i].node && p->child_tab[i].key != key)
		i = (i + 1) & p->child_tab_mask;
	return i;
}

int64_t fk_profile_child_unindexed(fk_profile *p, uint32_t parent, uint32_t frame)
{
	int terr = fk_model_tree(p);
	if (terr)
		return terr;
	if (parent < p->nindexed) {
		size_t i = child_slot(p, (uint64_t)parent << 32 | frame);
		if (p->child_tab[i].node)
			return p->child_tab[i].node;
	}
	return new_child(p, parent, frame);
}

int64_t fk_profile_child(fk_profile *p, uint32_t parent, uint32_t frame)
{
	int terr = fk_model_tree(p);
	if (terr)
		return terr;
	if (p->nindexed < p->nnodes) {
		int err = child_tab_fresh(p);
		if (err)
			return err;
	}
	uint64_t key = (uint64_t)parent << 32 | frame;
	size_t i = child_slot(p, key);
	if (p->child_tab[i].node)
		return p->child_tab[i].node;
	int64_t n = new_child(p, parent, frame);
	if (n < 0)
		return n;
	p->child_tab[i].key = key;
	p->child_tab[i].node = (uint32_t)n;
	p->nindexed = p->nnodes;
	if (p->nnodes * 2 > p->child_tab_mask + 1) {
		int err = child_tab_rehash(p, (p->child_tab_mask + 1) * 2);
		if (err)
			return err;
	}
	return n;
}

static int record_sample(fk_profile *p, uint32_t node, unsigned col, double w,
			 const fk_sample_info *info)
{
	if (!(p->flags & FK_PROFILE_SAMPLES))
		return 0;
	if (FK_GROW(p->samples, p->samples_cap, p->nsamples + 1))
		return -FK_E_NOMEM;
	fk_sample *s = &p->samples[p->nsamples];
	*s = (fk_sample){ .time = NAN, .weight = w, .node = node, .comm = 0,
			  .pid = -1, .tid = -1, .cpu = -1, .col = col };
	if (info) {
		s->time = info->time;
		s->pid = info->pid;
		s->tid = info->tid;
		s->cpu = info->cpu;
		if (info->comm && info->comm_len) {
			int64_t c = fk_profile_intern(p, info->comm, info->comm_len);
			if (c < 0)
				return (int)c;
			s->comm = (uint32_t)c;
		}
	}
	p->nsamples++;
	return 0;
}

int fk_profile_add_to_node(fk_profile *p, uint32_t node, unsigned col, double count,
			   const fk_sample_info *info)
{
	int terr = fk_model_tree(p);
	if (terr)
		return terr;
	if (node >= p->nnodes || col > 1)
		return -FK_E_INVAL;
	p->nodes[node].self[col] += count;
	if (col == 1)
		p->ncols = 2;
	return info ? record_sample(p, node, col, count, info) : 0;
}

int64_t fk_profile_add_stack(fk_profile *p, const uint32_t *frames, size_t n, unsigned col,
			     double count)
{
	int terr = fk_model_tree(p);
	if (terr)
		return terr;
	if (col > 1)
		return -FK_E_INVAL;
	uint32_t node = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t c = fk_profile_child(p, node, frames[i]);
		if (c < 0)
			return c;
		node = (uint32_t)c;
	}
	p->nodes[node].self[col] += count;
	if (col == 1)
		p->ncols = 2;
	return node;
}

int64_t fk_profile_add_sample(fk_profile *p, const uint32_t *frames, size_t n, unsigned col,
			      double weight, const fk_sample_info *info)
{
	int64_t node = fk_profile_add_stack(p, frames, n, col, weight);
	if (node < 0)
		return node;
	int err = record_sample(p, (uint32_t)node, col, weight, info);
	return err ? err : node;
}

int64_t fk_profile_add_folded(fk_profile *p, const char *stack, size_t len, unsigned col,
			      double count)
{
	size_t n = 0;
	const char *s = stack, *end = stack + len;
	while (s <= end && len) {
		const char *semi = memchr(s, ';', (size_t)(end - s));
		const char *e = semi ? semi : end;
		int64_t id = fk_profile_intern(p, s, (size_t)(e - s));
		if (id < 0)
			return id;
		if (FK_GROW(p->scratch, p->scratch_cap, n + 1))
			return -FK_E_NOMEM;
		p->scratch[n++] = (uint32_t)id;
		if (!semi)
			break;
		s = semi + 1;
	}
	return fk_profile_add_stack(p, p->scratch, n, col, count);
}

const fk_node *fk_profile_nodes(const fk_profile *p, size_t *n)
{
	if (fk_model_tree_c(p)) {
		if (n)
			*n = 0;
		errno = ENOMEM;
		return NULL;
	}
	if (n)
		*n = p->nnodes;
	return p->nodes;
}

const fk_sample *fk_profile_samples(const fk_profile *p, size_t *n)
{
	if (n)
		*n = p->nsamples;
	return p->samples;
}

unsigned fk_profile_columns(const fk_profile *p) { return p->ncols; }

double fk_profile_total(const fk_profile *p, unsigned col)
{
	double t = 0;
	if (col > 1)
		return 0;
	for (size_t i = 0; i < p->nstk; i++)
		t += p->stk[i].self[col];
	for (size_t i = 0; i < p->nnodes; i++)
		t += p->nodes[i].self[col];
	return t;
}

bool fk_profile_is_tree(const fk_profile *p) { return p->nstk == 0; }

size_t fk_profile_stack_count(const fk_profile *p)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nstk; i++)
		n += p->stk[i].self[0] != 0 || p->stk[i].self[1] != 0;
	for (size_t i = 1; i < p->nnodes; i++)
		n += p->nodes[i].self[0] != 0 || p->nodes[i].self[1] != 0;
	return n;
}

void fk_profile_map_counts(fk_profile *p, unsigned col, double (*fn)(double v, void *ctx), void *ctx)
{
	col &= 1;
	for (size_t i = 0; i < p->nstk; i++)
		if (p->stk[i].self[col] != 0)
			p->stk[i].self[col] = fn(p->stk[i].self[col], ctx);
	for (size_t i = 0; i < p->nnodes; i++)
		if (p->nodes[i].self[col] != 0)
			p->nodes[i].self[col] = fn(p->nodes[i].self[col], ctx);
}

void fk_profile_two_columns(fk_profile *p) { p->ncols = 2; }

bool fk_profile_empty(const fk_profile *p)
{
	for (size_t i = 0; i < p->nstk; i++)
		if (p->stk[i].self[0] != 0 || p->stk[i].self[1] != 0)
			return false;
	for (size_t i = 1; i < p->nnodes; i++)
		if (p->nodes[i].self[0] != 0 || p->nodes[i].self[1] != 0)
			return false;
	return true;
}

void fk_profile_totals(const fk_profile *p, double *totals)
{
	if (fk_model_tree_c(p))
		return; /* the caller sized totals by fk_profile_nodes, which had failed */
	for (size_t i = 0; i < p->nnodes; i++) {
		totals[2 * i] = p->nodes[i].self[0];
		totals[2 * i + 1] = p->nodes[i].self[1];
	}
	/* A child is always created after its parent, so one backward pass suffices. */
	for (size_t i = p->nnodes; i-- > 1;) {
		uint32_t par = p->nodes[i].parent;
		totals[2 * par] += totals[2 * i];
		totals[2 * par + 1] += totals[2 * i + 1];
	}
}

int fk_profile_path_ids(const fk_profile *p, uint32_t node, uint32_t **ids, size_t *cap, size_t *n)
{
	int terr = fk_model_tree_c(p);
	if (terr)
		return terr;
	if (node >= p->nnodes)
		return -FK_E_INVAL;
	size_t d = p->nodes[node].depth;
	if (FK_GROW(*ids, *cap, d + 1))
		return -FK_E_NOMEM;
	*n = d;
	for (uint32_t x = node; x != 0; x = p->nodes[x].parent)
		(*ids)[--d] = p->nodes[x].frame;
	return 0;
}

int fk_profile_path_text(const fk_profile *p, uint32_t node, char **buf, size_t *cap, size_t *len)
{
	int terr = fk_model_tree_c(p);
	if (terr)
		return terr;
	if (node >= p->nnodes)
		return -FK_E_INVAL;
	size_t total = 0;
	for (uint32_t x = node; x != 0; x = p->nodes[x].parent)
		total += p->names[p->nodes[x].frame].len + 1;
	if (FK_GROW(*buf, *cap, total + 1))
		return -FK_E_NOMEM;
	size_t pos = total ? total - 1 : 0;
	(*buf)[pos] = 0;
	for (uint32_t x = node; x != 0; x = p->nodes[x].parent) {
		const struct name_ent *e = &p->names[p->nodes[x].frame];
		pos -= e->len;
		memcpy(*buf + pos, p->str + e->off, e->len);
		if (pos)
			(*buf)[--pos] = ';';
	}
	*len = total ? total - 1 : 0;
	return 0;
}

/* Scaled counts are rounded to whole units (ns periods -> us) so sums stay exact. */
static double scaled(double v, double factor)
{
	return factor == 1.0 ? v : round(v * factor);
}

/* fmap[i] := dst's id of src's name i (interned). 0 or a negative error. */
/* fmap[i] := dst's id of src's name i. src's names lie one after another in its text, each
 * ended by a NUL: they go to fk_profile_intern_names in batches, so their lookups overlap. */
static int map_names(fk_profile *dst, const fk_profile *src, uint32_t *fmap)
{
	enum { BATCH = 256 };
	size_t end[BATCH];
	uint64_t hash[BATCH];
	for (size_t i0 = 0; i0 < src->nnames; i0 += BATCH) {
		size_t n = src->nnames - i0 < BATCH ? src->nnames - i0 : BATCH;
		const char *base = src->str + src->names[i0].off;
		for (size_t k = 0; k < n; k++) {
			const struct name_ent *e = &src->names[i0 + k];
			end[k] = (size_t)(e->off - src->names[i0].off) + e->len;
			hash[k] = fk_name_hash(src->str + e->off, e->len);
			/* interning lays names out so (fk_profile_intern_h); said here, checked */
			if (k && e->off != src->names[i0 + k - 1].off + src->names[i0 + k - 1].len + 1)
				return -FK_E_INVAL;
		}
		int rc = fk_profile_intern_names(dst, base, end, hash, 0, n, fmap + i0);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- merging into stack mode: src's stacks, their names mapped, after the prefix frames
 * and before the mark, with scaled counts, added as stacks (no tree on either side). */
struct mseq {
	fk_profile *dst;
	const uint32_t *fmap;
	uint32_t *ids;
	size_t cap, npre;
	int64_t markid;     /* -1: none */
	double factor;
};

static int merge_seq(void *vctx, const uint32_t *ids, size_t n, const double self[2])
{
	struct mseq *m = vctx;
	size_t tot = m->npre + n + (m->markid >= 0);
	if (FK_GROW(m->ids, m->cap, tot + 1))
		return -FK_E_NOMEM;
	for (size_t i = 0; i < n; i++)
		m->ids[m->npre + i] = m->fmap[ids[i]];
	if (m->markid >= 0)
		m->ids[tot - 1] = (uint32_t)m->markid;
	int rc = 0;
	for (unsigned c = 0; c < 2 && !rc; c++)
		if (self[c] != 0)
			rc = fk_profile_add_seq(m->dst, m->ids, tot, c, scaled(self[c], m->factor));
	return rc;
}

static int merge_seqs(fk_profile *dst, const fk_profile *src, double factor, const char *mark,
		      const char *const *frames, size_t nframes)
{
	struct mseq m = { .dst = dst, .factor = factor, .markid = -1, .npre = nframes };
	uint32_t *fmap = malloc((src->nnames + 1) * sizeof(*fmap));
	int err = 0;
	if (!fmap || FK_GROW(m.ids, m.cap, nframes + 1)) {
		err = -FK_E_NOMEM;
		goto out;
	}
	err = map_names(dst, src, fmap);
	for (size_t i = 0; i < nframes && !err; i++) {
		int64_t id = fk_profile_intern(dst, frames[i], strlen(frames[i]));
		if (id < 0)
			err = (int)id;
		else
			m.ids[i] = (uint32_t)id;
	}
	if (!err && mark && (m.markid = fk_profile_intern(dst, mark, strlen(mark))) < 0)
		err = (int)m.markid;
	m.fmap = fmap;
	if (!err)
		err = fk_profile_each_stack(src, merge_seq, &m);
	if (!err && src->ncols > dst->ncols)
		dst->ncols = src->ncols;
out:
	free(fmap);
	free(m.ids);
	return err;
}

/* merge_scaled with src's root at dst's node `under` (0: dst's root). */
static int merge_at(fk_profile *dst, const fk_profile *src, double factor, const char *mark,
		    uint32_t under)
{
	if (under == 0 && fk_profile_takes_seqs(dst) && factor > 0 && isfinite(factor))
		return merge_seqs(dst, src, factor, mark, NULL, 0);
	uint32_t *fmap = malloc((src->nnames + 1) * sizeof(*fmap));
	uint32_t *nmap = NULL;
	int err = 0;
	int64_t markid = 0;
	bool plain = factor == 1.0 && !mark;
	/* samples carry the counts when both keep them: a node's count is then the sum of its
	 * samples' rounded weights, as a reader of the samples would add them */
	bool by_samples = (dst->flags & FK_PROFILE_SAMPLES) && src->nsamples;
	if ((err = fk_model_tree_c(src)) || (err = fk_model_tree(dst)))
		goto out;
	nmap = malloc((src->nnodes + 1) * sizeof(*nmap));
	if (!fmap || !nmap) {
		err = -FK_E_NOMEM;
		goto out;
	}
	if (!(factor > 0) || !isfinite(factor)) {
		err = -FK_E_INVAL;
		goto out;
	}
	if ((err = map_names(dst, src, fmap)))
		goto out;
	if (mark && (markid = fk_profile_intern(dst, mark, strlen(mark))) < 0) {
		err = (int)markid;
		goto out;
	}
	/* parents come before children in the node array */
	nmap[0] = under;
	for (size_t n = 1; n < src->nnodes; n++) {
		const fk_node *sn = &src->nodes[n];
		int64_t d = fk_profile_child(dst, nmap[sn->parent], fmap[sn->frame]);
		if (d < 0) {
			err = (int)d;
			goto out;
		}
		nmap[n] = (uint32_t)d;
	}
	if (mark) {
		/* counted nodes move to a mark child (after the whole tree is mapped: a
		 * node's children still hang under the unmarked node) */
		for (size_t n = 0; n < src->nnodes; n++) {
			if (src->nodes[n].self[0] == 0 && src->nodes[n].self[1] == 0)
				continue;
			int64_t d = fk_profile_child(dst, nmap[n], (uint32_t)markid);
			if (d < 0) {
				err = (int)d;
				goto out;
			}
			nmap[n] = (uint32_t)d;
		}
	}
	if (plain || !by_samples) {
		for (size_t n = 0; n < src->nnodes; n++) {
			const fk_node *sn = &src->nodes[n];
			dst->nodes[nmap[n]].self[0] += scaled(sn->self[0], factor);
			dst->nodes[nmap[n]].self[1] += scaled(sn->self[1], factor);
		}
	}
	if (src->ncols > dst->ncols)
		dst->ncols = src->ncols;
	if (by_samples) {
		if (FK_GROW(dst->samples, dst->samples_cap, dst->nsamples + src->nsamples)) {
			err = -FK_E_NOMEM;
			goto out;
		}
		for (size_t i = 0; i < src->nsamples; i++) {
			fk_sample s = src->samples[i];
			s.node = nmap[s.node];
			s.comm = fmap[s.comm];
			if (!plain) {
				s.weight = scaled(s.weight, factor);
				dst->nodes[s.node].self[s.col] += s.weight;
			}
			dst->samples[dst->nsamples++] = s;
		}
	}
out:
	free(fmap);
	free(nmap);
	return err;
}

int fk_profile_merge_scaled(fk_profile *dst, const fk_profile *src, double factor, const char *mark)
{
	return merge_at(dst, src, factor, mark, 0);
}

/* Whether dst holds nothing yet (no stack, no node but a root without counts). */
static bool blank(const fk_profile *dst)
{
	return dst->nnodes == 1 && !dst->nstk && dst->nodes[0].self[0] == 0 &&
	       dst->nodes[0].self[1] == 0;
}

bool fk_profile_blank(const fk_profile *p) { return blank(p) && !p->nsamples; }

int fk_profile_reset(fk_profile *p)
{
	fk_profile *q = fk_profile_new(p->flags);
	if (!q)
		return -FK_E_NOMEM;
	fk_profile t = *p;
	*p = *q;
	*q = t;
	/* what the caller set stays; the parse's contents go with q */
	p->ncols = q->ncols;
	p->kind = q->kind;
	p->unit = q->unit;
	q->unit = NULL;
	fk_profile_free(q);
	return 0;
}

/* After a merge (rc) into a dst that was blank: it takes on what the merged one counts. */
static int take_unit(fk_profile *dst, const fk_profile *src, bool was_blank, int rc)
{
	if (rc == 0 && was_blank && !dst->unit && src->unit) {
		rc = fk_profile_set_unit(dst, src->unit);
		dst->kind = src->kind;
	}
	return rc;
}

/* merge_at under the path of frames, made in dst's tree. */
static int merge_under_tree(fk_profile *dst, const fk_profile *src, const char *const *frames,
			    size_t n)
{
	int terr = fk_model_tree(dst);
	if (terr)
		return terr;
	uint32_t under = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t id = fk_profile_intern(dst, frames[i], strlen(frames[i]));
		if (id < 0)
			return (int)id;
		int64_t c = fk_profile_child(dst, under, (uint32_t)id);
		if (c < 0)
			return (int)c;
		under = (uint32_t)c;
	}
	return merge_at(dst, src, 1.0, NULL, under);
}

int fk_profile_merge_under(fk_profile *dst, const fk_profile *src, const char *const *frames,
			   size_t n)
{
	bool was_blank = blank(dst);
	int rc = fk_profile_takes_seqs(dst) ? merge_seqs(dst, src, 1.0, NULL, frames, n)
					    : merge_under_tree(dst, src, frames, n);
	return take_unit(dst, src, was_blank, rc);
}

int fk_profile_merge(fk_profile *dst, const fk_profile *src)
{
	bool was_blank = blank(dst);
	return take_unit(dst, src, was_blank, fk_profile_merge_scaled(dst, src, 1.0, NULL));
}

fk_profile *fk_profile_filter(const fk_profile *p, const char *re, int mode)
{
	regex_t rx;
	int rc = regcomp(&rx, re, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[256];
		regerror(rc, &rx, msg, sizeof(msg));
		fk_warn("invalid regular expression '%s': %s", re, msg);
		errno = EINVAL;
		return NULL;
	}
	if (fk_model_tree_c(p)) {
		regfree(&rx);
		errno = ENOMEM;
		return NULL;
	}
	fk_profile *out = fk_profile_new(p->flags);
	uint32_t *nmap = calloc(p->nnodes, sizeof(*nmap));
	uint32_t *ids = NULL;
	size_t ids_cap = 0, nids = 0, len = 0, cap = 0;
	char *text = NULL;
	int err = (!out || !nmap) ? -FK_E_NOMEM : 0;
	for (size_t n = 1; !err && n < p->nnodes; n++) {
		const fk_node *nd = &p->nodes[n];
		nmap[n] = FK_NONE;
		if (nd->self[0] == 0 && nd->self[1] == 0 && !(p->flags & FK_PROFILE_SAMPLES))
			continue;
		if ((err = fk_profile_path_text(p, (uint32_t)n, &text, &cap, &len)))
			break;
		/* regexec stops at NUL: names with NUL bytes match on their prefix. */
		bool match = regexec(&rx, text, 0, NULL, 0) == 0;
		if (match != (mode == FK_FILTER_KEEP))
			continue;
		if ((err = fk_profile_path_ids(p, (uint32_t)n, &ids, &ids_cap, &nids)))
			break;
		for (size_t i = 0; i < nids; i++) {
			size_t l;
			const char *s = fk_profile_name(p, ids[i], &l);
			int64_t id = fk_profile_intern(out, s, l);
			if (id < 0) {
				err = (int)id;
				break;
			}
			ids[i] = (uint32_t)id;
		}
		if (err)
			break;
		int64_t node = fk_profile_add_stack(out, ids, nids, 0, nd->self[0]);
		if (node < 0) {
			err = (int)node;
			break;
		}
		out->nodes[node].self[1] += nd->self[1];
		nmap[n] = (uint32_t)node;
	}
	if (!err && p->ncols > 1)
		out->ncols = p->ncols;
	for (size_t i = 0; !err && i < p->nsamples; i++) {
		fk_sample s = p->samples[i];
		if (s.node == 0 || nmap[s.node] == FK_NONE)
			continue;
		size_t l;
		const char *c = fk_profile_name(p, s.comm, &l);
		int64_t cid = fk_profile_intern(out, c, l);
		if (cid < 0 || FK_GROW(out->samples, out->samples_cap, out->nsamples + 1)) {
			err = -FK_E_NOMEM;
			break;
		}
		s.node = nmap[s.node];
		s.comm = (uint32_t)cid;
		out->samples[out->nsamples++] = s;
	}
	regfree(&rx);
	free(nmap);
	free(ids);
	free(text);
	if (err) {
		fk_profile_free(out);
		errno = ENOMEM;
		return NULL;
	}
	return out;
}

double fk_profile_time_origin(const fk_profile *p)
{
	/* nanoseconds as the heat map counts them; beyond +-9e9 s a time counts as
	 * untimed (its nanoseconds would overflow) */
	int64_t min_ns = INT64_MAX;
	for (size_t i = 0; i < p->nsamples; i++) {
		double t = p->samples[i].time;
		if (isfinite(t) && fabs(t) <= 9.0e9 && llround(t * 1e9) < min_ns)
			min_ns = llround(t * 1e9);
	}
	if (min_ns == INT64_MAX)
		return NAN;
	int64_t q = min_ns / 1000000000LL;
	if (min_ns % 1000000000LL != 0 && min_ns < 0)
		q--; /* floor, not truncation */
	return (double)q;
}

/* parse-folded.c - folded stacks "frame;frame;leaf COUNT[ COUNT2]", the
 * format flamegraph.pl reads: one or two count columns, counts may be
 * fractional. A trailing number after the stack is a second column, as in
 * flamegraph.pl's differential input. */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>
#include "internal.h"
#include "base/out.h"

/* Split "stack COUNT" at the last run of blanks; 0 or -1. */
static int split_count(const char *s, size_t len, size_t *stack_len, double *count)
{
	size_t e = len;
	while (e && fk_is_space(s[e - 1]))
		e--;
	size_t b = e;
	while (b && !fk_is_space(s[b - 1]))
		b--;
	if (b == e || b == 0 || fk_parse_count(s + b, e - b, count))
		return -1;
	while (b && fk_is_space(s[b - 1]))
		b--;
	*stack_len = b;
	return 0;
}

static bool is_count_token(const char *s, size_t len)
{
	double d;
	return len && fk_parse_count(s, len, &d) == 0;
}

/* A line of folded stacks (no '\n', a trailing '\r' dropped by the caller, not a comment):
 * the stack's length and its one or two counts (*two: a second trailing number makes it
 * differential, "stack BEFORE AFTER"). NULL, or why the line is malformed. */
static const char *split_line(const char *line, size_t len, size_t *sl, double *count,
			      double *count2, bool *two)
{
	if (split_count(line, len, sl, count))
		return "no count at the end of the line";
	size_t b = *sl;
	/* (a count holds no ';' and no more than 64 bytes: no scan through the stack) */
	while (b && !fk_is_space(line[b - 1]) && line[b - 1] != ';' && *sl - b <= 64)
		b--;
	*two = b > 0 && fk_is_space(line[b - 1]) && is_count_token(line + b, *sl - b);
	*count2 = 0;
	if (*two) {
		*count2 = *count;
		size_t sl2;
		split_count(line, *sl, &sl2, count);
		*sl = sl2;
	}
	return *sl == 0 ? "empty stack" : NULL;
}

static int probe(const char *buf, size_t len)
{
	int good = 0, lines = 0;
	const char *s = buf, *end = buf + len;
	while (s < end && lines < 20) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			break; /* ignore a partial last line */
		size_t l = (size_t)(nl - s);
		if (l && s[l - 1] == '\r')
			l--;
		if (l && s[0] != '#') {
			size_t sl;
			double c;
			lines++;
			if (!fk_is_space(s[0]) && !split_count(s, l, &sl, &c) && sl > 0)
				good++;
		}
		s = nl + 1;
	}
	if (lines == 0 && s < end) {
		size_t sl;
		double c;
		if (!fk_is_space(*s) && !split_count(s, (size_t)(end - s), &sl, &c) && sl > 0)
			return 30;
	}
	if (!lines || good < lines)
		return good && good * 2 >= lines ? 20 : 0;
	return 50;
}

/* Consecutive lines share their leading frames (sorted folded files share
 * most of them): the previous line's nodes are reused for the common prefix
 * instead of interning and looking up each of those frames again. */
typedef struct prefix_cache {
	char *text;        /* previous stack text */
	size_t len, cap;
	size_t *end;       /* end offset of each frame in text */
	uint32_t *node;    /* node reached after each frame (in seqs mode: the frame's id) */
	uint64_t *hash;    /* seqs mode: each frame's name hash */
	uint64_t seqhash;  /* seqs mode: the stack's hash (fk_seq_hash) */
	size_t n, ecap, ncap, hcap;
} prefix_cache;

/* Where the name that starts at s[i] ends (the next ';', or sl, the stack's end) and its
 * fk_name_hash in *hash: 8 bytes at a time while they lie within the line's len bytes. */
static inline size_t scan_name(const char *s, size_t i, size_t sl, size_t len, uint64_t *hash)
{
	size_t start = i;
	uint64_t h = FK_NH_SEED, w;
	while (i + 8 <= len) {
		memcpy(&w, s + i, 8);
		uint64_t x = w ^ 0x3b3b3b3b3b3b3b3bULL; /* ';' bytes become 0 */
		uint64_t z = (x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL;
		size_t b = z ? (size_t)__builtin_ctzll(z) >> 3 : 8;
		if (b > sl - i)
			b = sl - i;
		if (b < 8) {
			if (b)
				h = fk_nh_round(h, w & ((1ULL << (8 * b)) - 1));
			*hash = fk_nh_final(h, i + b - start);
			return i + b;
		}
		h = fk_nh_round(h, w);
		i += 8;
	}
	size_t e = i;
	while (e < sl && s[e] != ';')
		e++;
	if (e > i) {
		w = 0;
		memcpy(&w, s + i, e - i);
		h = fk_nh_round(h, w);
	}
	*hash = fk_nh_final(h, e - start);
	return e;
}

/* The hash of a stack whose names' hashes are hash[0..n) (fk_seq_hash). */
static inline uint64_t stack_hash(const uint64_t *hash, size_t n)
{
	uint64_t h = FK_SEQ_SEED;
	for (size_t i = 0; i < n; i++)
		h = fk_seq_step(h, (uint32_t)hash[i]);
	return fk_seq_hash(h, n);
}

/* How many whole names stack s (sl bytes) shares with the stack before (prev, whose names
 * end at pend[0..pn)): of their first bytes in common (*common, when asked), those up to
 * a name's end in both. */
static size_t names_shared(const char *s, size_t sl, const char *prev, size_t prev_sl,
			   const size_t *pend, size_t pn, size_t *common)
{
	size_t m = fk_common_prefix(s, sl, prev, prev_sl), k = 0;
	while (k < pn && (pend[k] < m || (pend[k] == m && (m == sl || s[m] == ';'))))
		k++;
	if (common)
		*common = m;
	return k;
}

/* seqs: the profile keeps unique stacks (fk_profile_add_seq): pc->node holds the ids and
 * the caller adds pc->node[0 .. pc->n); else the node reached is returned. */
static int64_t add_stack_cached(fk_parse_ctx *c, prefix_cache *pc, const char *s, size_t sl,
				size_t len, bool seqs)
{
	fk_profile *p = c->p;
	size_t m, k = names_shared(s, sl, pc->text, pc->len, pc->end, pc->n, &m);
	uint32_t node = k ? pc->node[k - 1] : 0;
	size_t pos = k ? pc->end[k - 1] + 1 : 0;
	pc->n = k;
	bool rules = fk_name_rules_on(c->o);
	if (seqs && !rules) {
		/* every new name's end and hash first, then all looked up at once */
		size_t n = k;
		while (pos <= sl) {
			if (FK_UNLIKELY(n >= pc->ecap || n >= pc->ncap || n >= pc->hcap) &&
			    (FK_GROW(pc->end, pc->ecap, n + 1) || FK_GROW(pc->node, pc->ncap, n + 1) ||
			     FK_GROW(pc->hash, pc->hcap, n + 1)))
				return -FK_E_NOMEM;
			size_t e = scan_name(s, pos, sl, len, &pc->hash[n]);
			pc->end[n++] = e;
			pos = e + 1;
		}
		pc->seqhash = stack_hash(pc->hash, n);
		fk_profile_seq_prefetch(p, pc->seqhash);
		int rc = fk_profile_intern_names(p, s, pc->end, pc->hash, k, n, pc->node);
		if (rc)
			return rc;
		pc->n = n;
		pos = sl + 1;
	}
	while (pos <= sl) {
		uint64_t h;
		size_t e = scan_name(s, pos, sl, len, &h);
		int64_t id = rules ? fk_parse_intern(c, s + pos, e - pos)
				   : fk_profile_intern_h(p, s + pos, e - pos, h);
		if (id < 0)
			return id;
		if (seqs) {
			node = (uint32_t)id;
		} else {
			int64_t ch = fk_profile_child(p, node, (uint32_t)id);
			if (ch < 0)
				return ch;
			node = (uint32_t)ch;
		}
		if (FK_GROW(pc->end, pc->ecap, pc->n + 1) || FK_GROW(pc->node, pc->ncap, pc->n + 1))
			return -FK_E_NOMEM;
		pc->end[pc->n] = e;
		pc->node[pc->n++] = node;
		pos = e + 1;
	}
	if (FK_GROW(pc->text, pc->cap, sl + 1))
		return -FK_E_NOMEM;
	memcpy(pc->text + m, s + m, sl - m);
	pc->len = sl;
	return node;
}

/* One line (its number lineno, without the '\n'). A malformed line is reported when
 * report, else only flagged in *bad (the second thread leaves it to the first). 0 or a
 * negative error. */
static int fold_line(fk_parse_ctx *c, prefix_cache *pc, bool seqs, const char *line, size_t len,
		     uint64_t lineno, bool report, bool *bad)
{
	if (len && line[len - 1] == '\r')
		len--;
	if (len == 0 || line[0] == '#')
		return 0;
	size_t sl;
	double count, count2;
	bool two;
	const char *why = split_line(line, len, &sl, &count, &count2, &two);
	if (why)
		goto malformed;
	int64_t node = add_stack_cached(c, pc, line, sl, len, seqs);
	if (node < 0)
		return (int)node;
	int rc;
	if (seqs) {
		bool h = !fk_name_rules_on(c->o);
		if ((rc = h ? fk_profile_add_seq_h(c->p, pc->node, pc->n, 0, count, pc->seqhash)
			    : fk_profile_add_seq(c->p, pc->node, pc->n, 0, count)) ||
		    (two && (rc = fk_profile_add_seq(c->p, pc->node, pc->n, 1, count2))))
			return rc;
		c->st->samples++;
		return 0;
	}
	/* With samples kept, each line is one record in input order (the
	 * flame chart's x order for folded input). */
	fk_sample_info info = { .time = __builtin_nan(""), .pid = -1, .tid = -1, .cpu = -1 };
	bool keep = fk_profile_flags(c->p) & FK_PROFILE_SAMPLES;
	if ((rc = fk_profile_add_to_node(c->p, (uint32_t)node, 0, count, keep ? &info : NULL)))
		return rc;
	if (two && (rc = fk_profile_add_to_node(c->p, (uint32_t)node, 1, count2, keep ? &info : NULL)))
		return rc;
	c->st->samples++;
	return 0;
malformed:
	if (!report) {
		*bad = true;
		return 0;
	}
	fk_bad_line(c, lineno, "%s", why);
	return 0;
}

static void pc_free(prefix_cache *pc)
{
	free(pc->text);
	free(pc->end);
	free(pc->node);
	free(pc->hash);
	*pc = (prefix_cache){ 0 };
}

/* ---- a big regular file by two threads: the second folds the second half into a profile
 * of its own, which is then merged (stacks and names keep the order one thread gives them:
 * the first half's, then those new in the second). It stops at a line it would have to
 * report (malformed, or too long), which the first thread then takes from there on, so
 * messages keep their order and line numbers. */

/* A file mapped for reading lets go of the pages read once 512 KiB of them is behind pos:
 * it is no memory of the process's own (nothing points into it; the line before is copied). */
static inline void let_go(const char *buf, size_t pos, size_t *done)
{
	if (pos - *done >= (512u << 10) && (pos & ~(size_t)4095) > *done) {
		size_t upto = pos & ~(size_t)4095;
		madvise((void *)(buf + *done), upto - *done, MADV_DONTNEED);
		*done = upto;
	}
}

/* Lines of buf[pos, end), numbered from *lineno + 1; *stop := where it stopped (end, or
 * the line a silent pass leaves to the other). The pages before *done are let go of
 * already. 0 or a negative error. */
static int fold_pages(fk_parse_ctx *c, prefix_cache *pc, bool seqs, const char *buf, size_t pos,
		      size_t end, uint64_t *lineno, bool report, size_t *stop, size_t *done)
{
	while (pos < end) {
		let_go(buf, pos, done);
		const char *nl = memchr(buf + pos, '\n', end - pos);
		size_t le = nl ? (size_t)(nl - buf) : end, len = le - pos;
		bool bad = false;
		if (report && fk_input_cut(buf))
			return -FK_E_CHANGED; /* (this line may run into the zeros: not the file's) */
		if (len > FK_MAX_LINE) {
			if (!report) {
				*stop = pos;
				return 0;
			}
			fk_reader_long_line(c->r, *lineno + 1);
		} else {
			int rc = fold_line(c, pc, seqs, buf + pos, len, *lineno + 1, report, &bad);
			if (rc)
				return rc;
			if (bad) {
				*stop = pos;
				return 0;
			}
		}
		++*lineno;
		c->st->lines++;
		pos = nl ? le + 1 : end;
	}
	*stop = end;
	return 0;
}

static int fold_region(fk_parse_ctx *c, prefix_cache *pc, bool seqs, const char *buf, size_t pos,
		       size_t end, uint64_t *lineno, bool report, size_t *stop)
{
	size_t done = pos & ~(size_t)4095;
	return fold_pages(c, pc, seqs, buf, pos, end, lineno, report, stop, &done);
}

/* A part of the file folded silently into a profile of its own, to be merged: the second
 * half (by the second thread, in pieces of 1 MB claimed in span, so the first thread, done
 * with its half first, may take a tail of what is left), or that tail (by the first
 * thread). Stops at a malformed line, leaving [stop, end) to be read with its messages once
 * the profile is merged. */
enum { SPLIT_PIECE = 1u << 20, SPLIT_STEAL_MIN = 2u << 20 };
struct half {
	fk_parse_ctx c;
	fk_parse_stats st;
	prefix_cache pc;
	const char *buf;
	size_t pos, end, stop; /* (end: span's once the second thread is done) */
	fk_span *span;         /* NULL: no other thread changes end */
	uint64_t lines;
	int rc;
};

static void *half_run(void *arg)
{
	struct half *h = arg;
	fk_span *sp = h->span;
	size_t pos = h->pos, done = pos & ~(size_t)4095;
	h->stop = pos;
	/* (the second thread's profile made here, in its own malloc arena: made by the first,
	 * its reallocs here took the lock of the arena the first thread allocates from, which
	 * then slept on it) Out of memory: none, all of it read again by the first thread. */
	if (!h->c.p && !(h->c.p = fk_profile_new(0)))
		return NULL;
	if (sp)
		fk_span_wait_go(sp);
	for (;;) {
		if (sp)
			pthread_mutex_lock(&sp->mu);
		size_t end = sp ? (size_t)sp->end : h->end, to = end;
		if (pos < end && end - pos > SPLIT_PIECE) {
			const char *nl = memchr(h->buf + pos + SPLIT_PIECE, '\n', end - pos - SPLIT_PIECE);
			to = nl ? (size_t)(nl - h->buf) + 1 : end;
		}
		if (sp) {
			sp->claimed = to;
			pthread_mutex_unlock(&sp->mu);
		}
		if (pos >= end)
			break;
		size_t stop;
		h->rc = fold_pages(&h->c, &h->pc, true, h->buf, pos, to, &h->lines, false, &stop, &done);
		h->stop = stop;
		if (h->rc || stop < to)
			break;
		pos = to;
	}
	/* from here on it is only merged: its lookup tables go before the merge's peak */
	fk_profile_seal(h->c.p);
	return NULL;
}

/* When much of the second half is left (2 MB or more; tests: any, with FLAMEKIT_LATE_SECOND)
 * and take: half of what the second thread has not claimed, from the next line start on:
 * [*from, *to) (the second's end brought forward to *from). The second thread goes on (a
 * late one starts). Whether a tail was taken. */
static bool steal_tail(fk_span *sp, const char *buf, bool take, size_t *from, size_t *to)
{
	bool got = false;
	pthread_mutex_lock(&sp->mu);
	size_t c = (size_t)sp->claimed, e = (size_t)sp->end;
	if (take && e > c && (sp->late || e - c >= SPLIT_STEAL_MIN)) {
		size_t at = c + (e - c) / 2;
		const char *nl = memchr(buf + at, '\n', e - at);
		size_t cut = nl ? (size_t)(nl - buf) + 1 : e;
		if (cut < e) {
			*from = cut;
			*to = e;
			sp->end = cut;
			got = true;
		}
	}
	fk_span_go_locked(sp);
	pthread_mutex_unlock(&sp->mu);
	return got;
}

/* A silent pass's part taken into c's profile: merged (out of memory there: all of it read
 * again here), then what it left from a malformed line on read here with the messages. */
static int take_half(fk_parse_ctx *c, prefix_cache *pc, struct half *h, uint64_t *lineno)
{
	size_t from = h->pos, stop;
	if (!h->rc && h->c.p) {
		int rc = fk_profile_merge(c->p, h->c.p);
		if (rc)
			return rc;
		c->st->samples += h->st.samples;
		c->st->lines += h->lines;
		*lineno += h->lines;
		from = h->stop;
		pc_free(pc); /* the line before is the part's */
	}
	return fold_region(c, pc, true, h->buf, from, h->end, lineno, true, &stop);
}

/* A part [pos, end) of buf to be folded silently by half_run (span: see struct half). */
static void half_init(struct half *h, const fk_parse_ctx *c, const char *buf, size_t pos,
		      size_t end, fk_span *span)
{
	*h = (struct half){ .c = *c, .buf = buf, .pos = pos, .end = end, .span = span };
	h->c.st = &h->st;
	h->c.name_buf = NULL;
	h->c.name_cap = 0;
	h->c.p = NULL; /* (made by the thread that folds it: half_run) */
}

static void half_free(struct half *h)
{
	pc_free(&h->pc);
	free(h->c.name_buf);
	fk_profile_free(h->c.p);
}

/* The file under the reader, mapped, when two threads should fold it: *start := where the
 * unread text begins. NULL otherwise. */
static const char *split_map(fk_parse_ctx *c, size_t *size, size_t *start)
{
	fk_reader *r = c->r;
	if (r->mem || r->unzip || r->fd < 0)
		return NULL;
	struct stat sb;
	off_t cur = lseek(r->fd, 0, SEEK_CUR);
	size_t unread = (size_t)(r->end - r->pos);
	/* (tests split tiny inputs; halves of 12 MB were 1.02x faster than one thread, of 16 MB
	 * 1.07x, bench/b-threads.sh) */
	const char *sm = getenv("FLAMEKIT_SPLIT_MIN");
	uint64_t min = sm ? strtoull(sm, NULL, 10) : 16u << 20;
	if (cur < 0 || fstat(r->fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_size < cur ||
	    (uint64_t)cur < unread || (uint64_t)(sb.st_size - cur) + unread < min)
		return NULL;
	const char *m = fk_map_input(r->fd, (size_t)sb.st_size);
	if (!m)
		return NULL;
	*size = (size_t)sb.st_size;
	*start = (size_t)cur - unread;
	return m;
}

/* split_map's mapping unmapped: rc, or -FK_E_CHANGED when the file was cut short meanwhile. */
static int split_unmap(const char *map, size_t size, int rc)
{
	return fk_unmap_input(map, size) ? -FK_E_CHANGED : rc;
}

static int parse_split(fk_parse_ctx *c, const char *buf, size_t size, size_t start)
{
	prefix_cache pc = { 0 };
	uint64_t lineno = c->r->lineno;
	/* the first thread's share a little under half (9/20): done first, it takes a tail of
	 * the second's share (steal_tail), the second none of its; the second starts late by its
	 * waking, and the halves take unequal times (their lines differ, a CPU is slower a
	 * while: b-threads' 64 MB file, halves done 5-17 ms apart in 5 runs of 8) */
	size_t mid = start + (size - start) / 20 * 9, stop;
	const char *nl = memchr(buf + mid, '\n', size - mid);
	mid = nl ? (size_t)(nl - buf) + 1 : size;
	fk_span span;
	fk_span_init(&span, mid, size);
	struct half h, t = { 0 };
	half_init(&h, c, buf, mid, size, &span);
	pthread_t th;
	bool two = mid < size && fk_thread_start(&th, half_run, &h) == 0;
	int rc = fold_region(c, &pc, true, buf, start, mid, &lineno, true, &stop);
	size_t tfrom, tto;
	bool stole = two && steal_tail(&span, buf, !rc, &tfrom, &tto);
	if (stole) {
		half_init(&t, c, buf, tfrom, tto, NULL);
		half_run(&t);
	}
	if (two) {
		pthread_join(th, NULL);
		h.end = (size_t)span.end;
		if (!rc)
			rc = take_half(c, &pc, &h, &lineno);
		if (stole && !rc)
			rc = take_half(c, &pc, &t, &lineno);
	} else if (!rc) {
		rc = fold_region(c, &pc, true, buf, mid, size, &lineno, true, &stop);
	}
	fk_span_destroy(&span);
	c->r->lineno = lineno;
	c->r->bytes += size - start;
	c->r->pos = c->r->end;
	lseek(c->r->fd, (off_t)size, SEEK_SET);
	pc_free(&pc);
	half_free(&h);
	half_free(&t);
	return rc;
}

/* Whether the text from pos on looks like a collapse tool's output, each stack once: of its
 * first lines (up to 4096 of them, in up to 1 MB) at least 64 well formed, and under 1 in
 * 100 of those a stack a line before it had. Such a file's second half holds stacks and
 * names of its own that a merge of two halves would add all over again, costing more than
 * the half saves (bench/b-wide.sh: two threads 1.0-1.3x slower, sorted or not): it is
 * read in batches instead (parse_batches); where stacks repeat, as in uncollapsed text or
 * a merge of many hosts' lines, two halves pay. */
static bool looks_collapsed(const char *buf, size_t pos, size_t end)
{
	/* (a table under malloc's mmap threshold: one of 512 KB, freed, raised that threshold
	 * for the rest of the run, whose heap then held 1.1 MB more at its peak: 9.8 MB for
	 * issue 23's realistic shape, 8.7 with one thread) */
	enum { SLOTS = 1 << 13 };
	uint64_t *seen = calloc(SLOTS, sizeof(*seen));
	size_t lines = 0, repeats = 0, lim = end - pos < (1u << 20) ? end : pos + (1u << 20);
	bool ok = seen != NULL;
	while (ok && pos < lim && lines < SLOTS / 2) {
		const char *line = buf + pos, *nl = memchr(line, '\n', lim - pos);
		if (!nl)
			break;
		size_t len = (size_t)(nl - line), sl;
		pos += len + 1;
		if (len && line[len - 1] == '\r')
			len--;
		if (len == 0 || line[0] == '#')
			continue;
		double c, c2;
		bool two;
		if (len > FK_MAX_LINE || split_line(line, len, &sl, &c, &c2, &two))
			continue; /* (malformed: said in its turn, whichever way the file is read) */
		uint64_t h = fk_hash(line, sl) | 1;
		size_t i = h & (SLOTS - 1);
		while (seen[i] && seen[i] != h)
			i = (i + 1) & (SLOTS - 1);
		repeats += seen[i] == h;
		seen[i] = h;
		lines++;
	}
	free(seen);
	return ok && lines >= 64 && repeats * 100 < lines;
}

/* ---- a big regular file of unique stacks (collapse output: names met few times each, so
 * nearly every name is a lookup that misses the caches), in batches of lines: a batch's
 * lines are split and their new names hashed first, then all those names looked up at once
 * (fk_profile_intern_parity: the lookups of many lines overlap), then the stacks added in
 * line order. With two threads either splits the next batches, and the second looks up
 * half of each batch's names meanwhile (run_two). Messages come in line order from the
 * thread that adds. */
enum { BATCH_TOKS = 8192, BATCH_LINES = 1024, NBUF = 3, BATCH_TEXT = 1 << 30 };
enum { BL_STACK, BL_NONE, BL_BAD, BL_LONG };

/* (40 bytes: the splitting thread writes one a line for the adding thread to read) */
struct bline {
	double count, count2;
	union {
		uint64_t seqhash; /* BL_STACK: the stack's hash */
		const char *why;  /* BL_BAD: why */
	};
	uint32_t first;   /* its first new name in the batch's toks */
	uint32_t n, k;    /* names in the stack, and those it shares with the stack before */
	uint8_t what;
	bool two;
};

/* A batch, and each parity's lookups in it, take cache lines of their own (128 bytes: a
 * line and the one fetched with it): the thread splitting one batch and the thread looking
 * up the names of another write their counts per name, and lines shared between them would
 * move from core to core at each write (two threads then ran slower than one). */
struct batch {
	_Alignas(128) struct bline *line;
	size_t nline, lcap;
	fk_name_tok *tok[2]; /* its new names: each parity's where two threads look them up
			      * (pbit: which parity each of all is), else all in tok[0] */
	size_t ntok, tcap[2]; /* (ntok: all) */
	uint64_t *pbit;   /* bit i: the parity of its name i (a word a 64, not 4 bytes a name) */
	size_t pbcap;
	uint32_t *id;
	size_t icap;
	fk_parity_out par[2]; /* each parity's lookups (room for pcap names) */
	size_t pcap;
	size_t start, end; /* where its text begins and ends in the file */
	const char *text;  /* its text: where its names' offsets count from */
	int rc;           /* the split's error (out of memory) */
};

/* *pptr (a pointer to any array) reallocated to n elements of elem bytes: 0, or -1 (kept). */
static int regrow(void *pptr, size_t n, size_t elem)
{
	void *old;
	memcpy(&old, pptr, sizeof(old));
	void *q = realloc(old, n * elem);
	if (!q)
		return -1;
	memcpy(pptr, &q, sizeof(q));
	return 0;
}

static int par_room(struct batch *b)
{
	if (b->ntok <= b->pcap)
		return 0;
	size_t cap = b->pcap ? b->pcap : 1024;
	while (cap < b->ntok)
		cap *= 2;
	for (int k = 0; k < 2; k++) {
		fk_parity_out *o = &b->par[k];
		if (regrow(&o->ids, cap, sizeof(*o->ids)) || regrow(&o->first, cap, sizeof(*o->first)) ||
		    regrow(&o->fresh, cap, sizeof(*o->fresh)) || regrow(&o->slot, cap, sizeof(*o->slot)))
			return -FK_E_NOMEM;
	}
	b->pcap = cap;
	return 0;
}

static void batch_free(struct batch *b)
{
	free(b->line);
	free(b->tok[0]);
	free(b->tok[1]);
	free(b->pbit);
	free(b->id);
	for (int k = 0; k < 2; k++) {
		free(b->par[k].ids);
		free(b->par[k].first);
		free(b->par[k].fresh);
		free(b->par[k].slot);
	}
}

/* Where the splitting is, and the stack line before: its text, its names' ends and hashes.
 * A batch ends at the end, or where it is full (BATCH_TOKS names or BATCH_LINES lines)
 * unless spans (two threads: each batch a stretch of text of its own, split by either). */
struct splitter {
	_Alignas(128) const char *buf;
	size_t pos, end;
	const char *prev;
	size_t prev_sl;
	size_t *pend, *cend;
	uint64_t *phash, *chash;
	size_t pn, pcap, ccap, phcap, chcap;
	bool par;       /* each parity's names listed apart (b->pbit): two threads look them up */
	bool spans;
};

/* One stack line into b: the names it shares with the stack before (their ids come from
 * there when it is added), then its new names as tokens. 0 or -FK_E_NOMEM. */
static int split_stack(struct splitter *sp, struct batch *b, struct bline *bl, const char *s,
		       size_t sl, size_t len)
{
	size_t k = names_shared(s, sl, sp->prev, sp->prev_sl, sp->pend, sp->pn, NULL);
	size_t pos = k ? sp->pend[k - 1] + 1 : 0, n = k;
	if (FK_GROW(sp->cend, sp->ccap, k + 1) || FK_GROW(sp->chash, sp->chcap, k + 1))
		return -FK_E_NOMEM;
	if (k) {
		memcpy(sp->cend, sp->pend, k * sizeof(*sp->cend));
		memcpy(sp->chash, sp->phash, k * sizeof(*sp->chash));
	}
	bl->first = (uint32_t)b->ntok;
	while (pos <= sl) {
		if (FK_UNLIKELY(n >= sp->ccap || n >= sp->chcap) &&
		    (FK_GROW(sp->cend, sp->ccap, n + 1) || FK_GROW(sp->chash, sp->chcap, n + 1)))
			return -FK_E_NOMEM;
		size_t e = scan_name(s, pos, sl, len, &sp->chash[n]);
		unsigned q = sp->par ? fk_name_parity(sp->chash[n]) : 0;
		fk_parity_out *o = &b->par[q];
		size_t at = sp->par ? o->nmine : b->ntok;
		if (FK_UNLIKELY(at >= b->tcap[q]) && FK_GROW(b->tok[q], b->tcap[q], at + 1))
			return -FK_E_NOMEM;
		if (sp->par) {
			size_t w = b->ntok >> 6;
			if (FK_UNLIKELY(w >= b->pbcap) && FK_GROW(b->pbit, b->pbcap, w + 1))
				return -FK_E_NOMEM;
			b->pbit[w] = (b->ntok & 63 ? b->pbit[w] : 0) | (uint64_t)q << (b->ntok & 63);
			o->nmine++;
		}
		b->tok[q][at] = (fk_name_tok){ sp->chash[n], (uint32_t)(s + pos - b->text),
					       (uint32_t)(e - pos) };
		b->ntok++;
		sp->cend[n++] = e;
		pos = e + 1;
	}
	bl->seqhash = stack_hash(sp->chash, n);
	bl->n = (uint32_t)n;
	bl->k = (uint32_t)k;
	/* this line is the one before for the next */
	size_t *te = sp->pend, tc = sp->pcap;
	uint64_t *th = sp->phash;
	size_t thc = sp->phcap;
	sp->pend = sp->cend, sp->pcap = sp->ccap, sp->phash = sp->chash, sp->phcap = sp->chcap;
	sp->cend = te, sp->ccap = tc, sp->chash = th, sp->chcap = thc;
	sp->pn = n;
	sp->prev = s;
	sp->prev_sl = sl;
	return 0;
}

/* What a line of len bytes (no '\n') is, in bl (what, and a stack's counts or a malformed
 * line's why): BL_LONG, BL_NONE (blank, a comment), BL_BAD or BL_STACK, whose names take
 * *sl bytes; *len loses a trailing '\r'. */
static void line_what(const char *line, size_t *len, size_t *sl, struct bline *bl)
{
	*bl = (struct bline){ .what = BL_NONE };
	if (*len > FK_MAX_LINE) {
		bl->what = BL_LONG;
		return;
	}
	if (*len && line[*len - 1] == '\r')
		(*len)--;
	if (*len == 0 || line[0] == '#')
		return;
	bl->why = split_line(line, *len, sl, &bl->count, &bl->count2, &bl->two);
	bl->what = bl->why ? BL_BAD : BL_STACK;
}

/* The next batch of lines into b (emptied first). */
static void split_batch(struct splitter *sp, struct batch *b)
{
	b->nline = b->ntok = 0;
	b->par[0].nmine = b->par[1].nmine = 0;
	b->par[0].done = b->par[1].done = 0;
	b->start = sp->pos;
	b->text = sp->buf + sp->pos;
	b->rc = 0;
	/* (a line begins under BATCH_TEXT into the batch, and a stack line has at most
	 * FK_MAX_LINE bytes: its names' offsets fit 32 bits) */
	while (sp->pos < sp->end &&
	       (sp->spans || (b->ntok < BATCH_TOKS && b->nline < BATCH_LINES && sp->pos - b->start < BATCH_TEXT))) {
		const char *line = sp->buf + sp->pos;
		const char *nl = memchr(line, '\n', sp->end - sp->pos);
		size_t len = nl ? (size_t)(nl - line) : sp->end - sp->pos;
		if (FK_GROW(b->line, b->lcap, b->nline + 1)) {
			b->rc = -FK_E_NOMEM;
			return;
		}
		struct bline *bl = &b->line[b->nline++];
		sp->pos += len + (nl != NULL);
		size_t sl;
		line_what(line, &len, &sl, bl);
		if (bl->what == BL_STACK && (b->rc = split_stack(sp, b, bl, line, sl, len)))
			break;
	}
	b->end = sp->pos;
}

/* What the adding side keeps: the ids of the stack before and of this one, and the number
 * of the last line added. */
struct adder {
	uint32_t *prev, *cur;
	size_t pcap, ccap;
	uint64_t lineno;
	size_t done;      /* the file's pages let go up to here */
};

/* Batch b's lines taken in order, its names' ids in b->id. 0 or a negative error. */
static int add_lines(fk_parse_ctx *c, struct adder *a, struct batch *b, const char *buf)
{
	int rc;
	for (size_t i = 0; i < b->nline; i++) {
		struct bline *bl = &b->line[i];
		c->st->lines++;
		if (i + 4 < b->nline && b->line[i + 4].what == BL_STACK)
			fk_profile_seq_prefetch(c->p, b->line[i + 4].seqhash);
		if (bl->what != BL_STACK && bl->what != BL_NONE && fk_input_cut(buf))
			return -FK_E_CHANGED; /* (a line that ran into the zeros: not the file's) */
		if (bl->what == BL_LONG) {
			fk_reader_long_line(c->r, a->lineno + i + 1);
			continue;
		}
		if (bl->what == BL_BAD)
			fk_bad_line(c, a->lineno + i + 1, "%s", bl->why);
		if (bl->what != BL_STACK)
			continue;
		if (FK_GROW(a->cur, a->ccap, bl->n + 1))
			return -FK_E_NOMEM;
		if (bl->k)
			memcpy(a->cur, a->prev, bl->k * sizeof(*a->cur));
		memcpy(a->cur + bl->k, b->id + bl->first, (bl->n - bl->k) * sizeof(*a->cur));
		if ((rc = fk_profile_add_seq_h(c->p, a->cur, bl->n, 0, bl->count, bl->seqhash)) ||
		    (bl->two && (rc = fk_profile_add_seq(c->p, a->cur, bl->n, 1, bl->count2))))
			return rc;
		c->st->samples++;
		uint32_t *t = a->prev;
		size_t tc = a->pcap;
		a->prev = a->cur, a->pcap = a->ccap, a->cur = t, a->ccap = tc;
	}
	a->lineno += b->nline;
	/* (its text is read no more: the splitter holds later lines; a megabyte at a time, as
	 * everywhere: each let-go with two threads running interrupts the other CPU to flush its
	 * TLB, and at 64 KB b-wide's shapes took 490-580 of those a run, 100-180 at 1 MB, for
	 * 1 MB more at the peak) */
	let_go(buf, b->end, &a->done);
	return 0;
}

/* Two threads: the text is cut in batches (to a line's end: span_end), each split by either
 * thread (NBUF at most ahead of the first; split_from: from the stack line before), listing
 * each parity's names as it hashes them. The second looks up the odd names of each batch
 * the first posts, and splits the batches ahead (with nothing else to do, it makes the
 * pages the first's appends write next: do_ahead), while the first looks up the even ones;
 * the first then settles the batch's new names, posts the next batch and adds this one's
 * lines (which touch no name) while the second looks up the next one's. Whichever thread
 * gets to a task first does it: the first splits a batch ahead when the one it waits for
 * is being split (with one thread splitting every batch in turn, that thread was the
 * slower of the two on all of b-wide's shapes: 79-97% of the reading's time splitting),
 * and when the second is slow to run (a busy machine), the first splits and looks up on
 * its own rather than wait. */
struct relay {
	fk_handoff h;           /* (what follows is read and changed under h.mu) */
	struct splitter sp[2];  /* each thread's (lines of their own, as a batch's) */
	struct batch b[NBUF];
	const char *buf;
	size_t from, size;      /* the text: buf[from, size) */
	size_t cut;             /* where the next batch's text starts */
	size_t span;            /* (tests) each batch's text: a 16th of the text */
	uint64_t claimed;       /* batches given their text (split, or being split) */
	uint8_t ready[NBUF];    /* a claimed batch is split */
	/* a posted batch's odd names: 0 to look up, 1 being, 2 done (looked up and settled), 3
	 * stopped halfway (the first thread, waiting for them, asked and takes the rest) */
	_Alignas(128) uint8_t odd[NBUF];
	int odd_rc[NBUF];       /* (done) their settling's error */
	fk_profile *p;
	uint64_t added;         /* batches added */
	uint64_t posted;        /* batches whose names may be looked up */
	bool over, stop;        /* the text is all claimed (or a split failed); the first thread
				 * gave up */
	bool solo;              /* the first thread goes on alone */
	int tid;                /* the second thread's, once it runs */
	/* a fresh name table's second half, its pages to be written by the second thread
	 * (relay_touch): touch 0 none, 1 asked, 2 being written, 3 written */
	char *touch_p;
	size_t touch_n;
	int touch;
	bool adding;            /* (the first thread's alone) it adds a batch, out of the lock */
	/* where the first thread's appends write next (fk_profile_fronts), given after each batch
	 * it adds, for the second to make those pages first (do_ahead) */
	fk_front front[FK_FRONTS];
	bool front_new;
	/* (the second thread's alone) how far each array's pages are made, in which stretch */
	char *made[FK_FRONTS], *made_end[FK_FRONTS];
	bool no_ahead;
	size_t made_bytes;
	uint64_t taken;         /* odd lookups the first thread finished */
	bool halt_soon;         /* (tests) the second starts each, to stop at its first step */
	/* (out of the lock) the first thread's ask to stop the odd lookups being made: read by
	 * the second at every FK_STOP_STEP names, a line of its own */
	_Alignas(128) int halt;
};

/* (locked) Write the pages asked for, unless a thread is at it: true if done. */
static bool do_touch(struct relay *r)
{
	if (r->touch != 1)
		return false;
	r->touch = 2;
	pthread_mutex_unlock(&r->h.mu);
	fk_touch_pages(r->touch_p, r->touch_n);
	pthread_mutex_lock(&r->h.mu);
	r->touch = 3;
	fk_handoff_changed(&r->h);
	return true;
}

/* (the first thread, growing the name table, locked, or the stacks' table as it adds a
 * batch) A fresh table's pages written, the second half by the second thread meanwhile
 * (which writes it next, whatever it was at, or, not yet at it when the first is done with
 * its half, by the first). */
static void relay_touch(void *ctx, void *p, size_t size)
{
	struct relay *r = ctx;
	size_t half = size / 2 & ~(size_t)4095;
	/* (under 1 MB a handoff costs more than the pages; tests, which read tiny inputs under
	 * FLAMEKIT_SPLIT_MIN, share any) */
	if (r->solo || !half || (half < (1u << 20) && !getenv("FLAMEKIT_SPLIT_MIN"))) {
		fk_touch_pages(p, size);
		return;
	}
	bool lock = r->adding; /* (out of the lock, as it adds a batch) */
	if (lock)
		pthread_mutex_lock(&r->h.mu);
	r->touch_p = (char *)p + half;
	r->touch_n = size - half;
	r->touch = 1;
	fk_handoff_changed(&r->h);
	pthread_mutex_unlock(&r->h.mu);
	fk_touch_pages(p, half);
	pthread_mutex_lock(&r->h.mu);
	while (r->touch != 3)
		if (!do_touch(r))
			fk_handoff_wait(&r->h);
	r->touch = 0;
	if (lock)
		pthread_mutex_unlock(&r->h.mu);
}

/* (locked: the second thread, with nothing else to do) The pages the first thread's appends
 * write next made (fk_populate), up to the end of the 2 MiB after the one each array ends in:
 * reading b-wide's jvm shape, the kernel's zeroing of those fresh pages, where the first
 * wrote them, was a tenth of its time, on the thread with the most to do. A MiB a step (the
 * first may need this thread meanwhile, and waits for it at the end), none once the text is
 * all split (the last batches write little). True if a step was made. */
enum { AHEAD = 2 << 20, AHEAD_STEP = 1 << 20 };
static bool do_ahead(struct relay *r)
{
	if (!r->front_new || r->no_ahead || r->over)
		return false;
	for (size_t k = 0; k < FK_FRONTS; k++) {
		const fk_front *f = &r->front[k];
		if (!f->at)
			continue;
		if (r->made_end[k] != f->end) { /* (a stretch of its own: made afresh) */
			r->made_end[k] = f->end;
			r->made[k] = NULL;
		}
		uintptr_t at = (uintptr_t)f->at, end = (uintptr_t)f->end;
		uintptr_t from = at & ~(uintptr_t)4095, to = (at | (AHEAD - 1)) + 1 + AHEAD;
		if ((uintptr_t)r->made[k] > from)
			from = (uintptr_t)r->made[k];
		if (to > end)
			to = end;
		if (to <= from)
			continue;
		if (to - from > AHEAD_STEP)
			to = from + AHEAD_STEP;
		pthread_mutex_unlock(&r->h.mu);
		if (fk_populate((void *)from, to - from)) {
			r->made[k] = (char *)to;
			r->made_bytes += to - from;
		} else {
			r->no_ahead = true; /* (a kernel that cannot) */
		}
		pthread_mutex_lock(&r->h.mu);
		return true;
	}
	r->front_new = false; /* (all made as far as these fronts ask) */
	return false;
}

/* Where batch j, whose text starts at r->cut, ends: after the line that holds its span-th
 * byte, the span such that batch j - NBUF (added: its slot's last) would have held about
 * SPAN_TOKS names to look up (the first NBUF: SPAN_FIRST). Bytes are cut so that either
 * thread may split the next batch before the one before is split; sized by names, as one
 * thread's batches are, since a batch's lookups have a cost of their own at both ends (the
 * first fetched ahead of none): b-wide's jvm shape (16k names a MiB) read by two threads
 * 9% slower in batches of 256 KiB than of 1 MiB (20 paired rounds), its wide and huge
 * shapes (50k a MiB) the same in either. */
enum { SPAN_TOKS = 16384, SPAN_FIRST = 256 << 10, SPAN_MIN = 64 << 10, SPAN_MAX = 4 << 20 };
static size_t span_end(const struct relay *r, uint64_t j)
{
	size_t from = r->cut, span = r->span ? r->span : SPAN_FIRST;
	if (!r->span && j >= NBUF) {
		const struct batch *b = &r->b[j % NBUF];
		double want = (double)(b->end - b->start) * SPAN_TOKS / (b->ntok ? (double)b->ntok : 1.0);
		span = want < SPAN_MIN ? SPAN_MIN : want > SPAN_MAX ? SPAN_MAX : (size_t)want;
	}
	if (r->size - from <= span)
		return r->size;
	const char *nl = memchr(r->buf + from + span - 1, '\n', r->size - from - span + 1);
	return nl ? (size_t)(nl - r->buf) + 1 : r->size;
}

/* Splitter sp at a batch's first line, at pos in the text that starts at from: the line
 * before is the stack line before, if it is one (the first line's names shared with it are
 * then not looked up again, as for any other line). */
static void split_from(struct splitter *sp, size_t pos, size_t from)
{
	sp->pos = pos;
	sp->prev = NULL;
	sp->prev_sl = sp->pn = 0;
	if (pos <= from)
		return;
	size_t back = pos - 1 < FK_MAX_LINE + 2 ? pos - 1 : FK_MAX_LINE + 2;
	const char *nl = memrchr(sp->buf + pos - 1 - back, '\n', back);
	if (!nl && back < pos - 1)
		return; /* (too long) */
	const char *line = nl ? nl + 1 : sp->buf;
	size_t len = (size_t)(sp->buf + pos - 1 - line), sl, n = 0;
	struct bline bl;
	line_what(line, &len, &sl, &bl);
	if (bl.what != BL_STACK)
		return;
	for (size_t at = 0; at <= sl; n++) {
		if (FK_GROW(sp->pend, sp->pcap, n + 1) || FK_GROW(sp->phash, sp->phcap, n + 1))
			return;
		sp->pend[n] = scan_name(line, at, sl, len, &sp->phash[n]);
		at = sp->pend[n] + 1;
	}
	sp->prev = line;
	sp->prev_sl = sl;
	sp->pn = n;
}

/* (locked) Split the next batch with splitter sp, when one is due: true if done. */
static bool do_split(struct relay *r, struct splitter *sp)
{
	if (r->over || r->claimed - r->added >= NBUF)
		return false;
	uint64_t j = r->claimed++;
	size_t k = j % NBUF, pos = r->cut;
	struct batch *b = &r->b[k];
	sp->end = r->cut = span_end(r, j);
	r->over = r->cut >= r->size;
	r->ready[k] = 0;
	r->odd[k] = 0;
	pthread_mutex_unlock(&r->h.mu);
	split_from(sp, pos, r->from);
	split_batch(sp, b);
	if (!b->rc)
		b->rc = par_room(b);
	pthread_mutex_lock(&r->h.mu);
	r->ready[k] = 1;
	r->over |= b->rc != 0;
	fk_handoff_changed(&r->h);
	return true;
}

/* (locked) Whether batch i is split. */
static bool is_split(const struct relay *r, uint64_t i) { return i < r->claimed && r->ready[i % NBUF]; }

/* (locked) Look up and settle the odd names of posted batch i, unless a thread has: true
 * if done. The second thread stops when the first asks (r->halt), leaving the rest to the
 * first (odd[k] 3), which goes on from there. */
static bool do_odd(struct relay *r, uint64_t i, bool second)
{
	size_t k = i % NBUF;
	if (i >= r->posted || !(r->odd[k] == 0 || (r->odd[k] == 3 && !second)))
		return false;
	r->taken += r->odd[k] == 3;
	r->odd[k] = 1;
	pthread_mutex_unlock(&r->h.mu);
	struct batch *b = &r->b[k];
	static const int at_once = 1;
	fk_profile_intern_parity(r->p, b->text, b->tok[1], &b->par[1],
				 !second ? NULL : r->halt_soon ? &at_once : &r->halt);
	bool whole = b->par[1].done == b->par[1].nmine;
	int rc = whole ? fk_profile_intern_settle(r->p, b->text, b->tok[1], b->par, 1) : 0;
	pthread_mutex_lock(&r->h.mu);
	r->odd_rc[k] = rc;
	r->odd[k] = whole ? 2 : 3;
	fk_handoff_changed(&r->h);
	return true;
}

/* (locked: the first thread) Batch i's odd names looked up and settled, by whichever thread
 * gets to them: the first, when the second is not at them yet, or once the second has
 * stopped, the rest of them (it asks as soon as it waits for them: the second's other task,
 * the splitting of the batches ahead, was most of the time the one that kept the first
 * waiting: b-wide's same16 shape had it wait 70 ms of 235 for the odd lookups). */
static void odd_done(struct relay *r, uint64_t i)
{
	size_t k = i % NBUF;
	while (r->odd[k] != 2) {
		/* (tests, FLAMEKIT_HALT_ODD: the second starts each, stops, and this one goes on) */
		if ((!r->halt_soon || r->solo || r->odd[k] == 3) && do_odd(r, i, false))
			continue;
		if (r->odd[k] == 1 && !r->solo)
			__atomic_store_n(&r->halt, 1, __ATOMIC_RELEASE);
		fk_handoff_wait(&r->h);
	}
	/* (no odd lookup runs now: the next starts once the next batch is posted) */
	__atomic_store_n(&r->halt, 0, __ATOMIC_RELAXED);
}

static void *split_run(void *arg)
{
	struct relay *r = arg;
	/* (before the lock, which the first thread may hold a while: a thread not seen running
	 * counts as kept from the CPUs) */
	__atomic_store_n(&r->tid, fk_thread_id(), __ATOMIC_RELEASE);
	pthread_mutex_lock(&r->h.mu);
	while (!r->stop && !r->solo) {
		if (do_touch(r))
			continue;
		bool did = false;
		for (uint64_t i = r->added; i < r->posted && !did; i++)
			did = do_odd(r, i, true);
		if (did || (!r->solo && do_split(r, &r->sp[1])))
			continue;
		if (r->over && r->posted == r->claimed)
			break; /* (the first thread takes what is left) */
		if (!do_ahead(r))
			fk_handoff_wait(&r->h);
	}
	pthread_mutex_unlock(&r->h.mu);
	return NULL;
}

/* (locked) Batch i's names may be looked up once it is split: room made for them first
 * (no lookup runs then: those of batch i - 1 are done). */
static int post(struct relay *r, uint64_t i)
{
	if (r->posted > i || !is_split(r, i))
		return 0;
	int rc = r->b[i % NBUF].rc ? r->b[i % NBUF].rc
				   : fk_profile_names_room(r->p, r->b[i % NBUF].ntok,
							   r->b[i % NBUF].end - r->b[i % NBUF].start);
	if (!rc) {
		r->posted = i + 1;
		fk_handoff_changed(&r->h);
	}
	return rc;
}

static int run_two(fk_parse_ctx *c, struct relay *r, struct adder *a, const char *buf)
{
	int rc = 0;
	fk_crowd w;
	fk_crowd_start(&w, &r->tid);
	pthread_mutex_lock(&r->h.mu);
	for (uint64_t i = 0; !rc; i++) {
		/* With another task on one of the CPUs, the two threads, each waiting for the
		 * other at every batch, wait for the CPU too (b-wide's jvm shape: 0.75 s against
		 * 0.57 with one): the first thread then adds the batches split so far and reads
		 * the rest on its own, and what follows the reading runs on one thread. */
		if (!r->solo && fk_crowd_seen(&w)) {
			r->solo = true;
			fk_profile_one_thread(c->p);
			fk_handoff_changed(&r->h);
		}
		if (r->solo && r->claimed <= i)
			break; /* (all split so far is added: the rest is read line after line) */
		/* (solo: a batch the second claimed is split by it) */
		while (!is_split(r, i) && !(r->over && r->claimed <= i))
			if (r->solo || !do_split(r, &r->sp[0]))
				fk_handoff_wait(&r->h);
		if (!is_split(r, i))
			break;
		struct batch *b = &r->b[i % NBUF];
		if ((rc = post(r, i)))
			break;
		pthread_mutex_unlock(&r->h.mu);
		fk_profile_intern_parity(c->p, b->text, b->tok[0], &b->par[0], NULL);
		pthread_mutex_lock(&r->h.mu);
		odd_done(r, i);
		if (!(rc = r->odd_rc[i % NBUF]) && !(rc = FK_GROW(b->id, b->icap, b->ntok + 1)) &&
		    !(rc = fk_profile_intern_settle(c->p, b->text, b->tok[0], b->par, 0)))
			fk_profile_intern_ids(b->par, b->pbit, b->ntok, b->id);
		if (!rc)
			rc = post(r, i + 1);
		r->adding = true;
		pthread_mutex_unlock(&r->h.mu);
		if (!rc)
			rc = add_lines(c, a, b, buf);
		pthread_mutex_lock(&r->h.mu);
		r->adding = false;
		r->added = i + 1;
		fk_profile_fronts(c->p, r->front);
		r->front_new = true;
		fk_handoff_changed(&r->h);
	}
	if (rc) {
		r->stop = true;
		fk_handoff_changed(&r->h);
	}
	pthread_mutex_unlock(&r->h.mu);
	return rc;
}

static int parse_batches(fk_parse_ctx *c, const char *buf, size_t size, size_t start, bool two_ok)
{
	struct relay r = { .buf = buf, .from = start, .size = size, .cut = start, .p = c->p };
	if (getenv("FLAMEKIT_SPLIT_MIN")) /* (tests: small files cut in batches too) */
		r.span = (size - start) / 16 > 4096 ? (size - start) / 16 : 4096;
	struct adder a = { .done = start & ~(size_t)4095, .lineno = c->r->lineno };
	int rc = 0;
	bool two = two_ok && !fk_handoff_init(&r.h);
	for (int t = 0; t < 2; t++) /* (before the second thread splits) */
		r.sp[t] = (struct splitter){ .buf = buf, .par = two, .spans = two };
	r.halt_soon = getenv("FLAMEKIT_HALT_ODD") != NULL;
	pthread_t th;
	if (two && fk_thread_start(&th, split_run, &r)) {
		fk_handoff_destroy(&r.h);
		two = false;
	}
	if (two) {
		fk_profile_set_toucher(c->p, &(fk_toucher){ relay_touch, &r });
		rc = run_two(c, &r, &a, buf);
		fk_profile_set_toucher(c->p, NULL);
		pthread_join(th, NULL);
		fk_log(FK_LEVEL_DEBUG, "%s: read by two threads in %llu batches (the odd names' lookups of %llu "
		       "finished by the first), %zu KB of pages made ahead of the first%s",
		       c->name, (unsigned long long)r.claimed, (unsigned long long)r.taken,
		       r.made_bytes >> 10, r.no_ahead ? " (no more: the kernel cannot)" : "");
		fk_handoff_destroy(&r.h);
	}
	if (!two || (!rc && r.solo)) {
		struct batch *b = &r.b[0];
		/* (one thread: the names of both parities in tok[0]; from where the batches cut
		 * by two end) */
		struct splitter *sp = &r.sp[0];
		sp->par = sp->spans = false;
		sp->end = size;
		split_from(sp, r.cut, start);
		while (!rc && sp->pos < sp->end) {
			split_batch(sp, b);
			if (!(rc = b->rc) && !(rc = FK_GROW(b->id, b->icap, b->ntok + 1)) &&
			    !(rc = fk_profile_intern_toks(c->p, b->text, b->tok[0], b->ntok, b->id)))
				rc = add_lines(c, &a, b, buf);
		}
	}
	c->r->lineno = a.lineno;
	c->r->bytes += size - start;
	c->r->pos = c->r->end;
	lseek(c->r->fd, (off_t)size, SEEK_SET);
	for (size_t i = 0; i < NBUF; i++)
		batch_free(&r.b[i]);
	for (int t = 0; t < 2; t++) {
		free(r.sp[t].pend);
		free(r.sp[t].cend);
		free(r.sp[t].phash);
		free(r.sp[t].chash);
	}
	free(a.prev);
	free(a.cur);
	return rc;
}

/* The size from which a collapse tool's output is read in batches. Below it the batches
 * save little (a 30 MB file of 0.3M names: 0.12 -> 0.10 s) and their buffers (2-4 MB) would
 * be a good part of a small profile's memory (a 24 MB file of 12,840 stacks: 8.6 MB read
 * line by line): such a file is read by one thread, line by line. */
static uint64_t batch_min(void)
{
	const char *sm = getenv("FLAMEKIT_SPLIT_MIN"); /* (tests read tiny inputs so) */
	return sm ? strtoull(sm, NULL, 10) : 64u << 20;
}

static int parse(fk_parse_ctx *c)
{
	const char *line;
	size_t len;
	int rc;
	prefix_cache pc = { 0 };
	/* without samples to keep, into a profile without a tree: unique stacks, no tree */
	bool seqs = fk_profile_takes_seqs(c->p);
	size_t size, start;
	const char *map = seqs ? split_map(c, &size, &start) : NULL;
	bool big = map && size - start >= batch_min();
	bool want = map && c->o->threads >= 2;
	/* (the file's first lines scanned here for a big one; for another, once a CPU is free
	 * for a second thread: not where none is) */
	bool collapsed = map && big && looks_collapsed(map, start, size);
	bool batches = collapsed && !fk_name_rules_on(c->o);
	if (batches) {
		/* two threads only where another program does not hold the other CPU */
		rc = parse_batches(c, map, size, start, want && fk_parse_second_cpu(c));
		return split_unmap(map, size, rc);
	}
	if (map && (rc = split_unmap(map, size, 0)))
		return rc;
	/* Line by line; where stacks repeat and two threads are asked for, what is left is read
	 * in halves (parse_split) once a look finds a CPU free for the second thread: looked for
	 * every 256 lines as they are read, not waited for (fk_looks; a collapse tool's output
	 * under batch_min is read by one thread whatever the CPUs: not looked for). None free at
	 * five looks: one thread, here, to the end. */
	fk_looks lk;
	fk_looks_start(&lk, true);
	bool ask = want && !collapsed;
	for (uint64_t n = 0;; n++) {
		if (ask && (n & 255) == 0) {
			int cpu = fk_looks_ask(&lk);
			ask = cpu < 0;
			if (cpu == 0)
				fk_profile_one_thread(c->p); /* (another program holds the other CPU) */
			if (cpu == 1 && (map = split_map(c, &size, &start))) {
				if (big || !looks_collapsed(map, start, size)) {
					pc_free(&pc);
					rc = parse_split(c, map, size, start);
					return split_unmap(map, size, rc);
				}
				if ((rc = split_unmap(map, size, 0)))
					break;
			}
		}
		if ((rc = fk_reader_line(c->r, &line, &len)) <= 0)
			break;
		c->st->lines++;
		bool bad;
		if ((rc = fold_line(c, &pc, seqs, line, len, c->r->lineno, true, &bad)))
			break;
	}
	pc_free(&pc);
	return rc;
}

/* ---- a diff of two sorted folded files, streamed (fk_diff_folded_files): the files are
 * checked first (well-formed, sorted, some count), so a file that is not such a file is
 * read whole by the caller and nothing was written; then both are walked side by side. */
struct fside {
	const char *buf;
	size_t size, pos, done;
	const char *stack;    /* the current stack (its lines' counts summed) */
	size_t sl;
	double sum;
	bool have;
	const char *next;     /* the line read past it, not yet taken */
	size_t nsl;
	double ncount;
	int nrc;              /* next_stack's return for `next` */
	bool two;             /* a line with a second count column was seen */
	bool hit;             /* fk_fold_sorted_files: holds the stack being written */
	const char *keep;     /* a line before the current stack its caller still reads, or NULL */
	bool changed;         /* a line the check found well-formed is not so now */
};

/* The next line holding a stack and its first count (as fk_profile_diff takes column 0):
 * 1, 0 at the end, -1 for a line the parser would report. */
static int next_stack(struct fside *f, const char **stack, size_t *sl, double *count)
{
	while (f->pos < f->size) {
		/* let go of what is passed, but not of the lines read again (the current stack,
		 * compared with the next one and the other side's; the stack before it, in the
		 * check for order): a page touched again after it was let go of came back, with
		 * the pages the kernel maps around it, and stayed (a whole large folio of the page
		 * cache at a time: 150 MB of a 240 MB file held, 15 MB where its pages were small;
		 * now 4-6 MB either way) */
		size_t hold = f->pos;
		if (f->stack && (size_t)(f->stack - f->buf) < hold)
			hold = (size_t)(f->stack - f->buf);
		if (f->keep && (size_t)(f->keep - f->buf) < hold)
			hold = (size_t)(f->keep - f->buf);
		let_go(f->buf, hold, &f->done);
		const char *line = f->buf + f->pos;
		const char *nl = memchr(line, '\n', f->size - f->pos);
		size_t len = nl ? (size_t)(nl - line) : f->size - f->pos;
		f->pos += len + (nl != NULL);
		if (len && line[len - 1] == '\r')
			len--;
		if (len == 0 || line[0] == '#')
			continue;
		double c2;
		bool two;
		/* two columns: the first one counts (as fk_profile_diff takes column 0) */
		if (len > FK_MAX_LINE || split_line(line, len, sl, count, &c2, &two))
			return -1;
		f->two |= two;
		*stack = line;
		return 1;
	}
	return 0;
}

/* The next stack with every line of it summed: 1, 0 at the end, -1 malformed. */
static int side_next(struct fside *f)
{
	if (!f->next && (f->nrc = next_stack(f, &f->next, &f->nsl, &f->ncount)) <= 0) {
		f->have = false;
		return f->nrc;
	}
	if (f->nrc < 0)
		return -1;
	f->stack = f->next;
	f->sl = f->nsl;
	f->sum = 0 + f->ncount;
	f->have = true;
	for (;;) {
		f->next = NULL;
		int rc = next_stack(f, &f->next, &f->nsl, &f->ncount);
		f->nrc = rc;
		if (rc <= 0) {
			if (rc < 0)
				f->next = f->buf; /* seen: the next call says -1 */
			return 1;
		}
		if (f->nsl != f->sl || memcmp(f->next, f->stack, f->sl))
			return 1;
		f->sum += f->ncount;
	}
}

/* side_next in the walk after the check: a malformed line there is the file changing
 * while it is read (written over, or cut short: mapped.c), where the walk ends. */
static void walk_next(struct fside *f)
{
	if (side_next(f) < 0) {
		f->have = false;
		f->changed = true;
	}
}

static void side_rewind(struct fside *f)
{
	f->pos = 0;
	f->done = 0; /* the pages the check let go of are let go of again as they are passed */
	f->stack = NULL;
	f->next = NULL;
	f->have = false;
}

/* Well-formed, sorted, with a count somewhere (and one count column when one_col): 0 and
 * the total, else 1. */
static int side_check(struct fside *f, bool one_col, double *total)
{
	const char *prev = NULL;
	size_t pl = 0;
	bool counted = false;
	int rc;
	*total = 0;
	while ((rc = side_next(f)) == 1) {
		if (prev && fk_bytes_cmp(prev, pl, f->stack, f->sl) >= 0) {
			f->keep = NULL;
			return 1;
		}
		prev = f->keep = f->stack;
		pl = f->sl;
		*total += f->sum;
		counted |= f->sum != 0;
	}
	f->keep = NULL;
	side_rewind(f);
	return rc < 0 || !counted || (one_col && f->two) ? 1 : 0;
}

/* A folded file mapped for the walk; NULL when it is not one (*changed: it was cut short
 * while its first bytes were looked at). */
static const char *side_map(const char *path, size_t *size, bool *changed)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	const char *m = NULL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
		m = fk_map_input(fd, (size_t)sb.st_size);
		*size = (size_t)sb.st_size;
	}
	close(fd);
	if (!m)
		return NULL;
	size_t head = *size < 65536 ? *size : 65536;
	const char *fmt = fk_unzip_kind(m, head) ? NULL : fk_detect_format(m, head);
	if (!fmt || strcmp(fmt, "folded")) {
		*changed |= fk_unmap_input(m, *size);
		return NULL;
	}
	return m;
}

/* The files unmapped: rc, or -FK_E_CHANGED (said, with the file's name) when one changed
 * (was cut short, or written over) while it was walked: what was written from it is not
 * to be kept. */
static int sides_unmap(struct fside *s, const char *const *paths, size_t n, int rc)
{
	for (size_t k = 0; k < n; k++) {
		bool cut = s[k].buf && fk_unmap_input(s[k].buf, s[k].size);
		if (cut || s[k].changed) {
			fk_warn("%s: %s", paths[k], fk_strerror(-FK_E_CHANGED));
			rc = -FK_E_CHANGED;
		}
	}
	return rc;
}

static void put_line(fk_obuf *o, const char *stack, size_t sl, double a, double b)
{
	if (a == 0 && b == 0)
		return;
	fk_obuf_put(o, stack, sl);
	fk_obuf_counts(o, (const double[2]){ a, b }, 2);
}

int fk_diff_folded_files(const char *before, const char *after, bool normalize, FILE *out)
{
	struct fside s[2] = { { 0 }, { 0 } };
	s[0].buf = side_map(before, &s[0].size, &s[0].changed);
	s[1].buf = s[0].buf ? side_map(after, &s[1].size, &s[1].changed) : NULL;
	double t[2];
	int rc = 1;
	if (!s[0].buf || !s[1].buf || side_check(&s[0], false, &t[0]) || side_check(&s[1], false, &t[1]))
		goto out;
	fk_obuf o;
	if (fk_obuf_init(&o, out)) {
		rc = -FK_E_NOMEM;
		goto out;
	}
	walk_next(&s[0]);
	walk_next(&s[1]);
	while ((s[0].have || s[1].have) && !s[0].changed && !s[1].changed) {
		int c = !s[0].have ? 1 : !s[1].have ? -1
			: fk_bytes_cmp(s[0].stack, s[0].sl, s[1].stack, s[1].sl);
		double a = c <= 0 ? s[0].sum : 0, b = c >= 0 ? s[1].sum : 0;
		if (normalize)
			a = fk_diff_normalized(a, t[0], t[1]);
		const struct fside *w = c <= 0 ? &s[0] : &s[1];
		put_line(&o, w->stack, w->sl, a, b);
		if (c <= 0)
			walk_next(&s[0]);
		if (c >= 0)
			walk_next(&s[1]);
	}
	rc = fk_obuf_finish(&o);
out:
	return sides_unmap(s, (const char *const[2]){ before, after }, 2, rc);
}

/* ---- sorted folded files summed (fk_fold_sorted_files): the same check, then every file
 * walked side by side, the least stack written with the counts of the files that have it
 * summed in file order (the order a profile read file by file sums them). */
int fk_fold_sorted_files(const char *const *paths, size_t n, FILE *out)
{
	struct fside *s = n ? calloc(n, sizeof(*s)) : NULL;
	int rc = 1;
	if (!s)
		return n ? -FK_E_NOMEM : 1;
	for (size_t k = 0; k < n; k++) {
		double t;
		if (!(s[k].buf = side_map(paths[k], &s[k].size, &s[k].changed)) ||
		    side_check(&s[k], true, &t))
			goto out;
	}
	fk_obuf o;
	if (fk_obuf_init(&o, out)) {
		rc = -FK_E_NOMEM;
		goto out;
	}
	bool changed = false;
	for (size_t k = 0; k < n; k++) {
		walk_next(&s[k]);
		changed |= s[k].changed;
	}
	while (!changed) {
		const struct fside *least = NULL;
		for (size_t k = 0; k < n; k++)
			if (s[k].have && (!least || fk_bytes_cmp(s[k].stack, s[k].sl, least->stack,
								 least->sl) < 0))
				least = &s[k];
		if (!least)
			break;
		const char *stack = least->stack;
		size_t sl = least->sl;
		double sum = 0;
		for (size_t k = 0; k < n; k++)
			if ((s[k].hit = s[k].have && s[k].sl == sl && !memcmp(s[k].stack, stack, sl)))
				sum += s[k].sum;
		if (sum != 0) {
			fk_obuf_put(&o, stack, sl);
			fk_obuf_counts(&o, &sum, 1);
		}
		for (size_t k = 0; k < n; k++)
			if (s[k].hit) {
				walk_next(&s[k]);
				changed |= s[k].changed;
			}
	}
	rc = fk_obuf_finish(&o);
out:
	rc = sides_unmap(s, paths, n, rc);
	free(s);
	return rc;
}

const fk_format fk_format_folded = {
	.name = "folded",
	.desc = "folded stacks: frame;frame;leaf COUNT [COUNT2] (flamegraph.pl input)",
	.probe = probe,
	.parse = parse,
};

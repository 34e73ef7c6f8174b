/* test-stacks.c - stack mode against tree mode: the same random stacks (names chosen to
 * sort differently by name and by folded text: prefixes, bytes below ';', spaces, NULs),
 * added as unique stacks and as a tree, must give byte-identical folded output, SVG (in
 * several views) and page, the same walk, totals and merges; and a tree built later from
 * the stacks must too. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "internal.h"
#include "unit.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

#define E(x) { x, sizeof(x) - 1 }
static const struct { const char *s; size_t n; } pool[] = {
	E("a"), E("a-x"), E("a.b"), E("a b"), E("ab"), E("a:"), E("a!"), E("a\001"), E("b"), E("b;"),
	E(""), E("main"), E("main2"), E("ma"), E("zz\377"), E("a\0b"), E("a\0"), E("x::y"),
	E("x::y<int>"), E("x:"), E("_[k]"), E("a_[k]"), E("--"), E(FK_OFFCPU_MARK),
	E("long_name_with_many_bytes_0123456789"), E("long_name_with_many_bytes_012345678"),
};
#define NPOOL (sizeof(pool) / sizeof(pool[0]))

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void) { return unit_rand(&rng); }

static char *capture(int (*fn)(const fk_profile *, const void *, FILE *), const fk_profile *p,
		     const void *arg, size_t *len, int *rc)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	*rc = fn(p, arg, f);
	fclose(f);
	return buf;
}

static int folded(const fk_profile *p, const void *arg, FILE *f)
{
	(void)arg;
	return fk_profile_write_folded(p, f);
}

static int svg(const fk_profile *p, const void *arg, FILE *f) { return fk_render_svg(p, arg, f); }
static int html(const fk_profile *p, const void *arg, FILE *f) { return fk_render_html(p, arg, f); }

/* With FK_TEST_DUMP set: the two outputs into /tmp/NAME-tree.out and /tmp/NAME-seqs.out. */
static void dump(const char *name, const char *x, size_t lx, const char *y, size_t ly)
{
	if (!getenv("FK_TEST_DUMP"))
		return;
	char path[64];
	snprintf(path, sizeof(path), "/tmp/%s-tree.out", name);
	FILE *f = fopen(path, "w");
	fwrite(x, 1, lx, f);
	fclose(f);
	snprintf(path, sizeof(path), "/tmp/%s-seqs.out", name);
	f = fopen(path, "w");
	fwrite(y, 1, ly, f);
	fclose(f);
}

static void same(const char *what, int (*fn)(const fk_profile *, const void *, FILE *),
		 const fk_profile *a, const fk_profile *b, const void *arg)
{
	size_t la, lb;
	int ra, rb;
	char *x = capture(fn, a, arg, &la, &ra), *y = capture(fn, b, arg, &lb, &rb);
	if (ra != rb || la != lb || memcmp(x, y, la)) {
		fprintf(stderr, "%s differs (rc %d/%d, %zu/%zu bytes)\n", what, ra, rb, la, lb);
		if (!failures)
			dump("stacks", x, la, y, lb);
		failures++;
	}
	free(x);
	free(y);
}

/* The walk as text: one line per open and close. */
struct wtext {
	const fk_profile *p;
	char *buf;
	size_t len;
	FILE *f;
};

static int w_open(void *ctx, uint32_t d, uint32_t frame, const double self[2])
{
	struct wtext *w = ctx;
	size_t l;
	const char *s = fk_profile_name(w->p, frame, &l);
	fprintf(w->f, "+%u %zu:", d, l);
	fwrite(s, 1, l, w->f);
	fprintf(w->f, " %g %g\n", self[0], self[1]);
	return 0;
}

static int w_close(void *ctx, uint32_t d, uint32_t frame, const double total[2])
{
	struct wtext *w = ctx;
	fprintf(w->f, "-%u %u %g %g\n", d, frame ? 1u : 0u, total[0], total[1]);
	return 0;
}

static char *walk_text(const fk_profile *p, size_t *len)
{
	struct wtext w = { .p = p };
	w.f = open_memstream(&w.buf, &w.len);
	static const fk_walk_ops ops = { .open = w_open, .close = w_close };
	CHECK(fk_profile_walk(p, &ops, &w) == 0);
	fclose(w.f);
	*len = w.len;
	return w.buf;
}

static void quiet(enum fk_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)msg;
	++*(int *)ctx; /* the negative counts' warnings: both modes say them alike */
}

/* fk_radix64 against a stable insertion sort: keys that vary in few bits (one digit, a
 * digit's edge, the top bit, none) and in all, with ord carried along; bits < 64: keys of
 * that many bits (as the callers' are). */
static bool radix_checked(uint64_t *key, uint32_t *ord, size_t n, unsigned bits, uint64_t *k2,
			  uint32_t *tmp, uint64_t *want, uint32_t *word)
{
	/* the expected order: by insertion, stable */
	for (size_t i = 0; i < n; i++) {
		ord[i] = (uint32_t)i;
		size_t q = i;
		for (; q > 0 && want[q - 1] > key[i]; q--) {
			want[q] = want[q - 1];
			word[q] = word[q - 1];
		}
		want[q] = key[i];
		word[q] = (uint32_t)i;
	}
	fk_radix64(key, ord, n, bits, k2, tmp);
	bool ok = true;
	for (size_t i = 0; i < n; i++)
		ok &= key[i] == want[i] && ord[i] == word[i];
	return ok;
}

/* Keys of few values where every digit varies (names sharing their first bytes and a few
 * unlike them): one value and outliers, a few values, more values than the few-values
 * path holds (found past its sample: it must give up and leave the keys whole), many. */
/* Stacks past a megabyte live in stretches of address space reserved for them: a tree built
 * from them (fk_profile_nodes) frees those stretches once, and nothing else: a page mapped
 * low in the address space (where an unmapping from address 0 of a stretch's size would
 * reach) is still there after, and the tree has every stack. */
static void test_reserved_tree(void)
{
	const size_t page = 4096;
	char *low = mmap((void *)(uintptr_t)(1u << 30), page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (low == MAP_FAILED || low != (char *)(uintptr_t)(1u << 30)) {
		fprintf(stderr, "test-stacks: no page at 1 GiB to watch (%s): stretches' unmapping not checked\n",
			strerror(errno));
		if (low != MAP_FAILED)
			munmap(low, page);
		low = NULL;
	} else {
		low[0] = 42;
	}
	fk_profile *p = fk_profile_new(0);
	uint32_t ids[4];
	for (int i = 0; i < 4; i++)
		ids[i] = (uint32_t)fk_profile_intern(p, pool[i].s, pool[i].n);
	/* 300k distinct stacks of 3-4 frames: ~4 MB of ids, 7 MB of entries */
	size_t n = 300000;
	for (size_t k = 0; k < n; k++) {
		uint32_t q[4] = { ids[0], ids[1 + k % 3], (uint32_t)(k >> 2), ids[k % 4] };
		uint32_t seq[4];
		for (int j = 0; j < 4; j++)
			seq[j] = j == 2 ? (uint32_t)fk_profile_intern(p, (const char *)&q[2], 4) : q[j];
		CHECK(fk_profile_add_seq(p, seq, 3 + k % 2, 0, 1) == 0);
	}
	size_t nn = 0;
	CHECK(fk_profile_nodes(p, &nn) != NULL && nn > n / 4);
	CHECK(fk_profile_total(p, 0) == (double)n);
	if (low) {
		CHECK(msync(low, page, MS_ASYNC) == 0 && low[0] == 42);
		munmap(low, page);
	}
	fk_profile_free(p);
}

static void test_radix_few(void)
{
	enum { N = 9000 };
	static uint64_t key[N], k2[N], want[N];
	static uint32_t ord[N], tmp[N], word[N];
	uint64_t vals[8];
	for (int v = 0; v < 8; v++)
		vals[v] = next();
	for (int shape = 0; shape < 5; shape++) {
		for (size_t i = 0; i < N; i++) {
			uint64_t r = next();
			switch (shape) {
			case 0: key[i] = r % 50 ? vals[0] : r; break;
			case 1: key[i] = r % 50 ? vals[r % 5] : vals[5] ^ (r & 0xff00ff00ff); break;
			case 2: key[i] = i % (N / 256) == 0 ? vals[0] : r; break;
			case 3: key[i] = i % (N / 256) == 0 ? vals[i % 3] : vals[3] + r % 1500; break;
			default: key[i] = vals[r % 8] >> (r % 3); break;
			}
		}
		CHECK(radix_checked(key, ord, N, 64, k2, tmp, want, word));
	}
}

static void test_radix(void)
{
	enum { N = 3000 };
	static uint64_t key[N], k2[N], want[N];
	static uint32_t ord[N], tmp[N], word[N];
	const uint64_t masks[] = { 0, 0x7ff, 0x800, 0x8000000000000000ULL, 0x3ff800,
				   0x00ff00ff00000000ULL, ~0ULL, 0xfff };
	for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++)
		for (unsigned bits = 12; bits <= 64; bits += 52) {
			uint64_t base = next(), lim = bits < 64 ? (1ULL << bits) - 1 : ~0ULL;
			size_t n = m % 3 == 2 ? 17 : N;
			for (size_t i = 0; i < n; i++)
				key[i] = (base ^ (next() & masks[m])) & lim;
			CHECK(radix_checked(key, ord, n, bits, k2, tmp, want, word));
		}
}

/* Names ranked by two threads in the order of their bytes, as by one: 220k names in two
 * runs that share their first 16 and 32 bytes, each level's keys taken by both threads
 * with the cut between them inside the biggest run; names that are prefixes of others. */
static void test_ranks_two(void)
{
	setenv("FLAMEKIT_CROWDED", "never", 1); /* (a CPU counts as free: two threads) */
	for (unsigned threads = 1; threads <= 2; threads++) {
		fk_profile *p = fk_profile_new(0);
		fk_profile_use_threads(p, threads);
		char buf[96];
		static const char *const shorter[] = { "com.example.server.handler.Frame", "com.example",
			"org.example.Leaf", "org.example.Leaf00000", "com.example.server.handler.Frame0" };
		for (size_t k = 0; k < sizeof(shorter) / sizeof(*shorter); k++)
			CHECK(fk_profile_intern(p, shorter[k], strlen(shorter[k])) >= 0);
		for (uint32_t i = 0; i < 150000; i++) {
			int n = snprintf(buf, sizeof(buf), "com.example.server.handler.Frame%07u", i * 7919u % 150001u);
			CHECK(fk_profile_intern(p, buf, (size_t)n) >= 0);
			if (i >= 70000)
				continue;
			n = snprintf(buf, sizeof(buf), "org.example.Leaf%06u", i * 31u % 70001u);
			CHECK(fk_profile_intern(p, buf, (size_t)n) >= 0);
		}
		size_t nn = fk_profile_name_count(p);
		uint32_t *rank = fk_profile_name_ranks(p), *by = malloc(nn * sizeof(*by));
		CHECK(rank && by && nn > 220000);
		if (!rank || !by) {
			free(rank);
			free(by);
			fk_profile_free(p);
			continue;
		}
		memset(by, 0xff, nn * sizeof(*by));
		for (size_t i = 0; i < nn; i++)
			if (rank[i] < nn)
				by[rank[i]] = (uint32_t)i;
		size_t bad = 0;
		for (size_t k = 0; k < nn; k++) {
			if (by[k] == UINT32_MAX) {
				bad++;
				continue;
			}
			if (!k || by[k - 1] == UINT32_MAX)
				continue;
			size_t la, lb;
			const char *a = fk_profile_name(p, by[k - 1], &la), *b = fk_profile_name(p, by[k], &lb);
			if (fk_bytes_cmp(a, la, b, lb) >= 0 && bad++ == 0)
				fprintf(stderr, "%u threads: '%.*s' ranked %zu, before '%.*s'\n", threads,
					(int)la, a, k - 1, (int)lb, b);
		}
		CHECK(bad == 0);
		free(rank);
		free(by);
		fk_profile_free(p);
	}
	unsetenv("FLAMEKIT_CROWDED");
}

int main(void)
{
	test_radix();
	test_radix_few();
	int said = 0;
	fk_set_print(quiet, &said);
	for (int round = 0; round < 40; round++) {
		bool two = round % 4 == 3, frac = round % 5 == 1;
		fk_profile *t = fk_profile_new(0), *s = fk_profile_new(0);
		uint32_t idt[8], ids[8];
		int nstacks = 20 + (int)(next() % 400);
		for (int k = 0; k < nstacks; k++) {
			size_t n = 1 + next() % 6;
			for (size_t i = 0; i < n; i++) {
				size_t j = next() % NPOOL;
				idt[i] = (uint32_t)fk_profile_intern(t, pool[j].s, pool[j].n);
				ids[i] = (uint32_t)fk_profile_intern(s, pool[j].s, pool[j].n);
			}
			unsigned col = two ? (unsigned)(next() % 2) : 0;
			double c = (double)(next() % 50);
			if (frac)
				c += 0.5;
			if (next() % 29 == 0)
				c = -c; /* drawn as 0 */
			CHECK(fk_profile_add_stack(t, idt, n, col, c) >= 0);
			CHECK(fk_profile_add_seq(s, ids, n, col, c) == 0);
		}
		CHECK(fk_profile_total(t, 0) == fk_profile_total(s, 0));
		CHECK(fk_profile_stack_count(t) == fk_profile_stack_count(s));
		CHECK(fk_profile_columns(t) == fk_profile_columns(s));
		size_t la, lb;
		char *wa = walk_text(t, &la), *wb = walk_text(s, &lb);
		CHECK(la == lb && !memcmp(wa, wb, la));
		if (la != lb || memcmp(wa, wb, la))
			dump("walk", wa, la, wb, lb);
		free(wa);
		free(wb);
		same("folded", folded, t, s, NULL);
		for (int v = 0; v < 6; v++) {
			fk_svg_opts o;
			fk_svg_opts_init(&o);
			o.minwidth = v == 1 ? 0 : v == 2 ? 4 : 0.1;
			o.reverse = v == 3;
			o.focus = v == 4 ? "a" : NULL;
			o.max_frames = v == 5 ? 7 : 0;
			o.diff_mode = v == 2 ? FK_DIFF_TOTAL : FK_DIFF_SELF;
			same("svg", svg, t, s, &o);
			if (v == 0 || v == 3)
				same("html", html, t, s, &o);
		}
		/* a merge of each into a fresh profile, and a tree made from the stacks */
		fk_profile *mt = fk_profile_new(0), *ms = fk_profile_new(0);
		CHECK(fk_profile_merge(mt, t) == 0 && fk_profile_merge(mt, t) == 0);
		CHECK(fk_profile_merge(ms, s) == 0 && fk_profile_merge(ms, s) == 0);
		same("merged folded", folded, mt, ms, NULL);
		size_t nn;
		CHECK(fk_profile_nodes(s, &nn) != NULL && nn > 1);
		same("folded after the tree is built", folded, t, s, NULL);
		fk_svg_opts o;
		fk_svg_opts_init(&o);
		same("svg after the tree is built", svg, t, s, &o);
		fk_profile_free(mt);
		fk_profile_free(ms);
		fk_profile_free(t);
		fk_profile_free(s);
	}
	/* the same stacks again and again: no more memory for stacks (deduplicated) */
	fk_profile *p = fk_profile_new(0);
	uint32_t ids[3];
	for (int i = 0; i < 3; i++)
		ids[i] = (uint32_t)fk_profile_intern(p, pool[i].s, pool[i].n);
	for (int k = 0; k < 1000; k++)
		CHECK(fk_profile_add_seq(p, ids, 1 + (size_t)k % 3, 0, 1) == 0);
	CHECK(fk_profile_stack_count(p) == 3 && fk_profile_total(p, 0) == 1000);
	fk_profile_free(p);
	test_reserved_tree();
	test_ranks_two();
	if (failures)
		return 1;
	printf("test-stacks: stack mode and tree mode agree\n");
	return 0;
}

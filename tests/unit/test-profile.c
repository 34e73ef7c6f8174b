/* test-profile.c - unit tests of the profile model: interning, the call tree,
 * totals, merge, filter, count formatting, and the exact bytewise order of
 * folded output (checked against a brute-force sort of random stacks). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "flamekit.h"
#include "internal.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

static char *folded(const fk_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(fk_profile_write_folded(p, f) == 0);
	fclose(f);
	return buf;
}

static void test_intern(void)
{
	fk_profile *p = fk_profile_new(0);
	int64_t a = fk_profile_intern(p, "main", 4);
	int64_t b = fk_profile_intern(p, "ma\0in", 5);
	CHECK(a > 0 && b > 0 && a != b);
	CHECK(fk_profile_intern(p, "main", 4) == a);
	CHECK(fk_profile_intern(p, "", 0) == 0);
	size_t len;
	const char *s = fk_profile_name(p, (uint32_t)b, &len);
	CHECK(len == 5 && !memcmp(s, "ma\0in", 5));
	/* Many names force several rehashes; all must stay findable. */
	char name[32];
	for (int i = 0; i < 100000; i++) {
		int n = snprintf(name, sizeof(name), "fn_%d", i);
		CHECK(fk_profile_intern(p, name, (size_t)n) == i + 3);
	}
	for (int i = 0; i < 100000; i += 997) {
		int n = snprintf(name, sizeof(name), "fn_%d", i);
		CHECK(fk_profile_intern(p, name, (size_t)n) == i + 3);
	}
	/* names of 2^24 bytes and more: the table slot cannot say their length, the entry does;
	 * two that differ in their last byte only stay two */
	size_t big = (16u << 20) + 5;
	char *h = malloc(big);
	memset(h, 'x', big);
	int64_t x = fk_profile_intern(p, h, big);
	h[big - 1] = 'y';
	int64_t y = fk_profile_intern(p, h, big);
	CHECK(x > 0 && y > 0 && x != y);
	CHECK(fk_profile_intern(p, h, big) == y);
	h[big - 1] = 'x';
	CHECK(fk_profile_intern(p, h, big) == x && fk_profile_intern(p, h, big - 1) > y);
	free(h);
	/* past 8 MB the names' text, then their entries (16 bytes each), moved into their
	 * reserved stretches (fk_grow_reserved): the names before read back and are found, and
	 * those after too */
	for (int i = 0; i < 600000; i++) {
		int n = snprintf(name, sizeof(name), "%s_%d", i < 100000 ? "fn" : "after", i);
		int64_t id = fk_profile_intern(p, name, (size_t)n);
		const char *t = fk_profile_name(p, (uint32_t)id, &len);
		CHECK(i >= 100000 || id == i + 3);
		CHECK(len == (size_t)n && !memcmp(t, name, len));
	}
	fk_profile_free(p);
	fk_profile_free(NULL);
}

static void test_tree_totals(void)
{
	fk_profile *p = fk_profile_new(0);
	CHECK(fk_profile_add_folded(p, "a;b;c", 5, 0, 3) > 0);
	CHECK(fk_profile_add_folded(p, "a;b", 3, 0, 2) > 0);
	CHECK(fk_profile_add_folded(p, "a;d", 3, 0, 1.5) > 0);
	CHECK(fk_profile_add_folded(p, "a;b;c", 5, 0, 1) > 0);
	size_t n;
	const fk_node *nodes = fk_profile_nodes(p, &n);
	CHECK(n == 5); /* root a b c d */
	double *t = calloc(2 * n, sizeof(double));
	fk_profile_totals(p, t);
	CHECK(t[0] == 7.5);
	uint32_t a = nodes[0].first_child;
	CHECK(t[2 * a] == 7.5 && nodes[a].depth == 1);
	CHECK(fk_profile_total(p, 0) == 7.5);
	CHECK(fk_profile_stack_count(p) == 3);
	CHECK(fk_profile_columns(p) == 1);
	char *out = folded(p);
	CHECK(!strcmp(out, "a;b 2\na;b;c 4\na;d 1.5\n"));
	free(out);
	free(t);
	fk_profile_free(p);
}

static void test_counts(void)
{
	char buf[64];
	fk_format_count(buf, sizeof buf, 42);
	CHECK(!strcmp(buf, "42"));
	fk_format_count(buf, sizeof buf, 1.5);
	CHECK(!strcmp(buf, "1.5"));
	fk_format_count(buf, sizeof buf, 1e15);
	CHECK(!strcmp(buf, "1000000000000000"));
	double vals[] = { 0.1, 1.0 / 3, 2.0 / 3 * 1e-7, 123456.789, 0.30000000000000004 };
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		fk_format_count(buf, sizeof buf, vals[i]);
		CHECK(strtod(buf, NULL) == vals[i]);
	}
	fk_format_count(buf, sizeof buf, -0.0);
	CHECK(!strcmp(buf, "0"));
}

static void test_two_columns_merge_filter(void)
{
	fk_profile *a = fk_profile_new(0), *b = fk_profile_new(0);
	fk_profile_add_folded(a, "m;x", 3, 0, 5);
	fk_profile_add_folded(a, "m;y", 3, 0, 1);
	fk_profile_add_folded(b, "m;x", 3, 0, 2);
	fk_profile_add_folded(b, "n;z", 3, 1, 7);
	CHECK(fk_profile_merge(a, b) == 0);
	CHECK(fk_profile_columns(a) == 2);
	char *out = folded(a);
	CHECK(!strcmp(out, "m;x 7 0\nm;y 1 0\nn;z 0 7\n"));
	free(out);
	fk_profile *k = fk_profile_filter(a, "^m;", FK_FILTER_KEEP);
	fk_profile *d = fk_profile_filter(a, "x$", FK_FILTER_DROP);
	CHECK(k && d);
	out = folded(k);
	CHECK(!strcmp(out, "m;x 7 0\nm;y 1 0\n"));
	free(out);
	out = folded(d);
	CHECK(!strcmp(out, "m;y 1 0\nn;z 0 7\n"));
	free(out);
	CHECK(fk_profile_filter(a, "([", FK_FILTER_KEEP) == NULL);
	fk_profile_free(k);
	fk_profile_free(d);
	fk_profile_free(a);
	fk_profile_free(b);
}

static void test_samples(void)
{
	fk_profile *p = fk_profile_new(FK_PROFILE_SAMPLES);
	uint32_t ids[2];
	ids[0] = (uint32_t)fk_profile_intern(p, "proc", 4);
	ids[1] = (uint32_t)fk_profile_intern(p, "work", 4);
	fk_sample_info in = { .time = 12.5, .pid = 7, .tid = 8, .cpu = 1, .comm = "proc", .comm_len = 4 };
	CHECK(fk_profile_add_sample(p, ids, 2, 0, 1, &in) > 0);
	in.time = 12.75;
	CHECK(fk_profile_add_sample(p, ids, 1, 0, 2, &in) > 0);
	size_t n;
	const fk_sample *s = fk_profile_samples(p, &n);
	CHECK(n == 2 && s[1].time == 12.75 && s[0].pid == 7 && s[1].weight == 2);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(fk_profile_write_samples(p, f) == 0);
	fclose(f);
	/* Round trip through the samples parser. */
	fk_profile *q = fk_profile_new(FK_PROFILE_SAMPLES);
	fk_parse_stats st;
	CHECK(fk_parse_buffer(q, buf, len, NULL, &st) == 0);
	CHECK(!strcmp(st.format, "samples") && st.samples == 2);
	const fk_sample *t = fk_profile_samples(q, &n);
	CHECK(n == 2 && t[0].time == 12.5 && t[1].tid == 8 && t[1].weight == 2);
	char *a = folded(p), *b = folded(q);
	CHECK(!strcmp(a, b));
	free(a);
	free(b);
	free(buf);
	fk_profile_free(q);
	fk_profile_free(p);
}

/* Brute force: the folded output must equal sorting "stack" keys with strcmp. */
static int cmp_str(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

static void test_sort_order(void)
{
	static const char *parts[] = { "b", "b.", "b.c", "b;", "bc", "b:x", "b(", "a b", "B", "b0", "b-1", "\xc3\xa9" };
	srand(1234);
	for (int round = 0; round < 200; round++) {
		fk_profile *p = fk_profile_new(0);
		char *keys[64];
		int nkeys = 0;
		for (int i = 0; i < 40; i++) {
			char stack[256] = "";
			int depth = 1 + rand() % 4;
			for (int d = 0; d < depth; d++) {
				const char *x = parts[rand() % (sizeof(parts) / sizeof(parts[0]))];
				if (strchr(x, ';'))
					x = "b~"; /* ';' separates frames */
				if (d)
					strcat(stack, ";");
				strcat(stack, x);
			}
			int dup = 0;
			for (int k = 0; k < nkeys; k++)
				dup |= !strcmp(keys[k], stack);
			fk_profile_add_folded(p, stack, strlen(stack), 0, 1);
			if (!dup)
				keys[nkeys++] = strdup(stack);
		}
		qsort(keys, (size_t)nkeys, sizeof(char *), cmp_str);
		char *out = folded(p);
		char *pos = out;
		for (int k = 0; k < nkeys; k++) {
			size_t l = strlen(keys[k]);
			int ok = !strncmp(pos, keys[k], l) && pos[l] == ' ';
			if (!ok) {
				fprintf(stderr, "order mismatch at key %d: want '%s', got '%.40s'\n", k, keys[k], pos);
				failures++;
				break;
			}
			pos = strchr(pos, '\n') + 1;
			free(keys[k]);
		}
		free(out);
		fk_profile_free(p);
	}
}

/* Stacks read from a file (kept as unique stacks, their names ranked run by run, 8 bytes a
 * step) come out in bytewise order: names that share 8 to 40 first bytes, a few or many to a
 * run, ending at or past a step's bytes, prefixes of each other. */
static void test_sort_order_shared(void)
{
	static const char *heads[] = { "", "com.example.", "com.example.server.handler.",
				       "std::__1::basic_string<char>::", "github.com/org/repo/pkg." };
	static const char *tails[] = { "h", "h1", "h10", "h1.x", "h1 x", "h2", "h", "h;", "run",
				       "run_", "ru", "handler", "handle", "handle1" };
	char path[] = "/tmp/fk-order.XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	srand(99);
	for (int round = 0; round < 40; round++) {
		FILE *f = fopen(path, "w");
		static char *keys[50000];
		int nkeys = 0;
		/* short runs, runs past 16, and (tens of thousands of names) levels read in id
		 * order, by one thread and by two */
		int n = round < 2 ? 50000 : round % 2 ? 40 : 300;
		for (int i = 0; i < n; i++) {
			char stack[512] = "";
			int depth = 1 + rand() % 3;
			for (int d = 0; d < depth; d++) {
				char name[128];
				const char *t = tails[rand() % (int)(sizeof(tails) / sizeof(tails[0]))];
				snprintf(name, sizeof(name), "%s%s%s%d",
					 heads[rand() % (int)(sizeof(heads) / sizeof(heads[0]))],
					 strchr(t, ';') ? "h~" : t, rand() % 2 ? "" : "_",
					 rand() % (round < 2 ? 1000000 : 12));
				if (d)
					strcat(stack, ";");
				strcat(stack, name);
			}
			fprintf(f, "%s 1\n", stack);
			keys[nkeys++] = strdup(stack);
		}
		fclose(f);
		qsort(keys, (size_t)nkeys, sizeof(char *), cmp_str);
		int u = 0; /* each stack once */
		for (int k = 0; k < nkeys; k++) {
			if (u && !strcmp(keys[u - 1], keys[k]))
				free(keys[k]);
			else
				keys[u++] = keys[k];
		}
		nkeys = u;
		for (unsigned threads = 1; threads <= (round < 2 ? 2u : 1u); threads++) {
			fk_parse_opts o;
			fk_parse_opts_init(&o);
			o.threads = threads;
			fk_profile *p = fk_profile_new(0);
			CHECK(fk_parse_file(p, path, &o, NULL) == 0);
			char *out = folded(p), *pos = out;
			for (int k = 0; k < nkeys; k++) {
				size_t l = strlen(keys[k]);
				if (failures == 0 && (strncmp(pos, keys[k], l) || pos[l] != ' ')) {
					fprintf(stderr, "shared-prefix order (%u threads) at key %d: want '%s', got '%.60s'\n",
						threads, k, keys[k], pos);
					failures++;
				}
				char *nl = strchr(pos, '\n');
				pos = nl ? nl + 1 : pos;
			}
			free(out);
			fk_profile_free(p);
		}
		for (int k = 0; k < nkeys; k++)
			free(keys[k]);
	}
	unlink(path);
}

/* What fk_render_svg or fk_render_html (html) writes of p, in a malloc'd string. */
static char *drawn(const fk_profile *p, bool html)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fk_svg_opts o;
	fk_svg_opts_init(&o);
	CHECK((html ? fk_render_html(p, &o, f) : fk_render_svg(p, &o, f)) == 0);
	fclose(f);
	return buf;
}

/* A sealed profile draws and writes as before (the renderers find the off-CPU mark and "--"
 * by the ids kept at sealing, other names by a scan), and takes no more names or stacks. */
static void test_seal(void)
{
	static const char *const lines[] = { "main;" FK_OFFCPU_MARK ";read", "main;work;--;inner",
					     "main;work;--;inner", "main;work" };
	fk_profile *p = fk_profile_new(0);
	for (size_t i = 0; i < sizeof(lines) / sizeof(*lines); i++)
		CHECK(fk_profile_add_folded(p, lines[i], strlen(lines[i]), 0, 5000.0 * (double)(i + 1)) >= 0);
	char name[32];
	for (int i = 0; i < 20000; i++) { /* (names enough for the scan to pass many) */
		int n = snprintf(name, sizeof(name), "main;fn_%d", i);
		CHECK(fk_profile_add_folded(p, name, (size_t)n, 0, 1) >= 0);
	}
	char *f0 = folded(p), *s0 = drawn(p, false), *h0 = drawn(p, true);
	size_t names = fk_profile_name_count(p);
	CHECK(strstr(s0, "[off-cpu]") != NULL);
	int64_t mark = fk_profile_find_name(p, FK_OFFCPU_MARK, strlen(FK_OFFCPU_MARK));
	int64_t dash = fk_profile_find_name(p, "--", 2), fn = fk_profile_find_name(p, "fn_19999", 8);
	CHECK(mark > 0 && dash > 0 && fn > 0 && mark != dash);
	fk_profile_seal(p);
	CHECK(fk_profile_find_name(p, FK_OFFCPU_MARK, strlen(FK_OFFCPU_MARK)) == mark);
	CHECK(fk_profile_find_name(p, "--", 2) == dash);
	CHECK(fk_profile_find_name(p, "fn_19999", 8) == fn);
	CHECK(fk_profile_find_name(p, "-", 1) == -1 && fk_profile_find_name(p, "fn_20000", 8) == -1);
	char *f1 = folded(p), *s1 = drawn(p, false), *h1 = drawn(p, true);
	CHECK(f0 && f1 && !strcmp(f0, f1));
	CHECK(s0 && s1 && !strcmp(s0, s1));
	CHECK(h0 && h1 && !strcmp(h0, h1));
	CHECK(fk_profile_intern(p, "main", 4) == -FK_E_INVAL);
	CHECK(fk_profile_intern(p, "new", 3) == -FK_E_INVAL);
	CHECK(fk_profile_add_folded(p, "main;work", 9, 0, 1) < 0);
	CHECK(fk_profile_add_folded(p, "main;new", 8, 0, 1) < 0);
	CHECK(fk_profile_name_count(p) == names);
	char *f2 = folded(p);
	CHECK(f2 && !strcmp(f0, f2));
	free(f0), free(f1), free(f2), free(s0), free(s1), free(h0), free(h1);
	fk_profile_free(p);
	/* neither name there: none found once sealed */
	p = fk_profile_new(0);
	CHECK(fk_profile_add_folded(p, "main;-;[off-cpu", 15, 0, 1) >= 0);
	fk_profile_seal(p);
	CHECK(fk_profile_find_name(p, FK_OFFCPU_MARK, strlen(FK_OFFCPU_MARK)) == -1);
	CHECK(fk_profile_find_name(p, "--", 2) == -1);
	CHECK(fk_profile_find_name(p, "-", 1) > 0);
	fk_profile_free(p);
}

/* A name table grown past 512k slots by two threads moving its halves (a CPU counted free),
 * and by one: every name found with its id after every doubling, no other. */
static void test_rehash_two(void)
{
	setenv("FLAMEKIT_CROWDED", "never", 1);
	for (unsigned threads = 1; threads <= 2; threads++) {
		fk_profile *p = fk_profile_new(0);
		fk_profile_use_threads(p, threads);
		char name[40];
		size_t bad = 0;
		uint32_t n = 0;
		for (uint32_t lim = 1u << 16; lim <= 700000; lim *= 2) {
			for (; n < lim; n++) {
				int len = snprintf(name, sizeof(name), "pkg.Class%u.run", n * 2654435761u);
				bad += fk_profile_intern(p, name, (size_t)len) != (int64_t)n + 1;
			}
			for (uint32_t k = 0; k < n; k++) {
				int len = snprintf(name, sizeof(name), "pkg.Class%u.run", k * 2654435761u);
				bad += fk_profile_find_name(p, name, (size_t)len) != (int64_t)k + 1;
			}
			bad += fk_profile_find_name(p, "pkg.Class.run", 13) != -1;
		}
		CHECK(bad == 0);
		fk_profile_free(p);
	}
	unsetenv("FLAMEKIT_CROWDED");
}

int main(void)
{
	test_rehash_two();
	test_seal();
	test_intern();
	test_tree_totals();
	test_counts();
	test_two_columns_merge_filter();
	test_samples();
	test_sort_order();
	test_sort_order_shared();
	if (failures) {
		fprintf(stderr, "test-profile: %d failures\n", failures);
		return 1;
	}
	printf("test-profile: all checks passed\n");
	return 0;
}

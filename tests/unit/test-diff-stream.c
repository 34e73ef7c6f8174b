/* test-diff-stream.c - fk_diff_folded_files (two sorted folded files streamed) against
 * fk_profile_diff of the same files read whole, and fk_fold_sorted_files (one to three
 * such files summed: collapse and merge) against the files read into one profile:
 * byte-identical output, with and without
 * normalising, for files with adjacent repeats of a stack, two count columns, comments,
 * blank and CRLF lines, zero and negative counts, stacks on one side only and names that
 * sort differently by name and by text; and 1 with nothing written for files that are not
 * such files (unsorted, malformed, compressed-looking, no count). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "flamekit.h"
#include "unit.h"

#define CHECK(c) UNIT_CHECK(c, "CHECK failed: %s", #c)

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static unsigned next(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static const char *const names[] = { "a", "a-x", "a.b", "ab", "a b", "main", "ma", "x::y",
				     "x::y<int>", "f1", "f10", "f2", "[unknown]", "0xff" };
#define NN (sizeof(names) / sizeof(names[0]))

/* p written as folded stacks (then freed). */
static char *folded_text(fk_profile *p, size_t *len)
{
	char *out = NULL;
	FILE *f = open_memstream(&out, len);
	CHECK(p && fk_profile_write_folded(p, f) == 0);
	fclose(f);
	fk_profile_free(p);
	return out;
}

/* Random stacks, sorted as folded output (a profile's writer sorts them). */
static char *sorted_stacks(int n, size_t *len)
{
	fk_profile *p = fk_profile_new(0);
	char buf[256];
	for (int i = 0; i < n; i++) {
		size_t l = 0;
		int d = 1 + (int)next(5);
		for (int k = 0; k < d; k++)
			l += (size_t)snprintf(buf + l, sizeof(buf) - l, "%s%s", k ? ";" : "", names[next(NN)]);
		CHECK(fk_profile_add_folded(p, buf, l, 0, (double)next(20)) >= 0);
	}
	return folded_text(p, len);
}

/* The sorted lines, dressed up: some repeated (split counts), two columns, comments,
 * blank and CRLF lines, zero and negative counts. */
static char *dress(const char *in, bool two)
{
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	fputs("# a comment\n", f);
	for (const char *s = in; *s;) {
		const char *nl = strchr(s, '\n');
		size_t l = (size_t)(nl - s);
		const char *sp = s + l;
		while (sp > s && sp[-1] != ' ')
			sp--;
		int stack = (int)(sp - s - 1);
		long c = strtol(sp, NULL, 10);
		unsigned k = next(10);
		if (k == 0 && c > 1) { /* one stack on two lines */
			fprintf(f, "%.*s %ld\n%.*s %ld\n", stack, s, c / 2, stack, s, c - c / 2);
		} else if (k == 1) {
			fprintf(f, "%.*s %ld\r\n", stack, s, -c);
		} else if (k == 2) {
			fprintf(f, "\n%.*s 0\n", stack, s);
		} else if (two) {
			fprintf(f, "%.*s %ld %u\n", stack, s, c, next(9));
		} else {
			fprintf(f, "%.*s %ld\n", stack, s, c);
		}
		s = nl + 1;
	}
	fclose(f);
	return out;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static char *general(const char *a, const char *b, bool normalize, size_t *len)
{
	fk_profile *x = fk_profile_new(0), *y = fk_profile_new(0);
	CHECK(fk_parse_file(x, a, NULL, NULL) == 0 && fk_parse_file(y, b, NULL, NULL) == 0);
	char *out = folded_text(fk_profile_diff(x, y, normalize, false), len);
	fk_profile_free(x);
	fk_profile_free(y);
	return out;
}

static int streamed(const char *a, const char *b, bool normalize, char **out, size_t *len)
{
	FILE *f = open_memstream(out, len);
	int rc = fk_diff_folded_files(a, b, normalize, f);
	fclose(f);
	return rc;
}

/* The files read whole into one profile, as collapse and merge do, written folded. */
static char *summed(const char *const *paths, size_t n, size_t *len)
{
	fk_profile *x = fk_profile_new(0);
	for (size_t k = 0; k < n; k++)
		CHECK(fk_parse_file(x, paths[k], NULL, NULL) == 0);
	return folded_text(x, len);
}

static int folded(const char *const *paths, size_t n, char **out, size_t *len)
{
	FILE *f = open_memstream(out, len);
	int rc = fk_fold_sorted_files(paths, n, f);
	fclose(f);
	return rc;
}

/* fk_fold_sorted_files on one to three dressed files (one count column) agrees with the
 * whole read; a file with two columns, unsorted or malformed gives 1 and nothing. */
static void fold_rounds(void)
{
	char p[3][32];
	const char *paths[3];
	for (int k = 0; k < 3; k++) {
		snprintf(p[k], sizeof(p[k]), "/tmp/fk-fold-%d.XXXXXX", k);
		close(mkstemp(p[k]));
		paths[k] = p[k];
	}
	for (int round = 0; round < 30; round++) {
		size_t n = 1 + (size_t)round % 3;
		for (size_t k = 0; k < n; k++) {
			size_t l;
			char *st = sorted_stacks(20 + (int)next(300), &l), *d = dress(st, false);
			put(p[k], d);
			free(st);
			free(d);
		}
		size_t l1, l2;
		char *g = summed(paths, n, &l1), *s = NULL;
		CHECK(folded(paths, n, &s, &l2) == 0);
		CHECK(l1 == l2 && !memcmp(g, s, l1));
		CHECK(l1 > 0);
		free(g);
		free(s);
		/* the last file spoilt: two columns, then a line out of order, then no count */
		static const char *const spoil[] = { "zzz 1 2\n", "zzz 1\na 1\n", "a;b\n" };
		size_t l;
		char *st = sorted_stacks(20, &l);
		char *bad = malloc(l + 32);
		sprintf(bad, "%s%s", st, spoil[round % 3]);
		put(p[n - 1], bad);
		s = NULL;
		CHECK(folded(paths, n, &s, &l2) == 1 && l2 == 0);
		free(s);
		free(bad);
		free(st);
	}
	for (int k = 0; k < 3; k++)
		unlink(p[k]);
}

int main(void)
{
	fold_rounds();
	char a[] = "/tmp/fk-diff-a.XXXXXX", b[] = "/tmp/fk-diff-b.XXXXXX";
	close(mkstemp(a));
	close(mkstemp(b));
	for (int round = 0; round < 30; round++) {
		size_t la, lb;
		char *sa = sorted_stacks(50 + (int)next(300), &la), *sb = sorted_stacks(50 + (int)next(300), &lb);
		char *da = dress(sa, false), *db = dress(sb, round % 3 == 0);
		put(a, da);
		put(b, db);
		for (int n = 0; n < 2; n++) {
			size_t l1, l2;
			char *g = general(a, b, n, &l1), *s = NULL;
			CHECK(streamed(a, b, n, &s, &l2) == 0);
			CHECK(l1 == l2 && !memcmp(g, s, l1));
			free(g);
			free(s);
		}
		/* not such files: unsorted, malformed, no count at all */
		char *s = NULL;
		size_t l;
		char *swapped = malloc(strlen(db) + 32);
		sprintf(swapped, "zzz;last 1\n%s", db);
		put(b, swapped);
		CHECK(streamed(a, b, false, &s, &l) == 1 && l == 0);
		free(s);
		sprintf(swapped, "%sno count here\n", db);
		put(b, swapped);
		CHECK(streamed(a, b, false, &s, &l) == 1 && l == 0);
		free(s);
		put(b, "a;b 0\nc 0\n");
		CHECK(streamed(a, b, false, &s, &l) == 1 && l == 0);
		free(s);
		free(swapped);
		free(sa);
		free(sb);
		free(da);
		free(db);
	}
	put(b, "\x1f\x8b\x08 not really gzip\n");
	char *s = NULL;
	size_t l;
	CHECK(streamed(a, b, false, &s, &l) == 1 && l == 0);
	free(s);
	CHECK(streamed(a, "/nonexistent/file", false, &s, &l) == 1 && l == 0);
	free(s);
	unlink(a);
	unlink(b);
	if (unit_failures)
		return 1;
	printf("test-diff-stream: the streamed diff and sums agree with the whole ones\n");
	return 0;
}

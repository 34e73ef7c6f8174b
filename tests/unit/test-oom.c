/* test-oom.c - fails the Nth allocation of the core for N = 1, 2, ... (the
 * library's malloc/calloc/realloc are wrapped at link time) and checks that
 * every operation reports an error instead of crashing; under SANITIZE=1,
 * LeakSanitizer also checks that nothing leaks on those paths. */
#include <stdlib.h>
#include <string.h>
#include "flamekit.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);

static long countdown = -1; /* fail when it reaches 0; -1 = never */
static long calls;

static int should_fail(void)
{
	calls++;
	if (countdown < 0)
		return 0;
	return countdown-- == 0;
}
void *__wrap_malloc(size_t n) { return should_fail() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t a, size_t b) { return should_fail() ? NULL : __real_calloc(a, b); }
void *__wrap_realloc(void *p, size_t n) { return should_fail() ? NULL : __real_realloc(p, n); }

static void quiet(enum fk_level l, const char *m, void *c) { (void)l; (void)m; (void)c; }

static const char input[] =
	"main;a;b 3\nmain;a;c 2\nmain;d 1.5\nother;x;y;z 7\nmain;a;b 1\n";

/* One scenario touching every allocation site of the model and readers.
 * Returns 0 if all succeeded, 1 if something reported a failure. */
static int scenario(char *out, size_t outsz)
{
	int failed = 0;
	fk_profile *p = fk_profile_new(FK_PROFILE_SAMPLES);
	if (!p)
		return 1;
	fk_parse_opts o;
	fk_parse_opts_init(&o);
	if (fk_parse_buffer(p, input, sizeof(input) - 1, &o, NULL))
		failed = 1;
	char name[32];
	for (int i = 0; i < 3000 && !failed; i++) {
		int n = snprintf(name, sizeof(name), "f%d;g%d", i, i % 7);
		if (fk_profile_add_folded(p, name, (size_t)n, 0, 1) < 0)
			failed = 1;
	}
	fk_profile *q = fk_profile_new(0);
	if (!q || fk_profile_merge(q, p))
		failed = 1;
	fk_profile *f = q ? fk_profile_filter(q, "^main", FK_FILTER_KEEP) : NULL;
	if (!f)
		failed = 1;
	FILE *mem = fmemopen(out, outsz, "w");
	if (f && mem && fk_profile_write_folded(f, mem))
		failed = 1;
	if (mem)
		fclose(mem);
	fk_profile_free(f);
	fk_profile_free(q);
	fk_profile_free(p);
	return failed;
}

int main(void)
{
	fk_set_print(quiet, NULL);
	static char good[4096], got[4096];
	countdown = -1;
	calls = 0;
	if (scenario(good, sizeof(good))) {
		fprintf(stderr, "test-oom: scenario fails without injected failures\n");
		return 1;
	}
	long total = calls;
	long reported = 0;
	for (long n = 0; n < total; n++) {
		countdown = n;
		memset(got, 0, sizeof(got));
		int failed = scenario(got, sizeof(got));
		countdown = -1;
		if (failed)
			reported++;
		else if (strcmp(good, got)) {
			fprintf(stderr, "test-oom: allocation %ld failed silently: wrong output\n", n);
			return 1;
		}
	}
	if (reported == 0) {
		fprintf(stderr, "test-oom: no injected failure was reported\n");
		return 1;
	}
	printf("test-oom: %ld allocations failed one at a time, %ld reported, no crash\n", total, reported);
	return 0;
}

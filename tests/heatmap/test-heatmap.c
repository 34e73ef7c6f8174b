/* test-heatmap.c - the heat map API on profiles built in memory: exact cells,
 * negative and boundary times, every error return (with its message through the
 * print callback), write errors, and failing each allocation in turn (malloc,
 * calloc and realloc are wrapped at link time; LeakSanitizer checks the paths
 * under SANITIZE=1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flamekit.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);
static long countdown = -1;
static int should_fail(void) { return countdown >= 0 && countdown-- == 0; }
void *__wrap_malloc(size_t n) { return should_fail() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t a, size_t b) { return should_fail() ? NULL : __real_calloc(a, b); }
void *__wrap_realloc(void *p, size_t n) { return should_fail() ? NULL : __real_realloc(p, n); }

static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static int messages;
static char last_msg[512];
static void capture(enum fk_level l, const char *m, void *c)
{
	(void)l; (void)c;
	messages++;
	snprintf(last_msg, sizeof(last_msg), "%s", m);
}

static void add(fk_profile *p, double t, const char *comm, const char *stack, double w)
{
	fk_sample_info in = { .time = t, .pid = 1, .tid = 2, .cpu = 0, .comm = comm,
			      .comm_len = comm ? strlen(comm) : 0 };
	int64_t ids[16];
	uint32_t fr[16];
	size_t n = 0;
	const char *s = stack;
	while (*s && n < 16) {
		const char *e = strchr(s, ';');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		ids[n] = fk_profile_intern(p, s, l);
		if (ids[n] < 0)
			return;
		fr[n] = (uint32_t)ids[n];
		n++;
		s += l + (e ? 1 : 0);
	}
	fk_profile_add_sample(p, fr, n, 0, w, &in);
}

/* Cells TSV of p with opts o into a string (caller frees); rc in *rc. */
static char *cells(const fk_profile *p, const fk_heatmap_opts *o, int *rc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	*rc = fk_heatmap_cells(p, o, f);
	fclose(f);
	return buf;
}

static fk_profile *sample_profile(void)
{
	fk_profile *p = fk_profile_new(FK_PROFILE_SAMPLES);
	if (!p)
		return NULL;
	add(p, -0.5, "neg", "neg;a", 1);       /* before 0: base second -1, row 25 */
	add(p, 0.0, "app", "app;main;x", 1);    /* second 1 relative to -1 */
	add(p, 0.02, "app", "app;main;y", 1);   /* row 1 exactly */
	add(p, 0.999999999, "app", "app;main;x", 0.25);
	add(p, NAN, "app", "app;main;lost", 1); /* no time: ignored */
	add(p, 2.2, "idle", "swapper;do_idle", 1);
	add(p, 2.2, "app", "app;main;x", 3);
	return p;
}

int main(void)
{
	fk_set_print(capture, NULL);
	fk_heatmap_opts o;
	fk_heatmap_opts_init(&o);
	CHECK(o.rows == 50 && isnan(o.start) && isnan(o.end) && !o.rank && !o.idle_filter,
	      "opts defaults");
	int rc;

	fk_profile *p = sample_profile();
	CHECK(fk_heatmap_time_origin(p) == -1, "origin %g", fk_heatmap_time_origin(p));
	char *got = cells(p, &o, &rc);
	CHECK(rc == 0 && !strcmp(got, "0\t25\t1\n1\t0\t1\n1\t1\t1\n1\t49\t0.25\n3\t10\t4\n"),
	      "cells: rc %d [%s]", rc, got);
	free(got);

	o.idle_filter = true;
	o.rows = 5;
	got = cells(p, &o, &rc);
	CHECK(rc == 0 && !strcmp(got, "0\t2\t1\n1\t0\t2\n1\t4\t0.25\n3\t1\t3\n"), "idle, 5 rows: [%s]", got);
	free(got);
	fk_heatmap_opts_init(&o);

	/* errors: each explained through the print callback */
	messages = 0;
	o.rows = 1001;
	got = cells(p, &o, &rc);
	CHECK(rc == -FK_E_INVAL && messages == 1 && *got == 0, "rows 1001: %d", rc);
	free(got);
	fk_heatmap_opts_init(&o);
	o.start = 5;
	o.end = 4;
	got = cells(p, &o, &rc);
	CHECK(rc == -FK_E_INVAL && messages == 2, "empty range: %d", rc);
	free(got);
	o.start = 10;
	o.end = NAN;
	got = cells(p, &o, &rc);
	CHECK(rc == -FK_E_EMPTY && strstr(last_msg, "no samples left"), "range past the end: %d %s", rc, last_msg);
	free(got);
	o.start = -1e300; /* absurd bounds are clamped, not overflowed */
	o.end = 1e300;
	got = cells(p, &o, &rc);
	CHECK(rc == 0 && !strcmp(got, "0\t25\t1\n1\t0\t1\n1\t1\t1\n1\t49\t0.25\n3\t10\t4\n"),
	      "huge range: %d [%s]", rc, got);
	free(got);
	fk_heatmap_opts_init(&o);
	o.isolate = "nope";
	got = cells(p, &o, &rc);
	CHECK(rc == -FK_E_EMPTY && strstr(last_msg, "nope"), "isolate unknown: %d", rc);
	free(got);
	fk_heatmap_opts_init(&o);

	fk_profile *noflag = fk_profile_new(0);
	fk_profile_add_folded(noflag, "a;b", 3, 0, 1);
	got = cells(noflag, &o, &rc);
	CHECK(rc == -FK_E_INVAL, "profile without samples: %d", rc);
	free(got);
	fk_profile_free(noflag);

	fk_profile *far = fk_profile_new(FK_PROFILE_SAMPLES);
	add(far, 1.0, "a", "a", 1);
	add(far, 200000.0, "a", "a", 1);
	got = cells(far, &o, &rc);
	CHECK(rc == -FK_E_TOOBIG && strstr(last_msg, "--start"), "span too long: %d %s", rc, last_msg);
	free(got);
	o.start = 199990;
	got = cells(far, &o, &rc);
	CHECK(rc == 0 && !strcmp(got, "199999\t0\t1\n"), "narrowed span: %d [%s]", rc, got);
	free(got);
	fk_profile_free(far);
	fk_heatmap_opts_init(&o);

	fk_profile *notime = fk_profile_new(FK_PROFILE_SAMPLES);
	add(notime, NAN, "a", "a;b", 1);
	CHECK(isnan(fk_heatmap_time_origin(notime)), "origin without times");
	got = cells(notime, &o, &rc);
	CHECK(rc == -FK_E_EMPTY && strstr(last_msg, "timestamp"), "no timestamps: %d", rc);
	free(got);
	fk_profile_free(notime);

	FILE *full = fopen("/dev/full", "w");
	if (full) {
		rc = fk_render_heatmap(p, &o, full);
		CHECK(rc == -FK_E_WRITE, "write error: %d", rc);
		fclose(full);
	}

	/* the page: same bytes twice */
	char *a = NULL, *b = NULL;
	size_t la = 0, lb = 0;
	FILE *fa = open_memstream(&a, &la), *fb = open_memstream(&b, &lb);
	CHECK(fk_render_heatmap(p, &o, fa) == 0 && fk_render_heatmap(p, &o, fb) == 0, "render");
	fclose(fa);
	fclose(fb);
	CHECK(la > 1000 && la == lb && !memcmp(a, b, la), "page not deterministic");
	free(a);
	free(b);

	/* fail each allocation in turn: an error or success, never a crash or leak */
	int ok_after = -1;
	o.highlight = "app,idle";
	for (long n = 0; n < 200 && ok_after < 0; n++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		countdown = n;
		rc = fk_render_heatmap(p, &o, f);
		countdown = -1;
		fclose(f);
		free(buf);
		CHECK(rc == 0 || rc == -FK_E_NOMEM, "allocation %ld failed -> %d", n, rc);
		if (rc == 0)
			ok_after = (int)n;
	}
	CHECK(ok_after > 5, "the render should allocate (succeeded after %d failures)", ok_after);
	fk_profile_free(p);
	if (failures)
		return 1;
	printf("test-heatmap: ok (render survives %d injected allocation failures)\n", ok_after);
	return 0;
}

/* test-svg.c - the renderer's C API: option checks, errors for empty input and
 * bad options, determinism, diff profiles, the HTML page (fk_render_html); then every
 * allocation of a render
 * and of fk_profile_diff failed one at a time (malloc/calloc/realloc wrapped
 * at link time): each failure is reported, nothing crashes, and under
 * SANITIZE=1 LeakSanitizer sees no leak. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

static int failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int warnings;
static void count_warn(enum fk_level l, const char *m, void *c)
{
	(void)m, (void)c;
	warnings += l == FK_LEVEL_WARN;
}

static const char input[] =
	"main;a;b 3\nmain;a;c 2\nmain;d 1.5\nother;x;y;z 7\nmain;a;b;a 1\nmain;-;k_[k] 2\n"
	"main;--;w 1\nmain;\xe8\xae\xa1\xe7\xae\x97;\"<&>\" 4\n";
static const char before[] = "main;a 5\nmain;b 3\nmain;0x1234 1\n";
static const char after[] = "main;a 2\nmain;b 6\nmain;0xabcd 2\n";

static fk_profile *load(const char *text, unsigned flags)
{
	fk_profile *p = fk_profile_new(flags);
	fk_parse_opts o;
	fk_parse_opts_init(&o);
	o.format = "folded";
	if (p && fk_parse_buffer(p, text, strlen(text), &o, NULL)) {
		fk_profile_free(p);
		return NULL;
	}
	return p;
}

static bool html_view; /* render with fk_render_html (the page) instead */

/* Render into memory; returns the fk error, *len the bytes written. */
static int render(const fk_profile *p, const fk_svg_opts *o, char *buf, size_t size, size_t *len)
{
	FILE *f = fmemopen(buf, size, "w");
	if (!f)
		return -1;
	int rc = html_view ? fk_render_html(p, o, f) : fk_render_svg(p, o, f);
	*len = (size_t)ftell(f);
	fclose(f);
	return rc;
}

static char cp_path[64];

/* Everything that allocates: several views of one profile and a diff. */
static int scenario(char *out, size_t size, size_t *total)
{
	int failed = 0;
	size_t len = 0;
	*total = 0;
	fk_profile *p = load(input, FK_PROFILE_SAMPLES);
	fk_profile *a = load(before, 0), *b = load(after, 0);
	if (!p || !a || !b) {
		failed = 1;
		goto out;
	}
	fk_svg_opts o;
	fk_svg_opts_init(&o);
	for (int view = 0; view < 10; view++) {
		fk_svg_opts v = o;
		/* views 6 and 7: the HTML page, plain and differential with --reverse */
		html_view = view == 6 || view == 7;
		if (view == 6)
			v.focus = "a", v.cp_file = cp_path;
		if (view == 1)
			v.reverse = true, v.focus = "a", v.colors = "java", v.hash = true;
		if (view == 2)
			v.flamechart = true, v.random = true, v.seed = 3, v.colors = "chain";
		if (view == 3)
			v.inverted = true, v.sort = FK_SORT_WEIGHT, v.truncate = FK_TRUNC_LEFT,
			v.max_frames = 4, v.notes = "n--", v.subtitle = "s";
		if (view == 4)
			v.cp_file = cp_path;
		fk_profile *src = p, *d = NULL;
		if (view == 5 || view >= 7) {
			d = fk_profile_diff(a, b, true, true);
			if (!d) {
				failed = 1;
				break;
			}
			src = d;
			v.diff_mode = FK_DIFF_TOTAL;
			v.reverse = view == 7;
			/* views 8 and 9: both sides' widths, from the tree and from the walk */
			if (view == 8)
				v.diff_shape = FK_SHAPE_BOTH, v.sort = FK_SORT_WEIGHT;
			if (view == 9)
				v.diff_shape = FK_SHAPE_BOTH, v.diff_mode = FK_DIFF_SELF, v.negate = true;
		}
		if (render(src, &v, out + *total, size - *total, &len))
			failed = 1;
		*total += len;
		fk_profile_free(d);
		if (failed)
			break;
	}
out:
	html_view = false;
	fk_profile_free(p);
	fk_profile_free(a);
	fk_profile_free(b);
	return failed;
}

int main(void)
{
	static char good[1 << 20], got[1 << 20];
	size_t len, glen;
	fk_set_print(count_warn, NULL);
	snprintf(cp_path, sizeof(cp_path), "/tmp/fk-test-svg-%d.map", (int)getpid());

	/* option checks */
	fk_svg_opts o;
	fk_svg_opts_init(&o);
	CHECK(fk_svg_opts_check(&o) == 0, "defaults rejected");
	CHECK(o.width == 1200 && o.frameheight == 16 && o.minwidth == 0.1 && isnan(o.range_start), "defaults");
	fk_svg_opts bad = o;
	bad.colors = "plaid";
	warnings = 0;
	CHECK(fk_svg_opts_check(&bad) == -FK_E_INVAL && warnings == 1, "bad palette");
	bad = o, bad.bgcolors = "#12345g";
	CHECK(fk_svg_opts_check(&bad) == -FK_E_INVAL, "bad background");
	bad = o, bad.width = 5;
	CHECK(fk_svg_opts_check(&bad) == -FK_E_INVAL, "bad width");
	bad = o, bad.range_start = 3, bad.range_end = 1;
	CHECK(fk_svg_opts_check(&bad) == -FK_E_INVAL, "bad range");
	bad = o, bad.diff_shape = 3;
	CHECK(fk_svg_opts_check(&bad) == -FK_E_INVAL, "bad diff shape");
	bad = o, bad.diff_shape = FK_SHAPE_BOTH, bad.flamechart = true;
	warnings = 0;
	CHECK(fk_svg_opts_check(&bad) == -FK_E_INVAL && warnings == 1, "both sides on a flame chart");
	bad.diff_shape = FK_SHAPE_BEFORE;
	CHECK(fk_svg_opts_check(&bad) == 0, "before on a flame chart");

	/* errors: empty profile, bad options, NULL arguments */
	fk_profile *empty = fk_profile_new(0);
	CHECK(render(empty, &o, got, sizeof(got), &len) == -FK_E_EMPTY && len == 0, "empty profile");
	fk_profile *p = load(input, 0);
	CHECK(p != NULL, "load");
	bad = o, bad.colors = "plaid";
	CHECK(render(p, &bad, got, sizeof(got), &len) == -FK_E_INVAL && len == 0, "bad options render");
	CHECK(fk_render_svg(NULL, &o, stdout) == -FK_E_INVAL, "NULL profile");
	bad = o, bad.range_start = 0;
	CHECK(render(p, &bad, got, sizeof(got), &len) == -FK_E_INVAL, "range without samples");
	bad = o, bad.focus = "nowhere";
	CHECK(render(p, &bad, got, sizeof(got), &len) == -FK_E_EMPTY, "focus not found");
	fk_profile_free(empty);

	/* deterministic: same profile and options, same bytes */
	CHECK(render(p, &o, good, sizeof(good), &glen) == 0, "render");
	CHECK(render(p, &o, got, sizeof(got), &len) == 0 && len == glen && !memcmp(good, got, len), "not deterministic");
	fk_profile_free(p);

	/* diff: columns, normalisation, hex stripping */
	fk_profile *a = load(before, 0), *b = load(after, 0);
	fk_profile *d = fk_profile_diff(a, b, true, true);
	CHECK(d && fk_profile_columns(d) == 2, "diff columns");
	if (d) {
		FILE *f = fmemopen(got, sizeof(got), "w");
		fk_profile_write_folded(d, f);
		len = (size_t)ftell(f);
		fclose(f);
		got[len] = 0;
		/* before total 9, after 10: int(5*10/9)=5, int(3*10/9)=3, int(1*10/9)=1 */
		CHECK(!strcmp(got, "main;0x... 1 2\nmain;a 5 2\nmain;b 3 6\n"), "diff output: %s", got);
	}
	fk_profile_free(d);
	fk_profile_free(a);
	fk_profile_free(b);

	/* allocation failures, one at a time */
	unlink(cp_path);
	calls = 0;
	countdown = -1;
	if (scenario(good, sizeof(good), &glen)) {
		fprintf(stderr, "test-svg: scenario fails without injected failures\n");
		return 1;
	}
	long total = calls, reported = 0;
	for (long n = 0; n < total; n++) {
		unlink(cp_path);
		countdown = n;
		int failed = scenario(got, sizeof(got), &len);
		countdown = -1;
		if (failed)
			reported++;
		else
			CHECK(len == glen && !memcmp(good, got, len), "allocation %ld failed silently", n);
	}
	unlink(cp_path);
	CHECK(reported > 0, "no injected failure was reported");
	if (failures)
		return 1;
	printf("test-svg: %ld allocations failed one at a time, %ld reported, no crash\n", total, reported);
	return 0;
}

/* test-options.c - the option schemas and their setter: every row of every table
 * takes a good value and refuses a bad one with a message naming the key as it
 * was spelled; the sz field lets an older, shorter struct through. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "flamekit.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

/* a value each type of row takes */
static const char *good_value(const fk_option *r)
{
	static char buf[64];
	switch (r->type) {
	case FK_OPT_FLAG: return NULL;
	case FK_OPT_TEXT: return "text";
	case FK_OPT_CHOICE: case FK_OPT_BCHOICE:
		snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(r->choices, "|"), r->choices);
		return buf;
	case FK_OPT_CUSTOM:
		if (!strcmp(r->name, "range")) return "1-2";
		if (!strcmp(r->name, "encoding")) return "utf-8";
		if (!strcmp(r->name, "minwidth")) return "5%";
		if (!strcmp(r->name, "colors")) return "mem";
		if (!strcmp(r->name, "format")) return "folded";
		if (!strcmp(r->name, "bgcolors")) return "#a0b0c0";
		return "3";
	default:
		snprintf(buf, sizeof(buf), "%.17g", r->flags & FK_OPTF_ABOVE_MIN ? r->min + 1 : r->min);
		return buf;
	}
}

static void test_table(const fk_option *rows, size_t n, size_t size, void (*init)(void *))
{
	char *opts = malloc(size), err[512];
	for (size_t i = 0; i < n; i++) {
		const fk_option *r = &rows[i];
		init(opts);
		CHECK(r->name && r->help && *r->help);
		CHECK(fk_option_find(rows, n, r->name, (size_t)-1) == r);
		const char *v = good_value(r);
		int rc = fk_option_set(rows, n, opts, r->name, v, err, sizeof(err));
		if (rc)
			fprintf(stderr, "%s=%s: %s\n", r->name, v ? v : "(none)", err);
		CHECK(rc == 0);
		/* bad values: every number row has a range; names in the message as spelled */
		if (r->type == FK_OPT_INT || r->type == FK_OPT_UINT || r->type == FK_OPT_DOUBLE) {
			char bad[64];
			snprintf(bad, sizeof(bad), "%.17g", r->max * 2 + 1);
			CHECK(fk_option_set(rows, n, opts, r->name, bad, err, sizeof(err)) == -FK_E_INVAL);
			char want[128];
			snprintf(want, sizeof(want), "%s=%s: expected", r->name, bad);
			CHECK(!strncmp(err, want, strlen(want)));
			char dashed[80];
			snprintf(dashed, sizeof(dashed), "--%s", r->name);
			CHECK(fk_option_set(rows, n, opts, dashed, "abc", err, sizeof(err)) == -FK_E_INVAL);
			CHECK(!strncmp(err, dashed, strlen(dashed)) && strstr(err, "got 'abc'"));
		}
		if (r->type == FK_OPT_CHOICE || r->type == FK_OPT_BCHOICE) {
			CHECK(fk_option_set(rows, n, opts, r->name, "nosuch", err, sizeof(err)) == -FK_E_INVAL);
			CHECK(strstr(err, "expected one of"));
		}
		if (r->type != FK_OPT_FLAG && !(r->flags & FK_OPTF_VALUE_OPTIONAL)) {
			CHECK(fk_option_set(rows, n, opts, r->name, NULL, err, sizeof(err)) == -FK_E_INVAL);
			CHECK(strstr(err, "needs a value"));
		}
	}
	CHECK(fk_option_set(rows, n, opts, "nosuch=1", NULL, err, sizeof(err)) == -FK_E_INVAL);
	CHECK(!strcmp(err, "unknown option 'nosuch'"));
	free(opts);
}

static void svg_init(void *o) { fk_svg_opts_init(o); }
static void hm_init(void *o) { fk_heatmap_opts_init(o); }
static void parse_init(void *o) { fk_parse_opts_init(o); }
static void gate_init(void *o) { fk_gate_opts_init(o); }

static void test_svg_values(void)
{
	fk_svg_opts o;
	fk_svg_opts_init(&o);
	CHECK(o.sz == sizeof(o));
	CHECK(fk_svg_opts_set(&o, "width=800", NULL) == 0 && o.width == 800);
	CHECK(fk_svg_opts_set(&o, "--height", "5000") == 0 && o.frameheight == 5000);
	CHECK(fk_svg_opts_set(&o, "minwidth", "2%") == 0 && o.minwidth == 2 && o.minwidth_pct);
	CHECK(fk_svg_opts_set(&o, "minwidth", "-1") == -FK_E_INVAL);
	CHECK(fk_svg_opts_set(&o, "color", "blue") == 0 && !strcmp(o.colors, "blue"));
	/* palettes and backgrounds are checked when set, as ranges are, not at render time */
	CHECK(fk_svg_opts_set(&o, "colors", "nosuch") == -FK_E_INVAL && !strcmp(o.colors, "blue"));
	CHECK(fk_svg_opts_set(&o, "bgcolors", "#12345") == -FK_E_INVAL && !o.bgcolors);
	CHECK(fk_svg_opts_set(&o, "bgcolors", "grey") == 0 && !strcmp(o.bgcolors, "grey"));
	char err[256];
	size_t nrows;
	/* the table first: an argument list evaluates in no set order (nrows read before set) */
	const fk_option *svg_rows = fk_svg_options(&nrows);
	CHECK(fk_option_set(svg_rows, nrows, &o, "--colors", "nosuch", err, sizeof(err)) == -FK_E_INVAL &&
	      !strncmp(err, "--colors: unknown palette 'nosuch' (hot ", 40));
	CHECK(fk_svg_opts_set(&o, "max_frames", "all") == 0 && o.max_frames == SIZE_MAX);
	CHECK(fk_svg_opts_set(&o, "random", NULL) == 0 && o.random && o.seed == 1);
	CHECK(fk_svg_opts_set(&o, "random=18446744073709551615", NULL) == 0 && o.seed == UINT64_MAX);
	CHECK(fk_svg_opts_set(&o, "cp", NULL) == 0 && !strcmp(o.cp_file, "palette.map"));
	CHECK(fk_svg_opts_set(&o, "cp=x.map", NULL) == 0 && !strcmp(o.cp_file, "x.map"));
	CHECK(fk_svg_opts_set(&o, "range", "2-") == 0 && o.range_start == 2 && isnan(o.range_end));
	CHECK(fk_svg_opts_set(&o, "range", "3-1") == -FK_E_INVAL);
	CHECK(fk_svg_opts_set(&o, "sort", "weight") == 0 && o.sort == FK_SORT_WEIGHT);
	CHECK(fk_svg_opts_set(&o, "hash=no", NULL) == 0 && !o.hash);
	CHECK(fk_svg_opts_set(&o, "hash=maybe", NULL) == -FK_E_INVAL);
	CHECK(fk_svg_opts_set(&o, "factor", "0") == -FK_E_INVAL);
	CHECK(fk_svg_opts_set(&o, "width", "1200.5") == -FK_E_INVAL);
	CHECK(fk_svg_opts_check(&o) == 0);
	fk_heatmap_opts h;
	fk_heatmap_opts_init(&h);
	CHECK(fk_heatmap_opts_set(&h, "scale=rank", NULL) == 0 && h.rank);
	CHECK(fk_heatmap_opts_set(&h, "countname=ns", NULL) == 0 && !strcmp(h.svg.countname, "ns"));
	fk_parse_opts p;
	fk_parse_opts_init(&p);
	CHECK(fk_parse_opts_set(&p, "full-names", NULL) == 0 && p.full_names);
	CHECK(fk_parse_opts_set(&p, "threads=65", NULL) == -FK_E_INVAL);
	/* a format's name is checked when set (a usage error before any input is read) */
	CHECK(fk_parse_opts_set(&p, "format", "nosuch") == -FK_E_INVAL && !p.format);
	CHECK(fk_parse_opts_set(&p, "format", "perf") == 0 && !strcmp(p.format, "perf"));
	CHECK(fk_parse_opts_set(&p, "format", "auto") == 0);
}

/* A caller built against an older header passes a shorter struct: the fields it
 * does not know take their defaults, whatever lies beyond its end. */
static void test_sz(void)
{
	fk_profile *p = fk_profile_new(0);
	fk_profile_add_folded(p, "a;b", 3, 0, 1);
	struct { fk_svg_opts o; char junk[64]; } big;
	memset(&big, 0x7f, sizeof(big));
	fk_svg_opts_init(&big.o);
	big.o.max_frames = (size_t)-12345;   /* garbage in a field the caller does not know */
	big.o.width = 800;
	big.o.sz = offsetof(fk_svg_opts, max_frames);
	char *a = NULL, *b = NULL;
	size_t al, bl;
	FILE *f = open_memstream(&a, &al);
	CHECK(fk_render_svg(p, &big.o, f) == 0);
	fclose(f);
	fk_svg_opts d;
	fk_svg_opts_init(&d);
	d.width = 800;
	f = open_memstream(&b, &bl);
	CHECK(fk_render_svg(p, &d, f) == 0);
	fclose(f);
	CHECK(al == bl && !memcmp(a, b, al));
	free(a);
	free(b);
	fk_profile_free(p);
}

int main(void)
{
	size_t n;
	const fk_option *rows = fk_svg_options(&n);
	test_table(rows, n, sizeof(fk_svg_opts), svg_init);
	rows = fk_heatmap_options(&n);
	test_table(rows, n, sizeof(fk_heatmap_opts), hm_init);
	rows = fk_parse_options(&n);
	test_table(rows, n, sizeof(fk_parse_opts), parse_init);
	rows = fk_gate_options(&n);
	test_table(rows, n, sizeof(fk_gate_opts), gate_init);
	fk_gate_opts g;
	fk_gate_opts_init(&g);
	char err[256];
	CHECK(fk_option_set(rows, n, &g, "fail-above", "2pt", err, sizeof(err)) == 0 && g.points &&
	      g.limit == 2);
	CHECK(fk_option_set(rows, n, &g, "fail-above", "15%", err, sizeof(err)) == 0 && !g.points &&
	      g.limit == 0.15);
	CHECK(fk_option_set(rows, n, &g, "fail-above", "-1%", err, sizeof(err)) == -FK_E_INVAL);
	CHECK(fk_option_set(rows, n, &g, "min-share", "0.5%", err, sizeof(err)) == 0 &&
	      g.min_share == 0.005);
	CHECK(fk_option_set(rows, n, &g, "min-share", "101", err, sizeof(err)) == -FK_E_INVAL);
	test_svg_values();
	test_sz();
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures != 0;
}

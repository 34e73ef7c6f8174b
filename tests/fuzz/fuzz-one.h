/* fuzz-one.h - one input through one parser, then through the writers, shared by
 * the libFuzzer targets (fuzz.c) and the plain replay driver (replay.c) so both
 * exercise the same code. Every output is written to memory and checked
 * (fuzz-check.h): SVG is well-formed XML, the pages are sound HTML with valid JSON
 * data (so no name broke out of its escaping), speedscope is valid JSON, and pprof
 * and folded output read back to the same totals. A broken rule aborts
 * (libFuzzer saves the input; the replay fails). */
#ifndef FK_FUZZ_ONE_H
#define FK_FUZZ_ONE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flamekit.h"
#include "fuzz-check.h"

static void fk_fuzz_quiet(enum fk_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)ctx;
	/* Touch the message so a bad format string or a missing NUL shows up under ASan. */
	volatile size_t n = strlen(msg);
	(void)n;
}

/* Options come from a hash of the input, so one corpus file always runs
 * the same way but the corpus as a whole covers every option. */
static uint64_t fk_fuzz_hash(const uint8_t *d, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ d[i]) * 1099511628211ULL;
	return h;
}

/* Which writers run: the replay runs all of them on every input; a fuzz target
 * runs the cheap ones always and one of the page views, chosen by the hash. */
enum {
	FK_FUZZ_SVG = 1u << 0,
	FK_FUZZ_HTML = 1u << 1,
	FK_FUZZ_HEATMAP = 1u << 2,
	FK_FUZZ_EXPORT = 1u << 3, /* folded, samples, pprof, speedscope */
	FK_FUZZ_ALL = 15u,
};

static const char *fk_fuzz_what = "";  /* for messages: the input being run */

static void fk_fuzz_broken(const char *output, const char *why, const char *text, size_t len,
			   size_t at)
{
	size_t b = at > 60 ? at - 60 : 0, e = at + 60 < len ? at + 60 : len;
	fprintf(stderr, "fuzz: %s%s%s output broken: %s at byte %zu: [%.*s]\n", fk_fuzz_what,
		*fk_fuzz_what ? ": " : "", output, why, at, (int)(e - b), text ? text + b : "");
	abort();
}

/* The writer's output in memory: 0 and *out (free it), or the writer's error. */
typedef int (*fk_fuzz_writer)(const fk_profile *p, const void *opts, FILE *f);

static int fk_fuzz_write(fk_fuzz_writer w, const fk_profile *p, const void *opts, char **out,
			 size_t *len)
{
	*out = NULL;
	*len = 0;
	FILE *f = open_memstream(out, len);
	if (!f)
		return -FK_E_NOMEM;
	int rc = w(p, opts, f);
	if (fclose(f) && !rc)
		rc = -FK_E_WRITE;
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

static int fk_fuzz_w_svg(const fk_profile *p, const void *o, FILE *f) { return fk_render_svg(p, o, f); }
static int fk_fuzz_w_html(const fk_profile *p, const void *o, FILE *f) { return fk_render_html(p, o, f); }
static int fk_fuzz_w_heat(const fk_profile *p, const void *o, FILE *f) { return fk_render_heatmap(p, o, f); }
static int fk_fuzz_w_cells(const fk_profile *p, const void *o, FILE *f) { return fk_heatmap_cells(p, o, f); }
static int fk_fuzz_w_pprof(const fk_profile *p, const void *o, FILE *f) { return fk_write_pprof(p, o, f); }
static int fk_fuzz_w_ss(const fk_profile *p, const void *o, FILE *f) { return fk_write_speedscope(p, o, f); }
static int fk_fuzz_w_folded(const fk_profile *p, const void *o, FILE *f)
{
	(void)o;
	return fk_profile_write_folded(p, f);
}
static int fk_fuzz_w_samples(const fk_profile *p, const void *o, FILE *f)
{
	(void)o;
	return fk_profile_write_samples(p, f);
}

/* A name of the profile, to use as an untrusted option value (title, focus...):
 * the first with '<' or '&' in it, else one picked by h. NULL-terminated copy. */
static char *fk_fuzz_name(const fk_profile *p, uint64_t h)
{
	size_t count = fk_profile_name_count(p), l = 0;
	const char *pick = NULL;
	for (size_t id = 0; id < count && !pick; id++) {
		const char *s = fk_profile_name(p, (uint32_t)id, &l);
		if (memchr(s, '<', l) || memchr(s, '&', l))
			pick = s;
	}
	if (!pick)
		pick = fk_profile_name(p, count ? (uint32_t)(h % count) : 0, &l);
	return strndup(pick, l);
}

/* Markup output: sound. */
static void fk_fuzz_markup(const char *what, const char *text, size_t len, bool html)
{
	fk_mscan *m = malloc(sizeof(*m));
	if (!m)
		return;
	size_t at = 0;
	const char *why = fk_check_markup(m, text, len, html, &at);
	free(m);
	if (why)
		fk_fuzz_broken(what, why, text, len, at);
}

/* Counts that survive a trip through an integer format unchanged: whole numbers
 * below 2^53 in every node (and recorded sample). */
static bool fk_fuzz_whole(const fk_profile *p)
{
	size_t n;
	const fk_node *nd = fk_profile_nodes(p, &n);
	for (size_t i = 0; i < n; i++)
		for (unsigned c = 0; c < 2; c++)
			if (nd[i].self[c] != nearbyint(nd[i].self[c]) || fabs(nd[i].self[c]) > 1e15)
				return false;
	const fk_sample *s = fk_profile_samples(p, &n);
	for (size_t i = 0; s && i < n; i++)
		if (s[i].weight != nearbyint(s[i].weight) || fabs(s[i].weight) > 1e15)
			return false;
	unsigned cols = fk_profile_columns(p);
	for (unsigned c = 0; c < cols; c++)
		if (fabs(fk_profile_total(p, c)) > 1e15)
			return false;
	return true;
}

/* Names a folded line can hold unambiguously: no separator (';'), no space (a
 * name ending in " 12" reads as a count), no line end, no leading '#' (a root
 * frame "#x" makes a comment line), no empty frame (" 12" has no stack). */
static bool fk_fuzz_foldable(const fk_profile *p)
{
	size_t count = fk_profile_name_count(p), nn;
	const fk_node *nd = fk_profile_nodes(p, &nn);
	for (size_t i = 1; i < nn; i++)
		if (nd[i].frame == 0 || !fk_profile_name(p, nd[i].frame, NULL)[0])
			return false;
	for (size_t id = 0; id < count; id++) {
		size_t l;
		const char *s = fk_profile_name(p, (uint32_t)id, &l);
		if (l && s[0] == '#')
			return false;
		for (size_t i = 0; i < l; i++)
			if (s[i] == ';' || (unsigned char)s[i] <= ' ' || s[i] == 0x7f)
				return false;
	}
	return true;
}

/* Read text back as format (column col of pprof) and compare its total with col's. */
static void fk_fuzz_reread(const char *what, const fk_profile *p, const char *format,
			   const char *text, size_t len, unsigned col)
{
	fk_parse_opts o;
	fk_parse_opts_init(&o);
	o.format = format;
	o.name = what;
	char idx[8];
	snprintf(idx, sizeof(idx), "%u", col);
	if (!strcmp(format, "pprof"))
		o.sample_type = idx;
	fk_profile *q = fk_profile_new(0);
	if (!q)
		return;
	fk_parse_stats st;
	int rc = fk_parse_buffer(q, text, len, &o, &st);
	double want = fk_profile_total(p, col);
	size_t nn;
	const fk_node *nd = fk_profile_nodes(p, &nn);
	if (!strcmp(format, "folded") && nn)
		want -= nd[0].self[col]; /* a count on no frame at all has no folded line */
	double got = rc == -FK_E_NOMEM ? want : fk_profile_total(q, strcmp(format, "pprof") ? col : 0);
	fk_profile_free(q);
	if (rc == -FK_E_NOMEM)
		return;
	if (got != want) {
		char why[160];
		snprintf(why, sizeof(why), "read back (rc %d) with total %.17g in column %u, not %.17g",
			 rc, got, col, want);
		fk_fuzz_broken(what, why, text, len, 0);
	}
}

static void fk_fuzz_render(const fk_profile *p, uint64_t h, unsigned outputs)
{
	if (fk_profile_empty(p))
		return;
	bool samples = fk_profile_flags(p) & FK_PROFILE_SAMPLES;
	char *name = fk_fuzz_name(p, h >> 40);
	char *t;
	size_t len;
	static const char *const palettes[] = { "hot", "mem", "io", "wakeup", "chain", "java",
		"js", "perl", "red", "green", "blue", "aqua", "yellow", "purple", "orange", NULL };

	/* the views' options */
	fk_svg_opts so;
	fk_svg_opts_init(&so);
	so.inverted = h & 1;
	so.reverse = h & 2;
	so.colors = palettes[(h >> 2) % 16];
	so.hash = h & 0x40;
	so.random = (h & 0x180) == 0x180;
	so.seed = h >> 48;
	so.flamechart = samples && (h & 0x600) == 0x600;
	so.negate = h & 0x800;
	so.sort = (h >> 12) & 1;
	so.truncate = (h >> 13) & 1;
	so.diff_mode = (h >> 14) & 1;
	if (h & 0x8000)
		so.minwidth = 0;
	if (h & 0x10000)
		so.width = 100 + (int)((h >> 17) % 400);
	if ((h & 0x60000) == 0x60000)
		so.focus = name;
	if (h & 0x80000)
		so.title = name;
	if (h & 0x100000)
		so.notes = so.subtitle = so.countname = name;
	if ((h & 0x600000) == 0x600000)
		so.factor = 0.5;
	if ((h & 0x1800000) == 0x1800000) {
		so.range_start = 0;
		so.range_end = 0.5;
	}
	if ((h & 0x6000000) == 0x6000000)
		so.max_frames = 8;
	if (h & 0x8000000)
		so.bgcolors = h & 0x10000000 ? "#1a2b3c" : "grey";

	if (outputs & FK_FUZZ_SVG && fk_fuzz_write(fk_fuzz_w_svg, p, &so, &t, &len) == 0) {
		fk_fuzz_markup("svg", t, len, false);
		free(t);
	}
	if (outputs & FK_FUZZ_HTML && fk_fuzz_write(fk_fuzz_w_html, p, &so, &t, &len) == 0) {
		fk_fuzz_markup("html", t, len, true);
		free(t);
	}
	if (outputs & FK_FUZZ_HEATMAP && samples) {
		fk_heatmap_opts ho;
		fk_heatmap_opts_init(&ho);
		ho.rows = 1 + (unsigned)((h >> 29) % 100);
		ho.rank = h & (1ull << 36);
		ho.idle_filter = h & (1ull << 37);
		if (h & (1ull << 38))
			ho.isolate = name;
		if (h & (1ull << 39))
			ho.highlight = name;
		if (h & 0x80000)
			ho.title = name;
		if ((h & 0x1800000) == 0x1800000) {
			ho.start = 0;
			ho.end = 2;
		}
		ho.svg.inverted = so.inverted;
		ho.svg.countname = so.countname;
		if (fk_fuzz_write(fk_fuzz_w_heat, p, &ho, &t, &len) == 0) {
			fk_fuzz_markup("heatmap", t, len, true);
			free(t);
		}
		if (fk_fuzz_write(fk_fuzz_w_cells, p, &ho, &t, &len) == 0)
			free(t);
	}
	if (outputs & FK_FUZZ_EXPORT) {
		bool whole = fk_fuzz_whole(p);
		unsigned cols = fk_profile_columns(p);
		if (fk_fuzz_write(fk_fuzz_w_folded, p, NULL, &t, &len) == 0) {
			for (unsigned c = 0; whole && fk_fuzz_foldable(p) && c < cols; c++)
				fk_fuzz_reread("folded", p, "folded", t, len, c);
			free(t);
		}
		if (samples && fk_fuzz_write(fk_fuzz_w_samples, p, NULL, &t, &len) == 0)
			free(t);
		static const char *const labels[] = { "host=fuzz" };
		fk_pprof_opts po;
		fk_pprof_opts_init(&po);
		po.labels = labels;
		po.nlabels = h & (1ull << 40) ? 1 : 0;
		po.plain = h & (1ull << 41);
		po.timestamps = h & (1ull << 42);
		po.root_labels = (h & (3ull << 43)) == (3ull << 43);
		if (fk_fuzz_write(fk_fuzz_w_pprof, p, &po, &t, &len) == 0) {
			for (unsigned c = 0; whole && !po.root_labels && c < cols; c++)
				fk_fuzz_reread("pprof", p, "pprof", t, len, c);
			free(t);
		}
		static const char *const units[] = { NULL, "none", "nanoseconds", "bytes" };
		fk_speedscope_opts sso;
		fk_speedscope_opts_init(&sso);
		sso.form = (int)((h >> 45) % 3);
		sso.unit = units[(h >> 47) & 3];
		sso.name = h & (1ull << 49) ? name : NULL;
		if (fk_fuzz_write(fk_fuzz_w_ss, p, &sso, &t, &len) == 0) {
			size_t at;
			const char *why = fk_check_text(t, len, &at);
			if (!why)
				why = fk_check_json(t, len, &at);
			if (why)
				fk_fuzz_broken("speedscope", why, t, len, at);
			free(t);
		}
	}
	free(name);
}

/* Parse data as format (NULL = auto-detect) into a fresh profile, read the model
 * back (totals), then run the writers of `outputs` on it (and, for some inputs, on
 * a differential profile of it and a part of it). Returns the parse result. */
static int fk_fuzz_one(const char *format, const uint8_t *data, size_t size, unsigned outputs)
{
	uint64_t h = fk_fuzz_hash(data, size);
	fk_parse_opts o;
	fk_parse_opts_init(&o);
	o.format = format;
	o.name = "fuzz";
	o.pid = h & 1;
	o.tid = h & 2;
	o.kernel = h & 4;
	o.jit = h & 8;
	o.all = (h & 0x30) == 0x30;
	o.addrs = h & 0x40;
	/* --inline runs addr2line on paths from the input: not in a fuzzer */
	o.inline_frames = false;
	o.full_names = h & 0x100;
	o.samples = h & 0x200;
	o.no_comm = h & 0x400;
	o.event_filter = (h & 0x1800) == 0x1800 ? "cpu-clock" : NULL;
	o.max_warnings = 3;
	o.label_frames = h & 0x10000 ? "all" : NULL;
	o.sample_type = (h & 0x60000) == 0x60000 ? "0" : NULL;
	o.rust_names = h & 0x80000;
	o.cxx_names = h & 0x100000;
	o.keep_offsets = h & 0x200000;
	o.all_maps = h & 0x400000;
	o.map = (h & 0x1800000) == 0x1800000 ? "u" : NULL;
	fk_profile *p = fk_profile_new(h & 0x2000 ? FK_PROFILE_SAMPLES : 0);
	if (!p)
		return -1;
	fk_parse_stats st;
	int rc = fk_parse_buffer(p, (const char *)data, size, &o, &st);
	size_t n;
	fk_profile_nodes(p, &n);
	double *tot = malloc(n * 2 * sizeof(double) + 1);
	if (tot) {
		fk_profile_totals(p, tot);
		free(tot);
	}
	/* the writers' options from another hash of the input */
	uint64_t h2 = fk_fuzz_hash(data, size) * 0x9e3779b97f4a7c15ULL;
	h2 ^= h2 >> 29;
	if (outputs != FK_FUZZ_ALL) /* one page view per input in a fuzz target */
		outputs = FK_FUZZ_EXPORT | (1u << (h2 >> 61) % 3);
	fk_fuzz_render(p, h2, outputs);
	/* a differential profile: this one against itself without the stacks that have
	 * a frame ending in a vowel (or the other way round) */
	if ((h2 >> 50) % 8 == 0 && !fk_profile_empty(p)) {
		fk_profile *q = fk_profile_filter(p, "[aeiou](;|$)", FK_FILTER_DROP);
		bool swap = h2 & (1ull << 55);
		fk_profile *d = q ? fk_profile_diff(swap ? q : p, swap ? p : q, h2 & (1ull << 53),
						    h2 & (1ull << 54)) : NULL;
		if (d)
			fk_fuzz_render(d, h2 >> 1, outputs & ~FK_FUZZ_HEATMAP);
		fk_profile_free(d);
		fk_profile_free(q);
	}
	fk_profile_free(p);
	return rc;
}

#endif

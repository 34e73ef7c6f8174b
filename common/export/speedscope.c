/* speedscope.c - a profile as speedscope's JSON file format (the schema ships in the speedscope
 * npm package, dist/release/file-format-schema.json): a "sampled" profile of the unique stacks
 * and, for timestamped samples, an "evented" one in time order (speedscope's time-order view). */
#include <math.h>
#include <stdlib.h>
#include "internal.h"
#include "base/out.h"

void fk_speedscope_opts_init(fk_speedscope_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
}

/* Names go through the library's one JSON/JS string escaper (base/out.c): quotes,
 * backslashes, controls, < > & escaped, bytes that are not UTF-8 as U+FFFD. */
static void json_str(fk_obuf *out, const char *s, size_t len) { fk_obuf_js(out, s, len); }

static void json_num(fk_obuf *out, double v)
{
	fk_obuf_exact(out, isfinite(v) ? v : 0);
}

static inline void put1(fk_obuf *out, char c) { fk_obuf_put(out, &c, 1); }

typedef struct sctx {
	const fk_profile *p;
	const fk_node *nodes;
	size_t nn;
	uint32_t *frame_of;   /* profile name id -> index in shared.frames */
	uint32_t *order;      /* nodes grouped by parent, children in frame order */
	uint32_t *path;       /* scratch: a stack's frame indexes, root first */
} sctx;

typedef struct nameref {
	const char *s;
	size_t len;
	uint32_t id;
} nameref;

static int cmp_name(const void *a, const void *b)
{
	const nameref *x = a, *y = b;
	return fk_bytes_cmp(x->s, x->len, y->s, y->len);
}

static int cmp_child(const void *a, const void *b, void *ctx)
{
	const sctx *w = ctx;
	const fk_node *x = &w->nodes[*(const uint32_t *)a], *y = &w->nodes[*(const uint32_t *)b];
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	uint32_t fx = w->frame_of[x->frame], fy = w->frame_of[y->frame];
	return (fx > fy) - (fx < fy);
}

/* The frame indexes of node's stack, root first, into w->path; its depth. */
static size_t stack_of(const sctx *w, uint32_t node)
{
	size_t d = w->nodes[node].depth;
	for (uint32_t n = node; n && n != FK_NONE; n = w->nodes[n].parent)
		w->path[w->nodes[n].depth - 1] = w->frame_of[w->nodes[n].frame];
	return d;
}

static void profile_head(fk_obuf *out, const char *type, const char *name, const char *unit,
			 double end)
{
	fk_obuf_printf(out, "{\"type\":\"%s\",\"name\":", type);
	json_str(out, name, strlen(name));
	fk_obuf_printf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":", unit);
	json_num(out, end);
}

static int cmp_time(const void *a, const void *b, void *ctx)
{
	const fk_sample *s = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	double tx = s[x].time, ty = s[y].time;
	if (tx < ty)
		return -1;
	if (tx > ty)
		return 1;
	return (x > y) - (x < y); /* equal or unknown times: the order they were taken */
}

static bool valid_unit(const char *u)
{
	static const char *const units[] = { "none", "nanoseconds", "microseconds", "milliseconds",
					     "seconds", "bytes" };
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(u, units[i]))
			return true;
	return false;
}

int fk_write_speedscope(const fk_profile *p, const fk_speedscope_opts *o, FILE *f)
{
	fk_obuf ob = { 0 }, *out = &ob;
	fk_speedscope_opts def;
	fk_speedscope_opts_init(&def);
	if (o)
		FK_OPTS_ADOPT(def, o);
	o = &def;
	/* the profile's unit, where speedscope has a name for it */
	const char *pu = fk_profile_unit(p), *unit = "none";
	if (pu && !strcmp(pu, "ns"))
		unit = "nanoseconds";
	else if (pu && !strcmp(pu, "us"))
		unit = "microseconds";
	if (o->unit && *o->unit)
		unit = o->unit;
	const char *name = o->name && *o->name ? o->name : "flamekit";
	if (!valid_unit(unit)) {
		fk_warn("speedscope unit '%s': expected none, nanoseconds, microseconds, milliseconds, seconds or bytes", unit);
		return -FK_E_INVAL;
	}
	sctx w = { .p = p };
	if (!(w.nodes = fk_profile_nodes(p, &w.nn)))
		return -FK_E_NOMEM;
	size_t nnames = fk_profile_name_count(p), nsamples = 0, maxdepth = 1;
	const fk_sample *samples = fk_profile_samples(p, &nsamples);
	if (!(fk_profile_flags(p) & FK_PROFILE_SAMPLES))
		nsamples = 0;
	bool timed = false;
	for (size_t i = 0; i < nsamples && !timed; i++)
		timed = samples[i].time == samples[i].time;
	bool evented = o->form == FK_SPEEDSCOPE_EVENTED || (o->form == FK_SPEEDSCOPE_AUTO && timed);
	bool sampled = o->form != FK_SPEEDSCOPE_EVENTED;
	if (evented && !nsamples) {
		fk_warn("speedscope: the evented (time order) form needs the samples in time order");
		return -FK_E_INVAL;
	}
	int rc = -FK_E_NOMEM;
	nameref *names = malloc((nnames + 1) * sizeof(nameref));
	uint32_t *sidx = NULL;
	w.frame_of = calloc(nnames + 1, sizeof(uint32_t));
	w.order = malloc(w.nn * sizeof(uint32_t) + 1);
	if (!names || !w.frame_of || !w.order)
		goto out;
	/* shared.frames: the names of the frames in use, in byte order */
	for (size_t i = 1; i < w.nn; i++) {
		w.frame_of[w.nodes[i].frame] = 1;
		if (w.nodes[i].depth > maxdepth)
			maxdepth = w.nodes[i].depth;
	}
	size_t nf = 0;
	for (size_t id = 0; id < nnames; id++)
		if (w.frame_of[id]) {
			names[nf].s = fk_profile_name(p, (uint32_t)id, &names[nf].len);
			names[nf].id = (uint32_t)id;
			nf++;
		}
	qsort(names, nf, sizeof(nameref), cmp_name);
	for (size_t i = 0; i < nf; i++)
		w.frame_of[names[i].id] = (uint32_t)i;
	w.path = malloc(maxdepth * sizeof(uint32_t));
	if (!w.path)
		goto out;
	if ((rc = fk_obuf_init(out, f)))
		goto out;
	rc = -FK_E_NOMEM; /* what a failed allocation below reports */
	fk_obuf_puts(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":[");
	for (size_t i = 0; i < nf; i++) {
		fk_obuf_puts(out, i ? ",{\"name\":" : "{\"name\":");
		json_str(out, names[i].s, names[i].len);
		put1(out, '}');
	}
	fk_obuf_puts(out, "]},\"profiles\":[");
	double total = fk_profile_total(p, 0);
	if (sampled) {
		/* one sample per unique stack, depth first with children in frame order */
		for (size_t i = 1; i < w.nn; i++)
			w.order[i - 1] = (uint32_t)i;
		qsort_r(w.order, w.nn - 1, sizeof(uint32_t), cmp_child, &w);
		uint32_t *at = calloc(w.nn + 1, sizeof(uint32_t)), *end = calloc(w.nn + 1, sizeof(uint32_t));
		uint32_t *stack = malloc((w.nn + 1) * sizeof(uint32_t));
		if (!at || !end || !stack) {
			free(at);
			free(end);
			free(stack);
			goto out;
		}
		for (size_t i = w.nn - 1; i-- > 0;)
			at[w.nodes[w.order[i]].parent] = (uint32_t)i;
		for (size_t i = 0; i + 1 < w.nn; i++)
			end[w.nodes[w.order[i]].parent] = (uint32_t)i + 1;
		profile_head(out, "sampled", name, unit, total);
		for (int pass = 0; pass < 2; pass++) {
			/* samples, then the same walk for their weights */
			fk_obuf_puts(out, pass ? "],\"weights\":[" : ",\"samples\":[");
			size_t sp = 0;
			bool first = true;
			stack[sp++] = 0;
			while (sp) {
				uint32_t n = stack[--sp];
				for (uint32_t k = end[n]; k > at[n];)
					stack[sp++] = w.order[--k];
				if (!n || w.nodes[n].self[0] == 0)
					continue;
				if (!first)
					put1(out, ',');
				first = false;
				if (pass) {
					json_num(out, w.nodes[n].self[0]);
					continue;
				}
				size_t d = stack_of(&w, n);
				put1(out, '[');
				for (size_t k = 0; k < d; k++)
					fk_obuf_printf(out, k ? ",%u" : "%u", w.path[k]);
				put1(out, ']');
			}
		}
		fk_obuf_puts(out, "]}");
		free(at);
		free(end);
		free(stack);
	}
	if (evented) {
		/* the samples in time order, each as wide as its weight: frames open where a stack
		 * differs from the one before and close where it ends */
		sidx = malloc(nsamples * sizeof(uint32_t) + 1);
		uint32_t *prev = malloc(maxdepth * sizeof(uint32_t));
		if (!sidx || !prev) {
			free(prev);
			goto out;
		}
		for (size_t i = 0; i < nsamples; i++)
			sidx[i] = (uint32_t)i;
		qsort_r(sidx, nsamples, sizeof(uint32_t), cmp_time, (void *)samples);
		double sum = 0;
		for (size_t i = 0; i < nsamples; i++)
			if (samples[i].col == 0)
				sum += samples[i].weight;
		if (sampled)
			put1(out, ',');
		char tname[300];
		snprintf(tname, sizeof(tname), "%s (time order)", name);
		profile_head(out, "evented", tname, unit, sum);
		fk_obuf_puts(out, ",\"events\":[");
		size_t pd = 0;
		double at = 0;
		bool first = true;
		for (size_t i = 0; i <= nsamples; i++) {
			size_t d = 0;
			if (i < nsamples) {
				const fk_sample *s = &samples[sidx[i]];
				if (s->col != 0 || !(s->weight > 0))
					continue;
				d = stack_of(&w, s->node);
			}
			size_t k = 0;
			while (k < d && k < pd && w.path[k] == prev[k])
				k++;
			for (size_t j = pd; j-- > k;) {
				fk_obuf_printf(out, "%s{\"type\":\"C\",\"frame\":%u,\"at\":", first ? "" : ",", prev[j]);
				json_num(out, at);
				put1(out, '}');
				first = false;
			}
			for (size_t j = k; j < d; j++) {
				fk_obuf_printf(out, "%s{\"type\":\"O\",\"frame\":%u,\"at\":", first ? "" : ",", w.path[j]);
				json_num(out, at);
				put1(out, '}');
				first = false;
				prev[j] = w.path[j];
			}
			pd = d;
			if (i < nsamples)
				at += samples[sidx[i]].weight;
		}
		fk_obuf_puts(out, "]}");
		free(prev);
	}
	fk_obuf_printf(out, "],\"name\":");
	json_str(out, name, strlen(name));
	fk_obuf_puts(out, ",\"activeProfileIndex\":0,\"exporter\":\"flamekit " FK_VERSION_STRING "\"}\n");
	rc = fk_obuf_finish(out);
out:
	fk_obuf_free(&ob);
	free(names);
	free(w.frame_of);
	free(w.order);
	free(w.path);
	free(sidx);
	return rc;
}

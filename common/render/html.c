/* html.c - fk_render_html: one self-contained HTML page holding every unique stack of a
 * profile in a compact form (deflated, base64), drawn with canvas by page/viewer.js.
 * The data format is described in docs/html.md ("The data in the page"). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>
#include <zlib.h>
#include "svg-internal.h"

/* ---- the byte streams (see docs/html.md): each is a growable buffer of varints */
typedef struct bytes {
	uint8_t *b;
	size_t n, cap;
} bytes;

static inline int put_byte(bytes *s, uint8_t v)
{
	if (FK_UNLIKELY(s->n == s->cap) && FK_GROW(s->b, s->cap, s->n + 1))
		return -FK_E_NOMEM;
	s->b[s->n++] = v;
	return 0;
}

static inline int put_uv(bytes *s, uint64_t v)
{
	if (FK_UNLIKELY(s->cap - s->n < 10) && FK_GROW(s->b, s->cap, s->n + 10))
		return -FK_E_NOMEM;
	while (v >= 0x80) {
		s->b[s->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	s->b[s->n++] = (uint8_t)v;
	return 0;
}

static int put_mem(bytes *s, const void *p, size_t n)
{
	if (FK_GROW(s->b, s->cap, s->n + n))
		return -FK_E_NOMEM;
	memcpy(s->b + s->n, p, n);
	s->n += n;
	return 0;
}

enum { S_NAMES, S_COLORS, S_POPS, S_NAME, S_RAW, S_SELF0, S_SELF1, S_COUNT };
static const char *const stream_names[S_COUNT] = { "names", "colors", "pops", "name", "raw",
						    "self0", "self1" };

typedef struct enc {
	const fk_profile *p;
	const fk_node *nd;
	size_t nn;
	bytes s[S_COUNT];
	uint32_t *newname;  /* source name id -> page name id + 1 (0 = not yet) */
	uint32_t nnames;
	/* per page name of a parent: how many child names were seen under it (the small
	 * alphabet that keeps most name codes one byte); (parent name, name) -> index in
	 * an open-addressing table */
	uint32_t *alpha_n;
	size_t alpha_slots;
	uint64_t *pair_keys, *pair_vals;
	size_t npairs, pair_cap;
	double *floats;     /* counts that are not integers */
	size_t nfloats, floats_cap;
	uint64_t nodes_out;
	uint64_t last_self[2];
} enc;

/* Counts: an integer v as 2v, anything else as 2i+1 (i indexes the floats table). */
static int put_count(enc *e, bytes *s, double v)
{
	if (v >= 0 && v < 4.5e15 && v == floor(v))
		return put_uv(s, (uint64_t)v * 2);
	if (FK_GROW(e->floats, e->floats_cap, e->nfloats + 1))
		return -FK_E_NOMEM;
	e->floats[e->nfloats] = isfinite(v) ? v : 0;
	return put_uv(s, (uint64_t)e->nfloats++ * 2 + 1);
}

static int name_id(enc *e, uint32_t src, bool *is_new)
{
	*is_new = !e->newname[src];
	if (*is_new) {
		size_t len;
		const char *s = fk_profile_name(e->p, src, &len);
		e->newname[src] = ++e->nnames;
		if (put_uv(&e->s[S_NAMES], len) || put_mem(&e->s[S_NAMES], s, len))
			return -FK_E_NOMEM;
		if (e->nnames >= e->alpha_slots) {
			size_t old = e->alpha_slots;
			if (FK_GROW(e->alpha_n, e->alpha_slots, e->nnames + 1))
				return -FK_E_NOMEM;
			memset(e->alpha_n + old, 0, (e->alpha_slots - old) * sizeof(*e->alpha_n));
		}
	}
	return (int)(e->newname[src] - 1);
}

/* The value slot of key in the pair table (0 = free: the caller fills key and
 * value), growing the table at half full. NULL when out of memory. */
static uint64_t *pair_slot(enc *e, uint64_t key)
{
	if (2 * (e->npairs + 1) > e->pair_cap) {
		size_t ncap = e->pair_cap ? 2 * e->pair_cap : 1024;
		uint64_t *k = malloc(ncap * sizeof(*k)), *v = calloc(ncap, sizeof(*v));
		if (!k || !v) {
			free(k);
			free(v);
			return NULL;
		}
		for (size_t i = 0; i < e->pair_cap; i++) {
			if (!e->pair_vals[i])
				continue;
			size_t j = fk_mix64(e->pair_keys[i]) & (ncap - 1);
			while (v[j])
				j = (j + 1) & (ncap - 1);
			k[j] = e->pair_keys[i];
			v[j] = e->pair_vals[i];
		}
		free(e->pair_keys);
		free(e->pair_vals);
		e->pair_keys = k;
		e->pair_vals = v;
		e->pair_cap = ncap;
	}
	size_t j = fk_mix64(key) & (e->pair_cap - 1);
	while (e->pair_vals[j] && e->pair_keys[j] != key)
		j = (j + 1) & (e->pair_cap - 1);
	return &e->pair_vals[j];
}

/* One node after its parent (preorder): pops, name code, self counts. */
static int put_node(enc *e, uint32_t v, uint32_t pops, uint32_t parent_name)
{
	const fk_node *n = &e->nd[v];
	bool fresh;
	int id = name_id(e, n->frame, &fresh);
	if (id < 0)
		return id;
	if (put_uv(&e->s[S_POPS], pops))
		return -FK_E_NOMEM;
	/* name code: 0 = a name never seen before (the next id), 1 = a known name new
	 * under this parent name (its id follows in the raw stream), k >= 2 = the
	 * (k-2)th name first seen under this parent name */
	uint64_t key = (uint64_t)parent_name << 32 | (uint32_t)id;
	uint64_t *slot = pair_slot(e, key);
	if (!slot)
		return -FK_E_NOMEM;
	if (*slot) {
		if (put_uv(&e->s[S_NAME], (*slot & 0xffffffffu) + 2))
			return -FK_E_NOMEM;
	} else {
		if (put_uv(&e->s[S_NAME], fresh ? 0 : 1) || (!fresh && put_uv(&e->s[S_RAW], (uint64_t)id)))
			return -FK_E_NOMEM;
		uint32_t k = e->alpha_n[parent_name]++;
		e->pair_keys[slot - e->pair_vals] = key;
		*slot = (uint64_t)1 << 32 | k; /* non-zero: taken */
		e->npairs++;
	}
	e->nodes_out++;
	for (unsigned c = 0; c < 2; c++) {
		if (n->self[c] == 0)
			continue;
		bytes *s = &e->s[S_SELF0 + c];
		int rc = put_uv(s, e->nodes_out - e->last_self[c]);
		if (!rc)
			rc = put_count(e, s, n->self[c]);
		if (rc)
			return rc;
		e->last_self[c] = e->nodes_out;
	}
	return 0;
}

/* Children are sorted by the rank of their name in byte order, computed once for all
 * names: an integer compare per step instead of a memcmp of two names. */
typedef struct kid {
	uint32_t rank;
	uint32_t node;
} kid;

static int cmp_kid(const void *a, const void *b)
{
	const kid *x = a, *y = b;
	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int cmp_name_id(const void *a, const void *b, void *ctx)
{
	const fk_profile *p = ctx;
	size_t la, lb;
	const char *x = fk_profile_name(p, *(const uint32_t *)a, &la);
	const char *y = fk_profile_name(p, *(const uint32_t *)b, &lb);
	int c = memcmp(x, y, la < lb ? la : lb);
	return c ? c : (la > lb) - (la < lb);
}

/* rank[name id] = its position among all names in byte order. NULL if out of memory. */
static uint32_t *name_ranks(const fk_profile *p)
{
	size_t nn = fk_profile_name_count(p);
	uint32_t *ids = malloc((nn ? nn : 1) * sizeof(*ids)), *rank = malloc((nn ? nn : 1) * sizeof(*rank));
	if (!ids || !rank) {
		free(ids);
		free(rank);
		return NULL;
	}
	for (size_t i = 0; i < nn; i++)
		ids[i] = (uint32_t)i;
	qsort_r(ids, nn, sizeof(*ids), cmp_name_id, (void *)p);
	for (size_t i = 0; i < nn; i++)
		rank[ids[i]] = (uint32_t)i;
	free(ids);
	return rank;
}

/* Preorder walk, children by name (bytes), so the page is the same for the same
 * stacks whatever order they were read in. */
static int encode_tree(enc *e)
{
	struct fr { uint32_t node, pname, depth; } *st = NULL;
	size_t sn = 0, scap = 0;
	kid *kids = NULL;
	size_t kcap = 0;
	int rc = 0;
	uint32_t prev_depth = 0;
	uint32_t *rank = name_ranks(e->p);
	if (!rank || FK_GROW(st, scap, 1)) {
		free(rank);
		free(st);
		return -FK_E_NOMEM;
	}
	/* the root's name ("") is page name 0: the alphabet of the top frames */
	bool fresh;
	if ((rc = name_id(e, e->nd[0].frame, &fresh)) < 0)
		goto out;
	rc = 0;
	for (unsigned c = 0; c < 2 && !rc; c++)
		if (e->nd[0].self[c] != 0) {
			rc = put_uv(&e->s[S_SELF0 + c], 0);
			if (!rc)
				rc = put_count(e, &e->s[S_SELF0 + c], e->nd[0].self[c]);
		}
	st[sn++] = (struct fr){ 0, 0, 0 };
	while (sn && !rc) {
		struct fr f = st[--sn];
		if (f.node) {
			if ((rc = put_node(e, f.node, prev_depth + 1 - f.depth, f.pname)))
				break;
			prev_depth = f.depth;
		}
		uint32_t myname = e->newname[e->nd[f.node].frame] - 1;
		size_t nk = 0;
		for (uint32_t c = e->nd[f.node].first_child; c != FK_NONE; c = e->nd[c].next_sibling) {
			if (FK_GROW(kids, kcap, nk + 1)) {
				rc = -FK_E_NOMEM;
				goto out;
			}
			kids[nk++] = (kid){ rank[e->nd[c].frame], c };
		}
		if (nk > 1)
			qsort(kids, nk, sizeof(*kids), cmp_kid);
		if (FK_GROW(st, scap, sn + nk)) {
			rc = -FK_E_NOMEM;
			break;
		}
		for (size_t k = nk; k-- > 0;)
			st[sn++] = (struct fr){ kids[k].node, myname, f.depth + 1 };
	}
out:
	free(st);
	free(kids);
	free(rank);
	return rc < 0 ? rc : 0;
}

/* rrggbb bytes per page name: the colours fk_render_svg gives the same names. */
static int encode_colors(enc *e, const fk_svg_opts *o)
{
	fk_palette *pal = fk_palette_new(o);
	if (!pal)
		return errno == ENOMEM || errno == FK_E_NOMEM ? -FK_E_NOMEM : -(errno ? errno : FK_E_INVAL);
	size_t nsrc = fk_profile_name_count(e->p);
	uint32_t *src_of = malloc((e->nnames ? e->nnames : 1) * sizeof(*src_of));
	int rc = src_of ? 0 : -FK_E_NOMEM;
	for (size_t i = 0; i < nsrc && !rc; i++)
		if (e->newname[i])
			src_of[e->newname[i] - 1] = (uint32_t)i;
	for (uint32_t i = 0; i < e->nnames && !rc; i++) {
		size_t len;
		const char *s = fk_profile_name(e->p, src_of[i], &len);
		uint32_t c = fk_palette_fixed(s, len);
		if (c == UINT32_MAX)
			c = fk_palette_color(pal, s, len, false);
		uint8_t rgb[3] = { (uint8_t)(c >> 16), (uint8_t)(c >> 8), (uint8_t)c };
		rc = put_mem(&e->s[S_COLORS], rgb, 3);
	}
	if (!rc)
		rc = fk_palette_save(pal);
	free(src_of);
	fk_palette_free(pal);
	return rc;
}

static void enc_free(enc *e)
{
	for (int i = 0; i < S_COUNT; i++)
		free(e->s[i].b);
	free(e->alpha_n);
	free(e->pair_keys);
	free(e->pair_vals);
	free(e->newname);
	free(e->floats);
}

/* base64 of a deflated buffer, 76 characters a line (the page reads it with
 * whitespace removed). */
static void put_base64(fk_obuf *b, const uint8_t *d, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char line[80];
	size_t k = 0;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)d[i + 1] << 8;
		if (i + 2 < n)
			v |= d[i + 2];
		line[k++] = tab[(v >> 18) & 63];
		line[k++] = tab[(v >> 12) & 63];
		line[k++] = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		line[k++] = i + 2 < n ? tab[v & 63] : '=';
		if (k == 76) {
			line[k++] = '\n';
			fk_obuf_put(b, line, k);
			k = 0;
		}
	}
	if (k) {
		line[k++] = '\n';
		fk_obuf_put(b, line, k);
	}
}

static void put_json_str(fk_obuf *b, const char *key, const char *v)
{
	fk_obuf_printf(b, ",\"%s\":", key);
	if (v)
		fk_obuf_js(b, v, strlen(v));
	else
		fk_obuf_puts(b, "null");
}

static void put_json_num(fk_obuf *b, const char *key, double v)
{
	fk_obuf_printf(b, ",\"%s\":", key);
	fk_obuf_exact(b, isfinite(v) ? v : 0);
}

static int write_page(fk_obuf *b, const enc *e, const fk_svg_opts *o, const uint8_t *z, size_t zn,
		      size_t raw_len, unsigned ncols)
{
	const char *title = o->title && *o->title ? o->title : o->inverted ? "Icicle Graph" : "Flame Graph";
	char bg1[8], bg2[8];
	fk_palette_background(o->colors, o->bgcolors, bg1, bg2);
	fk_obuf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
			"<meta name=\"generator\" content=\"flamekit " FK_VERSION_STRING "\">\n"
			"<meta name=\"viewport\" content=\"width=device-width\">\n"
			"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
			"script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n<title>");
	fk_obuf_xml(b, title, strlen(title));
	fk_obuf_puts(b, "</title>\n<style>\n");
	fk_obuf_puts(b, fk_page_viewer_css);
	fk_obuf_puts(b, "</style>\n</head>\n<body>\n<div id=\"fkapp\"></div>\n"
			"<noscript>This page needs JavaScript.</noscript>\n"
			"<script id=\"fkmeta\" type=\"application/json\">{\"v\":1");
	put_json_str(b, "title", title);
	put_json_str(b, "subtitle", o->subtitle && *o->subtitle ? o->subtitle : NULL);
	put_json_str(b, "countname", o->countname);
	put_json_str(b, "nametype", o->nametype);
	put_json_str(b, "font", o->fonttype);
	put_json_num(b, "fontsize", o->fontsize);
	put_json_num(b, "frameheight", o->frameheight);
	put_json_num(b, "factor", o->factor);
	fk_obuf_printf(b, ",\"bg\":[\"%s\",\"%s\"],\"inverted\":%s,\"reverse\":%s,\"negate\":%s,"
			  "\"tl\":%s,\"cols\":%u,\"nodes\":%llu,\"names\":%u,\"raw\":%zu,\"streams\":{",
		       bg1, bg2, o->inverted ? "true" : "false", o->reverse ? "true" : "false",
		       o->negate ? "true" : "false", o->truncate == FK_TRUNC_LEFT ? "true" : "false", ncols,
		       (unsigned long long)e->nodes_out + 1, e->nnames, raw_len);
	for (int i = 0; i < S_COUNT; i++)
		fk_obuf_printf(b, "%s\"%s\":%zu", i ? "," : "", stream_names[i], e->s[i].n);
	fk_obuf_puts(b, "},\"floats\":[");
	for (size_t i = 0; i < e->nfloats; i++) {
		if (i)
			fk_obuf_puts(b, ",");
		fk_obuf_exact(b, e->floats[i]);
	}
	fk_obuf_puts(b, "]}</script>\n<script id=\"fkdata\" type=\"application/octet-stream\">\n");
	put_base64(b, z, zn);
	fk_obuf_puts(b, "</script>\n<script>\n");
	fk_obuf_puts(b, fk_page_viewer_js);
	fk_obuf_puts(b, "</script>\n<script>\nflamekit.boot();\n</script>\n</body></html>\n");
	return 0;
}

int fk_render_html(const fk_profile *p, const fk_svg_opts *opts, FILE *out)
{
	if (!p || !opts || !out)
		return -FK_E_INVAL;
	fk_svg_opts o = *opts;
	if (!o.fonttype)
		o.fonttype = "Verdana";
	fk_svg_opts_defaults(&o, p); /* countname, palette, title by what the profile counts */
	if (!o.nametype)
		o.nametype = "Function:";
	int rc = fk_svg_opts_check(&o);
	if (rc)
		return rc;
	if (o.flamechart) {
		fk_warn("the HTML page draws merged stacks (no --flamechart): use flamekit svg");
		return -FK_E_INVAL;
	}
	fk_profile *owned = NULL;
	if ((rc = fk_svg_derive(p, &o, &owned)))
		return rc;
	const fk_profile *src = owned ? owned : p;
	enc e = { .p = src };
	uint8_t *raw = NULL, *z = NULL;
	if (!(e.nd = fk_profile_nodes(src, &e.nn))) {
		rc = -FK_E_NOMEM;
		goto out;
	}
	if (fk_profile_total(src, 0) == 0 && fk_profile_total(src, 1) == 0) {
		rc = -FK_E_EMPTY;
		goto out;
	}
	e.newname = calloc(fk_profile_name_count(src) + 1, sizeof(*e.newname));
	if (!e.newname) {
		rc = -FK_E_NOMEM;
		goto out;
	}
	if ((rc = encode_tree(&e)) || (rc = encode_colors(&e, &o)))
		goto out;
	size_t raw_len = 0;
	for (int i = 0; i < S_COUNT; i++)
		raw_len += e.s[i].n;
	raw = malloc(raw_len ? raw_len : 1);
	uLongf zn = compressBound((uLong)raw_len);
	z = malloc(zn);
	if (!raw || !z) {
		rc = -FK_E_NOMEM;
		goto out;
	}
	size_t off = 0;
	for (int i = 0; i < S_COUNT; i++) {
		if (e.s[i].n)
			memcpy(raw + off, e.s[i].b, e.s[i].n);
		off += e.s[i].n;
	}
	/* level 6 (zlib's default): on b-html.sh's 1M-node profile 6% smaller than level 1
	 * for about a fifth more CPU; the page is read at 10-15 ns a byte, so bytes count */
	if (compress2(z, &zn, raw, (uLong)raw_len, 6) != Z_OK) {
		rc = -FK_E_NOMEM;
		goto out;
	}
	free(raw);
	raw = NULL;
	fk_obuf b;
	if ((rc = fk_obuf_init(&b, out)))
		goto out;
	rc = write_page(&b, &e, &o, z, zn, raw_len, fk_profile_columns(src));
	int wrc = fk_obuf_finish(&b);
	if (!rc)
		rc = wrc;
out:
	free(raw);
	free(z);
	enc_free(&e);
	fk_profile_free(owned);
	return rc;
}

bool fk_output_is_html(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return (n > 5 && !strcasecmp(path + n - 5, ".html")) || (n > 4 && !strcasecmp(path + n - 4, ".htm"));
}

int fk_render_for_path(const fk_profile *p, const fk_svg_opts *o, const char *path, FILE *out)
{
	int kind = fk_export_for_path(path); /* x.pb.gz, x.speedscope.json: other tools' formats */
	if (kind)
		return fk_export(p, kind, out);
	return fk_output_is_html(path) ? fk_render_html(p, o, out) : fk_render_svg(p, o, out);
}

/* pprof-write.c - a profile as pprof's profile.proto message (gzipped, as `go tool pprof`,
 * Pyroscope and Parca take it): one function and one location per distinct frame name, one
 * sample per unique stack (and per pid/tid/comm of its recorded samples), deterministic bytes. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <zlib.h>
#include "base/pbwire.h"

/* profile.proto field numbers */
enum { P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4, P_FUNCTION = 5,
       P_STRING = 6, P_DEFAULT_TYPE = 14 };

void fk_pprof_opts_init(fk_pprof_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sz = sizeof(*o);
}

/* What a profile counts, as pprof names it (Go's names where they exist): the caller's
 * names, else by the profile's unit: samples/count, cpu/nanoseconds (perf cpu-clock periods),
 * off_cpu/microseconds, time/microseconds (on and off CPU), EVENT/count. */
static void sample_type(const fk_profile *p, const fk_pprof_opts *o, const char **type,
			const char **unit)
{
	const char *u = fk_profile_unit(p);
	*type = "samples";
	*unit = "count";
	if (u && !strcmp(u, "ns")) {
		*type = "cpu";
		*unit = "nanoseconds";
	} else if (u && !strcmp(u, "us")) {
		*type = fk_profile_kind(p) == FK_KIND_OFFCPU ? "off_cpu" : "time";
		*unit = "microseconds";
	} else if (u && *u && strcmp(u, "samples")) {
		*type = u;
	}
	if (o->type && *o->type)
		*type = o->type;
	if (o->unit && *o->unit)
		*unit = o->unit;
}

typedef struct strref {
	const char *s;
	uint32_t len;
	uint32_t name;  /* profile name id + 1, 0 for a string of our own */
} strref;

static int cmp_str(const void *a, const void *b)
{
	const strref *x = a, *y = b;
	return fk_bytes_cmp(x->s, x->len, y->s, y->len);
}

typedef struct wctx {
	const fk_profile *p;
	const fk_node *nodes;
	size_t nn;
	strref *strs;           /* sorted, unique: the string table after its "" */
	size_t nstrs;
	uint32_t *name_str;     /* profile name id -> string index (0 if unused) */
	uint32_t *func;         /* profile name id -> function/location id (0 if not a frame) */
	uint32_t *order;        /* node ids, children grouped under their parent, by name */
	uint32_t *child_at;     /* node -> first index of its children in order; [nn] = end */
	uint32_t *sidx;         /* sample indexes sorted by node, pid, tid, comm */
	uint32_t *s_at;         /* node -> first index in sidx; [nn] = end */
	const fk_sample *samples;
	unsigned cols;
	bool fractional;
	size_t root_labels;     /* stacks' outermost frames that are "key=value" labels */
	bool timestamps;        /* one sample per record, with timestamp_ns and cpu labels */
	uint32_t *lab_key;      /* profile name id -> string index of its key (label frames) */
	uint32_t *lab_val;      /* ... and of its value (0: empty) */
} wctx;

/* String index of bytes that are in the table (0 for "" or absent). */
static uint32_t str_find(const wctx *w, const char *s, size_t len)
{
	strref key = { s, (uint32_t)len, 0 };
	strref *f = len ? bsearch(&key, w->strs, w->nstrs, sizeof(strref), cmp_str) : NULL;
	return f ? (uint32_t)(f - w->strs) + 1 : 0;
}

/* String index of a string of our own (it is in the table). */
static uint32_t str_index(const wctx *w, const char *s)
{
	strref key = { s, (uint32_t)strlen(s), 0 };
	strref *f = bsearch(&key, w->strs, w->nstrs, sizeof(strref), cmp_str);
	return f ? (uint32_t)(f - w->strs) + 1 : 0;
}

static int cmp_child(const void *a, const void *b, void *ctx)
{
	const wctx *w = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const fk_node *nx = &w->nodes[x], *ny = &w->nodes[y];
	if (nx->parent != ny->parent)
		return nx->parent < ny->parent ? -1 : 1;
	uint32_t sx = w->name_str[nx->frame], sy = w->name_str[ny->frame];
	return (sx > sy) - (sx < sy);
}

static int cmp_sample(const void *a, const void *b, void *ctx)
{
	const wctx *w = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const fk_sample *sx = &w->samples[x], *sy = &w->samples[y];
	if (sx->node != sy->node)
		return sx->node < sy->node ? -1 : 1;
	if (w->timestamps && sx->time != sy->time)
		return sx->time < sy->time || sy->time != sy->time ? -1 : 1;
	if (sx->pid != sy->pid)
		return sx->pid < sy->pid ? -1 : 1;
	if (sx->tid != sy->tid)
		return sx->tid < sy->tid ? -1 : 1;
	uint32_t cx = w->name_str[sx->comm], cy = w->name_str[sy->comm];
	if (cx != cy)
		return cx < cy ? -1 : 1;
	return (x > y) - (x < y);
}

static int64_t count_value(wctx *w, double v)
{
	double r = nearbyint(v);
	if (r != v)
		w->fractional = true;
	if (!(fabs(r) < 9.2e18))
		return r < 0 ? INT64_MIN : INT64_MAX;
	return (int64_t)r;
}

/* A label's num, written even when 0 (pid 0, cpu 0: a label with neither str nor num
 * would read as a number 0 anyway, but said is clearer). */
static void pb_num(pb_buf *l, uint64_t v)
{
	pb_tag(l, 3, PB_VARINT);
	pb_varint(l, v);
}

/* One Sample message: the stack leaf first, a value per column, labels. */
static void put_sample(wctx *w, pb_buf *out, pb_buf *tmp, pb_buf *ids, uint32_t node,
		       const double *v, const fk_sample *lab, const uint32_t *user_labels,
		       size_t nuser)
{
	ids->n = 0;
	uint32_t origin[8];
	size_t norigin = 0;
	for (uint32_t n = node; n && n != FK_NONE; n = w->nodes[n].parent) {
		if (w->nodes[n].depth > w->root_labels)
			pb_varint(ids, w->func[w->nodes[n].frame]);
		else if (norigin < 8)
			origin[norigin++] = w->nodes[n].frame;
	}
	tmp->n = 0;
	pb_bytes(tmp, 1, ids->b, ids->n);
	ids->n = 0;
	for (unsigned c = 0; c < w->cols; c++)
		pb_varint(ids, (uint64_t)count_value(w, v[c]));
	pb_bytes(tmp, 2, ids->b, ids->n);
	if (lab) {
		uint8_t lb[40];
		pb_buf l = { lb, 0, sizeof(lb), 0 };
		if (lab->pid >= 0) {
			pb_uint(&l, 1, str_index(w, "pid"));
			pb_num(&l, (uint64_t)lab->pid);
			pb_bytes(tmp, 3, l.b, l.n);
			l.n = 0;
		}
		if (lab->tid >= 0) {
			pb_uint(&l, 1, str_index(w, "tid"));
			pb_num(&l, (uint64_t)lab->tid);
			pb_bytes(tmp, 3, l.b, l.n);
			l.n = 0;
		}
		if (lab->comm) {
			pb_uint(&l, 1, str_index(w, "comm"));
			pb_uint(&l, 2, w->name_str[lab->comm]);
			pb_bytes(tmp, 3, l.b, l.n);
			l.n = 0;
		}
		if (w->timestamps && lab->cpu >= 0) {
			pb_uint(&l, 1, str_index(w, "cpu"));
			pb_num(&l, (uint64_t)lab->cpu);
			pb_bytes(tmp, 3, l.b, l.n);
			l.n = 0;
		}
		if (w->timestamps && lab->time == lab->time && lab->time >= 0 && lab->time < 9.2e9) {
			/* perf_to_profile's label: nanoseconds of the recording's clock */
			pb_uint(&l, 1, str_index(w, "timestamp_ns"));
			pb_num(&l, (uint64_t)llround(lab->time * 1e9));
			pb_bytes(tmp, 3, l.b, l.n);
			l.n = 0;
		}
	}
	/* the input's origin (merge --label), outermost first */
	for (size_t i = norigin; i-- > 0;) {
		uint32_t k = w->lab_key[origin[i]], val = w->lab_val[origin[i]];
		if (!k || !val)
			continue;
		uint8_t lb[24];
		pb_buf l = { lb, 0, sizeof(lb), 0 };
		pb_uint(&l, 1, k);
		pb_uint(&l, 2, val);
		pb_bytes(tmp, 3, l.b, l.n);
	}
	for (size_t i = 0; i < nuser; i++) {
		if (!user_labels[2 * i + 1])
			continue; /* "key=": no value, no label */
		uint8_t lb[24];
		pb_buf l = { lb, 0, sizeof(lb), 0 };
		pb_uint(&l, 1, user_labels[2 * i]);
		pb_uint(&l, 2, user_labels[2 * i + 1]);
		pb_bytes(tmp, 3, l.b, l.n);
	}
	if (tmp->err)
		out->err = tmp->err;
	pb_bytes(out, P_SAMPLE, tmp->b, tmp->n);
}

static int check_labels(const fk_pprof_opts *o)
{
	for (size_t i = 0; i < o->nlabels; i++) {
		const char *eq = o->labels[i] ? strchr(o->labels[i], '=') : NULL;
		if (!eq || eq == o->labels[i]) {
			fk_warn("pprof label '%s': expected KEY=VALUE", o->labels[i] ? o->labels[i] : "");
			return -FK_E_INVAL;
		}
	}
	return 0;
}

/* A label root frame "key=value" (name id): its key, and its value when it has a '='. */
static bool label_split(const fk_profile *p, uint32_t id, const char **key, size_t *kl,
			const char **val, size_t *vl)
{
	size_t len;
	const char *s = fk_profile_name(p, id, &len);
	const char *eq = memchr(s, '=', len);
	*key = s;
	*kl = eq ? (size_t)(eq - s) : len;
	*val = eq ? eq + 1 : NULL;
	*vl = eq ? len - *kl - 1 : 0;
	return eq != NULL;
}

/* The encoded message into *out (plain protobuf). */
static int encode(const fk_profile *p, const fk_pprof_opts *o, pb_buf *out)
{
	wctx w = { .p = p };
	if (!(w.nodes = fk_profile_nodes(p, &w.nn)))
		return -FK_E_NOMEM;
	w.cols = fk_profile_columns(p);
	size_t nnames = fk_profile_name_count(p), nsamples = 0;
	w.samples = fk_profile_samples(p, &nsamples);
	if (!(fk_profile_flags(p) & FK_PROFILE_SAMPLES))
		nsamples = 0;
	const char *type, *unit;
	sample_type(p, o, &type, &unit);
	int rc = -FK_E_NOMEM;
	pb_buf tmp = { 0 }, ids = { 0 };
	char *labelbuf = NULL;
	uint32_t *user = NULL;
	char typebuf[2][128], *types[2];

	/* every string: our own, the frame names and the comms in use */
	w.root_labels = o->root_labels > 8 ? 8 : o->root_labels;
	w.timestamps = o->timestamps;
	w.name_str = calloc(nnames + 1, sizeof(uint32_t));
	w.func = calloc(nnames + 1, sizeof(uint32_t));
	w.lab_key = calloc(nnames + 1, sizeof(uint32_t));
	w.lab_val = calloc(nnames + 1, sizeof(uint32_t));
	w.strs = malloc((3 * nnames + 16 + 2 * o->nlabels) * sizeof(strref));
	user = malloc((o->nlabels + 1) * 2 * sizeof(uint32_t));
	if (!w.name_str || !w.func || !w.strs || !user || !w.lab_key || !w.lab_val)
		goto out;
	size_t ns = 0;
	for (unsigned c = 0; c < w.cols; c++) {
		snprintf(typebuf[c], sizeof(typebuf[c]), "%s%s", type,
			 w.cols == 1 ? "" : c ? "_after" : "_before");
		types[c] = typebuf[c];
		w.strs[ns++] = (strref){ types[c], (uint32_t)strlen(types[c]), 0 };
	}
	static const char *const own[] = { "pid", "tid", "comm", "cpu", "timestamp_ns" };
	w.strs[ns++] = (strref){ unit, (uint32_t)strlen(unit), 0 };
	for (size_t i = 0; i < 5; i++)
		w.strs[ns++] = (strref){ own[i], (uint32_t)strlen(own[i]), 0 };
	size_t lbytes = 0;
	for (size_t i = 0; i < o->nlabels; i++)
		lbytes += strlen(o->labels[i]) + 1;
	labelbuf = malloc(lbytes + 1);
	if (!labelbuf)
		goto out;
	char *lp = labelbuf;
	for (size_t i = 0; i < o->nlabels; i++) {
		size_t len = strlen(o->labels[i]);
		memcpy(lp, o->labels[i], len + 1);
		char *eq = strchr(lp, '=');
		*eq = 0;
		w.strs[ns++] = (strref){ lp, (uint32_t)(eq - lp), 0 };
		w.strs[ns++] = (strref){ eq + 1, (uint32_t)(lp + len - eq - 1), 0 };
		lp += len + 1;
	}
	/* mark the names in use (func temporarily as a flag; lab_key for label frames) */
	for (size_t i = 1; i < w.nn; i++) {
		if (w.nodes[i].depth > w.root_labels)
			w.func[w.nodes[i].frame] = 1;
		else
			w.lab_key[w.nodes[i].frame] = 1;
	}
	for (size_t id = 0; id < nnames; id++) {
		if (!w.lab_key[id])
			continue;
		/* "key=value": both halves are strings of the table */
		const char *s, *v;
		size_t kl, vl;
		bool has = label_split(p, (uint32_t)id, &s, &kl, &v, &vl);
		w.strs[ns++] = (strref){ s, (uint32_t)kl, 0 };
		if (has)
			w.strs[ns++] = (strref){ v, (uint32_t)vl, 0 };
	}
	for (size_t i = 0; i < nsamples; i++)
		if (w.samples[i].comm)
			w.name_str[w.samples[i].comm] = 1;
	for (size_t id = 0; id < nnames; id++) {
		if (!w.func[id] && !w.name_str[id])
			continue;
		size_t len;
		const char *s = fk_profile_name(p, (uint32_t)id, &len);
		if (len > UINT32_MAX) {
			rc = -FK_E_TOOBIG;
			goto out;
		}
		w.strs[ns++] = (strref){ s, (uint32_t)len, (uint32_t)id + 1 };
	}
	qsort(w.strs, ns, sizeof(strref), cmp_str);
	/* unique; "" is string 0 of the table, so it is not kept in strs */
	size_t u = 0;
	uint32_t nfunc = 0;
	memset(w.name_str, 0, (nnames + 1) * sizeof(uint32_t));
	for (size_t i = 0; i < ns; i++) {
		bool same = u && !cmp_str(&w.strs[i], &w.strs[u - 1]);
		bool empty = w.strs[i].len == 0;
		if (!same && !empty)
			w.strs[u++] = w.strs[i];
		if (w.strs[i].name) {
			uint32_t id = w.strs[i].name - 1;
			w.name_str[id] = empty ? 0 : (uint32_t)u;
			if (w.func[id] == 1)
				w.func[id] = 0x80000000u; /* a frame: numbered below in string order */
		}
	}
	w.nstrs = u;
	/* function ids in string order (the same for the same names, however the tree grew) */
	{
		uint32_t *by_str = calloc(u + 1, sizeof(uint32_t));
		if (!by_str)
			goto out;
		for (size_t id = 0; id < nnames; id++)
			if (w.func[id])
				by_str[w.name_str[id]] = (uint32_t)id + 1;
		for (size_t i = 0; i <= u; i++)
			if (by_str[i])
				w.func[by_str[i] - 1] = ++nfunc;
		free(by_str);
	}
	for (size_t id = 0; id < nnames; id++) {
		if (!w.lab_key[id])
			continue;
		const char *s, *v;
		size_t kl, vl;
		bool has = label_split(p, (uint32_t)id, &s, &kl, &v, &vl);
		w.lab_key[id] = str_find(&w, s, kl);
		w.lab_val[id] = has ? str_find(&w, v, vl) : 0;
	}
	lp = labelbuf;
	for (size_t i = 0; i < o->nlabels; i++) {
		const char *k = lp, *v = k + strlen(k) + 1;
		lp = (char *)v + strlen(v) + 1;
		user[2 * i] = str_index(&w, k);
		user[2 * i + 1] = *v ? str_index(&w, v) : 0;
	}

	/* the tree's nodes, each parent's children together, in name order */
	w.order = malloc((w.nn ? w.nn : 1) * sizeof(uint32_t));
	w.child_at = calloc(w.nn + 1, sizeof(uint32_t));
	if (!w.order || !w.child_at)
		goto out;
	for (size_t i = 1; i < w.nn; i++)
		w.order[i - 1] = (uint32_t)i;
	qsort_r(w.order, w.nn - 1, sizeof(uint32_t), cmp_child, &w);
	for (size_t i = w.nn - 1; i-- > 0;)
		w.child_at[w.nodes[w.order[i]].parent] = (uint32_t)i;
	/* a node's children end where the next node with children begins: keep an end too */
	uint32_t *child_end = calloc(w.nn + 1, sizeof(uint32_t));
	if (!child_end)
		goto out;
	for (size_t i = 0; i + 1 < w.nn; i++)
		child_end[w.nodes[w.order[i]].parent] = (uint32_t)i + 1;
	if (nsamples) {
		w.sidx = malloc(nsamples * sizeof(uint32_t));
		w.s_at = calloc(w.nn + 1, sizeof(uint32_t));
		if (!w.sidx || !w.s_at) {
			free(child_end);
			goto out;
		}
		for (size_t i = 0; i < nsamples; i++)
			w.sidx[i] = (uint32_t)i;
		qsort_r(w.sidx, nsamples, sizeof(uint32_t), cmp_sample, &w);
		for (size_t i = 0; i < nsamples; i++)
			w.s_at[w.samples[w.sidx[i]].node + 1]++;
		for (size_t i = 0; i < w.nn; i++)
			w.s_at[i + 1] += w.s_at[i];
	}

	/* the message: sample types, samples, mapping, locations, functions, strings */
	for (unsigned c = 0; c < w.cols; c++) {
		uint8_t vb[24];
		pb_buf v = { vb, 0, sizeof(vb), 0 };
		pb_uint(&v, 1, str_index(&w, types[c]));
		pb_uint(&v, 2, str_index(&w, unit));
		pb_bytes(out, P_SAMPLE_TYPE, v.b, v.n);
	}
	/* depth-first, children by name: a stack's place does not depend on input order */
	uint32_t *stack = malloc((w.nn + 1) * sizeof(uint32_t));
	if (!stack) {
		free(child_end);
		goto out;
	}
	size_t sp = 0;
	stack[sp++] = 0;
	while (sp) {
		uint32_t n = stack[--sp];
		const fk_node *nd = &w.nodes[n];
		for (uint32_t k = child_end[n]; k > w.child_at[n];)
			stack[sp++] = w.order[--k];
		if (nd->self[0] == 0 && nd->self[1] == 0)
			continue;
		double rest[2] = { nd->self[0], nd->self[1] };
		if (nsamples) {
			/* one sample per pid/tid/comm of the recorded samples */
			for (uint32_t k = w.s_at[n]; k < w.s_at[n + 1];) {
				const fk_sample *s0 = &w.samples[w.sidx[k]];
				double v[2] = { 0, 0 };
				uint32_t e = k;
				for (; e < w.s_at[n + 1]; e++) {
					const fk_sample *s = &w.samples[w.sidx[e]];
					if (s->pid != s0->pid || s->tid != s0->tid ||
					    w.name_str[s->comm] != w.name_str[s0->comm] ||
					    (w.timestamps && e > k))
						break;
					v[s->col & 1] += s->weight;
				}
				rest[0] -= v[0];
				rest[1] -= v[1];
				put_sample(&w, out, &tmp, &ids, n, v, s0, user, o->nlabels);
				k = e;
			}
		}
		/* counts added without a sample record (or no records kept) */
		if (fabs(rest[0]) > 1e-9 * fabs(nd->self[0]) || fabs(rest[1]) > 1e-9 * fabs(nd->self[1]))
			put_sample(&w, out, &tmp, &ids, n, nsamples ? rest : nd->self, NULL, user,
				   o->nlabels);
	}
	free(stack);
	free(child_end);
	{
		/* one mapping that says the names are already resolved, so pprof does not look
		 * for binaries to symbolize */
		uint8_t mb[16];
		pb_buf m = { mb, 0, sizeof(mb), 0 };
		pb_uint(&m, 1, 1);
		pb_uint(&m, 7, 1);
		pb_bytes(out, P_MAPPING, m.b, m.n);
	}
	{
		uint32_t *by_func = malloc((nfunc + 1) * sizeof(uint32_t));
		if (!by_func)
			goto out;
		for (size_t id = 0; id < nnames; id++)
			if (w.func[id])
				by_func[w.func[id]] = (uint32_t)id;
		uint8_t lb[64];
		for (uint32_t f = 1; f <= nfunc; f++) {
			pb_buf l = { lb, 0, sizeof(lb), 0 }, line = { lb + 32, 0, 32, 0 };
			pb_uint(&line, 1, f);
			pb_uint(&l, 1, f);
			pb_uint(&l, 2, 1);
			pb_bytes(&l, 4, line.b, line.n);
			pb_bytes(out, P_LOCATION, l.b, l.n);
		}
		for (uint32_t f = 1; f <= nfunc; f++) {
			pb_buf fb = { lb, 0, sizeof(lb), 0 };
			uint32_t s = w.name_str[by_func[f]];
			pb_uint(&fb, 1, f);
			pb_uint(&fb, 2, s);
			pb_uint(&fb, 3, s);
			pb_bytes(out, P_FUNCTION, fb.b, fb.n);
		}
		free(by_func);
	}
	pb_bytes(out, P_STRING, "", 0);
	for (size_t i = 0; i < w.nstrs; i++)
		pb_bytes(out, P_STRING, w.strs[i].s, w.strs[i].len);
	rc = out->err ? out->err : tmp.err ? tmp.err : ids.err;
	if (!rc && w.fractional)
		fk_warn("pprof: fractional counts rounded to whole numbers (pprof values are integers)");
out:
	free(w.name_str);
	free(w.func);
	free(w.lab_key);
	free(w.lab_val);
	free(w.strs);
	free(w.order);
	free(w.child_at);
	free(w.sidx);
	free(w.s_at);
	free(tmp.b);
	free(ids.b);
	free(labelbuf);
	free(user);
	return rc;
}

static int write_all(FILE *out, const void *b, size_t n)
{
	return n && fwrite(b, 1, n, out) != n ? -FK_E_WRITE : 0;
}

/* gzip with zlib; header without a time or name, so the bytes depend on the profile only. */
static int write_gzip(FILE *out, const uint8_t *b, size_t n)
{
	z_stream zs;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -FK_E_NOMEM;
	gz_header h;
	memset(&h, 0, sizeof(h));
	h.os = 3; /* Unix, whatever system wrote it */
	deflateSetHeader(&zs, &h);
	uint8_t *ob = malloc(1 << 16);
	if (!ob) {
		deflateEnd(&zs);
		return -FK_E_NOMEM;
	}
	int rc = 0, zr;
	zs.next_in = (uint8_t *)b;
	do {
		size_t take = n > (1u << 30) ? (1u << 30) : n;
		zs.avail_in = (unsigned)take;
		n -= take;
		do {
			zs.next_out = ob;
			zs.avail_out = 1 << 16;
			zr = deflate(&zs, n ? Z_NO_FLUSH : Z_FINISH);
			if (!rc)
				rc = write_all(out, ob, (1 << 16) - zs.avail_out);
		} while (zs.avail_out == 0);
	} while (n);
	if (zr != Z_STREAM_END && !rc)
		rc = -FK_E_NOMEM;
	deflateEnd(&zs);
	free(ob);
	return rc;
}

int fk_write_pprof(const fk_profile *p, const fk_pprof_opts *o, FILE *out)
{
	fk_pprof_opts def;
	fk_pprof_opts_init(&def);
	if (o)
		FK_OPTS_ADOPT(def, o);
	o = &def;
	int rc = check_labels(o);
	if (rc)
		return rc;
	pb_buf b = { 0 };
	rc = encode(p, o, &b);
	if (!rc)
		rc = o->plain ? write_all(out, b.b, b.n) : write_gzip(out, b.b, b.n);
	free(b.b);
	return rc;
}

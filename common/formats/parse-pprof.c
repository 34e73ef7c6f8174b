/* parse-pprof.c - pprof profiles (profile.proto; gzipped ones are decompressed by the reader):
 * Go's runtime/pprof, `perf data` converted by perf_to_profile, Pyroscope and Parca exports.
 * One sample type is read (--sample-type; default the profile's own default); pid/tid/comm/cpu
 * and timestamp_ns labels go to the sample records, other labels to root frames on request. */
#include <errno.h>
#include <stdlib.h>
#include "base/pbwire.h"
#include "parse-stack.h"

#define PPROF_MAX ((size_t)2 << 30) /* a profile is read whole: this much at most */

static int probe(const char *buf, size_t len)
{
	pb_in in = { (const uint8_t *)buf, (const uint8_t *)buf + len, false };
	unsigned field, wire, n = 0;
	while (n < 16 && in.p < in.end) {
		const uint8_t *at = in.p;
		if (!pb_next(&in, &field, &wire))
			break;
		bool len_field = field <= 6 || field == 11 || field == 13;
		bool int_field = (field >= 7 && field <= 10) || field == 12 || field == 13 || field == 14;
		if (field > 15 || (wire == PB_LEN && !len_field) || (wire == PB_VARINT && !int_field) ||
		    (wire != PB_LEN && wire != PB_VARINT))
			return 0;
		if (wire == PB_LEN) {
			uint64_t l = pb_get_varint(&in);
			if (in.bad)
				return 0;
			if (l > (uint64_t)(in.end - in.p)) {
				in.p = in.end; /* runs past what we were shown: fine */
				n++;
				break;
			}
			in.p += l;
		} else {
			pb_get_varint(&in);
		}
		if (in.bad)
			return in.p == at ? 0 : n >= 2 ? 80 : 0;
		n++;
	}
	return n >= 2 && !in.bad ? 90 : 0;
}

typedef struct span {
	const uint8_t *p;
	uint32_t len;
} span;

/* id -> index: dense table when the ids are small (the usual 1..n), else sorted pairs */
typedef struct idmap {
	uint64_t *ids;    /* sorted (sparse case) */
	uint32_t *idx;
	uint32_t *dense;  /* id -> index + 1 */
	size_t n, ndense;
} idmap;

typedef struct pair64 {
	uint64_t id;
	uint32_t idx;
} pair64;

static int cmp_pair(const void *a, const void *b)
{
	const pair64 *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static int idmap_build(idmap *m, pair64 *pairs, size_t n)
{
	uint64_t max = 0;
	for (size_t i = 0; i < n; i++)
		if (pairs[i].id > max)
			max = pairs[i].id;
	m->n = n;
	if (max < 4 * (uint64_t)n + 1024) {
		m->ndense = (size_t)max + 1;
		m->dense = calloc(m->ndense, sizeof(uint32_t));
		if (!m->dense)
			return -FK_E_NOMEM;
		for (size_t i = 0; i < n; i++)
			m->dense[pairs[i].id] = pairs[i].idx + 1;
		return 0;
	}
	qsort(pairs, n, sizeof(pair64), cmp_pair);
	m->ids = malloc((n ? n : 1) * sizeof(uint64_t));
	m->idx = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!m->ids || !m->idx)
		return -FK_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		m->ids[i] = pairs[i].id;
		m->idx[i] = pairs[i].idx;
	}
	return 0;
}

/* index + 1, or 0 when the id is unknown */
static uint32_t idmap_get(const idmap *m, uint64_t id)
{
	if (m->dense)
		return id < m->ndense ? m->dense[id] : 0;
	size_t lo = 0, hi = m->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->ids[mid] < id)
			lo = mid + 1;
		else if (m->ids[mid] > id)
			hi = mid;
		else
			return m->idx[mid] + 1;
	}
	return 0;
}

static void idmap_free(idmap *m)
{
	free(m->ids);
	free(m->idx);
	free(m->dense);
}

typedef struct pp {
	fk_parse_ctx *c;
	span *strs;
	size_t nstrs, capstrs;
	span *samples, *locs, *funcs, *types;
	size_t nsamples, nlocs, nfuncs, ntypes, caps, capl, capf, capt;
	int64_t default_type;
	uint32_t *func_frame;   /* function index -> interned frame id */
	uint32_t *loc_at;       /* location index -> first frame in loc_frames; [nlocs] = end */
	uint32_t *loc_frames;   /* each location's frames, leaf (innermost inline) first */
	size_t nloc_frames, caplf;
	idmap fmap, lmap;
	const char *name;
	const uint8_t *base;  /* the protobuf data: offsets in messages count from here */
} pp;

static int push_span(span **a, size_t *n, size_t *cap, pb_in sub)
{
	if (FK_GROW(*a, *cap, *n + 1))
		return -FK_E_NOMEM;
	(*a)[(*n)++] = (span){ sub.p, (uint32_t)(sub.end - sub.p) };
	return 0;
}

static span str_at(const pp *x, uint64_t i)
{
	return i < x->nstrs ? x->strs[i] : (span){ (const uint8_t *)"", 0 };
}

static bool span_is(span s, const char *z)
{
	size_t n = strlen(z);
	return s.len == n && !memcmp(s.p, z, n);
}

/* Where: the byte of the protobuf data (after gunzip, for a .pb.gz) where the damaged
 * message or field starts. */
static int corrupt(pp *x, const uint8_t *at, const char *what)
{
	fk_warn("%s: pprof profile is corrupt at byte %zu%s (%s)", x->name, (size_t)(at - x->base),
		x->c->r->unzip ? " of its decompressed data" : "", what);
	return -FK_E_FORMAT;
}

/* The top-level message: where every part is. */
static int index_profile(pp *x, const uint8_t *b, size_t len)
{
	pb_in in = { b, b + len, false };
	unsigned field, wire;
	x->default_type = 0;
	const uint8_t *at = b;
	while ((at = in.p, pb_next(&in, &field, &wire))) {
		int rc = 0;
		if (wire == PB_LEN && field >= 1 && field <= 6) {
			pb_in sub = pb_get_len(&in);
			if (in.bad)
				break;
			switch (field) {
			case 1: rc = push_span(&x->types, &x->ntypes, &x->capt, sub); break;
			case 2: rc = push_span(&x->samples, &x->nsamples, &x->caps, sub); break;
			case 4: rc = push_span(&x->locs, &x->nlocs, &x->capl, sub); break;
			case 5: rc = push_span(&x->funcs, &x->nfuncs, &x->capf, sub); break;
			case 6: rc = push_span(&x->strs, &x->nstrs, &x->capstrs, sub); break;
			default: break; /* mappings: names are what we read */
			}
		} else if (field == 14 && wire == PB_VARINT) {
			x->default_type = (int64_t)pb_get_varint(&in);
		} else {
			pb_skip(&in, wire);
		}
		if (rc)
			return rc;
	}
	if (in.bad)
		return corrupt(x, at, "a field runs past the end of the data: truncated?");
	return 0;
}

/* Which value of each sample to read. -1 after a message when the asked type is absent. */
static int pick_type(pp *x)
{
	const char *want = x->c->o->sample_type;
	span *tn = calloc(x->ntypes + 1, sizeof(span)), *tu = calloc(x->ntypes + 1, sizeof(span));
	if (!tn || !tu) {
		free(tn);
		free(tu);
		return -FK_E_NOMEM;
	}
	for (size_t i = 0; i < x->ntypes; i++) {
		pb_in in = { x->types[i].p, x->types[i].p + x->types[i].len, false };
		unsigned f, w;
		while (pb_next(&in, &f, &w)) {
			if (f == 1 && w == PB_VARINT)
				tn[i] = str_at(x, pb_get_varint(&in));
			else if (f == 2 && w == PB_VARINT)
				tu[i] = str_at(x, pb_get_varint(&in));
			else
				pb_skip(&in, w);
		}
	}
	int pick = -1;
	if (want && *want) {
		/* "type", "type/unit", or the index */
		const char *slash = strchr(want, '/');
		size_t wl = slash ? (size_t)(slash - want) : strlen(want);
		for (size_t i = 0; i < x->ntypes && pick < 0; i++)
			if (tn[i].len == wl && !memcmp(tn[i].p, want, wl) &&
			    (!slash || span_is(tu[i], slash + 1)))
				pick = (int)i;
		char *end;
		long k = strtol(want, &end, 10);
		if (pick < 0 && !*end && k >= 0 && (size_t)k < x->ntypes)
			pick = (int)k;
		if (pick < 0) {
			char list[512];
			size_t n = 0;
			list[0] = 0;
			for (size_t i = 0; i < x->ntypes && n < sizeof(list) - 1; i++)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%.*s/%.*s", i ? ", " : "",
						      (int)tn[i].len, (const char *)tn[i].p,
						      (int)tu[i].len, (const char *)tu[i].p);
			fk_warn("%s: no sample type '%s' in this profile (it has: %s)", x->name, want, list);
		}
	} else if (x->ntypes) {
		/* pprof's own default: the one default_sample_type names, else the last */
		pick = (int)x->ntypes - 1;
		for (size_t i = 0; i < x->ntypes; i++)
			if (x->default_type && tn[i].len && tn[i].p == str_at(x, (uint64_t)x->default_type).p)
				pick = (int)i;
	}
	if (pick >= 0) {
		fk_log(FK_LEVEL_DEBUG, "%s: pprof sample type %.*s/%.*s", x->name, (int)tn[pick].len,
		       (const char *)tn[pick].p, (int)tu[pick].len, (const char *)tu[pick].p);
		/* what this input counts, in the model's words (run() gives it to the profile
		 * or says the inputs mix units) */
		char *u = x->c->unit;
		size_t us = sizeof(x->c->unit);
		if (span_is(tu[pick], "nanoseconds"))
			snprintf(u, us, "ns");
		else if (span_is(tu[pick], "microseconds"))
			snprintf(u, us, "us");
		else if (span_is(tu[pick], "count") || !tu[pick].len)
			snprintf(u, us, "%.*s", (int)tn[pick].len, (const char *)tn[pick].p);
		else
			snprintf(u, us, "%.*s", (int)tu[pick].len, (const char *)tu[pick].p);
		if (span_is(tn[pick], "off_cpu"))
			x->c->kind = FK_KIND_OFFCPU; /* run() gives it to an empty profile */
	}
	free(tn);
	free(tu);
	return pick;
}

static int intern_span(pp *x, span s, uint32_t *id)
{
	int64_t r = fk_parse_intern(x->c, (const char *)s.p, s.len);
	if (r < 0)
		return (int)r;
	*id = (uint32_t)r;
	return 0;
}

/* Functions (names interned once) and locations (their frames, inline ones included). */
static int read_tables(pp *x)
{
	int rc = 0;
	pair64 *pairs = malloc((x->nfuncs > x->nlocs ? x->nfuncs : x->nlocs) * sizeof(pair64) + 1);
	x->func_frame = malloc((x->nfuncs + 1) * sizeof(uint32_t));
	x->loc_at = malloc((x->nlocs + 1) * sizeof(uint32_t));
	if (!pairs || !x->func_frame || !x->loc_at) {
		free(pairs);
		return -FK_E_NOMEM;
	}
	for (size_t i = 0; i < x->nfuncs && !rc; i++) {
		pb_in in = { x->funcs[i].p, x->funcs[i].p + x->funcs[i].len, false };
		unsigned f, w;
		uint64_t id = 0, name = 0, sys = 0;
		while (pb_next(&in, &f, &w)) {
			if (f == 1 && w == PB_VARINT)
				id = pb_get_varint(&in);
			else if (f == 2 && w == PB_VARINT)
				name = pb_get_varint(&in);
			else if (f == 3 && w == PB_VARINT)
				sys = pb_get_varint(&in);
			else
				pb_skip(&in, w);
		}
		if (in.bad)
			rc = corrupt(x, x->funcs[i].p, "a function");
		pairs[i] = (pair64){ id, (uint32_t)i };
		if (!rc)
			rc = intern_span(x, str_at(x, name ? name : sys), &x->func_frame[i]);
	}
	if (!rc)
		rc = idmap_build(&x->fmap, pairs, x->nfuncs);
	for (size_t i = 0; i < x->nlocs && !rc; i++) {
		pb_in in = { x->locs[i].p, x->locs[i].p + x->locs[i].len, false };
		unsigned f, w;
		uint64_t id = 0, addr = 0;
		size_t first = x->nloc_frames;
		x->loc_at[i] = (uint32_t)first;
		while (pb_next(&in, &f, &w) && !rc) {
			if (f == 1 && w == PB_VARINT) {
				id = pb_get_varint(&in);
			} else if (f == 3 && w == PB_VARINT) {
				addr = pb_get_varint(&in);
			} else if (f == 4 && w == PB_LEN) {
				pb_in line = pb_get_len(&in);
				uint64_t fid = 0;
				while (pb_next(&line, &f, &w))
					if (f == 1 && w == PB_VARINT)
						fid = pb_get_varint(&line);
					else
						pb_skip(&line, w);
				uint32_t k = idmap_get(&x->fmap, fid);
				if (line.bad || !k) {
					rc = corrupt(x, x->locs[i].p, line.bad ? "a location's line" :
						     "a line names an unknown function");
					break;
				}
				if (FK_GROW(x->loc_frames, x->caplf, x->nloc_frames + 1))
					rc = -FK_E_NOMEM;
				else
					x->loc_frames[x->nloc_frames++] = x->func_frame[k - 1];
			} else {
				pb_skip(&in, w);
			}
		}
		if (!rc && in.bad)
			rc = corrupt(x, x->locs[i].p, "a location");
		if (!rc && x->nloc_frames == first) {
			/* not symbolized: its address stands for the name */
			char hex[24];
			int n = snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)addr);
			uint32_t fr = 0;
			rc = intern_span(x, (span){ (const uint8_t *)hex, (uint32_t)n }, &fr);
			if (!rc && FK_GROW(x->loc_frames, x->caplf, x->nloc_frames + 1))
				rc = -FK_E_NOMEM;
			if (!rc)
				x->loc_frames[x->nloc_frames++] = fr;
		}
		pairs[i] = (pair64){ id, (uint32_t)i };
	}
	if (!rc) {
		x->loc_at[x->nlocs] = (uint32_t)x->nloc_frames;
		rc = idmap_build(&x->lmap, pairs, x->nlocs);
	}
	free(pairs);
	return rc;
}

/* Place of key among the comma-separated keys (1-based; "all": 1), 0 if not listed. */
static unsigned key_listed(const char *list, span key)
{
	if (!list)
		return 0;
	if (!strcmp(list, "all"))
		return 1;
	unsigned k = 1;
	for (const char *p = list; *p; k++) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == key.len && !memcmp(p, key.p, n))
			return k;
		p += n + (e != NULL);
	}
	return 0;
}

static int read_samples(pp *x, int type)
{
	fk_parse_ctx *c = x->c;
	fk_stackbuf sb = { 0 };
	char *lab = NULL;
	size_t labcap = 0, rootcap = 0;
	uint64_t *rootkey = NULL;
	int rc = 0;
	const char *label_frames = c->o->label_frames;
	for (size_t i = 0; i < x->nsamples && !rc; i++) {
		pb_in in = { x->samples[i].p, x->samples[i].p + x->samples[i].len, false };
		unsigned f, w;
		int64_t value = 0;
		int vi = 0;
		bool have_value = false;
		fk_sample_info info = { .time = 0.0 / 0.0, .pid = -1, .tid = -1, .cpu = -1 };
		span comm = { 0 }, tcomm = { 0 };
		sb.n = 0;
		size_t nroot = 0;
		while (pb_next(&in, &f, &w) && !rc) {
			if (f == 1) {
				PB_FOR_EACH_VARINT(&in, w, id, {
					uint32_t k = idmap_get(&x->lmap, id);
					if (!k) {
						rc = corrupt(x, x->samples[i].p, "a sample names an unknown location");
						break;
					}
					for (uint32_t j = x->loc_at[k - 1]; j < x->loc_at[k]; j++) {
						if (FK_GROW(sb.ids, sb.cap, sb.n + 1)) {
							rc = -FK_E_NOMEM;
							break;
						}
						sb.ids[sb.n++] = x->loc_frames[j];
					}
				});
			} else if (f == 2) {
				PB_FOR_EACH_VARINT(&in, w, v, {
					if (vi++ == type) {
						value = (int64_t)v;
						have_value = true;
					}
				});
			} else if (f == 3 && w == PB_LEN) {
				pb_in l = pb_get_len(&in);
				uint64_t key = 0, str = 0, num = 0;
				bool has_num = false;
				while (pb_next(&l, &f, &w))
					if (f == 1 && w == PB_VARINT)
						key = pb_get_varint(&l);
					else if (f == 2 && w == PB_VARINT)
						str = pb_get_varint(&l);
					else if (f == 3 && w == PB_VARINT)
						num = pb_get_varint(&l), has_num = true;
					else
						pb_skip(&l, w);
				span k = str_at(x, key), s = str_at(x, str);
				has_num |= !str; /* no string: a number (0 when not written) */
				if (has_num && span_is(k, "pid"))
					info.pid = (int32_t)num;
				else if (has_num && span_is(k, "tid"))
					info.tid = (int32_t)num;
				else if (has_num && span_is(k, "cpu"))
					info.cpu = (int32_t)num;
				else if (has_num && span_is(k, "timestamp_ns"))
					info.time = (double)num / 1e9;
				else if (span_is(k, "comm"))
					comm = s;
				else if (span_is(k, "thread_comm"))
					tcomm = s;
				unsigned place = key_listed(label_frames, k);
				if (place) {
					/* "key=value" as a root frame, so --keep/--drop and the graph see it */
					char num_text[24];
					span v = s;
					if (has_num) {
						int n = snprintf(num_text, sizeof(num_text), "%lld", (long long)num);
						v = (span){ (const uint8_t *)num_text, (uint32_t)n };
					}
					size_t need = k.len + 1 + v.len;
					if (FK_GROW(lab, labcap, need + 1)) {
						rc = -FK_E_NOMEM;
						break;
					}
					memcpy(lab, k.p, k.len);
					lab[k.len] = '=';
					memcpy(lab + k.len + 1, v.p, v.len);
					uint32_t fr = 0;
					rc = intern_span(x, (span){ (const uint8_t *)lab, (uint32_t)need }, &fr);
					if (!rc && FK_GROW(sb.ids, sb.cap, sb.n + 1))
						rc = -FK_E_NOMEM;
					if (!rc && FK_GROW(rootkey, rootcap, nroot + 1))
						rc = -FK_E_NOMEM;
					if (!rc) {
						/* kept after the frames; moved to the root below, in the
						 * order of the keys asked for */
						sb.ids[sb.n++] = fr | 0x80000000u;
						rootkey[nroot++] = (uint64_t)place << 32 | fr;
					}
				}
			} else {
				pb_skip(&in, w);
			}
		}
		if (rc)
			break;
		if (in.bad) {
			fk_bad_line(c, 0, "pprof sample %zu at byte %zu%s is damaged; skipped", i + 1,
				    (size_t)(x->samples[i].p - x->base),
				    c->r->unzip ? " of the decompressed data" : "");
			continue;
		}
		if (!have_value || value == 0)
			continue;
		/* leaf first -> root first, with the label frames (in label order) at the root */
		if (nroot) {
			size_t nf = 0;
			uint32_t *tmp = malloc(sb.n * sizeof(uint32_t));
			if (!tmp) {
				rc = -FK_E_NOMEM;
				break;
			}
			/* a stable insertion sort by place: few labels */
			for (size_t j = 1; j < nroot; j++)
				for (size_t k = j; k > 0 && rootkey[k - 1] >> 32 > rootkey[k] >> 32; k--) {
					uint64_t t = rootkey[k];
					rootkey[k] = rootkey[k - 1];
					rootkey[k - 1] = t;
				}
			for (size_t j = 0; j < nroot; j++)
				tmp[nf++] = (uint32_t)rootkey[j];
			for (size_t j = sb.n; j-- > 0;)
				if (!(sb.ids[j] & 0x80000000u))
					tmp[nf++] = sb.ids[j];
			memcpy(sb.ids, tmp, sb.n * sizeof(uint32_t));
			free(tmp);
		} else {
			fk_stackbuf_reverse(&sb, 0);
		}
		span cm = tcomm.len ? tcomm : comm;
		info.comm = (const char *)cm.p;
		info.comm_len = cm.len;
		bool labelled = info.pid >= 0 || info.tid >= 0 || cm.len || info.time == info.time;
		rc = fk_stackbuf_add(c, &sb, (double)value, labelled ? &info : NULL);
	}
	fk_stackbuf_free(&sb);
	free(lab);
	free(rootkey);
	return rc;
}

static int parse(fk_parse_ctx *c)
{
	const char *buf;
	size_t len;
	int rc = fk_reader_all(c->r, PPROF_MAX, &buf, &len);
	if (rc == -FK_E_TOOBIG)
		fk_warn("%s: pprof profile larger than %zu MiB", c->name, PPROF_MAX >> 20);
	if (rc)
		return rc;
	pp x = { .c = c, .name = c->name, .base = (const uint8_t *)buf };
	rc = index_profile(&x, (const uint8_t *)buf, len);
	int type = 0;
	if (!rc) {
		type = pick_type(&x);
		if (type < 0)
			rc = type == -1 ? -FK_E_INVAL : type;
	}
	if (!rc)
		rc = read_tables(&x);
	if (!rc)
		rc = read_samples(&x, type);
	idmap_free(&x.fmap);
	idmap_free(&x.lmap);
	free(x.strs);
	free(x.samples);
	free(x.locs);
	free(x.funcs);
	free(x.types);
	free(x.func_frame);
	free(x.loc_at);
	free(x.loc_frames);
	c->st->lines = x.nsamples;
	return rc;
}

const fk_format fk_format_pprof = {
	.name = "pprof",
	.desc = "pprof profile.proto, gzipped or not (go tool pprof, perf_to_profile, Pyroscope, Parca)",
	.probe = probe,
	.parse = parse,
	.binary = true,
};

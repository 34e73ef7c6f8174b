/* parse-cpuprofile.c - Chrome/Node CPU profiles (.cpuprofile: `node --cpu-prof`, DevTools'
 * "Save profile", the inspector's Profiler.stop result): a JSON tree of call frames plus the
 * sampled node of every tick and the time between ticks. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "parse-stack.h"

#define CPUPROFILE_MAX ((size_t)2 << 30)

static int probe(const char *buf, size_t len)
{
	size_t i = 0;
	while (i < len && (fk_is_space(buf[i]) || buf[i] == '\n'))
		i++;
	if (i >= len || buf[i] != '{')
		return 0;
	bool nodes = memmem(buf, len, "\"nodes\"", 7) != NULL;
	bool frame = memmem(buf, len, "\"callFrame\"", 11) != NULL;
	return nodes && frame ? 95 : 0;
}

/* ---- a small JSON reader over the whole text: enough for this format, strict about syntax */
typedef struct js {
	const char *p, *end;
	bool bad;
	const char *what;      /* first error */
	const char *at;        /* where it was found (p then jumps to the end) */
	char *str;             /* the last string read, decoded, NUL-terminated */
	size_t slen, scap;
} js;

static void js_fail(js *j, const char *what)
{
	if (!j->bad) {
		j->what = what;
		j->at = j->p;
	}
	j->bad = true;
	j->p = j->end;
}

static void js_ws(js *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
		j->p++;
}

static bool js_eat(js *j, char c)
{
	js_ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

static void js_put(js *j, const char *s, size_t n)
{
	if (FK_GROW(j->str, j->scap, j->slen + n + 1)) {
		js_fail(j, "out of memory");
		return;
	}
	memcpy(j->str + j->slen, s, n);
	j->slen += n;
	j->str[j->slen] = 0;
}

static unsigned js_hex4(js *j)
{
	unsigned v = 0;
	for (int k = 0; k < 4; k++) {
		char c = j->p < j->end ? *j->p++ : 0;
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v |= (unsigned)((c | 0x20) - 'a' + 10);
		else
			js_fail(j, "bad \\u escape");
	}
	return v;
}

/* A string into j->str (escapes decoded, \u to UTF-8). */
static void js_string(js *j)
{
	j->slen = 0;
	js_put(j, "", 0);
	if (!js_eat(j, '"')) {
		js_fail(j, "a string expected");
		return;
	}
	while (j->p < j->end && !j->bad) {
		const char *q = j->p;
		while (q < j->end && *q != '"' && *q != '\\')
			q++;
		js_put(j, j->p, (size_t)(q - j->p));
		j->p = q;
		if (q >= j->end)
			break;
		if (*q == '"') {
			j->p++;
			return;
		}
		j->p++; /* backslash */
		char c = j->p < j->end ? *j->p++ : 0, o = 0;
		switch (c) {
		case '"': case '\\': case '/': o = c; break;
		case 'b': o = '\b'; break;
		case 'f': o = '\f'; break;
		case 'n': o = '\n'; break;
		case 'r': o = '\r'; break;
		case 't': o = '\t'; break;
		case 'u': {
			unsigned u = js_hex4(j);
			if (u >= 0xd800 && u < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' && j->p[1] == 'u') {
				j->p += 2;
				unsigned lo = js_hex4(j);
				u = lo >= 0xdc00 && lo < 0xe000 ? 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00) : 0xfffd;
			} else if (u >= 0xd800 && u < 0xe000) {
				u = 0xfffd;
			}
			char b[4];
			size_t n;
			if (u < 0x80) {
				b[0] = (char)u, n = 1;
			} else if (u < 0x800) {
				b[0] = (char)(0xc0 | u >> 6), b[1] = (char)(0x80 | (u & 0x3f)), n = 2;
			} else if (u < 0x10000) {
				b[0] = (char)(0xe0 | u >> 12), b[1] = (char)(0x80 | ((u >> 6) & 0x3f));
				b[2] = (char)(0x80 | (u & 0x3f)), n = 3;
			} else {
				b[0] = (char)(0xf0 | u >> 18), b[1] = (char)(0x80 | ((u >> 12) & 0x3f));
				b[2] = (char)(0x80 | ((u >> 6) & 0x3f)), b[3] = (char)(0x80 | (u & 0x3f)), n = 4;
			}
			js_put(j, b, n);
			continue;
		}
		default: js_fail(j, "bad escape in a string"); return;
		}
		js_put(j, &o, 1);
	}
	js_fail(j, "unterminated string");
}

static double js_number(js *j)
{
	js_ws(j);
	char buf[64];
	size_t n = 0;
	while (j->p < j->end && n < sizeof(buf) - 1 && strchr("+-0123456789.eE", *j->p))
		buf[n++] = *j->p++;
	buf[n] = 0;
	char *e;
	double v = strtod(buf, &e);
	if (!n || *e)
		js_fail(j, "a number expected");
	return v;
}

static void js_skip(js *j, int depth)
{
	js_ws(j);
	if (depth > 200) {
		js_fail(j, "nested too deep");
		return;
	}
	if (j->p >= j->end) {
		js_fail(j, "a value expected");
		return;
	}
	char c = *j->p;
	if (c == '"') {
		js_string(j);
	} else if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		j->p++;
		if (js_eat(j, close))
			return;
		do {
			if (c == '{') {
				js_string(j);
				if (!js_eat(j, ':'))
					js_fail(j, "':' expected");
			}
			js_skip(j, depth + 1);
		} while (!j->bad && js_eat(j, ','));
		if (!js_eat(j, close))
			js_fail(j, c == '{' ? "'}' expected" : "']' expected");
	} else if (j->end - j->p >= 4 && !strncmp(j->p, "true", 4)) {
		j->p += 4;
	} else if (j->end - j->p >= 5 && !strncmp(j->p, "false", 5)) {
		j->p += 5;
	} else if (j->end - j->p >= 4 && !strncmp(j->p, "null", 4)) {
		j->p += 4;
	} else {
		js_number(j);
	}
}

/* Object walk: for (js_obj_begin; js_obj_key(j);) { ...read the value of j->str... } */
static bool js_obj_begin(js *j)
{
	if (!js_eat(j, '{')) {
		js_fail(j, "'{' expected");
		return false;
	}
	return true;
}

static bool js_obj_key(js *j, bool *first)
{
	if (j->bad)
		return false;
	if (*first) {
		*first = false;
		if (js_eat(j, '}'))
			return false;
	} else if (!js_eat(j, ',')) {
		if (!js_eat(j, '}'))
			js_fail(j, "'}' expected");
		return false;
	}
	js_string(j);
	if (!js_eat(j, ':'))
		js_fail(j, "':' expected");
	return !j->bad;
}

/* Numbers of an array, appended to *a. */
static void js_numbers(js *j, double **a, size_t *n, size_t *cap)
{
	if (!js_eat(j, '[')) {
		js_fail(j, "'[' expected");
		return;
	}
	if (js_eat(j, ']'))
		return;
	do {
		double v = js_number(j);
		if (FK_GROW(*a, *cap, *n + 1)) {
			js_fail(j, "out of memory");
			return;
		}
		(*a)[(*n)++] = v;
	} while (!j->bad && js_eat(j, ','));
	if (!js_eat(j, ']'))
		js_fail(j, "']' expected");
}

/* ---- the profile */
typedef struct cnode {
	double id, parent_id;   /* parent_id NaN until a children list or "parent" names it */
	uint32_t frame;         /* interned name; 0 for "(root)" */
	double hits;
	int64_t fk;             /* profile node, -1 until placed */
} cnode;

typedef struct cp {
	fk_parse_ctx *c;
	cnode *nodes;
	size_t n, cap;
	double *kids;           /* (parent id, child id) pairs from children lists */
	size_t nk, capk;
	double *samples, *deltas;
	size_t ns, caps, nd, capd;
	double start;
	char *name;
	size_t namecap;
	cnode **chain;          /* place()'s scratch */
	size_t chaincap;
} cp;

static int cmp_id(const void *a, const void *b)
{
	double x = ((const cnode *)a)->id, y = ((const cnode *)b)->id;
	return (x > y) - (x < y);
}

static cnode *find(cp *x, double id)
{
	size_t lo = 0, hi = x->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (x->nodes[mid].id < id)
			lo = mid + 1;
		else if (x->nodes[mid].id > id)
			hi = mid;
		else
			return &x->nodes[mid];
	}
	return NULL;
}

/* The frame name: "function url:line" (line 1-based), "(anonymous)" for an unnamed function;
 * ';' (the folded separator) becomes ':'. */
static int frame_name(cp *x, const char *fn, size_t fnlen, const char *url, size_t ulen, double line,
		      uint32_t *out)
{
	if (!fnlen) {
		fn = "(anonymous)";
		fnlen = 11;
	}
	if (fnlen == 6 && !memcmp(fn, "(root)", 6) && !ulen) {
		*out = 0;
		return 0;
	}
	size_t need = fnlen + ulen + 32;
	if (FK_GROW(x->name, x->namecap, need))
		return -FK_E_NOMEM;
	size_t n = fnlen;
	memcpy(x->name, fn, fnlen);
	if (ulen) {
		x->name[n++] = ' ';
		memcpy(x->name + n, url, ulen);
		n += ulen;
		if (line >= 0)
			n += (size_t)snprintf(x->name + n, 24, ":%.0f", line + 1);
	}
	for (size_t i = 0; i < n; i++)
		if (x->name[i] == ';')
			x->name[i] = ':';
	int64_t id = fk_parse_intern(x->c, x->name, n);
	if (id < 0)
		return (int)id;
	*out = (uint32_t)id;
	return 0;
}

static int read_node(cp *x, js *j)
{
	cnode nd = { .id = NAN, .parent_id = NAN, .fk = -1 };
	char *fn = NULL, *url = NULL;
	size_t fnlen = 0, ulen = 0;
	double line = -1;
	double *kids = NULL;
	size_t nkids = 0, capkids = 0;
	int rc = 0;
	bool first = true;
	if (!js_obj_begin(j))
		return 0;
	while (js_obj_key(j, &first)) {
		if (!strcmp(j->str, "id")) {
			nd.id = js_number(j);
		} else if (!strcmp(j->str, "parent")) {
			nd.parent_id = js_number(j);
		} else if (!strcmp(j->str, "hitCount")) {
			nd.hits = js_number(j);
		} else if (!strcmp(j->str, "children")) {
			js_numbers(j, &kids, &nkids, &capkids);
		} else if (!strcmp(j->str, "callFrame")) {
			bool f2 = true;
			if (!js_obj_begin(j))
				break;
			while (js_obj_key(j, &f2)) {
				bool is_fn = !strcmp(j->str, "functionName"), is_url = !strcmp(j->str, "url");
				if (is_fn || is_url) {
					js_string(j);
					/* slen bytes: a "\u0000" escape puts a NUL inside */
					char *copy = j->bad ? NULL : malloc(j->slen + 1);
					if (copy) {
						memcpy(copy, j->str, j->slen);
						copy[j->slen] = 0;
					}
					if (!j->bad && !copy) {
						rc = -FK_E_NOMEM;
						break;
					}
					if (is_fn) {
						free(fn);
						fn = copy;
						fnlen = j->slen;
					} else {
						free(url);
						url = copy;
						ulen = j->slen;
					}
				} else if (!strcmp(j->str, "lineNumber")) {
					line = js_number(j);
				} else {
					js_skip(j, 1);
				}
			}
		} else {
			js_skip(j, 1);
		}
	}
	if (!rc && !j->bad) {
		if (nd.id != nd.id)
			js_fail(j, "a node without an id");
		else
			rc = frame_name(x, fn ? fn : "", fnlen, url ? url : "", ulen, line, &nd.frame);
	}
	if (!rc && !j->bad) {
		if (FK_GROW(x->nodes, x->cap, x->n + 1) || FK_GROW(x->kids, x->capk, x->nk + 2 * nkids))
			rc = -FK_E_NOMEM;
		else
			x->nodes[x->n++] = nd;
		for (size_t k = 0; !rc && k < nkids; k++) {
			x->kids[x->nk++] = nd.id;
			x->kids[x->nk++] = kids[k];
		}
	}
	free(fn);
	free(url);
	free(kids);
	return rc;
}

/* The profile node of a cpuprofile node: its ancestors are placed first (a loop, not
 * recursion: JS stacks can be deep). -FK_E_FORMAT for a parent cycle. */
static int64_t place(cp *x, cnode *nd)
{
	size_t k = 0;
	cnode *at = nd;
	while (at && at->fk < 0) {
		if (k > x->n)
			return -FK_E_FORMAT;
		if (FK_GROW(x->chain, x->chaincap, k + 1))
			return -FK_E_NOMEM;
		x->chain[k++] = at;
		at = at->parent_id == at->parent_id ? find(x, at->parent_id) : NULL;
	}
	int64_t parent = at ? at->fk : 0;
	while (k-- > 0) {
		cnode *c = x->chain[k];
		if (c->frame == 0) {
			c->fk = parent; /* "(root)": the profile's own root */
		} else {
			int64_t r = fk_profile_child(x->c->p, (uint32_t)parent, c->frame);
			if (r < 0)
				return r;
			c->fk = r;
		}
		parent = c->fk;
	}
	return nd->fk;
}

static int parse(fk_parse_ctx *c)
{
	const char *buf;
	size_t len;
	int rc = fk_reader_all(c->r, CPUPROFILE_MAX, &buf, &len);
	if (rc)
		return rc;
	cp x = { .c = c, .start = NAN };
	js j = { .p = buf, .end = buf + len };
	bool first = true, have_samples = false, have_nodes = false;
	const char *samples_at = buf; /* where the ticks are: the line of their messages */
	if (js_obj_begin(&j)) {
		while (!rc && js_obj_key(&j, &first)) {
			if (!strcmp(j.str, "nodes")) {
				have_nodes = true;
				if (!js_eat(&j, '[')) {
					js_fail(&j, "'[' expected");
					break;
				}
				if (js_eat(&j, ']'))
					continue;
				do
					rc = read_node(&x, &j);
				while (!rc && !j.bad && js_eat(&j, ','));
				if (!rc && !js_eat(&j, ']'))
					js_fail(&j, "']' expected");
			} else if (!strcmp(j.str, "samples")) {
				samples_at = j.p;
				js_numbers(&j, &x.samples, &x.ns, &x.caps);
				have_samples = true;
			} else if (!strcmp(j.str, "timeDeltas")) {
				js_numbers(&j, &x.deltas, &x.nd, &x.capd);
			} else if (!strcmp(j.str, "startTime")) {
				x.start = js_number(&j);
			} else {
				js_skip(&j, 1);
			}
		}
	}
	if (!rc && j.bad) {
		/* where: the line of the damage */
		uint64_t line = 1;
		for (const char *q = buf; q < j.at && q < j.end; q++)
			line += *q == '\n';
		fk_warn("%s:%llu: not a valid CPU profile (%s)", c->name, (unsigned long long)line, j.what);
		rc = -FK_E_FORMAT;
	} else if (!rc && !have_nodes) {
		/* valid JSON of another kind (--format cpuprofile forced on it) */
		fk_warn("%s:1: not a CPU profile: it has no \"nodes\" array", c->name);
		rc = -FK_E_FORMAT;
	}
	if (!rc && x.n) { /* no nodes: no array (qsort of NULL is undefined) */
		qsort(x.nodes, x.n, sizeof(cnode), cmp_id);
		for (size_t k = 0; k + 1 < x.nk; k += 2) {
			cnode *child = find(&x, x.kids[k + 1]);
			if (child)
				child->parent_id = x.kids[k];
		}
	}
	/* the weight of a tick: 1 (samples), or with --sample-type time the microseconds until
	 * the next tick (DevTools' own rule; the last tick gets the one before's) */
	const char *st = c->o->sample_type;
	bool by_time = st && (!strcmp(st, "time") || !strcmp(st, "time/microseconds"));
	if (!rc && st && *st && !by_time && strcmp(st, "samples") && strcmp(st, "samples/count")) {
		fk_warn("%s: no sample type '%s' in a CPU profile (it has: samples/count, time/microseconds)",
			c->name, st);
		rc = -FK_E_INVAL;
	}
	snprintf(c->unit, sizeof(c->unit), "%s", by_time ? "us" : "samples");
	double t = x.start;
	uint64_t samples_line = 0;
	for (size_t i = 0; !rc && i < x.ns; i++) {
		cnode *nd = find(&x, x.samples[i]);
		if (i < x.nd)
			t += x.deltas[i];
		if (!nd) {
			if (!samples_line) {
				samples_line = 1;
				for (const char *q = buf; q < samples_at; q++)
					samples_line += *q == '\n';
			}
			fk_bad_line(c, samples_line, "tick %zu names node %.0f, which the profile does not have; skipped",
				    i + 1, x.samples[i]);
			continue;
		}
		int64_t node = place(&x, nd);
		if (node == -FK_E_FORMAT)
			fk_warn("%s: the profile's nodes are their own ancestors", c->name);
		if (node < 0) {
			rc = (int)node;
			break;
		}
		double w = 1;
		if (by_time)
			w = i + 1 < x.nd ? x.deltas[i + 1] : i < x.nd ? x.deltas[i] : 0;
		fk_sample_info info = { .time = t == t ? t / 1e6 : NAN, .pid = -1, .tid = -1, .cpu = -1 };
		rc = fk_profile_add_to_node(c->p, (uint32_t)node, 0, w, &info);
		if (!rc)
			c->st->samples++;
	}
	if (!rc && !have_samples) {
		/* an old profile with only hit counts */
		for (size_t i = 0; !rc && i < x.n; i++) {
			if (!(x.nodes[i].hits > 0))
				continue;
			int64_t node = place(&x, &x.nodes[i]);
			if (node < 0)
				rc = (int)node;
			else
				rc = fk_profile_add_to_node(c->p, (uint32_t)node, 0, x.nodes[i].hits, NULL);
			c->st->samples++;
		}
	}
	free(x.nodes);
	free(x.kids);
	free(x.samples);
	free(x.deltas);
	free(x.name);
	free(x.chain);
	free(j.str);
	return rc;
}

const fk_format fk_format_cpuprofile = {
	.name = "cpuprofile",
	.desc = "Chrome/Node CPU profile JSON (node --cpu-prof, DevTools .cpuprofile)",
	.probe = probe,
	.parse = parse,
};

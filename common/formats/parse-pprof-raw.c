/* parse-pprof-raw.c - `go tool pprof -raw` text: "Samples:" lines of values and
 * location ids, then "Locations" naming each id, as FlameGraph's
 * stackcollapse-go.pl reads it. Samples are held until the names are known. */
#include <stdlib.h>
#include "parse-stack.h"

struct loc {
	uint64_t id;
	size_t name_off, name_len; /* in text */
	size_t order;              /* input order: the last of equal ids wins */
};

struct go {
	fk_parse_ctx *c;
	char *text;                /* sample id lists and location names */
	size_t text_len, text_cap;
	struct samp { size_t off, len; double count; uint64_t line; } *samples;
	size_t nsamples, samples_cap;
	struct loc *locs;
	size_t nlocs, locs_cap;
};

static int keep_text(struct go *g, const char *s, size_t len, size_t *off)
{
	if (FK_GROW(g->text, g->text_cap, g->text_len + len + 1))
		return -FK_E_NOMEM;
	memcpy(g->text + g->text_len, s, len);
	*off = g->text_len;
	g->text_len += len;
	return 0;
}

static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* perl: /^\s*([0-9]+)\s*[0-9]+: ([0-9 ]+)/ - the first value (the sample
 * count) and the id list. */
static bool sample_line(const char *s, size_t len, double *count, const char **ids, size_t *idlen)
{
	size_t i = 0;
	while (i < len && fk_is_space(s[i]))
		i++;
	size_t v0 = i;
	while (i < len && is_digit(s[i]))
		i++;
	size_t v1 = i;
	if (v1 == v0)
		return false;
	while (i < len && fk_is_space(s[i]))
		i++;
	size_t w0 = i;
	while (i < len && is_digit(s[i]))
		i++;
	if (i == w0) {
		/* one value only ("5: 1 2"); the perl's pattern would split its
		 * digits, flamekit takes the value whole */
		if (i != v1)
			return false;
	}
	if (i + 1 >= len || s[i] != ':' || s[i + 1] != ' ')
		return false;
	i += 2;
	size_t k = i;
	while (k < len && (is_digit(s[k]) || s[k] == ' '))
		k++;
	if (k == i)
		return false;
	*ids = s + i;
	*idlen = k - i;
	return fk_parse_count(s + v0, v1 - v0, count) == 0;
}

/* perl: /^\s*([0-9]*): 0x[0-9a-f]+ (M=[0-9]+ )?([^ ]+) .* / - a location's id
 * and its first (innermost) function name. */
static bool location_line(const char *s, size_t len, uint64_t *id, const char **name, size_t *nlen)
{
	size_t i = 0;
	while (i < len && fk_is_space(s[i]))
		i++;
	size_t d = i;
	uint64_t v = 0;
	while (i < len && is_digit(s[i]) && v < UINT64_MAX / 10)
		v = v * 10 + (uint64_t)(s[i++] - '0');
	if (i == d || len - i < 5 || memcmp(s + i, ": 0x", 4))
		return false;
	i += 4;
	size_t h = i;
	while (i < len && (is_digit(s[i]) || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	if (i == h || i == len || s[i] != ' ')
		return false;
	i++;
	if (len - i > 2 && s[i] == 'M' && s[i + 1] == '=') {
		size_t m = i + 2;
		while (m < len && is_digit(s[m]))
			m++;
		if (m > i + 2 && m < len && s[m] == ' ')
			i = m + 1;
	}
	size_t n0 = i;
	while (i < len && s[i] != ' ')
		i++;
	if (i == n0 || i == len)
		return false;
	*id = v;
	*name = s + n0;
	*nlen = i - n0;
	return true;
}

static int cmp_loc(const void *a, const void *b)
{
	const struct loc *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static const struct loc *find_loc(const struct go *g, uint64_t id)
{
	size_t lo = 0, hi = g->nlocs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->locs[mid].id <= id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && g->locs[lo - 1].id == id ? &g->locs[lo - 1] : NULL;
}

/* Every sample, now that the locations are known: ids are listed leaf first;
 * an id with no location keeps its number as the frame name (as perl does). */
static int add_samples(struct go *g)
{
	fk_parse_ctx *c = g->c;
	fk_stackbuf b = { 0 };
	int rc = 0;
	if (g->nlocs)
		qsort(g->locs, g->nlocs, sizeof(*g->locs), cmp_loc);
	for (size_t k = 0; k < g->nsamples && !rc; k++) {
		const char *s = g->text + g->samples[k].off;
		size_t len = g->samples[k].len;
		b.n = 0;
		/* perl's split(/ /): fields between single blanks, trailing empty ones dropped */
		while (len && s[len - 1] == ' ')
			len--;
		size_t i = 0;
		while (i < len && !rc) {
			size_t j = i;
			while (j < len && s[j] != ' ')
				j++;
			const char *name = s + i;
			size_t nl = j - i;
			uint64_t v = 0;
			bool ok = nl > 0 && nl < 20;
			for (size_t t = i; t < j && ok; t++)
				v = v * 10 + (uint64_t)(s[t] - '0');
			const struct loc *l = ok ? find_loc(g, v) : NULL;
			/* a name perl finds false ("" or "0") does not replace the id */
			if (l && !(l->name_len == 1 && g->text[l->name_off] == '0')) {
				name = g->text + l->name_off;
				nl = l->name_len;
			}
			rc = fk_stackbuf_push(c, &b, name, nl);
			i = j + 1;
		}
		if (!rc && b.n) {
			fk_stackbuf_reverse(&b, 0);
			rc = fk_stackbuf_add(c, &b, g->samples[k].count, NULL);
		}
	}
	fk_stackbuf_free(&b);
	return rc;
}

static int parse(fk_parse_ctx *c)
{
	struct go g = { .c = c };
	enum { IGNORE, SAMPLE, LOCATION, DONE } state = IGNORE;
	const char *line;
	size_t len;
	int rc;
	while (state != DONE && (rc = fk_reader_line(c->r, &line, &len)) > 0) {
		c->st->lines++;
		len = fk_chomp_cr(line, len);
		if (len && line[0] == '#')
			continue;
		if (state == IGNORE) {
			if (memmem(line, len, "Samples:", 8))
				state = SAMPLE;
		} else if (state == SAMPLE) {
			double count;
			const char *ids;
			size_t idlen;
			if (sample_line(line, len, &count, &ids, &idlen)) {
				if (FK_GROW(g.samples, g.samples_cap, g.nsamples + 1)) {
					rc = -FK_E_NOMEM;
					break;
				}
				struct samp *sp = &g.samples[g.nsamples];
				if ((rc = keep_text(&g, ids, idlen, &sp->off)))
					break;
				sp->len = idlen;
				sp->count = count;
				sp->line = c->r->lineno;
				g.nsamples++;
			} else if (memmem(line, len, "Locations", 9)) {
				state = LOCATION;
			}
		} else {
			uint64_t id;
			const char *name;
			size_t nlen;
			if (location_line(line, len, &id, &name, &nlen)) {
				if (FK_GROW(g.locs, g.locs_cap, g.nlocs + 1)) {
					rc = -FK_E_NOMEM;
					break;
				}
				struct loc *l = &g.locs[g.nlocs];
				if ((rc = keep_text(&g, name, nlen, &l->name_off)))
					break;
				l->id = id;
				l->name_len = nlen;
				l->order = g.nlocs++;
			} else if (memmem(line, len, "Mappings", 8)) {
				state = DONE; /* the script reads no further */
			}
		}
	}
	if (rc >= 0) {
		if (state == IGNORE)
			fk_note(c, 1, "no 'Samples:' line: not go tool pprof -raw output");
		else if (state == SAMPLE && g.nsamples)
			fk_bad_line(c, g.samples[0].line,
				    "no 'Locations' section after the samples: frames are location ids");
		rc = add_samples(&g);
	}
	free(g.text);
	free(g.samples);
	free(g.locs);
	return rc;
}

static int probe(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *s;
	size_t l;
	int lines = 0, samples = 0;
	bool head = false, samp = false, locs = false;
	while (lines < 400 && fk_probe_line(&p, end, &s, &l)) {
		double cnt;
		const char *ids;
		size_t idl;
		lines++;
		if (l >= 11 && (!memcmp(s, "PeriodType:", 11)))
			head = true;
		else if (l == 8 && !memcmp(s, "Samples:", 8))
			samp = true;
		else if (l == 9 && !memcmp(s, "Locations", 9))
			locs = true;
		else if (samp && sample_line(s, l, &cnt, &ids, &idl))
			samples++;
	}
	if (samp && (samples || locs))
		return head ? 95 : 85;
	return 0;
}

const fk_format fk_format_pprof_raw = {
	.name = "pprof-raw",
	.desc = "go tool pprof -raw text: Samples (values: location ids) then Locations",
	.probe = probe,
	.parse = parse,
	.unit = "samples",
};

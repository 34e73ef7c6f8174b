/* parse-perf-report.c - `perf report --stdio --no-children -g folded,0,caller,count`:
 * a histogram entry line ("  58.19%  prog  prog  [.] leaf_a") followed by its
 * call chains, one per line, value first ("1039 main;leaf_a" or "31.62% main;leaf_a"). */
#include "parse-stack.h"

#define MAX_COLS 16

struct pr {
	fk_parse_ctx *c;
	fk_stackbuf b;
	/* columns from the "# Overhead  Command ..." and "# ....." header lines */
	char names[MAX_COLS][24];
	size_t nnames;
	size_t col_start[MAX_COLS], col_end[MAX_COLS];
	size_t ncols;
	int comm_col, sym_col;
	bool children;        /* report made without --no-children */
	/* events: only one is read (its own section of the report) */
	char event[128];
	size_t event_len;
	bool have_event, skip_event;
	uint64_t other_events, other_line;
	/* the current histogram entry */
	char comm[256];
	size_t comm_len;
	char sym[1024];
	size_t sym_len;       /* 0 = unknown */
};

static void header_names(struct pr *t, const char *s, size_t len)
{
	/* "# Overhead  Command  Shared Object  Symbol": names split by 2+ blanks */
	t->nnames = 0;
	t->comm_col = t->sym_col = -1;
	t->children = false;
	size_t i = 1;
	while (i < len && t->nnames < MAX_COLS) {
		while (i < len && s[i] == ' ')
			i++;
		if (i >= len)
			break;
		size_t b = i;
		while (i < len && !(s[i] == ' ' && (i + 1 >= len || s[i + 1] == ' ')))
			i++;
		size_t n = i - b < sizeof(t->names[0]) - 1 ? i - b : sizeof(t->names[0]) - 1;
		memcpy(t->names[t->nnames], s + b, n);
		t->names[t->nnames][n] = 0;
		if (!strcmp(t->names[t->nnames], "Command"))
			t->comm_col = (int)t->nnames;
		else if (!strcmp(t->names[t->nnames], "Symbol"))
			t->sym_col = (int)t->nnames;
		else if (!strcmp(t->names[t->nnames], "Children"))
			t->children = true;
		t->nnames++;
	}
}

/* "# ........  .......  ...." gives each column's byte range in entry lines. */
static void header_dots(struct pr *t, const char *s, size_t len)
{
	t->ncols = 0;
	for (size_t i = 1; i < len && t->ncols < MAX_COLS;) {
		while (i < len && s[i] == ' ')
			i++;
		if (i >= len || s[i] != '.')
			break;
		size_t b = i;
		while (i < len && s[i] == '.')
			i++;
		t->col_start[t->ncols] = b;
		t->col_end[t->ncols] = i;
		t->ncols++;
	}
}

static void trim(const char **s, size_t *len)
{
	while (*len && fk_is_space(**s))
		(*s)++, (*len)--;
	while (*len && fk_is_space((*s)[*len - 1]))
		(*len)--;
}

/* Field k of an entry line by the dot columns; the last one runs to the end. */
static bool entry_field(const struct pr *t, const char *s, size_t len, size_t k,
			const char **f, size_t *fl)
{
	if (k >= t->ncols || t->col_start[k] >= len)
		return false;
	size_t b = t->col_start[k];
	size_t e = k + 1 < t->ncols ? t->col_start[k + 1] : len;
	if (e > len)
		e = len;
	/* a misaligned line (a wide name pushed the columns right) is not trusted */
	if (b > 0 && s[b - 1] != ' ')
		return false;
	*f = s + b;
	*fl = e - b;
	trim(f, fl);
	return true;
}

static void entry_line(struct pr *t, const char *s, size_t len)
{
	const char *f;
	size_t fl;
	t->comm_len = t->sym_len = 0;
	if (t->comm_col >= 0 && entry_field(t, s, len, (size_t)t->comm_col, &f, &fl) &&
	    fl < sizeof(t->comm)) {
		/* as stackcollapse-perf.pl names the process ("mapper λ" ->
		 * "mapper_λ"), so perf report and perf script views of one
		 * recording share their root frames */
		for (size_t i = 0; i < fl; i++)
			t->comm[i] = f[i] == ' ' ? '_' : f[i];
		t->comm_len = fl;
	}
	if (t->sym_col >= 0 && entry_field(t, s, len, (size_t)t->sym_col, &f, &fl)) {
		/* "[.] name" / "[k] name": the bracket tells user/kernel */
		if (fl > 4 && f[0] == '[' && f[2] == ']' && f[3] == ' ')
			f += 4, fl -= 4;
		if (fl < sizeof(t->sym)) {
			memcpy(t->sym, f, fl);
			t->sym_len = fl;
		}
	}
}

static bool same(const fk_profile *p, uint32_t id, const char *s, size_t len)
{
	size_t l;
	const char *n = fk_profile_name(p, id, &l);
	return l == len && !memcmp(n, s, len);
}

/* "VALUE chain": VALUE is a count or a percentage. */
static int chain_line(struct pr *t, const char *s, size_t len)
{
	fk_parse_ctx *c = t->c;
	size_t i = 0;
	while (i < len && s[i] != ' ')
		i++;
	size_t vl = i;
	if (vl && s[vl - 1] == '%')
		vl--;
	double v;
	if (!vl || fk_parse_count(s, vl, &v) || v < 0) {
		fk_bad_line(c, c->r->lineno, "bad count '%.*s' before a call chain", (int)(i < 40 ? i : 40), s);
		return 0;
	}
	const char *ch = s + i;
	size_t cl = len - i;
	trim(&ch, &cl);
	if (!cl) {
		fk_bad_line(c, c->r->lineno, "count without a call chain");
		return 0;
	}
	t->b.n = 0;
	int rc;
	if (t->comm_len && !c->o->no_comm && (rc = fk_stackbuf_push(c, &t->b, t->comm, t->comm_len)))
		return rc;
	size_t first = t->b.n;
	for (const char *p = ch, *end = ch + cl; p <= end;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *e = semi ? semi : end;
		if ((rc = fk_stackbuf_push(c, &t->b, p, (size_t)(e - p))))
			return rc;
		p = e + 1;
	}
	/* perf does not print the order; in callee order the chain starts with
	 * the entry's own symbol. */
	size_t n = t->b.n;
	if (t->sym_len && n - first > 1 && same(c->p, t->b.ids[first], t->sym, t->sym_len) &&
	    !same(c->p, t->b.ids[n - 1], t->sym, t->sym_len))
		fk_stackbuf_reverse(&t->b, first);
	return fk_stackbuf_add(c, &t->b, v, NULL);
}

static bool starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);
	return len >= n && !memcmp(s, lit, n);
}

static bool is_entry(const char *s, size_t len)
{
	/* leading blanks, then a percentage: "    58.19%  prog ..." */
	size_t i = 0;
	while (i < len && s[i] == ' ')
		i++;
	if (i == 0)
		return false;
	size_t b = i;
	while (i < len && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
		i++;
	return i > b && i < len && s[i] == '%';
}

/* "# Samples: 3K of event 'cpu-clock:ppp'" opens an event's section. Read
 * the --event-filter one, or the first; skip others as perf script does. */
static void event_line(struct pr *t, const char *s, size_t len)
{
	const char *q = memmem(s, len, "of event '", 10);
	if (!q)
		return;
	q += 10;
	const char *e = memrchr(q, '\'', (size_t)(s + len - q));
	if (!e)
		return;
	size_t el = (size_t)(e - q);
	const char *want = t->c->o->event_filter;
	if (want) {
		/* perf prints modifiers ("cpu-clock:ppp"); match with or without */
		size_t wl = strlen(want), bl = el;
		const char *colon = memchr(q, ':', el);
		if (colon)
			bl = (size_t)(colon - q);
		t->skip_event = !((wl == el && !memcmp(q, want, el)) ||
				  (wl == bl && !memcmp(q, want, bl)));
	} else if (!t->have_event) {
		el = el < sizeof(t->event) ? el : sizeof(t->event) - 1;
		memcpy(t->event, q, el);
		t->event_len = el;
		t->have_event = true;
		t->skip_event = false;
	} else {
		t->skip_event = !(el == t->event_len && !memcmp(q, t->event, el));
	}
	if (t->skip_event && !t->other_line)
		t->other_line = t->c->r->lineno;
}

static int parse(fk_parse_ctx *c)
{
	struct pr t = { .c = c, .comm_col = -1, .sym_col = -1 };
	const char *line;
	size_t len;
	int rc;
	uint64_t children_line = 0;
	while ((rc = fk_reader_line(c->r, &line, &len)) > 0) {
		c->st->lines++;
		len = fk_chomp_cr(line, len);
		if (len && line[0] == '#') {
			if (starts(line, len, "# Overhead") || starts(line, len, "# Children") ||
			    starts(line, len, "# Samples  ")) {
				header_names(&t, line, len);
				if (t.children && !children_line)
					children_line = c->r->lineno;
			} else if (starts(line, len, "# ."))
				header_dots(&t, line, len);
			else if (starts(line, len, "# Samples: "))
				event_line(&t, line, len);
			continue;
		}
		if (fk_is_blank(line, len))
			continue;
		if (line[0] >= '0' && line[0] <= '9') {
			/* With children, perf lists every chain under each of its
			 * callers, partly cut and in no stated order: not countable. */
			if (t.children) {
				c->st->filtered++;
				continue;
			}
			if (t.skip_event) {
				t.other_events++;
				c->st->filtered++;
				continue;
			}
			if ((rc = chain_line(&t, line, len)) < 0)
				break;
		} else if (is_entry(line, len)) {
			entry_line(&t, line, len);
		} else {
			fk_bad_line(c, c->r->lineno, "not perf report -g folded output");
		}
	}
	if (rc == 0 && children_line)
		fk_bad_line(c, children_line,
			    "perf report was run without --no-children: its call chains repeat under "
			    "every caller and were skipped (rerun with --no-children)");
	if (rc == 0 && t.other_events)
		fk_note(c, t.other_line, "%llu call chains of other events skipped (reading %s%.*s)",
			(unsigned long long)t.other_events, c->o->event_filter ? "" : "the first event, ",
			c->o->event_filter ? (int)strlen(c->o->event_filter) : (int)t.event_len,
			c->o->event_filter ? c->o->event_filter : t.event);
	fk_stackbuf_free(&t.b);
	return rc;
}

static bool chain_like(const char *s, size_t l)
{
	size_t i = 0;
	while (i < l && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.'))
		i++;
	if (i && i < l && s[i] == '%')
		i++;
	return i && i + 1 < l && s[i] == ' ' && s[i + 1] != ' ';
}

static int probe(const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len;
	int header = 0, entries = 0, chains = 0, other = 0, lines = 0;
	while (s < end && lines < 400) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
		l = fk_chomp_cr(s, l);
		lines++;
		if (starts(s, l, "# To display the perf.data header") || starts(s, l, "# Overhead") ||
		    starts(s, l, "# Children ") || starts(s, l, "# Samples: "))
			header++;
		else if (l && s[0] == '#')
			;
		else if (is_entry(s, l))
			entries++;
		else if (chain_like(s, l))
			chains++;
		else if (!fk_is_blank(s, l))
			other++;
		if (!nl)
			break;
		s = nl + 1;
	}
	if (header && chains)
		return 95;
	if (header && entries)
		return 60;
	/* Bare "COUNT stack" lines (headers cut off): folded the wrong way round. */
	if (chains >= 1 && !other && !entries)
		return 40;
	if (entries && chains && other * 4 <= chains)
		return 70;
	return 0;
}

const fk_format fk_format_perf_report = {
	.name = "perf-report",
	.desc = "perf report --stdio --no-children -g folded,0,caller,count (count or percent first)",
	.probe = probe,
	.parse = parse,
};

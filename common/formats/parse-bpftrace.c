/* parse-bpftrace.c - bpftrace map output keyed by stacks: "@[" (or "@name["),
 * frames leaf first one per line, ", " between stacks, "]: COUNT", as
 * stackcollapse-bpftrace.pl reads it, plus scalar keys (comm, pid) as root frames. */
#include "parse-stack.h"

static bool starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);
	return len >= n && !memcmp(s, lit, n);
}

/* "@name[" at the start of a line: length of the prefix, or 0. */
static size_t map_open(const char *s, size_t len)
{
	if (!len || s[0] != '@')
		return 0;
	size_t i = 1;
	while (i < len && (s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
			   (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
		i++;
	return i < len && s[i] == '[' ? i + 1 : 0;
}

/* A line ending in "]: COUNT": position of that ']' and the count. */
static bool entry_close(const char *s, size_t len, size_t *at, double *count)
{
	size_t e = len;
	while (e && fk_is_space(s[e - 1]))
		e--;
	size_t b = e;
	while (b && s[b - 1] >= '0' && s[b - 1] <= '9')
		b--;
	if (b == e || b < 3 || s[b - 1] != ' ' || s[b - 2] != ':' || s[b - 3] != ']')
		return false;
	if (fk_parse_count(s + b, e - b, count))
		return false;
	*at = b - 3;
	return true;
}

/* Trim blanks and one ", " separator at either end of a key part. */
static void trim_key(const char **s, size_t *len)
{
	const char *p = *s;
	size_t l = *len;
	while (l && fk_is_space(*p))
		p++, l--;
	if (l && *p == ',') {
		p++, l--;
		while (l && fk_is_space(*p))
			p++, l--;
	}
	while (l && fk_is_space(p[l - 1]))
		l--;
	if (l && p[l - 1] == ',')
		l--;
	while (l && fk_is_space(p[l - 1]))
		l--;
	*s = p;
	*len = l;
}

struct bt {
	fk_parse_ctx *c;
	fk_stackbuf b;       /* scalar keys first, then frames as listed (leaf first) */
	size_t nkeys;        /* how many leading ids are scalar keys */
	bool in;             /* inside a multi-line entry */
	bool skip;           /* ... of another map: frames are not kept */
	uint64_t start;      /* its first line */
	char map[64];        /* the stack map in use ("" = @) */
	size_t map_len;
	bool have_map;
	uint64_t other_maps; /* entries of other stack maps, skipped */
	uint64_t other_line;
};

/* Entries of one map only: two stack maps in one output would count samples twice. */
static bool want_map(struct bt *t, const char *name, size_t len, uint64_t lineno)
{
	if (!t->have_map) {
		if (len > sizeof(t->map))
			len = sizeof(t->map);
		memcpy(t->map, name, len);
		t->map_len = len;
		t->have_map = true;
		return true;
	}
	/* names longer than the buffer compare by their stored prefix */
	size_t cmp = len < sizeof(t->map) ? len : sizeof(t->map);
	if (cmp == t->map_len && !memcmp(name, t->map, cmp))
		return true;
	if (!t->other_maps++)
		t->other_line = lineno;
	return false;
}

static int finish(struct bt *t, size_t trailing_from, double count)
{
	/* Root first: leading keys, a trailing key, then the frames reversed. */
	fk_stackbuf *b = &t->b;
	if (trailing_from < b->n) {
		uint32_t tk = b->ids[trailing_from];
		memmove(b->ids + t->nkeys + 1, b->ids + t->nkeys,
			(trailing_from - t->nkeys) * sizeof(*b->ids));
		b->ids[t->nkeys] = tk;
		fk_stackbuf_reverse(b, t->nkeys + 1);
	} else {
		fk_stackbuf_reverse(b, t->nkeys);
	}
	int rc = fk_stackbuf_add(t->c, b, count, NULL);
	b->n = 0;
	t->nkeys = 0;
	t->in = false;
	return rc;
}

static int outside(struct bt *t, const char *line, size_t len)
{
	fk_parse_ctx *c = t->c;
	uint64_t ln = c->r->lineno;
	size_t open = map_open(line, len);
	if (!open) {
		if (fk_is_blank(line, len) || starts(line, len, "Attaching "))
			return 0;
		/* "@name: 12" (a plain counter) is not a stack; say so once per map. */
		if (len && line[0] == '@' && memchr(line, ':', len)) {
			c->st->filtered++;
			return 0;
		}
		fk_bad_line(c, ln, "not bpftrace map output (expected '@[' or '@name[')");
		return 0;
	}
	const char *name = line + 1;
	size_t name_len = open - 2;
	size_t at;
	double count;
	if (entry_close(line, len, &at, &count) && at >= open) {
		/* One-line entry "@[comm, ]: 5" or "@[, comm]: 5" (the stack part is
		 * empty), "@[]: 5" (an empty stack); "@[comm]: 5" has no stack at all. */
		const char *k = line + open;
		size_t kl = at - open;
		bool empty_part = kl == 0 || starts(k, kl, ", ") || (kl >= 2 && !memcmp(k + kl - 2, ", ", 2)) ||
				  (kl == 1 && k[0] == ',');
		if (!empty_part) {
			c->st->filtered++;
			return 0;
		}
		if (!want_map(t, name, name_len, ln))
			return 0;
		trim_key(&k, &kl);
		t->b.n = 0;
		int rc;
		if (kl && (rc = fk_stackbuf_push(c->p, &t->b, k, kl)))
			return rc;
		if (t->b.n == 0) {
			/* No frames at all: nothing to draw; keep the count in the total. */
			c->st->filtered++;
			return 0;
		}
		return fk_stackbuf_add(c, &t->b, count, NULL);
	}
	/* Multi-line entry: "@[" or "@[comm, pid, " then frames. */
	if (!want_map(t, name, name_len, ln)) {
		t->in = true;
		t->skip = true;
		return 0;
	}
	t->in = true;
	t->skip = false;
	t->start = ln;
	t->b.n = 0;
	t->nkeys = 0;
	const char *k = line + open;
	size_t kl = len - open;
	trim_key(&k, &kl);
	if (kl) {
		int rc = fk_stackbuf_push(c->p, &t->b, k, kl);
		if (rc)
			return rc;
		t->nkeys = 1;
	}
	return 0;
}

static int inside(struct bt *t, const char *line, size_t len)
{
	fk_parse_ctx *c = t->c;
	bool skipping = t->skip;
	size_t at;
	double count;
	if (entry_close(line, len, &at, &count)) {
		if (skipping) {
			t->in = false;
			return 0;
		}
		/* ", comm]: 5" ends a stack with a trailing scalar key (perl keeps it). */
		const char *k = line;
		size_t kl = at;
		trim_key(&k, &kl);
		size_t trailing = SIZE_MAX;
		if (kl) {
			trailing = t->b.n;
			int rc = fk_stackbuf_push(c->p, &t->b, k, kl);
			if (rc)
				return rc;
		}
		return finish(t, trailing, count);
	}
	if (len && line[0] == '@' && map_open(line, len)) {
		/* A new entry without the old one's "]: N": the old one is lost. */
		if (!skipping)
			fk_bad_line(c, t->start, "bpftrace entry has no closing ']: COUNT'; dropped");
		t->in = false;
		return outside(t, line, len);
	}
	if (skipping)
		return 0;
	const char *f = line;
	size_t fl = len;
	while (fl && fk_is_space(*f))
		f++, fl--;
	/* ", " between two stacks of one key; blank lines carry nothing. */
	if (fl == 0 || (f[0] == ',' && fk_is_blank(f + 1, fl - 1)))
		return 0;
	return fk_stackbuf_push(c->p, &t->b, f, fl);
}

static int parse(fk_parse_ctx *c)
{
	struct bt t = { .c = c };
	const char *line;
	size_t len;
	int rc;
	while ((rc = fk_reader_line(c->r, &line, &len)) > 0) {
		c->st->lines++;
		len = fk_chomp_cr(line, len);
		rc = t.in ? inside(&t, line, len) : outside(&t, line, len);
		if (rc < 0)
			break;
	}
	if (rc == 0 && t.in && !t.skip)
		fk_bad_line(c, t.start, "input ends inside a bpftrace entry (no ']: COUNT'); dropped");
	if (rc == 0 && t.other_maps)
		fk_note(c, t.other_line,
			"%llu entries of other stack maps skipped (only @%.*s is read)",
			(unsigned long long)t.other_maps, (int)t.map_len, t.map);
	c->st->filtered += t.other_maps;
	fk_stackbuf_free(&t.b);
	return rc;
}

static int probe(const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len;
	int opens = 0, closes = 0, lines = 0;
	bool attaching = false;
	while (s < end && lines < 400) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
		l = fk_chomp_cr(s, l);
		size_t at;
		double cnt;
		lines++;
		if (lines <= 3 && starts(s, l, "Attaching ") && memmem(s, l, " probe", 6))
			attaching = true;
		if (map_open(s, l))
			opens++;
		if (entry_close(s, l, &at, &cnt))
			closes++;
		if (!nl)
			break;
		s = nl + 1;
	}
	if (opens && closes)
		return attaching ? 95 : 85;
	return attaching ? 60 : 0;
}

const fk_format fk_format_bpftrace = {
	.name = "bpftrace",
	.unit = "samples",
	.desc = "bpftrace maps keyed by kstack/ustack: @[kstack, ustack]: COUNT and friends",
	.probe = probe,
	.parse = parse,
};

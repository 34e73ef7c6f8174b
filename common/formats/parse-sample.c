/* parse-sample.c - macOS /usr/bin/sample reports: the "Call graph:" tree, one
 * line per function with its sample count, nesting by indentation, read as
 * FlameGraph's stackcollapse-sample.awk reads it (self counts per path). */
#include "parse-stack.h"

static bool starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);
	return len >= n && !memcmp(s, lit, n);
}

/* Threads blocked in these are waiting, not running: the awk hides the stacks
 * that end in them (with or without the module). */
static const char *const waits[] = {
	"__psynch_cvwait", "__select", "__semwait_signal", "__ulock_wait", "__wait4",
	"__workq_kernreturn", "kevent", "mach_msg_trap", "read", "semaphore_wait_trap",
};

struct level {
	uint32_t name;
	bool set;
	double time;
};

struct sm {
	fk_parse_ctx *c;
	struct level *lv;     /* by nesting depth */
	size_t cap;
	long level;           /* deepest level now held, -1 = none */
	fk_stackbuf b;
};

static bool ignored(struct sm *m, uint32_t id)
{
	size_t len;
	const char *s = fk_profile_name(m->c->p, id, &len);
	const char *bt = memchr(s, '`', len);
	if (bt && (size_t)(bt - s) == 16 && !memcmp(s, "libsystem_kernel", 16)) {
		len -= 17;
		s = bt + 1;
	} else if (bt) {
		return false;
	}
	for (size_t i = 0; i < sizeof(waits) / sizeof(waits[0]); i++)
		if (strlen(waits[i]) == len && !memcmp(waits[i], s, len))
			return true;
	return false;
}

/* The awk's printStack(from, to): each level from..to, deepest first, is a
 * stack (levels 0..l) with that level's own count; all of them are hidden
 * when the deepest one is a wait. The levels are then forgotten. */
static int emit(struct sm *m, long from, long to)
{
	if (from < 0 || to > from)
		return 0;
	bool hide = m->lv[from].set && ignored(m, m->lv[from].name);
	int64_t empty = -1;
	for (long l = from; l >= to; l--) {
		if (!hide) {
			m->b.n = 0;
			for (long i = 0; i <= l; i++) {
				uint32_t id;
				if (m->lv[i].set) {
					id = m->lv[i].name;
				} else {
					/* a level skipped by the indentation: an empty name */
					if (empty < 0 && (empty = fk_profile_intern(m->c->p, "", 0)) < 0)
						return (int)empty;
					id = (uint32_t)empty;
				}
				if (FK_GROW(m->b.ids, m->b.cap, m->b.n + 1))
					return -FK_E_NOMEM;
				m->b.ids[m->b.n++] = id;
			}
			double t = m->lv[l].time;
			if (t > 0) {
				int rc = fk_stackbuf_add(m->c, &m->b, t, NULL);
				if (rc)
					return rc;
			}
		}
		m->lv[l].set = false;
		m->lv[l].time = 0;
	}
	return 0;
}

/* awk's default field splitting: the next run of non-blanks. */
static bool field(const char **p, const char *e, const char **f, size_t *fl)
{
	const char *s = *p;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	const char *b = s;
	while (s < e && *s != ' ' && *s != '\t')
		s++;
	*f = b;
	*fl = (size_t)(s - b);
	*p = s;
	return s > b;
}

static int call_line(struct sm *m, const char *line, size_t len)
{
	fk_parse_ctx *c = m->c;
	/* /^    [^0-9]*[0-9]/: nesting from the position of the first digit */
	size_t d = 4;
	while (d < len && (line[d] < '0' || line[d] > '9'))
		d++;
	if (d == len)
		return 0;
	if ((d - 4) % 2) {
		fk_bad_line(c, c->r->lineno, "call graph line with odd indentation");
		return 0;
	}
	long nest = (long)(d - 4) / 2;
	const char *p = line + d, *e = line + len;
	const char *t, *f1, *f2;
	size_t tl, l1, l2;
	field(&p, e, &t, &tl);
	field(&p, e, &f1, &l1);
	field(&p, e, &f2, &l2);
	double time = 0;
	size_t k = 0;
	while (k < tl && t[k] >= '0' && t[k] <= '9')
		k++;
	fk_parse_count(t, k, &time);
	/* "-[NSObject foo:]" is two words: the awk joins them with '.' */
	char *nm;
	size_t n = l1 + (l2 && !(l2 == 3 && !memcmp(f2, "(in", 3)) ? 1 + l2 : 0);
	const char *mod = memmem(line + d, len - d, "(in ", 4);
	const char *mend = mod ? memchr(mod, ')', (size_t)(e - mod)) : NULL;
	size_t ml = mend ? (size_t)(mend - mod - 4) : 0;
	if (FK_GROW(m->b.text, m->b.text_cap, n + ml + 2))
		return -FK_E_NOMEM;
	nm = m->b.text;
	size_t at = 0;
	if (mend) {
		/* module`function, ".dylib" removed from the module */
		for (size_t i = 0; i < ml; i++) {
			if (ml - i >= 6 && !memcmp(mod + 4 + i, ".dylib", 6)) {
				i += 5;
				continue;
			}
			nm[at++] = mod[4 + i];
		}
		nm[at++] = '`';
	}
	memcpy(nm + at, f1, l1);
	at += l1;
	if (n > l1) {
		nm[at++] = '.';
		memcpy(nm + at, f2, l2);
		at += l2;
	}
	int64_t id = fk_parse_intern(c, nm, at);
	if (id < 0)
		return (int)id;
	if (nest <= m->level) {
		int rc = emit(m, m->level, nest);
		if (rc)
			return rc;
	}
	if ((size_t)nest >= m->cap) {
		size_t old = m->cap;
		if (FK_GROW(m->lv, m->cap, (size_t)nest + 1))
			return -FK_E_NOMEM;
		memset(m->lv + old, 0, (m->cap - old) * sizeof(*m->lv));
	}
	m->lv[nest] = (struct level){ .name = (uint32_t)id, .set = true, .time = time };
	if (nest > 0)
		m->lv[nest - 1].time -= time;
	m->level = nest;
	return 0;
}

static int parse(fk_parse_ctx *c)
{
	struct sm m = { .c = c, .level = -1 };
	const char *line;
	size_t len;
	int rc;
	bool in = false, seen = false;
	while ((rc = fk_reader_line(c->r, &line, &len)) > 0) {
		c->st->lines++;
		len = fk_chomp_cr(line, len);
		if (starts(line, len, "Call graph")) {
			in = seen = true;
		} else if (starts(line, len, "Total number")) {
			if (in && (rc = emit(&m, m.level, 0)))
				break;
			in = false;
			m.level = -1;
		} else if (in && starts(line, len, "    ")) {
			if ((rc = call_line(&m, line, len)))
				break;
		}
	}
	/* a report cut short of its "Total number" line still counts */
	if (rc == 0 && in)
		rc = emit(&m, m.level, 0);
	if (rc == 0 && !seen)
		fk_note(c, 1, "no 'Call graph:' section: not a macOS sample report");
	free(m.lv);
	fk_stackbuf_free(&m.b);
	return rc;
}

static int probe(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *s;
	size_t l;
	int lines = 0, calls = 0;
	bool head = false, graph = false;
	while (lines < 400 && fk_probe_line(&p, end, &s, &l)) {
		lines++;
		if (starts(s, l, "Analysis of sampling "))
			head = true;
		else if (starts(s, l, "Call graph:"))
			graph = true;
		else if (graph && starts(s, l, "    ") && l > 4 && s[4] != ' ')
			calls++;
	}
	if (graph && calls)
		return head ? 95 : 85;
	return head ? 60 : 0;
}

const fk_format fk_format_sample = {
	.name = "sample",
	.desc = "macOS /usr/bin/sample reports: the Call graph tree, self counts per path",
	.probe = probe,
	.parse = parse,
	.unit = "samples",
};

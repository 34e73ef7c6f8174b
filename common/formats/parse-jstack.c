/* parse-jstack.c - Java thread dumps from jstack (any number concatenated), as
 * FlameGraph's stackcollapse-jstack.pl reads them: each RUNNABLE thread's
 * stack is one sample under the thread's name; other states are dropped. */
#include "parse-stack.h"

static bool starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);
	return len >= n && !memcmp(s, lit, n);
}

static bool contains(const char *s, size_t len, const char *lit)
{
	return memmem(s, len, lit, strlen(lit)) != NULL;
}

static bool ends(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);
	return len >= n && !memcmp(s + len - n, lit, n);
}

enum state { UNSET, RUNNABLE, OTHER };

struct js {
	fk_parse_ctx *c;
	fk_stackbuf b;        /* frames leaf first */
	enum state state;
	char tname[256];      /* thread name as the root frame; tname_len 0 = none */
	size_t tname_len;
	bool have_tname;
	int32_t tid;          /* nid=0x... (the native thread id) */
};

/* A blank line ends a thread: its stack counts once if it was RUNNABLE. */
static int end_thread(struct js *t)
{
	fk_parse_ctx *c = t->c;
	int rc = 0;
	if (t->state == RUNNABLE && (t->b.n || t->have_tname)) {
		fk_stackbuf_reverse(&t->b, 0);
		if (t->have_tname) {
			int64_t id = fk_profile_intern(c->p, t->tname, t->tname_len);
			if (id < 0)
				return (int)id;
			if (FK_GROW(t->b.ids, t->b.cap, t->b.n + 1))
				return -FK_E_NOMEM;
			memmove(t->b.ids + 1, t->b.ids, t->b.n * sizeof(*t->b.ids));
			t->b.ids[0] = (uint32_t)id;
			t->b.n++;
		}
		fk_sample_info info = { .time = __builtin_nan(""), .pid = -1, .tid = t->tid, .cpu = -1,
					.comm = t->have_tname ? t->tname : NULL, .comm_len = t->tname_len };
		rc = fk_stackbuf_add(c, &t->b, 1, &info);
	} else if (t->b.n || t->have_tname) {
		c->st->filtered++;
	}
	t->b.n = 0;
	t->have_tname = false;
	t->tname_len = 0;
	t->tid = -1;
	t->state = UNSET;
	return rc;
}

/* '"name" #12 daemon prio=5 ... nid=0x79f0 runnable': name (cut at '"'), with
 * "-N" dropped unless --tid (the perl's --include-tid), the state of the
 * threads known to be background work, and the native id. */
static void thread_line(struct js *t, const char *s, size_t len)
{
	const char *q = memchr(s + 1, '"', len - 1);
	size_t nl = q ? (size_t)(q - s - 1) : len - 1;
	const char *name = s + 1;
	if (contains(name, nl, "Signal Dispatcher") || contains(name, nl, "Service Thread") ||
	    contains(name, nl, "Attach Listener"))
		t->state = OTHER;
	/* perl: /C. CompilerThread/ */
	for (size_t i = 0; i + 17 <= nl; i++)
		if (name[i] == 'C' && !memcmp(name + i + 2, " CompilerThread", 15)) {
			t->state = OTHER;
			break;
		}
	if (!t->c->o->no_comm) {
		size_t keep = nl;
		if (!t->c->o->tid) {
			size_t d = keep;
			while (d && name[d - 1] >= '0' && name[d - 1] <= '9')
				d--;
			if (d < keep && d && name[d - 1] == '-')
				keep = d - 1;
		}
		if (keep > sizeof(t->tname))
			keep = sizeof(t->tname);
		memcpy(t->tname, name, keep);
		t->tname_len = keep;
		t->have_tname = true;
	}
	const char *nid = q ? memmem(q, len - (size_t)(q - s), " nid=0x", 7) : NULL;
	if (nid) {
		int64_t v = 0;
		const char *e = s + len;
		nid += 7;
		while (nid < e && v <= INT32_MAX) {
			char ch = *nid++;
			int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
			if (d < 0)
				break;
			v = v * 16 + d;
		}
		t->tid = v <= INT32_MAX ? (int32_t)v : -1;
	}
}

/* "at pkg.Class.method(File.java:12)": the name up to the first '('. */
static int frame_line(struct js *t, const char *f, size_t fl)
{
	const char *p = memchr(f, '(', fl);
	if (p)
		fl = (size_t)(p - f);
	/* Runnable in name only: blocked in epoll or on a socket. */
	if (contains(f, fl, "epollWait") || contains(f, fl, "EPoll.wait"))
		t->state = OTHER;
	if (ends(f, fl, "socketAccept") || ends(f, fl, "socketRead0"))
		t->state = OTHER;
	if (ends(f, fl, "accept0")) {
		const char *so = memmem(f, fl, "Socket", 6);
		if (so && (size_t)(so - f) + 6 <= fl - 7)
			t->state = OTHER;
	}
	return fk_stackbuf_push(t->c, &t->b, f, fl);
}

/* jstack's lines that carry no stack (perl warns about some of them). */
static bool chatter(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && fk_is_space(s[i]))
		i++;
	const char *f = s + i;
	size_t fl = len - i;
	return fl == 0 || f[0] == '-' || (len >= 5 && s[0] == '2' && s[4] == '-') ||
	       starts(s, len, "Full thread dump") || starts(s, len, "JNI global ref") ||
	       starts(s, len, "Threads class SMR info:") || starts(s, len, "_java_thread_list=") ||
	       starts(f, fl, "0x") || (fl == 1 && f[0] == '}') ||
	       starts(f, fl, "Locked ownable synchronizers:") || starts(f, fl, "Compiling:") ||
	       starts(f, fl, "No compile task") || starts(s, len, "Found ") ||
	       starts(s, len, "Java stack information") || starts(s, len, "=====");
}

static int parse(fk_parse_ctx *c)
{
	struct js t = { .c = c, .tid = -1 };
	const char *line;
	size_t len;
	int rc;
	while ((rc = fk_reader_line(c->r, &line, &len)) > 0) {
		c->st->lines++;
		len = fk_chomp_cr(line, len);
		if (len && line[0] == '#')
			continue;
		if (len == 0) {
			if ((rc = end_thread(&t)))
				break;
			continue;
		}
		size_t i = 0;
		while (i < len && fk_is_space(line[i]))
			i++;
		const char *st;
		if (line[0] == '"') {
			thread_line(&t, line, len);
		} else if ((st = memmem(line, len, "java.lang.Thread.State: ", 24))) {
			if (t.state == UNSET) {
				const char *v = st + 24, *e = line + len;
				size_t vl = 0;
				while (v + vl < e && !fk_is_space(v[vl]))
					vl++;
				t.state = vl == 8 && !memcmp(v, "RUNNABLE", 8) ? RUNNABLE : OTHER;
			}
		} else if (len - i > 3 && !memcmp(line + i, "at ", 3)) {
			if ((rc = frame_line(&t, line + i + 3, len - i - 3)))
				break;
		} else if (!chatter(line, len)) {
			fk_bad_line(c, c->r->lineno, "not a jstack thread, state or 'at' frame line");
		}
	}
	/* A dump cut short of its last blank line still counts its last thread. */
	if (rc == 0)
		rc = end_thread(&t);
	fk_stackbuf_free(&t.b);
	return rc;
}

static int probe(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *s;
	size_t l;
	int threads = 0, states = 0, frames = 0, lines = 0;
	bool dump = false;
	while (lines < 400 && fk_probe_line(&p, end, &s, &l)) {
		lines++;
		size_t i = 0;
		while (i < l && fk_is_space(s[i]))
			i++;
		if (starts(s, l, "Full thread dump "))
			dump = true;
		else if (l > 2 && s[0] == '"' && memchr(s + 1, '"', l - 1))
			threads++;
		else if (memmem(s, l, "java.lang.Thread.State: ", 24))
			states++;
		else if (i && l - i > 3 && !memcmp(s + i, "at ", 3) && memchr(s, '(', l))
			frames++;
	}
	if (threads && states)
		return dump ? 95 : 85;
	return dump ? 60 : 0;
}

const fk_format fk_format_jstack = {
	.name = "jstack",
	.desc = "Java thread dumps (jstack): RUNNABLE threads' stacks under the thread name",
	.probe = probe,
	.parse = parse,
	.unit = "samples",
};

/* parse-gdb.c - GDB `thread apply all bt` output, any number of runs
 * concatenated (the poor man's profiler), read as stackcollapse-gdb.pl does:
 * every backtrace counts 1, frames "#N  0xADDR in func (...)" or "#N  func (...)". */
#include <stdlib.h>
#include "parse-stack.h"

/* A field of the frame line: a run of non-space bytes (may be empty). */
struct span { const char *s; size_t len; };

/* From p, three fields each followed by exactly one ' ', then a fourth
 * (possibly empty) field: fields 1 and 3 go to f1/f3. */
static bool fields_at(const char *line, size_t len, size_t p, struct span *f1, struct span *f3)
{
	struct span f[3];
	for (int k = 0; k < 3; k++) {
		size_t b = p;
		while (p < len && line[p] != ' ')
			p++;
		if (p == len)
			return false;
		f[k] = (struct span){ line + b, p - b };
		p++; /* the single separating space */
	}
	*f1 = f[0];
	*f3 = f[2];
	return true;
}

/* The perl pattern is /^#[0-9]* *([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*)/. Emulate its
 * backtracking order exactly (it decides which word becomes the function on
 * odd lines): the digit run longest first, then the space run longest first.
 * Giving back digits only ever changes where field 1 starts, never where it
 * ends, so one shorter digit run stands for all of them. */
static bool match_frame(const char *line, size_t len, struct span *f1, struct span *f3)
{
	if (!len || line[0] != '#')
		return false;
	size_t d = 1;
	while (d < len && line[d] >= '0' && line[d] <= '9')
		d++;
	size_t sp = d;
	while (sp < len && line[sp] == ' ')
		sp++;
	for (size_t p = sp + 1; p-- > d;)
		if (fields_at(line, len, p, f1, f3))
			return true;
	return d > 1 && fields_at(line, len, d - 1, f1, f3);
}

static bool has_0x(struct span f)
{
	for (size_t i = 0; i + 1 < f.len; i++)
		if (f.s[i] == '0' && f.s[i + 1] == 'x')
			return true;
	return false;
}

static bool starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);
	return len >= n && !memcmp(s, lit, n);
}

/* "Thread 2 (Thread 0x7f.. (LWP 1234) "name"):" -> tid 1234, comm "name". */
static void thread_info(const char *s, size_t len, fk_sample_info *info, char *comm, size_t cap)
{
	info->tid = -1;
	info->comm = NULL;
	info->comm_len = 0;
	const char *lwp = memmem(s, len, "(LWP ", 5);
	if (lwp) {
		long v = 0;
		const char *q = lwp + 5, *end = s + len;
		while (q < end && *q >= '0' && *q <= '9' && v < 100000000)
			v = v * 10 + (*q++ - '0');
		if (q < end && *q == ')')
			info->tid = (int32_t)v;
		const char *o = memchr(q, '"', (size_t)(end - q));
		const char *e = o ? memrchr(o + 1, '"', (size_t)(end - o - 1)) : NULL;
		if (e && (size_t)(e - o - 1) < cap) {
			memcpy(comm, o + 1, (size_t)(e - o - 1));
			info->comm = comm;
			info->comm_len = (size_t)(e - o - 1);
		}
	}
}

/* --full-names: the whole name, spaces and all ("std::function<int (int, int)>::
 * operator()"), up to the argument list: the " (" whose closing parenthesis ends
 * the line or comes before " at " / " from ". fn starts the name; returns its
 * length (fn's own when no argument list is found). */
static size_t full_name(const char *line, size_t len, struct span fn)
{
	const char *end = line + len;
	for (const char *q = fn.s; (q = memmem(q, (size_t)(end - q), " (", 2)); q++) {
		int depth = 0;
		const char *r = q + 1;
		for (; r < end; r++) {
			if (*r == '(')
				depth++;
			else if (*r == ')' && --depth == 0)
				break;
		}
		if (r == end)
			break;
		r++;
		size_t rest = (size_t)(end - r);
		if (!rest || (rest >= 4 && !memcmp(r, " at ", 4)) ||
		    (rest >= 6 && !memcmp(r, " from ", 6)))
			return (size_t)(q - fn.s);
	}
	return fn.len;
}

static int probe(const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len;
	int threads = 0, frames = 0, lines = 0;
	while (s < end && lines < 400) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
		l = fk_chomp_cr(s, l);
		lines++;
		struct span a, b;
		if (starts(s, l, "Thread ") && memchr(s, '(', l))
			threads++;
		else if (l > 3 && s[0] == '#' && s[1] >= '0' && s[1] <= '9' && match_frame(s, l, &a, &b))
			frames++;
		if (!nl)
			break;
		s = nl + 1;
	}
	if (frames && threads)
		return 90;
	return frames >= 2 ? 55 : 0;
}

static int parse(fk_parse_ctx *c)
{
	fk_stackbuf b = { 0 };
	const char *line;
	size_t len;
	int rc;
	char comm[256];
	fk_sample_info info = { .time = __builtin_nan(""), .pid = -1, .tid = -1, .cpu = -1 };
	while ((rc = fk_reader_line(c->r, &line, &len)) > 0) {
		c->st->lines++;
		len = fk_chomp_cr(line, len);
		struct span f1, f3;
		if (starts(line, len, "Thread")) {
			/* The perl script starts over here without counting. */
			b.n = 0;
			thread_info(line, len, &info, comm, sizeof(comm));
		} else if (match_frame(line, len, &f1, &f3)) {
			struct span fn = has_0x(f1) ? f3 : f1;
			if (c->o->full_names && fn.len)
				fn.len = full_name(line, len, fn);
			/* perl keeps its stack as text: an empty name before any
			 * other frame leaves the text empty, i.e. is dropped. */
			if (b.n == 0 && fn.len == 0)
				continue;
			if ((rc = fk_stackbuf_push(c, &b, fn.s, fn.len)))
				break;
		} else if (b.n) {
			fk_stackbuf_reverse(&b, 0);
			if ((rc = fk_stackbuf_add(c, &b, 1, &info)))
				break;
			b.n = 0;
		}
	}
	/* The last backtrace of a file may end at end of input: it counts. */
	if (rc == 0 && b.n) {
		fk_stackbuf_reverse(&b, 0);
		rc = fk_stackbuf_add(c, &b, 1, &info);
	}
	fk_stackbuf_free(&b);
	return rc;
}

const fk_format fk_format_gdb = {
	.name = "gdb",
	.unit = "samples",
	.desc = "GDB 'thread apply all bt' output, any number of runs (poor man's profiler)",
	.probe = probe,
	.parse = parse,
};

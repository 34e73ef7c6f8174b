/* parse-eu-stack.c - elfutils eu-stack output ("PID n - process", "TID n:",
 * "#0  0x00007f... function"), any number of runs concatenated, as
 * FlameGraph's stackcollapse-elfutils.pl reads it: one sample per thread. */
#include <stdio.h>
#include "parse-stack.h"

static bool starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);
	return len >= n && !memcmp(s, lit, n);
}

/* "PID 123" / "TID 123" (perl: /^PID ([0-9]*)/): the number, -1 if none. */
static int32_t id_after(const char *s, size_t len, size_t at)
{
	int64_t v = 0;
	size_t i = at;
	while (i < len && s[i] >= '0' && s[i] <= '9' && v < INT32_MAX)
		v = v * 10 + (s[i++] - '0');
	return i > at && v <= INT32_MAX ? (int32_t)v : -1;
}

/* "#N  0xHEX NAME" (perl: /^#[0-9]* *0x[0-9a-f]* (.*)/): true for a frame
 * line; *name is what follows the address and one blank, or NULL if the line
 * ends at the address (an unresolved frame, "[unknown]"). */
static bool frame_line(const char *s, size_t len, const char **name, size_t *nlen)
{
	if (!len || s[0] != '#')
		return false;
	size_t i = 1;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	while (i < len && s[i] == ' ')
		i++;
	if (len - i < 2 || s[i] != '0' || s[i + 1] != 'x')
		return false;
	i += 2;
	while (i < len && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	if (i < len && s[i] == ' ') {
		*name = s + i + 1;
		*nlen = len - i - 1;
	} else {
		*name = NULL;
		*nlen = 0;
	}
	return true;
}

struct eu {
	fk_parse_ctx *c;
	fk_stackbuf b;       /* frames leaf first */
	int32_t pid, tid;
	bool empty_leaf;     /* perl's text is still "" after an empty leaf name */
};

/* The thread's stack is done: one sample (perl adds a stack whose text is not
 * empty), with PID=/TID= root frames under --pid/--tid as the script's options. */
static int flush(struct eu *e)
{
	fk_parse_ctx *c = e->c;
	fk_stackbuf *b = &e->b;
	int rc = 0;
	e->empty_leaf = false;
	if (!b->n)
		return 0;
	fk_stackbuf_reverse(b, 0);
	char key[32];
	const int32_t ids[2] = { e->pid, e->tid };
	const char *const labels[2] = { "PID", "TID" };
	const bool want[2] = { c->o->pid, c->o->tid };
	size_t at = 0;
	for (int k = 0; k < 2; k++) {
		if (!want[k])
			continue;
		int n = ids[k] >= 0 ? snprintf(key, sizeof(key), "%s=%d", labels[k], (int)ids[k])
				    : snprintf(key, sizeof(key), "%s=", labels[k]);
		int64_t id = fk_profile_intern(c->p, key, (size_t)n);
		if (id < 0)
			return (int)id;
		if (FK_GROW(b->ids, b->cap, b->n + 1))
			return -FK_E_NOMEM;
		memmove(b->ids + at + 1, b->ids + at, (b->n - at) * sizeof(*b->ids));
		b->ids[at++] = (uint32_t)id;
		b->n++;
	}
	fk_sample_info info = { .time = __builtin_nan(""), .pid = e->pid, .tid = e->tid, .cpu = -1 };
	rc = fk_stackbuf_add(c, b, 1, &info);
	b->n = 0;
	return rc;
}

static int parse(fk_parse_ctx *c)
{
	struct eu e = { .c = c, .pid = -1, .tid = -1 };
	const char *line;
	size_t len;
	int rc;
	while ((rc = fk_reader_line(c->r, &line, &len)) > 0) {
		c->st->lines++;
		len = fk_chomp_cr(line, len);
		const char *name;
		size_t nlen;
		if (starts(line, len, "PID ")) {
			if ((rc = flush(&e)))
				break;
			e.pid = id_after(line, len, 4);
		} else if (starts(line, len, "TID ")) {
			if ((rc = flush(&e)))
				break;
			e.tid = id_after(line, len, 4);
		} else if (frame_line(line, len, &name, &nlen)) {
			if (!name) {
				name = "[unknown]";
				nlen = 9;
			}
			/* An empty name as the first frame leaves the perl's text empty:
			 * the frame vanishes. Later empty names are kept (and dropped as
			 * empty names are everywhere). */
			if (!nlen && !e.b.n)
				continue;
			if ((rc = fk_stackbuf_push(c, &e.b, name, nlen)))
				break;
		}
		/* Anything else (eu-stack's own messages, -s source lines, blank
		 * lines) is ignored, as the script does. */
	}
	if (rc == 0)
		rc = flush(&e);
	fk_stackbuf_free(&e.b);
	return rc;
}

static int probe(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *s;
	size_t l;
	int pids = 0, tids = 0, frames = 0, lines = 0;
	while (lines < 400 && fk_probe_line(&p, end, &s, &l)) {
		const char *name;
		size_t nlen;
		lines++;
		if (starts(s, l, "PID ") && id_after(s, l, 4) >= 0)
			pids++;
		else if (starts(s, l, "TID ") && id_after(s, l, 4) >= 0 && s[l - 1] == ':')
			tids++;
		else if (frame_line(s, l, &name, &nlen))
			frames++;
	}
	if (tids && frames)
		return pids ? 95 : 90;
	return 0;
}

const fk_format fk_format_eu_stack = {
	.name = "eu-stack",
	.desc = "elfutils eu-stack output (PID/TID headers, #N 0xADDR function), runs concatenated",
	.probe = probe,
	.parse = parse,
	.unit = "samples",
};

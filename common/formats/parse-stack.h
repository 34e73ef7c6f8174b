/* parse-stack.h - a frame-id buffer shared by the multi-line stack parsers
 * (perf-report, stap, gdb, dtrace, bpftrace). Frames are interned as soon as
 * they are read because the reader may move its buffer between lines. */
#ifndef FK_PARSE_STACK_H
#define FK_PARSE_STACK_H

#include <stdlib.h>
#include "internal.h"

typedef struct fk_stackbuf {
	uint32_t *ids;
	size_t n, cap;
	char *text;          /* scratch for a frame name a parser rewrites */
	size_t text_cap;
} fk_stackbuf;

static inline int fk_stackbuf_push(fk_parse_ctx *c, fk_stackbuf *b, const char *s, size_t len)
{
	int64_t id = fk_parse_intern(c, s, len);
	if (id < 0)
		return (int)id;
	if (FK_GROW(b->ids, b->cap, b->n + 1))
		return -FK_E_NOMEM;
	b->ids[b->n++] = (uint32_t)id;
	return 0;
}

/* Reverse ids[from..n): the text formats list the leaf first, the model
 * wants the root first. */
static inline void fk_stackbuf_reverse(fk_stackbuf *b, size_t from)
{
	if (b->n < 2 || from >= b->n - 1)
		return;
	for (size_t i = from, j = b->n - 1; i < j; i++, j--) {
		uint32_t t = b->ids[i];
		b->ids[i] = b->ids[j];
		b->ids[j] = t;
	}
}

/* Add the buffered stack (root first) with a weight; one accepted sample. */
static inline int fk_stackbuf_add(fk_parse_ctx *c, const fk_stackbuf *b, double count,
				  const fk_sample_info *info)
{
	int64_t node = fk_profile_add_sample(c->p, b->ids, b->n, 0, count, info);
	if (node < 0)
		return (int)node;
	c->st->samples++;
	return 0;
}

static inline void fk_stackbuf_free(fk_stackbuf *b)
{
	free(b->ids);
	free(b->text);
	b->ids = NULL;
	b->text = NULL;
	b->n = b->cap = b->text_cap = 0;
}

/* Trailing '\r' of CRLF input is never part of a frame or a count. */
static inline size_t fk_chomp_cr(const char *s, size_t len)
{
	return len && s[len - 1] == '\r' ? len - 1 : len;
}

/* A probe's walk over the first lines of a buffer: the line at *p (before end) into line and
 * len (without its "\n" or "\r\n"), *p past it; false at the end. */
static inline bool fk_probe_line(const char **p, const char *end, const char **line, size_t *len)
{
	if (*p >= end)
		return false;
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	*line = *p;
	*len = fk_chomp_cr(*p, nl ? (size_t)(nl - *p) : (size_t)(end - *p));
	*p = nl ? nl + 1 : end;
	return true;
}

/* True if [s, s+len) is optional blanks then one or more ASCII digits: the
 * count line of the stap and dtrace formats (perl's /^\s*(\d+)+$/). */
static inline bool fk_is_count_line(const char *s, size_t len, double *count)
{
	size_t i = 0;
	while (i < len && (fk_is_space(s[i]) || s[i] == '\n'))
		i++;
	if (i == len)
		return false;
	for (size_t k = i; k < len; k++)
		if (s[k] < '0' || s[k] > '9')
			return false;
	return fk_parse_count(s + i, len - i, count) == 0;
}

static inline bool fk_is_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!fk_is_space(s[i]))
			return false;
	return true;
}

/* The "frames, leaf first, then a count line" loop of stap and dtrace
 * (parse-stap.c). frame() pushes the frame(s) of one frame line (leading
 * blanks removed, never empty) onto b, leaf first like the lines: 0 or a
 * negative error. The first header_lines lines are skipped while is_header()
 * says they are probe chatter. */
typedef int (*fk_frame_fn)(fk_parse_ctx *c, fk_stackbuf *b, const char *s, size_t len);
FK_HIDDEN int fk_parse_leaf_first(fk_parse_ctx *c, fk_frame_fn frame, unsigned header_lines,
				  bool (*is_header)(const char *s, size_t len));

#endif

/* out.h - the one output and escaping layer of the core: a buffered writer, the
 * XML/HTML escaper, the JS/JSON string escaper and the UTF-8 decoder. Frame names are
 * untrusted; every writer (folded, samples, SVG, heat map, HTML) keeps them inert here. */
#ifndef FK_OUT_H
#define FK_OUT_H

#include <stdio.h>
#include "internal.h"

/* ---- buffered output (errors are sticky in err; fk_obuf_finish reports them) */
typedef struct fk_obuf {
	FILE *out;         /* NULL: into memory (fk_obuf_init_mem) */
	int fd;            /* out's descriptor, written straight (-1: through out's stdio) */
	char *buf;
	size_t len, cap;
	uint64_t flushed;  /* bytes handed to out so far (fk_obuf_tell) */
	int err;           /* first error (sticky): -FK_E_WRITE or -FK_E_NOMEM */
} fk_obuf;

FK_HIDDEN int fk_obuf_init(fk_obuf *b, FILE *out);
/* Into memory: the buffer (cap bytes at first) grows to hold all that is put; b->buf,
 * b->len are the text. fk_obuf_free ends it. */
FK_HIDDEN int fk_obuf_init_mem(fk_obuf *b, size_t cap);
FK_HIDDEN int fk_obuf_finish(fk_obuf *b);  /* flush + free; returns b->err */
/* Free without writing what is buffered (an error path); safe after fk_obuf_finish. */
FK_HIDDEN void fk_obuf_free(fk_obuf *b);
FK_HIDDEN void fk_obuf_flush(fk_obuf *b);
/* Bytes written through b so far (flushed or not). */
static inline uint64_t fk_obuf_tell(const fk_obuf *b) { return b->flushed + b->len; }
FK_HIDDEN void fk_obuf_put_slow(fk_obuf *b, const char *s, size_t n);
struct iovec;
/* n pieces put in order: where b writes to a descriptor and they fill its buffer or more,
 * what it holds and they go out in one writev, not copied; else copied in. */
FK_HIDDEN void fk_obuf_putv(fk_obuf *b, const struct iovec *v, int n);
/* (inline: the SVG and HTML writers put a dozen short pieces a frame; a call and a
 * library memcpy each were a fifth of writing an SVG) */
static inline void fk_obuf_put(fk_obuf *b, const char *s, size_t n)
{
	if (__builtin_expect(b->cap - b->len >= n, 1)) {
		memcpy(b->buf + b->len, s, n);
		b->len += n;
	} else {
		fk_obuf_put_slow(b, s, n);
	}
}
static inline void fk_obuf_puts(fk_obuf *b, const char *s) { fk_obuf_put(b, s, strlen(s)); }
FK_HIDDEN void fk_obuf_printf(fk_obuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Number with one decimal (x, width). */
FK_HIDDEN void fk_obuf_fixed1(fk_obuf *b, double v);
/* Number with two decimals, as printf's "%.2f" (its text, rounding and sign). */
FK_HIDDEN void fk_obuf_fixed2(fk_obuf *b, double v);
/* An unsigned integer in decimal. */
FK_HIDDEN void fk_obuf_u64(fk_obuf *b, uint64_t u);
/* Number with up to two decimals, trailing zeros removed. */
FK_HIDDEN void fk_obuf_num(fk_obuf *b, double v);
/* Shortest text that reads back as the same double (JS data). */
FK_HIDDEN void fk_obuf_exact(fk_obuf *b, double v);
/* " V0[ V1 ...]\n": the counts that end a folded line, n of them. */
FK_HIDDEN void fk_obuf_counts(fk_obuf *b, const double *v, unsigned n);
/* XML text/attribute content: escapes & < > " ', replaces invalid UTF-8 and
 * characters XML forbids with U+FFFD. */
FK_HIDDEN void fk_obuf_xml(fk_obuf *b, const char *s, size_t n);
/* Same, truncated to `chars` columns with "..": keep the start (left =
 * false) or the end (left = true); cuts only between characters (code
 * points), wide East Asian characters count two columns. chars >= 3. */
FK_HIDDEN void fk_obuf_xml_trunc(fk_obuf *b, const char *s, size_t n, size_t chars, bool left);
/* A JavaScript string literal with quotes, which is also a JSON string: < > &,
 * controls, U+2028/9 and invalid UTF-8 (as U+FFFD) are written as \uXXXX, so it can
 * end neither a CDATA section nor an HTML script element, nor open a comment. */
FK_HIDDEN void fk_obuf_js(fk_obuf *b, const char *s, size_t n);
/* An XML comment body: "--" is broken up, invalid UTF-8 replaced. */
FK_HIDDEN void fk_obuf_comment(fk_obuf *b, const char *s, size_t n);
/* Text inside a Markdown (CommonMark/GFM) table cell: ASCII punctuation that could open
 * markup or end the cell gets a backslash, & < > are entities (no raw HTML), controls and
 * invalid UTF-8 become U+FFFD. */
FK_HIDDEN void fk_obuf_md(fk_obuf *b, const char *s, size_t n);

/* Decode one UTF-8 character: returns bytes consumed (>= 1); *cp = U+FFFD for
 * an invalid sequence (one byte consumed). */
FK_HIDDEN size_t fk_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);
/* Columns of a character in a label: 2 for East Asian wide, else 1. */
FK_HIDDEN int fk_char_columns(uint32_t cp);
/* Is [s, s+n) valid UTF-8 (no overlong forms, surrogates or values past U+10FFFF)? */
FK_HIDDEN bool fk_utf8_valid(const unsigned char *s, size_t n);
/* Number of characters as counted by fk_utf8_next. */
FK_HIDDEN size_t fk_utf8_count(const char *s, size_t n);

#endif /* FK_OUT_H */

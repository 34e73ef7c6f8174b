/* out.c - the buffered writer and the escaping that keeps untrusted frame names inert
 * in XML/HTML text, attributes, comments, and JS/JSON strings (see out.h). */
#include <math.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/uio.h>
#include <unistd.h>
#include "base/out.h"

#define OBUF_CAP (256u << 10)

/* A FILE with a descriptor (not a memory or cookie stream) is written with write(), past
 * its stdio buffer, once what that held is flushed: stdio put a 256 KiB block out as 4 KiB
 * to fill its buffer, then 252 KiB, and the page cache took the pieces in small folios (a
 * 7.8 MB SVG: the writes 1.5 ms, against 1.2 in whole blocks; the old file's removal when
 * the next drawing replaced it 0.4 ms against 0.3). The stream is left as it was, empty. */
static int direct_fd(FILE *out)
{
	int fd = out ? fileno(out) : -1;
	return fd >= 0 && fflush(out) == 0 ? fd : -1;
}

/* iov[0..m) out to the descriptor, whole, across interruptions and short writes (on
 * from where a write stopped); false on an error. */
static bool write_all(int fd, struct iovec *iov, int m)
{
	for (int at = 0;;) {
		while (at < m && !iov[at].iov_len)
			at++;
		if (at == m)
			return true;
		ssize_t w = writev(fd, iov + at, m - at);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		while (at < m && (size_t)w >= iov[at].iov_len)
			w -= (ssize_t)iov[at++].iov_len;
		if (at < m) {
			iov[at].iov_base = (char *)iov[at].iov_base + w;
			iov[at].iov_len -= (size_t)w;
		}
	}
}

/* n bytes out (through stdio, or straight to the descriptor); false on an error. */
static bool write_out(fk_obuf *b, const char *s, size_t n)
{
	if (b->fd < 0)
		return fwrite(s, 1, n, b->out) == n;
	struct iovec v = { (void *)s, n };
	return write_all(b->fd, &v, 1);
}

int fk_obuf_init(fk_obuf *b, FILE *out)
{
	b->out = out;
	b->fd = direct_fd(out);
	b->len = 0;
	b->cap = OBUF_CAP;
	b->flushed = 0;
	b->err = 0;
	b->buf = malloc(b->cap);
	return b->buf ? 0 : -FK_E_NOMEM;
}

int fk_obuf_init_mem(fk_obuf *b, size_t cap)
{
	memset(b, 0, sizeof(*b));
	b->fd = -1;
	b->cap = cap > OBUF_CAP ? cap : OBUF_CAP;
	b->buf = malloc(b->cap);
	return b->buf ? 0 : -FK_E_NOMEM;
}

void fk_obuf_flush(fk_obuf *b)
{
	if (!b->out) {
		/* into memory: room for as much again (the text stays) */
		char *nb = b->err ? NULL : realloc(b->buf, 2 * b->cap);
		if (nb) {
			b->buf = nb;
			b->cap *= 2;
		} else {
			b->err = -FK_E_NOMEM;
			b->len = 0; /* (what is put from now on is dropped; the error says so) */
		}
		return;
	}
	if (b->len && !b->err && !write_out(b, b->buf, b->len))
		b->err = -FK_E_WRITE;
	b->flushed += b->len;
	b->len = 0;
}

int fk_obuf_finish(fk_obuf *b)
{
	fk_obuf_flush(b);
	if (!b->err && (fflush(b->out) != 0 || ferror(b->out)))
		b->err = -FK_E_WRITE;
	free(b->buf);
	b->buf = NULL;
	return b->err;
}

void fk_obuf_free(fk_obuf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = 0;
}

/* Room for n more bytes (n <= cap). */
static inline char *reserve(fk_obuf *b, size_t n)
{
	if (b->cap - b->len < n)
		fk_obuf_flush(b);
	return b->buf + b->len;
}

void fk_obuf_put_slow(fk_obuf *b, const char *s, size_t n)
{
	if (b->out && n >= b->cap) {
		/* a whole block or more (another writer's text): past the buffer */
		fk_obuf_flush(b);
		if (!b->err && !write_out(b, s, n))
			b->err = -FK_E_WRITE;
		b->flushed += n;
		return;
	}
	while (n) {
		if (b->len == b->cap)
			fk_obuf_flush(b);
		size_t k = b->cap - b->len;
		if (k > n)
			k = n;
		memcpy(b->buf + b->len, s, k);
		b->len += k;
		s += k;
		n -= k;
	}
}

void fk_obuf_putv(fk_obuf *b, const struct iovec *v, int n)
{
	enum { MAXV = 64 };
	size_t total = 0;
	for (int k = 0; k < n; k++)
		total += v[k].iov_len;
	if (b->fd < 0 || b->err || n >= MAXV || b->len + total < b->cap) {
		for (int k = 0; k < n; k++)
			fk_obuf_put(b, v[k].iov_base, v[k].iov_len);
		return;
	}
	struct iovec iov[MAXV];
	int m = 0;
	iov[m++] = (struct iovec){ b->buf, b->len };
	for (int k = 0; k < n; k++)
		iov[m++] = v[k];
	b->flushed += b->len + total;
	b->len = 0;
	if (!write_all(b->fd, iov, m))
		b->err = -FK_E_WRITE;
}

static inline void putc1(fk_obuf *b, char c)
{
	if (b->len == b->cap)
		fk_obuf_flush(b);
	b->buf[b->len++] = c;
}

void fk_obuf_printf(fk_obuf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(tmp)) {
		fk_obuf_put(b, tmp, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big) {
		b->err = -FK_E_NOMEM;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	fk_obuf_put(b, big, (size_t)n);
	free(big);
}

/* Integers print without a decimal point; values are rounded to `dec`
 * decimals first (dec 1 or 2) so "%.1f"-style output is reproduced. */
static void put_decimal(fk_obuf *b, double v, int dec, bool trim)
{
	double scale = dec == 1 ? 10.0 : 100.0;
	if (!isfinite(v) || fabs(v) > 1e15) {
		fk_obuf_printf(b, "%.*f", dec, isfinite(v) ? v : 0.0);
		return;
	}
	long long t = llround(v * scale);
	char tmp[40];
	char *e = tmp + sizeof(tmp), *p = e;
	bool neg = t < 0;
	unsigned long long u = neg ? (unsigned long long)(-t) : (unsigned long long)t;
	unsigned frac = (unsigned)(u % (unsigned long long)scale);
	u /= (unsigned long long)scale;
	if (dec == 2) {
		if (!(trim && frac == 0)) {
			if (trim && frac % 10 == 0) {
				*--p = (char)('0' + frac / 10);
			} else {
				*--p = (char)('0' + frac % 10);
				*--p = (char)('0' + frac / 10);
			}
			*--p = '.';
		}
	} else if (!(trim && frac == 0)) {
		*--p = (char)('0' + frac);
		*--p = '.';
	}
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (neg && (t != 0))
		*--p = '-';
	fk_obuf_put(b, p, (size_t)(e - p));
}

void fk_obuf_fixed1(fk_obuf *b, double v) { put_decimal(b, v, 1, false); }

void fk_obuf_fixed2(fk_obuf *b, double v)
{
	double t = fabs(v) * 100;
	/* printf rounds the exact value; v * 100, rounded once, rounds the same way (put_decimal)
	 * unless it lies within a hair of a half */
	if (!(t < 1e15) || fabs(t - floor(t) - 0.5) < 1e-6)
		fk_obuf_printf(b, "%.2f", v);
	else if (signbit(v) && t < 0.5)
		fk_obuf_puts(b, "-0.00"); /* (printf keeps the sign of what rounds to 0) */
	else
		put_decimal(b, v, 2, false);
}

void fk_obuf_u64(fk_obuf *b, uint64_t u)
{
	char tmp[20];
	fk_obuf_put(b, tmp, fk_dec_u64(tmp, u));
}
void fk_obuf_num(fk_obuf *b, double v) { put_decimal(b, v, 2, true); }

void fk_obuf_exact(fk_obuf *b, double v)
{
	char tmp[40];
	int n = fk_format_count(tmp, sizeof(tmp), v);
	if (n > 0)
		fk_obuf_put(b, tmp, (size_t)n);
}

void fk_obuf_counts(fk_obuf *b, const double *v, unsigned n)
{
	char num[64];
	for (unsigned c = 0; c < n; c++) {
		num[0] = ' ';
		int k = fk_format_count(num + 1, sizeof(num) - 1, v[c]);
		fk_obuf_put(b, num, (size_t)k + 1);
	}
	fk_obuf_put(b, "\n", 1);
}

size_t fk_utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t need;
	uint32_t v, min;
	if (c >= 0xc2 && c <= 0xdf) {
		need = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4, v = c & 0x07, min = 0x10000;
	} else {
		*cp = 0xfffd;
		return 1;
	}
	if (n < need) {
		*cp = 0xfffd;
		return 1;
	}
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80) {
			*cp = 0xfffd;
			return 1;
		}
		v = (v << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, UTF-16 surrogates and values past U+10FFFF are invalid */
	if (v < min || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff) {
		*cp = 0xfffd;
		return 1;
	}
	*cp = v;
	return need;
}

bool fk_utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		/* eight ASCII bytes at a time: most names are ASCII */
		while (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (w & 0x8080808080808080ULL)
				break;
			i += 8;
		}
		if (i >= n)
			break;
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		uint32_t cp;
		size_t k = fk_utf8_next(s + i, n - i, &cp);
		if (k == 1)
			return false; /* a byte >= 0x80 alone is never valid */
		i += k;
	}
	return true;
}

size_t fk_utf8_count(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t count = 0;
	uint32_t cp;
	for (size_t i = 0; i < n; count++) {
		if (p[i] < 0x80)
			i++;
		else
			i += fk_utf8_next(p + i, n - i, &cp);
	}
	return count;
}

static const char REPLACEMENT[] = "\xef\xbf\xbd";

/* One decoded character as XML content. `raw` points at its original bytes. */
static inline void xml_char(fk_obuf *b, uint32_t cp, const unsigned char *raw, size_t len)
{
	switch (cp) {
	case '&': fk_obuf_put(b, "&amp;", 5); return;
	case '<': fk_obuf_put(b, "&lt;", 4); return;
	case '>': fk_obuf_put(b, "&gt;", 4); return;
	case '"': fk_obuf_put(b, "&quot;", 6); return;
	case '\'': fk_obuf_put(b, "&#39;", 5); return;
	case '\t': fk_obuf_put(b, "&#9;", 4); return;
	case '\n': fk_obuf_put(b, "&#10;", 5); return;
	case '\r': fk_obuf_put(b, "&#13;", 5); return;
	default: break;
	}
	/* XML 1.0 forbids the other C0 controls and U+FFFE/U+FFFF, even as
	 * character references. */
	if (cp < 0x20 || cp == 0xfffe || cp == 0xffff || (cp == 0xfffd && len != 3)) {
		fk_obuf_put(b, REPLACEMENT, 3);
		return;
	}
	fk_obuf_put(b, (const char *)raw, len);
}

static inline bool xml_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '&' && c != '<' && c != '>' && c != '"' && c != '\'';
}

static inline bool js_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&';
}

/* Where the run of bytes plain() takes from s[i] stops. Names are long (C++ templates,
 * Java packages): the XML and JS runs are scanned 16 bytes at a time, with exactly
 * their plain()'s test: a byte below 0x20 or above 0x7f (signed: below 0x20 too), or
 * one of five characters. */
#ifdef __SSE2__
#include <emmintrin.h>
static inline size_t plain_run16(const char *s, size_t i, size_t n, char c1, char c2, char c3,
				 char c4, char c5)
{
	const __m128i lo = _mm_set1_epi8(0x20), k1 = _mm_set1_epi8(c1), k2 = _mm_set1_epi8(c2),
		      k3 = _mm_set1_epi8(c3), k4 = _mm_set1_epi8(c4), k5 = _mm_set1_epi8(c5);
	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i m = _mm_or_si128(_mm_cmplt_epi8(v, lo),
					 _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, k1), _mm_cmpeq_epi8(v, k2)),
						      _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, k3),
										_mm_cmpeq_epi8(v, k4)),
								   _mm_cmpeq_epi8(v, k5))));
		unsigned bits = (unsigned)_mm_movemask_epi8(m);
		if (bits)
			return i + (size_t)__builtin_ctz(bits);
	}
	return i;
}
#define XML_RUN(s, i, n) plain_run16(s, i, n, '&', '<', '>', '"', '\'')
#define JS_RUN(s, i, n) plain_run16(s, i, n, '"', '\\', '<', '>', '&')
#else
#define XML_RUN(s, i, n) (i)
#define JS_RUN(s, i, n) (i)
#endif

/* The escapers copy the longest run of bytes that need nothing at once: from s[i] (the
 * first `from` of them known plain), those plain() takes; where the run stops. */
static inline size_t put_plain(fk_obuf *b, const char *s, size_t i, size_t from, size_t n,
			       bool (*plain)(unsigned char c))
{
	size_t j = from;
	while (j < n && plain((unsigned char)s[j]))
		j++;
	if (j > i)
		fk_obuf_put(b, s + i, j - i);
	return j;
}

void fk_obuf_xml(fk_obuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		if ((i = put_plain(b, s, i, XML_RUN(s, i, n), n, xml_plain)) == n)
			break;
		uint32_t cp;
		size_t k = fk_utf8_next(p + i, n - i, &cp);
		xml_char(b, cp, p + i, k);
		i += k;
	}
}

/* Columns a character takes: East Asian wide and fullwidth characters are
 * drawn about twice as wide as the average character the label width
 * estimate is based on. The script's label() uses the same ranges. */
int fk_char_columns(uint32_t cp)
{
	if (cp < 0x1100)
		return 1;
	if ((cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf && cp != 0x303f) ||
	    (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
	    (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
	    (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
	    (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd))
		return 2;
	return 1;
}

void fk_obuf_xml_trunc(fk_obuf *b, const char *s, size_t n, size_t chars, bool left)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t cols = 0;
	for (size_t i = 0; i < n && cols <= chars;) {
		i += fk_utf8_next(p + i, n - i, &cp);
		cols += (size_t)fk_char_columns(cp);
	}
	if (cols <= chars) {
		fk_obuf_xml(b, s, n);
		return;
	}
	/* cut only between characters: never inside a UTF-8 sequence */
	size_t keep = chars >= 2 ? chars - 2 : 0, used = 0;
	if (!left) {
		size_t i = 0;
		while (i < n) {
			size_t k = fk_utf8_next(p + i, n - i, &cp);
			size_t w = (size_t)fk_char_columns(cp);
			if (used + w > keep)
				break;
			used += w;
			i += k;
		}
		fk_obuf_xml(b, s, i);
		fk_obuf_put(b, "..", 2);
		return;
	}
	/* from the end: step back over continuation bytes to a character start */
	size_t i = n;
	while (i > 0) {
		size_t st = i - 1;
		while (st > 0 && (p[st] & 0xc0) == 0x80 && i - st < 4)
			st--;
		size_t k = fk_utf8_next(p + st, n - st, &cp);
		if (st + k != i) {
			/* not a whole sequence ending at i: one invalid byte */
			st = i - 1;
			cp = 0xfffd;
		}
		size_t w = (size_t)fk_char_columns(cp);
		if (used + w > keep)
			break;
		used += w;
		i = st;
	}
	fk_obuf_put(b, "..", 2);
	fk_obuf_xml(b, s + i, n - i);
}

void fk_obuf_js(fk_obuf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	putc1(b, '"');
	size_t i = 0;
	while (i < n) {
		if ((i = put_plain(b, s, i, JS_RUN(s, i, n), n, js_plain)) == n)
			break;
		uint32_t cp;
		size_t k = fk_utf8_next(p + i, n - i, &cp);
		if (cp == '"') {
			fk_obuf_put(b, "\\\"", 2);
		} else if (cp == '\\') {
			fk_obuf_put(b, "\\\\", 2);
		} else if (cp < 0x20 || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 ||
			   cp == 0x2029 || cp == 0xfffe || cp == 0xffff || cp == 0xfffd) {
			char *o = reserve(b, 6);
			o[0] = '\\', o[1] = 'u';
			o[2] = hex[(cp >> 12) & 15], o[3] = hex[(cp >> 8) & 15];
			o[4] = hex[(cp >> 4) & 15], o[5] = hex[cp & 15];
			b->len += 6;
		} else {
			fk_obuf_put(b, s + i, k);
		}
		i += k;
	}
	putc1(b, '"');
}

void fk_obuf_comment(fk_obuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	bool dash = false;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = fk_utf8_next(p + i, n - i, &cp);
		if (cp == '-' && dash)
			putc1(b, ' '); /* "--" may not appear in a comment */
		dash = cp == '-';
		if (cp == '-' || cp == '<' || cp == '>' || cp == '&')
			putc1(b, (char)cp); /* plain characters inside a comment */
		else if (cp == '\n' || cp == '\t')
			putc1(b, (char)cp);
		else if (cp < 0x20 || cp == 0xfffe || cp == 0xffff || (cp == 0xfffd && k != 3))
			fk_obuf_put(b, REPLACEMENT, 3);
		else
			fk_obuf_put(b, s + i, k);
		i += k;
	}
	if (dash)
		putc1(b, ' '); /* a comment may not end with "-" before "-->" */
}

static inline bool md_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && (c == ' ' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
					 (c >= 'A' && c <= 'Z') || c == ':' || c == ',' ||
					 c == ';' || c == '=' || c == '@' || c == '%' || c == '?' ||
					 c == '$' || c == '"' || c == '\'' || c == '^');
}

void fk_obuf_md(fk_obuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		if ((i = put_plain(b, s, i, i, n, md_plain)) == n)
			break;
		uint32_t cp;
		size_t k = fk_utf8_next(p + i, n - i, &cp);
		if (cp == '&')
			fk_obuf_put(b, "&amp;", 5);
		else if (cp == '<')
			fk_obuf_put(b, "&lt;", 4);
		else if (cp == '>')
			fk_obuf_put(b, "&gt;", 4);
		else if (cp < 0x80 && cp > 0x20 && cp != 0x7f) {
			/* ASCII punctuation: CommonMark takes a backslash before any of it as the
			 * character itself (| would end a table cell, * _ ` [ emphasis, code, links) */
			char e[2] = { '\\', (char)cp };
			fk_obuf_put(b, e, 2);
		} else if (cp < 0x20 || cp == 0x7f || cp == 0xfffe || cp == 0xffff || cp == 0x2028 ||
			   cp == 0x2029 || (cp == 0xfffd && k != 3))
			fk_obuf_put(b, REPLACEMENT, 3);
		else
			fk_obuf_put(b, s + i, k);
		i += k;
	}
}

/* fuzz-check.h - cheap checks of what the writers produce, run by the fuzz targets
 * and the corpus replay on every output they render: a minimal JSON scanner, an
 * XML scanner for the SVG and an HTML scanner for the pages. Each returns NULL when
 * the text is sound, else what is wrong (and *at, the byte offset). They check the
 * shape, which is what escaping keeps: no raw '<' or bare '&' in text or attribute
 * values, quotes closed, elements balanced, raw text (script, style, CDATA,
 * comments) that cannot end early, JSON data that parses, no control characters
 * or invalid UTF-8. (Whether a name such as "&lt;" was written as itself cannot
 * be told from the text alone: another name "<" escaped gives the same bytes.) */
#ifndef FK_FUZZ_CHECK_H
#define FK_FUZZ_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* ---- UTF-8: valid, no overlong forms, no surrogates, <= U+10FFFF. Returns the
 * bytes of the character at s (0 = invalid) and the code point. */
static size_t fk_check_utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned c = s[0];
	size_t k;
	uint32_t v, min;
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if ((c & 0xe0) == 0xc0)
		k = 2, v = c & 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		k = 3, v = c & 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		k = 4, v = c & 0x07, min = 0x10000;
	else
		return 0;
	if (k > n)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return k;
}

/* The whole text is UTF-8 and has no control characters but tab, LF and CR (what
 * XML allows; the pages hold the same rule). */
static const char *fk_check_text(const char *s, size_t n, size_t *at)
{
	const unsigned char *u = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		/* eight bytes at once while all are printable ASCII (a byte below 0x20
		 * or above 0x7f sets its top bit here: then one character at a time) */
		uint64_t w;
		while (i + 8 <= n && (memcpy(&w, u + i, 8),
				      !((w | (w - 0x2020202020202020ULL)) & 0x8080808080808080ULL)))
			i += 8;
		if (i >= n)
			break;
		uint32_t cp;
		size_t k = fk_check_utf8(u + i, n - i, &cp);
		if (!k) {
			*at = i;
			return "invalid UTF-8";
		}
		if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') ||
		    cp == 0xfffe || cp == 0xffff) {
			*at = i;
			return "control character";
		}
		i += k;
	}
	return NULL;
}

/* ---- JSON (RFC 8259): one value, whitespace around it */
typedef struct fk_jscan {
	const char *s;
	size_t n, i;
	const char *err;
} fk_jscan;

static void fk_jws(fk_jscan *j)
{
	while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' ||
			       j->s[j->i] == '\r'))
		j->i++;
}

static bool fk_jfail(fk_jscan *j, const char *why)
{
	if (!j->err)
		j->err = why;
	return false;
}

static bool fk_jstring(fk_jscan *j)
{
	const unsigned char *u = (const unsigned char *)j->s;
	j->i++; /* the opening quote */
	while (j->i < j->n) {
		unsigned char c = u[j->i];
		if (c == '"') {
			j->i++;
			return true;
		}
		if (c < 0x20)
			return fk_jfail(j, "JSON: raw control character in a string");
		if (c == '\\') {
			if (j->i + 1 >= j->n)
				break;
			char e = j->s[j->i + 1];
			if (e == 'u') {
				if (j->i + 6 > j->n)
					break;
				for (int k = 2; k < 6; k++)
					if (!strchr("0123456789abcdefABCDEF", j->s[j->i + k]) || !j->s[j->i + k])
						return fk_jfail(j, "JSON: bad \\u escape");
				j->i += 6;
			} else if (e && strchr("\"\\/bfnrt", e)) {
				j->i += 2;
			} else {
				return fk_jfail(j, "JSON: bad escape");
			}
			continue;
		}
		uint32_t cp;
		size_t k = fk_check_utf8(u + j->i, j->n - j->i, &cp);
		if (!k)
			return fk_jfail(j, "JSON: invalid UTF-8 in a string");
		j->i += k;
	}
	return fk_jfail(j, "JSON: unterminated string");
}

static bool fk_jdigits(fk_jscan *j)
{
	size_t b = j->i;
	while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9')
		j->i++;
	return j->i > b;
}

static bool fk_jnumber(fk_jscan *j)
{
	if (j->s[j->i] == '-')
		j->i++;
	if (j->i < j->n && j->s[j->i] == '0')
		j->i++;
	else if (!fk_jdigits(j))
		return fk_jfail(j, "JSON: bad number");
	if (j->i < j->n && j->s[j->i] == '.') {
		j->i++;
		if (!fk_jdigits(j))
			return fk_jfail(j, "JSON: bad fraction");
	}
	if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
		j->i++;
		if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-'))
			j->i++;
		if (!fk_jdigits(j))
			return fk_jfail(j, "JSON: bad exponent");
	}
	return true;
}

static bool fk_jvalue(fk_jscan *j, int depth)
{
	if (depth > 512)
		return fk_jfail(j, "JSON: nested too deep");
	fk_jws(j);
	if (j->i >= j->n)
		return fk_jfail(j, "JSON: value expected");
	char c = j->s[j->i];
	if (c == '{' || c == '[') {
		char close = c == '{' ? '}' : ']';
		j->i++;
		fk_jws(j);
		if (j->i < j->n && j->s[j->i] == close) {
			j->i++;
			return true;
		}
		for (;;) {
			if (c == '{') {
				fk_jws(j);
				if (j->i >= j->n || j->s[j->i] != '"')
					return fk_jfail(j, "JSON: key expected");
				if (!fk_jstring(j))
					return false;
				fk_jws(j);
				if (j->i >= j->n || j->s[j->i] != ':')
					return fk_jfail(j, "JSON: ':' expected");
				j->i++;
			}
			if (!fk_jvalue(j, depth + 1))
				return false;
			fk_jws(j);
			if (j->i < j->n && j->s[j->i] == ',') {
				j->i++;
				continue;
			}
			if (j->i < j->n && j->s[j->i] == close) {
				j->i++;
				return true;
			}
			return fk_jfail(j, "JSON: ',' or end of list expected");
		}
	}
	if (c == '"')
		return fk_jstring(j);
	if (c == '-' || (c >= '0' && c <= '9'))
		return fk_jnumber(j);
	static const char *const words[] = { "true", "false", "null" };
	for (int k = 0; k < 3; k++) {
		size_t l = strlen(words[k]);
		if (j->n - j->i >= l && !memcmp(j->s + j->i, words[k], l)) {
			j->i += l;
			return true;
		}
	}
	return fk_jfail(j, "JSON: value expected (NaN or Infinity?)");
}

static const char *fk_check_json(const char *s, size_t n, size_t *at)
{
	fk_jscan j = { s, n, 0, NULL };
	if (fk_jvalue(&j, 0)) {
		fk_jws(&j);
		if (j.i != n)
			j.err = "JSON: text after the value";
	}
	*at = j.i;
	return j.err;
}

/* ---- markup (XML for the SVG; HTML for the pages) */
typedef struct fk_mscan {
	const char *s;
	size_t n, i;
	bool html;
	const char *stack[64]; /* open elements (not void ones): name and length */
	size_t slen[64];
	unsigned depth;
	const char *err;
} fk_mscan;

static bool fk_mfail(fk_mscan *m, const char *why)
{
	if (!m->err)
		m->err = why;
	return false;
}

static bool fk_mis_name(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && ((c >= '0' && c <= '9') || c == '-' || c == '.'));
}

static size_t fk_mname(fk_mscan *m)
{
	size_t b = m->i;
	if (m->i < m->n && fk_mis_name(m->s[m->i], true))
		m->i++;
	else
		return 0;
	while (m->i < m->n && fk_mis_name(m->s[m->i], false))
		m->i++;
	return m->i - b;
}

static bool fk_mspace(fk_mscan *m)
{
	size_t b = m->i;
	while (m->i < m->n && strchr(" \t\r\n", m->s[m->i]) && m->s[m->i])
		m->i++;
	return m->i > b;
}

/* "&name;" or "&#N;" or "&#xH;" at m->i (past it on success). Names: XML's five;
 * HTML pages may use a few more, all letters. */
static bool fk_mentity(fk_mscan *m)
{
	size_t i = m->i + 1, b;
	if (i < m->n && m->s[i] == '#') {
		i++;
		bool hex = i < m->n && (m->s[i] == 'x' || m->s[i] == 'X');
		i += hex;
		b = i;
		while (i < m->n && (hex ? strchr("0123456789abcdefABCDEF", m->s[i]) :
					  strchr("0123456789", m->s[i])) && m->s[i])
			i++;
	} else {
		b = i;
		while (i < m->n && ((m->s[i] >= 'a' && m->s[i] <= 'z') || (m->s[i] >= 'A' && m->s[i] <= 'Z')))
			i++;
		static const char *const xml[] = { "amp", "lt", "gt", "quot", "apos" };
		bool known = m->html && i - b >= 2;
		for (int k = 0; k < 5 && !known; k++)
			known = i - b == strlen(xml[k]) && !memcmp(m->s + b, xml[k], i - b);
		if (!known)
			return fk_mfail(m, "'&' that is not an entity");
	}
	if (i == b || i >= m->n || m->s[i] != ';')
		return fk_mfail(m, "'&' that is not an entity");
	m->i = i + 1;
	return true;
}

static bool fk_mvoid(const char *name, size_t len)
{
	static const char *const v[] = { "area", "base", "br", "col", "embed", "hr", "img", "input",
					  "link", "meta", "source", "track", "wbr" };
	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
		if (strlen(v[k]) == len && !strncasecmp(name, v[k], len))
			return true;
	return false;
}

/* The first `what` in [s, s+n) (letters in any case when nocase; what[0] is no letter). */
static const char *fk_mfind(const char *s, size_t n, const char *what, bool nocase)
{
	size_t l = strlen(what);
	if (!l)
		return s;
	for (const char *p = s, *e = s + n; (size_t)(e - p) >= l; p++) {
		p = memchr(p, what[0], (size_t)(e - p) - l + 1);
		if (!p)
			return NULL;
		if (nocase ? !strncasecmp(p, what, l) : !memcmp(p, what, l))
			return p;
	}
	return NULL;
}

/* A start tag at m->i ('<' then a name). Raw-text elements (script, style) of a page
 * are skipped to their end tag; JSON script data is checked as JSON. */
static bool fk_mtag(fk_mscan *m)
{
	m->i++;
	const char *name = m->s + m->i;
	size_t len = fk_mname(m);
	if (!len)
		return fk_mfail(m, "raw '<' in text");
	bool json = false, selfclose = false;
	for (;;) {
		bool sp = fk_mspace(m);
		if (m->i >= m->n)
			return fk_mfail(m, "unterminated tag");
		if (m->s[m->i] == '>') {
			m->i++;
			break;
		}
		if (m->s[m->i] == '/' && m->i + 1 < m->n && m->s[m->i + 1] == '>') {
			m->i += 2;
			selfclose = true;
			break;
		}
		if (!sp)
			return fk_mfail(m, "no space before an attribute");
		const char *an = m->s + m->i;
		size_t al = fk_mname(m);
		if (!al)
			return fk_mfail(m, "bad attribute name");
		if (m->i >= m->n || m->s[m->i] != '=') {
			if (m->html)
				continue; /* a boolean attribute */
			return fk_mfail(m, "attribute without a value");
		}
		m->i++;
		if (m->html && m->i < m->n && m->s[m->i] != '"' && m->s[m->i] != '\'') {
			/* HTML's unquoted value: no space, quote, '=', '<', '>' or '`' */
			size_t vb = m->i;
			while (m->i < m->n && !strchr(" \t\r\n\"'=<>`", m->s[m->i]))
				m->i++;
			if (m->i == vb || (m->i < m->n && strchr("\"'=<`", m->s[m->i])))
				return fk_mfail(m, "bad unquoted attribute value");
			if (al == 4 && !strncasecmp(an, "type", 4) &&
			    fk_mfind(m->s + vb, m->i - vb, "json", true))
				json = true;
			continue;
		}
		if (m->i >= m->n || (m->s[m->i] != '"' && m->s[m->i] != '\''))
			return fk_mfail(m, "unquoted attribute value");
		char q = m->s[m->i++];
		size_t vb = m->i;
		while (m->i < m->n && m->s[m->i] != q) {
			if (m->s[m->i] == '<')
				return fk_mfail(m, "raw '<' in an attribute value");
			if (m->s[m->i] == '&') {
				if (!fk_mentity(m))
					return false;
			} else {
				m->i++;
			}
		}
		if (m->i >= m->n)
			return fk_mfail(m, "unterminated attribute value");
		if (al == 4 && !strncasecmp(an, "type", 4) &&
		    fk_mfind(m->s + vb, m->i - vb, "json", true))
			json = true;
		m->i++;
	}
	bool is_raw = m->html && ((len == 6 && !strncasecmp(name, "script", 6)) ||
				  (len == 5 && !strncasecmp(name, "style", 5)));
	if (is_raw && !selfclose) {
		const char *end = fk_mfind(m->s + m->i, m->n - m->i, len == 6 ? "</script" : "</style", true);
		if (!end)
			return fk_mfail(m, "raw text element never closed");
		size_t b = m->i, e = (size_t)(end - m->s);
		if (len == 6 && fk_mfind(m->s + b, e - b, "<!--", false))
			return fk_mfail(m, "'<!--' inside a script element");
		if (json) {
			size_t at;
			const char *why = fk_check_json(m->s + b, e - b, &at);
			if (why) {
				m->i = b + at;
				return fk_mfail(m, why);
			}
		}
		m->i = e + 2;
		fk_mname(m);
		fk_mspace(m);
		if (m->i >= m->n || m->s[m->i] != '>')
			return fk_mfail(m, "bad end tag");
		m->i++;
		return true;
	}
	if (selfclose || (m->html && fk_mvoid(name, len)))
		return true;
	if (m->depth >= 64)
		return fk_mfail(m, "elements nested too deep");
	m->stack[m->depth] = name;
	m->slen[m->depth++] = len;
	return true;
}

/* HTML elements whose end tag may be left out (closed by what follows). */
static bool fk_mimplied(const char *name, size_t len)
{
	static const char *const v[] = { "html", "head", "body", "p", "li", "dt", "dd", "option",
					  "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot",
					  "colgroup", "rt", "rp" };
	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
		if (strlen(v[k]) == len && !strncasecmp(name, v[k], len))
			return true;
	return false;
}

static bool fk_mend(fk_mscan *m)
{
	m->i += 2;
	const char *name = m->s + m->i;
	size_t len = fk_mname(m);
	fk_mspace(m);
	if (!len || m->i >= m->n || m->s[m->i] != '>')
		return fk_mfail(m, "bad end tag");
	m->i++;
	for (;;) {
		if (!m->depth)
			return fk_mfail(m, "end tag without a start tag");
		m->depth--;
		if (m->slen[m->depth] == len && !strncasecmp(m->stack[m->depth], name, len))
			return true;
		if (!m->html || !fk_mimplied(m->stack[m->depth], m->slen[m->depth]))
			return fk_mfail(m, "end tag does not match its start tag");
	}
}

/* Skip from m->i past the first `end` (a comment, CDATA, a declaration). */
static bool fk_mskip(fk_mscan *m, size_t open, const char *end)
{
	const char *e = fk_mfind(m->s + m->i + open, m->n - m->i - open, end, false);
	if (!e)
		return fk_mfail(m, "unterminated comment, CDATA or declaration");
	size_t b = m->i + open, x = (size_t)(e - m->s);
	if (!strcmp(end, "-->") && fk_mfind(m->s + b, x - b, "--", false))
		return fk_mfail(m, "'--' inside a comment");
	m->i = x + strlen(end);
	return true;
}

static const char *fk_check_markup(fk_mscan *m, const char *s, size_t n, bool html, size_t *at)
{
	memset(m, 0, sizeof(*m));
	m->s = s;
	m->n = n;
	m->html = html;
	const char *why = fk_check_text(s, n, at);
	if (why)
		return why;
	bool root = false;
	while (m->i < n && !m->err) {
		char c = s[m->i];
		if (c == '<') {
			const char *p = s + m->i;
			size_t left = n - m->i;
			if (left >= 4 && !memcmp(p, "<!--", 4))
				fk_mskip(m, 4, "-->");
			else if (left >= 9 && !memcmp(p, "<![CDATA[", 9)) {
				if (!m->depth)
					fk_mfail(m, "CDATA outside an element");
				else
					fk_mskip(m, 9, "]]>");
			} else if (left >= 2 && p[1] == '?')
				fk_mskip(m, 2, "?>");
			else if (left >= 2 && p[1] == '!')
				fk_mskip(m, 2, ">");
			else if (left >= 2 && p[1] == '/')
				fk_mend(m);
			else {
				if (!m->depth && root && !html)
					fk_mfail(m, "a second root element");
				root = true;
				fk_mtag(m);
			}
		} else if (c == '&') {
			fk_mentity(m);
		} else if (c == ']' && !html && n - m->i >= 3 && !memcmp(s + m->i, "]]>", 3)) {
			fk_mfail(m, "']]>' in text");
		} else {
			if (!m->depth && !strchr(" \t\r\n", c))
				fk_mfail(m, "text outside the root element");
			m->i++;
		}
	}
	*at = m->i;
	while (!m->err && html && m->depth && fk_mimplied(m->stack[m->depth - 1], m->slen[m->depth - 1]))
		m->depth--;
	if (!m->err && m->depth)
		m->err = "element never closed";
	if (!m->err && !root)
		m->err = "no element";
	return m->err;
}

#endif

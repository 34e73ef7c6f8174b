/* parse-stap.c - SystemTap print_stack()/print_ustack() output, each stack
 * followed by a count line ("\t2404"), as stackcollapse-stap.pl reads it.
 * Also holds the leaf-first "frames then count" loop the dtrace parser shares. */
#include "parse-stack.h"

/* Index of the last occurrence of needle (nlen >= 1) in s, or -1. */
static ptrdiff_t last_of(const char *s, size_t len, const char *needle, size_t nlen)
{
	if (len < nlen)
		return -1;
	for (size_t i = len - nlen + 1; i-- > 0;)
		if (s[i] == needle[0] && !memcmp(s + i, needle, nlen))
			return (ptrdiff_t)i;
	return -1;
}

/* stackcollapse-stap.pl: drop the "+offset/size [module]" tail (from the last
 * '+'), then everything up to the last " : " (the address). */
static size_t stap_tidy(const char **s, size_t len)
{
	const char *f = *s;
	ptrdiff_t plus = last_of(f, len, "+", 1);
	if (plus >= 0)
		len = (size_t)plus;
	ptrdiff_t colon = last_of(f, len, " : ", 3);
	if (colon >= 0) {
		f += colon + 3;
		len -= (size_t)colon + 3;
	}
	*s = f;
	return len;
}

int fk_parse_leaf_first(fk_parse_ctx *c, fk_frame_fn frame, unsigned header_lines,
			bool (*is_header)(const char *s, size_t len))
{
	fk_stackbuf b = { 0 };
	const char *line;
	size_t len;
	int rc;
	uint64_t first_frame_line = 0;
	bool in_header = header_lines > 0;
	while ((rc = fk_reader_line(c->r, &line, &len)) > 0) {
		c->st->lines++;
		len = fk_chomp_cr(line, len);
		/* dtrace prints a few lines of probe chatter first; skip only those
		 * that look like it, so a file starting with a stack keeps it. */
		if (in_header) {
			if (c->r->lineno <= header_lines && is_header(line, len))
				continue;
			in_header = false;
		}
		double count;
		if (fk_is_count_line(line, len, &count)) {
			/* Frames came leaf first (the perl scripts unshift them). */
			fk_stackbuf_reverse(&b, 0);
			if ((rc = fk_stackbuf_add(c, &b, count, NULL)))
				break;
			b.n = 0;
			continue;
		}
		if (fk_is_blank(line, len))
			continue;
		size_t i = 0;
		while (i < len && fk_is_space(line[i]))
			i++;
		if (b.n == 0)
			first_frame_line = c->r->lineno;
		if ((rc = frame(c, &b, line + i, len - i)))
			break;
	}
	if (rc == 0 && b.n)
		fk_bad_line(c, first_frame_line,
			    "input ends inside a stack: %zu frames without a count line, dropped",
			    b.n);
	fk_stackbuf_free(&b);
	return rc;
}

static int stap_frame(fk_parse_ctx *c, fk_stackbuf *b, const char *s, size_t len)
{
	len = stap_tidy(&s, len);
	if (len == 0) {
		s = "-";
		len = 1;
	}
	return fk_stackbuf_push(c, b, s, len);
}

/* Hex address, " : ", then a symbol: the stap frame line. */
static bool stap_frame_line(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && fk_is_space(s[i]))
		i++;
	if (len - i < 6 || s[i] != '0' || s[i + 1] != 'x')
		return false;
	i += 2;
	size_t d = i;
	while (i < len && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	return i > d && len - i >= 3 && !memcmp(s + i, " : ", 3);
}

static int probe(const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len;
	int frames = 0, counts = 0, tab_counts = 0, other = 0, lines = 0;
	while (s < end && lines < 200) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
		l = fk_chomp_cr(s, l);
		double cnt;
		lines++;
		if (stap_frame_line(s, l))
			frames++;
		else if (fk_is_count_line(s, l, &cnt)) {
			counts++;
			tab_counts += s[0] == '\t';
		} else if (!fk_is_blank(s, l))
			other++;
		if (!nl)
			break;
		s = nl + 1;
	}
	/* Frames without addresses (lj-lua-stacks' "@file.lua:12", "C:func")
	 * still end with stap's tab-indented count lines. */
	if (!frames)
		return tab_counts && other >= tab_counts ? 65 : 0;
	if (counts && other * 4 <= frames)
		return 90;
	return other <= frames ? 60 : 25;
}

/* The stack lines have no "+offset" in every case, but tidying is done as
 * the perl script does so folded files from both tools mix. */
static int parse(fk_parse_ctx *c)
{
	return fk_parse_leaf_first(c, stap_frame, 0, NULL);
}

const fk_format fk_format_stap = {
	.name = "stap",
	.desc = "SystemTap print_stack()/print_ustack() stacks, each followed by a count line",
	.probe = probe,
	.parse = parse,
};

/* parse-dtrace.c - DTrace aggregations of stack()/ustack(): frames leaf
 * first ("module`func+0x1c"), each stack followed by its count line, as
 * FlameGraph's stackcollapse.pl reads them. */
#include "parse-stack.h"

static bool starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);
	return len >= n && !memcmp(s, lit, n);
}

/* The lines dtrace prints before the aggregation: "dtrace: description ...
 * matched N probes", "CPU     ID    FUNCTION:NAME", "  1  64091   :tick-60s",
 * "^C", blank lines. stackcollapse.pl drops the first 3 lines blindly; we drop
 * only those of the first 3 that look like this. */
static bool is_header(const char *s, size_t len)
{
	if (fk_is_blank(s, len) || starts(s, len, "dtrace:") || starts(s, len, "^C"))
		return true;
	size_t i = 0;
	while (i < len && fk_is_space(s[i]))
		i++;
	if (starts(s + i, len - i, "CPU") && len - i > 3 && fk_is_space(s[i + 3]))
		return true;
	/* "CPU ID FUNCTION:NAME" values: two numbers then one word with a ':' */
	for (int field = 0; field < 2; field++) {
		size_t d = i;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d || i == len || !fk_is_space(s[i]))
			return false;
		while (i < len && fk_is_space(s[i]))
			i++;
	}
	size_t w = i;
	while (i < len && !fk_is_space(s[i]))
		i++;
	return memchr(s + w, ':', i - w) && fk_is_blank(s + i, len - i);
}

/* stackcollapse.pl: cut from the last '+' (the offset), then cut C++
 * arguments: from the last '(' or '<' that follows the first "::". */
static size_t tidy(const char **sp, size_t len)
{
	const char *s = *sp;
	for (size_t i = len; i-- > 0;)
		if (s[i] == '+') {
			len = i;
			break;
		}
	const char *dc = len >= 2 ? memmem(s, len, "::", 2) : NULL;
	if (dc) {
		size_t from = (size_t)(dc - s) + 2;
		for (size_t i = len; i-- > from;)
			if (s[i] == '(' || s[i] == '<') {
				len = i;
				break;
			}
	}
	return len;
}

static bool frame_line(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && fk_is_space(s[i]))
		i++;
	/* "module`function+0x12" or a bare address "0x7fff12345678" */
	return (i < len && memchr(s + i, '`', len - i)) ||
	       (len - i > 2 && s[i] == '0' && s[i + 1] == 'x');
}

static int probe(const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len;
	int frames = 0, counts = 0, other = 0, header = 0, lines = 0;
	while (s < end && lines < 200) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
		l = fk_chomp_cr(s, l);
		double cnt;
		lines++;
		if (fk_is_count_line(s, l, &cnt))
			counts++;
		else if (lines <= 3 && !fk_is_blank(s, l) && is_header(s, l))
			header++;
		else if (frame_line(s, l))
			frames++;
		else if (!fk_is_blank(s, l))
			other++;
		if (!nl)
			break;
		s = nl + 1;
	}
	if (frames && counts && other * 4 <= frames)
		return header ? 85 : 75;
	if (header && frames)
		return 50;
	return 0;
}

static int parse(fk_parse_ctx *c)
{
	return fk_parse_leaf_first(c, tidy, 3, is_header);
}

const fk_format fk_format_dtrace = {
	.name = "dtrace",
	.unit = "samples",
	.desc = "DTrace stack()/ustack() aggregation: frames leaf first, then a count line",
	.probe = probe,
	.parse = parse,
};

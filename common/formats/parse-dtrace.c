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
static size_t tidy(const char *s, size_t len, bool keep_args)
{
	for (size_t i = len; i-- > 0;)
		if (s[i] == '+') {
			len = i;
			break;
		}
	/* --full-names / --cxx-names: no cut here (the latter cuts in names.c) */
	const char *dc = len >= 2 && !keep_args ? memmem(s, len, "::", 2) : NULL;
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

/* One piece of an inline chain as stackcollapse.pl writes it: ';' (Java
 * signatures: "Ljava/lang/Thread;") made ':' so it cannot split the frame, a
 * leading 'L' (Java's class prefix) dropped, "_[i]" after an inlined callee. */
static int push_piece(fk_parse_ctx *c, fk_stackbuf *b, const char *s, size_t len, bool inlined)
{
	if (len && s[0] == 'L')
		s++, len--;
	if (FK_GROW(b->text, b->text_cap, len + 4))
		return -FK_E_NOMEM;
	char *t = b->text;
	for (size_t i = 0; i < len; i++)
		t[i] = s[i] == ';' ? ':' : s[i];
	if (inlined) {
		memcpy(t + len, "_[i]", 4);
		len += 4;
	}
	return fk_stackbuf_push(c, b, t, len);
}

/* A frame line: tidied, then "caller->inlined->..." split into frames. The
 * pieces go on the leaf-first buffer last piece first, so that after the
 * stack is turned round the caller comes before what was inlined into it. */
static int frame(fk_parse_ctx *c, fk_stackbuf *b, const char *s, size_t len)
{
	len = tidy(s, len, c->o->full_names || c->o->cxx_names);
	if (len == 0) {
		s = "-";
		len = 1;
	}
	/* Trailing empty pieces ("a->") are dropped, as perl's split does. */
	while (len >= 2 && s[len - 2] == '-' && s[len - 1] == '>')
		len -= 2;
	size_t end = len;
	for (size_t i = len; i >= 2; i--) {
		if (s[i - 2] != '-' || s[i - 1] != '>')
			continue;
		int rc = push_piece(c, b, s + i, end - i, true);
		if (rc)
			return rc;
		end = i - 2;
		i--;
	}
	return len ? push_piece(c, b, s, end, false) : 0;
}

/* 1 for a line that can only be a DTrace frame: "module`function+0x12", a
 * bare address "0x7fff12345678" or "function+0x1c"; 2 for any other single
 * word (a frame without module or offset: "main", "Ljava/lang/Thread;.run()V"),
 * which only counts when nothing else in the input says otherwise; else 0. */
static int frame_line(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && fk_is_space(s[i]))
		i++;
	while (len > i && fk_is_space(s[len - 1]))
		len--;
	if (i == len)
		return 0;
	const char *f = s + i;
	size_t fl = len - i;
	if (memchr(f, '`', fl) || (fl > 2 && f[0] == '0' && f[1] == 'x'))
		return 1;
	size_t h = fl;
	while (h && ((f[h - 1] >= '0' && f[h - 1] <= '9') || (f[h - 1] >= 'a' && f[h - 1] <= 'f')))
		h--;
	if (h < fl && h >= 4 && f[h - 1] == 'x' && f[h - 2] == '0' && f[h - 3] == '+')
		return 1;
	for (size_t k = 0; k < fl; k++)
		if (fk_is_space(f[k]))
			return 0;
	return 2;
}

static int probe(const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len;
	int frames = 0, words = 0, counts = 0, tab_counts = 0, other = 0, header = 0, lines = 0;
	while (s < end && lines < 200) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
		l = fk_chomp_cr(s, l);
		double cnt;
		int fr;
		lines++;
		if (fk_is_count_line(s, l, &cnt)) {
			counts++;
			tab_counts += s[0] == '\t';
		} else if (lines <= 3 && !fk_is_blank(s, l) && is_header(s, l))
			header++;
		else if ((fr = frame_line(s, l)) == 1)
			frames++;
		else if (fr == 2)
			words++;
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
	/* Frames of bare names then blank-indented counts: stackcollapse.pl's
	 * generic input. Weak: stap's Lua stacks look alike but count with tabs. */
	if (frames + words && counts && !other && tab_counts < counts)
		return header ? 60 : 40;
	return 0;
}

static int parse(fk_parse_ctx *c)
{
	return fk_parse_leaf_first(c, frame, 3, is_header);
}

const fk_format fk_format_dtrace = {
	.name = "dtrace",
	.unit = "samples",
	.desc = "DTrace stack()/ustack() aggregation: frames leaf first, then a count line",
	.probe = probe,
	.parse = parse,
};

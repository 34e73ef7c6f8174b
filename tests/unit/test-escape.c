/* test-escape.c - the XML and JS escapers (fk_obuf_xml, fk_obuf_js), which scan runs of
 * plain bytes 16 at a time, against the same escaper fed one run at a time: the text cut
 * where plain bytes meet bytes that need escaping gives the same output (a UTF-8 sequence
 * never spans a plain byte), and a piece shorter than the vector width is scanned byte by
 * byte. Random names of every length with the characters that matter at every position,
 * written into a buffer with any amount of room left (the writer's fast and slow paths). */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"

static int failures;
static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint64_t next(void) { return unit_rand(&rng); }

static bool xml_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && !strchr("&<>\"'", c);
}
static bool js_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && !strchr("\"\\<>&", c);
}

typedef void (*esc_fn)(fk_obuf *, const char *, size_t);

/* fn's output for s, written after `pre` bytes already in the buffer (its room is what
 * is left of its capacity), without those bytes; *outn its length. */
static char *escaped(esc_fn fn, const char *s, size_t n, size_t pre, size_t *outn)
{
	struct unit_mem m;
	unit_mem_open(&m);
	static char xs[256u << 10];
	if (!xs[0])
		memset(xs, 'x', sizeof(xs));
	fk_obuf_put(&m.b, xs, pre < sizeof(xs) ? pre : sizeof(xs));
	fn(&m.b, s, n);
	unit_mem_close(&m);
	*outn = m.len - pre;
	memmove(m.buf, m.buf + pre, m.len - pre);
	return m.buf;
}

/* The same text escaped one run at a time: plain bytes one by one (pieces shorter than a
 * vector), each run of the others whole; for JS each piece's own quotes left out and the
 * string's put around all of it. */
static char *by_runs(esc_fn fn, bool (*plain)(unsigned char), bool quoted, const char *s, size_t n,
		     size_t *outn)
{
	struct unit_mem m;
	unit_mem_open(&m);
	fk_obuf *const b = &m.b;
	size_t cuts[512], nc = 0; /* where each piece's text starts and ends */
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		bool p = plain((unsigned char)s[i]);
		while (j < n && !p && !plain((unsigned char)s[j]))
			j++;
		cuts[nc++] = b->len;
		fn(b, s + i, j - i);
		cuts[nc++] = b->len;
		i = j;
	}
	char *out = malloc(b->len + 3);
	if (!out)
		exit(1);
	size_t k = 0, q = quoted ? 1 : 0;
	if (quoted)
		out[k++] = '"';
	for (size_t c = 0; c < nc; c += 2) {
		memcpy(out + k, b->buf + cuts[c] + q, cuts[c + 1] - cuts[c] - 2 * q);
		k += cuts[c + 1] - cuts[c] - 2 * q;
	}
	if (quoted)
		out[k++] = '"';
	unit_mem_close(&m);
	free(m.buf);
	*outn = k;
	return out;
}

static void one(const char *what, esc_fn fn, bool (*plain)(unsigned char), bool quoted, const char *s,
		size_t n, size_t pre)
{
	size_t an, bn;
	char *a = escaped(fn, s, n, pre, &an);
	char *b = by_runs(fn, plain, quoted, s, n, &bn);
	if (an != bn || memcmp(a, b, an)) {
		if (failures++ < 5) {
			fprintf(stderr, "%s of %zu bytes (after %zu):", what, n, pre);
			for (size_t i = 0; i < n; i++)
				fprintf(stderr, " %02x", (unsigned char)s[i]);
			fprintf(stderr, "\n  whole: %.*s\n  runs:  %.*s\n", (int)an, a, (int)bn, b);
		}
	}
	free(a);
	free(b);
}

int main(void)
{
	static const char *pieces[] = { "a", "Z", "0", ":", ";", " ", "_", "~", "\x7f", "&", "<", ">",
					"\"", "'", "\\", "\t", "\n", "\x01", "\x1f", "\xc3\xa9",
					"\xe2\x80\xa8", "\xf0\x9f\x94\xa5", "\x80", "\xc3", "\xff",
					"\xef\xbf\xbe", "\xed\xa0\x80" };
	const size_t np = sizeof(pieces) / sizeof(pieces[0]);
	char s[256];
	const size_t cap = 256u << 10; /* the writer's buffer (out.c OBUF_CAP) */
	size_t cases = 0;
	/* (the writer's 256 KiB buffer from the heap, used again case after case: mapped
	 * afresh each time, the page faults took most of the run) */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	for (int r = 0; r < 12000; r++) {
		size_t n = 0, want = next() % 90;
		/* mostly plain, with one rare kind of byte or a few: the runs cross 16-byte
		 * boundaries at every offset */
		unsigned odd = (unsigned)(next() % 12);
		while (n < want) {
			const char *p = next() % 16 < odd ? pieces[8 + next() % (np - 8)] : pieces[next() % 8];
			size_t k = strlen(p);
			if (n + k > sizeof(s))
				break;
			memcpy(s + n, p, k);
			n += k;
		}
		size_t pre = next() % 4 == 0 ? cap - next() % 200 : next() % 64;
		one("xml", fk_obuf_xml, xml_plain, false, s, n, pre);
		one("js", fk_obuf_js, js_plain, true, s, n, pre);
		cases++;
	}
	if (failures) {
		fprintf(stderr, "test-escape: %d of %zu cases differ\n", failures, 2 * cases);
		return 1;
	}
	printf("test-escape: %zu names, xml and js, whole = run by run\n", cases);
	return 0;
}

/* test-numbers.c - the writers' own number formatting against printf's, which it stands in
 * for: "%.2f" (fk_obuf_fixed2: the percentages of every SVG title), "%lld" and "%u"
 * (fk_format_count, fk_obuf_u64: folded counts, the script data), on random values of
 * every size and on the values where rounding is hard (halves, ties, 0, -0, tiny negatives,
 * the largest integers a double holds). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"

static int failures;

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next(void) { return unit_rand(&rng); }

/* What fn writes through an fk_obuf. */
static void written(void (*fn)(fk_obuf *, double), double v, char *out, size_t cap)
{
	struct unit_mem m;
	unit_mem_open(&m);
	fn(&m.b, v);
	unit_mem_close(&m);
	snprintf(out, cap, "%.*s", (int)m.len, m.buf);
	free(m.buf);
}

static void fixed2(fk_obuf *b, double v) { fk_obuf_fixed2(b, v); }
static void u64(fk_obuf *b, double v) { fk_obuf_u64(b, (uint64_t)v); }

static void check_fixed2(double v)
{
	char got[512], want[512];
	written(fixed2, v, got, sizeof(got));
	snprintf(want, sizeof(want), "%.2f", v);
	if (strcmp(got, want)) {
		fprintf(stderr, "fixed2(%.17g): '%s', printf '%s'\n", v, got, want);
		failures++;
	}
}

static void check_count(double v)
{
	char got[64], want[64];
	int n = fk_format_count(got, sizeof(got), v);
	snprintf(want, sizeof(want), "%lld", (long long)v);
	if (strcmp(got, want) || n != (int)strlen(want)) {
		fprintf(stderr, "fk_format_count(%.17g): '%s' (%d), printf '%s'\n", v, got, n, want);
		failures++;
	}
}

int main(void)
{
	static const double hard[] = { 0, -0.0, 0.005, 0.015, 0.025, 0.125, 0.375, 1.005, 2.675,
		-0.001, -0.005, -0.125, 99.995, 99.994999, 100, 0.0049999999, 1e-300, -1e-300,
		12345678.125, 1e14 + 0.125, 1e15, 1e16, 1e300, DBL_MAX, -DBL_MAX, DBL_MIN,
		INFINITY, -INFINITY, NAN };
	for (size_t k = 0; k < sizeof(hard) / sizeof(hard[0]); k++)
		check_fixed2(hard[k]);
	for (int i = 0; i < 200000; i++) {
		uint64_t r = next();
		double v;
		switch (i % 4) {
		case 0: /* a percentage of a count: k / n * 100 */
			v = 100.0 * (double)(r % 100000) / (double)(1 + (r >> 32) % 100000);
			break;
		case 1: /* exact halves of a hundredth, and their neighbours */
			v = (double)(r % 2000000) / 200.0;
			if (r >> 63)
				v = nextafter(v, (r >> 62 & 1) ? INFINITY : -INFINITY);
			break;
		case 2: /* any magnitude, either sign */
			v = ldexp((double)(r >> 11) / 9007199254740992.0, (int)(r % 120) - 60);
			if (r & 1)
				v = -v;
			break;
		default: /* any double's bits that are finite */
			memcpy(&v, &r, sizeof(v));
			if (!isfinite(v))
				v = 1;
		}
		check_fixed2(v);
	}

	static const double counts[] = { 0, -0.0, 1, -1, 9, 10, 99, 100, 12345, -12345,
		4294967295.0, 4294967296.0, 9007199254740991.0, -9007199254740991.0 };
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
		check_count(counts[k]);
	for (int i = 0; i < 100000; i++) {
		uint64_t r = next();
		double v = (double)(r >> (11 + r % 53));
		check_count(r & 1 ? -v : v);
		char got[32], want[32];
		written(u64, (double)(uint32_t)r, got, sizeof(got));
		snprintf(want, sizeof(want), "%u", (uint32_t)r);
		if (strcmp(got, want)) {
			fprintf(stderr, "u64(%u): '%s'\n", (uint32_t)r, got);
			failures++;
		}
	}
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures != 0;
}

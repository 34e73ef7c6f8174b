/* test-radix.c - fk_radix64 and fk_radix64_two sort keys with their ord alongside, stably:
 * against a comparison sort by (key, place) on keys of many shapes (random, few values, all
 * alike, in order, reversed, long shared high bits, many repeats) and sizes around
 * FK_RADIX_TWO_MIN; both give the same keys and the same ord. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "unit.h"

struct pair {
	uint64_t k;
	uint32_t o;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return (x->o > y->o) - (x->o < y->o);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* Key i of n of shape s, within `bits` low bits. */
static uint64_t shaped(int s, size_t i, size_t n, unsigned bits)
{
	uint64_t mask = bits >= 64 ? ~0ULL : (1ULL << bits) - 1, r = unit_rand(&rng);
	switch (s) {
	case 0: return r & mask;                                   /* random */
	case 1: return (r % 11) * 0x0101010101010101ULL & mask;    /* a few values */
	case 2: return 0x6d6f6430303a3a70ULL & mask;               /* all alike */
	case 3: return (uint64_t)i & mask;                         /* in order */
	case 4: return (uint64_t)(n - i) & mask;                   /* reversed */
	case 5: return (0x636f6d2e6578616dULL & ~0xffffffULL & mask) | (r & 0xfffff); /* shared high bits */
	default: return (r % 97) << (bits > 40 ? 33 : 0) & mask;   /* many repeats */
	}
}

int main(void)
{
	const size_t sizes[] = { 0, 1, 2, 17, 1000, FK_RADIX_TWO_MIN - 1, FK_RADIX_TWO_MIN,
				 FK_RADIX_TWO_MIN + 3, 300001 };
	const unsigned bitss[] = { 64, 63, 21 };
	size_t most = 300001;
	uint64_t *key = malloc(most * sizeof(*key)), *k2 = malloc(most * sizeof(*k2));
	uint64_t *kb = malloc(most * sizeof(*kb)), *kb2 = malloc(most * sizeof(*kb2));
	uint32_t *ord = malloc(most * sizeof(*ord)), *tmp = malloc(most * sizeof(*tmp));
	uint32_t *ob = malloc(most * sizeof(*ob)), *tb = malloc(most * sizeof(*tb));
	struct pair *ref = malloc(most * sizeof(*ref));
	if (!key || !k2 || !kb || !kb2 || !ord || !tmp || !ob || !tb || !ref) {
		fprintf(stderr, "test-radix: out of memory\n");
		return 1;
	}
	for (size_t zi = 0; zi < sizeof(sizes) / sizeof(sizes[0]); zi++) {
		size_t n = sizes[zi];
		for (int s = 0; s < 7; s++) {
			for (size_t bi = 0; bi < sizeof(bitss) / sizeof(bitss[0]); bi++) {
				unsigned bits = bitss[bi];
				for (size_t i = 0; i < n; i++) {
					key[i] = kb[i] = shaped(s, i, n, bits);
					/* ord: any numbers (a caller's entries), each place's own */
					ord[i] = ob[i] = (uint32_t)(i * 2654435761u);
					ref[i] = (struct pair){ key[i], (uint32_t)i };
				}
				qsort(ref, n, sizeof(*ref), pair_cmp);
				fk_radix64(key, ord, n, bits, k2, tmp);
				fk_radix64_two(kb, ob, n, bits, kb2, tb);
				size_t bad = SIZE_MAX, bad2 = SIZE_MAX;
				for (size_t i = 0; i < n && (bad == SIZE_MAX || bad2 == SIZE_MAX); i++) {
					uint32_t want = (uint32_t)(ref[i].o * 2654435761u);
					if (bad == SIZE_MAX && (key[i] != ref[i].k || ord[i] != want))
						bad = i;
					if (bad2 == SIZE_MAX && (kb[i] != ref[i].k || ob[i] != want))
						bad2 = i;
				}
				UNIT_CHECK(bad == SIZE_MAX, "fk_radix64: n %zu, shape %d, %u bits: place %zu out of order",
					   n, s, bits, bad);
				UNIT_CHECK(bad2 == SIZE_MAX, "fk_radix64_two: n %zu, shape %d, %u bits: place %zu out of order",
					   n, s, bits, bad2);
			}
		}
	}
	free(key), free(k2), free(kb), free(kb2), free(ord), free(tmp), free(ob), free(tb), free(ref);
	return unit_failures != 0;
}

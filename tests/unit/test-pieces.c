/* test-pieces.c - fk_run2_pieces: every index of [0, n) is given to fn once, in stretches
 * that start at multiples of the piece and hold at most a piece (the last one shorter), by
 * two threads or one; with one (two false, or n within a piece) in a single call of the
 * whole range; n 0 calls nothing. Sizes around the piece and FK_PIECE's own. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include "internal.h"
#include "unit.h"

struct run {
	size_t n, piece;
	bool whole;          /* one call of [0, n) expected */
	unsigned char *seen; /* times each index was given (by either thread) */
	size_t calls, bad;   /* (atomic) */
	pthread_t caller;
	size_t by_caller;    /* (atomic) stretches the calling thread took */
};

static void take(void *arg, size_t from, size_t to)
{
	struct run *r = arg;
	__atomic_add_fetch(&r->calls, 1, __ATOMIC_RELAXED);
	if (pthread_equal(pthread_self(), r->caller))
		__atomic_add_fetch(&r->by_caller, 1, __ATOMIC_RELAXED);
	if (r->whole ? from != 0 || to != r->n
		     : from >= to || to > r->n || from % r->piece || to - from > r->piece) {
		__atomic_add_fetch(&r->bad, 1, __ATOMIC_RELAXED);
		return;
	}
	for (size_t i = from; i < to; i++)
		__atomic_add_fetch(&r->seen[i], 1, __ATOMIC_RELAXED);
}

static void one_case(size_t n, size_t piece, bool two)
{
	bool whole = !two || n <= piece;
	struct run r = { .n = n, .piece = piece, .whole = whole, .seen = calloc(n ? n : 1, 1),
			 .caller = pthread_self() };
	if (!r.seen) {
		fprintf(stderr, "test-pieces: out of memory\n");
		exit(1);
	}
	fk_run2_pieces(take, &r, n, piece, two);
	UNIT_CHECK(r.bad == 0, "n %zu piece %zu two %d: %zu calls of a wrong stretch", n, piece, two,
		   r.bad);
	if (whole) {
		UNIT_CHECK(r.calls == (n > 0), "n %zu piece %zu two %d: %zu calls, not %d", n, piece, two,
			   r.calls, n > 0);
		UNIT_CHECK(r.by_caller == r.calls, "n %zu piece %zu two %d: a call on another thread", n,
			   piece, two);
	} else {
		UNIT_CHECK(r.calls == (n + piece - 1) / piece, "n %zu piece %zu: %zu calls, not %zu", n,
			   piece, r.calls, (n + piece - 1) / piece);
	}
	size_t missed = 0, twice = 0;
	for (size_t i = 0; i < n; i++) {
		missed += r.seen[i] == 0;
		twice += r.seen[i] > 1;
	}
	UNIT_CHECK(!missed && !twice, "n %zu piece %zu two %d: %zu indices never given, %zu more "
		   "than once", n, piece, two, missed, twice);
	free(r.seen);
}

int main(void)
{
	const size_t ns[] = { 0, 1, 2, 4095, 4096, 4097, 8192, 100003, 131072, 1000000 };
	const size_t pieces[] = { 1, 7, 4096 };
	for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++) {
		for (int two = 0; two < 2; two++) {
			for (size_t b = 0; b < sizeof(pieces) / sizeof(pieces[0]); b++)
				if (pieces[b] > 1 || ns[a] <= 100003) /* (a piece of 1: not a million calls) */
					one_case(ns[a], pieces[b], two);
			one_case(ns[a], FK_PIECE(ns[a]), two);
		}
	}
	/* FK_PIECE: 32 stretches at most, each of 4096 at least */
	UNIT_CHECK(FK_PIECE((size_t)1000000) == 31250, "FK_PIECE(1e6) %zu", (size_t)FK_PIECE((size_t)1000000));
	UNIT_CHECK(FK_PIECE((size_t)1000) == 4096, "FK_PIECE(1000) %zu", (size_t)FK_PIECE((size_t)1000));
	if (!unit_failures)
		printf("test-pieces: ok\n");
	return unit_failures != 0;
}

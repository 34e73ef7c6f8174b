/* unit.h - what the C unit tests share: checks that go on after a failure, a seeded
 * xorshift64 generator, and an fk_obuf that writes into memory, to read back what a writer
 * wrote. */
#ifndef FK_UNIT_H
#define FK_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include "base/out.h"

/* A check that, failing, says where and what (printf-style) and counts the failure in
 * unit_failures; the test goes on (its exit status: unit_failures != 0). */
static int unit_failures __attribute__((unused));
#define UNIT_CHECK(cond, ...)                                                 \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                         \
			fputc('\n', stderr);                                  \
			unit_failures++;                                      \
		}                                                             \
	} while (0)

/* The next number of the sequence seeded at *s (not 0). */
static inline uint64_t unit_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* An fk_obuf over open_memstream: write through m->b, then unit_mem_close; m->buf holds
 * m->len bytes (the caller frees it). Out of memory ends the test. */
struct unit_mem {
	char *buf;
	size_t len;
	FILE *f;
	fk_obuf b;
};

static inline void unit_mem_open(struct unit_mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	if (!m->f || fk_obuf_init(&m->b, m->f)) {
		fprintf(stderr, "no memory\n");
		exit(1);
	}
}

static inline void unit_mem_close(struct unit_mem *m)
{
	fk_obuf_finish(&m->b);
	fclose(m->f);
}

#endif

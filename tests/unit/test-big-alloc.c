/* test-big-alloc.c - fk_big_alloc and fk_zalloc: blocks of FK_BIG_FROM bytes or more are a
 * mapping of their own starting at a 2 MiB boundary, with huge pages asked for over all of
 * it (where the kernel offers them); smaller ones come from malloc; fk_zalloc's memory is
 * zero either way, its pages written by the toucher given (once, over the whole block); an
 * overflowing size is refused. Each is freed by its own free (a mapping given to free()
 * would abort the test). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "unit.h"

/* The VmFlags line of the mapping holding address a (in /proc/self/smaps), into out. */
static bool vm_flags(const void *a, char *out, size_t n)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	if (!f)
		return false;
	char line[512];
	bool in = false, found = false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3) { /* a mapping's first line */
			in = (uintptr_t)a >= lo && (uintptr_t)a < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			snprintf(out, n, "%.200s", line + 8);
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

/* Whether the kernel gives huge pages on request: its THP mode is [always] or [madvise]. */
static bool thp_on_request(void)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
	char buf[128] = "";
	if (!f)
		return false;
	bool ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	return ok && (strstr(buf, "[always]") || strstr(buf, "[madvise]"));
}

static size_t touched, touches;
static void count_touch(void *ctx, void *p, size_t size)
{
	(void)ctx;
	touches++;
	touched = size;
	memset(p, 0, size);
}

int main(void)
{
	const uintptr_t huge = 2u << 20;
	bool thp = thp_on_request();
	if (!thp)
		fprintf(stderr, "test-big-alloc: the kernel gives no huge pages on request: their advice not checked\n");
	size_t sizes[] = { FK_BIG_FROM - 1, FK_BIG_FROM, (5u << 20) + 123, 8u << 20 };
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		unsigned char *p = fk_big_alloc(n);
		UNIT_CHECK(p != NULL, "%zu bytes allocated", n);
		if (!p)
			continue;
		if (n >= FK_BIG_FROM) {
			UNIT_CHECK((uintptr_t)p % huge == 0, "a block of %zu bytes starts at a 2 MiB boundary (%p)", n, (void *)p);
			char fl[256];
			UNIT_CHECK(vm_flags(p, fl, sizeof(fl)), "the mapping of %zu bytes is in smaps", n);
			if (thp)
				UNIT_CHECK(strstr(fl, " hg") != NULL, "huge pages asked for over %zu bytes (VmFlags:%s)", n, fl);
			/* its last byte is in the same mapping as its first */
			char fl2[256];
			UNIT_CHECK(vm_flags(p + n - 1, fl2, sizeof(fl2)) && !strcmp(fl, fl2),
				   "the block of %zu bytes is one mapping", n);
		}
		for (size_t i = 0; i < n; i += 4093)
			p[i] = (unsigned char)(i * 7);
		p[n - 1] = 0xa5;
		bool same = p[n - 1] == 0xa5;
		for (size_t i = 0; i < n - 1 && same; i += 4093)
			same = p[i] == (unsigned char)(i * 7);
		UNIT_CHECK(same, "every byte of %zu is kept", n);
		fk_big_free(p, n);
	}
	fk_big_free(NULL, 8u << 20);

	/* fk_zalloc: zero memory, small and big, reused memory included (malloc's own first) */
	for (int round = 0; round < 2; round++) {
		for (size_t k = 0; k < 3; k++) {
			size_t cnt = k == 0 ? 1000 : k == 1 ? (FK_BIG_FROM / 8) - 1 : (FK_BIG_FROM / 8) * 3;
			uint64_t *z = fk_zalloc(cnt, sizeof(*z));
			UNIT_CHECK(z != NULL, "fk_zalloc of %zu", cnt);
			if (!z)
				continue;
			bool zero = true;
			for (size_t i = 0; i < cnt && zero; i++)
				zero = z[i] == 0;
			UNIT_CHECK(zero, "fk_zalloc's %zu entries are zero (round %d)", cnt, round);
			for (size_t i = 0; i < cnt; i++)
				z[i] = ~(uint64_t)0;
			fk_zfree(z, cnt, sizeof(*z));
		}
	}

	/* a toucher writes the pages, once, over the whole block */
	for (size_t k = 0; k < 2; k++) {
		size_t cnt = k ? FK_BIG_FROM : 4096;
		touches = touched = 0;
		fk_toucher t = { count_touch, NULL };
		char *z = fk_zalloc_by(cnt, 1, &t);
		UNIT_CHECK(z && touches == 1 && touched == cnt, "the toucher wrote %zu bytes once (%zu calls, %zu bytes)",
			   cnt, touches, touched);
		fk_zfree(z, cnt, 1);
		/* a toucher without its function: the pages written here */
		fk_toucher none = { NULL, NULL };
		z = fk_zalloc_by(cnt, 1, &none);
		UNIT_CHECK(z && z[0] == 0 && z[cnt - 1] == 0, "a toucher without touch: zero memory all the same");
		fk_zfree(z, cnt, 1);
	}

	UNIT_CHECK(fk_zalloc(SIZE_MAX / 2, 4) == NULL, "an overflowing count is refused");
	return unit_failures != 0;
}

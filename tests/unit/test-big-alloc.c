/* test-big-alloc.c - fk_big_alloc and fk_zalloc: blocks of FK_BIG_FROM bytes or more are a
 * mapping of their own starting at a 2 MiB boundary, with huge pages asked for over all of
 * it (where the kernel offers them); smaller ones come from malloc; fk_zalloc's memory is
 * zero either way, its pages written by the toucher given (once, over the whole block); an
 * overflowing size is refused. Each is freed by its own free (a mapping given to free()
 * would abort the test). fk_populate makes pages present without changing a byte, while
 * another thread writes there; fk_profile_fronts says where a profile's appends go next;
 * fk_grow_reserved_from moves an array once into a 2 MiB-aligned stretch, huge pages asked
 * for from where it is told. */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "internal.h"
#include "unit.h"

/* How many of the pages of [p, p + size) are present (mincore). */
static size_t pages_in(void *p, size_t size)
{
	size_t n = size / 4096, in = 0;
	unsigned char *v = malloc(n);
	if (!v || mincore(p, size, v)) {
		free(v);
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		in += v[i] & 1;
	free(v);
	return in;
}

/* A writer beside fk_populate: a byte of its own in every page, from the first page on. */
struct writer {
	unsigned char *p;
	size_t size;
};
static void *write_pages(void *arg)
{
	struct writer *w = arg;
	for (size_t o = 0; o < w->size; o += 4096)
		w->p[o + 17] = (unsigned char)(o / 4096 * 31 + 1);
	return NULL;
}

/* fk_populate: false only where the kernel cannot (then nothing else is checked). */
static void check_populate(void)
{
	const size_t size = 8u << 20;
	unsigned char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				-1, 0);
	UNIT_CHECK(p != MAP_FAILED, "8 MiB mapped");
	if (p == MAP_FAILED)
		return;
	for (size_t o = 0; o < (1u << 20); o += 3 * 4096)
		p[o + 5] = (unsigned char)(o / 4096 + 7);
	if (!fk_populate(p, size)) {
		fprintf(stderr, "test-big-alloc: MADV_POPULATE_WRITE refused (a kernel before 5.14?): fk_populate not checked\n");
		munmap(p, size);
		return;
	}
	UNIT_CHECK(pages_in(p, size) == size / 4096, "every page present after fk_populate (%zu of %zu)",
		   pages_in(p, size), size / 4096);
	bool kept = true, zero = true;
	for (size_t o = 0; o < size; o += 4096)
		for (size_t i = 0; i < 4096; i += 1)
			if (o < (1u << 20) && o % (3 * 4096) == 0 && i == 5)
				kept &= p[o + i] == (unsigned char)(o / 4096 + 7);
			else
				zero &= p[o + i] == 0;
	UNIT_CHECK(kept, "the bytes written before fk_populate are kept");
	UNIT_CHECK(zero, "the other bytes are zero");
	UNIT_CHECK(fk_populate(p, 0), "nothing to make: true");
	/* a range that runs past the mapping: false */
	munmap(p + size - 4096, 4096);
	UNIT_CHECK(!fk_populate(p + size - 8192, 8192), "a range partly unmapped: false");
	munmap(p, size - 4096);

	/* made while another thread writes there (fresh memory, in 1 MiB steps behind it and
	 * ahead of it): every byte it wrote is there */
	for (int round = 0; round < 4; round++) {
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		UNIT_CHECK(p != MAP_FAILED, "8 MiB mapped");
		if (p == MAP_FAILED)
			return;
		struct writer w = { p, size };
		pthread_t th;
		bool two = pthread_create(&th, NULL, write_pages, &w) == 0;
		for (size_t k = 0; k < 8; k++) {
			size_t step = round & 1 ? 7 - k : k;
			UNIT_CHECK(fk_populate(p + step * (1u << 20), 1u << 20), "a MiB made beside a writer");
		}
		if (two)
			pthread_join(th, NULL);
		else
			write_pages(&w);
		bool all = true;
		for (size_t o = 0; o < size && all; o += 4096)
			all = p[o + 17] == (unsigned char)(o / 4096 * 31 + 1) && p[o] == 0;
		UNIT_CHECK(all, "the writer's bytes all there (round %d)", round);
		munmap(p, size);
	}
}

/* fk_profile_fronts: an array's front is where its next append goes (on the heap: none). */
static void check_fronts(void)
{
	fk_profile *p = fk_profile_new(0);
	UNIT_CHECK(p != NULL, "a profile");
	if (!p)
		return;
	fk_front f[FK_FRONTS];
	fk_profile_fronts(p, f);
	for (int k = 0; k < FK_FRONTS; k++)
		UNIT_CHECK(!f[k].at && !f[k].end, "a new profile: front %d on the heap", k);
	char name[64];
	uint32_t ids[40];
	/* past FK_RESERVE_FROM bytes of names, of their bytes, of stacks' ids and of stacks */
	size_t nn = 0;
	for (size_t i = 0; i < 120000; i++) {
		int len = snprintf(name, sizeof(name), "com.example.server.handler.Frame%07zu", i);
		fk_front before[FK_FRONTS];
		fk_profile_fronts(p, before);
		int64_t id = fk_profile_intern(p, name, (size_t)len);
		UNIT_CHECK(id >= 0, "name %zu interned", i);
		if (id < 0)
			break;
		size_t got;
		const char *s = fk_profile_name(p, (uint32_t)id, &got);
		if (before[1].at && s != before[1].at) {
			UNIT_CHECK(false, "name %zu's bytes at its array's front (%p, front %p)", i, (void *)s,
				   (void *)before[1].at);
			break;
		}
		ids[nn++ % 40] = (uint32_t)id;
		if (nn >= 40 && i % 3 == 2) { /* (a stack of the last 40 names: each one new) */
			UNIT_CHECK(fk_profile_add_seq(p, ids, 40, 0, 1) == 0, "a stack added");
			fk_front after[FK_FRONTS];
			fk_profile_fronts(p, after);
			if (before[2].at && after[2].at == before[2].at + 40 * sizeof(uint32_t) && after[2].end == before[2].end)
				continue;
			if (before[2].at) {
				UNIT_CHECK(false, "a stack of 40 ids moved the ids' front by 160 bytes (%td)",
					   after[2].at - before[2].at);
				break;
			}
		}
	}
	fk_profile_fronts(p, f);
	for (int k = 0; k < FK_FRONTS; k++)
		UNIT_CHECK(f[k].at && f[k].end > f[k].at, "front %d in its stretch, before its end", k);
	fk_profile_free(p);
}

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

/* fk_grow_reserved_from: an array grown a step at a time stays on the heap under
 * FK_RESERVE_FROM bytes, then moves once, its values kept, into a stretch that starts at a
 * 2 MiB boundary, with huge pages asked for from huge_from on (and not before it), where it
 * then grows in place. */
static void check_reserved(bool thp)
{
	const size_t froms[] = { 0, FK_HUGE_FROM };
	for (size_t k = 0; k < 2; k++) {
		size_t from = froms[k];
		uint32_t *a = NULL;
		size_t cap = 0, res = 0, n = 0, moves = 0;
		void *last = NULL;
		bool kept = true, heap_small = true;
		while (n < (3u << 20) / sizeof(*a) + 777) {
			size_t need = n + 1000;
			if (fk_grow_reserved_from((void **)&a, &cap, &res, need, sizeof(*a), from)) {
				UNIT_CHECK(0, "grown to %zu elements", need);
				return;
			}
			if (res && (void *)a != last)
				moves++;
			last = a;
			if (need * sizeof(*a) < FK_RESERVE_FROM)
				heap_small &= res == 0;
			for (; n < need; n++)
				a[n] = (uint32_t)(n * 2654435761u);
			for (size_t i = 0; i < n && kept; i += 997)
				kept = a[i] == (uint32_t)(i * 2654435761u);
		}
		UNIT_CHECK(heap_small, "huge_from %zu: on the heap under FK_RESERVE_FROM bytes", from);
		UNIT_CHECK(res > 0 && moves == 1, "huge_from %zu: moved once into its stretch (%zu moves)", from, moves);
		UNIT_CHECK(kept, "huge_from %zu: every value kept as it grew and moved", from);
		UNIT_CHECK((uintptr_t)a % (2u << 20) == 0, "huge_from %zu: the stretch starts at a 2 MiB boundary (%p)",
			   from, (void *)a);
		char fl[256];
		if (thp && res > from) {
			UNIT_CHECK(vm_flags((char *)a + from, fl, sizeof(fl)) && strstr(fl, " hg"),
				   "huge_from %zu: huge pages asked for from there on", from);
			if (from)
				UNIT_CHECK(vm_flags(a, fl, sizeof(fl)) && !strstr(fl, " hg"),
					   "huge_from %zu: not before it", from);
		}
		fk_free_reserved(a, res);
	}
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
	check_populate();
	check_fronts();
	check_reserved(thp);
	return unit_failures != 0;
}

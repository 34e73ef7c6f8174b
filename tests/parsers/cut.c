/* cut.c - an LD_PRELOAD shim for t-cut-short.sh: the file named by FK_CUT_FILE is cut to
 * FK_CUT_TO bytes (truncate) right after the FK_CUT_NTH-th (1) read-only mapping of it is
 * made, as another program cutting it short while flamekit reads it would; with
 * FK_CUT_ON=walk, once the mapping's pages are let go of from its start again (a sorted
 * file checked whole, then walked: the walk begins). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_madvise)(void *, size_t, int);
static char *lo, *hi, *last; /* the file's mapping, and the last page let go of in it */

static void cut_now(void)
{
	if (truncate(getenv("FK_CUT_FILE"), (off_t)strtoll(getenv("FK_CUT_TO"), NULL, 10)) != 0)
		perror("cut.c: truncate");
}

static void cut(int fd, void *m, size_t len)
{
	const char *want = getenv("FK_CUT_FILE"), *to = getenv("FK_CUT_TO");
	char link[64], got[4096];
	if (!want || !to || fd < 0)
		return;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, got, sizeof(got) - 1);
	if (n <= 0)
		return;
	got[n] = 0;
	static int seen;
	const char *nth = getenv("FK_CUT_NTH");
	if (strcmp(got, want) || ++seen != (nth ? atoi(nth) : 1))
		return;
	const char *on = getenv("FK_CUT_ON");
	if (on && !strcmp(on, "walk")) {
		lo = m, hi = (char *)m + len, last = NULL;
		return;
	}
	cut_now();
}

int madvise(void *addr, size_t len, int advice)
{
	if (!real_madvise)
		real_madvise = (int (*)(void *, size_t, int))dlsym(RTLD_NEXT, "madvise");
	char *a = addr;
	if (advice == MADV_DONTNEED && lo && a >= lo && a < hi) {
		if (last && a < last) {
			cut_now();
			lo = hi = NULL;
		} else {
			last = a;
		}
	}
	return real_madvise(addr, len, advice);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (!real_mmap)
		real_mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	void *m = real_mmap(addr, len, prot, flags, fd, off);
	if (m != MAP_FAILED && prot == PROT_READ && !(flags & MAP_ANONYMOUS))
		cut(fd, m, len);
	return m;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

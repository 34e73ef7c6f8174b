/* perf-oom.c - fails the perf script parser's Nth allocation for N = 1, 2, ... (one and two
 * threads, samples kept): every run must end with 0 or an error, never crash or leak (the
 * sanitizer build checks leaks). Run by t-api.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flamekit.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
static long countdown = -1; /* fail when it reaches 0; -1 = never */

static int fail_now(void)
{
	if (countdown < 0)
		return 0;
	return countdown-- == 0;
}
void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t m) { return fail_now() ? NULL : __real_calloc(n, m); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }

static void quiet(enum fk_level l, const char *m, void *c) { (void)l, (void)m, (void)c; }

int main(void)
{
	static char in[1 << 16];
	size_t len = 0;
	for (unsigned i = 0; len + 300 < sizeof(in); i++)
		len += (size_t)snprintf(in + len, sizeof(in) - len,
					"p%u x %u/%u [00%u] %u.5: %u cpu-clock: \n\t40%04x fn%u(int)+0x1 (/x/a)\n"
					"\t401000 a->b (/x/a)\n\t0 [unknown] ([unknown])\n\n",
					i % 3, i, i + 1, i % 4, i, 100 + i, i % 50, i % 13);
	setenv("FLAMEKIT_SPLIT_MIN", "1024", 1);
	fk_set_print(quiet, NULL);
	for (unsigned threads = 1; threads <= 2; threads++) {
		long n;
		for (n = 0;; n++) {
			fk_parse_opts o;
			fk_parse_opts_init(&o);
			o.format = "perf";
			o.threads = threads;
			fk_profile *p = fk_profile_new(FK_PROFILE_SAMPLES);
			if (!p)
				return 1;
			countdown = n;
			int rc = fk_parse_buffer(p, in, len, &o, NULL);
			long left = countdown;
			countdown = -1;
			fk_profile_free(p);
			if (rc != 0 && rc != -FK_E_NOMEM && rc != -FK_E_SKIPPED) {
				fprintf(stderr, "perf-oom: allocation %ld failed gave %d\n", n, rc);
				return 1;
			}
			if (left >= 0) /* no allocation was failed: all paths tried */
				break;
		}
		printf("perf-oom: %u thread(s): failed each of %ld allocations in turn, no crash\n", threads, n);
	}
	return 0;
}

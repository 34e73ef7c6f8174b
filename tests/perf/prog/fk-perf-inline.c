/* fk-perf-inline.c - recorded with DWARF unwinding by tests/perf/record.sh: static
 * functions that -O2 inlines into their callers (what --inline recovers). */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

static inline unsigned long mix(unsigned long x)
{
	x ^= x >> 13;
	x *= 0x9e3779b97f4a7c15ul;
	return x ^ (x >> 7);
}

static inline void inner_loop(int n)
{
	for (int i = 0; i < n; i++)
		sink += mix((unsigned long)i);
}

__attribute__((noinline)) static void outer(int n)
{
	inner_loop(n);
	sink++;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.5, end = now() + secs;
	while (now() < end)
		outer(50000);
	return 0;
}

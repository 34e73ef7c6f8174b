/* busy.c - benchmark workload for bench/b-perf-plugin.sh: N processes walk a
 * pseudo-random call tree of 64 functions (deep, varied stacks, like a real
 * program), so a short recording holds many samples and many unique stacks. */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static unsigned long rng = 88172645463325252ull;
static double stop_at;

static unsigned long next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

typedef void (*fn)(int depth);
static fn table[64];

static void step(int depth)
{
	for (int i = 0; i < 2000; i++)
		sink += (unsigned long)i;
	if (depth < 24 && (next() & 3))
		table[next() & 63](depth + 1);
}

#define F(n) __attribute__((noinline)) static void f##n(int d) { step(d); sink++; }
#define F8(a) F(a##0) F(a##1) F(a##2) F(a##3) F(a##4) F(a##5) F(a##6) F(a##7)
F8(0) F8(1) F8(2) F8(3) F8(4) F8(5) F8(6) F8(7)
#define T(n) f##n,
#define T8(a) T(a##0) T(a##1) T(a##2) T(a##3) T(a##4) T(a##5) T(a##6) T(a##7)
static fn init[64] = { T8(0) T8(1) T8(2) T8(3) T8(4) T8(5) T8(6) T8(7) };

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) : 4;
	double secs = argc > 2 ? atof(argv[2]) : 3;
	for (int i = 0; i < 64; i++)
		table[i] = init[i];
	stop_at = now() + secs;
	for (int p = 0; p < procs; p++) {
		if (fork() == 0) {
			rng += (unsigned long)p * 7919;
			while (now() < stop_at)
				table[next() & 63](0);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	return 0;
}

/* fk-perf-fp.c - busy C program recorded by tests/perf/record.sh: fixed call chains,
 * recursion of varying depth, a hot and a cold leaf, some system calls (kernel frames). */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static void leaf_hot(int n)
{
	for (int i = 0; i < n; i++)
		sink += (unsigned long)i * 7;
}

__attribute__((noinline)) static void leaf_cold(int n)
{
	for (int i = 0; i < n; i++)
		sink ^= (unsigned long)i;
}

__attribute__((noinline)) static void recurse(int d)
{
	if (d == 0) {
		leaf_hot(20000);
		return;
	}
	recurse(d - 1);
	sink++;
}

__attribute__((noinline)) static void do_syscalls(void)
{
	for (int i = 0; i < 200; i++)
		sink += (unsigned long)getppid();
}

__attribute__((noinline)) static void middle(int k)
{
	if (k % 7 == 0)
		do_syscalls();
	else if (k % 3 == 0)
		leaf_cold(30000);
	else
		recurse(k % 5);
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
	for (int k = 0; now() < end; k++)
		middle(k);
	return 0;
}

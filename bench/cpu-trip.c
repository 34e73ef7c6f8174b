/* cpu-trip.c - how far apart the machine's first two CPUs are at this moment: the mean time
 * for a cache line to go from one to the other and back (two threads, each pinned to one of
 * the first two CPUs the process may use, taking turns to write a counter), in ns, on one
 * line. On a VM the host places the two virtual CPUs where it likes, and moves them: here
 * the same two CPUs measured ~55-130 ns (one cache) and 250-635 ns (not) minutes apart,
 * and the batch reader's second thread, whose writes wait on lines the first has read,
 * split a collapse tool's output in up to 2.5x the time in the second case.
 * bench/b-threads.sh takes it before each round.
 *
 *     cpu-trip [ROUNDTRIPS]     (20000)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Alignas(128) volatile long turn;
static long trips;
static int cpus[2];

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static void *answer(void *arg)
{
	(void)arg;
	pin(cpus[1]);
	for (long i = 0; i < trips; i++) {
		while (turn != 2 * i + 1)
			;
		turn = 2 * i + 2;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	trips = argc > 1 ? atol(argv[1]) : 20000;
	cpu_set_t s;
	int n = 0;
	if (trips <= 0 || sched_getaffinity(0, sizeof(s), &s))
		return puts("-") == EOF;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &s))
			cpus[n++] = c;
	if (n < 2)
		return puts("-") == EOF; /* (one CPU: nothing to measure) */
	pin(cpus[0]);
	pthread_t th;
	if (pthread_create(&th, NULL, answer, NULL))
		return puts("-") == EOF;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < trips; i++) {
		turn = 2 * i + 1;
		while (turn != 2 * i + 2)
			;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(th, NULL);
	double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	printf("%.0f\n", ns / (double)trips);
	return 0;
}

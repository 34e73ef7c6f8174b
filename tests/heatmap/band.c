/* band.c - workload with a known time pattern for the heat map tests: a thread
 * named "band-worker" burns CPU for the first 200 ms of every CLOCK_MONOTONIC
 * second and sleeps for the other 800 ms. Record it with `perf record -k mono`
 * so perf's timestamps use the same clock. Usage: band SECONDS */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static int seconds = 5;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Two distinct leaf functions so flame graphs show something to select. */
__attribute__((noinline)) static void band_spin_inner(void)
{
	for (int i = 0; i < 20000; i++)
		sink += (unsigned long)i * 2654435761u;
}

__attribute__((noinline)) static void band_spin(double until)
{
	while (now() < until)
		band_spin_inner();
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "band-worker");
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (int s = 0; s < seconds; s++) {
		/* wake at the next whole second, work 200 ms, sleep again */
		ts.tv_sec += 1;
		ts.tv_nsec = 0;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		band_spin((double)ts.tv_sec + 0.2);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		seconds = atoi(argv[1]);
	if (seconds < 1 || seconds > 600) {
		fprintf(stderr, "usage: band SECONDS (1-600)\n");
		return 2;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL)) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(t, NULL);
	return 0;
}

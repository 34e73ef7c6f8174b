/* fk-target.c - programs with known call paths for the gdb plugin's tests and benchmark:
 * `fk-target MODE [ARGS]`, prints "ready PID" once its threads run. Work is counted in
 * loop iterations, not time, so stops by the sampler do not distort the split. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../workload.h"

#define NOINLINE __attribute__((noinline))
static volatile unsigned long sink;

NOINLINE void burn(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}

/* Inlined into path_a: shows as a frame of its own (inline expansion). */
static inline __attribute__((always_inline)) void inl_hot(unsigned long n)
{
	burn(n);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void path_a(unsigned long unit) { inl_hot(3 * unit); __asm__ volatile(""); }
NOINLINE void path_b(unsigned long unit) { burn(unit); __asm__ volatile(""); }

/* 3:1 split between path_a and path_b, in every round. A round's unit is drawn
 * (100000-299999, 200000 on average: round_size): rounds of one size (~1 ms) made
 * successive samples at 400 Hz correlated 0.33, doubling the variance of the split. */
NOINLINE void *worker(void *arg)
{
	pthread_setname_np(pthread_self(), "fk-worker");
	unsigned long x = WORKLOAD_SEED;
	for (;;) {
		unsigned long unit = round_size(&x, 100000, 200000);
		path_a(unit);
		path_b(unit);
	}
	return NULL;
}

NOINLINE void wait_here(void)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	__asm__ volatile("");
}

NOINLINE void *sleeper(void *arg)
{
	pthread_setname_np(pthread_self(), "fk-sleeper");
	for (;;)
		wait_here();
	return NULL;
}

/* long enough that a short thread is alive for most of the spawner's cycle */
NOINLINE void short_lived(void) { burn(2000000); __asm__ volatile(""); }

NOINLINE void *short_thread(void *arg)
{
	pthread_setname_np(pthread_self(), "fk-short");
	short_lived();
	return NULL;
}

/* threads appear and vanish all the time */
NOINLINE void *spawner(void *arg)
{
	pthread_setname_np(pthread_self(), "fk-spawner");
	for (;;) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_thread, NULL) == 0)
			pthread_join(t, NULL);
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* deep stacks for the benchmark: DEPTH frames, then mostly asleep */
static int depth;
NOINLINE void leaf_loop(void)
{
	for (;;) {
		burn(20000);
		struct timespec ts = { 0, 2 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

NOINLINE int recurse(int n)
{
	if (n <= 0)
		leaf_loop();
	else
		recurse(n - 1);
	__asm__ volatile("");
	return n;
}

NOINLINE void *deep_thread(void *arg)
{
	pthread_setname_np(pthread_self(), "fk-deep");
	recurse(depth);
	return NULL;
}

/* Stop watcher (benchmark): wakes every 200 us; a wake-up later than 300 us past
 * its time means the process was stopped in between. On SIGUSR2 the gaps seen
 * since the last dump go to the gap file (count, median, p90 in ms). */
static const char *gap_file;
static double gaps[1 << 16];
static volatile int ngaps;
static volatile sig_atomic_t dump_req;

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

NOINLINE void *watcher(void *arg)
{
	pthread_setname_np(pthread_self(), "fk-watch");
	struct timespec ts = { 0, 200 * 1000 };
	double prev = mono();
	for (;;) {
		nanosleep(&ts, NULL);
		double now = mono(), late = now - prev - 200e-6;
		prev = now;
		if (late > 300e-6 && ngaps < (int)(sizeof(gaps) / sizeof(gaps[0])))
			gaps[ngaps++] = late;
	}
	return NULL;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void on_usr2(int sig) { dump_req = 1; }
static volatile sig_atomic_t quit_req;
static void on_usr1(int sig) { quit_req = 1; }

static void dump_gaps(void)
{
	int n = ngaps;
	ngaps = 0;
	qsort(gaps, (size_t)n, sizeof(double), cmp_d);
	FILE *f = fopen(gap_file, "w");
	if (!f)
		return;
	fprintf(f, "%d %.3f %.3f\n", n, n ? gaps[n / 2] * 1e3 : 0, n ? gaps[(int)(n * 0.9)] * 1e3 : 0);
	fclose(f);
}

static void start(void *(*fn)(void *))
{
	pthread_t t;
	if (pthread_create(&t, NULL, fn, NULL) != 0) {
		perror("pthread_create");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "split";
	double exit_after = 0;
	if (!strcmp(mode, "sigint")) {
		/* blocked in every thread: a stop by SIGINT would never arrive */
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGINT);
		sigprocmask(SIG_BLOCK, &s, NULL);
	}
	if (!strcmp(mode, "split") || !strcmp(mode, "sigint") || !strcmp(mode, "exit")) {
		start(worker);
		start(sleeper);
		/* "exit usr1": when told (SIGUSR1, to whichever thread), not after a time */
		if (!strcmp(mode, "exit") && argc > 2 && !strcmp(argv[2], "usr1")) {
			signal(SIGUSR1, on_usr1);
			exit_after = -1;
		} else if (!strcmp(mode, "exit")) {
			exit_after = argc > 2 ? atof(argv[2]) : 1.5;
		}
	} else if (!strcmp(mode, "churn")) {
		start(worker);
		start(spawner);
	} else if (!strcmp(mode, "deep")) {
		depth = argc > 2 ? atoi(argv[2]) : 150;
		int n = argc > 3 ? atoi(argv[3]) : 6;
		for (int i = 0; i < n; i++)
			start(deep_thread);
		if (argc > 4) {
			gap_file = argv[4];
			signal(SIGUSR2, on_usr2);
			start(watcher);
		}
	} else {
		fprintf(stderr, "usage: fk-target split|sigint|exit [SECONDS]|churn|deep [DEPTH [THREADS [GAPFILE]]]\n");
		return 2;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (exit_after < 0 && !quit_req) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	if (quit_req)
		exit(0);
	if (exit_after > 0) {
		struct timespec ts = { (time_t)exit_after, (long)((exit_after - (time_t)exit_after) * 1e9) };
		nanosleep(&ts, NULL);
		exit(0);
	}
	for (;;) {
		pause();
		if (dump_req && gap_file) {
			dump_req = 0;
			dump_gaps();
		}
	}
}

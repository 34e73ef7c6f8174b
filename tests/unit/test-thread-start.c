/* test-thread-start.c - fk_thread_start: the thread runs fn(arg) and is joined as
 * pthread_create's; where the process may run on two CPUs or more it starts on one other
 * than the CPU its maker was on (the kernel is not let queue it behind its maker), and then
 * may run on every CPU the process may (the placement is for its start only); where the
 * process may run on one CPU, it runs there. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "unit.h"

struct seen {
	int cpu;       /* the CPU the thread first ran on */
	cpu_set_t may; /* the CPUs it may run on, once started */
	int arg;
};

static void *run(void *v)
{
	struct seen *s = v;
	s->cpu = sched_getcpu();
	sched_getaffinity(0, sizeof(s->may), &s->may);
	s->arg *= 2;
	return s;
}

/* A thread started from CPU `from` (the maker pinned there, then let go: it is there as the
 * thread is made, and may run anywhere again): 1 if it started on the maker's CPU. A maker
 * moved by the kernel between its look at its CPU and the start would make a false count:
 * its CPU is read before and after, and a start where they differ is not counted. */
static int one(const cpu_set_t *all, int from)
{
	cpu_set_t pin;
	CPU_ZERO(&pin);
	CPU_SET(from, &pin);
	UNIT_CHECK(sched_setaffinity(0, sizeof(pin), &pin) == 0, "pin the maker to CPU %d", from);
	UNIT_CHECK(sched_setaffinity(0, sizeof(*all), all) == 0, "the maker's mask back");
	int maker = sched_getcpu();
	struct seen s = { .cpu = -1, .arg = 21 };
	pthread_t th;
	UNIT_CHECK(fk_thread_start(&th, run, &s) == 0, "thread started");
	void *ret = NULL;
	UNIT_CHECK(pthread_join(th, &ret) == 0, "thread joined");
	int after = sched_getcpu();
	UNIT_CHECK(ret == &s && s.arg == 42, "fn ran with its arg and its return value came back");
	UNIT_CHECK(CPU_EQUAL(&s.may, all), "once started, the thread may run on every CPU the process may");
	UNIT_CHECK(s.cpu >= 0 && CPU_ISSET(s.cpu, all), "started on CPU %d, one the process may use", s.cpu);
	return CPU_COUNT(all) >= 2 && maker == after && s.cpu == maker;
}

int main(void)
{
	cpu_set_t all;
	if (sched_getaffinity(0, sizeof(all), &all) != 0) {
		fprintf(stderr, "test-thread-start: sched_getaffinity failed\n");
		return 1;
	}
	int n = 0, first = -1;
	for (int c = 0; c < CPU_SETSIZE && n < 4; c++) {
		if (!CPU_ISSET(c, &all))
			continue;
		if (first < 0)
			first = c;
		int same = 0;
		for (int k = 0; k < 10; k++)
			same += one(&all, c);
		/* (left to the kernel, 9 of 15 starts on an idle 2-CPU VM were on the maker's CPU) */
		UNIT_CHECK(same <= 1, "from CPU %d: %d of 10 threads started on the maker's CPU", c, same);
		n++;
	}
	/* a process on one CPU: the thread there */
	cpu_set_t lone;
	CPU_ZERO(&lone);
	CPU_SET(first, &lone);
	UNIT_CHECK(sched_setaffinity(0, sizeof(lone), &lone) == 0, "the process on CPU %d alone", first);
	one(&lone, first);
	printf("test-thread-start: %d CPUs, %s\n", CPU_COUNT(&all), unit_failures ? "FAILED" : "ok");
	return unit_failures ? 1 : 0;
}

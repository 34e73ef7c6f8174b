/* wakeload.c - a thread ("sleeper") blocks in wait_for_signal on a condition
 * variable (a futex word); the main thread wakes it from wake_sleeper after known
 * work (make_work), ten rounds; the sleeper answers each round from answer. The
 * futex calls are system calls made here: glibc's pthread_cond_* have no frame
 * pointers, so a user stack taken inside them would end there. `wakeload wait`
 * waits for SIGUSR1 before (a tracer attached), prints "done" and waits for
 * another after (the tracer resolves its symbols in a live process). */
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "handshake.h"

static volatile int go, back;
static volatile unsigned long sink;

static inline __attribute__((always_inline)) long futex(volatile int *w, int op, int val)
{
	long ret;
	register long r10 __asm__("r10") = 0;
	__asm__ volatile("syscall" : "=a"(ret)
			 : "0"((long)SYS_futex), "D"(w), "S"((long)op), "d"((long)val), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/* block until *w is no longer seen */
__attribute__((noinline)) void wait_for_signal(volatile int *w, int seen)
{
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == seen)
		futex(w, FUTEX_WAIT_PRIVATE, seen);
}

__attribute__((noinline)) void wake_sleeper(volatile int *w)
{
	__atomic_add_fetch(w, 1, __ATOMIC_RELEASE);
	futex(w, FUTEX_WAKE_PRIVATE, 1);
}

__attribute__((noinline)) void answer(volatile int *w)
{
	__atomic_add_fetch(w, 1, __ATOMIC_RELEASE);
	futex(w, FUTEX_WAKE_PRIVATE, 1);
}

__attribute__((noinline)) void make_work(void)
{
	for (long k = 0; k < 20000000; k++)
		sink += (unsigned long)k;
}

static void *sleeper(void *arg)
{
	prctl(PR_SET_NAME, "sleeper");
	for (int i = 0; i < 10 || arg; i++) {
		wait_for_signal(&go, i);
		answer(&back);
	}
	wait_for_signal(&go, 10);   /* until main lets it end */
	return NULL;
}

int main(int argc, char **argv)
{
	handshake_begin(argc, argv);
	pthread_t t;
	if (pthread_create(&t, NULL, sleeper, argc > 1 && !strcmp(argv[1], "loop") ? "" : NULL))
		return 1;
	/* `wakeload loop`: rounds until killed */
	bool loop = argc > 1 && !strcmp(argv[1], "loop");
	for (int i = 0; i < 10 || loop; i++) {
		make_work();
		wake_sleeper(&go);
		wait_for_signal(&back, i);
	}
	/* both threads still there while a tracer resolves its symbols (a user
	 * stack of a thread that has ended no longer resolves: bpftrace reads
	 * the maps of the thread it was taken in) */
	handshake_end();
	wake_sleeper(&go);
	pthread_join(t, NULL);
	return 0;
}

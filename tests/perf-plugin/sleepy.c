/* sleepy.c - off-CPU test workload: main -> nap blocks 5 x 100 ms in
 * nanosleep (issued inline, so nap itself is the first user frame even
 * though libc has no frame pointers); main -> burn spins on the CPU. */
#include <stdlib.h>
#include <time.h>
#include <sys/syscall.h>

static volatile unsigned long sink;

__attribute__((noinline)) void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	long ret;
	/* raw syscall: no libc frame between nap and the kernel */
	__asm__ volatile("syscall" : "=a"(ret) : "0"((long)SYS_nanosleep), "D"(&ts), "S"(0L)
			 : "rcx", "r11", "memory");
	(void)ret;
}

__attribute__((noinline)) void burn(long ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 10000; i++)
			sink += i;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
	long burn_ms = argc > 1 ? atol(argv[1]) : 0;
	for (int i = 0; i < 5; i++) {
		nap(100);
		if (burn_ms)
			burn(burn_ms);
	}
	return 0;
}

/* burn.c - the VM tests' workload: a process whose paths burn a known split of
 * its CPU time (measured with its own thread CPU clock), or sleep a known time.
 * Built with frame pointers so stap unwinds it; see tests/stap/vm/README. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

/* (a real system call, not the vDSO: stap has no unwind data for the vDSO,
 * and samples there would lose their stack) */
__attribute__((noinline)) double cpu_ms(void)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Each phase runs until the thread's CPU clock reaches `until` (ms), checking
 * it after small chunks of work. */

/* 50%: plain user-mode arithmetic. */
__attribute__((noinline)) void spin_user(double until)
{
	while (cpu_ms() < until)
		for (int i = 0; i < 50000; i++)
			sink += (unsigned long)i * i;
}

__attribute__((noinline)) int cmp_slow(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	for (int k = 0; k < 40; k++)
		sink += k;
	return (x > y) - (x < y);
}

/* 30%: user mode inside libc's qsort, calling back into this program. */
__attribute__((noinline)) void sort_libc(double until)
{
	static int a[256];
	while (cpu_ms() < until) {
		for (int i = 0; i < 256; i++)
			a[i] = rand();
		qsort(a, 256, sizeof(a[0]), cmp_slow);
	}
}

/* 20%: kernel mode, zeroing read buffers (read(2) of /dev/zero). */
__attribute__((noinline)) void zero_reads(int fd, double until)
{
	static char buf[4 << 20];
	while (cpu_ms() < until)
		sink += read(fd, buf, sizeof(buf));
}

/* Blocks for ms milliseconds, off CPU. */
__attribute__((noinline)) void nap_known(long ms)
{
	usleep(ms * 1000);
}

/* The split repeats every 200 ms of CPU time, so a profile of whole seconds
 * sees 50/30/20 (user / libc / kernel). The phases end at fixed points of the
 * thread's CPU clock: a phase that overruns its end shortens the next one
 * instead of stretching the cycle. */
__attribute__((noinline)) void run_split(double secs)
{
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("/dev/zero");
		exit(1);
	}
	double t = cpu_ms(), end = t + secs * 1e3;
	while (secs <= 0 || t < end) {
		spin_user(t + 100);
		sort_libc(t + 160);
		zero_reads(fd, t + 200);
		t += 200;
	}
	close(fd);
}

/* naps N times ms, says on stderr how long that took by the wall clock (a
 * loaded machine wakes it late), then stays alive (blocked) until killed, so
 * its frames can still be symbolized when a profile is printed. */
__attribute__((noinline)) void run_naps(int n, long ms)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < n; i++)
		nap_known(ms);
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(stderr, "naps: %ld us\n",
		(long)((b.tv_sec - a.tv_sec) * 1000000 + (b.tv_nsec - a.tv_nsec) / 1000));
	pause();
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "split")) {
		run_split(argc > 2 ? atof(argv[2]) : 0);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "naps")) {
		run_naps(atoi(argv[2]), atol(argv[3]));
		return 0;
	}
	fprintf(stderr, "usage: burn split [CPU-SECONDS]   (0: forever)\n"
			"       burn naps N MS            (N sleeps of MS ms, then pause)\n");
	return 2;
}

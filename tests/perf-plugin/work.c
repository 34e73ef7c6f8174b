/* work.c - perf plugin test workload with a known call structure:
 * main -> a -> b -> spin runs 3 units for every unit of main -> c -> spin, so
 * the b path holds 75% of the samples (the same loop code on both paths);
 * "work N": N rounds, ~0.5 ms each on average.
 * "work k" spends its time in the kernel instead (read(2) of /dev/zero from
 * main -> kread). "work n": see ender below. Built with frame pointers, no inlining. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "../workload.h"

static volatile unsigned long sink;

/* Calling it makes spin a non-leaf function: gcc drops the frame pointer of
 * leaf functions even with -fno-omit-frame-pointer, which hides their caller. */
__attribute__((noinline)) void touch(void)
{
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
	touch();
}

__attribute__((noinline)) void b(unsigned long n)
{
	spin(n);
	touch();
}

__attribute__((noinline)) void a(unsigned long n)
{
	b(3 * n);
	touch();
}

__attribute__((noinline)) void c(unsigned long n)
{
	spin(n);
	touch();
}

__attribute__((noinline)) void kread(int rounds)
{
	static char buf[1 << 16];
	int fd = open("/dev/zero", O_RDONLY);
	for (int i = 0; i < rounds && fd >= 0; i++) {
		long ret;
		/* raw read(2): libc's wrapper has no frame pointer and would hide kread */
		__asm__ volatile("syscall" : "=a"(ret) : "0"((long)SYS_read), "D"((long)fd), "S"(buf),
				 "d"(sizeof(buf)) : "rcx", "r11", "memory");
		if (ret < 0)
			break;
	}
	close(fd);
}

/* "work n": main -> ender -> fin, where fin never returns, so the call to it
 * is the last instruction of ender and its return address is the first byte
 * of the next function (after_ender): only an addr-1 lookup names ender. */
__attribute__((noinline, noreturn)) void fin(void)
{
	spin(400000000);
	_exit(0);
}

__attribute__((noinline)) void ender(void)
{
	fin();
}

__attribute__((noinline)) void after_ender(void)
{
	touch();
}

int main(int argc, char **argv)
{
	if (argc > 1 && argv[1][0] == 'n') {
		after_ender();
		ender();
	}
	if (argc > 1 && argv[1][0] == 'k') {
		kread(argc > 2 ? atoi(argv[2]) : 40000);
		return 0;
	}
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	/* Interleave so timing noise hits both paths alike. A round's size is drawn
	 * (250000-749999, 500000 on average: round_size) and both paths take it, so
	 * each round splits 3:1. Rounds of one size (~0.5 ms) made b's share in blocks
	 * of 50 samples at -F 999 stray with an sd of 12-26 points, not the 6 of
	 * independent samples (a run of 510 read 66%); drawn, 6-8 points. */
	unsigned long x = WORKLOAD_SEED;
	for (int r = 0; r < rounds; r++) {
		unsigned long n = round_size(&x, 250000, 500000);
		a(n);
		c(n);
	}
	return 0;
}

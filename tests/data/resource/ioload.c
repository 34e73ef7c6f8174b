/* ioload.c - reads 3 MiB of /dev/zero in read_big and 1 MiB in read_small, which
 * spends more CPU time (a spin between its reads), so bytes split 75/25 by stack
 * while time does not. The reads are system calls made here: libc's read has no
 * frame of its own, so a frame-pointer user stack taken in it would skip its caller.
 * `ioload wait` waits for SIGUSR1 (a tracer attached) before, prints "done" and
 * waits for another after (the tracer resolves its symbols in a live process). */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include "handshake.h"

#define CHUNK (64 * 1024)
static char buf[CHUNK];
static volatile unsigned long sink;

static inline __attribute__((always_inline)) long sys_read(int fd, void *b, long n)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "0"((long)SYS_read), "D"((long)fd), "S"(b), "d"(n)
			 : "rcx", "r11", "memory");
	return ret;
}

/* read exactly bytes from fd; 0 or -1 */
__attribute__((noinline)) static int read_all(int fd, long bytes, int spin)
{
	while (bytes > 0) {
		long got = sys_read(fd, buf, bytes < CHUNK ? bytes : CHUNK);
		if (got <= 0)
			return -1;
		bytes -= got;
		for (long k = 0; k < spin; k++)
			sink += (unsigned long)k;
	}
	return 0;
}

__attribute__((noinline)) int read_big(int fd, long bytes)
{
	return read_all(fd, bytes, 0);
}

__attribute__((noinline)) int read_small(int fd, long bytes)
{
	return read_all(fd, bytes, 5000000);
}

int main(int argc, char **argv)
{
	handshake_begin(argc, argv);
	int fd = open("/dev/zero", O_RDONLY);
	/* `ioload loop`: rounds of 192 KiB in read_big and 64 KiB in read_small,
	 * until killed (a tracer started at any time sees 75/25 but for one round) */
	while (fd >= 0 && argc > 1 && !strcmp(argv[1], "loop"))
		if (read_big(fd, 3 * CHUNK) || read_small(fd, CHUNK))
			return 1;
	if (fd < 0 || read_big(fd, 3L << 20) || read_small(fd, 1L << 20)) {
		perror("ioload: /dev/zero");
		return 1;
	}
	handshake_end(); /* still there while a tracer resolves its symbols */
	return 0;
}

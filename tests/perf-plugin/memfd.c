/* memfd.c - perf test workload: spins in machine code that lives in a memfd mapping
 * (as JITs that double-map their code do), which /proc/PID/maps and perf name
 * "/memfd:fkjit (deleted)". x86-64 only. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	long ms = argc > 1 ? atol(argv[1]) : 300;
	/* mov ecx, 1000000; 1: dec ecx; jnz 1b; ret */
	static const unsigned char code[] = { 0xb9, 0x40, 0x42, 0x0f, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3 };
	int fd = memfd_create("fkjit", 0);
	if (fd < 0 || ftruncate(fd, 4096) != 0 || write(fd, code, sizeof(code)) != (ssize_t)sizeof(code))
		return 1;
	void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	void (*spin)(void) = (void (*)(void))p;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		spin();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return 0;
#else
	(void)argc;
	(void)argv;
	return 2;
#endif
}

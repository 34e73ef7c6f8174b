/* manyreads.c - N reads of 1 to 4 bytes from /dev/zero spread over four functions
 * (a recording of many small weighted events, for bench/b-perf-plugin.sh). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
static char buf[8];
static volatile long sink;
long rd(int fd, int n)
{
	long r = read(fd, buf, (size_t)n);
	sink += r;
	return r;
}
void r1(int fd, long n) { for (long i = 0; i < n; i++) rd(fd, 1); sink++; }
void r2(int fd, long n) { for (long i = 0; i < n; i++) rd(fd, 2); sink++; }
void r3(int fd, long n) { for (long i = 0; i < n; i++) rd(fd, 3); sink++; }
void r4(int fd, long n) { for (long i = 0; i < n; i++) rd(fd, 4); sink++; }
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) / 4 : 250000;
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	r1(fd, n);
	r2(fd, n);
	r3(fd, n);
	r4(fd, n);
	return 0;
}

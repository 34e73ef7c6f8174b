/* iobytes.c - reads 3 MiB from /dev/zero in read_big and 1 MiB in read_small, which
 * spends far more CPU time; then one failing read (a negative ret). */
#include <fcntl.h>
#include <unistd.h>
static char buf[65536];
static volatile unsigned long sink;
/* the frame that calls read: frame-pointer unwinding skips the caller of a leaf
 * without a frame (libc's read), so rd stands in for it */
long rd(int fd)
{
	long r = read(fd, buf, sizeof(buf));
	sink += (unsigned long)r;
	return r;
}
void read_big(int fd)
{
	for (int i = 0; i < 48; i++)
		rd(fd);
	sink++;
}
void read_small(int fd)
{
	for (int i = 0; i < 16; i++) {
		rd(fd);
		for (long k = 0; k < 10000000; k++)
			sink += (unsigned long)k;
	}
}
int main(void)
{
	int fd = open("/dev/zero", O_RDONLY);
	if (fd < 0)
		return 1;
	read_big(fd);
	read_small(fd);
	rd(-1);
	return 0;
}

/* test-mapped.c - input files mapped for reading (common/base/mapped.c): a file cut short
 * while it is mapped reads as its bytes up to the cut and zeros after it (no SIGBUS), and
 * the mapping says it was cut, before and as it is unmapped; one not cut says not; SIGBUS
 * is back at its default once nothing is mapped; a host program's own SIGBUS handler is
 * left in place; and a fault past the end of a file mapped by someone else still ends the
 * process with SIGBUS, as it would without the guard. */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "internal.h"
#include "unit.h"

enum { SIZE = 5 * 4096 + 123, CUT = 4096 + 77 };

static char path[64];

static char at(size_t i) { return (char)('A' + i % 23); }

/* A file of SIZE bytes of at(), open for reading: its descriptor. */
static int make_file(void)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	char buf[SIZE];
	for (size_t i = 0; i < SIZE; i++)
		buf[i] = at(i);
	if (fd < 0 || write(fd, buf, SIZE) != SIZE) {
		perror(path);
		exit(1);
	}
	return fd;
}

static bool sigbus_default(void)
{
	struct sigaction sa;
	return sigaction(SIGBUS, NULL, &sa) == 0 && !(sa.sa_flags & SA_SIGINFO) &&
	       sa.sa_handler == SIG_DFL;
}

static void host_handler(int sig) { (void)sig; }

int main(void)
{
	snprintf(path, sizeof(path), "/tmp/fk-test-mapped.%d", (int)getpid());
	signal(SIGBUS, SIG_DFL); /* (as a program starts: a sanitizer's own handler gone) */

	/* cut short while mapped: the file's bytes up to the cut, zeros after */
	int fd = make_file();
	const char *m = fk_map_input(fd, SIZE);
	UNIT_CHECK(m != NULL, "mapped");
	UNIT_CHECK(!sigbus_default(), "the guard is SIGBUS's handler while a file is mapped");
	UNIT_CHECK(m[SIZE - 1] == at(SIZE - 1), "last byte before the cut");
	UNIT_CHECK(!fk_input_cut(m), "not cut yet");
	UNIT_CHECK(ftruncate(fd, CUT) == 0, "truncated");
	size_t wrong = 0, zeros = 0;
	for (size_t i = 0; i < SIZE; i++) {
		char want = i < CUT ? at(i) : 0;
		wrong += m[i] != want;
		zeros += m[i] == 0;
	}
	UNIT_CHECK(wrong == 0, "%zu bytes not the file's up to the cut and zero after", wrong);
	UNIT_CHECK(zeros == SIZE - CUT, "%zu zeros, want %d", zeros, SIZE - CUT);
	UNIT_CHECK(fk_input_cut(m), "said cut before unmapping");
	UNIT_CHECK(fk_unmap_input(m, SIZE), "said cut as it is unmapped");
	UNIT_CHECK(sigbus_default(), "SIGBUS back at its default");
	close(fd);

	/* not cut: read whole, says not */
	fd = make_file();
	m = fk_map_input(fd, SIZE);
	size_t sum = 0;
	for (size_t i = 0; m && i < SIZE; i++)
		sum += m[i] == at(i);
	UNIT_CHECK(sum == SIZE, "a file left alone reads as itself");
	UNIT_CHECK(!fk_unmap_input(m, SIZE), "a file left alone is not cut");

	/* a host program's handler stays */
	struct sigaction host = { .sa_handler = host_handler }, now;
	sigemptyset(&host.sa_mask);
	sigaction(SIGBUS, &host, NULL);
	m = fk_map_input(fd, SIZE);
	sigaction(SIGBUS, NULL, &now);
	UNIT_CHECK(now.sa_handler == host_handler, "the host's SIGBUS handler left in place");
	fk_unmap_input(m, SIZE);
	sigaction(SIGBUS, NULL, &now);
	UNIT_CHECK(now.sa_handler == host_handler, "the host's SIGBUS handler still there after");
	signal(SIGBUS, SIG_DFL);

	/* a fault in a mapping that is not guarded: SIGBUS, as without the guard */
	pid_t pid = fork();
	if (pid == 0) {
		const char *g = fk_map_input(fd, SIZE); /* (the guard installed) */
		char *plain = mmap(NULL, SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
		if (!g || plain == MAP_FAILED || ftruncate(fd, CUT))
			_exit(3);
		volatile char c = plain[SIZE - 1];
		(void)c;
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	UNIT_CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS,
		   "a fault in an unguarded mapping: status %#x, want death by SIGBUS", st);
	close(fd);
	unlink(path);
	return unit_failures != 0;
}

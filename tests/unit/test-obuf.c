/* test-obuf.c - the buffered writer into a FILE that has a descriptor, which it writes
 * straight once the stream's own buffer is flushed: what the stream held before comes
 * first and what is written to it after comes last; every byte arrives once, in order,
 * through pieces of every size (the buffer's size and more among them), into a file and
 * into a pipe read slowly while a timer interrupts the writes (short writes and EINTR). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include "unit.h"

static int failures;

#define TOTAL (3u << 20)

static uint64_t rng = 0x2545f4914f6cdd1dULL;

/* The bytes written: byte i of the text is a function of i. */
static char at(size_t i) { return (char)('a' + (i * 7 + i / 4099) % 26); }

/* TOTAL bytes of at() through b, in pieces of random sizes (some past the buffer's). */
static void put_all(fk_obuf *b)
{
	static char piece[1u << 20];
	size_t i = 0;
	while (i < TOTAL) {
		uint64_t r = unit_rand(&rng);
		size_t n = r % 8 == 0 ? (r >> 8) % (sizeof(piece) - 1) + 1 : (r >> 8) % 300 + 1;
		if (n > TOTAL - i)
			n = TOTAL - i;
		if (n == 1 && r % 3 == 0) {
			char c = at(i);
			fk_obuf_put(b, &c, 1);
		} else {
			for (size_t k = 0; k < n; k++)
				piece[k] = at(i + k);
			fk_obuf_put(b, piece, n);
		}
		i += n;
	}
}

/* text[0..len) is "head\n", the bytes of at(), "tail\n". */
static void check_text(const char *what, const char *text, size_t len)
{
	if (len != TOTAL + 10 || memcmp(text, "head\n", 5) || memcmp(text + len - 5, "tail\n", 5)) {
		fprintf(stderr, "%s: %zu bytes, not %u with head and tail\n", what, len, TOTAL + 10);
		failures++;
		return;
	}
	for (size_t i = 0; i < TOTAL; i++)
		if (text[5 + i] != at(i)) {
			fprintf(stderr, "%s: byte %zu is '%c', not '%c'\n", what, i, text[5 + i], at(i));
			failures++;
			return;
		}
}

/* head through stdio (held in its buffer), the text through an fk_obuf, tail through stdio */
static int write_through(FILE *f)
{
	fputs("head\n", f);
	fk_obuf b;
	if (fk_obuf_init(&b, f))
		return -1;
	put_all(&b);
	int rc = fk_obuf_finish(&b);
	fputs("tail\n", f);
	return rc;
}

static void into_file(void)
{
	char path[] = "/tmp/fk-test-obuf.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w+") : NULL;
	if (!f) {
		fprintf(stderr, "cannot make a file in /tmp\n");
		exit(1);
	}
	unlink(path);
	if (write_through(f)) {
		fprintf(stderr, "file: a write error\n");
		failures++;
	}
	fflush(f);
	char *text = malloc(TOTAL + 64);
	ssize_t n = text ? pread(fd, text, TOTAL + 64, 0) : -1;
	check_text("file", text, n < 0 ? 0 : (size_t)n);
	free(text);
	fclose(f);
}

/* The pipe's reader: slow (a pause every 64 KiB), into a buffer. */
struct reader {
	int fd;
	char *text;
	size_t len;
};
static void *read_slowly(void *arg)
{
	struct reader *r = arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL); /* (the timer interrupts the writer only) */
	for (;;) {
		ssize_t n = read(r->fd, r->text + r->len, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		r->len += (size_t)n;
		usleep(300);
	}
	return NULL;
}

static volatile sig_atomic_t ticks;
static void on_tick(int sig)
{
	(void)sig;
	ticks++;
}

static void into_pipe(void)
{
	int p[2];
	struct reader r = { 0, malloc(TOTAL + (1u << 20)), 0 };
	if (pipe(p) || !r.text) {
		fprintf(stderr, "no pipe\n");
		exit(1);
	}
	r.fd = p[0];
	pthread_t th;
	if (pthread_create(&th, NULL, read_slowly, &r)) {
		fprintf(stderr, "no thread\n");
		exit(1);
	}
	/* a timer without SA_RESTART: writes into the full pipe end early */
	struct sigaction sa = { 0 };
	sa.sa_handler = on_tick;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	setitimer(ITIMER_REAL, &it, NULL);
	FILE *f = fdopen(p[1], "w");
	if (!f || write_through(f)) {
		fprintf(stderr, "pipe: a write error\n");
		failures++;
	}
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	if (f)
		fclose(f);
	pthread_join(th, NULL);
	close(p[0]);
	check_text("pipe", r.text, r.len);
	if (ticks < 10) {
		fprintf(stderr, "pipe: the timer fired %d times: the writes were not interrupted\n", (int)ticks);
		failures++;
	}
	free(r.text);
}

int main(void)
{
	into_file();
	into_pipe();
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures != 0;
}

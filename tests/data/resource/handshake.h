/* handshake.h - the resource workloads' handshake with a test: `PROG wait` blocks SIGUSR1,
 * prints "ready" and waits for it (a tracer attached) before the work; after it the program
 * prints "done" and, with `wait`, waits for another (the tracer resolves its symbols in a
 * live process). */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool handshake_wait;
static sigset_t handshake_sigs;

static void handshake_begin(int argc, char **argv)
{
	handshake_wait = argc > 1 && !strcmp(argv[1], "wait");
	sigemptyset(&handshake_sigs);
	sigaddset(&handshake_sigs, SIGUSR1);
	if (handshake_wait) {
		int sig;
		sigprocmask(SIG_BLOCK, &handshake_sigs, NULL); /* threads made later inherit it */
		printf("ready\n");
		fflush(stdout);
		sigwait(&handshake_sigs, &sig);
	}
}

static void handshake_end(void)
{
	int sig;
	printf("done\n");
	fflush(stdout);
	if (handshake_wait)
		sigwait(&handshake_sigs, &sig);
}

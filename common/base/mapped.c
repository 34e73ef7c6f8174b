/* mapped.c - input files mapped for reading, guarded against being cut short meanwhile.
 *
 * A big regular file is read through a mapping (two threads read parts of it; a sorted
 * file is walked in place). When another program truncates the file meanwhile (a
 * rotation that copies and truncates, a `perf script > same-file` run again), touching a
 * mapped page past its new end raises SIGBUS, which would end the process with no word
 * of why. While such mappings are read, and only where SIGBUS is left at its default
 * action (a host program's own handler is left alone), a handler maps zero pages over
 * the rest of the mapping the fault hit and marks it cut: the reading goes on over the
 * zeros (a line that runs into them is malformed), and whoever unmaps it hears that the
 * file was cut short (-FK_E_CHANGED: the reading fails, nothing is drawn from it). A fault
 * anywhere else gets the default action, as without the handler. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "internal.h"

enum { GUARDS = 32 };

/* A mapping being read: [lo, hi) (whole pages), cut: a fault past the file's end hit it. */
static struct guard {
	uintptr_t lo, hi;
	int cut;
} guards[GUARDS];

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t page_mask; /* (set before the handler is) */
static unsigned nguarded;  /* mappings registered (under mu) */
int fk_cuts_seen;          /* a guarded mapping was cut, ever */
static bool installed;     /* the handler is SIGBUS's (under mu) */

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	uintptr_t a = (uintptr_t)si->si_addr;
	for (size_t k = 0; k < GUARDS; k++) {
		uintptr_t lo = __atomic_load_n(&guards[k].lo, __ATOMIC_ACQUIRE);
		uintptr_t hi = __atomic_load_n(&guards[k].hi, __ATOMIC_ACQUIRE);
		if (!lo || a < lo || a >= hi)
			continue;
		uintptr_t from = a & ~page_mask;
		if (mmap((void *)from, hi - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
			 -1, 0) == MAP_FAILED)
			break;
		__atomic_store_n(&guards[k].cut, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&fk_cuts_seen, 1, __ATOMIC_RELEASE);
		return; /* the access is made again, and reads a zero */
	}
	/* not a guarded mapping's (or no zero pages to be had): the default action, as the
	 * access is made again */
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
}

const char *fk_map_input(int fd, size_t size)
{
	if (!size)
		return NULL;
	void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return NULL;
	pthread_mutex_lock(&mu);
	page_mask = (uintptr_t)sysconf(_SC_PAGESIZE) - 1;
	if (!nguarded) {
		struct sigaction old;
		installed = false;
		if (sigaction(SIGBUS, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
		    old.sa_handler == SIG_DFL) {
			struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
			sigemptyset(&sa.sa_mask);
			installed = sigaction(SIGBUS, &sa, NULL) == 0;
		}
	}
	for (size_t k = 0; k < GUARDS; k++)
		if (!guards[k].lo) {
			guards[k].cut = 0;
			__atomic_store_n(&guards[k].hi, ((uintptr_t)m + size + page_mask) & ~page_mask,
					 __ATOMIC_RELEASE);
			__atomic_store_n(&guards[k].lo, (uintptr_t)m, __ATOMIC_RELEASE);
			break;
		}
	nguarded++;
	pthread_mutex_unlock(&mu);
	return m;
}

bool fk_mapped_cut(const char *m)
{
	for (size_t k = 0; k < GUARDS; k++)
		if (__atomic_load_n(&guards[k].lo, __ATOMIC_ACQUIRE) == (uintptr_t)m)
			return __atomic_load_n(&guards[k].cut, __ATOMIC_ACQUIRE) != 0;
	return false;
}

bool fk_unmap_input(const char *m, size_t size)
{
	if (!m)
		return false;
	bool cut = false;
	pthread_mutex_lock(&mu);
	for (size_t k = 0; k < GUARDS; k++)
		if (guards[k].lo == (uintptr_t)m) {
			cut = __atomic_load_n(&guards[k].cut, __ATOMIC_ACQUIRE) != 0;
			__atomic_store_n(&guards[k].lo, 0, __ATOMIC_RELEASE);
			break;
		}
	munmap((void *)m, size);
	if (!--nguarded && installed) {
		/* SIGBUS back to its default, unless someone has set it since */
		struct sigaction now, dfl = { .sa_handler = SIG_DFL };
		sigemptyset(&dfl.sa_mask);
		if (sigaction(SIGBUS, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
		    now.sa_sigaction == on_sigbus)
			sigaction(SIGBUS, &dfl, NULL);
		installed = false;
	}
	pthread_mutex_unlock(&mu);
	return cut;
}

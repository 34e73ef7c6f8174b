/* util.c - errors, the print callback, growable arrays, hashing and count
 * formatting shared by every part of the core. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "internal.h"

const char *fk_strerror(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
#define FK_ERR_CASE_(name, num, str) case num: return str;
		FK_ERRORS(FK_ERR_CASE_)
#undef FK_ERR_CASE_
	default:
		return strerror(err);
	}
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* (the library loaded: the debug lines' times count from here) */
static uint64_t t0_ns;
__attribute__((constructor)) static void start_clock(void) { t0_ns = now_ns(); }

/* FLAMEKIT_DEBUG set (not empty, not 0): the debug messages too, each with the time since
 * the library was loaded (where a run's time goes: the reading, the layout, the writing) */
static bool debug_on(void)
{
	static int on = -1;
	if (on < 0) {
		const char *d = getenv("FLAMEKIT_DEBUG");
		on = d && *d && strcmp(d, "0");
	}
	return on;
}

static void default_print(enum fk_level level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == FK_LEVEL_WARN)
		fprintf(stderr, "flamekit: %s\n", msg);
	else if (debug_on())
		fprintf(stderr, "flamekit: debug %.2f ms: %s\n", (double)(now_ns() - t0_ns) / 1e6, msg);
}

static fk_print_fn print_fn = default_print;
static void *print_ctx;

fk_print_fn fk_set_print(fk_print_fn fn, void *ctx)
{
	fk_print_fn old = print_fn;
	print_fn = fn ? fn : default_print;
	print_ctx = fn ? ctx : NULL;
	return old;
}

static _Thread_local unsigned long warnings;

unsigned long fk_log_warnings(void) { return warnings; }

/* Messages held back (fk_log_hold): each a level byte, the text and its NUL. */
#define HOLD_MAX 1000
static _Thread_local struct {
	bool on;
	char *buf;
	size_t len, cap;
	unsigned n;
} held;

void fk_log_hold(void) { held.on = true; }

void fk_log_release(bool print)
{
	for (size_t at = 0; print && at < held.len;) {
		size_t n = strlen(held.buf + at + 1);
		print_fn((enum fk_level)held.buf[at], held.buf + at + 1, print_ctx);
		at += n + 2;
	}
	free(held.buf);
	memset(&held, 0, sizeof(held));
}

/* Keep msg back: true, or false when it must be printed now (all held ones were). */
static bool hold(enum fk_level level, const char *msg)
{
	size_t n = strlen(msg);
	if (held.n < HOLD_MAX && !fk_grow((void **)&held.buf, &held.cap, held.len + n + 2, 1)) {
		held.buf[held.len] = (char)level;
		memcpy(held.buf + held.len + 1, msg, n + 1);
		held.len += n + 2;
		held.n++;
		return true;
	}
	fk_log_release(true); /* too many, or no memory: said now, in order */
	return false;
}

void fk_log(enum fk_level level, const char *fmt, ...)
{
	char msg[1024];
	warnings += level == FK_LEVEL_WARN;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (held.on && hold(level, msg))
		return;
	print_fn(level, msg, print_ctx);
}

struct placed {
	void *(*fn)(void *);
	void *arg;
	cpu_set_t all;
};

static void *placed_run(void *v)
{
	struct placed p = *(struct placed *)v;
	free(v);
	sched_setaffinity(0, sizeof(p.all), &p.all);
	return p.fn(p.arg);
}

int fk_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
	struct placed *p = malloc(sizeof(*p));
	int cpu = sched_getcpu();
	if (!p || cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(p->all), &p->all) ||
	    CPU_COUNT(&p->all) < 2 || !CPU_ISSET(cpu, &p->all)) {
		free(p);
		return pthread_create(th, NULL, fn, arg);
	}
	p->fn = fn;
	p->arg = arg;
	cpu_set_t others = p->all;
	CPU_CLR(cpu, &others);
	pthread_attr_t at;
	int e = pthread_attr_init(&at);
	if (e) {
		free(p);
		return e;
	}
	e = pthread_attr_setaffinity_np(&at, sizeof(others), &others);
	if (!e)
		e = pthread_create(th, &at, placed_run, p);
	pthread_attr_destroy(&at);
	if (e) {
		free(p);
		return pthread_create(th, NULL, fn, arg);
	}
	return 0;
}

struct run2 {
	void (*fn)(void *arg, unsigned part);
	void *arg;
};

static void *run2_second(void *v)
{
	struct run2 *r = v;
	r->fn(r->arg, 1);
	return NULL;
}

void fk_run2(void (*fn)(void *arg, unsigned part), void *arg)
{
	struct run2 r = { fn, arg };
	pthread_t th;
	bool two = fk_thread_start(&th, run2_second, &r) == 0;
	fn(arg, 0);
	if (two)
		pthread_join(th, NULL);
	else
		fn(arg, 1);
}

struct pieces {
	void (*fn)(void *arg, size_t from, size_t to);
	void *arg;
	size_t n, piece;
	_Alignas(64) size_t next; /* (taken by both threads: a line of its own) */
};

static void pieces_take(void *arg, unsigned part)
{
	struct pieces *w = arg;
	(void)part;
	for (;;) {
		size_t i = __atomic_fetch_add(&w->next, w->piece, __ATOMIC_RELAXED);
		if (i >= w->n)
			return;
		w->fn(w->arg, i, w->n - i > w->piece ? i + w->piece : w->n);
	}
}

void fk_run2_pieces(void (*fn)(void *arg, size_t from, size_t to), void *arg, size_t n, size_t piece,
		    bool two)
{
	if (!two || n <= piece) {
		if (n)
			fn(arg, 0, n);
		return;
	}
	struct pieces w = { .fn = fn, .arg = arg, .n = n, .piece = piece ? piece : 1 };
	fk_run2(pieces_take, &w);
}

/* ---- fk_radix64_two: each half sorted by fk_radix64 (and copied into the scratch), then
 * the halves merged back, each thread writing half of the result: the first m places (the
 * merge's cut: how many of them the left half gives, by a binary search) or the rest. */
struct radix_two {
	uint64_t *key, *k2;
	uint32_t *ord, *tmp;
	size_t n, h;
	unsigned bits;
	int phase;
};

/* How many of the first m places of the merge of sorted l[0..nl) and r[0..nr) come from l
 * (ties from l first). */
static size_t merge_cut(const uint64_t *l, size_t nl, const uint64_t *r, size_t nr, size_t m)
{
	size_t lo = m > nr ? m - nr : 0, hi = m < nl ? m : nl;
	while (lo < hi) {
		size_t i = lo + (hi - lo) / 2;
		if (l[i] <= r[m - 1 - i])
			lo = i + 1;
		else
			hi = i;
	}
	return lo;
}

static void radix_two_part(void *arg, unsigned part)
{
	struct radix_two *t = arg;
	size_t h = t->h, n = t->n;
	if (t->phase == 0) {
		size_t a = part ? h : 0, b = part ? n : h;
		fk_radix64(t->key + a, t->ord + a, b - a, t->bits, t->k2 + a, t->tmp + a);
		memcpy(t->k2 + a, t->key + a, (b - a) * sizeof(*t->key));
		memcpy(t->tmp + a, t->ord + a, (b - a) * sizeof(*t->ord));
		return;
	}
	const uint64_t *lk = t->k2, *rk = t->k2 + h;
	const uint32_t *lo = t->tmp, *ro = t->tmp + h;
	size_t nl = h, nr = n - h, m = n / 2, cut = merge_cut(lk, nl, rk, nr, m);
	size_t i = part ? cut : 0, iend = part ? nl : cut, j = part ? m - cut : 0, jend = part ? nr : m - cut;
	size_t o = part ? m : 0;
	while (i < iend && j < jend) {
		if (lk[i] <= rk[j]) {
			t->key[o] = lk[i];
			t->ord[o++] = lo[i++];
		} else {
			t->key[o] = rk[j];
			t->ord[o++] = ro[j++];
		}
	}
	for (; i < iend; i++, o++)
		t->key[o] = lk[i], t->ord[o] = lo[i];
	for (; j < jend; j++, o++)
		t->key[o] = rk[j], t->ord[o] = ro[j];
}

void fk_radix64_two(uint64_t *key, uint32_t *ord, size_t n, unsigned bits, uint64_t *k2, uint32_t *tmp)
{
	struct radix_two t = { key, k2, ord, tmp, n, n / 2, bits, 0 };
	if (n < FK_RADIX_TWO_MIN) {
		fk_radix64(key, ord, n, bits, k2, tmp);
		return;
	}
	/* (keys all alike, as a level's of names that share more bytes: nothing to move) */
	uint64_t diff = 0;
	for (size_t i = 1; i < n; i++)
		diff |= key[i] ^ key[0];
	if (!(bits < 64 ? diff & ((1ULL << bits) - 1) : diff))
		return;
	fk_run2(radix_two_part, &t);
	t.phase = 1;
	fk_run2(radix_two_part, &t);
}

int fk_thread_id(void)
{
	return (int)syscall(SYS_gettid);
}

enum { CROWD_WINDOW = 10000000 }; /* ns */

/* Thread tid's time waiting for a CPU so far (ns), or UINT64_MAX where it cannot be read. */
static uint64_t wait_ns(int tid)
{
	char path[64], buf[128];
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return UINT64_MAX;
	unsigned long long run, wait;
	bool ok = fgets(buf, sizeof(buf), f) && sscanf(buf, "%llu %llu", &run, &wait) == 2;
	fclose(f);
	return ok ? (uint64_t)wait : UINT64_MAX;
}

/* Thread tid watched from now on (up to two). */
static void crowd_add(fk_crowd *w, int tid)
{
	uint64_t v = wait_ns(tid);
	w->blind = v == UINT64_MAX;
	w->tid[w->n] = tid;
	w->wait0[w->n++] = v;
}

/* FLAMEKIT_CROWDED (tests): "never", or from which question on the CPUs are crowded. */
static bool crowd_never(const char *f) { return f && !strcmp(f, "never"); }

void fk_crowd_start(fk_crowd *w, const int *second)
{
	const char *f = getenv("FLAMEKIT_CROWDED");
	*w = (fk_crowd){ .second = second, .t0 = now_ns(),
			 .forced = f && !crowd_never(f) ? strtoull(f, NULL, 10) : UINT64_MAX,
			 .never = crowd_never(f) };
	w->next = w->t0 + CROWD_WINDOW;
	crowd_add(w, fk_thread_id());
}

/* The tasks the kernel counts runnable now (/proc/loadavg's, this thread among them) and
 * the CPUs this process may run on: false where the kernel does not say. */
static bool runnable_now(long *running, int *cpus)
{
	cpu_set_t set;
	*cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
	char buf[128];
	FILE *la = fopen("/proc/loadavg", "re");
	bool got = la && fgets(buf, sizeof(buf), la);
	if (la)
		fclose(la);
	const char *slash = got ? strchr(buf, '/') : NULL;
	if (!slash || *cpus <= 0)
		return false;
	const char *d = slash;
	while (d > buf && d[-1] >= '0' && d[-1] <= '9')
		d--;
	*running = strtol(d, NULL, 10);
	return true;
}

bool fk_cpu_free(void)
{
	const char *f = getenv("FLAMEKIT_CROWDED");
	if (f)
		return crowd_never(f);
	long running;
	int cpus;
	if (!runnable_now(&running, &cpus))
		return true; /* (the kernel does not say) */
	return running < cpus;
}

/* Whether thread tid of this process is runnable now (its state R). */
static bool thread_runnable(int tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	FILE *f = fopen(path, "re");
	bool got = f && fgets(buf, sizeof(buf), f);
	if (f)
		fclose(f);
	const char *e = got ? strrchr(buf, ')') : NULL; /* (after the name, which may hold any) */
	return e && e[1] == ' ' && e[2] == 'R';
}

/* Whether tasks not of the watched threads hold the CPUs they would need: at 2 of 3 looks
 * 100 us apart, the runnable tasks less the watched threads runnable (this one is) more than
 * the CPUs beyond two. Yes where the kernel does not say. */
static bool others_runnable(const fk_crowd *w)
{
	int seen = 0;
	for (int k = 0; k < 3; k++) {
		long running;
		int cpus;
		if (!runnable_now(&running, &cpus))
			return true;
		long ours = 1;
		for (unsigned t = 1; t < w->n; t++)
			ours += thread_runnable(w->tid[t]);
		seen += running - ours > cpus - 2;
		if (k < 2)
			nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	return seen >= 2;
}

int fk_handoff_init(fk_handoff *h)
{
	h->gen = 0;
	if (pthread_mutex_init(&h->mu, NULL))
		return -1;
	if (pthread_cond_init(&h->cv, NULL)) {
		pthread_mutex_destroy(&h->mu);
		return -1;
	}
	return 0;
}

void fk_handoff_destroy(fk_handoff *h)
{
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
}

void fk_handoff_changed(fk_handoff *h)
{
	__atomic_store_n(&h->gen, h->gen + 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&h->cv);
}

void fk_handoff_wait(fk_handoff *h)
{
	uint64_t g = h->gen;
	pthread_mutex_unlock(&h->mu);
	for (int k = 0; k < 1000 && __atomic_load_n(&h->gen, __ATOMIC_ACQUIRE) == g; k++) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
	pthread_mutex_lock(&h->mu);
	if (h->gen == g)
		pthread_cond_wait(&h->cv, &h->mu);
}

bool fk_run_held_kb(long kb)
{
	struct rusage ru;
	return crowd_never(getenv("FLAMEKIT_CROWDED")) || getrusage(RUSAGE_SELF, &ru) != 0 ||
	       ru.ru_maxrss >= kb;
}

enum { LOOKS = 5, LOOK_GAP = 200000 /* ns */ };

void fk_looks_start(fk_looks *l, bool soon)
{
	const char *at = getenv("FLAMEKIT_FREE_AT");
	*l = (fk_looks){ .answer = -1, .free_at = at ? (unsigned)strtoul(at, NULL, 10) : 0 };
	if (!at && soon && (getenv("FLAMEKIT_CROWDED") || getenv("FLAMEKIT_SPLIT_MIN")))
		l->answer = 1;
}

int fk_looks_ask(fk_looks *l)
{
	if (l->answer >= 0)
		return l->answer;
	uint64_t now = now_ns();
	if (!l->free_at && l->n && now < l->next)
		return -1;
	if (l->free_at ? l->n + 1 == l->free_at : fk_cpu_free())
		return l->answer = 1;
	/* a task waiting for this thread's CPU (the parent that made this process, before it
	 * goes to wait for it; another CPU idle but yet to take it over) runs now, and is
	 * asleep again at a second look; where another program holds the other CPU, nothing
	 * waits here and the yield is a moment */
	if (!l->free_at) {
		sched_yield();
		if (fk_cpu_free())
			return l->answer = 1;
		now = now_ns();
	}
	/* (the gap from the look's end: a yield to another task may have taken a while, and a
	 * look due at once would then give the work between looks no room) */
	l->next = now + LOOK_GAP;
	if (++l->n == LOOKS)
		l->answer = 0;
	return l->answer;
}

/* The looks, waited for between them. */
static bool looks_waited(bool soon)
{
	fk_looks l;
	fk_looks_start(&l, soon);
	int r;
	while ((r = fk_looks_ask(&l)) < 0) {
		uint64_t now = now_ns();
		if (now < l.next)
			nanosleep(&(struct timespec){ 0, (long)(l.next - now) }, NULL);
	}
	return r == 1;
}

bool fk_cpu_free_looks(void) { return looks_waited(false); }
bool fk_cpu_free_soon(void) { return looks_waited(true); }

bool fk_crowd_seen(fk_crowd *w)
{
	if (w->never)
		return false;
	if (w->asked++ >= w->forced)
		return true;
	int tid = __atomic_load_n(w->second, __ATOMIC_ACQUIRE);
	if (tid && w->n < 2 && !w->blind)
		crowd_add(w, tid);
	uint64_t now = now_ns();
	if (w->blind || now < w->next)
		return false;
	w->next = now + CROWD_WINDOW;
	if (w->n < 2)
		return now - w->t0 >= 2 * CROWD_WINDOW; /* (the second has not run) */
	uint64_t waited = 0;
	for (unsigned k = 0; k < w->n; k++) {
		uint64_t v = wait_ns(w->tid[k]);
		if (v == UINT64_MAX)
			return false;
		waited += v - w->wait0[k];
		w->wait0[k] = v;
	}
	unsigned k = w->nwin++ % CROWD_WINDOWS;
	w->span[k] = now - w->t0;
	w->waited[k] = waited;
	w->t0 = now;
	if (w->nwin < CROWD_WINDOWS)
		return false;
	uint64_t span = 0;
	waited = 0;
	for (k = 0; k < CROWD_WINDOWS; k++)
		span += w->span[k], waited += w->waited[k];
	if (waited * 10 <= span * 3)
		return false;
	/* the waits also hold each wake-up of a sleeping CPU: in a VM whose idle CPU is woken for
	 * each handoff between the threads, the first windows waited 40-70% on an idle machine
	 * (b-wide's same16: 10 runs of 14 went on alone, 0.24 s against 0.19). Another task seen
	 * runnable too, or watched afresh. */
	if (others_runnable(w))
		return true;
	w->nwin = 0;
	return false;
}

void fk_touch_pages(void *p, size_t size)
{
	for (size_t o = 0; o < size; o += 4096)
		((volatile char *)p)[o] = 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
bool fk_populate(void *p, size_t size)
{
	return !size || madvise(p, size, MADV_POPULATE_WRITE) == 0;
}

/* A block of FK_BIG_FROM bytes or more is a mapping of its own that starts at a 2 MiB
 * boundary, huge pages asked for over all of it (THP "madvise", Debian's default), so each
 * 2 MiB takes one page fault where 4 KiB pages took 512 (1.4-2.3 us each on the KVM guests
 * measured), and a table probed at random misses the TLB far less. malloc's own blocks of
 * that size start 16 bytes past a page: advice over their aligned part left up to 2 MiB of
 * each in small pages (b-wide's jvm shape: 2,200 faults of 18k in the name tables grown
 * one after another). Under it, malloc's (the heap's pages used again). */
static size_t big_len(size_t size) { return (size + 4095) & ~(size_t)4095; }

static bool big(size_t size) { return size >= FK_BIG_FROM; }

/* A mapping of len bytes (a multiple of 4 KiB) that starts at a 2 MiB boundary: mapped
 * 2 MiB over, the ends given back. NULL if none. */
static char *map_aligned(size_t len, int flags)
{
	const size_t huge = 2u << 20;
	if (len + huge < len)
		return NULL;
	char *m = mmap(NULL, len + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags,
		       -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	char *a = (char *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
	if (a > m)
		munmap(m, (size_t)(a - m));
	munmap(a + len, (size_t)(m + huge - a)); /* (past the block: never empty, a < m + huge) */
	return a;
}

void *fk_big_alloc(size_t size)
{
	if (!big(size))
		return malloc(size ? size : 1);
	size_t len = big_len(size);
	char *a = map_aligned(len, 0);
#ifdef MADV_HUGEPAGE
	if (a)
		madvise(a, len, MADV_HUGEPAGE);
#endif
	return a;
}

void fk_big_free(void *p, size_t size)
{
	if (p && big(size))
		munmap(p, big_len(size));
	else
		free(p);
}

void *fk_zalloc_by(size_t n, size_t elem, const fk_toucher *t)
{
	if (elem && n > SIZE_MAX / elem)
		return NULL;
	size_t size = n * elem;
	/* (a fresh mapping is zeroed by the kernel) */
	void *p = big(size) ? fk_big_alloc(size) : calloc(n, elem);
	if (p) {
		if (t && t->touch)
			t->touch(t->ctx, p, size);
		else
			fk_touch_pages(p, size);
	}
	return p;
}

void *fk_zalloc(size_t n, size_t elem) { return fk_zalloc_by(n, elem, NULL); }

void fk_zfree(void *p, size_t n, size_t elem) { fk_big_free(p, n * elem); }

int fk_grow(void **data, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -FK_E_NOMEM;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		return -FK_E_NOMEM;
	/* (no huge pages asked for here: advice over part of a block splits its mapping, and
	 * the next realloc can then no longer move it by mremap: it copies into fresh pages,
	 * about half the memory a big read touched) */
	void *n = realloc(*data, ncap * elem);
	if (!n)
		return -FK_E_NOMEM;
	*data = n;
	*cap = ncap;
	return 0;
}

int fk_grow_reserved_from(void **data, size_t *cap, size_t *reserved, size_t need, size_t elem,
			  size_t huge_from)
{
	if (need <= *cap)
		return 0;
	if (need > (SIZE_MAX >> 4) / elem)
		return -FK_E_NOMEM;
	size_t bytes = need * elem;
	/* (64 GiB of addresses, or 4x what is asked: pages are committed as touched; where
	 * addresses are 32 bits, never) */
	uint64_t want = (uint64_t)bytes * 4 > (64ULL << 30) ? (uint64_t)bytes * 4 : 64ULL << 30;
	char *a;
	if (!*reserved && bytes >= FK_RESERVE_FROM && want <= SIZE_MAX / 2 &&
	    (a = map_aligned((size_t)want, MAP_NORESERVE))) {
		/* at a 2 MiB boundary, so that huge pages can start at huge_from (read at random,
		 * with 4 KiB pages nearly every read missed the TLB; written in order, each 2 MiB
		 * took 512 faults of 1.4-2.3 us where a huge page takes one; a small profile's
		 * arrays under FK_HUGE_FROM stay in small pages, a page of 2 MiB holding more
		 * than all of one) */
		size_t size = (size_t)want;
		if (huge_from < size)
			madvise(a + huge_from, size - huge_from, MADV_HUGEPAGE);
		if (*cap)
			memcpy(a, *data, *cap * elem);
		free(*data);
		*data = a;
		*cap = size / elem;
		*reserved = size;
		return 0;
	}
	if (*reserved) { /* (its stretch is full: onto the heap, copied) */
		size_t ncap = need + need / 2;
		void *n = malloc(ncap * elem);
		if (!n)
			return -FK_E_NOMEM;
		memcpy(n, *data, *cap * elem);
		munmap(*data, *reserved);
		*data = n;
		*cap = ncap;
		*reserved = 0;
		return 0;
	}
	return fk_grow(data, cap, need, elem);
}

int fk_grow_reserved(void **data, size_t *cap, size_t *reserved, size_t need, size_t elem)
{
	return fk_grow_reserved_from(data, cap, reserved, need, elem, FK_HUGE_FROM);
}

void fk_free_reserved(void *data, size_t reserved)
{
	if (reserved)
		munmap(data, reserved);
	else
		free(data);
}

/* One stable pass of fk_radix64 by the digit at bit sh, whose counts are cnt: from key and
 * ord into k2 and tmp. */
static void radix_pass(const uint64_t *key, const uint32_t *ord, size_t n, unsigned sh, uint32_t *cnt,
		       uint64_t *k2, uint32_t *tmp)
{
	uint32_t sum = 0;
	for (size_t b = 0; b < 2048; b++) {
		uint32_t c = cnt[b];
		cnt[b] = sum;
		sum += c;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t o = cnt[key[i] >> sh & 2047]++;
		k2[o] = key[i];
		tmp[o] = ord[i];
	}
}

/* Keys of few values (names that share their first bytes, and a few unlike them: every
 * digit varies, but a handful of values are met): each key's value numbered in a small
 * table, the values sorted, then one counting pass by number. false, nothing moved, when
 * the keys hold more than FEW_MAX values. Stable, as the radix passes. */
enum { FEW_SAMPLE = 256, FEW_SAMPLE_MAX = 16, FEW_MAX = 1024, FEW_BITS = 11 };
struct few_val {
	uint64_t k;
	uint32_t num, n; /* its number, then (sorted) its first place */
};

static int few_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct few_val *)a)->k, y = ((const struct few_val *)b)->k;
	return (x > y) - (x < y);
}

static bool few_sample(const uint64_t *key, size_t n)
{
	uint64_t s[FEW_SAMPLE];
	size_t ns = 0;
	for (size_t i = 0; i < FEW_SAMPLE; i++) {
		uint64_t k = key[i * (n / FEW_SAMPLE)];
		size_t j = 0;
		while (j < ns && s[j] != k)
			j++;
		if (j == ns) {
			if (ns == FEW_SAMPLE_MAX)
				return false;
			s[ns++] = k;
		}
	}
	return true;
}

static bool radix_few(uint64_t *key, uint32_t *ord, size_t n, uint64_t *k2, uint32_t *tmp)
{
	/* slot: value number + 1 (0: empty); vals[number] */
	uint16_t *slot = calloc(1u << FEW_BITS, sizeof(*slot));
	struct few_val *val = malloc(FEW_MAX * sizeof(*val));
	uint32_t *at = malloc(FEW_MAX * sizeof(*at));
	bool ok = slot && val && at;
	uint32_t nv = 0;
	for (size_t i = 0; ok && i < n; i++) {
		uint64_t k = key[i];
		size_t h = (size_t)(k * 0x9e3779b97f4a7c15ULL >> (64 - FEW_BITS));
		while (slot[h] && val[slot[h] - 1].k != k)
			h = (h + 1) & ((1u << FEW_BITS) - 1);
		if (!slot[h]) {
			if (nv == FEW_MAX) {
				ok = false;
				break;
			}
			val[nv] = (struct few_val){ k, nv, 0 };
			slot[h] = (uint16_t)++nv;
		}
		tmp[i] = slot[h] - 1u;
		val[slot[h] - 1].n++;
	}
	if (ok) {
		qsort(val, nv, sizeof(*val), few_cmp);
		uint32_t sum = 0;
		for (uint32_t v = 0; v < nv; v++) {
			at[val[v].num] = sum;
			uint32_t c = val[v].n;
			val[v].n = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			k2[at[tmp[i]]++] = ord[i];
		for (size_t i = 0; i < n; i++)
			ord[i] = (uint32_t)k2[i];
		for (uint32_t v = 0; v < nv; v++)
			for (size_t i = val[v].n, end = v + 1 < nv ? val[v + 1].n : n; i < end; i++)
				key[i] = val[v].k;
	}
	free(slot);
	free(val);
	free(at);
	return ok;
}

void fk_radix64(uint64_t *key, uint32_t *ord, size_t n, unsigned bits, uint64_t *k2, uint32_t *tmp)
{
	if (n < 2)
		return;
	/* the bits that differ between keys, then every varying digit's counts in one pass:
	 * keys that share most of their bytes (names with common first bytes) cost a pass
	 * for each digit that varies, not one for each digit */
	uint64_t diff = 0, k0 = key[0];
	for (size_t i = 1; i < n; i++)
		diff |= key[i] ^ k0;
	/* keys alike above the bits sorted by: the few-values path may order whole keys */
	bool whole = bits >= 64 || !(diff >> bits);
	if (bits < 64)
		diff &= (1ULL << bits) - 1;
	enum { D = 11, B = 1 << D, NDIG = (64 + D - 1) / D };
	unsigned dig[NDIG], nd = 0;
	for (unsigned sh = 0; sh < 64; sh += D)
		if (diff >> sh & (B - 1))
			dig[nd++] = sh;
	if (!nd)
		return;
	if (nd >= 3 && n >= 4096 && whole && few_sample(key, n) &&
	    radix_few(key, ord, n, k2, tmp))
		return;
	uint32_t cnt[NDIG][B]; /* (48 KB: the varying digits' rows cleared) */
	memset(cnt, 0, nd * sizeof(cnt[0]));
	for (size_t i = 0; i < n; i++)
		for (unsigned d = 0; d < nd; d++)
			cnt[d][key[i] >> dig[d] & (B - 1)]++;
	/* the passes go back and forth between the arrays, the last one's copied back once
	 * (each pass copied back: a fifth more of the sort's time on 800k keys) */
	uint64_t *ks = key, *kd = k2;
	uint32_t *os = ord, *od = tmp;
	for (unsigned d = 0; d < nd; d++) {
		radix_pass(ks, os, n, dig[d], cnt[d], kd, od);
		uint64_t *kt = ks;
		uint32_t *ot = os;
		ks = kd, os = od, kd = kt, od = ot;
	}
	if (ks != key) {
		memcpy(key, ks, n * sizeof(*key));
		memcpy(ord, os, n * sizeof(*ord));
	}
}

/* 8 bytes per step, multiply-rotate mixing; tail read without overrun. */
uint64_t fk_hash(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (len * 0x100000001b3ULL);
	while (len >= 8) {
		uint64_t v;
		memcpy(&v, s, 8);
		h = (h ^ (v * 0x87c37b91114253d5ULL)) * 0x4cf5ad432745937fULL;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	if (len) {
		uint64_t v = 0;
		memcpy(&v, s, len);
		h = (h ^ (v * 0x87c37b91114253d5ULL)) * 0x4cf5ad432745937fULL;
	}
	return fk_mix64(h);
}

int fk_parse_count(const char *s, size_t len, double *out)
{
	if (len == 0 || len > 64)
		return -1;
	/* Fast path: plain digits. */
	uint64_t v = 0;
	size_t i = 0;
	for (; i < len && i < 19 && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (uint64_t)(s[i] - '0');
	if (i == len) {
		*out = (double)v;
		return 0;
	}
	char tmp[72];
	memcpy(tmp, s, len);
	tmp[len] = 0;
	for (size_t k = 0; k < len; k++) {
		char c = tmp[k];
		if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+'))
			return -1;
	}
	char *end;
	errno = 0;
	double d = strtod(tmp, &end);
	if (end != tmp + len || errno || !isfinite(d))
		return -1;
	*out = d;
	return 0;
}

size_t fk_dec_u64(char *buf, uint64_t u)
{
	char t[20], *e = t + sizeof(t), *q = e;
	do {
		*--q = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	memcpy(buf, q, (size_t)(e - q));
	return (size_t)(e - q);
}

int fk_format_count(char *buf, size_t size, double v)
{
	if (v == 0)
		v = 0; /* no "-0" */
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		if (size < 24)
			return snprintf(buf, size, "%lld", (long long)v);
		size_t n = v < 0 ? 1 : 0;
		buf[0] = '-';
		n += fk_dec_u64(buf + n, (uint64_t)fabs(v));
		buf[n] = 0;
		return (int)n;
	}
	/* Shortest text that reads back to the same double. */
	for (int prec = 1; prec <= 17; prec++) {
		int n = snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return n;
	}
	return snprintf(buf, size, "%.17g", v);
}

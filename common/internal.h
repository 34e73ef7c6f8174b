/* internal.h - private helpers shared by the core's files (never installed).
 * Growable arrays, hashing, the line reader, the parser table, diagnostics.
 */
#ifndef FK_INTERNAL_H
#define FK_INTERNAL_H

#include "flamekit.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <string.h>

#define FK_HIDDEN __attribute__((visibility("hidden")))
#define FK_LIKELY(x) __builtin_expect(!!(x), 1)
#define FK_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---- diagnostics: all go through the print callback */
FK_HIDDEN void fk_log(enum fk_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define fk_warn(...) fk_log(FK_LEVEL_WARN, __VA_ARGS__)
/* How many warnings this thread has given so far: a caller that failed tells from it
 * whether the reason was said already (one message per failure, not a generic second). */
FK_HIDDEN unsigned long fk_log_warnings(void);
/* This thread's messages are held back from now (up to a thousand; more release them all)
 * until fk_log_release, which prints them in order or drops them: what a parser said about
 * data that turned out to be damaged is not worth saying. */
FK_HIDDEN void fk_log_hold(void);
FK_HIDDEN void fk_log_release(bool print);

/* ---- options structs: copy the caller's struct (its sz field tells how much of
 * it the caller knows) over `full`, which holds the defaults (options.c). */
FK_HIDDEN void fk_opts_adopt(void *full, size_t fullsize, const void *user);
#define FK_OPTS_ADOPT(full, user) fk_opts_adopt(&(full), sizeof(full), (user))

/* ---- growable arrays: grow *data (of *cap elements of size elem) so that it
 * holds at least need elements. Overflow-checked; returns 0 or -FK_E_NOMEM. */
FK_HIDDEN int fk_grow(void **data, size_t *cap, size_t need, size_t elem);
/* Blocks of FK_BIG_FROM bytes or more come from fk_big_alloc: a mapping of their own, on
 * huge pages where the kernel gives them; smaller ones from malloc. Free with fk_big_free
 * and the same size. */
enum { FK_BIG_FROM = 2 << 20 };
FK_HIDDEN void *fk_big_alloc(size_t size);
FK_HIDDEN void fk_big_free(void *p, size_t size);
/* calloc for a table probed before it is written: every page is written once here, so a
 * first probe does not map the shared zero page (a later write would then replace it and,
 * with two threads, interrupt the other CPU to flush its TLB); from FK_BIG_FROM bytes on, by
 * fk_big_alloc. Free with fk_zfree and the same count. */
FK_HIDDEN void *fk_zalloc(size_t n, size_t elem);
FK_HIDDEN void fk_zfree(void *p, size_t n, size_t elem);
/* Write one byte of zero in every page of zeroed memory (see fk_zalloc). */
FK_HIDDEN void fk_touch_pages(void *p, size_t size);
/* The pages of [p, p + size) (page-aligned p) made present and writable, their bytes left as
 * they are (MADV_POPULATE_WRITE), so a thread may make them while another writes there: the
 * kernel's zeroing of fresh pages, paid where they are first written, moves onto the caller.
 * false where the kernel cannot (before Linux 5.14) or part of the range is not mapped. */
FK_HIDDEN bool fk_populate(void *p, size_t size);
/* A regular file's first size bytes mapped for reading (mapped.c), guarded against the file
 * being cut short meanwhile: the pages past its new end then read as zeros. NULL: not
 * mapped. fk_unmap_input unmaps it: true if it was cut short (the reading fails with
 * -FK_E_CHANGED); fk_mapped_cut says so before it. */
FK_HIDDEN const char *fk_map_input(int fd, size_t size);
FK_HIDDEN bool fk_mapped_cut(const char *m);
FK_HIDDEN bool fk_unmap_input(const char *m, size_t size);
FK_HIDDEN extern int fk_cuts_seen;
/* Whether mapping m was cut short so far: asked before a line of it is reported (a line
 * that runs into the zeros is no line of the file's), cheap while no mapping ever was. */
static inline bool fk_input_cut(const char *m)
{
	return __atomic_load_n(&fk_cuts_seen, __ATOMIC_ACQUIRE) && fk_mapped_cut(m);
}
/* Who writes the pages of fresh zeroed memory: fk_touch_pages, or a caller's touch(ctx, p,
 * size), which may share the work with another thread (see fk_profile_set_toucher). */
typedef struct fk_toucher {
	void (*touch)(void *ctx, void *p, size_t size);
	void *ctx;
} fk_toucher;
/* fk_zalloc, its pages written by t (NULL, or no touch: fk_touch_pages). */
FK_HIDDEN void *fk_zalloc_by(size_t n, size_t elem, const fk_toucher *t);
#define FK_GROW(arr, cap, need) fk_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))
/* An array that only grows and may grow big (the names and their text, stack mode's stacks
 * and their ids): grown as by fk_grow while small; once past FK_RESERVE_FROM bytes, moved
 * once into a stretch of address space reserved for it (*reserved: its size in bytes; 0
 * while on the heap), huge pages asked for from FK_HUGE_FROM bytes on (b-wide's huge shape:
 * 20.8k page faults -> 8.4k with the stacks there too; from 2 MiB on, not 8, the go shape
 * drawn by one thread 9.5k -> 5.7k faults, cxx's 10.8k -> 6.0k, and each 2 MiB given back
 * at the end in 1/20 of the time: 64 MB of 4 KiB pages took 4.1-4.7 ms to unmap on this
 * VM, of huge pages 0.24), where it then grows in place, its pages touched as it fills
 * (moved later, from a bigger block, the heap kept the block's pages: 7 MB more at the
 * peak of b-wide's go shape). Without such a stretch (strict overcommit, a limit on address
 * space) it stays on the heap. 0 or -FK_E_NOMEM. fk_free_reserved frees either kind. */
enum { FK_RESERVE_FROM = 1 << 20, FK_HUGE_FROM = 2 << 20 };
FK_HIDDEN int fk_grow_reserved(void **data, size_t *cap, size_t *reserved, size_t need, size_t elem);
/* The same, huge pages asked for from huge_from bytes on (0: all of the stretch: an array
 * written in order once it is past FK_RESERVE_FROM, where the faults of small pages cost
 * more than the up to 2 MiB a last huge page holds unused). */
FK_HIDDEN int fk_grow_reserved_from(void **data, size_t *cap, size_t *reserved, size_t need,
				    size_t elem, size_t huge_from);
FK_HIDDEN void fk_free_reserved(void *data, size_t reserved);
#define FK_GROW_RESERVED(arr, cap, reserved, need) \
	fk_grow_reserved((void **)&(arr), &(cap), &(reserved), (need), sizeof(*(arr)))

/* u in decimal at buf (room for 20), no NUL: its length. */
FK_HIDDEN size_t fk_dec_u64(char *buf, uint64_t u);

/* pthread_create's work, the thread started on a CPU other than the caller's (where the
 * process may run on more than one) and then free to run on any it may: left to itself, the
 * kernel often queued a new thread behind its maker on the maker's CPU, the other idle,
 * for a tick (1-4 ms; 9 starts of 15 on this 2-vCPU VM), then shared one CPU; placed, it
 * ran on the idle one within 0.13-0.3 ms in 15 of 15. 0 or an error number, as
 * pthread_create. */
FK_HIDDEN int fk_thread_start(pthread_t *th, void *(*fn)(void *), void *arg);

/* fn(arg, 1) on a second thread while fn(arg, 0) runs on this one (both on this one, in
 * turn, when no thread can be made); returns once both are done. */
FK_HIDDEN void fk_run2(void (*fn)(void *arg, unsigned part), void *arg);
/* fn over [0, n) in pieces of `piece` (the last shorter), taken in turn by this thread and a
 * second (fk_run2) as each is free: a thread kept from its CPU a while, or slow to start,
 * takes fewer (fixed halves had one thread wait for the other's half 2-17 ms a run of
 * b-wide's shapes, the stacks' sort and the names' ranking, where the second was slow to
 * start or kept from its CPU). Each index is in one piece, whichever thread takes it; by
 * this thread alone where two is false. */
FK_HIDDEN void fk_run2_pieces(void (*fn)(void *arg, size_t from, size_t to), void *arg, size_t n,
			      size_t piece, bool two);
/* The pieces of n things for fk_run2_pieces: 32 of them, of 4096 at least. */
#define FK_PIECE(n) ((n) / 32 > 4096 ? (n) / 32 : 4096)

/* Whether two threads that work together are kept from the CPUs (another task holds one of
 * them): the time each spends runnable but waiting for a CPU, from the kernel's schedstat,
 * read in windows of 10 ms or more. fk_crowd_start on the first thread as the work starts;
 * the second publishes its id (fk_thread_id(), stored atomically) at *second as it runs.
 * fk_crowd_seen, asked by the first as often as wanted, says yes once the threads' waits were
 * over 3/10 of the time in the last four windows (with another task on one of two CPUs
 * 40-51%; on an idle machine a moment's other work, such as the programs a shell starts beside
 * us, makes one window 30-65% now and then, the four's stayed at or under 16% in 30 runs) and
 * another task is seen runnable (the waits also hold a sleeping CPU's wake-ups: see
 * fk_crowd_seen), or when the second has not run 20 ms on. Never, where the kernel does not
 * say. Tests:
 * FLAMEKIT_CROWDED=N says yes from the N-th question on (0: the first). */
enum { CROWD_WINDOWS = 4 };
typedef struct fk_crowd {
	const int *second;
	uint64_t t0, next, asked, forced;
	uint64_t wait0[2];
	uint64_t span[CROWD_WINDOWS], waited[CROWD_WINDOWS];
	int tid[2];
	unsigned n, nwin;
	bool blind, never;
} fk_crowd;
FK_HIDDEN int fk_thread_id(void);
FK_HIDDEN void fk_crowd_start(fk_crowd *w, const int *second);
FK_HIDDEN bool fk_crowd_seen(fk_crowd *w);
/* Whether a CPU is free for a second thread now, for work too short to watch (fk_crowd): the
 * tasks the kernel counts runnable on the machine (/proc/loadavg's, this thread among them)
 * fewer than the CPUs this process may run on. An instant's count (one look saw a kernel
 * task of the moment in 2 of 3 html runs on an idle machine: fk_cpu_free_looks asks a few
 * times). Yes where the kernel does not say. Tests: FLAMEKIT_CROWDED
 * set says no, FLAMEKIT_CROWDED=never yes (and fk_crowd_seen never says yes then). */
FK_HIDDEN bool fk_cpu_free(void);
/* A CPU free at any of up to five looks (fk_cpu_free) over a millisecond: a task the kernel
 * ran for a moment (a flush of written pages, the parent going to wait) is asleep again by
 * the next look; a program that keeps a CPU busy is there at every one. Waits between the
 * looks: where there is work to do meanwhile, fk_looks asks them between pieces of it. */
FK_HIDDEN bool fk_cpu_free_looks(void);
/* fk_cpu_free_looks' looks asked between pieces of the caller's own work, without waiting:
 * fk_looks_ask looks when the next look is due (200 us after the last ended) and says 1 (a CPU
 * free), 0 (five looks, none free) or -1 (not known yet: ask again after more work). Beside
 * a busy loop the waits were what two threads lost against one: 1.0-1.4 ms of 45-80 (a
 * 32-64 MB folded file drawn, 0.965-0.972x; 0.993-1.004x without them). A look that finds
 * none yields the CPU and looks again: the task it saw may be one waiting for this thread's
 * CPU (the parent that made this process, about to wait for it, the other CPU idle but yet
 * to take it), which work in place of the waits kept waiting (then every look of the run saw
 * it: 5 runs of 8 on an idle machine read alone). soon: the reading's choice
 * (fk_cpu_free_soon's: yes at once under FLAMEKIT_CROWDED or FLAMEKIT_SPLIT_MIN).
 * Tests: FLAMEKIT_FREE_AT=K, each ask a look, the K-th finds a CPU free (over 5: none). */
typedef struct fk_looks {
	uint64_t next;
	unsigned n, free_at;
	int answer;
} fk_looks;
FK_HIDDEN void fk_looks_start(fk_looks *l, bool soon);
FK_HIDDEN int fk_looks_ask(fk_looks *l);
/* Whether the process has held kb KB or more at once so far (its peak resident memory), for
 * helpers whose memory only pays in a big run; yes where the kernel does not say, and with
 * FLAMEKIT_CROWDED=never (tests: the helper made however small the run). */
FK_HIDDEN bool fk_run_held_kb(long kb);
/* fk_cpu_free for the choice to read with two threads, as reading starts: a CPU free at any
 * of a few looks over a millisecond (a task that ran as this one started, its parent going
 * to wait for it, is asleep by then; a program that keeps a CPU busy is there at every
 * look). Yes when FLAMEKIT_CROWDED is set (tests make the reading crowded later, at the
 * N-th question of fk_crowd_seen) or FLAMEKIT_SPLIT_MIN (tests split small inputs, whatever
 * else the machine runs). */
FK_HIDDEN bool fk_cpu_free_soon(void);
/* Two threads handing work to each other: what they share is read and changed under mu;
 * whoever changes it says so (fk_handoff_changed, locked), and a thread with nothing to do
 * waits for a change (fk_handoff_wait, locked: it spins a while unlocked first, the other
 * thread being usually microseconds from it, where a sleep and a wake-up cost more). */
typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t gen; /* changes */
} fk_handoff;
FK_HIDDEN int fk_handoff_init(fk_handoff *h);
FK_HIDDEN void fk_handoff_destroy(fk_handoff *h);
FK_HIDDEN void fk_handoff_changed(fk_handoff *h);
FK_HIDDEN void fk_handoff_wait(fk_handoff *h);

/* ---- sorting: key[0..n) and ord alongside, stably, by the keys' low `bits` bits (the keys
 * have no others set); an LSD radix sort, 11 bits a pass, passes only for the digits that
 * vary between keys, their counts taken in one read. k2 and tmp are scratch of n elements. */
FK_HIDDEN void fk_radix64(uint64_t *key, uint32_t *ord, size_t n, unsigned bits, uint64_t *k2,
			  uint32_t *tmp);
/* fk_radix64 by two threads (fk_run2: one where no second can be made), for n of
 * FK_RADIX_TWO_MIN or more (fewer: fk_radix64): each half sorted, then the halves merged,
 * each thread writing half of the result. The same keys and order as fk_radix64. */
enum { FK_RADIX_TWO_MIN = 1 << 17 };
FK_HIDDEN void fk_radix64_two(uint64_t *key, uint32_t *ord, size_t n, unsigned bits, uint64_t *k2,
			      uint32_t *tmp);

/* Byte strings in their bytes' order, a prefix before what extends it (the order of names
 * among siblings, and of folded lines). */
static inline int fk_bytes_cmp(const void *a, size_t la, const void *b, size_t lb)
{
	size_t n = la < lb ? la : lb;
	int c = n ? memcmp(a, b, n) : 0;
	return c ? c : (la > lb) - (la < lb);
}

/* How many first bytes a and b have in common (8 at a time). */
static inline size_t fk_common_prefix(const void *a, size_t la, const void *b, size_t lb)
{
	const unsigned char *x = a, *y = b;
	size_t m = 0, lim = la < lb ? la : lb;
	while (m + 8 <= lim) {
		uint64_t u, v;
		memcpy(&u, x + m, 8);
		memcpy(&v, y + m, 8);
		if (u != v) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return m + (size_t)__builtin_ctzll(u ^ v) / 8;
#else
			break;
#endif
		}
		m += 8;
	}
	while (m < lim && x[m] == y[m])
		m++;
	return m;
}

/* ---- hashing (fast, not cryptographic; deterministic across runs) */
FK_HIDDEN uint64_t fk_hash(const void *p, size_t len);
static inline uint64_t fk_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* ---- the name table's hash (model/profile.c): 8 bytes a round, the length last, so a
 * scanner that finds where a name ends hashes it on the way (parse-folded.c). A tail of
 * fewer than 8 bytes is one more round, zero-padded. */
#define FK_NH_SEED 0x243f6a8885a308d3ULL
static inline uint64_t fk_nh_round(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9fb21c651e98df25ULL;
	return h << 27 | h >> 37;
}
static inline uint64_t fk_nh_final(uint64_t h, size_t len)
{
	return fk_mix64(h ^ (len * 0xc2b2ae3d27d4eb4fULL));
}
static inline uint64_t fk_name_hash(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = FK_NH_SEED, w;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = fk_nh_round(h, w);
	}
	if (i < len) {
		w = 0;
		memcpy(&w, s + i, len - i);
		h = fk_nh_round(h, w);
	}
	return fk_nh_final(h, len);
}

/* Threads the profile's own work may use (ranking its names): those its reading was given
 * (fk_parse_*: the most any reading gave). */
FK_HIDDEN void fk_profile_use_threads(fk_profile *p, unsigned threads);
/* What is left of the work on p on one thread (the CPUs are crowded: fk_crowd). */
FK_HIDDEN void fk_profile_one_thread(fk_profile *p);
/* At least as many as the frames a drawing of p can have (its nodes and the frames of the
 * stacks it keeps as stacks), without building its tree. */
FK_HIDDEN size_t fk_profile_frames_bound(const fk_profile *p);
/* The threads p's work may use (1 once the CPUs were seen crowded). */
FK_HIDDEN unsigned fk_profile_threads(const fk_profile *p);
/* Whether a second thread should take part of p's work now (the renderers'): p's work may
 * use two (fk_profile_threads) and a CPU is free (fk_cpu_free_looks). */
FK_HIDDEN bool fk_profile_second_cpu(const fk_profile *p);
/* Whether p holds its tree (not its unique stacks: stack mode). */
FK_HIDDEN bool fk_profile_is_tree(const fk_profile *p);
/* Look up a name without interning it: id or -1. */
FK_HIDDEN int64_t fk_profile_find_name(const fk_profile *p, const char *s, size_t len);
/* The input (name, format) that gave the profile its unit, for the mixed-units warning
 * (fk_warn_mixed_units): set by the parser that sets the unit; NULL when unknown. */
FK_HIDDEN int fk_profile_set_unit_source(fk_profile *p, const char *name, const char *format);
FK_HIDDEN const char *fk_profile_unit_source(const fk_profile *p, const char **format);
/* Intern names [from, n) of a stack's text s, name i from (i ? end[i - 1] + 1 : 0) to
 * end[i], with hash[i] = its fk_name_hash, into ids[i]: their table slots fetched first, all
 * at once, then looked up. 0 or a negative error. */
FK_HIDDEN int fk_profile_intern_names(fk_profile *p, const char *s, const size_t *end,
				      const uint64_t *hash, size_t from, size_t n, uint32_t *ids);
/* A name met in the input, for fk_profile_intern_toks and _parity: its fk_name_hash, and
 * where its bytes are, from a base the caller gives with the names (its batch's text: under
 * 4 GB). 16 bytes: the batch reader's second thread writes them for the first to read, and
 * where the two CPUs share no cache, its writes wait on the lines the first holds. */
typedef struct fk_name_tok {
	uint64_t hash;
	uint32_t off, len;
} fk_name_tok;
/* The ids of names t[0..n) (bytes from base), interned in order: each name's table slot is
 * fetched 2 * FK_TOK_AHEAD names before it is compared, its bytes FK_TOK_AHEAD before, so the
 * lookups of names of many lines overlap. 0 or a negative error. */
FK_HIDDEN int fk_profile_intern_toks(fk_profile *p, const char *base, const fk_name_tok *t,
				     size_t n, uint32_t *ids);
/* The parity of a name of fk_name_hash h: which half of the name table holds it, and which
 * thread looks it up when two intern a batch (fk_profile_intern_parity). */
static inline unsigned fk_name_parity(uint64_t h) { return h >> 32 & 1; }
/* A batch of n names interned by two threads at once: room made for n new names and their
 * bytes (fk_profile_names_room); then each thread looks up the names of one parity
 * (fk_name_parity), which the caller lists in their order as tokens of their own (the
 * batch's splitter, as it hashes them: a pass over all n names to pick them was a fifth of
 * each thread's lookups; and the tokens of both in one array had the first thread read
 * every line of what the second wrote), and which parity each name is (a bit a name), with
 * fk_profile_intern_parity (fetched ahead, as fk_profile_intern_toks), into arrays of its
 * own (ids, first: one per name of the parity; fresh: as many), the table's slots of that
 * parity its alone meanwhile; the thread that looked up the odd names then gives the new
 * ones their ids, bytes and slots (fk_profile_intern_settle: in the order they first come
 * among the odd names), while the other may still look up the even names, and after it
 * the even ones theirs, which counts both in; last, fk_profile_intern_ids puts the ids in
 * the batch's order. (A name's id thus differs from one thread's reading, where ids go in
 * the order names first come: ids are internal, and every output orders names by their
 * bytes.) */
typedef struct fk_parity_out {
	/* (cache lines of its own: each parity's lookup writes its counts as another thread
	 * writes the other's) */
	_Alignas(128) uint32_t *ids; /* ids[i]: the parity's name i's id, when found */
	uint32_t *first;  /* first[i]: 1 + the first of the parity's names like name i, when new */
	uint32_t *fresh;  /* the first of each new name, in order... */
	size_t *slot;     /* ...and its table slot */
	size_t nfresh;
	size_t done;      /* the names looked up so far (the caller's 0 at first) */
	size_t nbytes;    /* (settled) the new names' bytes, a NUL after each */
	size_t nmine;     /* the parity's names in the batch (the caller's) */
} fk_parity_out;
/* (bytes: an upper bound of the n names' bytes, a NUL after each) */
FK_HIDDEN int fk_profile_names_room(fk_profile *p, size_t n, size_t bytes);
/* While t is set (NULL: no more), the name table's fresh tables are touched by t: a reading
 * with a second thread shares the work (writing the pages of a table of 32 MB, which the
 * kernel zeroes as they are first written, was a third of the first thread's time reading a
 * collapse tool's output of 1M names). */
FK_HIDDEN void fk_profile_set_toucher(fk_profile *p, const fk_toucher *t);
/* Where p's appends write next, for a second thread to make those pages first (fk_populate):
 * the arrays that grow in reserved stretches (fk_grow_reserved: the names, their bytes, stack
 * mode's stacks and their ids, always in that order), each as the address it ends at now and
 * its stretch's end; NULL both while it is on the heap. */
enum { FK_FRONTS = 4 };
typedef struct fk_front {
	char *at, *end;
} fk_front;
FK_HIDDEN void fk_profile_fronts(const fk_profile *p, fk_front out[FK_FRONTS]);
/* (t: the o->nmine names of o's parity, from o->done on, 0 at first; when stop is set and
 * *stop nonzero, it stops at a multiple of FK_STOP_STEP names, o->done, and another thread
 * may go on from there: the thread that waits for the lookup takes the rest, and the one
 * that stopped goes on to other work) */
enum { FK_STOP_STEP = 128 };
FK_HIDDEN void fk_profile_intern_parity(fk_profile *p, const char *base, const fk_name_tok *t,
				       fk_parity_out *o, const int *stop);
/* (o: both parities' lookups; t: parity's names, as they were looked up) */
FK_HIDDEN int fk_profile_intern_settle(fk_profile *p, const char *base, const fk_name_tok *t,
				       fk_parity_out o[2], unsigned parity);
/* (pbit: bit j, the parity of the batch's name j, of n) */
FK_HIDDEN void fk_profile_intern_ids(const fk_parity_out o[2], const uint64_t *pbit, size_t n,
				     uint32_t *ids);
/* Intern with a precomputed fk_name_hash(s, len) (hot paths hash once). */
FK_HIDDEN int64_t fk_profile_intern_h(fk_profile *p, const char *s, size_t len, uint64_t h);
/* Folded text of the path root->node into a growable buffer (no count). */
FK_HIDDEN int fk_profile_path_text(const fk_profile *p, uint32_t node, char **buf, size_t *cap,
				   size_t *len);
/* ---- bulk tree building (model/build.c), for a parser that gathers its unique stacks
 * first and adds them to the tree at the end: stacks as id sequences, root first. */
typedef struct fk_seqs {
	const uint32_t *ids; /* every stack's frame ids (nids in all) */
	size_t nids;
	const uint64_t *off; /* stack i is ids[off[i] .. off[i] + len[i]) */
	const uint32_t *len;
	size_t n;            /* stacks */
} fk_seqs;
/* ord[0..s->n) := the stacks in order: id by id, a prefix before what extends it. */
FK_HIDDEN void fk_seqs_sort(const fk_seqs *s, uint32_t *ord);
/* Add the stacks of s to p's tree, visiting them in ord (as fk_seqs_sort gives it; fmap
 * maps their ids to p's names, NULL when they are p's own ids); no weights. leaf[i] :=
 * stack i's node; path_out (NULL, or room for s->nids) := each stack's nodes root first,
 * at the stack's offset. 0 or a negative error (nodes added so far stay, a valid tree). */
FK_HIDDEN int fk_profile_build(fk_profile *p, const fk_seqs *s, const uint32_t *ord, const uint32_t *fmap,
			       uint32_t *leaf, uint32_t *path_out);
/* Index the nodes a bulk build left out of the child table now (else the next lookup does). */
FK_HIDDEN int fk_profile_index(fk_profile *p);
/* A merge of stacks s (ids mapped by fmap) into a tree that holds exactly base's stacks,
 * built into an empty profile by fk_profile_build with path_out kept: no lookup at all.
 * Planning needs base's order (base_ord) and p's names but not its tree, so it can run
 * while that tree is built. NULL and *err on failure. */
typedef struct fk_merge_plan fk_merge_plan;
FK_HIDDEN fk_merge_plan *fk_merge_plan_new(const fk_seqs *s, const uint32_t *fmap, const fk_seqs *base,
					   const uint32_t *base_ord, int *err);
/* Carry the plan out on p: leaf[i] := stack i's node. base_leaf and base_path: what
 * fk_profile_build gave for base. 0 or a negative error. */
FK_HIDDEN int fk_merge_plan_apply(const fk_merge_plan *m, fk_profile *p, const fk_seqs *base,
				  const uint32_t *base_leaf, const uint32_t *base_path, uint32_t *leaf);
FK_HIDDEN void fk_merge_plan_free(fk_merge_plan *m); /* NULL is fine */
/* Frame ids of the path root->node (root excluded) into a growable array. */
FK_HIDDEN int fk_profile_path_ids(const fk_profile *p, uint32_t node, uint32_t **ids, size_t *cap,
				  size_t *n);

/* ---- stack mode (model/stacks.c): a profile can hold its unique stacks (frame id sequences
 * with their counts) and build no tree until some caller asks for nodes; a bulk reader adds
 * stacks with fk_profile_add_seq (the same as fk_profile_add_stack, minus the node id).
 * Profiles that keep samples, or already have nodes, take the stacks into their tree. */
FK_HIDDEN int fk_profile_add_seq(fk_profile *p, const uint32_t *ids, size_t n, unsigned col,
				 double count);
/* v := fn(v, ctx) for every non-zero own count of column col (a stack's, or a node's). */
FK_HIDDEN void fk_profile_map_counts(fk_profile *p, unsigned col, double (*fn)(double v, void *ctx),
				     void *ctx);
/* Two count columns from now on (a diff whose sides hold nothing in one column). */
FK_HIDDEN void fk_profile_two_columns(fk_profile *p);
/* Whether p holds nothing yet (no stack, no count). */
FK_HIDDEN bool fk_profile_blank(const fk_profile *p);
/* p emptied as if new (same flags; its unit and kind kept): the undo of a failed parse
 * into a blank profile. 0 or -FK_E_NOMEM (p unchanged). */
FK_HIDDEN int fk_profile_reset(fk_profile *p);
/* A stack's hash, from its names' hashes (the low 32 bits of fk_name_hash) root first, so
 * a reader knows it before its names are looked up: fk_seq_hash(fk_seq_step(...)..., n). */
static inline uint64_t fk_seq_step(uint64_t h, uint32_t name_hash)
{
	h = (h ^ name_hash) * 0x9fb21c651e98df25ULL;
	return h << 29 | h >> 35;
}
#define FK_SEQ_SEED 0x13198a2e03707344ULL
static inline uint64_t fk_seq_hash(uint64_t h, size_t n) { return fk_mix64(h ^ n); }
/* fk_profile_add_seq with the stack's hash known; fk_profile_seq_prefetch fetches its slot. */
FK_HIDDEN int fk_profile_add_seq_h(fk_profile *p, const uint32_t *ids, size_t n, unsigned col,
				   double count, uint64_t hash);
FK_HIDDEN void fk_profile_seq_prefetch(const fk_profile *p, uint64_t hash);
/* difffolded.pl -n: a BEFORE count v scaled to AFTER's total (t1 BEFORE's, t2 AFTER's), or v
 * when no scaling applies (model/diff.c). */
FK_HIDDEN double fk_diff_normalized(double v, double t1, double t2);
/* Every 0x<hex> of s[0..n) as "0x..." into out (room for 2 * n + 8 bytes); the new length.
 * Names whose addresses moved between two runs then match (diff, the gate). */
FK_HIDDEN size_t fk_strip_hex(const char *s, size_t n, char *out);
/* The gate's options, runs a side and the unit of its runs (NULL: unknown), for its report. */
FK_HIDDEN const fk_gate_opts *fk_gate_state(const fk_gate *g, size_t runs[2], const char **unit);
/* Whether fk_profile_add_seq keeps stacks (true) or adds to the tree. */
FK_HIDDEN bool fk_profile_takes_seqs(const fk_profile *p);

/* ---- walking the merged call tree (model/walk.c): pre-order, siblings by name (bytewise,
 * a prefix first), a node's own count before its children; from whatever the profile holds
 * (a tree, or unique stacks swept in sorted order: no tree is built for a walk). open() gets
 * each node's depth (1 = a root frame), name id and own counts; close() its inclusive counts
 * (its children closed before). Either may be NULL. A callback's non-zero return stops the
 * walk and is returned. Negative counts count as they are (callers clamp if they draw). */
typedef struct fk_walk_ops {
	int (*open)(void *ctx, uint32_t depth, uint32_t frame, const double self[2]);
	int (*close)(void *ctx, uint32_t depth, uint32_t frame, const double total[2]);
	/* Optional: n frames from `depth` on that one stack alone passes through (each is the
	 * only child of the one before, the last has the counts self, so every one's total is
	 * self), given at once instead of their opens and closes (stack mode only). */
	int (*chain)(void *ctx, uint32_t depth, const uint32_t *frames, uint32_t n,
		     const double self[2]);
} fk_walk_ops;
FK_HIDDEN int fk_profile_walk(const fk_profile *p, const fk_walk_ops *ops, void *ctx);
/* The walk, and *rank := every name's place in the order of names by their bytes (the
 * siblings' order; the stack mode's walk ranks them anyway), the caller's to free. */
FK_HIDDEN int fk_profile_walk_ranked(const fk_profile *p, const fk_walk_ops *ops, void *ctx,
				     uint32_t **rank);
/* A walk in two parts (fk_profile_walk_split): where the second part starts, the stacks
 * before it walked by the first. */
typedef struct fk_walk_seam {
	uint32_t depth;  /* the depth of the last frame the first part opens (its last stack's leaf) */
	uint32_t shared; /* the frames the second part's first stack shares with that stack: its
			  * first open is at depth shared + 1 */
	const uint32_t *frames; /* the second part's first stack's frames (shared of them are
				 * the frames open at the seam) */
} fk_walk_seam;
typedef struct fk_walk_split {
	void *ctx2;      /* the second part's ops->open context */
	/* on the second part's thread, before its first open */
	void (*begin)(void *ctx2, const fk_walk_seam *seam);
	/* (may be NULL) on each part's thread after its last open (ctx, or ctx2), before the
	 * join; not after a failed open */
	void (*end)(void *ctx);
	/* once both parts are walked: 1 = ctx took ctx2's work (the walk is done), 0 = declined
	 * (ctx is as the first part left it; the first thread then walks the second part into
	 * it), or a negative error */
	int (*join)(void *ctx, void *ctx2, const fk_walk_seam *seam);
} fk_walk_split;
/* fk_profile_walk_ranked, which a profile in stack mode with many stacks may walk in two
 * parts at once where it may use two threads: the first part's calls go to ctx, the
 * second's to sp->ctx2 on a second thread (see fk_walk_split); the calls and their order
 * as one walk's once joined. Ops with open alone: the first part closes nothing. Ops with
 * close or chain: the first part leaves the seam's frames (1..shared) open, and the second
 * starts with them open, closing them with its own counts alone (the join's to make whole).
 * Otherwise (tree mode, few stacks) the plain walk. */
FK_HIDDEN int fk_profile_walk_split(const fk_profile *p, const fk_walk_ops *ops, void *ctx,
				    const fk_walk_split *sp, uint32_t **rank);
/* fk_profile_walk_split without the names' ranks (sp NULL: fk_profile_walk). */
FK_HIDDEN int fk_profile_walk_two(const fk_profile *p, const fk_walk_ops *ops, void *ctx,
				  const fk_walk_split *sp);
/* For a loop over names met at random: fetches name far's entry and name near's bytes
 * (with far some 16 names ahead and near 8, both are in cache as the loop comes to them). */
FK_HIDDEN void fk_profile_name_ahead(const fk_profile *p, uint32_t far, uint32_t near);
/* Every name's place in the order of names by their bytes (a prefix first): malloc'd, or
 * NULL (out of memory). */
FK_HIDDEN uint32_t *fk_profile_name_ranks(const fk_profile *p);
/* The root's own counts (stacks with no frame), which the walk does not open. */
FK_HIDDEN void fk_profile_root_self(const fk_profile *p, double self[2]);
/* Sum of the positive self counts of a column (what a drawn graph's root spans), or with
 * col 2 of each stack's larger positive count (a differential graph of both sides); *neg
 * (if not NULL) := how many stacks have a negative count. */
FK_HIDDEN double fk_profile_total_pos(const fk_profile *p, unsigned col, size_t *neg);
/* Every unique stack with a count, root first, with its counts: stack mode in the order the
 * stacks came, tree mode in the order of the nodes. fn's non-zero return stops it. */
FK_HIDDEN int fk_profile_each_stack(const fk_profile *p,
				    int (*fn)(void *ctx, const uint32_t *ids, size_t n,
					      const double self[2]),
				    void *ctx);

/* fk_perf_root_name with pid and tid as the digits the input spelled (pidlen 0 =
 * unknown, written '?'); out holds commlen + pidlen + tidlen + 4 bytes. */
FK_HIDDEN size_t fk_perf_root_text(char *out, const char *comm, size_t commlen, const char *pid,
				   size_t pidlen, const char *tid, size_t tidlen, const fk_parse_opts *o);

/* ---- line reader over an fd or a memory buffer.
 * Lines are (pointer, length) spans without the '\n' (a trailing '\r' is kept:
 * parsers decide). Lines may contain NUL bytes. A line longer than
 * FK_MAX_LINE is reported and skipped by the reader itself. */
#define FK_MAX_LINE (16u << 20)
typedef struct fk_unzip fk_unzip;
typedef struct fk_reader {
	int fd;               /* what a parser may read itself (pread) from the reader's offset:
			       * -1 for a memory buffer or compressed input */
	const char *name;     /* for messages */
	char *buf;            /* owned (fd mode) */
	size_t cap;
	const char *pos, *end;/* unread bytes */
	bool eof;
	bool mem;
	int err;              /* sticky read error (negative) */
	uint64_t lineno;      /* number of the last line returned (1-based) */
	uint64_t bytes;       /* bytes consumed */
	uint64_t long_lines;  /* lines skipped for length */
	uint64_t next_progress;
	const fk_parse_opts *opts;
	int src_fd;           /* the descriptor read (fd, or the compressed input's) */
	bool sniffed;         /* the first bytes were checked for compression magic */
	fk_unzip *unzip;      /* decompressor of gzip/zstd input, NULL for plain input */
} fk_reader;

FK_HIDDEN int fk_reader_init_fd(fk_reader *r, int fd, const char *name, const fk_parse_opts *o);
/* 0, or -FK_E_NOMEM (compressed memory input needs a buffer). */
FK_HIDDEN int fk_reader_init_mem(fk_reader *r, const char *buf, size_t len, const char *name,
				 const fk_parse_opts *o);
FK_HIDDEN void fk_reader_fini(fk_reader *r);
/* Line lineno was longer than FK_MAX_LINE and is skipped: counted and said (for a parser
 * that reads the text itself). */
FK_HIDDEN void fk_reader_long_line(fk_reader *r, uint64_t lineno);
/* Next line: 1 with line and len set, 0 at end of input, negative on error. */
FK_HIDDEN int fk_reader_line(fk_reader *r, const char **line, size_t *len);
/* Peek at up to `want` bytes of the start of the input without consuming
 * (used by format detection before the first line is read). */
FK_HIDDEN int fk_reader_peek(fk_reader *r, size_t want, const char **buf, size_t *len);
/* Block access for fast parsers: returns a span of whole lines (ending with
 * '\n', except possibly the last block of the input) and consumes it. The
 * caller counts lines itself and must add them with fk_reader_add_lines() so
 * messages stay right. 1 = block, 0 = end, negative = error. */
FK_HIDDEN int fk_reader_block(fk_reader *r, const char **buf, size_t *len);
static inline void fk_reader_add_lines(fk_reader *r, uint64_t n) { r->lineno += n; }
/* The whole rest of the input in one span, for binary formats (pprof): the buffer grows
 * to hold it, up to limit bytes (-FK_E_TOOBIG past it). 0 or a negative error. */
FK_HIDDEN int fk_reader_all(fk_reader *r, size_t limit, const char **buf, size_t *len);

/* ---- decompression under the reader (unzip.c): gzip and zstd by their magic bytes.
 * Damage (truncated or corrupt data, a failed CRC or frame checksum) is said once, naming
 * the input and the compressed byte; the input is then refused whole (-FK_E_DAMAGED). */
enum { FK_UNZIP_GZIP = 1, FK_UNZIP_ZSTD = 2 };
/* FK_UNZIP_* if buf starts with a compressed stream's magic, else 0. */
FK_HIDDEN int fk_unzip_kind(const void *buf, size_t len);
FK_HIDDEN const char *fk_unzip_name(int kind);
/* A decoder of compressed bytes from fd (head: bytes already read from it, copied) or,
 * with fd -1, from memory (head, headlen: the whole input, borrowed). NULL + errno. */
FK_HIDDEN fk_unzip *fk_unzip_new(int kind, int fd, const void *head, size_t headlen,
				 const char *name);
/* Up to room decompressed bytes into out: how many, 0 at the clean end, or a negative
 * error (-FK_E_DAMAGED for damage, see fk_unzip_damage; every later call returns it too). */
FK_HIDDEN ssize_t fk_unzip_read(fk_unzip *z, char *out, size_t room);
/* The message of the damage found ("name: gzip input is corrupt at ..."), or NULL. It is
 * not printed: the caller says it, after dropping what was said about the damaged data. */
FK_HIDDEN const char *fk_unzip_damage(const fk_unzip *z);
FK_HIDDEN void fk_unzip_free(fk_unzip *z);

/* ---- parser table */
typedef struct fk_parse_ctx {
	fk_profile *p;
	const fk_parse_opts *o;
	fk_parse_stats *st;
	fk_reader *r;
	const char *name;     /* file name for messages */
	unsigned warned;      /* warnings printed so far for this input */
	char unit[64];        /* what this input counts (fk_profile_unit); "" = the
			       * format's unit */
	char *name_buf;       /* scratch of fk_parse_intern (freed by the caller of parse) */
	size_t name_cap;
	int kind;             /* enum fk_profile_kind of what it counts */
} fk_parse_ctx;

/* The user's frame-name rules (--rust-names, --cxx-names) on s, in place; s has
 * cap bytes of room (cap >= len): a Rust v0 name is demangled when its printed
 * form fits, or stays mangled. The new length (names.c). */
FK_HIDDEN size_t fk_name_rules(const fk_parse_opts *o, char *s, size_t len, size_t cap);
static inline bool fk_name_rules_on(const fk_parse_opts *o) { return o->rust_names || o->cxx_names; }
/* The room the rules are given for a name of len bytes: a v0 name's backrefs repeat paths
 * (std's own names print 2-3 times their mangled length); one that would print longer
 * stays mangled. */
static inline size_t fk_name_rules_room(size_t len) { return len * 8 + 256; }
/* Intern a frame name as the parsers do: through the name rules when any is on. */
FK_HIDDEN int64_t fk_parse_intern(fk_parse_ctx *c, const char *s, size_t len);

/* Warn about a malformed line: "name:line: msg"; after max_warnings, only
 * counts. Also increments st->bad_lines. */
FK_HIDDEN void fk_bad_line(fk_parse_ctx *c, uint64_t lineno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Whether a big input's reading may split onto a second thread: a CPU free for it as the
 * reading starts (fk_cpu_free_soon); when not, the profile's work after the reading takes
 * one thread too (fk_profile_one_thread). For a reading asked to use two threads. */
FK_HIDDEN bool fk_parse_second_cpu(fk_parse_ctx *c);
/* A file's part read by a second thread whose end the first, done with its own part first,
 * may bring forward to read that tail itself: the second claims each piece under mu before
 * reading it, up to end as it is then. Tests: FLAMEKIT_LATE_SECOND (late) holds the second
 * back until the first says go (once it has taken its tail, as a busy machine may). */
typedef struct fk_span {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t end;     /* where the part ends now */
	uint64_t claimed; /* read, or being read, up to here */
	bool late, go;
} fk_span;
FK_HIDDEN void fk_span_init(fk_span *s, uint64_t from, uint64_t end);
FK_HIDDEN void fk_span_destroy(fk_span *s);
/* (the second thread, before its first piece) Under FLAMEKIT_LATE_SECOND, until go. */
FK_HIDDEN void fk_span_wait_go(fk_span *s);
/* (the first) The second may go (locked: call with mu held). */
FK_HIDDEN void fk_span_go_locked(fk_span *s);
/* Same wording without counting a bad line (e.g. filtered events notices). */
FK_HIDDEN void fk_note(fk_parse_ctx *c, uint64_t lineno, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

typedef struct fk_format {
	const char *name;
	const char *desc;
	/* Confidence 0..100 that buf (the first bytes of an input) is this format. */
	int (*probe)(const char *buf, size_t len);
	/* Parse the whole input from c->r into c->p. Return 0, or negative error
	 * (-FK_E_SKIPPED is computed by the caller from st->bad_lines). */
	int (*parse)(fk_parse_ctx *c);
	bool binary;          /* probed even when the input looks binary (pprof) */
	const char *unit;     /* what its counts are; NULL = unknown (or set in c->unit) */
} fk_format;

/* One file per format fills one of these (parse-<name>.c: fk_format_<name>); the
 * one list of them is FK_FORMATS in formats/parse.c. */

/* ---- small text helpers */
static inline bool fk_is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
/* Parse a count (integer or decimal, optional exponent) from [s, s+len). 0 or -1. */
FK_HIDDEN int fk_parse_count(const char *s, size_t len, double *out);

#endif /* FK_INTERNAL_H */

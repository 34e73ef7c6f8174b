/* parse-perf.h - private to the perf script parser's files: the state of one parsing thread
 * and the calls between them. parse-perf-rules.c holds stackcollapse-perf.pl's rules,
 * parse-perf-tables.c the caches, parse-perf-lines.c the per-line work, parse-perf.c the driver. */
#ifndef FK_PARSE_PERF_H
#define FK_PARSE_PERF_H

#include <pthread.h>
#include <stdlib.h>
#include "internal.h"
#include "base/out.h"

/* Scan [p, p+len) (len < 4 GiB): store the offset of every '\n' into ends (room for len
 * entries plus FK_PERF_SCAN_SLACK), return how many; set *nul if the span holds a NUL byte. */
#define FK_PERF_SCAN_SLACK 4
typedef size_t (*fk_perf_scan_fn)(const char *p, size_t len, uint32_t *ends, bool *nul);
/* The best variant for this CPU (FLAMEKIT_SIMD=scalar|sse2 forces one); *name says which. */
FK_HIDDEN fk_perf_scan_fn fk_perf_pick_scan(const char **name);

/* character classes: Perl's ASCII rules on byte strings: \s = [\t\n\v\f\r ], \w = [A-Za-z0-9_], \d = [0-9]. */
enum { C_WS = 1, C_W = 2, C_D = 4 };
extern const unsigned char fk_perf_ctab[256] FK_HIDDEN;
#define IS_WS(c) (fk_perf_ctab[(unsigned char)(c)] & C_WS)
#define IS_W(c) (fk_perf_ctab[(unsigned char)(c)] & C_W)
#define IS_D(c) (fk_perf_ctab[(unsigned char)(c)] & C_D)

/* hashing: 8 bytes a step,
 * four independent lanes so long C++ names hash at several bytes per cycle. */
#define HK1 0x9e3779b97f4a7c15ULL
#define HK2 0xc2b2ae3d27d4eb4fULL
static inline uint64_t rd64(const char *s) { uint64_t w; memcpy(&w, s, 8); return w; }
static inline uint32_t rd32(const char *s) { uint32_t w; memcpy(&w, s, 4); return w; }
static inline uint64_t rotl(uint64_t x, int r) { return x << r | x >> (64 - r); }

struct h128 {
	uint64_t a, b;
};

static inline uint64_t step1(uint64_t h, uint64_t w) { return rotl((h ^ w) * HK1, 29); }
static inline uint64_t step2(uint64_t h, uint64_t w) { return rotl((h ^ w) * HK2, 31); }

/* 128 bits of fingerprint; for a given length every byte enters the state (the short
 * tails are read as overlapping words, which is injective once the length is fixed). */
static inline __attribute__((always_inline)) struct h128 hash128(const char *s, size_t n, uint64_t seed)
{
	uint64_t a = seed ^ (n * HK2), b = ~seed ^ n, c = HK1 + n, d = HK2 ^ seed;
	if (n >= 32) {
		/* whole blocks, then the last 32 bytes (overlapping the one before): no branch
		 * on the length past the loop */
		const char *last = s + n - 32;
		for (; s < last; s += 32) {
			a = step1(a, rd64(s));
			b = step2(b, rd64(s + 8));
			c = step1(c, rd64(s + 16));
			d = step2(d, rd64(s + 24));
		}
		a = step2(a, rd64(last));
		b = step1(b, rd64(last + 8));
		c = step2(c, rd64(last + 16));
		d = step1(d, rd64(last + 24));
		n = 0;
	}
	if (n >= 16) {
		a = step1(a, rd64(s));
		b = step2(b, rd64(s + 8));
		s += 16;
		n -= 16;
	}
	if (n >= 8) {
		c = step1(c, rd64(s));
		d = step2(d, n > 8 ? rd64(s + n - 8) : 0);
	} else if (n >= 4) {
		c = step1(c, (uint64_t)rd32(s) | (uint64_t)rd32(s + n - 4) << 32);
	} else if (n) {
		c = step1(c, (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n >> 1] << 8 |
				     (uint64_t)(unsigned char)s[n - 1] << 16);
	}
	/* a: full avalanche (it picks the slot); b: a second, independent fold of the state
	 * (only compared), one multiply is enough for it. */
	struct h128 h;
	h.a = fk_mix64(a ^ rotl(b, 17) ^ rotl(c, 31) ^ rotl(d, 47));
	uint64_t x = (b ^ rotl(a, 41) ^ rotl(c, 23) ^ rotl(d, 7)) * HK2;
	h.b = x ^ x >> 29;
	return h;
}

/* caches (perf-tables.c)
 * Frame cache: the raw bytes of a frame line (from the end of the address on) -> the
 * frame ids it folds to. The pname cache is the same structure keyed by the
 * process-name text. Keys live in one arena addressed by offsets. */
#define NRES_BAD UINT32_MAX

/* 16 bytes, four to a cache line. res: a frame id below 2^31; RES_BAD (line does not
 * parse); RES_NONE (no frame); else RES_MULTI | offset in rids of "count, ids...". */
struct fent {
	uint64_t hash;  /* 0 = empty slot (real hashes have the top bit set) */
	uint32_t check; /* 32 more bits of fingerprint: 96 in all */
	uint32_t res;
};
#define RES_BAD UINT32_MAX
#define RES_NONE (UINT32_MAX - 1)
#define RES_MULTI 0x80000000u

/* A unique stack: its frame ids root first (process name first) in sids. */
struct sent {
	uint64_t hash, check; /* 128-bit fingerprint of the id sequence */
	uint64_t off;
	uint32_t n;
	uint32_t idx; /* order of first appearance */
	double w;     /* total weight (kept here: one cache miss per sample, not two) */
};

/* One sample, kept when the profile records samples; added in input order at the end. */
struct psamp {
	double time, weight;
	uint32_t stk, comm; /* comm: name id in this thread's profile */
	int32_t pid, tid, cpu;
};

struct ftab {
	struct fent *t;
	size_t mask, n;
};

struct evfilter {
	char name[256];
	size_t len;
	bool set, defaulted, too_long;
};

struct warn {
	uint64_t line;
	char msg[240];
};

/* One parsing thread: its profile, caches, the state of the sample being read. */
struct pp {
	fk_profile *p;
	const fk_parse_opts *o;
	fk_perf_scan_fn scan;
	bool keep_samples, pc_key, kern, jitm;
	char *ibuf; /* file input */
	size_t icap;
	struct evfilter ev;

	struct ftab fc, fc2, pc; /* frame lines, frame lines without module, process names */
	uint32_t *rids;
	size_t rids_len, rids_cap;
	struct sent *st;
	size_t st_mask, st_n;
	uint32_t *sids;
	size_t sids_len, sids_cap;
	double *sw; /* weight of each unique stack, gathered by stack_arrays() */
	size_t nstk;
	struct psamp *ps;
	size_t ps_n, ps_cap;
	uint64_t *soff; /* the unique stacks by index (stack_arrays), sord their order (sort_stacks) */
	uint32_t *slen, *sord;
	uint32_t *leaf; /* each unique stack's leaf node, once built */
	uint32_t *spath; /* their nodes root first (offsets as in sids), kept for a merge */
	bool want_spath; /* keep spath: a second half will merge along this one's stacks */
	bool built;
	uint32_t *key; /* the stack being looked up, root first */
	size_t key_cap;
	uint32_t *pkey; /* the pending stack (see finish_pending) */
	size_t pkey_cap, pend_n;
	struct h128 pend_h;
	double pend_w;
	bool pend;
	uint32_t last_comm;
	bool have_comm;

	/* sample being read: perl's $pname, @stack, $m_period */
	bool have_pname, java;
	uint32_t pn_res, pn_n;
	double weight;
	fk_sample_info info;
	char *comm;
	size_t comm_cap;
	uint32_t *fr; /* frame ids, leaf first */
	size_t fr_n, fr_cap;

	uint32_t *tmp;
	size_t tmp_n, tmp_cap;
	uint32_t one;
	struct h128 hv[16]; /* fingerprints of the lines hashed ahead (AHEAD) */
	char *sbuf;
	size_t sbuf_cap;
	char *kbuf;
	size_t kbuf_cap;
	uint32_t *ends;

	/* per block accounting; line numbers relative to the region start */
	uint64_t lineno, samples, filtered;
	bool in_orphans;  /* in a run of frame lines with no header before them (warned) */
	bool at_start;    /* this region begins the input: its line 1 is the input's */
	bool in_filtered; /* in a sample whose event is filtered out */
	struct warn *warns;
	unsigned nwarns, maxwarns;
	uint64_t unshown;
	uint64_t skip_line;
	char skip_ev[80];
	bool skipped;
	uint64_t nul_line, utf8_line;
	bool saw_nul, saw_utf8;
	int err;

	struct { void *p; size_t size; } grave[24]; /* tables outgrown (see table_double) */
	unsigned ngrave;
	/* units and off-CPU time (parse-perf-offcpu.c) */
	bool weighted;    /* a sample weighed a period other than 1 */
	int offcpu;       /* 1: sched_switch samples are paired into off-CPU time, -1: not,
			   * 0: undecided (the first event decides, as it picks the filter) */
	/* --weight FIELD: the weighed event's format (loaded at its first sample) */
	fk_tp_format *wtp;
	int wfield;
	uint64_t wneg;    /* samples whose field was negative (error returns): not summed */
	struct fk_perf_offcpu *oc;

	bool oc_track;    /* the sample being read is a switch-out to pair */
	int32_t wk_tid;   /* the sample being read is a wakeup of this thread (--off-wake) */
	bool wk_waking;   /* ... a sched_waking (else a sched_wakeup) */
	uint64_t oc_ns;
	int32_t oc_tid;
	/* --inline: the symboliser (o->inline_fn, or this thread's addr2line) */
	fk_inline_fn inl;
	void *inl_ctx;
	struct fk_addr2line *a2l;
};

/* java frames are tidied differently: their cache entries differ by this in the check */
#define JAVA_MARK 0x5bd1e9955bd1e995ULL

/* ---- parse-perf-rules.c: stackcollapse-perf.pl's regexes and naming */
/* the regex ^(\S.+?)\s+(\d+)[/]*(\d+)*\s+ : the sample header. */
struct hdr {
	size_t comm_len;
	size_t a0, a1;    /* $2 */
	size_t b0, b1;    /* $3 (b0 == b1: undef) */
	size_t end;       /* end of the match */
};

FK_HIDDEN bool fk_perf_match_header(const char *l, size_t len, struct hdr *h);
/* /:\s*(\d+)*\s+(\S+):\s*$/ : the event e0..e1 and period d0..d1 (d0 == d1: none). */
FK_HIDDEN bool fk_perf_match_event(const char *l, size_t len, size_t *e0, size_t *e1, size_t *d0,
				   size_t *d1);
/* /^\s*(\w+)\s*(.+) \((.*)\)/ : a stack frame line. pc, raw function and module spans. */
struct frm {
	size_t pc0, pc1, f0, f1, m0, m1;
};

FK_HIDDEN bool fk_perf_match_frame(const char *l, size_t len, struct frm *f);
/* The process-name frame of a header (perl's $pname) into out (room for the comm, both
 * numbers and 4 more bytes); its length. */
FK_HIDDEN size_t fk_perf_pname(char *out, const char *l, const struct hdr *h, const fk_parse_opts *o);
/* The frame ids of one frame line, root-first within the line, into t->tmp.
 * 0, 1 when the line does not parse, or a negative error. */
FK_HIDDEN int fk_perf_frame_names(struct pp *t, const char *l, size_t len);
FK_HIDDEN bool fk_perf_kernel_mod(const char *m, size_t n);
FK_HIDDEN bool fk_perf_jit_mod(const char *m, size_t n);

/* s/\+0x[\da-f]+$// : the length without it */
static inline size_t fk_perf_strip_offset(const char *f, size_t n)
{
	size_t h = n;
	while (h > 0 && ((f[h - 1] >= '0' && f[h - 1] <= '9') || (f[h - 1] >= 'a' && f[h - 1] <= 'f')))
		h--;
	if (h < n && h >= 3 && !memcmp(f + h - 3, "+0x", 3))
		return h - 3;
	return n;
}

/* ---- parse-perf-addr2line.c: the default symboliser for --inline (a fk_inline_fn whose
 * ctx is a struct fk_addr2line: one per parsing thread, it caches nm's output) */
FK_HIDDEN struct fk_addr2line *fk_addr2line_new(void);
FK_HIDDEN void fk_addr2line_free(struct fk_addr2line *a);
FK_HIDDEN char *fk_addr2line_inline(const char *pc, const char *mod, const char *func, void *ctx);

/* ---- parse-perf-tables.c: hash tables and caches */
FK_HIDDEN int fk_perf_tables_init(struct pp *t);
FK_HIDDEN void fk_perf_tables_fini(struct pp *t);
/* Intern a name (split at ';' when asked: a folded name is several frames) onto t->tmp. */
FK_HIDDEN int fk_perf_push_name(struct pp *t, const char *s, size_t n, bool split);
/* Look a key up by its fingerprint; on a miss compute the ids (from the frame line, or
 * the process name) and insert. ids/nres describe them (nres NRES_BAD: the line does not
 * parse); they point into tmp or rids and stay valid until the next lookup. */
FK_HIDDEN int fk_perf_cache_lookup(struct pp *t, struct ftab *tab, struct h128 h, const uint32_t **ids,
				   uint32_t *nres, bool is_pname, const char *line, size_t llen);
/* Add one sample of stack k[0..n) (fingerprint hh) with weight w to the unique stacks. */
FK_HIDDEN void fk_perf_stack_add(struct pp *t, const uint32_t *k, size_t n, struct h128 hh, double w);
/* The unique stacks as arrays by index (soff, slen, sw), then (sort) in order in sord. */
FK_HIDDEN int fk_perf_stack_arrays(struct pp *t);
FK_HIDDEN int fk_perf_sort_stacks(struct pp *t);
static inline fk_seqs fk_perf_seqs(const struct pp *t)
{
	return (fk_seqs){ t->sids, t->sids_len, t->soff, t->slen, t->nstk };
}

/* ---- parse-perf-offcpu.c: sched_switch text paired into off-CPU time */
struct fk_perf_switch {
	int32_t prev_tid, next_tid;
	bool preempted;
};
/* The payload of a "sched:sched_switch:" header (prev_pid= prev_state= next_pid=). */
FK_HIDDEN bool fk_perf_switch_fields(const char *l, size_t len, struct fk_perf_switch *sw);
/* A switch at t->info's time and CPU: ends the intervals it ends (their stacks are added),
 * and says (t->oc_track) whether the sample's stack is a switch-out to pair. */
FK_HIDDEN int fk_perf_offcpu_switch(struct pp *t, const struct fk_perf_switch *sw);
/* The stack k[0..n) of a tracked switch-out: kept until its switch-in. */
FK_HIDDEN int fk_perf_offcpu_block(struct pp *t, const uint32_t *k, size_t n, struct h128 hh);
/* The payload of a "sched:sched_waking:" or "sched:sched_wakeup:" header: the woken
 * thread (pid=), and which of the two it is. */
FK_HIDDEN bool fk_perf_wakeup_fields(const char *l, size_t len, int32_t *tid, bool *waking);
/* The stack k[0..n) of a wakeup of t->wk_tid: the waker's, kept for the interval. */
FK_HIDDEN int fk_perf_offcpu_waker(struct pp *t, const uint32_t *k, size_t n);
/* A sched_switch header without a process the perl takes: paired only. */
FK_HIDDEN bool fk_perf_offcpu_unnamed(struct pp *t, const char *l, size_t len);
FK_HIDDEN void fk_perf_offcpu_free(struct pp *t);
FK_HIDDEN void fk_perf_offcpu_stats(const struct pp *t, fk_offcpu_stats *st);

/* ---- parse-perf-lines.c: lines and regions */
FK_HIDDEN int fk_perf_pp_init(struct pp *t, fk_profile *p, const fk_parse_opts *o, fk_perf_scan_fn scan);
FK_HIDDEN void fk_perf_pp_fini(struct pp *t);
/* A bad line for the messages (line number relative to the region). */
FK_HIDDEN void fk_perf_bad(struct pp *t, const char *what, const char *l, size_t len);
/* Printable excerpt of an untrusted line for a message. */
FK_HIDDEN void fk_perf_excerpt(char *out, size_t size, const char *l, size_t len);
/* The key of a frame line without its module (modfree; *ok false when there is none). */
FK_HIDDEN struct h128 fk_perf_frame_key_modfree(const struct pp *t, const char *l, size_t len, bool *ok);
/* Parse the lines of [buf, buf+len) / [off, end) of a file; see the .c. */
FK_HIDDEN void fk_perf_parse_region(struct pp *t, const char *buf, size_t len, const fk_parse_opts *o,
				    bool progress);
/* The input ends: a sample no blank line closed is kept (the perl drops it). */
FK_HIDDEN void fk_perf_end_input(struct pp *t);
/* [off, end) of a file; with span (parse-perf.c, steal_tail), [off, span->end) as it is
 * when each block is claimed. */
FK_HIDDEN void fk_perf_parse_fd_region(struct pp *t, int fd, uint64_t off, uint64_t end,
				       fk_span *span, const fk_parse_opts *o, bool progress);

static inline int fk_perf_grow_bytes(char **b, size_t *cap, size_t need)
{
	return fk_grow((void **)b, cap, need, 1);
}

static inline void fk_perf_set_err(struct pp *t, int err)
{
	if (!t->err)
		t->err = err;
}

#endif

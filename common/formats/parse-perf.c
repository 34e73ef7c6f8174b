/* parse-perf.c - `perf script` text -> stacks, folded exactly as FlameGraph's
 * stackcollapse-perf.pl folds them, at GB/s. This file is the driver: an input is parsed by
 * one thread, or a big one by two on two halves split at a blank line, and the unique
 * stacks of each go into the tree in one pass (model/build.c); also format detection. */
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include "parse-perf.h"

/* The weights of t's unique stacks onto their leaves in dst, or its samples in input order. */
static int add_weights(const struct pp *t, fk_profile *dst, const uint32_t *leaf)
{
	int rc = 0;
	if (!t->keep_samples) {
		for (size_t i = 0; i < t->nstk && !rc; i++)
			rc = fk_profile_add_to_node(dst, leaf[i], 0, t->sw[i], NULL);
		return rc;
	}
	for (size_t i = 0; i < t->ps_n && !rc; i++) {
		const struct psamp *sp = &t->ps[i];
		fk_sample_info in = { .time = sp->time, .pid = sp->pid, .tid = sp->tid, .cpu = sp->cpu };
		if (sp->comm)
			in.comm = fk_profile_name(t->p, sp->comm, &in.comm_len);
		rc = fk_profile_add_to_node(dst, leaf[sp->stk], 0, sp->weight, &in);
	}
	return rc;
}

/* Put the unique stacks of t into dst (fmap: t's name ids -> dst's, or NULL when t parsed
 * into dst itself), then the weights, or the samples in input order. */
static int build_tree(struct pp *t, fk_profile *dst, const uint32_t *fmap)
{
	size_t ns = t->nstk;
	if (t->built || !ns)
		return 0;
	t->built = true;
	int rc = fk_perf_sort_stacks(t);
	if (rc)
		return rc;
	if (!(t->leaf = malloc(ns * sizeof(*t->leaf))))
		return -FK_E_NOMEM;
	if (t->want_spath && !(t->spath = malloc((t->sids_len ? t->sids_len : 1) * sizeof(*t->spath))))
		return -FK_E_NOMEM;
	fk_seqs s = fk_perf_seqs(t);
	rc = fk_profile_build(dst, &s, t->sord, fmap, t->leaf, t->spath);
	return rc ? rc : add_weights(t, dst, t->leaf);
}

/* The second thread's stacks merged into a tree that holds exactly base's (built from
 * nothing), along a plan made early (see plan_early) or now. */
static int merge_tree(struct pp *t, fk_profile *dst, const uint32_t *fmap, const struct pp *base,
		      fk_merge_plan **m)
{
	if (t->built || !t->nstk)
		return 0;
	t->built = true;
	if (!base->spath)
		return -FK_E_INVAL; /* base was not built to be merged along */
	int rc = fk_perf_stack_arrays(t); /* the plan sorts them its own way */
	fk_seqs s = fk_perf_seqs(t), bs = fk_perf_seqs(base);
	if (!rc && !*m)
		*m = fk_merge_plan_new(&s, fmap, &bs, base->sord, &rc);
	if (!rc && !(t->leaf = malloc(t->nstk * sizeof(*t->leaf))))
		rc = -FK_E_NOMEM;
	if (!rc)
		rc = fk_merge_plan_apply(*m, dst, &bs, base->leaf, base->spath, t->leaf);
	return rc ? rc : add_weights(t, dst, t->leaf);
}

/* Name ids of src -> ids in dst (interning them there). NULL + *err on failure. */
static uint32_t *map_names(fk_profile *dst, const fk_profile *src, int *err)
{
	size_t n = fk_profile_name_count(src);
	uint32_t *m = malloc((n + 1) * sizeof(*m));
	if (!m) {
		*err = -FK_E_NOMEM;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		size_t l;
		const char *s = fk_profile_name(src, (uint32_t)i, &l);
		int64_t id = fk_profile_intern(dst, s, l);
		if (id < 0) {
			*err = (int)id;
			free(m);
			return NULL;
		}
		m[i] = (uint32_t)id;
	}
	return m;
}


struct drv {
	fk_parse_ctx *c;
	struct pp t1, t2;
	bool t2_ok, threads;
	uint64_t line;       /* absolute lines done */
	bool noted_skip, noted_nul, noted_utf8;
	struct pp *last; /* the context that parsed the end of the input */
	uint64_t split_min;
	char other_ev[80]; /* with --event-filter: the first event it skipped, and where */
	uint64_t other_line;
	bool fresh; /* the profile held nothing before: the second half merges without an index */
	/* the second half's merge plan, made by its thread: its names mapped to the profile's
	 * once the first half has interned all of its own (T1_NAMES), the plan once the first
	 * half's stacks are sorted too (T1_SORTED); names the profile lacked then get the ids
	 * they will have when interned in order after the join (premiss) */
	fk_merge_plan *plan;
	uint32_t *premap, *premiss;
	size_t npremiss, pre_n0;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int t1_stage;
	int t1_err; /* the first half's error when it reached t1_stage */
};
enum { T1_NAMES = 1, T1_SORTED = 2 };


struct job {
	struct drv *d; /* set for a file's second half: plan its merge before the join */
	struct pp *t;
	const char *buf;
	size_t len;
	int fd;
	uint64_t off, end;
	fk_span *span;          /* (a file's second half: its end may come forward) */
	const fk_parse_opts *o;
	struct drv *init;       /* the second thread's state and profile made there first */
	struct evfilter ev;     /* the event the first thread's part chose (the second's) */
	int rc;                 /* making them failed */
	int tid;                /* the thread's id, once it runs */
};

/* The first half is at stage (T1_NAMES, T1_SORTED): the second goes on planning its merge. */
static void t1_at(struct drv *d, int stage)
{
	pthread_mutex_lock(&d->mu);
	d->t1_stage = stage;
	d->t1_err = d->t1.err;
	pthread_cond_signal(&d->cv);
	pthread_mutex_unlock(&d->mu);
}

/* Once the first half is at stage: its error then (its t1.err may change after). */
static int t1_wait(struct drv *d, int stage)
{
	pthread_mutex_lock(&d->mu);
	while (d->t1_stage < stage)
		pthread_cond_wait(&d->cv, &d->mu);
	int err = d->t1_err;
	pthread_mutex_unlock(&d->mu);
	return err;
}

/* In the second thread, while the first sorts its stacks and builds its tree (which read
 * the profile's names and write only its own arrays and nodes): map t2's names to the
 * profile's without interning (the missing ones get the ids interning them in order will
 * give), then plan the merge. (The mapping waited for the sort too: 0.5 ms of 64 MB of perf
 * text, the first thread then idle at the join for 1.2 ms.) */
static void plan_early(struct drv *d)
{
	struct pp *t1 = &d->t1, *t2 = &d->t2;
	if (t1_wait(d, T1_NAMES) || t2->err || (t2->nstk && !t2->soff) || t1->keep_samples || !d->fresh)
		return;
	fk_profile *dst = d->c->p;
	size_t n = fk_profile_name_count(t2->p), n0 = fk_profile_name_count(dst);
	d->premap = malloc((n + 1) * sizeof(*d->premap));
	d->premiss = malloc((n + 1) * sizeof(*d->premiss));
	if (!d->premap || !d->premiss)
		return;
	for (size_t i = 0; i < n; i++) {
		size_t l;
		const char *nm = fk_profile_name(t2->p, (uint32_t)i, &l);
		int64_t id = fk_profile_find_name(dst, nm, l);
		if (id < 0) {
			id = (int64_t)(n0 + d->npremiss);
			d->premiss[d->npremiss++] = (uint32_t)i;
		}
		d->premap[i] = (uint32_t)id;
	}
	d->pre_n0 = n0;
	if (t1_wait(d, T1_SORTED) || !t1->sord)
		return;
	int err;
	fk_seqs s2 = fk_perf_seqs(t2), s1 = fk_perf_seqs(t1);
	d->plan = fk_merge_plan_new(&s2, d->premap, &s1, t1->sord, &err);
}

static int start_second(struct drv *d, const fk_parse_opts *o);

static void *job_run(void *arg)
{
	struct job *j = arg;
	__atomic_store_n(&j->tid, fk_thread_id(), __ATOMIC_RELEASE);
	/* (made here, the second thread's tables come from its own malloc arena: made by the
	 * first thread, each of their reallocs here took that arena's lock, which the first
	 * thread's own allocations wait for, asleep) */
	if (j->init && (j->rc = start_second(j->init, j->o)))
		return NULL;
	j->t->ev = j->ev;
	j->t->lineno = 0;
	if (j->buf) {
		fk_perf_parse_region(j->t, j->buf, j->len, j->o, false);
	} else {
		fk_span_wait_go(j->span);
		fk_perf_parse_fd_region(j->t, j->fd, j->off, j->end, j->span, j->o, false);
		/* the file's second half: nothing more comes (a last sample no blank line closed
		 * is kept; the merge plan sorts the stacks itself, by the ids they get in the
		 * first half's profile) */
		fk_perf_end_input(j->t);
		int rc = j->d ? fk_perf_stack_arrays(j->t) : fk_perf_sort_stacks(j->t);
		if (rc)
			fk_perf_set_err(j->t, rc);
		if (j->d)
			plan_early(j->d);
	}
	return NULL;
}


/* The second thread's state and profile, made the first time a region is split. */
static int start_second(struct drv *d, const fk_parse_opts *o)
{
	if (d->t2_ok)
		return 0;
	fk_profile *p2 = fk_profile_new(fk_profile_flags(d->c->p));
	if (!p2)
		return -FK_E_NOMEM;
	int rc = fk_perf_pp_init(&d->t2, p2, o, d->t1.scan);
	if (rc) {
		fk_perf_pp_fini(&d->t2);
		fk_profile_free(p2);
		return rc;
	}
	d->t2_ok = true;
	return 0;
}

/* The notes of t due at or before line `upto` of its region (UINT64_MAX: all of them), each
 * said once for the input. */
static void flush_notes(struct drv *d, struct pp *t, uint64_t base, uint64_t upto)
{
	fk_parse_ctx *c = d->c;
	if (t->skipped && t->skip_line <= upto) {
		if (!d->noted_skip && t->ev.defaulted) {
			/* an explicit --event-filter skips silently, as the perl does */
			d->noted_skip = true;
			fk_note(c, base + t->skip_line,
				"events '%s' skipped: only '%.*s', the first event seen, is kept (choose one with --event-filter)",
				t->skip_ev, (int)t->ev.len, t->ev.name);
		}
		if (!t->ev.defaulted && !d->other_line) {
			d->other_line = base + t->skip_line;
			memcpy(d->other_ev, t->skip_ev, sizeof(d->other_ev));
		}
		t->skipped = false;
	}
	if (t->saw_nul && t->nul_line <= upto) {
		if (!d->noted_nul)
			fk_note(c, base + t->nul_line, "NUL byte in input; kept as is in names");
		d->noted_nul = true;
		t->saw_nul = false;
	}
	if (t->saw_utf8 && t->utf8_line <= upto) {
		if (!d->noted_utf8)
			fk_note(c, base + t->utf8_line, "invalid UTF-8 in a name; bytes kept as is");
		d->noted_utf8 = true;
		t->saw_utf8 = false;
	}
}

/* Report a region's messages with absolute line numbers, in line order, then reset them. */
static void flush_msgs(struct drv *d, struct pp *t, uint64_t base)
{
	fk_parse_ctx *c = d->c;
	for (unsigned i = 0; i < t->nwarns; i++) {
		flush_notes(d, t, base, t->warns[i].line);
		fk_bad_line(c, base + t->warns[i].line, "%s", t->warns[i].msg);
	}
	flush_notes(d, t, base, UINT64_MAX);
	c->st->bad_lines += t->unshown;
	c->warned += (unsigned)t->unshown;
	t->nwarns = 0;
	t->unshown = 0;
	c->st->samples += t->samples;
	c->st->filtered += t->filtered;
	t->samples = t->filtered = 0;
}

/* First event of [buf, buf+len) that the perl would default the filter to. */
static void prescan_event(struct pp *t, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	while (p < end && !t->ev.set) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		struct hdr h;
		size_t e0, e1, d0, d1;
		struct fk_perf_switch sw;
		if (n && !IS_WS(p[0]) && p[0] != '#' && fk_perf_match_header(p, n, &h) && t->offcpu == 0 &&
		    !fk_perf_match_event(p, n, &e0, &e1, &d0, &d1) &&
		    fk_perf_switch_fields(p + h.end, n - h.end, &sw)) {
			/* a sched_switch recording: paired by one thread (see header_line) */
			t->offcpu = 1;
			memcpy(t->ev.name, "sched:sched_switch", 18);
			t->ev.len = 18;
			t->ev.set = t->ev.defaulted = true;
			break;
		}
		if (n && !IS_WS(p[0]) && p[0] != '#' && fk_perf_match_header(p, n, &h) &&
		    fk_perf_match_event(p, n, &e0, &e1, &d0, &d1)) {
			size_t el = e1 - e0;
			if (el > sizeof(t->ev.name))
				el = sizeof(t->ev.name), t->ev.too_long = true;
			memcpy(t->ev.name, p + e0, el);
			t->ev.len = el;
			t->ev.set = t->ev.defaulted = true;
		}
		p = le + 1;
	}
}

/* Blank-line boundaries: a sample ends there and the parser state is clean after it. */
static size_t next_boundary(const char *buf, size_t len, size_t from)
{
	if (from < 1)
		from = 1;
	for (size_t i = from; i < len;) {
		const char *a = memchr(buf + i, '\n', len - i);
		if (!a)
			return SIZE_MAX;
		size_t k = (size_t)(a - buf);
		if (k + 1 < len && buf[k + 1] == '\n')
			return k + 2;
		i = k + 1;
	}
	return SIZE_MAX;
}

static size_t last_boundary(const char *buf, size_t len)
{
	for (size_t i = len; i >= 2; i--)
		if (buf[i - 1] == '\n' && buf[i - 2] == '\n')
			return i;
	return SIZE_MAX;
}

static int process_block(struct drv *d, const char *buf, size_t len)
{
	fk_parse_ctx *c = d->c;
	const fk_parse_opts *o = c->o;
	size_t b = SIZE_MAX, lb = SIZE_MAX;
	if (d->threads && len >= d->split_min / 4 && !d->t1.ev.set && d->t1.offcpu == 0)
		prescan_event(&d->t1, buf, len < (4u << 20) ? len : (4u << 20));
	if (d->t1.offcpu > 0)
		d->threads = false; /* switch-outs pair with switch-ins anywhere later */
	if (d->threads && len >= d->split_min / 4 && !fk_parse_second_cpu(c))
		d->threads = false;
	if (d->threads && len >= d->split_min / 4) {
		b = next_boundary(buf, len, len / 2);
		if (b != SIZE_MAX) {
			lb = len >= 2 && buf[len - 1] == '\n' && buf[len - 2] == '\n' ? len
											: last_boundary(buf, len);
			if (lb < b)
				b = SIZE_MAX;
		}
	}
	if (b == SIZE_MAX || b >= lb) {
		d->t1.lineno = 0;
		fk_perf_parse_region(&d->t1, buf, len, o, true);
		flush_msgs(d, &d->t1, d->line);
		d->line += d->t1.lineno;
		return d->t1.err;
	}
	if (!d->t1.ev.set)
		prescan_event(&d->t1, buf, b);
	d->t1.want_spath = d->fresh; /* the second half merges along the first (merge_tree) */
	struct job j = { .t = &d->t2, .buf = buf + b, .len = lb - b, .o = o,
			 .init = d->t2_ok ? NULL : d, .ev = d->t1.ev };
	pthread_t th;
	bool spawned = fk_thread_start(&th, job_run, &j) == 0;
	d->t1.lineno = 0;
	fk_perf_parse_region(&d->t1, buf, b, o, true);
	if (spawned)
		pthread_join(th, NULL);
	else
		job_run(&j);
	if (j.rc)
		return j.rc;
	uint64_t l1 = d->t1.lineno;
	flush_msgs(d, &d->t1, d->line);
	d->line += l1;
	flush_msgs(d, &d->t2, d->line);
	d->line += d->t2.lineno;
	if (!d->t1.ev.set && d->t2.ev.set)
		d->t1.ev = d->t2.ev;
	if (d->t1.err || d->t2.err)
		return d->t1.err ? d->t1.err : d->t2.err;
	if (lb < len) {
		d->t1.lineno = 0;
		fk_perf_parse_region(&d->t1, buf + lb, len - lb, o, false);
		flush_msgs(d, &d->t1, d->line);
		d->line += d->t1.lineno;
	}
	return d->t1.err;
}

/* Offset just after the first blank line at or after from (within 64 MiB), or UINT64_MAX. */
static uint64_t file_boundary(int fd, uint64_t from, uint64_t end)
{
	char buf[65536];
	uint64_t off = from ? from - 1 : 0, lim = from + (64ull << 20);
	while (off < end && off < lim) {
		ssize_t k = pread(fd, buf, sizeof(buf), (off_t)off);
		if (k <= 1)
			return UINT64_MAX;
		for (ssize_t i = 1; i < k; i++)
			if (buf[i] == '\n' && buf[i - 1] == '\n')
				return off + (uint64_t)i + 1;
		off += (uint64_t)k - 1; /* keep one byte of overlap */
	}
	return UINT64_MAX;
}

/* Half of what the second thread has yet to read of its region (when that is 2 MiB or more;
 * all: all of it), split at a blank line: its end comes forward to there, and [that, *to) is
 * the caller's.
 * Where it starts, or UINT64_MAX. The halves take unequal times (their samples differ, or
 * the second thread ran late): the first thread, done with its own, shares what is left. */
static uint64_t steal_tail(int fd, fk_span *s, bool all, uint64_t *to)
{
	uint64_t b = UINT64_MAX;
	pthread_mutex_lock(&s->mu);
	uint64_t c = s->claimed, e = s->end;
	if (e > c && (all || e - c >= (2u << 20))) {
		b = file_boundary(fd, all ? c : c + (e - c) / 2, e);
		if (b < e && b > c) {
			s->end = b;
			*to = e;
		} else {
			b = UINT64_MAX;
		}
	}
	pthread_mutex_unlock(&s->mu);
	return b;
}

static int process_file(struct drv *d, int fd, uint64_t start, uint64_t end)
{
	fk_parse_ctx *c = d->c;
	const fk_parse_opts *o = c->o;
	uint64_t b = UINT64_MAX;
	bool big = end - start >= d->split_min;
	/* (a second thread where another program holds the other CPU: 128 MB in 1.2x the time
	 * of one thread; three tasks share two CPUs, and the crowd watch below decides only
	 * after 40 ms) A CPU free for it is looked for between pieces of 512 KB read here
	 * (fk_looks), not waited for: what is left once one is found is split; none at five
	 * looks, one thread reads on. */
	if (d->threads && big) {
		fk_looks lk;
		fk_looks_start(&lk, true);
		int cpu;
		d->t1.lineno = 0;
		while ((cpu = fk_looks_ask(&lk)) < 0 && !d->t1.err && start < end) {
			uint64_t to = file_boundary(fd, start + (512u << 10), end);
			to = to < end ? to : end;
			fk_perf_parse_fd_region(&d->t1, fd, start, to, NULL, o, true);
			start = to;
		}
		flush_msgs(d, &d->t1, d->line);
		d->line += d->t1.lineno;
		if (cpu == 0) {
			d->threads = false;
			fk_profile_one_thread(c->p); /* (another program holds the other CPU) */
		}
	}
	/* the first thread's share a little under half (9/20): it takes a tail of the second's
	 * share when done first (steal_tail), the second none of its; the second starts late by
	 * its waking (0.3-3 ms on an idle VM) and the halves take unequal times, so with halves
	 * the second was done first in about half the runs and the first ran on alone, up to 5
	 * ms of 35 on 64 MB; now each ends within ~1 ms of the other */
	if (d->threads && big && start < end)
		b = file_boundary(fd, start + (end - start) / 20 * 9, end);
	if (b != UINT64_MAX && !d->t1.ev.set) {
		/* The default event is the first one of the input: find it before the second
		 * half starts (give up splitting if the first 4 MiB do not say). */
		size_t lim = b - start < (4u << 20) ? (size_t)(b - start) : (4u << 20);
		/* 64 KiB first (the event is on the first sample's line; a bigger read here
		 * is fresh memory the second thread waits for: 3 ms for 4 MiB) */
		for (size_t n = lim < (64u << 10) ? lim : (64u << 10); !d->t1.ev.set;
		     n = n * 8 < lim ? n * 8 : lim) {
			char *tmp = malloc(n);
			ssize_t k = tmp ? pread(fd, tmp, n, (off_t)start) : -1;
			if (k > 0) {
				const char *nl = memrchr(tmp, '\n', (size_t)k);
				prescan_event(&d->t1, tmp, nl ? (size_t)(nl - tmp) : 0);
			}
			free(tmp);
			if (k <= 0 || n == lim)
				break;
		}
		if (!d->t1.ev.set && b - start > (4u << 20))
			b = UINT64_MAX;
	}
	if (d->t1.offcpu > 0)
		b = UINT64_MAX; /* switch-outs pair with switch-ins anywhere later */
	if (b == UINT64_MAX) {
		d->t1.lineno = 0;
		fk_perf_parse_fd_region(&d->t1, fd, start, end, NULL, o, true);
		flush_msgs(d, &d->t1, d->line);
		d->line += d->t1.lineno;
		return d->t1.err;
	}
	d->t1.want_spath = d->fresh; /* the second half merges along the first (merge_tree) */
	fk_span span;
	fk_span_init(&span, b, end);
	struct job j = { .d = d, .t = &d->t2, .fd = fd, .off = b, .end = end, .span = &span, .o = o,
			 .init = d->t2_ok ? NULL : d, .ev = d->t1.ev };
	pthread_t th;
	bool spawned = fk_thread_start(&th, job_run, &j) == 0;
	d->t1.lineno = 0;
	/* the first half in pieces of a few MB, the CPUs watched between them: when other
	 * tasks keep the threads waiting (another program on one of two CPUs: two threads
	 * were 1.15x slower than one on 64-128 MB), this one takes all the second thread has
	 * not read yet, and what follows the reading runs on one thread */
	fk_crowd w;
	fk_crowd_start(&w, &j.tid);
	bool crowded = false;
	for (uint64_t at = start; at < b && !d->t1.err;) {
		uint64_t to = b - at > (8u << 20) && !crowded ? file_boundary(fd, at + (4u << 20), b) : b;
		if (to > b)
			to = b;
		fk_perf_parse_fd_region(&d->t1, fd, at, to, NULL, o, true);
		at = to;
		if (!crowded && fk_crowd_seen(&w)) {
			crowded = true;
			fk_profile_one_thread(c->p);
		}
	}
	/* the second half's tail, when much of it is left: parsed here after the first half
	 * (its messages said first: their lines come before the second half's) */
	uint64_t tail_end = 0, tail = d->t1.err || d->t1.keep_samples ? UINT64_MAX
								    : steal_tail(fd, &span, crowded, &tail_end);
	pthread_mutex_lock(&span.mu);
	fk_span_go_locked(&span);
	pthread_mutex_unlock(&span.mu);
	if (tail != UINT64_MAX) {
		flush_msgs(d, &d->t1, d->line);
		d->line += d->t1.lineno;
		d->t1.lineno = 0;
		fk_perf_parse_fd_region(&d->t1, fd, tail, tail_end, NULL, o, false);
		fk_perf_end_input(&d->t1);
	}
	/* the first half is complete: its names are all in the profile (the second thread maps
	 * its own to them), then its stacks are sorted (the second plans its merge along
	 * them), then its tree goes in while the second half is parsed; when the profile held
	 * something before, that tree is indexed for the second half's lookups (reserving no
	 * nodes does just that) */
	t1_at(d, T1_NAMES);
	int brc = d->t1.err ? 0 : fk_perf_sort_stacks(&d->t1);
	if (brc)
		fk_perf_set_err(&d->t1, brc);
	t1_at(d, T1_SORTED);
	brc = d->t1.err ? 0 : build_tree(&d->t1, c->p, NULL);
	if (!brc && !d->t1.err && !d->fresh)
		brc = fk_profile_index(c->p);
	if (brc)
		fk_perf_set_err(&d->t1, brc);
	fk_log(FK_LEVEL_DEBUG, "%s: first half read, its tree built", d->c->name);
	if (spawned)
		pthread_join(th, NULL);
	else
		job_run(&j);
	fk_log(FK_LEVEL_DEBUG, "%s: second half read", d->c->name);
	fk_span_destroy(&span);
	if (j.rc)
		return j.rc;
	if (tail == UINT64_MAX) {
		flush_msgs(d, &d->t1, d->line);
		d->line += d->t1.lineno;
	}
	flush_msgs(d, &d->t2, d->line);
	d->line += d->t2.lineno;
	if (tail != UINT64_MAX) {
		flush_msgs(d, &d->t1, d->line);
		d->line += d->t1.lineno;
	}
	d->last = tail != UINT64_MAX ? &d->t1 : &d->t2;
	return d->t1.err ? d->t1.err : d->t2.err;
}

static int perf_parse(fk_parse_ctx *c)
{
	const fk_parse_opts *o = c->o;
	fk_reader *r = c->r;
	const char *simd;
	fk_perf_scan_fn scan = fk_perf_pick_scan(&simd);
	fk_log(FK_LEVEL_DEBUG, "%s: perf script parser, %s line scan", c->name, simd);
	struct drv d = { .c = c, .line = r->lineno, .mu = PTHREAD_MUTEX_INITIALIZER,
			 .cv = PTHREAD_COND_INITIALIZER };
	int rc = fk_perf_pp_init(&d.t1, c->p, o, scan);
	if (rc)
		goto out;
	d.t1.at_start = r->lineno == 0;
	/* --weight without --event-filter weighs the first event seen: the first in the
	 * input, so one thread reads it (a second one would take the first of its half) */
	d.threads = o->threads >= 2 && !(o->weight && !o->event_filter);
	/* a profile with stacks already (a folded input before this one) is no fresh tree */
	size_t nn = 0;
	d.fresh = fk_profile_stack_count(c->p) == 0 && fk_profile_nodes(c->p, &nn) && nn == 1;
	/* Inputs smaller than this are not split (tests lower it to split tiny inputs): the
	 * second half's own tables and their merge cost about what the half saves up to
	 * 48 MB of text (bench/b-threads.sh: 16 MB 0.94x, 32 MB 0.97-1.01x, 48 MB 0.94x,
	 * 64 MB 1.03-1.14x, 128 MB 1.34x the time of one thread). */
	const char *sm = getenv("FLAMEKIT_SPLIT_MIN");
	d.split_min = sm ? strtoull(sm, NULL, 10) : 56u << 20;

	if (r->mem) {
		rc = process_block(&d, r->pos, (size_t)(r->end - r->pos));
		r->pos = r->end;
	} else {
		/* A regular file is read with pread, by two threads on two halves when asked;
		 * a pipe goes through the reader's blocks. */
		struct stat sb;
		off_t cur = lseek(r->fd, 0, SEEK_CUR);
		size_t unread = (size_t)(r->end - r->pos);
		if (cur >= 0 && fstat(r->fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= cur &&
		    (uint64_t)cur >= unread) {
			uint64_t start = (uint64_t)cur - unread;
			rc = process_file(&d, r->fd, start, (uint64_t)sb.st_size);
			r->bytes += (uint64_t)(sb.st_size - cur);
			r->pos = r->end;
			lseek(r->fd, sb.st_size, SEEK_SET);
		} else {
			/* A pipe: blocks are parsed one after another; with samples kept, one thread
			 * so sample order stays the input order. */
			if (d.t1.keep_samples)
				d.threads = false;
			const char *buf;
			size_t len;
			for (;;) {
				r->lineno = d.line;
				int k = fk_reader_block(r, &buf, &len);
				if (k < 0) {
					rc = k;
					break;
				}
				if (k == 0)
					break;
				d.line = r->lineno; /* the reader counts lines it skipped as too long */
				if ((rc = process_block(&d, buf, len)))
					break;
			}
		}
	}
	if (!rc && !d.last) {
		/* a last sample no blank line closes is kept (the second half of a file closed
		 * its own: job_run) */
		fk_perf_end_input(&d.t1);
		c->st->samples += d.t1.samples;
		d.t1.samples = 0;
		rc = d.t1.err;
	}
	if (!rc)
		rc = build_tree(&d.t1, c->p, NULL);
	if (!rc && d.t2_ok) {
		uint32_t *m = NULL;
		if (d.plan) {
			/* the early plan holds if the missing names get the ids it gave them */
			for (size_t k = 0; k < d.npremiss && d.plan; k++) {
				size_t l;
				const char *nm = fk_profile_name(d.t2.p, d.premiss[k], &l);
				int64_t id = fk_profile_intern(c->p, nm, l);
				if (id < 0)
					rc = (int)id;
				if (id != (int64_t)(d.pre_n0 + k)) {
					fk_merge_plan_free(d.plan);
					d.plan = NULL;
				}
			}
			if (d.plan) {
				m = d.premap;
				d.premap = NULL;
			}
		}
		if (!m && !rc)
			m = map_names(c->p, d.t2.p, &rc);
		fk_log(FK_LEVEL_DEBUG, "%s: second half's names mapped (%s)", c->name, d.plan ? "as planned" : "afresh");
		if (m)
			rc = d.fresh && d.t1.built ? merge_tree(&d.t2, c->p, m, &d.t1, &d.plan)
					       : build_tree(&d.t2, c->p, m);
		free(m);
	}
	if (!rc && !c->st->samples && d.other_line)
		fk_note(c, d.other_line, "no sample has the event '%s' (--event-filter); the first other event is '%s'",
			o->event_filter, d.other_ev);
	if (!rc && d.t1.offcpu > 0) {
		fk_offcpu_stats os;
		fk_perf_offcpu_stats(&d.t1, &os);
		strcpy(c->unit, "us");
		c->kind = o->offwake ? FK_KIND_OFFWAKE : FK_KIND_OFFCPU;
		if (o->offwake)
			fk_note(c, 1, "off-wake: %llu wakeups, %llu blocked intervals paired with one, "
				"%llu ended without one (not drawn), %llu wakeups unpaired",
				(unsigned long long)os.wakeups, (unsigned long long)os.woken,
				(unsigned long long)(os.intervals - os.woken),
				(unsigned long long)os.wakeups_unpaired);
		if (os.switches && os.unpaired * 2 > os.switches)
			fk_note(c, 1, "most sched_switch events had no matching switch-in: record "
				"system-wide (perf record -a)");
	} else if (!rc && o->weight && (d.t1.wtp || (d.t2_ok && d.t2.wtp))) {
		char name[sizeof(d.t1.ev.name) + 1];
		memcpy(name, d.t1.ev.name, d.t1.ev.len);
		name[d.t1.ev.len] = 0;
		c->kind = fk_weight_kind(name, o->weight, c->unit, sizeof(c->unit));
		uint64_t neg = d.t1.wneg + (d.t2_ok ? d.t2.wneg : 0);
		if (neg)
			fk_note(c, 1, "--weight %s: %llu samples with a negative %s (error returns): "
				"counted, not summed", o->weight, (unsigned long long)neg, o->weight);
	} else if (!rc) {
		bool w = !o->samples && (d.t1.weighted || (d.t2_ok && d.t2.weighted));
		fk_perf_unit(c->unit, sizeof(c->unit), d.t1.ev.name, d.t1.ev.set ? d.t1.ev.len : 0, w);
	}
	r->lineno = d.line;
	c->st->lines = d.line;
out:
	if (d.t2_ok) {
		fk_profile_free(d.t2.p);
		fk_perf_pp_fini(&d.t2);
	}
	fk_perf_pp_fini(&d.t1);
	fk_merge_plan_free(d.plan);
	free(d.premap);
	free(d.premiss);
	pthread_mutex_destroy(&d.mu);
	pthread_cond_destroy(&d.cv);
	return rc;
}

/* ---- detection */

/* perf script's time field, "12345.678901:" (digits, '.', digits, ':'), as a word of
 * the line: what tells a sample line without callchain from other text. */
static bool has_time(const char *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if ((i && !IS_WS(l[i - 1])) || !IS_D(l[i]))
			continue;
		size_t j = i;
		while (j < n && IS_D(l[j]))
			j++;
		if (j == n || l[j] != '.')
			continue;
		size_t f = ++j;
		while (j < n && IS_D(l[j]))
			j++;
		if (j > f && j < n && l[j] == ':')
			return true;
	}
	return false;
}

/* Scores: 95 a header and an indented frame line; 90 the same after the rest of a sample
 * cut at the input's start (tail -c), or with the frame lines unindented (old perf); 70 a
 * header with an event and a next header; 60 one header alone; 30 samples without
 * callchains. Skipping a cut start, only a header and its frame line count. */
static int perf_probe(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int state = 0; /* 1 = saw a header */
	bool ev = false, timed = false, cut = false;
	for (int lines = 0; p < end && lines < 200; lines++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		if (n && n < 4096 && p[n - 1] == '\r')
			n--;
		struct hdr h;
		struct frm f;
		if (state == 0) {
			size_t e0, e1, d0, d1;
			if (n == 0 || p[0] == '#' || memmem(p, n, ": PERF_RECORD_", 14)) {
				/* skip (--show-task-events, --show-mmap-events, ...) */
			} else if (fk_perf_match_header(p, n, &h)) {
				state = 1;
				ev = fk_perf_match_event(p, n, &e0, &e1, &d0, &d1);
				timed = has_time(p, n);
				if (!ev && fk_perf_match_frame(p, n, &f) && memchr(p, ':', n))
					return cut ? 0 : 30; /* without callchains, as below, comm not aligned */
			} else {
				/* perf script without callchains: "   comm PID TIME: PERIOD EVENT:  ADDR
				 * SYM (DSO)" with the comm right-aligned, each line a sample of one frame.
				 * Claimed weakly (the line is mostly a header). */
				size_t k = 0;
				while (k < n && IS_WS(p[k]))
					k++;
				if (k && fk_perf_match_header(p + k, n - k, &h) && fk_perf_match_frame(p, n, &f) &&
				    has_time(p + k, n - k))
					return 30;
				/* text cut at its start: the rest of a line, then the frame lines of a
				 * sample whose header was cut off; a header may follow */
				if (lines == 0 || (k && fk_perf_match_frame(p, n, &f)))
					cut = true;
				else
					return 0;
			}
		} else {
			if (n && IS_WS(p[0]) && fk_perf_match_frame(p, n, &f))
				return cut ? 90 : 95;
			/* old perf printed frame lines unindented: a frame that is no header, after a
			 * header with perf's time field */
			if (n && timed && !fk_perf_match_header(p, n, &h) && fk_perf_match_frame(p, n, &f))
				return 90;
			if (n == 0 || !IS_WS(p[0]))
				return ev && !cut ? 70 : 0;
			return 0;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return state && ev && !cut ? 60 : 0; /* after a cut, only a frame line tells */
}

const fk_format fk_format_perf = {
	.name = "perf",
	.desc = "perf script text (stackcollapse-perf.pl compatible)",
	.probe = perf_probe,
	.parse = perf_parse,
};

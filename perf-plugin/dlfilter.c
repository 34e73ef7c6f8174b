/* dlfilter.c - flamekit-dlfilter.so, a `perf script --dlfilter` plugin that folds
 * every sample's callchain into a flamekit profile inside perf (no text round
 * trip), feeds sched_switch events to the library's off-CPU pairing, and writes
 * folded stacks, timestamped samples and/or an SVG at the end. Options come from
 * --dlarg. Naming, pairing, combining and presets are the library's rules. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <perf/perf_dlfilter.h>
#include "flamekit.h"
#include "dlfilter.h"

#define EXPORT __attribute__((visibility("default")))
#define PREFIX "flamekit-dlfilter: "
const char *fkd_prog = "flamekit-dlfilter";

/* perf fills this in after dlopen (looked up by name). */
EXPORT struct perf_dlfilter_fns perf_dlfilter_fns;

enum { EV_UNKNOWN = 0, EV_ONCPU, EV_SWITCH, EV_SKIP, EV_WAKEUP, EV_WAKING };
#define MAX_EVENTS 32

struct cache_ent {            /* (pid, comm, lookup address) -> frame id */
	uint64_t addr;
	int32_t pid;
	uint32_t comm;        /* interned comm id: an exec changes the maps */
	uint32_t frame;       /* 0 = empty slot; SKIP_FRAME = tidied away */
	uint32_t multi;       /* the tidied name holds several frames "x;y" */
};
#define SKIP_FRAME UINT32_MAX

struct stk_ent {              /* one distinct raw sample stack of one thread name */
	uint64_t hash;
	size_t off;           /* into stk_words */
	uint32_t len;         /* words */
	uint32_t node;        /* leaf node; FK_NONE = filtered out (kernel/user-only) */
	int32_t pid, tid;
	uint32_t comm;
	uint32_t used;        /* 1 = slot taken; bit 1 = off-CPU profile */
};

struct out_file {
	const char *path;     /* NULL = not requested, "-" = stdout */
	FILE *f;
	fkp_out out;          /* atomic output (prog.h) */
};

struct state {
	fk_profile *on, *off;           /* on-CPU (period or samples), off-CPU (us) */
	struct fkd_opts o;
	struct out_file folded, svgf, samples;
	char *event_owned;
	struct fkd_sched *sched;
	struct { const char *name; int kind; } events[MAX_EVENTS];
	unsigned nevents;
	/* caches */
	struct cache_ent *cache;
	size_t cache_mask, cache_used;
	fk_offcpu *offcpu;              /* sched_switch pairing into st->off */
	uint32_t *frames;
	size_t frames_cap;
	char *namebuf;
	size_t namebuf_cap;
	char *rootbuf;
	size_t rootbuf_cap;
	/* counters */
	uint64_t n_on, n_switch, n_filtered, n_resolves, n_nochain;
	struct stk_ent *stk;            /* raw callchain -> leaf node */
	size_t stk_mask, stk_used;
	uint64_t *stk_words;            /* callchains of stk entries, back to back */
	size_t stk_nwords, stk_words_cap;
	uint64_t n_stack_hits;
	bool on_weighted;               /* an on-CPU period other than 1 was seen */
	bool on_mixed;                  /* on-CPU events of more than one unit */
	char on_unit[64];               /* unit of the on-CPU event (fk_perf_unit) */
	fk_profile *wk, *ow;            /* off-wake: wakers' stacks (no counts), the graph */
	fk_tp_format *wake_tp[2];       /* sched_wakeup's and sched_waking's formats */
	int wake_pid[2];
	uint64_t n_wakeup;
	fk_tp_format *wtp;              /* weight=FIELD: the event's format */
	int wfield;
	int wkind;
	char wunit[64];
	uint64_t n_negative, n_zero;    /* weight values below zero (errors), zero */
	bool failed;
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs(PREFIX, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void lib_print(enum fk_level level, const char *msg, void *ctx)
{
	struct state *st = ctx;
	if (level == FK_LEVEL_WARN || (st && st->o.verbose))
		say("%s", msg);
}

/* ------------------------------------------------------------ output files */

static int out_open(struct out_file *o)
{
	if (!o->path || fkp_out_open(&o->out, o->path))
		return o->path ? -1 : 0;
	o->f = o->out.f;
	return 0;
}

/* ok: flush, check and rename into place; !ok: drop the temp file. */
static int out_close(struct out_file *o, bool ok)
{
	if (!o->f)
		return 0;
	o->f = NULL;
	return fkp_out_close(&o->out, ok);
}

/* ------------------------------------------------------------ start */

static void state_free(struct state *st)
{
	if (!st)
		return;
	fk_profile_free(st->on);
	fk_profile_free(st->off);
	fkd_sched_free(st->sched);
	fk_offcpu_free(st->offcpu);
	free(st->cache);
	free(st->frames);
	free(st->namebuf);
	free(st->rootbuf);
	free(st->stk);
	free(st->stk_words);
	free(st->event_owned);
	fk_tp_format_free(st->wtp);
	fk_tp_format_free(st->wake_tp[0]);
	fk_tp_format_free(st->wake_tp[1]);
	fk_profile_free(st->wk);
	fk_profile_free(st->ow);
	free(st);
}

static int interval_done(const fk_offcpu_interval *iv, void *ctx);

EXPORT int start(void **data, void *ctx)
{
	struct state *st = calloc(1, sizeof(*st));
	*data = NULL;
	if (!st) {
		say("out of memory");
		return -ENOMEM;
	}
	fkp_prog = fkd_prog;
	fkd_opts_init(&st->o);
	int argc = 0;
	char **argv = perf_dlfilter_fns.args ? perf_dlfilter_fns.args(ctx, &argc) : NULL;
	for (int i = 0; i < argc; i++) {
		if (fkd_parse_arg(&st->o, argv[i]) != 0) {
			state_free(st);
			return -EINVAL;
		}
	}
	if (fkd_opts_check(&st->o)) {
		state_free(st);
		return -EINVAL;
	}
	st->folded.path = st->o.folded;
	st->svgf.path = st->o.svg_path;
	st->samples.path = st->o.samples;
	if (!st->folded.path && !st->svgf.path && !st->samples.path)
		st->folded.path = "-";
	unsigned flags = fkd_needs_samples(&st->o) ? FK_PROFILE_SAMPLES : 0;
	fk_set_print(lib_print, st);
	st->on = fk_profile_new(flags);
	st->off = fk_profile_new(flags);
	st->wk = fk_profile_new(0);
	st->ow = fk_profile_new(flags);
	st->cache_mask = 4095;
	st->cache = calloc(st->cache_mask + 1, sizeof(*st->cache));
	st->stk_mask = 4095;
	st->stk = calloc(st->stk_mask + 1, sizeof(*st->stk));
	st->offcpu = fk_offcpu_new(st->o.offcpu_min_ns, st->o.blocked_only, interval_done, st);
	if (!st->on || !st->off || !st->wk || !st->ow || !st->cache || !st->offcpu || !st->stk) {
		say("out of memory");
		fk_set_print(NULL, NULL);
		state_free(st);
		return -ENOMEM;
	}
	/* Open outputs now so a bad path fails before perf reads the whole file. */
	if (out_open(&st->folded) || out_open(&st->svgf) || out_open(&st->samples)) {
		out_close(&st->folded, false);
		out_close(&st->svgf, false);
		out_close(&st->samples, false);
		fk_set_print(NULL, NULL);
		state_free(st);
		return -EINVAL;
	}
	*data = st;
	return 0;
}

/* ------------------------------------------------------------ per sample */

static int fail(struct state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct state *st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs(PREFIX, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	st->failed = true;
	return -1;
}

static int classify(struct state *st, const struct perf_dlfilter_sample *s, void *ctx)
{
	const char *name = s->event ? s->event : "";
	for (unsigned i = 0; i < st->nevents; i++)
		if (st->events[i].name == name || strcmp(st->events[i].name, name) == 0)
			return st->events[i].kind;
	int kind;
	struct perf_event_attr *attr = perf_dlfilter_fns.attr ? perf_dlfilter_fns.attr(ctx) : NULL;
	if (attr && (attr->sample_type & PERF_SAMPLE_STACK_USER) && !st->o.dwarf_partial) {
		fail(st, "event %s was recorded with --call-graph dwarf: perf unwinds its user "
		     "stacks only when printing, so a dlfilter sees just the kernel frames and "
		     "the sampled ip. Use `perf flame report` (it falls back to perf script text "
		     "for such files) or --dlarg dwarf=partial", name);
		return -1;
	}
	bool sw = strcmp(name, "sched:sched_switch") == 0;
	int wk = !strcmp(name, "sched:sched_waking") ? 1 : !strcmp(name, "sched:sched_wakeup") ? 0 : -1;
	if (wk >= 0 && (st->o.mode == MODE_AUTO || st->o.mode == MODE_OFFWAKE)) {
		kind = wk ? EV_WAKING : EV_WAKEUP;
		if (!st->wake_tp[wk]) {
			char err[512];
			st->wake_tp[wk] = fk_tp_format_load(name, NULL, err, sizeof(err));
			if (!st->wake_tp[wk] || (st->wake_pid[wk] = fk_tp_format_field(st->wake_tp[wk], "pid")) < 0) {
				if (st->wake_tp[wk])
					snprintf(err, sizeof(err), "%s format without a pid field", name);
				fail(st, "%s", err);
				return -1;
			}
		}
	} else if (sw && st->o.mode != MODE_CPU) {
		kind = EV_SWITCH;
		if (!st->sched) {
			char err[512];
			st->sched = fkd_sched_new(st->o.sched_format, err, sizeof(err));
			if (!st->sched) {
				fail(st, "%s", err);
				return -1;
			}
		}
	} else if (st->o.mode == MODE_OFFCPU || st->o.mode == MODE_OFFWAKE) {
		kind = EV_SKIP;
	} else if (!st->o.event) {
		/* Like stackcollapse-perf: the first on-CPU event seen is the one folded. */
		st->event_owned = strdup(name);
		if (!st->event_owned) {
			fail(st, "out of memory");
			return -1;
		}
		st->o.event = st->event_owned;
		kind = EV_ONCPU;
	} else {
		kind = strcmp(st->o.event, name) == 0 ? EV_ONCPU : EV_SKIP;
	}
	if (attr && !(attr->sample_type & PERF_SAMPLE_CALLCHAIN) && kind != EV_SKIP)
		say("event %s was recorded without callchains (perf record -g): each sample "
		    "is one frame, its ip", name);
	if (kind == EV_ONCPU && st->o.weight && !st->wtp) {
		char err[512];
		st->wtp = fk_tp_format_load(name, st->o.weight_format, err, sizeof(err));
		if (!st->wtp) {
			fail(st, "weight=%s: %s", st->o.weight, err);
			return -1;
		}
		st->wfield = fk_tp_format_field(st->wtp, st->o.weight);
		if (st->wfield < 0) {
			char fields[1024];
			fk_tp_format_fields(st->wtp, fields, sizeof(fields));
			fail(st, "weight=%s: event %s has no numeric field %s; its fields: %s",
			     st->o.weight, name, st->o.weight, fields);
			return -1;
		}
		st->wkind = fk_weight_kind(name, st->o.weight, st->wunit, sizeof(st->wunit));
	}
	if (kind == EV_ONCPU) {
		char u[64];
		fk_perf_unit(u, sizeof(u), name, strlen(name), true);
		if (!st->on_unit[0])
			memcpy(st->on_unit, u, sizeof(u));
		else if (strcmp(st->on_unit, u))
			st->on_mixed = true;
	}
	if (st->nevents < MAX_EVENTS) {
		st->events[st->nevents].name = name;
		st->events[st->nevents].kind = kind;
		st->nevents++;
	}
	return kind;
}

static int cache_grow(struct state *st)
{
	size_t nsize = (st->cache_mask + 1) * 2;
	struct cache_ent *nt = calloc(nsize, sizeof(*nt));
	if (!nt)
		return -1;
	for (size_t i = 0; i <= st->cache_mask; i++) {
		struct cache_ent *e = &st->cache[i];
		if (!e->frame)
			continue;
		size_t j = fkp_mix64(e->addr ^ ((uint64_t)(uint32_t)e->pid << 32) ^ e->comm) & (nsize - 1);
		while (nt[j].frame)
			j = (j + 1) & (nsize - 1);
		nt[j] = *e;
	}
	free(st->cache);
	st->cache = nt;
	st->cache_mask = nsize - 1;
	return 0;
}

/* Append to st->frames[*n] (leaf-first order) the frame(s) of the symbol at
 * addr, resolved through perf once per (pid, comm, addr) and cached. Kernel
 * addresses map the same in every process: one entry for all. */
static int push_frame(struct state *st, fk_profile *p, void *ctx, int32_t pid, uint32_t comm,
		      uint64_t addr, bool kernel, size_t *n)
{
	if (kernel) {
		pid = -1;
		comm = 0;
	}
	struct cache_ent *e = NULL;
	size_t i = fkp_mix64(addr ^ ((uint64_t)(uint32_t)pid << 32) ^ comm) & st->cache_mask;
	for (;; i = (i + 1) & st->cache_mask) {
		e = &st->cache[i];
		if (!e->frame || (e->addr == addr && e->pid == pid && e->comm == comm))
			break;
	}
	if (!e->frame) {
		struct perf_dlfilter_al al;
		memset(&al, 0, sizeof(al));
		al.size = sizeof(al);
		const char *sym = NULL, *dso = NULL;
		st->n_resolves++;
		if (perf_dlfilter_fns.resolve_address(ctx, addr, &al) == 0) {
			sym = al.sym;
			dso = al.dso;
		}
		/* perf script prints "[unknown]" for both; the tidying sees the same. */
		if (!sym)
			sym = "[unknown]";
		if (!dso)
			dso = "[unknown]";
		size_t sl = strlen(sym), dl = strlen(dso);
		if (fkp_grow((void **)&st->namebuf, &st->namebuf_cap,
			     fk_perf_tidy_room(sl, dl, &st->o.popts), 1))
			return -FK_E_NOMEM;
		size_t len = fk_perf_tidy_name(st->namebuf, sym, sl, dso, dl, &st->o.popts);
		uint32_t frame = SKIP_FRAME;
		if (len) {
			/* names live in the on-CPU profile; the off-CPU one re-interns */
			int64_t id = fk_profile_intern(st->on, st->namebuf, len);
			if (id < 0)
				return (int)id;
			frame = (uint32_t)id;
		}
		if ((st->cache_used + 1) * 2 > st->cache_mask + 1) {
			if (cache_grow(st))
				return -FK_E_NOMEM;
			i = fkp_mix64(addr ^ ((uint64_t)(uint32_t)pid << 32) ^ comm) & st->cache_mask;
			while (st->cache[i].frame)
				i = (i + 1) & st->cache_mask;
		}
		e = &st->cache[i];
		*e = (struct cache_ent){ addr, pid, comm, frame, len && memchr(st->namebuf, ';', len) };
		st->cache_used++;
	}
	if (e->frame == SKIP_FRAME)
		return 0;
	if (!e->multi && p == st->on) {
		st->frames[(*n)++] = e->frame;
		return 0;
	}
	size_t len;
	const char *nm = fk_profile_name(st->on, e->frame, &len);
	if (!e->multi) {
		int64_t id = fk_profile_intern(p, nm, len);
		if (id < 0)
			return (int)id;
		st->frames[(*n)++] = (uint32_t)id;
		return 0;
	}
	/* "a;b" from a name with "->" pieces: several frames, root-most first,
	 * so push them in reverse (the array is leaf-first). Copy the name out
	 * first: interning into the same profile may move it. */
	if (fkp_grow((void **)&st->namebuf, &st->namebuf_cap, len + 1, 1))
		return -FK_E_NOMEM;
	memcpy(st->namebuf, nm, len);
	nm = st->namebuf;
	size_t end = len;
	for (;;) {
		size_t start = end;
		while (start > 0 && nm[start - 1] != ';')
			start--;
		if (fkp_grow((void **)&st->frames, &st->frames_cap, *n + 2, sizeof(uint32_t)))
			return -FK_E_NOMEM;
		int64_t id = fk_profile_intern(p, nm + start, end - start);
		if (id < 0)
			return (int)id;
		st->frames[(*n)++] = (uint32_t)id;
		if (start == 0)
			break;
		end = start - 1;
	}
	return 0;
}

/* Root frame(s), appended leaf-first to st->frames[*n]: the library's root name,
 * split at ';' as the text path splits it (the last piece is nearest the leaf). */
static int push_root(struct state *st, fk_profile *p, const char *comm, int32_t pid, int32_t tid,
		     size_t *n)
{
	size_t cl = strlen(comm);
	if (fkp_grow((void **)&st->rootbuf, &st->rootbuf_cap, cl + 32, 1))
		return -FK_E_NOMEM;
	fk_parse_opts ro = st->o.popts;
	ro.pid = st->o.pid;
	ro.tid = st->o.tid;
	size_t len = fk_perf_root_name(st->rootbuf, comm, cl, pid, tid, &ro);
	const char *b = st->rootbuf;
	size_t end = len;
	for (;;) {
		size_t start = end;
		while (start > 0 && b[start - 1] != ';')
			start--;
		if (fkp_grow((void **)&st->frames, &st->frames_cap, *n + 1, sizeof(uint32_t)))
			return -FK_E_NOMEM;
		int64_t id = fk_profile_intern(p, b + start, end - start);
		if (id < 0)
			return (int)id;
		st->frames[(*n)++] = (uint32_t)id;
		if (start == 0)
			return 0;
		end = start - 1;
	}
}

/* Build root-first frame ids of the sample into st->frames; returns the count,
 * 0 if the kernel/user filter leaves nothing, or a negative error. */
static int64_t build_stack(struct state *st, fk_profile *p, const struct perf_dlfilter_sample *s,
			   void *ctx, const char *comm, uint32_t comm_id)
{
	size_t nchain = s->raw_callchain_nr;
	if (fkp_grow((void **)&st->frames, &st->frames_cap, nchain + 2, sizeof(uint32_t)))
		return -FK_E_NOMEM;
	/* Fill leaf-first, root last, then reverse. */
	uint32_t *fr = st->frames;
	size_t n = 0;
	if (nchain == 0) {
		st->n_nochain++;
		bool kernel = s->cpumode == PERF_RECORD_MISC_KERNEL ||
			      s->cpumode == PERF_RECORD_MISC_GUEST_KERNEL;
		if (s->ip && !(kernel ? st->o.user_only : st->o.kernel_only)) {
			int rc = push_frame(st, p, ctx, s->pid, comm_id, s->ip, kernel, &n);
			if (rc < 0)
				return rc;
		}
	} else {
		bool kernel = false, first = true;
		unsigned depth = 0;
		for (size_t i = 0; i < nchain; i++) {
			uint64_t ip = s->raw_callchain[i];
			if (ip >= PERF_CONTEXT_MAX) {
				kernel = ip == PERF_CONTEXT_KERNEL || ip == PERF_CONTEXT_GUEST_KERNEL ||
					 ip == PERF_CONTEXT_HV;
				first = true;
				continue;
			}
			if (depth++ >= st->o.max_stack)
				break;
			/* The first ip of a context is where it was interrupted; the
			 * others are return addresses, which point after the call and
			 * may already be in the next function. */
			uint64_t look = (first || st->o.exact_ret || ip == 0) ? ip : ip - 1;
			first = false;
			if (kernel ? st->o.user_only : st->o.kernel_only)
				continue;
			int rc = push_frame(st, p, ctx, s->pid, comm_id, look, kernel, &n);
			if (rc < 0)
				return rc;
			fr = st->frames;
		}
	}
	if (n == 0 && (st->o.kernel_only || st->o.user_only))
		return 0;
	int rc = push_root(st, p, comm, s->pid, s->tid, &n);
	if (rc < 0)
		return rc;
	fr = st->frames;   /* push_frame and push_root may have grown it */
	for (size_t a = 0, b = n - 1; a < b; a++, b--) {
		uint32_t t = fr[a];
		fr[a] = fr[b];
		fr[b] = t;
	}
	return (int64_t)n;
}

/* Leaf node of the sample's stack in p. Most samples repeat a stack already
 * seen: the raw callchain (with pid, tid and comm, which make the root frame)
 * is looked up first, so only new stacks are walked and resolved. Returns 1
 * with *node, 0 when kernel-only/user-only left no frames, or negative. */
static int stack_node(struct state *st, fk_profile *p, const struct perf_dlfilter_sample *s,
		      void *ctx, const char *comm, uint32_t cid, uint32_t *node)
{
	uint32_t kind = p == st->off ? 3 : p == st->wk ? 5 : 1;
	size_t nw = s->raw_callchain_nr ? s->raw_callchain_nr : 2;
	uint64_t ipw[2] = { s->ip, s->cpumode };
	const uint64_t *w = s->raw_callchain_nr ? (const uint64_t *)s->raw_callchain : ipw;
	/* user addresses mean different symbols in different processes; the tid
	 * matters only when the root frame shows it */
	int32_t pid = s->pid, tid = st->o.tid ? s->tid : 0;
	uint64_t h = fkp_mix64(((uint64_t)(uint32_t)pid << 32 | (uint32_t)tid) ^ ((uint64_t)cid << 8 | kind));
	for (size_t i = 0; i < nw; i++)
		h = fkp_mix64(h ^ w[i]) + i;
	size_t i = h & st->stk_mask;
	for (; st->stk[i].used; i = (i + 1) & st->stk_mask) {
		struct stk_ent *e = &st->stk[i];
		if (e->hash == h && e->used == kind && e->len == nw && e->pid == pid && e->tid == tid &&
		    e->comm == cid && memcmp(st->stk_words + e->off, w, nw * sizeof(*w)) == 0) {
			st->n_stack_hits++;
			if (e->node == FK_NONE)
				return 0;
			*node = e->node;
			return 1;
		}
	}
	int64_t n = build_stack(st, p, s, ctx, comm, cid);
	if (n < 0)
		return (int)n;
	uint32_t leaf = FK_NONE;
	if (n > 0) {
		int64_t nd = fk_profile_add_stack(p, st->frames, (size_t)n, 0, 0.0);
		if (nd < 0)
			return (int)nd;
		leaf = (uint32_t)nd;
	}
	/* remember it (on failure to grow, just do not cache) */
	if ((st->stk_used + 1) * 2 > st->stk_mask + 1) {
		size_t nsize = (st->stk_mask + 1) * 2;
		struct stk_ent *nt = calloc(nsize, sizeof(*nt));
		if (!nt)
			goto out;
		for (size_t k = 0; k <= st->stk_mask; k++) {
			if (!st->stk[k].used)
				continue;
			size_t j = st->stk[k].hash & (nsize - 1);
			while (nt[j].used)
				j = (j + 1) & (nsize - 1);
			nt[j] = st->stk[k];
		}
		free(st->stk);
		st->stk = nt;
		st->stk_mask = nsize - 1;
		for (i = h & st->stk_mask; st->stk[i].used; i = (i + 1) & st->stk_mask)
			;
	}
	if (fkp_grow((void **)&st->stk_words, &st->stk_words_cap, st->stk_nwords + nw, sizeof(uint64_t)))
		goto out;
	memcpy(st->stk_words + st->stk_nwords, w, nw * sizeof(*w));
	st->stk[i] = (struct stk_ent){ h, st->stk_nwords, (uint32_t)nw, leaf, pid, tid, cid, kind };
	st->stk_nwords += nw;
	st->stk_used++;
out:
	if (leaf == FK_NONE)
		return 0;
	*node = leaf;
	return 1;
}

/* An off-CPU interval ended (fk_offcpu): its time goes to the switch-out stack. The
 * handle is that stack's leaf node in st->off and the comm id. */
static int interval_done(const fk_offcpu_interval *iv, void *ctx)
{
	struct state *st = ctx;
	uint32_t node = (uint32_t)iv->handle, comm = (uint32_t)(iv->handle >> 32);
	fk_sample_info info = { .time = (double)iv->t_out / 1e9, .pid = iv->pid, .tid = iv->tid,
				.cpu = iv->cpu };
	size_t cl = 0;
	info.comm = fk_profile_name(st->off, comm, &cl);
	info.comm_len = cl;
	if (iv->woken && st->n_wakeup) {
		int rc = fk_offwake_add(st->ow, st->off, node, st->wk, (uint32_t)iv->waker, iv->us,
					&info);
		if (rc < 0)
			return rc;
	}
	return fk_profile_add_to_node(st->off, node, 0, iv->us, &info);
}

/* sched_waking, in the waker's context: its callchain is the waker's stack (so is
 * sched_wakeup's, unless the wakeup completed in the wakee CPU's interrupt). */
static int do_wakeup(struct state *st, const struct perf_dlfilter_sample *s, void *ctx, bool waking)
{
	int64_t wakee;
	if (!s->raw_data || fk_tp_format_raw(st->wake_tp[waking], st->wake_pid[waking], s->raw_data,
					     s->raw_size, &wakee))
		return fail(st, "%s sample without its pid field (record with -R?)",
			    waking ? "sched_waking" : "sched_wakeup");
	st->n_wakeup++;
	/* perf lost the waking task (perf script prints ":-1 -1"): no waker to draw,
	 * as the text path cannot name one either */
	if (s->tid < 0 || s->pid < 0)
		return 1;
	const struct perf_dlfilter_al *ip_al = perf_dlfilter_fns.resolve_ip(ctx);
	const char *comm = ip_al && ip_al->comm ? ip_al->comm : ":-1";
	int64_t cid = fk_profile_intern(st->wk, comm, strlen(comm));
	if (cid < 0)
		return fail(st, "%s", fk_strerror((int)cid));
	uint32_t node;
	int r = stack_node(st, st->wk, s, ctx, comm, (uint32_t)cid, &node);
	if (r < 0)
		return fail(st, "%s", fk_strerror(r));
	if (r == 0)
		return 1;
	r = fk_offcpu_wakeup(st->offcpu, (int32_t)wakee, node, waking);
	return r < 0 ? fail(st, "%s", fk_strerror(r)) : 1;
}

static int do_switch(struct state *st, const struct perf_dlfilter_sample *s, void *ctx)
{
	struct fkd_switch sw;
	char err[512];
	if (!s->raw_data || fkd_sched_decode(st->sched, s->raw_data, s->raw_size, &sw, err,
					     sizeof(err)) != 0)
		return fail(st, "sample at %llu.%09llu: %s", (unsigned long long)(s->time / 1000000000),
			    (unsigned long long)(s->time % 1000000000),
			    s->raw_data ? err : "sched_switch sample without raw data (record with -R?)");
	st->n_switch++;
	int track = fk_offcpu_switch(st->offcpu, s->time, s->cpu, sw.prev_pid, sw.prev_state == 0,
				     sw.next_pid);
	if (track < 0)
		return fail(st, "%s", fk_strerror(track));
	if (!track)
		return 1;
	/* Switch-out: the callchain is the stack the thread blocks in. */
	const struct perf_dlfilter_al *ip_al = perf_dlfilter_fns.resolve_ip(ctx);
	const char *comm = ip_al && ip_al->comm ? ip_al->comm : sw.prev_comm;
	int64_t cid = fk_profile_intern(st->off, comm, strlen(comm));
	if (cid < 0)
		return fail(st, "%s", fk_strerror((int)cid));
	/* Zero-count path now; the time is added when the interval ends. */
	uint32_t node;
	int r = stack_node(st, st->off, s, ctx, comm, (uint32_t)cid, &node);
	if (r < 0)
		return fail(st, "%s", fk_strerror(r));
	if (r == 0) {
		st->n_filtered++;
		return 1;
	}
	r = fk_offcpu_block(st->offcpu, s->pid, sw.prev_pid, (uint64_t)cid << 32 | node, s->time, s->cpu);
	if (r < 0)
		return fail(st, "%s", fk_strerror(r));
	return 1;
}

EXPORT int filter_event(void *data, const struct perf_dlfilter_sample *s, void *ctx)
{
	struct state *st = data;
	if (!st || st->failed)
		return -1;
	int kind = classify(st, s, ctx);
	if (kind < 0)
		return -1;
	if (kind == EV_SKIP) {
		st->n_filtered++;
		return 1;
	}
	if (kind == EV_SWITCH)
		return do_switch(st, s, ctx);
	if (kind == EV_WAKEUP || kind == EV_WAKING)
		return do_wakeup(st, s, ctx, kind == EV_WAKING);
	int rc;
	rc = fk_offcpu_running(st->offcpu, s->tid, s->cpu);
	if (rc < 0)
		return fail(st, "%s", fk_strerror(rc));
	double w;
	if (st->wtp) {
		int64_t v;
		if (!s->raw_data || fk_tp_format_raw(st->wtp, st->wfield, s->raw_data, s->raw_size, &v))
			return fail(st, "sample at %llu.%09llu: %s record without field %s (record "
				    "with -R? another kernel's format?)",
				    (unsigned long long)(s->time / 1000000000),
				    (unsigned long long)(s->time % 1000000000), s->event, st->o.weight);
		/* error returns (-EAGAIN...) are not bytes */
		if (v < 0) {
			st->n_negative++;
			return 1;
		}
		if (v == 0) {
			st->n_zero++;
			return 1;
		}
		w = (double)v;
	} else {
		w = st->o.count_samples ? 1.0 : (double)(s->period ? s->period : 1);
	}

	const struct perf_dlfilter_al *ip_al = perf_dlfilter_fns.resolve_ip(ctx);
	const char *comm = ip_al && ip_al->comm ? ip_al->comm : ":-1";
	int64_t cid = fk_profile_intern(st->on, comm, strlen(comm));
	if (cid < 0)
		return fail(st, "%s", fk_strerror((int)cid));
	uint32_t node;
	rc = stack_node(st, st->on, s, ctx, comm, (uint32_t)cid, &node);
	if (rc < 0)
		return fail(st, "%s", fk_strerror(rc));
	if (rc == 0) {
		st->n_filtered++;
		return 1;
	}
	if (w != 1.0)
		st->on_weighted = true;
	if (fk_profile_flags(st->on) & FK_PROFILE_SAMPLES) {
		fk_sample_info info = { .time = (double)s->time / 1e9, .pid = s->pid, .tid = s->tid,
					.cpu = s->cpu, .comm = comm, .comm_len = strlen(comm) };
		rc = fk_profile_add_to_node(st->on, node, 0, w, &info);
	} else {
		rc = fk_profile_add_to_node(st->on, node, 0, w, NULL);
	}
	if (rc < 0)
		return fail(st, "%s", fk_strerror((int)rc));
	st->n_on++;
	return 1;   /* perf prints nothing */
}

/* ------------------------------------------------------------ stop */

static int write_outputs(struct state *st, const fk_profile *p)
{
	int rc = 0;
	if (st->folded.f && (rc = fk_profile_write_folded(p, st->folded.f)) < 0) {
		say("writing folded stacks to %s: %s", st->folded.path, fk_strerror(rc));
		return -1;
	}
	if (st->samples.f && (rc = fk_profile_write_samples(p, st->samples.f)) < 0) {
		say("writing samples to %s: %s", st->samples.path, fk_strerror(rc));
		return -1;
	}
	if (st->svgf.f && (rc = fk_render_for_path(p, &st->o.svg, st->svgf.path, st->svgf.f)) < 0) {
		say("rendering %s: %s", st->svgf.path, fk_strerror(rc));
		return -1;
	}
	return 0;
}

EXPORT int stop(void *data, void *ctx)
{
	struct state *st = data;
	if (!st)
		return 0;   /* start failed: perf still calls stop */
	bool ok = !st->failed;
	fk_profile *combined = NULL;
	const fk_profile *p = st->on;
	bool have_on = fk_profile_total(st->on, 0) > 0, have_off = st->n_switch > 0;
	/* what the counts are: the library's presets name and colour the graph by them */
	const char *unit = st->wtp ? st->wunit : st->o.count_samples || !st->on_weighted ? "samples"
			   : st->on_mixed ? "events" : st->on_unit;
	if (st->wtp && st->wkind)
		fk_profile_set_kind(st->on, st->wkind);
	if (st->wtp && (st->n_negative || st->o.verbose))
		say("weight=%s: %llu samples weighed, %llu with a negative %s (error returns: "
		    "counted, not summed), %llu with 0", st->o.weight, (unsigned long long)st->n_on,
		    (unsigned long long)st->n_negative, st->o.weight, (unsigned long long)st->n_zero);
	int urc = fk_profile_set_unit(st->on, unit);
	if (urc == 0)
		urc = fk_profile_set_unit(st->off, "us");
	fk_profile_set_kind(st->off, FK_KIND_OFFCPU);
	if (urc < 0) {
		say("%s", fk_strerror(urc));
		ok = false;
	}
	if (st->n_wakeup && (st->o.mode == MODE_OFFWAKE || st->o.mode == MODE_AUTO)) {
		/* off-wake: blocked stacks with their wakers' */
		if (fk_profile_set_unit(st->ow, "us") < 0)
			ok = false;
		fk_profile_set_kind(st->ow, FK_KIND_OFFWAKE);
		p = st->ow;
		fk_offcpu_stats ws;
		fk_offcpu_get_stats(st->offcpu, &ws);
		say("off-wake: %llu wakeups, %llu blocked intervals paired with one, %llu ended "
		    "without one (not drawn), %llu wakeups unpaired",
		    (unsigned long long)ws.wakeups, (unsigned long long)ws.woken,
		    (unsigned long long)(ws.intervals - ws.woken),
		    (unsigned long long)ws.wakeups_unpaired);
	} else 	if (ok && have_off && have_on) {
		/* On- and off-CPU time in one graph: both in microseconds. */
		if (strcmp(fk_profile_unit(st->on), "ns")) {
			say("a combined on/off-CPU graph needs a cpu-clock or task-clock on-CPU "
			    "event weighted by period (got %s%s); use --dlarg mode=cpu or mode=offcpu",
			    st->o.event ? st->o.event : "?", st->o.count_samples ? " with count=samples" : "");
			ok = false;
		} else {
			combined = fk_profile_new(fk_profile_flags(st->on));
			int rc = combined ? fk_profile_merge_scaled(combined, st->on, 1e-3, NULL) : -FK_E_NOMEM;
			if (rc == 0)
				rc = fk_profile_merge_scaled(combined, st->off, 1.0, FK_OFFCPU_MARK);
			if (rc == 0)
				rc = fk_profile_set_unit(combined, "us");
			if (rc < 0) {
				say("combining on/off-CPU stacks: %s", fk_strerror(rc));
				ok = false;
			} else {
				fk_profile_set_kind(combined, FK_KIND_ONOFFCPU);
			}
			p = combined;
		}
	} else if (have_off) {
		p = st->off;
	}
	/* nothing to draw is an error for every output alike: an empty folded
	 * file would look like a complete result */
	if (ok && fk_profile_total(p, 0) <= 0) {
		say("no samples were folded%s: nothing written",
		    st->n_filtered ? " (all were filtered out)" : "");
		ok = false;
		st->failed = true;
	}
	if (ok && write_outputs(st, p) != 0)
		ok = false;
	int rc = 0;
	rc |= out_close(&st->folded, ok);
	rc |= out_close(&st->svgf, ok);
	rc |= out_close(&st->samples, ok);
	if (st->o.verbose || st->n_filtered)
		say("%llu on-CPU samples, %llu sched_switch events, %llu filtered out, %llu "
		    "addresses resolved, %llu stacks from the cache, %zu unique stacks",
		    (unsigned long long)st->n_on, (unsigned long long)st->n_switch,
		    (unsigned long long)st->n_filtered, (unsigned long long)st->n_resolves,
		    (unsigned long long)st->n_stack_hits, fk_profile_stack_count(p));
	fk_offcpu_stats os;
	fk_offcpu_get_stats(st->offcpu, &os);
	if (st->n_switch && os.unpaired * 2 > st->n_switch)
		say("warning: most sched_switch events had no matching switch-in: record "
		    "system-wide (-a), as `perf flame record --off-cpu` does");
	if (st->o.verbose && (os.unpaired || os.estimated))
		say("%llu switch-ins were not recorded: %llu intervals ended at the CPU's previous "
		    "switch, %llu dropped", (unsigned long long)(os.unpaired + os.estimated),
		    (unsigned long long)os.estimated, (unsigned long long)os.unpaired);
	fk_profile_free(combined);
	bool failed_before = st->failed;
	fk_set_print(NULL, NULL);
	state_free(st);
	if (!ok || rc) {
		/* perf ignores stop()'s return value: end perf with a failing status
		 * so a caller never mistakes missing output for success. */
		if (!failed_before)
			say("no output written");
		fflush(stdout);
		exit(1);
	}
	return 0;
}

EXPORT const char *filter_description(const char **long_description)
{
	if (long_description)
		*long_description = fkd_usage_text();
	return "flamekit: fold callchains into flame graph stacks (folded/SVG), on- and off-CPU";
}

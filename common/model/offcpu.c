/* offcpu.c - off-CPU time: pairs sched_switch events into blocked intervals (a thread
 * is off-CPU from its switch-out to its next switch-in), for the perf dlfilter and the
 * perf script text parser alike. Callers own the stacks; this file owns the rules. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

struct pend {                 /* a thread switched out, waiting for its switch-in */
	int32_t tid;          /* 0 = empty slot (the idle task is never tracked) */
	int32_t pid, cpu;
	uint64_t handle, t_out;
	uint64_t waker;       /* fk_offcpu_wakeup's handle, when woken */
	bool open, woken;     /* an interval is open; a wakeup was seen for it */
};

struct fk_offcpu {
	int64_t min_ns;
	bool blocked_only;
	fk_offcpu_fn fn;
	void *ctx;
	struct pend *pend;    /* open addressing by tid */
	size_t mask, used;
	uint64_t *cpu_last;   /* per CPU: time of the last switch seen there (0 = none) */
	size_t ncpu, cpu_cap;
	int32_t tracked;      /* prev_tid that fk_offcpu_block may take (0 = none) */
	bool waking_seen;     /* a sched_waking came: sched_wakeups are ignored */
	fk_offcpu_stats st;
};

fk_offcpu *fk_offcpu_new(int64_t min_ns, bool blocked_only, fk_offcpu_fn fn, void *ctx)
{
	fk_offcpu *oc = calloc(1, sizeof(*oc));
	if (!oc || !(oc->pend = calloc(256, sizeof(*oc->pend)))) {
		free(oc);
		errno = ENOMEM;
		return NULL;
	}
	oc->mask = 255;
	oc->min_ns = min_ns;
	oc->blocked_only = blocked_only;
	oc->fn = fn;
	oc->ctx = ctx;
	return oc;
}

void fk_offcpu_free(fk_offcpu *oc)
{
	if (!oc)
		return;
	free(oc->pend);
	free(oc->cpu_last);
	free(oc);
}

static struct pend *slot(fk_offcpu *oc, int32_t tid)
{
	size_t i = fk_mix64((uint32_t)tid) & oc->mask;
	while (oc->pend[i].tid && oc->pend[i].tid != tid)
		i = (i + 1) & oc->mask;
	return &oc->pend[i];
}

static int grow_table(fk_offcpu *oc)
{
	size_t nsize = (oc->mask + 1) * 2;
	struct pend *nt = calloc(nsize, sizeof(*nt));
	if (!nt)
		return -FK_E_NOMEM;
	for (size_t i = 0; i <= oc->mask; i++) {
		if (!oc->pend[i].tid)
			continue;
		size_t j = fk_mix64((uint32_t)oc->pend[i].tid) & (nsize - 1);
		while (nt[j].tid)
			j = (j + 1) & (nsize - 1);
		nt[j] = oc->pend[i];
	}
	free(oc->pend);
	oc->pend = nt;
	oc->mask = nsize - 1;
	return 0;
}

/* Linear probing delete: re-insert the rest of the cluster. */
static void delete(fk_offcpu *oc, struct pend *e)
{
	size_t i = (size_t)(e - oc->pend);
	oc->pend[i].tid = 0;
	oc->used--;
	for (size_t j = (i + 1) & oc->mask; oc->pend[j].tid; j = (j + 1) & oc->mask) {
		struct pend moved = oc->pend[j];
		oc->pend[j].tid = 0;
		struct pend *to = slot(oc, moved.tid);
		*to = moved;
	}
}

/* End e's interval at t_end. */
static int finish(fk_offcpu *oc, struct pend *e, uint64_t t_end)
{
	struct pend p = *e;
	delete(oc, e);
	oc->st.intervals++;
	int64_t dt = (int64_t)(t_end - p.t_out);
	if (!(dt > 0 && dt >= oc->min_ns))
		return 0;
	if (p.woken)
		oc->st.woken++;
	fk_offcpu_interval iv = { .handle = p.handle, .t_out = p.t_out, .t_in = t_end,
				  /* whole microseconds keep sums exact (no 0.1-style fractions) */
				  .us = (double)((dt + 500) / 1000),
				  .pid = p.pid, .tid = p.tid, .cpu = p.cpu,
				  .waker = p.waker, .woken = p.woken };
	return oc->fn ? oc->fn(&iv, oc->ctx) : 0;
}

static uint64_t *cpu_last(fk_offcpu *oc, int32_t cpu)
{
	if (cpu < 0 || cpu >= 65536)
		return NULL;
	if (FK_GROW(oc->cpu_last, oc->cpu_cap, (size_t)cpu + 1))
		return NULL;
	while (oc->ncpu <= (size_t)cpu)
		oc->cpu_last[oc->ncpu++] = 0;
	return &oc->cpu_last[cpu];
}

/* A thread with an open interval shows up running but its switch-in was never seen
 * (perf records no samples in the context of some tasks, so the switch that put it on
 * this CPU can be missing). It came in after the last switch seen on this CPU: end the
 * interval there (an underestimate by at most that unseen task's run time). */
static int finish_unseen(fk_offcpu *oc, struct pend *e, int32_t cpu)
{
	uint64_t *last = cpu_last(oc, cpu);
	if (last && *last > e->t_out) {
		oc->st.estimated++;
		return finish(oc, e, *last);
	}
	oc->st.unpaired++;
	delete(oc, e);
	return 0;
}

int fk_offcpu_switch(fk_offcpu *oc, uint64_t t_ns, int32_t cpu, int32_t prev_tid, bool preempted,
		     int32_t next_tid)
{
	int rc = 0;
	oc->st.switches++;
	oc->tracked = 0;
	/* the switch-in of a thread seen leaving ends its interval now */
	if (next_tid > 0 && oc->used) {
		struct pend *e = slot(oc, next_tid);
		if (e->tid && !e->open) {
			oc->st.wakeups_unpaired++;   /* woken, but no switch-out of it was seen */
			delete(oc, e);
		} else if (e->tid && (rc = finish(oc, e, t_ns)) < 0) {
			return rc;
		}
	}
	/* a thread leaving again while still open was switched in unseen (one only
	 * woken is on its way out: its wakeup came first) */
	if (prev_tid > 0 && oc->used) {
		struct pend *e = slot(oc, prev_tid);
		if (e->tid && e->open && (rc = finish_unseen(oc, e, cpu)) < 0)
			return rc;
	}
	uint64_t *last = cpu_last(oc, cpu);
	if (last)
		*last = t_ns;
	/* the idle task (0) never blocks */
	if (prev_tid <= 0 || (oc->blocked_only && preempted))
		return 0;
	oc->tracked = prev_tid;
	return 1;
}

int fk_offcpu_block(fk_offcpu *oc, int32_t pid, int32_t tid, uint64_t handle, uint64_t t_ns,
		    int32_t cpu)
{
	if (tid <= 0 || tid != oc->tracked)
		return -FK_E_INVAL;
	oc->tracked = 0;
	if ((oc->used + 1) * 2 > oc->mask + 1 && grow_table(oc))
		return -FK_E_NOMEM;
	struct pend *e = slot(oc, tid);
	if (!e->tid)
		oc->used++;
	/* a wakeup may come before the switch-out it ends: the waker ran on another CPU
	 * while this thread was on its way into schedule() */
	bool woken = e->tid && e->woken && !e->open;
	uint64_t waker = woken ? e->waker : 0;
	*e = (struct pend){ tid, pid, cpu, handle, t_ns, waker, true, woken };
	return 0;
}

int fk_offcpu_wakeup(fk_offcpu *oc, int32_t tid, uint64_t waker, bool waking)
{
	/* a recording with both events: sched_wakeup comes after the sched_waking of the
	 * same wakeup and would replace the waker by whoever completed it (swapper/N) */
	if (waking)
		oc->waking_seen = true;
	else if (oc->waking_seen)
		return 1;
	if (tid <= 0)
		return 0;
	oc->st.wakeups++;
	if ((oc->used + 1) * 2 > oc->mask + 1 && grow_table(oc))
		return -FK_E_NOMEM;
	struct pend *e = slot(oc, tid);
	if (!e->tid) {
		*e = (struct pend){ .tid = tid };
		oc->used++;
	} else if (e->woken) {
		oc->st.wakeups_unpaired++;   /* woken twice before running: the last one counts */
	}
	e->waker = waker;
	e->woken = true;
	return 0;
}

int fk_offcpu_running(fk_offcpu *oc, int32_t tid, int32_t cpu)
{
	if (!oc->used || tid <= 0)
		return 0;
	struct pend *e = slot(oc, tid);
	return e->tid && e->open ? finish_unseen(oc, e, cpu) : 0;
}

void fk_offcpu_get_stats(const fk_offcpu *oc, fk_offcpu_stats *st)
{
	*st = oc->st;
	st->pending = 0;
	for (size_t i = 0; i <= oc->mask; i++) {
		if (oc->pend[i].tid && oc->pend[i].open)
			st->pending++;
		else if (oc->pend[i].tid)
			st->wakeups_unpaired++;
	}
}

/* Frames of node's path, root first, re-interned into dst, appended at out[*n]. */
static int path_into(fk_profile *dst, const fk_profile *src, uint32_t node, uint32_t **out,
		     size_t *cap, size_t *n, bool leaf_first)
{
	size_t nn;
	const fk_node *nodes = fk_profile_nodes(src, &nn);
	if (!nodes || node >= nn)
		return -FK_E_INVAL;
	size_t start = *n;
	for (uint32_t i = node; i != FK_NONE && nodes[i].parent != FK_NONE; i = nodes[i].parent) {
		if (FK_GROW(*out, *cap, *n + 1))
			return -FK_E_NOMEM;
		size_t len;
		const char *nm = fk_profile_name(src, nodes[i].frame, &len);
		int64_t id = fk_profile_intern(dst, nm, len);
		if (id < 0)
			return (int)id;
		(*out)[(*n)++] = (uint32_t)id;
	}
	if (!leaf_first) {
		for (size_t a = start, b = *n ? *n - 1 : 0; a < b; a++, b--) {
			uint32_t t = (*out)[a];
			(*out)[a] = (*out)[b];
			(*out)[b] = t;
		}
	}
	return 0;
}

int fk_offwake_add(fk_profile *dst, const fk_profile *blocked, uint32_t bnode,
		   const fk_profile *waker, uint32_t wnode, double us, const fk_sample_info *info)
{
	uint32_t *fr = NULL;
	size_t cap = 0, n = 0;
	int rc = path_into(dst, blocked, bnode, &fr, &cap, &n, false);
	if (!rc && FK_GROW(fr, cap, n + 1))
		rc = -FK_E_NOMEM;
	if (!rc) {
		int64_t sep = fk_profile_intern(dst, FK_OFFWAKE_SEP, strlen(FK_OFFWAKE_SEP));
		if (sep < 0)
			rc = (int)sep;
		else
			fr[n++] = (uint32_t)sep;
	}
	/* the waker's leaf nearest the separator, its root (its comm) on top */
	if (!rc)
		rc = path_into(dst, waker, wnode, &fr, &cap, &n, true);
	if (!rc) {
		int64_t leaf = fk_profile_add_sample(dst, fr, n, 0, us, info);
		rc = leaf < 0 ? (int)leaf : 0;
	}
	free(fr);
	return rc;
}

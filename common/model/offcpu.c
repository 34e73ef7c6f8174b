/* offcpu.c - off-CPU time: pairs sched_switch events into blocked intervals (a thread
 * is off-CPU from its switch-out to its next switch-in), for the perf dlfilter and the
 * perf script text parser alike. Callers own the stacks; this file owns the rules. */
#include <errno.h>
#include <stdlib.h>
#include "internal.h"

struct pend {                 /* a thread switched out, waiting for its switch-in */
	int32_t tid;          /* 0 = empty slot (the idle task is never tracked) */
	int32_t pid, cpu;
	uint64_t handle, t_out;
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
	fk_offcpu_interval iv = { .handle = p.handle, .t_out = p.t_out, .t_in = t_end,
				  /* whole microseconds keep sums exact (no 0.1-style fractions) */
				  .us = (double)((dt + 500) / 1000),
				  .pid = p.pid, .tid = p.tid, .cpu = p.cpu };
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
		if (e->tid && (rc = finish(oc, e, t_ns)) < 0)
			return rc;
	}
	/* a thread leaving again while still open was switched in unseen */
	if (prev_tid > 0 && oc->used) {
		struct pend *e = slot(oc, prev_tid);
		if (e->tid && (rc = finish_unseen(oc, e, cpu)) < 0)
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
	*e = (struct pend){ tid, pid, cpu, handle, t_ns };
	return 0;
}

int fk_offcpu_running(fk_offcpu *oc, int32_t tid, int32_t cpu)
{
	if (!oc->used || tid <= 0)
		return 0;
	struct pend *e = slot(oc, tid);
	return e->tid ? finish_unseen(oc, e, cpu) : 0;
}

void fk_offcpu_get_stats(const fk_offcpu *oc, fk_offcpu_stats *st)
{
	*st = oc->st;
	st->pending = oc->used;
}

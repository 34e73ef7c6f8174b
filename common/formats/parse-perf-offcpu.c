/* parse-perf-offcpu.c - perf script text of a sched:sched_switch recording folded into
 * off-CPU time, as the perf dlfilter folds the perf.data: each switch-out's stack
 * weighs the microseconds until that thread is switched in again (the library's
 * fk_offcpu pairing). One parsing thread: pairs span the whole input. */
#include <math.h>
#include <stdlib.h>
#include "parse-perf.h"

/* A switch-out waiting for its switch-in: the stack and the sample's fields. */
struct ocslot {
	uint32_t *key;
	size_t n, cap;
	struct h128 hh;
	fk_sample_info info;
	char *comm;
	size_t comm_cap;
	uint32_t next_free;
};

struct fk_perf_offcpu {
	fk_offcpu *pair;
	struct ocslot *slots;
	size_t nslots, cap;
	uint32_t free_head;    /* index + 1 of a free slot, 0 = none */
	struct pp *t;
};

/* "NAME=VALUE" after the event name: the value's span (up to the next blank). */
static bool field(const char *s, size_t n, const char *name, const char **v, size_t *vl)
{
	size_t nl = strlen(name);
	for (size_t i = 0; i + nl < n; i++) {
		if ((i == 0 || IS_WS(s[i - 1])) && !memcmp(s + i, name, nl) && s[i + nl] == '=') {
			size_t a = i + nl + 1, b = a;
			while (b < n && !IS_WS(s[b]))
				b++;
			*v = s + a;
			*vl = b - a;
			return true;
		}
	}
	return false;
}

static bool int_field(const char *s, size_t n, const char *name, int32_t *out)
{
	const char *v;
	size_t vl;
	if (!field(s, n, name, &v, &vl) || vl == 0 || vl > 10)
		return false;
	int64_t x = 0;
	for (size_t i = 0; i < vl; i++) {
		if (!IS_D(v[i]))
			return false;
		x = x * 10 + (v[i] - '0');
	}
	if (x > INT32_MAX)
		return false;
	*out = (int32_t)x;
	return true;
}

bool fk_perf_switch_fields(const char *l, size_t len, struct fk_perf_switch *sw)
{
	static const char ev[] = " sched:sched_switch: ";
	const char *p = memmem(l, len, ev, sizeof(ev) - 1);
	if (!p)
		return false;
	p += sizeof(ev) - 1;
	size_t n = len - (size_t)(p - l);
	const char *st;
	size_t sl;
	if (!int_field(p, n, "prev_pid", &sw->prev_tid) || !int_field(p, n, "next_pid", &sw->next_tid) ||
	    !field(p, n, "prev_state", &st, &sl))
		return false;
	/* TASK_RUNNING prints as R (R+ when preempted): runnable, not blocked */
	sw->preempted = sl >= 1 && st[0] == 'R';
	return true;
}

bool fk_perf_wakeup_fields(const char *l, size_t len, int32_t *tid, bool *waking)
{
	/* " sched:sched_waking: " or " sched:sched_wakeup: ", both "comm= pid= prio= target_cpu=" */
	static const char ev[] = " sched:sched_wak";
	const char *p = memmem(l, len, ev, sizeof(ev) - 1);
	if (!p)
		return false;
	p += sizeof(ev) - 1;
	size_t n = len - (size_t)(p - l);
	if (n >= 5 && !memcmp(p, "ing: ", 5))
		*waking = true;
	else if (n >= 5 && !memcmp(p, "eup: ", 5))
		*waking = false;
	else
		return false;
	p += 5;
	return int_field(p, len - (size_t)(p - l), "pid", tid) && *tid > 0;
}

static void slot_free(struct fk_perf_offcpu *oc, uint64_t i)
{
	oc->slots[i].next_free = oc->free_head;
	oc->free_head = (uint32_t)i + 1;
}

/* An interval ended: its switch-out stack is one sample weighing its microseconds;
 * with --off-wake, only an interval a wakeup was paired with, as the off-wake stack
 * (blocked root..leaf, FK_OFFWAKE_SEP, the waker's leaf..root). */
static int interval_done(const fk_offcpu_interval *iv, void *ctx)
{
	struct fk_perf_offcpu *oc = ctx;
	struct pp *t = oc->t;
	struct ocslot *s = &oc->slots[iv->handle];
	fk_sample_info save = t->info;
	t->info = s->info;
	t->info.comm = s->comm;
	if (!t->o->offwake) {
		fk_perf_stack_add(t, s->key, s->n, s->hh, iv->us);
	} else if (iv->woken) {
		struct ocslot *w = &oc->slots[iv->waker];
		size_t n = s->n + 1 + w->n;
		if (FK_GROW(t->key, t->key_cap, n))
			return -FK_E_NOMEM;
		int64_t sep = fk_profile_intern(t->p, FK_OFFWAKE_SEP, strlen(FK_OFFWAKE_SEP));
		if (sep < 0)
			return (int)sep;
		memcpy(t->key, s->key, s->n * sizeof(uint32_t));
		t->key[s->n] = (uint32_t)sep;
		for (size_t j = 0; j < w->n; j++)
			t->key[s->n + 1 + j] = w->key[w->n - 1 - j];
		fk_perf_stack_add(t, t->key, n, hash128((const char *)t->key, n * sizeof(uint32_t), HK2),
				  iv->us);
		slot_free(oc, iv->waker);
	}
	t->info = save;
	slot_free(oc, iv->handle);
	return t->err;
}

static int oc_ensure(struct pp *t)
{
	if (t->oc)
		return 0;
	struct fk_perf_offcpu *oc = calloc(1, sizeof(*oc));
	if (!oc || !(oc->pair = fk_offcpu_new(0, false, interval_done, oc))) {
		free(oc);
		return -FK_E_NOMEM;
	}
	oc->t = t;
	t->oc = oc;
	return 0;
}

/* A slot for a stack of n frames; its index, or negative. */
static int64_t slot_take(struct fk_perf_offcpu *oc, const uint32_t *k, size_t n)
{
	uint32_t i;
	if (oc->free_head) {
		i = oc->free_head - 1;
		oc->free_head = oc->slots[i].next_free;
	} else {
		if (oc->nslots >= UINT32_MAX - 1 || FK_GROW(oc->slots, oc->cap, oc->nslots + 1))
			return -FK_E_NOMEM;
		i = (uint32_t)oc->nslots++;
		memset(&oc->slots[i], 0, sizeof(oc->slots[i]));
	}
	struct ocslot *s = &oc->slots[i];
	if (FK_GROW(s->key, s->cap, n ? n : 1))
		return -FK_E_NOMEM;
	memcpy(s->key, k, n * sizeof(*k));
	s->n = n;
	return i;
}

int fk_perf_offcpu_waker(struct pp *t, const uint32_t *k, size_t n)
{
	int rc = oc_ensure(t);
	if (rc < 0)
		return rc;
	int32_t tid = t->wk_tid;
	t->wk_tid = 0;
	/* a wakeup replacing an earlier one of the same interval leaves that slot
	 * until the end (freed with the rest) */
	int64_t i = slot_take(t->oc, k, n);
	if (i < 0)
		return (int)i;
	rc = fk_offcpu_wakeup(t->oc->pair, tid, (uint64_t)i, t->wk_waking);
	if (rc == 1) /* a sched_wakeup where sched_waking is recorded too */
		slot_free(t->oc, (uint64_t)i);
	return rc < 0 ? rc : 0;
}

int fk_perf_offcpu_switch(struct pp *t, const struct fk_perf_switch *sw)
{
	int rc0 = oc_ensure(t);
	if (rc0 < 0)
		return rc0;
	t->oc_track = false;
	const fk_sample_info *in = &t->info;
	if (isnan(in->time) || in->time < 0)
		return 0; /* no time: nothing to pair (perf script -F without time) */
	uint64_t ns = (uint64_t)llround(in->time * 1e9);
	int rc = fk_offcpu_switch(t->oc->pair, ns, in->cpu, sw->prev_tid, sw->preempted, sw->next_tid);
	if (rc < 0)
		return rc;
	t->oc_track = rc == 1;
	t->oc_ns = ns;
	t->oc_tid = sw->prev_tid;
	return 0;
}

int fk_perf_offcpu_block(struct pp *t, const uint32_t *k, size_t n, struct h128 hh)
{
	struct fk_perf_offcpu *oc = t->oc;
	if (!oc || !t->oc_track)
		return 0;
	t->oc_track = false;
	int64_t si = slot_take(oc, k, n);
	if (si < 0)
		return (int)si;
	uint32_t i = (uint32_t)si;
	struct ocslot *s = &oc->slots[i];
	if (fk_perf_grow_bytes(&s->comm, &s->comm_cap, t->info.comm_len + 1))
		return -FK_E_NOMEM;
	s->hh = hh;
	s->info = t->info;
	if (t->info.comm_len)
		memcpy(s->comm, t->info.comm, t->info.comm_len);
	s->info.comm = NULL;
	return fk_offcpu_block(oc->pair, t->info.pid, t->oc_tid, i, t->oc_ns, t->info.cpu);
}

void fk_perf_offcpu_free(struct pp *t)
{
	struct fk_perf_offcpu *oc = t->oc;
	if (!oc)
		return;
	fk_offcpu_free(oc->pair);
	for (size_t i = 0; i < oc->nslots; i++) {
		free(oc->slots[i].key);
		free(oc->slots[i].comm);
	}
	free(oc->slots);
	free(oc);
	t->oc = NULL;
}

void fk_perf_offcpu_stats(const struct pp *t, fk_offcpu_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (t->oc)
		fk_offcpu_get_stats(t->oc->pair, st);
}

/* A sched_switch header the sample regex does not take (perf prints ":-1 -1" when it
 * lost the task): its switch still ends and starts intervals of the threads it names,
 * so it is paired (its stack has no process to fold under, as in the perl). */
bool fk_perf_offcpu_unnamed(struct pp *t, const char *l, size_t len)
{
	struct fk_perf_switch sw;
	int32_t wakee;
	bool waking;
	if (!fk_perf_switch_fields(l, len, &sw)) {
		/* a wakeup by a task perf lost: no waker to draw (the dlfilter skips it too) */
		return t->o->offwake && fk_perf_wakeup_fields(l, len, &wakee, &waking);
	}
	const char *evp = memmem(l, len, " sched:sched_switch: ", 21);
	t->info.time = NAN;
	t->info.cpu = -1;
	t->info.pid = t->info.tid = -1;
	t->info.comm = NULL;
	t->info.comm_len = 0;
	for (size_t i = 0, end = (size_t)(evp - l); i < end;) {
		while (i < end && IS_WS(l[i]))
			i++;
		size_t s = i;
		while (i < end && !IS_WS(l[i]))
			i++;
		if (i - s >= 3 && l[s] == '[' && l[i - 1] == ']') {
			int64_t c = 0;
			size_t k = s + 1;
			for (; k < i - 1 && IS_D(l[k]) && c < INT32_MAX; k++)
				c = c * 10 + (l[k] - '0');
			if (k == i - 1 && c <= INT32_MAX)
				t->info.cpu = (int32_t)c;
		} else if (i - s >= 3 && l[i - 1] == ':' && IS_D(l[s])) {
			char *e;
			char buf[40];
			size_t n = i - 1 - s < sizeof(buf) - 1 ? i - 1 - s : sizeof(buf) - 1;
			memcpy(buf, l + s, n);
			buf[n] = 0;
			double v = strtod(buf, &e);
			if (*e == 0)
				t->info.time = v;
		}
	}
	int rc = fk_perf_offcpu_switch(t, &sw);
	t->oc_track = false;
	if (rc < 0)
		fk_perf_set_err(t, rc);
	return true;
}

/* perf-root.c - the root frame of a perf sample (stackcollapse-perf.pl's $pname):
 * one rule for the perf script text parser and the perf dlfilter. */
#include <stdio.h>
#include "internal.h"

size_t fk_perf_root_text(char *out, const char *comm, size_t commlen, const char *pid, size_t pidlen,
			 const char *tid, size_t tidlen, const fk_parse_opts *o)
{
	size_t n = commlen;
	for (size_t i = 0; i < commlen; i++)
		out[i] = comm[i] == ' ' ? '_' : comm[i];
	if (o && (o->tid || o->pid)) {
		out[n++] = '-';
		if (pidlen) {
			memcpy(out + n, pid, pidlen);
			n += pidlen;
		} else {
			out[n++] = '?';
		}
		if (o->tid) {
			out[n++] = '/';
			memcpy(out + n, tid, tidlen);
			n += tidlen;
		}
	}
	return n;
}

size_t fk_perf_root_name(char *out, const char *comm, size_t commlen, int32_t pid, int32_t tid,
			 const fk_parse_opts *o)
{
	char ps[16] = "", ts[16] = "";
	int pl = pid >= 0 ? snprintf(ps, sizeof(ps), "%d", pid) : 0;
	int tl = snprintf(ts, sizeof(ts), "%d", tid);
	return fk_perf_root_text(out, comm, commlen, ps, (size_t)pl, ts, (size_t)tl, o);
}

/* perf event modifiers after ':' ("cycles:ppp", "cpu-clock:uH"); anything else after
 * a ':' is a tracepoint name ("sched:sched_switch"). */
static bool modifiers(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr("ukhIGHpPSDWe", s[i]) || !s[i])
			return false;
	return true;
}

size_t fk_perf_unit(char *out, size_t size, const char *event, size_t len, bool weighted)
{
	const char *u = "samples";
	size_t n = 7;
	if (weighted && len) {
		const char *slash = memchr(event, '/', len), *colon = memchr(event, ':', len);
		u = event;
		n = len;
		if (slash) {
			/* "cpu-clock/freq=99/" names cpu-clock; "cpu/cycles/u" names cycles */
			size_t a = (size_t)(slash - event) + 1, b = a;
			while (b < len && event[b] != '/' && event[b] != '=' && event[b] != ',')
				b++;
			if (b > a && b < len && event[b] == '/') {
				u = event + a;
				n = b - a;
			} else {
				n = a - 1;
			}
		} else if (colon && modifiers(colon + 1, len - (size_t)(colon + 1 - event))) {
			n = (size_t)(colon - event);
		}
		/* software clocks count nanoseconds */
		if ((n == 9 && !memcmp(u, "cpu-clock", 9)) || (n == 10 && !memcmp(u, "task-clock", 10))) {
			u = "ns";
			n = 2;
		}
	}
	if (!size)
		return 0;
	if (n >= size)
		n = size - 1;
	memcpy(out, u, n);
	out[n] = 0;
	return n;
}

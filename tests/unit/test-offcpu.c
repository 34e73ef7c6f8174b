/* test-offcpu.c - unit tests of the off-CPU rules the perf paths share: sched_switch
 * pairing (intervals, min, blocked-only, unseen switch-ins), wakeups (sched_waking over
 * sched_wakeup, a wakeup before the switch-out), merge with scale and mark,
 * the perf root-frame name, event units and the SVG presets. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "flamekit.h"

static int failures;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); failures++; } } while (0)

struct got {
	fk_offcpu_interval iv[16];
	int n;
};

static int collect(const fk_offcpu_interval *iv, void *ctx)
{
	struct got *g = ctx;
	if (g->n < 16)
		g->iv[g->n++] = *iv;
	return 0;
}

static void test_pairing(void)
{
	struct got g = { .n = 0 };
	fk_offcpu *oc = fk_offcpu_new(0, false, collect, &g);
	CHECK(oc);
	/* 100 blocks on cpu 0 at t=1000 ns; 200 runs */
	CHECK(fk_offcpu_switch(oc, 1000, 0, 100, false, 200) == 1);
	CHECK(fk_offcpu_block(oc, 99, 100, 7, 1000, 0) == 0);
	/* block without its switch: refused */
	CHECK(fk_offcpu_block(oc, 99, 100, 7, 1000, 0) < 0);
	/* 200 is preempted (runnable) at 2600 ns, 100 comes back: 1600 ns -> 2 us (rounded) */
	CHECK(fk_offcpu_switch(oc, 2600, 0, 200, true, 100) == 1);
	CHECK(fk_offcpu_block(oc, 200, 200, 8, 2600, 0) == 0);
	CHECK(g.n == 1 && g.iv[0].handle == 7 && g.iv[0].us == 2 && g.iv[0].t_out == 1000 &&
	      g.iv[0].t_in == 2600 && g.iv[0].pid == 99 && g.iv[0].tid == 100 && g.iv[0].cpu == 0);
	/* the idle task never blocks */
	CHECK(fk_offcpu_switch(oc, 3000, 1, 0, false, 300) == 0);
	/* 200 shows up running on cpu 0 without a recorded switch-in: ends at cpu 0's last
	 * switch (2600 = its own switch-out: nothing to estimate, dropped) */
	CHECK(fk_offcpu_running(oc, 200, 0) == 0);
	fk_offcpu_stats st;
	fk_offcpu_get_stats(oc, &st);
	CHECK(st.switches == 3 && st.intervals == 1 && st.unpaired == 1 && st.pending == 0);
	/* 300 blocks at 4000 on cpu 1; cpu 1 switches at 9000 (unrelated); 300 is seen
	 * running on cpu 1: its interval ends at 9000 (estimated) */
	CHECK(fk_offcpu_switch(oc, 4000, 1, 300, false, 0) == 1);
	CHECK(fk_offcpu_block(oc, 300, 300, 9, 4000, 1) == 0);
	CHECK(fk_offcpu_switch(oc, 9000, 1, 0, false, 400) == 0);
	CHECK(fk_offcpu_running(oc, 300, 1) == 0);
	CHECK(g.n == 2 && g.iv[1].handle == 9 && g.iv[1].us == 5 && g.iv[1].t_in == 9000);
	fk_offcpu_get_stats(oc, &st);
	CHECK(st.estimated == 1);
	/* many threads at once: the table grows, every interval is found again */
	for (int i = 1; i <= 1000; i++) {
		CHECK(fk_offcpu_switch(oc, 10000, 2, 1000 + i, false, 0) == 1);
		CHECK(fk_offcpu_block(oc, 1, 1000 + i, (uint64_t)i, 10000, 2) == 0);
	}
	fk_offcpu_get_stats(oc, &st);
	CHECK(st.pending == 1000);
	g.n = 0;
	for (int i = 1000; i >= 1; i--)
		CHECK(fk_offcpu_switch(oc, 10000 + 1000 * (uint64_t)i, 3, 0, false, 1000 + i) == 0);
	fk_offcpu_get_stats(oc, &st);
	CHECK(st.pending == 0 && st.intervals == 1002);
	fk_offcpu_free(oc);

	/* min_ns and blocked_only */
	g.n = 0;
	oc = fk_offcpu_new(5000, true, collect, &g);
	CHECK(fk_offcpu_switch(oc, 0, 0, 10, true, 0) == 0);   /* preempted: not tracked */
	CHECK(fk_offcpu_switch(oc, 100, 0, 11, false, 0) == 1);
	CHECK(fk_offcpu_block(oc, 11, 11, 1, 100, 0) == 0);
	CHECK(fk_offcpu_switch(oc, 4000, 0, 0, false, 11) == 0); /* 3.9 us < 5 us: dropped */
	CHECK(fk_offcpu_switch(oc, 5000, 0, 11, false, 0) == 1);
	CHECK(fk_offcpu_block(oc, 11, 11, 2, 5000, 0) == 0);
	CHECK(fk_offcpu_switch(oc, 10000, 0, 0, false, 11) == 0); /* exactly 5 us: kept */
	CHECK(g.n == 1 && g.iv[0].handle == 2 && g.iv[0].us == 5);
	fk_offcpu_free(oc);
}

/* Off-wake pairing: which wakeup an interval takes. */
static void test_wakeups(void)
{
	struct got g = { .n = 0 };
	fk_offcpu *oc = fk_offcpu_new(0, true, collect, &g);
	CHECK(oc);
	/* an old recording (sched_wakeup only): taken */
	CHECK(fk_offcpu_switch(oc, 1000, 0, 100, false, 0) == 1);
	CHECK(fk_offcpu_block(oc, 100, 100, 1, 1000, 0) == 0);
	CHECK(fk_offcpu_wakeup(oc, 100, 41, false) == 0);
	CHECK(fk_offcpu_switch(oc, 3000, 1, 0, false, 100) == 0);
	CHECK(g.n == 1 && g.iv[0].woken && g.iv[0].waker == 41);
	/* both events: the waking (the waker's context) counts; the wakeup after it, and
	 * any later one, are ignored (it may have completed in the idle task's interrupt) */
	CHECK(fk_offcpu_switch(oc, 4000, 0, 100, false, 0) == 1);
	CHECK(fk_offcpu_block(oc, 100, 100, 2, 4000, 0) == 0);
	CHECK(fk_offcpu_wakeup(oc, 100, 42, true) == 0);
	CHECK(fk_offcpu_wakeup(oc, 100, 43, false) == 1);
	CHECK(fk_offcpu_switch(oc, 6000, 1, 0, false, 100) == 0);
	CHECK(g.n == 2 && g.iv[1].woken && g.iv[1].waker == 42);
	/* a waking before the switch-out it ends (the waker ran while the thread was on
	 * its way into schedule()): taken by that interval */
	CHECK(fk_offcpu_wakeup(oc, 100, 44, true) == 0);
	CHECK(fk_offcpu_switch(oc, 7000, 0, 100, false, 0) == 1);
	CHECK(fk_offcpu_block(oc, 100, 100, 3, 7000, 0) == 0);
	CHECK(fk_offcpu_switch(oc, 9000, 1, 0, false, 100) == 0);
	CHECK(g.n == 3 && g.iv[2].woken && g.iv[2].waker == 44 && g.iv[2].handle == 3);
	/* no wakeup seen: an interval without one */
	CHECK(fk_offcpu_switch(oc, 10000, 0, 100, false, 0) == 1);
	CHECK(fk_offcpu_block(oc, 100, 100, 4, 10000, 0) == 0);
	CHECK(fk_offcpu_switch(oc, 12000, 1, 0, false, 100) == 0);
	CHECK(g.n == 4 && !g.iv[3].woken);
	fk_offcpu_stats st;
	fk_offcpu_get_stats(oc, &st);
	CHECK(st.wakeups == 3 && st.woken == 3 && st.wakeups_unpaired == 0);
	fk_offcpu_free(oc);
}

static char *folded(const fk_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(fk_profile_write_folded(p, f) == 0);
	fclose(f);
	return buf;
}

static void test_merge_scaled(void)
{
	fk_profile *on = fk_profile_new(FK_PROFILE_SAMPLES), *off = fk_profile_new(FK_PROFILE_SAMPLES);
	fk_sample_info in = { .time = 1.5, .pid = 1, .tid = 2, .cpu = 0, .comm = "app", .comm_len = 3 };
	uint32_t f[3];
	f[0] = (uint32_t)fk_profile_intern(on, "app", 3);
	f[1] = (uint32_t)fk_profile_intern(on, "main", 4);
	f[2] = (uint32_t)fk_profile_intern(on, "burn", 4);
	CHECK(fk_profile_add_sample(on, f, 3, 0, 1001001, &in) >= 0);
	CHECK(fk_profile_add_sample(on, f, 3, 0, 1001499, &in) >= 0);
	CHECK(fk_profile_add_sample(on, f, 2, 0, 2000, &in) >= 0);
	CHECK(fk_profile_add_folded(off, "app;main;nap", 12, 0, 0) >= 0);
	uint32_t g[3] = { (uint32_t)fk_profile_intern(off, "app", 3), (uint32_t)fk_profile_intern(off, "main", 4),
			  (uint32_t)fk_profile_intern(off, "nap", 3) };
	CHECK(fk_profile_add_sample(off, g, 3, 0, 500000, &in) >= 0);
	fk_profile *both = fk_profile_new(FK_PROFILE_SAMPLES);
	CHECK(fk_profile_merge_scaled(both, on, 1e-3, NULL) == 0);
	CHECK(fk_profile_merge_scaled(both, off, 1.0, FK_OFFCPU_MARK) == 0);
	char *s = folded(both);
	/* each sample is rounded on its own: 1001 + 1001 */
	CHECK(!strcmp(s, "app;main 2\napp;main;burn 2002\napp;main;nap;[off-cpu] 500000\n"));
	free(s);
	size_t ns;
	const fk_sample *smp = fk_profile_samples(both, &ns);
	CHECK(ns == 4 && smp[0].weight == 1001 && smp[3].weight == 500000 && smp[3].time == 1.5);
	CHECK(fk_profile_merge_scaled(both, on, 0, NULL) < 0);
	fk_profile_free(both);
	/* without samples: node counts are rounded */
	both = fk_profile_new(0);
	CHECK(fk_profile_merge_scaled(both, on, 1e-3, "x") == 0);
	s = folded(both);
	CHECK(!strcmp(s, "app;main;burn;x 2003\napp;main;x 2\n")); /* 2002.5 rounded */
	free(s);
	fk_profile_free(both);
	/* fk_profile_merge: an empty profile takes on the unit and kind */
	fk_profile_set_unit(off, "us");
	fk_profile_set_kind(off, FK_KIND_OFFCPU);
	both = fk_profile_new(0);
	CHECK(fk_profile_unit(both) == NULL);
	CHECK(fk_profile_merge(both, off) == 0);
	CHECK(fk_profile_unit(both) && !strcmp(fk_profile_unit(both), "us") &&
	      fk_profile_kind(both) == FK_KIND_OFFCPU);
	/* presets: countname, palette and title from the profile; what the caller set stays */
	fk_svg_opts o;
	fk_svg_opts_init(&o);
	fk_svg_opts_defaults(&o, both);
	CHECK(!strcmp(o.countname, "us") && !strcmp(o.colors, "io") &&
	      !strcmp(o.title, "Off-CPU Time Flame Graph"));
	fk_svg_opts_init(&o);
	o.colors = "hot";
	o.countname = "ticks";
	fk_svg_opts_defaults(&o, both);
	CHECK(!strcmp(o.countname, "ticks") && !strcmp(o.colors, "hot"));
	fk_svg_opts_init(&o);
	fk_svg_opts_defaults(&o, on);
	CHECK(!strcmp(o.countname, "samples") && !strcmp(o.colors, "hot") && o.title == NULL);
	fk_profile_free(both);
	fk_profile_free(on);
	fk_profile_free(off);
}

static void test_names_units(void)
{
	char b[128];
	fk_parse_opts o;
	fk_parse_opts_init(&o);
	size_t n = fk_perf_root_name(b, "V8 Worker;x", 11, 42, 43, &o);
	CHECK(n == 11 && !memcmp(b, "V8_Worker;x", 11));
	o.pid = true;
	n = fk_perf_root_name(b, "a b", 3, 42, 43, &o);
	CHECK(n == 6 && !memcmp(b, "a_b-42", 6));
	o.tid = true;
	n = fk_perf_root_name(b, "a b", 3, -1, 43, &o);
	CHECK(n == 8 && !memcmp(b, "a_b-?/43", 8));
	n = fk_perf_root_name(b, "w", 1, 7, 8, NULL);
	CHECK(n == 1 && b[0] == 'w');
	static const struct { const char *ev; bool w; const char *unit; } u[] = {
		{ "cpu-clock:ppp", true, "ns" }, { "task-clock", true, "ns" },
		{ "cpu-clock/freq=99/", true, "ns" }, { "cpu-clock:ppp", false, "samples" },
		{ "cycles:u", true, "cycles" }, { "cpu/cycles/u", true, "cycles" },
		{ "cpu_core/instructions/", true, "instructions" },
		{ "sched:sched_switch", true, "sched:sched_switch" }, { "", true, "samples" },
	};
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		fk_perf_unit(b, sizeof(b), u[i].ev, strlen(u[i].ev), u[i].w);
		if (strcmp(b, u[i].unit))
			fprintf(stderr, "unit of %s: %s\n", u[i].ev, b);
		CHECK(!strcmp(b, u[i].unit));
	}
	CHECK(fk_perf_unit(b, 3, "cycles", 6, true) == 2 && !strcmp(b, "cy"));
}

int main(void)
{
	test_pairing();
	test_wakeups();
	test_merge_scaled();
	test_names_units();
	if (failures)
		fprintf(stderr, "%d checks failed\n", failures);
	return failures ? 1 : 0;
}

/* perf-api.c - the perf script parser through the public API: fk_perf_tidy_name,
 * per-sample records (time, pid, tid, cpu, comm, weight), period vs --samples weights,
 * and two threads giving the same profile as one. Run by t-api.sh. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flamekit.h"
#include "unit.h"

#define CHECK UNIT_CHECK

static void tidy(const char *sym, const char *dso, const fk_parse_opts *o, const char *want)
{
	/* (the room said, exactly: a write past it is a heap overflow ASan sees) */
	char *out = malloc(fk_perf_tidy_room(strlen(sym), strlen(dso), o));
	if (!out)
		abort();
	size_t n = fk_perf_tidy_name(out, sym, strlen(sym), dso, strlen(dso), o);
	CHECK(n == strlen(want) && !memcmp(out, want, n), "tidy(%s, %s) = [%.*s], want [%s]", sym,
	      dso, (int)n, out, want);
	free(out);
}

static char *folded(const fk_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f || fk_profile_write_folded(p, f))
		return NULL;
	fclose(f);
	return buf;
}

/* a host's symboliser for --inline: no program runs */
static int inl_calls;
static char *inl(const char *pc, const char *mod, const char *func, void *ctx)
{
	inl_calls++;
	CHECK(ctx == &inl_calls && !strcmp(mod, "/x"), "symboliser ctx/mod [%s]", mod);
	return strdup(!strcmp(pc, "1") && !strcmp(func, "leaf+0x4") ? "outer;inner" : "");
}

static void quiet(enum fk_level l, const char *m, void *c) { (void)l, (void)m, (void)c; }

int main(void)
{
	fk_parse_opts o;
	fk_parse_opts_init(&o);
	tidy("foo(int)+0x10", "/bin/x", &o, "foo");
	tidy("foo+0x1F", "/bin/x", &o, "foo+0x1F"); /* only lowercase hex offsets are stripped */
	tidy("[unknown]", "/usr/lib/libc.so.6", &o, "[libc.so.6]");
	tidy("[unknown]", "[unknown]", &o, "[unknown]");
	tidy("ns::(anonymous namespace)::f(int)", "/x", &o, "ns::(anonymous namespace)::f");
	tidy("(anonymous namespace)::f(int)", "/x", &o, ""); /* perl skips names starting with '(' */
	tidy("net/http.(*Client).Do", "/x", &o, "net/http.(*Client).Do");
	tidy("a;b \"q\" 'x'", "/x", &o, "a:b q x");
	tidy("outer->inner", "/x", &o, "outer;inner_[i]");
	{
		/* a Rust v0 name printed longer than it is mangled (its backrefs repeat paths),
		 * alone and inlined: demangled as c++filt -i prints it (a sample of std's
		 * OnceLock in a perf recording was left mangled, its room that of the mangled) */
		fk_parse_opts r = o;
		r.rust_names = true;
		const char *v0 = "_RINvMNtNtCsjrHSEGnQ3l9_3std4sync9once_lockINtB3_8OnceLockINtNtB5_14"
				 "reentrant_lock13ReentrantLockINtNtCsgEmfK2I1SDS_4core4cell7RefCellINtNtNtNtB7"
				 "_2io8buffered10linewriter10LineWriterNtNtB2e_5stdio9StdoutRawEEEE10initialize"
				 "NCINvB2_11get_or_initNCNvB2V_6stdout0E0zEB7_";
		const char *lock = "<std::sync::once_lock::OnceLock<std::sync::reentrant_lock::ReentrantLock"
				   "<core::cell::RefCell<std::io::buffered::linewriter::LineWriter<std::io::"
				   "stdio::StdoutRaw>>>>>";
		char want[1024], sym[1024];
		snprintf(want, sizeof(want), "%s::initialize::<%s::get_or_init<std::io::stdio::stdout::"
			 "{closure#0}>::{closure#0}, !>", lock, lock);
		snprintf(sym, sizeof(sym), "%s+0x12", v0);
		tidy(sym, "/x/spin", &r, want);
		snprintf(sym, sizeof(sym), "main->%s", v0);
		char want2[1100];
		snprintf(want2, sizeof(want2), "main;%s_[i]", want);
		tidy(sym, "/x/spin", &r, want2);
	}
	tidy("(process)", "/x", &o, "");
	tidy("main::{lambda(int)#1}::operator()(int) const", "/x", &o, "main::{lambda");
	tidy("数据库::运行+0x10", "/opt/服务", &o, "数据库::运行");
	tidy("schedule", "[kernel.kallsyms]", &o, "schedule");
	o.kernel = true;
	tidy("schedule", "[kernel.kallsyms]", &o, "schedule_[k]");
	tidy("tcp_sendmsg", "/lib/modules/6.1/build/vmlinux", &o, "tcp_sendmsg_[k]");
	tidy("x", "[unknown]", &o, "x");
	o.kernel = false;
	o.jit = true;
	tidy("LFoo;::bar", "/tmp/perf-123.map", &o, "LFoo:::bar_[j]");
	o.jit = false;
	o.full_names = true;
	tidy("main::{lambda(int)#1}::operator()(int) const", "/x", &o,
	     "main::{lambda(int)#1}::operator()(int) const");
	o.full_names = false;

	/* per-sample records and weights */
	static const char in[] =
		"my comm 42/43 [003] 1234.500000: 1000 cpu-clock: \n"
		"\t401000 leaf+0x1 (/x/a)\n"
		"\t401100 root+0x1 (/x/a)\n"
		"\n"
		"other 7 [001] 1235.250000: 250 cpu-clock: \n"
		"\n";
	fk_profile *p = fk_profile_new(FK_PROFILE_SAMPLES);
	fk_parse_opts_init(&o);
	o.format = "perf";
	fk_parse_stats st;
	int rc = fk_parse_buffer(p, in, sizeof(in) - 1, &o, &st);
	CHECK(rc == 0, "parse: %d", rc);
	CHECK(st.samples == 2 && st.lines == 6, "stats: %llu samples %llu lines",
	      (unsigned long long)st.samples, (unsigned long long)st.lines);
	size_t ns;
	const fk_sample *s = fk_profile_samples(p, &ns);
	CHECK(ns == 2, "%zu samples", ns);
	if (ns == 2) {
		CHECK(fabs(s[0].time - 1234.5) < 1e-9 && s[0].pid == 42 && s[0].tid == 43 &&
			      s[0].cpu == 3 && s[0].weight == 1000,
		      "sample 0: %f %d %d %d %f", s[0].time, s[0].pid, s[0].tid, s[0].cpu, s[0].weight);
		const char *comm = fk_profile_name(p, s[0].comm, NULL);
		CHECK(comm && !strcmp(comm, "my comm"), "comm [%s]", comm ? comm : "(null)");
		CHECK(fabs(s[1].time - 1235.25) < 1e-9 && s[1].pid == -1 && s[1].tid == 7 &&
			      s[1].cpu == 1 && s[1].weight == 250,
		      "sample 1: %f %d %d %d %f", s[1].time, s[1].pid, s[1].tid, s[1].cpu, s[1].weight);
	}
	char *f = folded(p);
	CHECK(f && !strcmp(f, "my_comm;root;leaf 1000\nother 250\n"), "folded [%s]", f ? f : "");
	free(f);
	fk_profile_free(p);
	p = fk_profile_new(0);
	o.samples = true;
	fk_parse_buffer(p, in, sizeof(in) - 1, &o, NULL);
	f = folded(p);
	CHECK(f && !strcmp(f, "my_comm;root;leaf 1\nother 1\n"), "--samples folded [%s]", f ? f : "");
	free(f);
	fk_profile_free(p);

	/* two threads == one thread, on a buffer big enough to be split */
	size_t cap = 4u << 20, len = 0;
	char *big = malloc(cap);
	for (unsigned i = 0; big && len + 200 < cap; i++)
		len += (size_t)snprintf(big + len, cap - len,
					"w%u %u [000] %u.000001: %u cpu-clock: \n\t4010%02x f%u (/x/b)\n"
					"\t401100 main (/x/b)\n\n",
					i % 5, 100 + i % 7, i, 1 + i % 3, i % 64, i % 11);
	fk_parse_opts_init(&o);
	o.format = "perf";
	fk_profile *p1 = fk_profile_new(FK_PROFILE_SAMPLES), *p2 = fk_profile_new(FK_PROFILE_SAMPLES);
	fk_parse_buffer(p1, big, len, &o, NULL);
	o.threads = 2;
	setenv("FLAMEKIT_SPLIT_MIN", "4096", 1);
	fk_parse_buffer(p2, big, len, &o, NULL);
	char *f1 = folded(p1), *f2 = folded(p2);
	CHECK(f1 && f2 && !strcmp(f1, f2), "two threads differ");
	size_t n1, n2;
	const fk_sample *s1 = fk_profile_samples(p1, &n1), *s2 = fk_profile_samples(p2, &n2);
	CHECK(n1 == n2 && n1 > 1000, "samples %zu vs %zu", n1, n2);
	for (size_t i = 0; i < n1 && i < n2; i++)
		if (s1[i].time != s2[i].time || s1[i].weight != s2[i].weight) {
			CHECK(0, "sample %zu differs between one and two threads", i);
			break;
		}
	free(f1), free(f2), free(big);
	fk_profile_free(p1), fk_profile_free(p2);

	/* bad input through the API: a warning naming the line, -FK_E_SKIPPED, good data kept */
	fk_set_print(quiet, NULL);
	static const char badin[] = "prog 1 [000] 1.0: 1 ev: \n\t1 ok (/x)\nnot a line\n\n";
	p = fk_profile_new(0);
	fk_parse_opts_init(&o);
	o.format = "perf";
	rc = fk_parse_buffer(p, badin, sizeof(badin) - 1, &o, &st);
	CHECK(rc == -FK_E_SKIPPED && st.bad_lines == 1 && st.samples == 1, "bad input: rc %d", rc);
	fk_profile_free(p);
	fk_set_print(NULL, NULL);

	/* --inline through the host's symboliser: once per distinct frame line, "" = no
	 * inline frames known (the frame is tidied as usual) */
	static const char inlin[] = "prog 1 [000] 1.0: 1 ev: \n\t1 leaf+0x4 (/x)\n\t2 root (/x)\n\n"
				    "prog 1 [000] 2.0: 1 ev: \n\t1 leaf+0x4 (/x)\n\t2 root (/x)\n\n";
	p = fk_profile_new(0);
	fk_parse_opts_init(&o);
	o.format = "perf";
	o.inline_frames = true;
	o.inline_fn = inl;
	o.inline_ctx = &inl_calls;
	rc = fk_parse_buffer(p, inlin, sizeof(inlin) - 1, &o, &st);
	f = folded(p);
	CHECK(rc == 0 && f && !strcmp(f, "prog;root;outer;inner 2\n"), "--inline via callback: rc %d [%s]", rc,
	      f ? f : "");
	CHECK(inl_calls == 2, "symboliser called %d times, want 2", inl_calls);
	free(f);
	fk_profile_free(p);

	if (unit_failures)
		fprintf(stderr, "perf-api: %d failures\n", unit_failures);
	else
		printf("perf-api: all checks passed\n");
	return unit_failures != 0;
}

/* oom.c - fails the Nth allocation (N = 1, 2, ...) while each of the
 * multi-line parsers (perf-report ... sample) reads a sample input:
 * every failure must come back as an error (never a crash, never a silently
 * smaller profile); under SANITIZE=1 LeakSanitizer checks those paths leak nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flamekit.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t a, size_t b);
void *__real_realloc(void *p, size_t n);

static long countdown = -1; /* fail when it reaches 0; -1 = never */
static long calls;

static int should_fail(void)
{
	calls++;
	return countdown >= 0 && countdown-- == 0;
}
void *__wrap_malloc(size_t n) { return should_fail() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t a, size_t b) { return should_fail() ? NULL : __real_calloc(a, b); }
void *__wrap_realloc(void *p, size_t n) { return should_fail() ? NULL : __real_realloc(p, n); }

static void quiet(enum fk_level l, const char *m, void *c) { (void)l; (void)m; (void)c; }

static const struct { const char *fmt, *text; } inputs[] = {
	{ "perf-report",
	  "# Samples: 3K of event 'cpu-clock:ppp'\n"
	  "# Overhead  Command  Shared Object      Symbol\n"
	  "# ........  .......  .................  ..............\n"
	  "    58.19%  prog     prog               [.] leaf_a\n"
	  "1039 __libc_start_call_main;leaf_a\n873 start_thread;worker;leaf_a\n"
	  "    40.84%  prog     prog               [.] leaf_b\n1342 start_thread;worker;leaf_b\n" },
	{ "stap",
	  " 0xffffffff8103ce3b : native_safe_halt+0xb/0x10 [kernel]\n"
	  " 0xffffffff8101c6a3 : default_idle+0x53/0x1d0 [kernel]\n\t2404\n"
	  " 0x00000000004005d4 : main+0x1c/0x30 [/tmp/a.out]\n\t7\n" },
	{ "gdb",
	  "Thread 2 (Thread 0x7f2b (LWP 17029) \"napper\"):\n"
	  "#0  0x00007f2b92ccd545 in __GI___clock_nanosleep (a=1) at x.c:48\n"
	  "#1  0x0000556a3a66b273 in work::sleeper (ms=7) at mt.cc:15\n"
	  "#2  napper () at mt.cc:18\n\n"
	  "Thread 1 (Thread 0x7f2c (LWP 17027) \"mt\"):\n"
	  "#0  0x0000556a3a66b3ac in main () at mt.cc:24\n" },
	{ "dtrace",
	  "CPU     ID                    FUNCTION:NAME\n  0  64091  :tick-60s\n\n"
	  "              libc.so.1`_lwp_park+0x15\n              libc.so.1`_lwp_start\n"
	  "             1641\n\n              a.out`ns::Foo<int>::bar(int)+0x12\n               12\n" },
	{ "bpftrace",
	  "Attaching 1 probe...\n\n@[\n    handle_softirqs+114\n, \n    leaf_b+41\n"
	  "    start_thread+773\n]: 1\n@[, \n    leaf_a+25\n]: 4\n@[prog, ]: 3\n" },
	{ "eu-stack",
	  "PID 11805 - process\nTID 11805:\n#0  0x00007fcd20c28545 clock_nanosleep\n"
	  "#1  0x00005589721df1a7 main\nTID 11807:\n#0  0x00005589721df155 leaf_a\n"
	  "#1  0x00005589721df171\n#2  0x00007fcd20be21f5 start_thread\n" },
	{ "pprof-raw",
	  "Samples:\nsamples/count cpu/nanoseconds\n   11  110000000: 1 2 3 \n    8   80000000: 4 3 \n"
	  "Locations\n     1: 0x4613c0 M=1 runtime.asyncPreempt a.s:7 s=0\n"
	  "     2: 0x4a88ee M=1 main.leafA main.go:18 s=0\n     3: 0x4a8a54 M=1 main.main main.go:47 s=0\n"
	  "     4: 0x4a8913 M=1 main.leafB main.go:24 s=0\nMappings\n" },
	{ "jstack",
	  "\"worker-1\" #13 prio=5 os_prio=0 tid=0x7f50 nid=0x79f0 runnable  [0x7f50]\n"
	  "   java.lang.Thread.State: RUNNABLE\n\tat Spin.leaf(Spin.java:3)\n\tat Spin.work(Spin.java:4)\n\n"
	  "\"main\" #1 prio=5 os_prio=0 tid=0x7f50 nid=0x7857 in Object.wait()  [0x7f50]\n"
	  "   java.lang.Thread.State: WAITING (on object monitor)\n\tat java.lang.Object.wait(Native Method)\n\n" },
	{ "sample",
	  "Call graph:\n    2451 Thread_1\n    + 2451 start  (in libdyld.dylib) + 1  [0x7fff6a0d4cc9]\n"
	  "    +   2400 main  (in Finder) + 53  [0x10b7c1b35]\n    +     30 work  (in Finder) + 5  [0x1]\n"
	  "    +   51 mach_msg_trap  (in libsystem_kernel.dylib) + 10  [0x7fff6a20b22a]\n"
	  "Total number in stack (recursive counted multiple times):\n" },
};

/* Parse one input into a fresh profile and write its folded text into out.
 * 0 if everything succeeded, 1 if something reported a failure. */
static int scenario(const char *fmt, const char *text, char *out, size_t outsz)
{
	fk_profile *p = fk_profile_new(FK_PROFILE_SAMPLES);
	if (!p)
		return 1;
	fk_parse_opts o;
	fk_parse_opts_init(&o);
	o.format = fmt;
	int failed = fk_parse_buffer(p, text, strlen(text), &o, NULL) != 0;
	FILE *mem = fmemopen(out, outsz, "w");
	if (!failed && (!mem || fk_profile_write_folded(p, mem)))
		failed = 1;
	if (mem)
		fclose(mem);
	fk_profile_free(p);
	return failed;
}

int main(void)
{
	fk_set_print(quiet, NULL);
	static char good[4096], got[4096];
	for (size_t k = 0; k < sizeof(inputs) / sizeof(inputs[0]); k++) {
		const char *fmt = inputs[k].fmt;
		countdown = -1;
		calls = 0;
		memset(good, 0, sizeof(good));
		if (scenario(fmt, inputs[k].text, good, sizeof(good)) || !good[0]) {
			fprintf(stderr, "oom: %s: fails without injected failures\n", fmt);
			return 1;
		}
		long total = calls, reported = 0;
		for (long n = 0; n < total; n++) {
			countdown = n;
			memset(got, 0, sizeof(got));
			int failed = scenario(fmt, inputs[k].text, got, sizeof(got));
			countdown = -1;
			if (failed)
				reported++;
			else if (strcmp(good, got)) {
				fprintf(stderr, "oom: %s: allocation %ld failed silently: wrong output\n", fmt, n);
				return 1;
			}
		}
		if (!reported) {
			fprintf(stderr, "oom: %s: no injected failure was reported\n", fmt);
			return 1;
		}
		printf("oom: %s: %ld allocations failed one at a time, %ld reported, no crash\n",
		       fmt, total, reported);
	}
	return 0;
}

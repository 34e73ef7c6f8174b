/* perf-flame.c - `perf flame`: records with flame-graph defaults and renders
 * perf.data through flamekit-dlfilter.so inside `perf script`, or through
 * perf script text and the core's parser for --call-graph dwarf recordings. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "flamekit.h"
#include "dlfilter.h"

const char *fkd_prog = "perf flame";

static void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("perf flame: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* argv building: out of memory ends the program */
static void push(fkp_argv *a, const char *s)
{
	if (fkp_argv_push(a, s)) {
		err("out of memory");
		exit(1);
	}
}

static const char *perf_bin(void)
{
	const char *p = getenv("PERF");
	return p && *p ? p : "perf";
}

/* perf_file_header of a perf.data file (tools/perf/util/header.h). */
struct pf_section {
	uint64_t offset, size;
};
struct pf_header {
	char magic[8];
	uint64_t size, attr_size;
	struct pf_section attrs, data, event_types;
};

/* ------------------------------------------------------------ stop and draw
 * A recording run (record, or record then report) is one fkp_policy run of
 * children in sequence (prog.h, docs/exit-status.md): SIGINT, SIGTERM or SIGHUP
 * while perf record runs stops it (perf's SIGINT ends the workload and writes the
 * file) and the samples are drawn; a second signal, at any time after (during
 * perf script or between the children), aborts and nothing is drawn. */

static const char *sig_name(int sig)
{
	static char buf[32];
	const char *a = sigabbrev_np(sig);
	if (a)
		snprintf(buf, sizeof(buf), "SIG%s", a);
	else
		snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}

static bool aborted(void)
{
	if (!fkp_aborted())
		return false;
	err("stopped by a second signal: nothing drawn");
	return true;
}

/* perf record, then the drawing: a first request after it no longer stops a child */
static int record_run(char *const argv[])
{
	pid_t pid = fkp_spawn(argv, -1, NULL, false);
	int rc = pid < 0 ? -1 : fkp_wait(pid);
	fkp_policy_drawing();
	return rc;
}

/* Whether path is a recording of this run: a new file (not the one that was
 * there before: perf record moves that to .old) with its final header, whose
 * data section perf fills in only when it ends properly. */
static bool recorded(const char *path, const struct stat *before)
{
	struct stat sb;
	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
		return false;
	if (before && before->st_dev == sb.st_dev && before->st_ino == sb.st_ino &&
	    before->st_mtim.tv_sec == sb.st_mtim.tv_sec && before->st_mtim.tv_nsec == sb.st_mtim.tv_nsec)
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct pf_header h;
	ssize_t got = read(fd, &h, sizeof(h));
	close(fd);
	return got == (ssize_t)sizeof(h) && !memcmp(h.magic, "PERFILE2", 8) &&
	       h.size >= sizeof(h) && h.data.size > 0 && h.data.offset + h.data.size <= (uint64_t)sb.st_size;
}

/* ------------------------------------------------------------ record */

struct rec_opts {
	bool offcpu, combined, offwake, have_freq, have_cg, have_target, have_output;
	const char *output;
	const char *event;            /* the last -e EVENT given */
	const char *weight;           /* --weight FIELD: checked against event's format */
	const struct preset *preset;  /* --io/--mem */
	bool probe_added;             /* --mem malloc added probe_libc:malloc */
	const char *default_output;   /* -o for perf record when none was given */
};

/* perf record options that take a separate value (so "-- cmd" detection and
 * our defaults see the right words). */
static bool takes_value(const char *a)
{
	static const char *const with_val[] = { "-e", "--event", "-F", "--freq", "-c", "--count",
		"-o", "--output", "-p", "--pid", "-t", "--tid", "-C", "--cpu", "-m", "--mmap-pages",
		"--call-graph", "-G", "--cgroup", "-u", "--uid", "--filter", "--exclude-perf",
		"-r", "--realtime", "--clockid", "-k", "--user-regs", "--intr-regs", "--switch-output",
		"--max-size", "--affinity", "--delay", "-D", "--aio", "--mmap-flush", "--compression-level",
		"--per-thread", NULL };
	for (size_t i = 0; with_val[i]; i++)
		if (strcmp(a, with_val[i]) == 0)
			return strcmp(a, "--per-thread") != 0;
	return false;
}

static void note_record_opt(struct rec_opts *r, const char *a, const char *val)
{
	if (!strcmp(a, "-F") || !strcmp(a, "--freq") || !strcmp(a, "-c") || !strcmp(a, "--count") ||
	    !strncmp(a, "--freq=", 7) || !strncmp(a, "--count=", 8) ||
	    (!strncmp(a, "-F", 2) && a[2]) || (!strncmp(a, "-c", 2) && a[2] >= '0' && a[2] <= '9'))
		r->have_freq = true;
	if (!strcmp(a, "-g") || !strcmp(a, "--call-graph") || !strncmp(a, "--call-graph=", 13))
		r->have_cg = true;
	if (!strcmp(a, "-a") || !strcmp(a, "--all-cpus") || !strcmp(a, "-p") || !strcmp(a, "--pid") ||
	    !strcmp(a, "-t") || !strcmp(a, "--tid") || !strcmp(a, "-C") || !strcmp(a, "--cpu") ||
	    !strcmp(a, "-u") || !strcmp(a, "--uid"))
		r->have_target = true;
	if ((!strcmp(a, "-e") || !strcmp(a, "--event")) && val)
		r->event = val;
	else if (!strncmp(a, "--event=", 8))
		r->event = a + 8;
	if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
		r->have_output = true;
		r->output = val;
	}
}

/* --io and --mem: one word for an event and the field that weighs it. */
struct preset {
	const char *opt, *word, *event, *field;  /* field NULL: each event weighs 1 */
	const char *what;
};
static const struct preset presets[] = {
	{ "--io", "read", "syscalls:sys_exit_read", "ret", "bytes returned by read(2), by stack" },
	{ "--io", "write", "syscalls:sys_exit_write", "ret", "bytes returned by write(2), by stack" },
	{ "--io", "block", "block:block_rq_issue", "bytes",
	  "bytes of block I/O requests issued to devices, by the issuing stack" },
	{ "--mem", "kmalloc", "kmem:kmalloc", "bytes_alloc", "bytes the kernel allocated (kmalloc), by stack" },
	{ "--mem", "malloc", "probe_libc:malloc", "size",
	  "bytes asked of libc malloc (a uprobe on its size argument), by stack" },
	{ "--mem", "page-faults", "page-faults", NULL, "page faults, 1 each, by the faulting stack" },
};
#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

/* --io WORD / --mem WORD (or --io=WORD): 1 = taken (*i past the value), 0 = not one,
 * -1 = an unknown word (said). */
static int preset_option(struct rec_opts *r, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *word = NULL;
	size_t ol = !strncmp(a, "--io", 4) ? 4 : !strncmp(a, "--mem", 5) ? 5 : 0;
	if (!ol || (a[ol] && a[ol] != '='))
		return 0;
	if (a[ol] == '=')
		word = a + ol + 1;
	else if (*i + 1 < argc)
		word = argv[++*i];
	for (size_t k = 0; word && k < NPRESETS; k++)
		if (!strncmp(presets[k].opt, a, ol) && !presets[k].opt[ol] && !strcmp(presets[k].word, word)) {
			r->preset = &presets[k];
			return 1;
		}
	err("%.*s needs one of:%s", (int)ol, a,
	    ol == 4 ? " read (bytes read), write (bytes written), block (block I/O bytes issued)"
		    : " kmalloc (kernel bytes), malloc (libc malloc bytes, a uprobe), page-faults");
	return -1;
}

/* libc's path, as the dynamic loader of this program found it */
static int libc_path(char *out, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int rc = -1;
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');
		char *base = p ? strrchr(p, '/') : NULL;
		if (base && !strncmp(base, "/libc.so", 8)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, size, "%s", p);
			rc = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	return rc;
}

/* --mem malloc: probe_libc:malloc with its size argument, by name from debug
 * info, else by the x86-64 calling convention's first register. */
static int add_malloc_probe(struct rec_opts *r)
{
	if (access("/sys/kernel/tracing/events/probe_libc/malloc/format", R_OK) == 0 ||
	    access("/sys/kernel/debug/tracing/events/probe_libc/malloc/format", R_OK) == 0)
		return 0;
	char libc[1024];
	if (libc_path(libc, sizeof(libc))) {
		err("--mem malloc: cannot find libc in this process's maps");
		return -1;
	}
	static const char *const specs[] = { "malloc size", "malloc size=%di:u64" };
	for (size_t k = 0; k < 2; k++) {
		fkp_argv v = { 0 };
		push(&v, perf_bin());
		push(&v, "probe");
		push(&v, "-q");
		push(&v, "-x");
		push(&v, libc);
		push(&v, specs[k]);
		pid_t pid = fkp_spawn(v.v, -1, NULL, false);
		int rc = pid < 0 ? -1 : fkp_wait(pid);
		fkp_argv_free(&v);
		if (rc == 0) {
			r->probe_added = true;
			return 0;
		}
	}
	err("--mem malloc: perf probe -x %s 'malloc size' failed (root, and uprobes in the "
	    "kernel, are needed)", libc);
	return -1;
}

static void drop_malloc_probe(struct rec_opts *r)
{
	if (!r->probe_added)
		return;
	char *const v[] = { (char *)perf_bin(), "probe", "-q", "-d", "probe_libc:malloc", NULL };
	pid_t pid = fkp_spawn(v, -1, NULL, false);
	if (pid > 0)
		fkp_wait(pid);
	r->probe_added = false;
}

/* --weight FIELD of EVENT: refused before anything is recorded when the event's
 * format has no such field (the message names the fields it has). */
static int check_weight(const char *event, const char *field, const char *format)
{
	if (!event) {
		err("--weight %s: which event? give -e EVENT (a tracepoint or probe)", field);
		return 2;
	}
	char msg[1024];
	fk_tp_format *t = fk_tp_format_load(event, format, msg, sizeof(msg));
	if (!t) {
		err("--weight %s: %s", field, msg);
		return 2;
	}
	int k = fk_tp_format_field(t, field);
	if (k < 0) {
		char fields[1024];
		fk_tp_format_fields(t, fields, sizeof(fields));
		err("--weight %s: event %s has no numeric field %s; its fields: %s", field, event,
		    field, fields);
	}
	fk_tp_format_free(t);
	return k < 0 ? 2 : 0;
}

/* Build and run perf record. args: perf record options, then optionally
 * "--" and a command. */
static int do_record(struct rec_opts *r, char **args, int n)
{
	fkp_argv v = { 0 };
	push(&v, perf_bin());
	push(&v, "record");
	int i;
	for (i = 0; i < n && strcmp(args[i], "--") != 0; i++) {
		const char *val = takes_value(args[i]) && i + 1 < n ? args[i + 1] : NULL;
		note_record_opt(r, args[i], val);
		if (val)
			i++;
	}
	if (r->preset) {
		if (r->event) {
			err("%s %s chooses the event (%s): drop -e", r->preset->opt, r->preset->word,
			    r->preset->event);
			return 2;
		}
		if (r->preset->field && !strcmp(r->preset->event, "probe_libc:malloc") &&
		    add_malloc_probe(r))
			return 1;
		r->event = r->preset->event;
		if (r->preset->field && !r->weight)
			r->weight = r->preset->field;
		push(&v, "-e");
		push(&v, r->preset->event);
	}
	if (r->weight) {
		int rc = check_weight(r->event, r->weight, NULL);
		if (rc) {
			drop_malloc_probe(r);
			return rc;
		}
	}
	if (r->offwake)
		r->offcpu = true;
	if (r->offcpu || r->combined) {
		if (r->have_freq) {
			err("--off-cpu/--combined choose the sampling themselves: drop -F/-c");
			return 2;
		}
		/* sched_switch only shows a thread's switch-in in the context of the
		 * task it replaces: pairing out with in needs every CPU (-a). */
		if (!r->have_target)
			push(&v, "-a");
		if (r->combined)
			push(&v, "-e"), push(&v, "cpu-clock/freq=99/");
		push(&v, "-e");
		push(&v, "sched:sched_switch");
		/* fired in the waker's context: its callchain is the waker's stack
		 * (sched_wakeup is not when the wakeup completes in the wakee CPU's
		 * interrupt, through its wake list: the idle task's context there) */
		if (r->offwake)
			push(&v, "-e"), push(&v, "sched:sched_waking");
		if (!r->have_cg)
			push(&v, "-g");
	} else {
		/* events weighed by a field, and presets, count every event */
		if (!r->have_freq)
			push(&v, r->weight || r->preset ? "-c" : "-F"), push(&v, r->weight || r->preset ? "1" : "99");
		if (!r->have_cg)
			push(&v, "-g");
	}
	/* always a file: with stdout a pipe (`perf flame ... | tee log`) perf record
	 * would write the recording into the pipe */
	if (!r->have_output) {
		push(&v, "-o");
		push(&v, r->default_output ? r->default_output : "perf.data");
	}
	for (int j = 0; j < n; j++)
		push(&v, args[j]);
	const char *out = r->have_output ? r->output : r->default_output ? r->default_output : "perf.data";
	struct stat before;
	bool existed = out && stat(out, &before) == 0;
	int rc = record_run(v.v);
	fkp_argv_free(&v);
	if (aborted())
		return 1;
	if (rc < 0)
		return 1;
	int stop_signal = fkp_stop_signal();
	if (rc == 0 && !stop_signal)
		return 0;
	/* perf record exits with its workload's status: a workload that failed or
	 * was stopped still left every sample in the file. Only a recording that
	 * is missing, from before this run, or without its final header is perf's
	 * own failure. */
	if (!out || !strcmp(out, "-") || !recorded(out, existed ? &before : NULL)) {
		err("perf record failed (exit status %d)%s", rc,
		    out && strcmp(out, "-") ? ": no complete recording written" : "");
		return 1;
	}
	if (stop_signal)
		fprintf(stderr, "perf flame: recording stopped by %s\n", sig_name(stop_signal));
	else if (rc > 128 && rc < 128 + 65)
		fprintf(stderr, "perf flame: the workload was ended by %s (status %d)\n",
			sig_name(rc - 128), rc);
	else
		fprintf(stderr, "perf flame: the workload exited with status %d\n", rc);
	return 0;
}

/* ------------------------------------------------------------ report */

struct rep_opts {
	struct fkd_opts o;
	fkp_argv dlargs;          /* KEY=VALUE strings given to the dlfilter */
	fkp_argv script_args;     /* extra perf script options after "--" */
	const char *input, *output;
	bool text, quiet, count_samples;
};

/* report's own options; the others are the dlfilter's (opts.c) */
#define ROFF(f) offsetof(struct rep_opts, f)
static const fk_option rep_rows[] = {
	{ "input", NULL, 'i', FK_OPT_TEXT, 0, ROFF(input), 0, 0, NULL, "FILE",
	  "perf.data to read (default perf.data; - = a pipe-mode stream on stdin, as perf record -o - writes)", NULL },
	{ "output", NULL, 'o', FK_OPT_TEXT, 0, ROFF(output), 0, 0, NULL, "FILE",
	  "SVG flame graph (default flame.svg unless --folded/--samples; = svg=FILE); "
	  "FILE.html: the HTML viewer page (flamekit html); FILE.pb.gz: pprof; "
	  "FILE.speedscope.json: speedscope", NULL },
	{ "text", NULL, 0, FK_OPT_FLAG, 0, ROFF(text), 0, 0, NULL, NULL,
	  "always use the perf script text path", NULL },
	{ "quiet", NULL, 'q', FK_OPT_FLAG, 0, ROFF(quiet), 0, 0, NULL, NULL,
	  "no note about the path used", NULL },
	{ "count-samples", NULL, 0, FK_OPT_FLAG, FK_OPTF_HIDDEN, ROFF(count_samples), 0, 0, NULL,
	  NULL, "count samples instead of summing periods (= --count samples)", NULL },
};
#define NREP (sizeof(rep_rows) / sizeof(rep_rows[0]))

static void rep_sets(fkp_optset sets[1 + FKD_NSETS], struct rep_opts *r)
{
	sets[0] = (fkp_optset){ rep_rows, NREP, r, NULL, NULL };
	fkd_optsets(sets + 1, &r->o);
}

/* Each option checked by the parser is passed on to the dlfilter as KEY=VALUE. */
static int forward(void *ctx, const fk_option *row, const char *value)
{
	struct rep_opts *r = ctx;
	int rc = 0;
	if (row >= rep_rows && row < rep_rows + NREP) {
		if (!strcmp(row->name, "output")) {
			r->o.svg_path = value;
			rc = fkp_argv_pushf(&r->dlargs, "svg=%s", value);
		} else if (!strcmp(row->name, "count-samples")) {
			r->o.count_samples = true;
			rc = fkp_argv_push(&r->dlargs, "count=samples");
		}
	} else {
		rc = fkp_argv_pushf(&r->dlargs, "%s%s%s", row->name, value ? "=" : "",
				    value ? value : "");
	}
	if (rc)
		err("out of memory");
	return rc;
}

/* 1 = consumed (i advanced past its value), 0 = not a report option, -1 = error.
 * exact: no abbreviations (perf record's options pass through beside ours). */
static int report_option(struct rep_opts *r, int argc, char **argv, int *i, bool exact)
{
	fkp_optset sets[1 + FKD_NSETS];
	rep_sets(sets, r);
	fkp_parser p = { sets, 1 + FKD_NSETS, NULL, forward, r, exact };
	return fkp_opt_one(&p, argc, argv, i);
}

static void usage(FILE *out)
{
	fputs(
"usage: perf flame record [--off-cpu | --combined | --off-wake | --io WHAT | --mem WHAT | -e EVENT --weight FIELD]\n"
"                         [perf record options] [-- command [args]]\n"
"       perf flame report [-i perf.data] [-o flame.svg] [--folded FILE] [options] [-- perf script options]\n"
"       perf flame [record and report options] -- command [args]   (record, then report)\n"
"\n"
"record: runs `perf record -F 99 -g -o perf.data` (an odd rate avoids lockstep with timers)\n"
"  unless -F/-c/--freq/--count, -g/--call-graph or -o are given. Other options pass to\n"
"  perf record.\n"
"  --off-cpu    record sched:sched_switch with callchains, system-wide (-a): off-CPU time\n"
"  --combined   record cpu-clock at 99 Hz and sched:sched_switch: on- and off-CPU time\n"
"  --off-wake   record sched:sched_switch and sched:sched_waking with callchains (-a):\n"
"               blocked time by the blocked stack and, above a -- frame, the waker's\n"
"  --weight FIELD  with -e EVENT (a tracepoint or probe): every event, weighed by its\n"
"               FIELD (checked against the event's format before recording)\n"
"  --io read|write|block    bytes read(2), written(2), or issued as block I/O, by stack\n"
"  --mem kmalloc|malloc|page-faults  kernel bytes allocated, libc malloc bytes (a uprobe\n"
"               on malloc's size), page faults (1 each); see docs/resource-graphs.md\n"
"\n"
"report: folds perf.data inside `perf script` with flamekit-dlfilter.so. Recordings made\n"
"  with --call-graph dwarf go through `perf script` text instead (a dlfilter cannot see\n"
"  their user frames); a note says which path ran. Every option below is checked before\n"
"  anything is recorded or read; each is also a --dlarg KEY=VALUE of the dlfilter.\n", out);
	struct rep_opts r;
	fkp_optset sets[1 + FKD_NSETS];
	rep_sets(sets, &r);
	fkp_opt_help(out, &sets[0]);
	for (int i = 1; i <= FKD_NSETS; i++)
		fkp_opt_help(out, &sets[i]);
	fputs(
"\n"
"environment: PERF (perf binary), FLAMEKIT_DLFILTER (path of flamekit-dlfilter.so)\n"
"`perf help flame` shows the manual page.\n", out);
}

/* Where flamekit-dlfilter.so is: $FLAMEKIT_DLFILTER, beside this program
 * (build tree), or PREFIX/lib/flamekit for an installed PREFIX/bin/perf-flame. */
static char *find_dlfilter(void)
{
	const char *env = getenv("FLAMEKIT_DLFILTER");
	if (env && *env)
		return strdup(env);
	static const char *const rel[] = { "flamekit-dlfilter.so",
					   "../lib/flamekit/flamekit-dlfilter.so" };
	return fkp_find_beside_exe(rel, 2);
}

#define SAMPLE_STACK_USER (1ull << 13)

/* 1 if some event of the recording samples user stacks (--call-graph dwarf),
 * 0 if none, -1 after printing an error (unreadable or not perf.data). */
static int recording_is_dwarf(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	struct stat sb;
	struct pf_header h;
	ssize_t got = read(fd, &h, sizeof(h));
	if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		close(fd);
		err("%s is a directory (perf record --threads output is not supported)", path);
		return -1;
	}
	if (got < 16 || memcmp(h.magic, "PERFILE2", 8) != 0) {
		close(fd);
		err("%s is not a perf.data file (%s)", path,
		    got < 0 ? strerror(errno) : got < 16 ? "too short" : "bad magic");
		return -1;
	}
	if (h.size == 16) {
		/* Pipe-mode file: attributes are inside the stream; ask perf. */
		close(fd);
		return -2;
	}
	if (got < (ssize_t)sizeof(h) || h.attr_size < 32 || h.attr_size > 4096 ||
	    h.attrs.size % h.attr_size != 0 || h.attrs.offset + h.attrs.size > (uint64_t)sb.st_size) {
		close(fd);
		err("%s: corrupt perf.data header", path);
		return -1;
	}
	int dwarf = 0;
	for (uint64_t off = h.attrs.offset; off < h.attrs.offset + h.attrs.size; off += h.attr_size) {
		uint64_t st;
		/* perf_event_attr: type u32, size u32, config u64, sample_period u64, sample_type u64 */
		if (pread(fd, &st, sizeof(st), (off_t)(off + 24)) != (ssize_t)sizeof(st)) {
			err("%s: truncated perf.data header", path);
			close(fd);
			return -1;
		}
		if (st & SAMPLE_STACK_USER)
			dwarf = 1;
	}
	close(fd);
	return dwarf;
}

/* Pipe-mode files: perf evlist -v prints each event's sample_type names. */
static int dwarf_via_evlist(const char *path)
{
	char *argv[] = { (char *)perf_bin(), "evlist", "-v", "-i", (char *)path, NULL };
	int fd;
	pid_t pid = fkp_spawn(argv, FKP_PIPE, &fd, false);
	if (pid < 0)
		return -1;
	FILE *f = fdopen(fd, "r");
	char line[4096];
	int dwarf = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "STACK_USER"))
			dwarf = 1;
	if (f)
		fclose(f);
	else
		close(fd);
	if (fkp_wait(pid) != 0) {
		err("perf evlist -v -i %s failed", path);
		return -1;
	}
	return dwarf;
}

/* The input as messages name it. */
static const char *shown(const char *input)
{
	return strcmp(input, "-") ? input : "standard input";
}

/* Read exactly n more bytes of standard input onto *buf. 0, or -1 at EOF/error. */
static int take(unsigned char **buf, size_t *len, size_t *cap, size_t n)
{
	if (fkp_grow((void **)buf, cap, *len + n, 1))
		return -1;
	while (n) {
		ssize_t k = read(0, *buf + *len, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		*len += (size_t)k;
		n -= (size_t)k;
	}
	return 0;
}

static pid_t feeder = -1;

/* -i -: a pipe-mode recording on standard input (perf record -o - | ...). Its
 * event attributes (PERF_RECORD_HEADER_ATTR) come first in the stream: they are
 * read here to choose the path, then perf script gets the whole stream on its
 * standard input through a pipe from a child that writes what was read and
 * copies the rest as it comes (no temporary copy of the recording). 1 if an
 * event samples user stacks, 0 if not, -1 after a message. */
static int stdin_is_dwarf(void)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	int dwarf = 0;
	uint64_t hsize;
	if (take(&buf, &len, &cap, 16) || memcmp(buf, "PERFILE2", 8)) {
		err("standard input is not a perf.data stream (%s)",
		    len < 16 ? "too short" : "bad magic");
		goto bad;
	}
	memcpy(&hsize, buf + 8, 8);
	if (hsize != 16) {
		err("standard input holds a perf.data file, not a pipe-mode stream: give it "
		    "as -i FILE");
		goto bad;
	}
	for (unsigned nattr = 0; len < (1u << 20);) {
		size_t at = len;
		if (take(&buf, &len, &cap, 8))
			break;   /* a stream that ends here: perf script says what it makes of it */
		uint32_t type;
		uint16_t size;
		memcpy(&type, buf + at, 4);
		memcpy(&size, buf + at + 6, 2);
		if (size < 8 || take(&buf, &len, &cap, size - 8u))
			break;
		if (type != 64 /* PERF_RECORD_HEADER_ATTR */) {
			if (nattr)
				break;
			continue;
		}
		nattr++;
		/* perf_event_attr follows the header: sample_type at byte 24 */
		uint64_t st;
		if (size >= 8 + 32) {
			memcpy(&st, buf + at + 8 + 24, 8);
			if (st & SAMPLE_STACK_USER)
				dwarf = 1;
		}
	}
	int pfd[2];
	if (pipe(pfd) < 0) {
		err("pipe: %s", strerror(errno));
		goto bad;
	}
	fflush(NULL);
	feeder = fork();
	if (feeder < 0) {
		err("fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		goto bad;
	}
	if (feeder == 0) {
		/* the policy's handlers are perf flame's, not the copier's */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		close(pfd[0]);
		char copy[65536];
		ssize_t k = 0;
		for (size_t off = 0; off < len; off += (size_t)k)
			if ((k = write(pfd[1], buf + off, len - off)) <= 0 && errno != EINTR)
				_exit(1);
			else if (k < 0)
				k = 0;
		while ((k = read(0, copy, sizeof(copy))) != 0) {
			if (k < 0 && errno == EINTR)
				continue;
			if (k < 0)
				_exit(1);
			for (ssize_t off = 0, w; off < k; off += w)
				if ((w = write(pfd[1], copy + off, (size_t)(k - off))) < 0) {
					if (errno != EINTR)
						_exit(1);
					w = 0;
				}
		}
		_exit(0);
	}
	close(pfd[1]);
	dup2(pfd[0], 0);
	close(pfd[0]);
	free(buf);
	return dwarf;
bad:
	free(buf);
	return -1;
}

/* The feeder of -i - is done with once perf script ended (it may be waiting on
 * a writer that goes on: the reader is gone). */
static void feeder_end(void)
{
	if (feeder <= 0)
		return;
	close(0);
	kill(feeder, SIGKILL);
	while (waitpid(feeder, NULL, 0) < 0 && errno == EINTR)
		;
	feeder = -1;
}

/* The reader of standard output (| head -1) or of a FIFO output closed it: the
 * job ends quietly, status 0 (docs/exit-status.md). */
static bool reader_gone(int rc)
{
	return rc == -FK_E_WRITE && errno == EPIPE;
}

static int write_one(const char *path, const fk_profile *p, const struct fkd_opts *o, int what)
{
	fkp_out out;
	if (fkp_out_open(&out, path))
		return -1;
	int rc = what == 0 ? fk_profile_write_folded(p, out.f)
		 : what == 1 ? fk_profile_write_samples(p, out.f)
			     : fk_render_for_path(p, &o->svg, path, out.f); /* .html: the page */
	if (rc == 0 && (fflush(out.f) || ferror(out.f)))
		rc = -FK_E_WRITE;
	if (reader_gone(rc)) {
		clearerr(out.f);
		fkp_out_close(&out, false);
		return 2;
	}
	if (rc < 0)
		err("writing %s: %s", path, fk_strerror(rc));
	return fkp_out_close(&out, rc == 0) || rc ? -1 : 0;
}

/* The path for --call-graph dwarf: perf unwinds user stacks only while
 * printing, so read `perf script` text through the core's perf parser. */
static int report_text(struct rep_opts *r)
{
	struct fkd_opts *o = &r->o;
	if (o->kernel_only || o->user_only || o->mode == MODE_OFFCPU || o->mode == MODE_OFFWAKE ||
	    o->exact_ret ||
	    o->sched_format || o->offcpu_min_ns || o->blocked_only) {
		err("the perf script text path folds on-CPU samples only: kernel-only, user-only "
		    "and the off-CPU options need a frame-pointer (-g) recording");
		return 2;
	}
	fk_parse_opts po = o->popts;
	po.format = "perf";
	po.name = "perf script";
	po.pid = o->pid;
	po.tid = o->tid;
	po.samples = o->count_samples;
	po.event_filter = o->event;
	po.weight = o->weight;
	po.weight_format = o->weight_format;
	unsigned flags = fkd_needs_samples(o) ? FK_PROFILE_SAMPLES : 0;
	fk_profile *p = fk_profile_new(flags);
	if (!p) {
		err("out of memory");
		return 1;
	}
	fkp_argv v = { 0 };
	push(&v, perf_bin());
	push(&v, "script");
	push(&v, "-i");
	push(&v, r->input);
	for (size_t i = 0; i < r->script_args.n; i++)
		push(&v, r->script_args.v[i]);
	int fd;
	pid_t pid = fkp_spawn(v.v, FKP_PIPE, &fd, false);
	fkp_argv_free(&v);
	if (pid < 0) {
		aborted();
		fk_profile_free(p);
		return 1;
	}
	fk_parse_stats st;
	int prc = fk_parse_fd(p, fd, &po, &st);
	close(fd);
	int status = fkp_wait(pid);
	feeder_end();
	if (aborted()) {
		fk_profile_free(p);
		return 1;
	}
	if (status != 0) {
		err("perf script -i %s failed (status %d): nothing written", r->input, status);
		fk_profile_free(p);
		return 1;
	}
	if (prc < 0 && prc != -FK_E_SKIPPED) {
		err("reading perf script output: %s", fk_strerror(prc));
		fk_profile_free(p);
		return 1;
	}
	if (fk_profile_total(p, 0) <= 0) {
		err("%s: no samples were folded: nothing written", shown(r->input));
		fk_profile_free(p);
		return 1;
	}
	/* our own writes to a closed stdout end quietly (write_one), not by SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	int rc = 0;
	if (o->folded)
		rc = write_one(o->folded, p, o, 0);
	if (!rc && o->samples)
		rc = write_one(o->samples, p, o, 1);
	if (!rc && o->svg_path)
		rc = write_one(o->svg_path, p, o, 2);
	fk_profile_free(p);
	if (rc)
		return rc == 2 ? 0 : 1;
	return prc == -FK_E_SKIPPED ? 3 : 0;
}

static bool is_stdout(const char *path)
{
	return path && (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"));
}

static int report_dlfilter(struct rep_opts *r, const char *so)
{
	/* perf calls the filter's stop() even when it failed half way through a
	 * broken perf.data, and ignores what stop() returns: so the filter writes
	 * to temporary names, renamed here only once perf exited 0. */
	fkp_argv v = { 0 }, tmps = { 0 }, finals = { 0 };
	push(&v, perf_bin());
	push(&v, "script");
	push(&v, "-i");
	push(&v, r->input);
	push(&v, "--dlfilter");
	push(&v, so);
	for (size_t i = 0; i < r->dlargs.n; i++) {
		const char *a = r->dlargs.v[i];
		const char *eq = strchr(a, '=');
		push(&v, "--dlarg");
		if (eq && strcmp(eq + 1, "-") != 0 && fkp_out_is_regular(eq + 1) &&
		    (!strncmp(a, "svg=", 4) || !strncmp(a, "folded=", 7) || !strncmp(a, "samples=", 8))) {
			/* the part file keeps a .html (.pb.gz, .speedscope.json) ending: the
			 * dlfilter picks the view by name */
			int kind = fk_export_for_path(eq + 1);
			if (fkp_argv_pushf(&tmps, "%s.part.%ld%s", eq + 1, (long)getpid(),
					   kind == FK_EXPORT_PPROF ? ".pb.gz" : kind == FK_EXPORT_SPEEDSCOPE ?
					   ".speedscope.json" : fk_output_is_html(eq + 1) ? ".html" : "") ||
			    fkp_argv_pushf(&v, "%.*s=%s", (int)(eq - a), a, tmps.v[tmps.n - 1])) {
				err("out of memory");
				exit(1);
			}
			push(&finals, eq + 1);
		} else {
			push(&v, a);
		}
	}
	for (size_t i = 0; i < r->script_args.n; i++)
		push(&v, r->script_args.v[i]);
	pid_t pid = fkp_spawn(v.v, -1, NULL, false);
	int rc = pid < 0 ? -1 : fkp_wait(pid);
	feeder_end();
	if (aborted())
		rc = 1;
	/* perf killed by SIGPIPE writing to our stdout: the reader chose to stop */
	bool quiet = rc == 128 + SIGPIPE && (is_stdout(r->o.folded) || is_stdout(r->o.samples) ||
					     is_stdout(r->o.svg_path));
	if (rc > 0 && !quiet && !fkp_aborted())
		err("%s: nothing written (perf script with flamekit-dlfilter.so exited with status %d)",
		    shown(r->input), rc);
	for (size_t i = 0; i < tmps.n; i++) {
		if (rc == 0 && rename(tmps.v[i], finals.v[i]) != 0) {
			err("cannot rename %s to %s: %s", tmps.v[i], finals.v[i], strerror(errno));
			rc = 1;
		}
		if (rc != 0)
			unlink(tmps.v[i]);
	}
	fkp_argv_free(&v);
	fkp_argv_free(&tmps);
	fkp_argv_free(&finals);
	return rc != 0 && !quiet ? 1 : 0;
}

/* After the options were parsed (and each checked): check them together,
 * then fold r->input. */
static int do_report(struct rep_opts *r)
{
	if (!r->o.folded && !r->o.samples && !r->o.svg_path) {
		push(&r->dlargs, "svg=flame.svg");
		r->o.svg_path = "flame.svg";
	}
	if (!r->input)
		r->input = "perf.data";
	if (aborted())
		return 1;
	int dwarf = !strcmp(r->input, "-") ? stdin_is_dwarf() : recording_is_dwarf(r->input);
	if (dwarf == -2)
		dwarf = dwarf_via_evlist(r->input);
	if (dwarf < 0)
		return 1;
	if (dwarf || r->text) {
		if (!r->quiet)
			fprintf(stderr, "perf flame: %s: folding `perf script` text with the perf "
				"parser%s\n", shown(r->input),
				dwarf ? " (--call-graph dwarf recording: a dlfilter cannot see its "
					"user frames)" : " (--text)");
		return report_text(r);
	}
	char *so = find_dlfilter();
	if (!so) {
		err("cannot find flamekit-dlfilter.so (looked beside perf-flame and in "
		    "../lib/flamekit; set FLAMEKIT_DLFILTER)");
		return 1;
	}
	if (!r->quiet)
		fprintf(stderr, "perf flame: %s: folding inside perf script with %s\n", shown(r->input),
			so);
	int rc = report_dlfilter(r, so);
	free(so);
	return rc;
}

/* Option vectors live until exit: static, so leak checkers see them reachable. */
static int cmd_report(int argc, char **argv)
{
	static struct rep_opts r;
	fkd_opts_init(&r.o);
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			for (i++; i < argc; i++)
				push(&r.script_args, argv[i]);
			break;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		int k = report_option(&r, argc, argv, &i, false);
		if (k < 0)
			return 2;
		if (k == 0) {
			err("unknown report option '%s' (perf script options go after --)", argv[i]);
			return 2;
		}
	}
	if (fkd_opts_check(&r.o))
		return 2;
	return do_report(&r);
}

/* `perf flame [options] -- command`: record options and report options mixed;
 * every report option is checked before anything is recorded. */
static int cmd_both(int argc, char **argv)
{
	static struct rep_opts r;
	static fkp_argv recargs;
	struct rec_opts rec = { 0 };
	fkd_opts_init(&r.o);
	int i;
	for (i = 0; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (!strcmp(argv[i], "--off-cpu")) {
			rec.offcpu = true;
			continue;
		}
		if (!strcmp(argv[i], "--combined")) {
			rec.combined = true;
			continue;
		}
		if (!strcmp(argv[i], "--off-wake")) {
			rec.offwake = true;
			continue;
		}
		int pk = preset_option(&rec, argc, argv, &i);
		if (pk < 0)
			return 2;
		if (pk)
			continue;
		/* perf record's -c/--count N, not the dlfilter's count=samples */
		if (!strcmp(argv[i], "--count") || !strncmp(argv[i], "--count=", 8)) {
			push(&recargs, argv[i]);
			if (!argv[i][7] && i + 1 < argc)
				push(&recargs, argv[++i]);
			continue;
		}
		int k = report_option(&r, argc, argv, &i, true);
		if (k < 0)
			return 2;
		if (k == 1)
			continue;
		/* anything else goes to perf record, with its value */
		push(&recargs, argv[i]);
		if (takes_value(argv[i]) && i + 1 < argc)
			push(&recargs, argv[++i]);
	}
	if (i >= argc - 1) {
		err("no command given: perf flame [options] -- command [args]");
		return 2;
	}
	if (rec.preset && !rec.preset->field) {
		/* page faults: one each, in the memory palette */
		const char *pf[] = { "count=samples", r.o.svg.colors ? NULL : "colors=mem",
				     r.o.svg.countname ? NULL : "countname=faults",
				     r.o.svg.title ? NULL : "title=Page Fault Flame Graph" };
		for (size_t k = 0; k < 4; k++)
			if (pf[k])
				push(&r.dlargs, pf[k]);
		r.o.count_samples = true;
	}
	if (rec.preset && rec.preset->field && !r.o.weight) {
		r.o.weight = rec.preset->field;
		if (fkp_argv_pushf(&r.dlargs, "weight=%s", r.o.weight)) {
			err("out of memory");
			return 1;
		}
	}
	if (fkd_opts_check(&r.o))
		return 2;
	rec.weight = r.o.weight;
	for (; i < argc; i++)
		push(&recargs, argv[i]);
	rec.default_output = r.input;
	fkp_policy_begin();
	int rc = do_record(&rec, recargs.v, (int)recargs.n);
	if (!rc)
		rc = do_report(&r);
	fkp_policy_end();
	/* after the policy's end: a cleanup runs even after an abort */
	drop_malloc_probe(&rec);
	return rc;
}

int main(int argc, char **argv)
{
	fkp_prog = fkd_prog;
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("perf flame (flamekit) %s\n", FK_VERSION_STRING);
		return 0;
	}
	if (!strcmp(argv[1], "--doc") && argc == 3) {
		/* docs/gen-options.sh: the report options for the man page, the
		 * dlfilter's keys for docs/perf-plugin.md */
		static struct rep_opts r;
		fkp_optset sets[1 + FKD_NSETS];
		rep_sets(sets, &r);
		bool man = !strcmp(argv[2], "man");
		for (int i = man ? 0 : 1; i < (man ? 3 : 2); i++)
			fkp_opt_table(stdout, &sets[i], man ? FKP_TABLE_MAN : FKP_TABLE_MARKDOWN, man,
				      0, 0);
		return fflush(stdout) ? 1 : 0;
	}
	if (!strcmp(argv[1], "record")) {
		struct rec_opts rec = { 0 };
		int n = argc - 2;
		char **args = argv + 2;
		static fkp_argv pass;
		for (int i = 0; i < n; i++) {
			if (!strcmp(args[i], "--")) {
				for (; i < n; i++)
					push(&pass, args[i]);
				break;
			}
			if (!strcmp(args[i], "-h") || !strcmp(args[i], "--help")) {
				usage(stdout);
				return 0;
			}
			int pk = preset_option(&rec, n, args, &i);
			if (pk < 0)
				return 2;
			if (pk)
				continue;
			if (!strcmp(args[i], "--off-cpu"))
				rec.offcpu = true;
			else if (!strcmp(args[i], "--combined"))
				rec.combined = true;
			else if (!strcmp(args[i], "--off-wake"))
				rec.offwake = true;
			else if (!strcmp(args[i], "--weight") && i + 1 < n)
				rec.weight = args[++i];
			else if (!strncmp(args[i], "--weight=", 9))
				rec.weight = args[i] + 9;
			else
				push(&pass, args[i]);
		}
		fkp_policy_begin();
		int rc = do_record(&rec, pass.v, (int)pass.n);
		fkp_policy_end();
		if (rec.probe_added)
			fprintf(stderr, "perf flame: probe_libc:malloc stays for `perf flame report "
				"--weight size` (remove it with perf probe -d probe_libc:malloc)\n");
		return rc;
	}
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 2, argv + 2);
	return cmd_both(argc - 1, argv + 1);
}

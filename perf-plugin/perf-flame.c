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

static void usage(FILE *out)
{
	fputs(
"usage: perf flame record [--off-cpu | --combined] [perf record options] [-- command [args]]\n"
"       perf flame report [-i perf.data] [-o flame.svg] [--folded FILE] [options] [-- perf script options]\n"
"       perf flame [record and report options] -- command [args]   (record, then report)\n"
"\n"
"record: runs `perf record -F 99 -g` (an odd rate avoids lockstep with timers) unless\n"
"  -F/-c/--freq/--count or -g/--call-graph are given. Other options pass to perf record.\n"
"  --off-cpu    record sched:sched_switch with callchains, system-wide (-a): off-CPU time\n"
"  --combined   record cpu-clock at 99 Hz and sched:sched_switch: on- and off-CPU time\n"
"\n"
"report: folds perf.data inside `perf script` with flamekit-dlfilter.so. Recordings made\n"
"  with --call-graph dwarf go through `perf script` text instead (a dlfilter cannot see\n"
"  their user frames); a note says which path ran.\n"
"  -i, --input FILE     perf.data to read (default perf.data)\n"
"  -o, --output FILE    SVG flame graph (default flame.svg unless --folded/--samples);\n"
"                       FILE.html: the HTML viewer page (flamekit html);\n"
"                       FILE.pb.gz: pprof; FILE.speedscope.json: speedscope\n"
"  --folded FILE        folded stacks (\"-\" = stdout)\n"
"  --samples FILE       timestamped samples (flamekit samples v1)\n"
"  --pid, --tid         root frame comm-PID or comm-PID/TID\n"
"  --kernel-only, --user-only   keep only kernel or only user frames\n"
"  --kernel, --jit, --all       annotate kernel _[k] / jit _[j] frames\n"
"  --full-names         keep symbol names whole (do not cut at '(')\n"
"  --count-samples      count samples instead of summing periods\n"
"  --event NAME         on-CPU event to fold (default: the first seen)\n"
"  --mode auto|cpu|offcpu       what to fold (auto: sched_switch = off-CPU time)\n"
"  --offcpu-min US      ignore off-CPU intervals shorter than US microseconds\n"
"  --blocked-only       off-CPU: skip preempted (still runnable) threads\n"
"  --sched-format FILE  sched_switch format file (default: from tracefs)\n"
"  --text               always use the perf script text path\n"
"  -q, --quiet          no note about the path used\n"
"  SVG: --title T --subtitle T --width N --height N --minwidth N[%] --colors PALETTE\n"
"       --bgcolors C --countname N --nametype N --fonttype F --fontsize N --fontwidth N\n"
"       --hash --seed N --cp FILE --reverse --inverted --flamechart --notes T\n"
"       --factor N --total N --sort name|weight --truncate right|left --focus FUNC\n"
"\n"
"environment: PERF (perf binary), FLAMEKIT_DLFILTER (path of flamekit-dlfilter.so)\n"
"`perf help flame` shows the manual page.\n", out);
}

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

/* ------------------------------------------------------------ small argv vector */
struct vec {
	char **v;
	size_t n, cap;
};

static void push(struct vec *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 32;
		char **nv = realloc(a->v, nc * sizeof(*nv));
		if (!nv) {
			err("out of memory");
			exit(1);
		}
		a->v = nv;
		a->cap = nc;
	}
	a->v[a->n] = strdup(s);
	if (!a->v[a->n]) {
		err("out of memory");
		exit(1);
	}
	a->n++;
	a->v[a->n] = NULL;
}

static const char *perf_bin(void)
{
	const char *p = getenv("PERF");
	return p && *p ? p : "perf";
}

/* Run argv; returns its exit status (128+signal when killed), -1 if it could not start. */
static int run(char **argv, int out_fd)
{
	pid_t pid = fork();
	if (pid < 0) {
		err("fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		if (out_fd >= 0 && dup2(out_fd, 1) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "perf flame: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	/* perf record forwards ^C to the workload and writes perf.data: let it. */
	signal(SIGINT, SIG_IGN);
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err("waitpid: %s", strerror(errno));
			return -1;
		}
	}
	signal(SIGINT, SIG_DFL);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* ------------------------------------------------------------ record */

struct rec_opts {
	bool offcpu, combined, have_freq, have_cg, have_target, have_output;
	const char *output;
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
	if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
		r->have_output = true;
		r->output = val;
	}
}

/* Build and run perf record. args: perf record options, then optionally
 * "--" and a command. */
static int do_record(struct rec_opts *r, char **args, int n)
{
	struct vec v = { 0 };
	push(&v, perf_bin());
	push(&v, "record");
	int i;
	for (i = 0; i < n && strcmp(args[i], "--") != 0; i++) {
		const char *val = takes_value(args[i]) && i + 1 < n ? args[i + 1] : NULL;
		note_record_opt(r, args[i], val);
		if (val)
			i++;
	}
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
		if (!r->have_cg)
			push(&v, "-g");
	} else {
		if (!r->have_freq)
			push(&v, "-F"), push(&v, "99");
		if (!r->have_cg)
			push(&v, "-g");
	}
	for (int j = 0; j < n; j++)
		push(&v, args[j]);
	int rc = run(v.v, -1);
	for (size_t j = 0; j < v.n; j++)
		free(v.v[j]);
	free(v.v);
	if (rc < 0)
		return 1;
	if (rc != 0) {
		err("perf record failed (exit status %d)", rc);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ report */

struct rep_opts {
	struct fkd_opts o;
	struct vec dlargs;        /* KEY=VALUE strings also given to the dlfilter */
	struct vec script_args;   /* extra perf script options after "--" */
	const char *input;
	bool text, quiet;
};

/* --long options of report, mapped onto the dlfilter's KEY[=VALUE] options. */
static const struct {
	const char *opt, *key;
	bool value;
} map_opts[] = {
	{ "--folded", "folded", true }, { "--samples", "samples", true },
	{ "--pid", "pid", false }, { "--tid", "tid", false },
	{ "--kernel-only", "kernel-only", false }, { "--user-only", "user-only", false },
	{ "--kernel", "kernel", false }, { "--jit", "jit", false }, { "--all", "all", false },
	{ "--full-names", "full-names", false }, { "--event", "event", true },
	{ "--mode", "mode", true }, { "--offcpu-min", "offcpu-min", true },
	{ "--blocked-only", "blocked-only", false }, { "--sched-format", "sched-format", true },
	{ "--exact-ret", "exact-ret", false }, { "--max-stack", "max-stack", true },
	{ "--title", "title", true }, { "--subtitle", "subtitle", true },
	{ "--width", "width", true }, { "--height", "height", true },
	{ "--minwidth", "minwidth", true }, { "--colors", "colors", true },
	{ "--bgcolors", "bgcolors", true }, { "--countname", "countname", true },
	{ "--nametype", "nametype", true }, { "--fonttype", "fonttype", true },
	{ "--fontsize", "fontsize", true }, { "--fontwidth", "fontwidth", true },
	{ "--hash", "hash", false }, { "--seed", "seed", true }, { "--cp", "cp", true },
	{ "--reverse", "reverse", false }, { "--inverted", "inverted", false },
	{ "--flamechart", "flamechart", false }, { "--notes", "notes", true },
	{ "--factor", "factor", true }, { "--total", "total", true },
	{ "--sort", "sort", true }, { "--truncate", "truncate", true },
	{ "--focus", "focus", true }, { "--verbose", "verbose", false },
};

/* 1 = consumed (i advanced past its value), 0 = not a report option, -1 = error. */
static int report_option(struct rep_opts *r, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const char *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
	size_t alen = eq ? (size_t)(eq - a) : strlen(a);
	const char *val = NULL;
#define NEED_VAL()                                                            \
	do {                                                                  \
		if (eq)                                                       \
			val = eq + 1;                                         \
		else if (*i + 1 < argc)                                       \
			val = argv[++*i];                                     \
		else {                                                        \
			err("option %.*s needs a value", (int)alen, a);        \
			return -1;                                            \
		}                                                             \
	} while (0)
	if ((alen == 2 && !strncmp(a, "-i", 2)) || (alen == 7 && !strncmp(a, "--input", 7))) {
		NEED_VAL();
		r->input = val;
		return 1;
	}
	if ((alen == 2 && !strncmp(a, "-o", 2)) || (alen == 8 && !strncmp(a, "--output", 8))) {
		NEED_VAL();
		char *kv;
		if (asprintf(&kv, "svg=%s", val) < 0)
			return -1;
		push(&r->dlargs, kv);
		free(kv);
		return 1;
	}
	if (!strcmp(a, "--text")) {
		r->text = true;
		return 1;
	}
	if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
		r->quiet = true;
		return 1;
	}
	if (!strcmp(a, "--count-samples")) {
		push(&r->dlargs, "count=samples");
		return 1;
	}
	for (size_t k = 0; k < sizeof(map_opts) / sizeof(map_opts[0]); k++) {
		if (strlen(map_opts[k].opt) != alen || strncmp(a, map_opts[k].opt, alen) != 0)
			continue;
		if (!map_opts[k].value) {
			if (eq) {
				err("option %s takes no value", map_opts[k].opt);
				return -1;
			}
			push(&r->dlargs, map_opts[k].key);
			return 1;
		}
		NEED_VAL();
		char *kv;
		if (asprintf(&kv, "%s=%s", map_opts[k].key, val) < 0)
			return -1;
		push(&r->dlargs, kv);
		free(kv);
		return 1;
	}
#undef NEED_VAL
	return 0;
}

/* Where flamekit-dlfilter.so is: $FLAMEKIT_DLFILTER, beside this program
 * (build tree), or PREFIX/lib/flamekit for an installed PREFIX/bin/perf-flame. */
static char *find_dlfilter(void)
{
	const char *env = getenv("FLAMEKIT_DLFILTER");
	if (env && *env)
		return strdup(env);
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	char *cand[2] = { NULL, NULL };
	if (asprintf(&cand[0], "%s/flamekit-dlfilter.so", exe) < 0)
		cand[0] = NULL;
	if (asprintf(&cand[1], "%s/../lib/flamekit/flamekit-dlfilter.so", exe) < 0)
		cand[1] = NULL;
	char *found = NULL;
	for (int i = 0; i < 2; i++) {
		if (!found && cand[i] && access(cand[i], R_OK) == 0)
			found = realpath(cand[i], NULL);
		free(cand[i]);
	}
	return found;
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
	int pfd[2];
	if (pipe(pfd) < 0)
		return -1;
	char *argv[] = { (char *)perf_bin(), "evlist", "-v", "-i", (char *)path, NULL };
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	FILE *f = fdopen(pfd[0], "r");
	char line[4096];
	int dwarf = 0;
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "STACK_USER"))
			dwarf = 1;
	if (f)
		fclose(f);
	int status;
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		err("perf evlist -v -i %s failed", path);
		return -1;
	}
	return dwarf;
}

/* Devices and FIFOs (/dev/stdout) are written in place, never renamed over. */
static bool regular_or_missing(const char *path)
{
	struct stat sb;
	return stat(path, &sb) != 0 || S_ISREG(sb.st_mode);
}

static int write_one(const char *path, const fk_profile *p, const struct fkd_opts *o, int what)
{
	FILE *f = stdout;
	char *tmp = NULL;
	if (strcmp(path, "-") != 0 && !regular_or_missing(path)) {
		f = fopen(path, "w");
		if (!f) {
			err("cannot write %s: %s", path, strerror(errno));
			return -1;
		}
	} else if (strcmp(path, "-") != 0) {
		if (asprintf(&tmp, "%s.tmp.%ld", path, (long)getpid()) < 0)
			return -1;
		f = fopen(tmp, "w");
		if (!f) {
			err("cannot write %s: %s", path, strerror(errno));
			free(tmp);
			return -1;
		}
	}
	int rc = what == 0 ? fk_profile_write_folded(p, f)
		 : what == 1 ? fk_profile_write_samples(p, f)
			     : fk_render_for_path(p, &o->svg, path, f); /* .html: the page */
	if (rc < 0)
		err("writing %s: %s", path, fk_strerror(rc));
	if (fflush(f) != 0 || ferror(f)) {
		if (rc == 0)
			err("write error on %s: %s", path, strerror(errno));
		rc = -1;
	}
	if (f != stdout && !tmp && fclose(f) != 0 && rc == 0) {
		err("write error on %s: %s", path, strerror(errno));
		rc = -1;
	}
	if (tmp) {
		if (fclose(f) != 0 && rc == 0) {
			err("write error on %s: %s", path, strerror(errno));
			rc = -1;
		}
		if (rc == 0 && rename(tmp, path) != 0) {
			err("cannot rename %s to %s: %s", tmp, path, strerror(errno));
			rc = -1;
		}
		if (rc != 0)
			unlink(tmp);
		free(tmp);
	}
	return rc;
}

/* The path for --call-graph dwarf: perf unwinds user stacks only while
 * printing, so read `perf script` text through the core's perf parser. */
static int report_text(struct rep_opts *r)
{
	struct fkd_opts *o = &r->o;
	if (o->kernel_only || o->user_only || o->mode == MODE_OFFCPU || o->exact_ret ||
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
	unsigned flags = (o->samples || o->svg.flamechart) ? FK_PROFILE_SAMPLES : 0;
	fk_profile *p = fk_profile_new(flags);
	if (!p) {
		err("out of memory");
		return 1;
	}
	int pfd[2];
	if (pipe(pfd) < 0) {
		err("pipe: %s", strerror(errno));
		fk_profile_free(p);
		return 1;
	}
	struct vec v = { 0 };
	push(&v, perf_bin());
	push(&v, "script");
	push(&v, "-i");
	push(&v, r->input);
	for (size_t i = 0; i < r->script_args.n; i++)
		push(&v, r->script_args.v[i]);
	pid_t pid = fork();
	if (pid < 0) {
		err("fork: %s", strerror(errno));
		fk_profile_free(p);
		return 1;
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execvp(v.v[0], v.v);
		fprintf(stderr, "perf flame: cannot run %s: %s\n", v.v[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	fk_parse_stats st;
	int prc = fk_parse_fd(p, pfd[0], &po, &st);
	close(pfd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	for (size_t i = 0; i < v.n; i++)
		free(v.v[i]);
	free(v.v);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		err("perf script -i %s failed (status %d): nothing written", r->input,
		    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
		fk_profile_free(p);
		return 1;
	}
	if (prc < 0 && prc != -FK_E_SKIPPED) {
		err("reading perf script output: %s", fk_strerror(prc));
		fk_profile_free(p);
		return 1;
	}
	int rc = 0;
	if (o->folded && write_one(o->folded, p, o, 0))
		rc = 1;
	if (!rc && o->samples && write_one(o->samples, p, o, 1))
		rc = 1;
	if (!rc && o->svg_path && write_one(o->svg_path, p, o, 2))
		rc = 1;
	fk_profile_free(p);
	if (rc)
		return 1;
	return prc == -FK_E_SKIPPED ? 3 : 0;
}

static int report_dlfilter(struct rep_opts *r, const char *so)
{
	/* perf calls the filter's stop() even when it failed half way through a
	 * broken perf.data, and ignores what stop() returns: so the filter writes
	 * to temporary names, renamed here only once perf exited 0. */
	struct vec v = { 0 }, tmps = { 0 }, finals = { 0 };
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
		if (eq && strcmp(eq + 1, "-") != 0 && regular_or_missing(eq + 1) &&
		    (!strncmp(a, "svg=", 4) || !strncmp(a, "folded=", 7) || !strncmp(a, "samples=", 8))) {
			char *tmp, *kv;
			/* the part file keeps a .html (.pb.gz, .speedscope.json) ending: the dlfilter
			 * picks the view by name */
			int kind = fk_export_for_path(eq + 1);
			if (asprintf(&tmp, "%s.part.%ld%s", eq + 1, (long)getpid(),
				     kind == FK_EXPORT_PPROF ? ".pb.gz" : kind == FK_EXPORT_SPEEDSCOPE ?
				     ".speedscope.json" : fk_output_is_html(eq + 1) ? ".html" : "") < 0 ||
			    asprintf(&kv, "%.*s=%s", (int)(eq - a), a, tmp) < 0) {
				err("out of memory");
				exit(1);
			}
			push(&tmps, tmp);
			push(&finals, eq + 1);
			push(&v, kv);
			free(tmp);
			free(kv);
		} else {
			push(&v, a);
		}
	}
	for (size_t i = 0; i < r->script_args.n; i++)
		push(&v, r->script_args.v[i]);
	int rc = run(v.v, -1);
	if (rc != 0 && rc > 0)
		err("perf script with flamekit-dlfilter.so failed (exit status %d): nothing written", rc);
	for (size_t i = 0; i < tmps.n; i++) {
		if (rc == 0 && rename(tmps.v[i], finals.v[i]) != 0) {
			err("cannot rename %s to %s: %s", tmps.v[i], finals.v[i], strerror(errno));
			rc = 1;
		}
		if (rc != 0)
			unlink(tmps.v[i]);
	}
	struct vec *all[] = { &v, &tmps, &finals };
	for (size_t k = 0; k < 3; k++) {
		for (size_t i = 0; i < all[k]->n; i++)
			free(all[k]->v[i]);
		free(all[k]->v);
	}
	return rc != 0 ? 1 : 0;
}

/* args: report options, optionally "--" and extra perf script options. */
static int do_report(struct rep_opts *r)
{
	/* Validate everything here first, so errors name our options. */
	fkd_opts_init(&r->o);
	for (size_t i = 0; i < r->dlargs.n; i++)
		if (fkd_parse_arg(&r->o, r->dlargs.v[i]) != 0)
			return 2;
	if (r->o.kernel_only && r->o.user_only) {
		err("--kernel-only and --user-only exclude each other");
		return 2;
	}
	if (!r->o.folded && !r->o.samples && !r->o.svg_path) {
		push(&r->dlargs, "svg=flame.svg");
		r->o.svg_path = "flame.svg";
	}
	if (!r->input)
		r->input = "perf.data";
	int dwarf = recording_is_dwarf(r->input);
	if (dwarf == -2)
		dwarf = dwarf_via_evlist(r->input);
	if (dwarf < 0)
		return 1;
	if (dwarf || r->text) {
		if (!r->quiet)
			fprintf(stderr, "perf flame: %s: folding `perf script` text with the perf "
				"parser%s\n", r->input,
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
		fprintf(stderr, "perf flame: %s: folding inside perf script with %s\n", r->input, so);
	int rc = report_dlfilter(r, so);
	free(so);
	return rc;
}

/* Option vectors live until exit: static, so leak checkers see them reachable. */
static int cmd_report(int argc, char **argv)
{
	static struct rep_opts r;
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
		int k = report_option(&r, argc, argv, &i);
		if (k < 0)
			return 2;
		if (k == 0) {
			err("unknown report option '%s' (perf script options go after --)", argv[i]);
			return 2;
		}
	}
	return do_report(&r);
}

/* `perf flame [options] -- command`: record options and report options mixed. */
static int cmd_both(int argc, char **argv)
{
	static struct rep_opts r;
	static struct vec recargs;
	struct rec_opts rec = { 0 };
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
		if (!strcmp(argv[i], "-i") || !strcmp(argv[i], "--input")) {
			if (i + 1 >= argc) {
				err("%s needs a value", argv[i]);
				return 2;
			}
			r.input = argv[i + 1];
			push(&recargs, "-o");
			push(&recargs, argv[++i]);
			continue;
		}
		int k = report_option(&r, argc, argv, &i);
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
	for (; i < argc; i++)
		push(&recargs, argv[i]);
	int rc = do_record(&rec, recargs.v, (int)recargs.n);
	if (rc)
		return rc;
	return do_report(&r);
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("perf flame (flamekit) %s\n", FK_VERSION_STRING);
		return 0;
	}
	if (!strcmp(argv[1], "record")) {
		struct rec_opts rec = { 0 };
		int n = argc - 2;
		char **args = argv + 2;
		static struct vec pass;
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
			if (!strcmp(args[i], "--off-cpu"))
				rec.offcpu = true;
			else if (!strcmp(args[i], "--combined"))
				rec.combined = true;
			else
				push(&pass, args[i]);
		}
		return do_record(&rec, pass.v, (int)pass.n);
	}
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 2, argv + 2);
	return cmd_both(argc - 1, argv + 1);
}

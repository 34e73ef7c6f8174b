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

/* ------------------------------------------------------------ record */

struct rec_opts {
	bool offcpu, combined, have_freq, have_cg, have_target, have_output;
	const char *output;
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
	if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
		r->have_output = true;
		r->output = val;
	}
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
	/* always a file: with stdout a pipe (`perf flame ... | tee log`) perf record
	 * would write the recording into the pipe */
	if (!r->have_output) {
		push(&v, "-o");
		push(&v, r->default_output ? r->default_output : "perf.data");
	}
	for (int j = 0; j < n; j++)
		push(&v, args[j]);
	int rc = fkp_run(v.v, -1);
	fkp_argv_free(&v);
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
	fkp_argv dlargs;          /* KEY=VALUE strings given to the dlfilter */
	fkp_argv script_args;     /* extra perf script options after "--" */
	const char *input, *output;
	bool text, quiet, count_samples;
};

/* report's own options; the others are the dlfilter's (opts.c) */
#define ROFF(f) offsetof(struct rep_opts, f)
static const fk_option rep_rows[] = {
	{ "input", NULL, 'i', FK_OPT_TEXT, 0, ROFF(input), 0, 0, NULL, "FILE",
	  "perf.data to read (default perf.data)", NULL },
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
"usage: perf flame record [--off-cpu | --combined] [perf record options] [-- command [args]]\n"
"       perf flame report [-i perf.data] [-o flame.svg] [--folded FILE] [options] [-- perf script options]\n"
"       perf flame [record and report options] -- command [args]   (record, then report)\n"
"\n"
"record: runs `perf record -F 99 -g -o perf.data` (an odd rate avoids lockstep with timers)\n"
"  unless -F/-c/--freq/--count, -g/--call-graph or -o are given. Other options pass to\n"
"  perf record.\n"
"  --off-cpu    record sched:sched_switch with callchains, system-wide (-a): off-CPU time\n"
"  --combined   record cpu-clock at 99 Hz and sched:sched_switch: on- and off-CPU time\n"
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

static int write_one(const char *path, const fk_profile *p, const struct fkd_opts *o, int what)
{
	fkp_out out;
	if (fkp_out_open(&out, path))
		return -1;
	int rc = what == 0 ? fk_profile_write_folded(p, out.f)
		 : what == 1 ? fk_profile_write_samples(p, out.f)
			     : fk_render_for_path(p, &o->svg, path, out.f); /* .html: the page */
	if (rc < 0)
		err("writing %s: %s", path, fk_strerror(rc));
	return fkp_out_close(&out, rc == 0) || rc ? -1 : 0;
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
		fk_profile_free(p);
		return 1;
	}
	fk_parse_stats st;
	int prc = fk_parse_fd(p, fd, &po, &st);
	close(fd);
	int status = fkp_wait(pid);
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
	int rc = fkp_run(v.v, -1);
	if (rc > 0)
		err("perf script with flamekit-dlfilter.so failed (exit status %d): nothing written", rc);
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
	return rc != 0 ? 1 : 0;
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
	if (fkd_opts_check(&r.o))
		return 2;
	for (; i < argc; i++)
		push(&recargs, argv[i]);
	rec.default_output = r.input;
	int rc = do_record(&rec, recargs.v, (int)recargs.n);
	if (rc)
		return rc;
	return do_report(&r);
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

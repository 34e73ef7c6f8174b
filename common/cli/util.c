/* util.c - helpers shared by the flamekit subcommands: the input and output
 * option rows, loading inputs with messages, stack filters. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

int cli_number(const char *opt, const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = s ? strtod(s, &end) : 0;
	if (!s || !*s || *end || errno) {
		cli_err("%s: expected a number, got '%s'", opt, s ? s : "");
		return -1;
	}
	*out = v;
	return 0;
}

int cli_filter(fk_profile **p, const char *keep, const char *drop)
{
	for (int pass = 0; pass < 2; pass++) {
		const char *re = pass ? drop : keep;
		if (!re)
			continue;
		fk_profile *f = fk_profile_filter(*p, re, pass ? FK_FILTER_DROP : FK_FILTER_KEEP);
		if (!f) {
			int e = errno;
			if (e != EINVAL)
				cli_err("out of memory");
			fk_profile_free(*p);
			*p = NULL;
			return e == EINVAL ? FK_EXIT_USAGE : FK_EXIT_ERROR;
		}
		fk_profile_free(*p);
		*p = f;
	}
	return FK_EXIT_OK;
}

/* the library's print callback, catching its message for an option's error text */
struct caught {
	char *buf;
	size_t n;
};
static void catch_msg(enum fk_level level, const char *msg, void *ctx)
{
	struct caught *c = ctx;
	if (level == FK_LEVEL_WARN)
		snprintf(c->buf, c->n, "%s", msg);
}

/* --keep/--drop: the regex is checked when given, by the library's own filter on an
 * empty profile (its dialect, its message), so a typo costs no reading of the input */
static int parse_regex(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	fk_profile *empty = fk_profile_new(0);
	if (!empty) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	struct caught c = { err, n };
	err[0] = 0;
	/* the program keeps the library's default callback (context NULL) */
	fk_print_fn old = fk_set_print(catch_msg, &c);
	fk_profile *f = fk_profile_filter(empty, v, FK_FILTER_KEEP);
	int e = errno;
	fk_set_print(old, NULL);
	fk_profile_free(empty);
	if (f) {
		fk_profile_free(f);
		*(const char **)((char *)opts + row->offset) = v;
		return 0;
	}
	if (e != EINVAL || !err[0])
		snprintf(err, n, "%s", e == EINVAL ? "invalid regular expression" : "out of memory");
	return -1;
}

static const fk_option cli_io_rows_[] = {
	{ "output", NULL, 'o', FK_OPT_TEXT, 0, offsetof(struct cli_io, output), 0, 0, NULL, "FILE",
	  "write to FILE (replaced only when all went well; default standard output)", NULL },
	{ "keep", NULL, 0, FK_OPT_CUSTOM, 0, offsetof(struct cli_io, keep), 0, 0, "REGEX", "REGEX",
	  "keep only stacks whose folded text matches REGEX (POSIX ERE)", parse_regex },
	{ "drop", NULL, 0, FK_OPT_CUSTOM, 0, offsetof(struct cli_io, drop), 0, 0, "REGEX", "REGEX",
	  "drop stacks whose folded text matches REGEX", parse_regex },
};

fkp_optset cli_io_set(struct cli_io *io, bool keep_drop)
{
	return (fkp_optset){ cli_io_rows_, keep_drop ? 3 : 1, io, NULL, NULL };
}

fkp_optset cli_input_set(fk_parse_opts *po)
{
	/* the command line reads big inputs with two threads where there are two CPUs */
	if (po->threads == 0 && sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		po->threads = 2;
	size_t n;
	const fk_option *rows = fk_parse_options(&n);
	return (fkp_optset){ rows, n, po, "input options (any command that reads stacks; gzip and zstd input is\n"
			     "decompressed on the fly, from files and pipes):", NULL };
}

void cli_input_help(FILE *out)
{
	fk_parse_opts po;
	fk_parse_opts_init(&po);
	fkp_optset set = cli_input_set(&po);
	fkp_opt_help(out, &set);
}

int cli_parse(int argc, char **argv, const fkp_optset *sets, size_t nsets, char **files,
	      int *nfiles, struct cli_given *given)
{
	char hint[64];
	snprintf(hint, sizeof(hint), "see flamekit %s --help", argv[0]);
	fkp_parser p = { .sets = sets, .nsets = nsets, .hint = hint,
			 .seen = given ? cli_given_seen : NULL, .ctx = given };
	return fkp_opt_parse(&p, argc, argv, files, nfiles);
}

void cli_given_init(struct cli_given *g)
{
	g->rows = fk_svg_options(&g->n);
	g->bits = 0;
}

int cli_given_seen(void *ctx, const fk_option *row, const char *value)
{
	(void)value;
	struct cli_given *g = ctx;
	if (row >= g->rows && row < g->rows + g->n && row - g->rows < 64)
		g->bits |= 1ull << (row - g->rows);
	return 0;
}

/* "--a, --b" of the given rows for which keep(row) is false; their number */
static int list_given(const struct cli_given *g, bool (*keep)(const fk_option *, int), int arg,
		      char *buf, size_t n)
{
	int count = 0;
	size_t used = 0;
	buf[0] = 0;
	for (size_t i = 0; i < g->n && i < 64; i++) {
		if (!(g->bits >> i & 1) || keep(&g->rows[i], arg))
			continue;
		int w = snprintf(buf + used, n - used, "%s--%s", count ? ", " : "", g->rows[i].name);
		if (w > 0 && (size_t)w < n - used)
			used += (size_t)w;
		count++;
	}
	return count;
}

static bool honoured(const fk_option *row, int kind) { return fk_output_honours(kind, row); }
static bool untimed(const fk_option *row, int unused)
{
	(void)unused;
	return !(row->flags & FK_OPTF_TIMED);
}

int cli_given_check(const struct cli_given *g, int kind, const char *path)
{
	char names[512];
	int n = list_given(g, honoured, kind, names, sizeof(names));
	if (!n)
		return FK_EXIT_OK;
	const char *them = n > 1 ? "them" : "it";
	if (kind == FK_OUTPUT_HTML)
		cli_err("%s: the HTML page%s%s%s does not honour %s (its options: flamekit html "
			"--help; or write an SVG, -o NAME.svg)", names, path ? " (" : "", path ? path : "",
			path ? ")" : "", them);
	else
		cli_err("%s: %s output%s%s%s holds the stacks as they are, a drawing's options do not "
			"apply (leave %s out, or write an SVG or page: -o NAME.svg, NAME.html)", names,
			fk_output_name(kind), path ? " (" : "", path ? path : "", path ? ")" : "", them);
	return FK_EXIT_USAGE;
}

int cli_given_untimed(const struct cli_given *g, const char *tracer)
{
	char names[512];
	int n = list_given(g, untimed, 0, names, sizeof(names));
	if (!n)
		return FK_EXIT_OK;
	cli_err("%s: need%s timestamped samples, and %s counts stacks in the kernel without times",
		names, n > 1 ? "" : "s", tracer);
	return FK_EXIT_USAGE;
}

int cli_output_kind(const char *path, int dflt)
{
	int kind = fk_output_for_path(path);
	return kind ? kind : dflt;
}

static void progress(uint64_t bytes, void *ctx)
{
	fprintf(stderr, "\rflamekit: %s: %llu MB read", (const char *)ctx,
		(unsigned long long)(bytes >> 20));
}

static int load_files(fk_profile *p, char **files, int n, const fk_parse_opts *o, char *format);

static void on_first_sigint(int sig)
{
	(void)sig;
	static const char msg[] = "\nflamekit: interrupted: reading what is still coming through "
				  "the pipe, then writing (Ctrl-C again to quit)\n";
	ssize_t w = write(2, msg, sizeof(msg) - 1);
	(void)w;
}

/* `bpftrace ... | flamekit svg`: Ctrl-C reaches the whole pipeline; the tracer
 * answers it by printing what it gathered, which only helps if we are still
 * alive to read and draw it. So while reading a pipe, the first SIGINT only
 * says so (reads go on: SA_RESTART) and the second one kills as usual
 * (SA_RESETHAND). Not when SIGINT was ignored on entry (a background job). */
static bool guard_sigint(char **files, int n, struct sigaction *old)
{
	bool pipe_in = false;
	for (int i = 0; i < n && !pipe_in; i++) {
		struct stat st;
		int r = strcmp(files[i], "-") ? stat(files[i], &st) : fstat(0, &st);
		pipe_in = r == 0 && S_ISFIFO(st.st_mode);
	}
	if (!pipe_in || sigaction(SIGINT, NULL, old) || old->sa_handler != SIG_DFL)
		return false;
	struct sigaction sa = { .sa_handler = on_first_sigint, .sa_flags = SA_RESTART | SA_RESETHAND };
	sigemptyset(&sa.sa_mask);
	return sigaction(SIGINT, &sa, NULL) == 0;
}

/* A big input read by two threads: malloc serves blocks under 2 MB from its heaps, where a
 * freed block is used again, not from mappings of their own (glibc's threshold starts at
 * 128 KB), each one's pages faulted afresh and each unmapping interrupting the other CPU to
 * flush its TLB: 134 MB of perf text drawn with two threads took 1,570 fewer page faults, 5
 * munmaps where 37 and 50.4 ms where 53.6 (perf stat -r 5), 64 MB of folded text 56.5 ms
 * where 60.2, for 10-15% more memory at the peak; one thread gained nothing. Not under
 * 32 MB: there the heap's freed blocks were a third more memory (issue 23's realistic shape,
 * 24 MB: 10.3 MB at the peak where 7.9) for no time gained. */
static void malloc_for_threads(char **files, int n, const fk_parse_opts *o)
{
	uint64_t total = 0;
	for (int i = 0; i < n && o->threads >= 2; i++) {
		struct stat st;
		if (strcmp(files[i], "-") && stat(files[i], &st) == 0 && S_ISREG(st.st_mode))
			total += (uint64_t)st.st_size;
	}
	if (total >= (32u << 20))
		mallopt(M_MMAP_THRESHOLD, 2 << 20);
}

int cli_load(fk_profile *p, char **files, int n, const fk_parse_opts *o, char *format)
{
	static char *stdin_only[] = { "-" };
	if (n == 0) {
		files = stdin_only;
		n = 1;
	}
	malloc_for_threads(files, n, o);
	struct sigaction old_int;
	bool guarded = guard_sigint(files, n, &old_int);
	int rc = load_files(p, files, n, o, format);
	if (guarded)
		sigaction(SIGINT, &old_int, NULL);
	return rc;
}

static int load_files(fk_profile *p, char **files, int n, const fk_parse_opts *o, char *format)
{
	int ok = 0, skipped = 0;
	bool tty = isatty(2);
	for (int i = 0; i < n; i++) {
		fk_parse_opts local = *o;
		local.name = strcmp(files[i], "-") ? files[i] : "<stdin>";
		if (tty) {
			local.progress = progress;
			local.progress_ctx = (void *)local.name;
		}
		fk_parse_stats st;
		int rc = fk_parse_file(p, files[i], &local, &st);
		if (format)
			memcpy(format, st.format, sizeof(st.format));
		if (tty && st.bytes >= (64u << 20))
			fputc('\n', stderr);
		if (rc == 0) {
			ok++;
		} else if (rc == -FK_E_SKIPPED || rc == -FK_E_TRUNCATED) {
			ok++;
			skipped++;
		} else {
			skipped++; /* the library already said why, with the file name */
			if (rc == -FK_E_NOMEM) {
				cli_err("%s: out of memory", local.name);
				return FK_EXIT_ERROR;
			}
		}
	}
	if (!ok)
		return FK_EXIT_ERROR;
	/* Empty or wholly unreadable input must not pass for a profile. */
	if (fk_profile_empty(p)) {
		cli_err("no stacks in input%s", skipped ? " (all of it was malformed or skipped)" : "");
		return FK_EXIT_ERROR;
	}
	return skipped ? FK_EXIT_SKIPPED : FK_EXIT_OK;
}

fk_profile *cli_read(unsigned flags, char **files, int n, const fk_parse_opts *o,
		     const char *keep, const char *drop, int *status)
{
	fk_profile *p = fk_profile_new(flags);
	if (!p) {
		cli_err("out of memory");
		*status = FK_EXIT_ERROR;
		return NULL;
	}
	*status = cli_load(p, files, n, o, NULL);
	if (*status == FK_EXIT_ERROR) {
		fk_profile_free(p);
		return NULL;
	}
	/* stack filters keep the per-sample records of the stacks they keep */
	int frc = cli_filter(&p, keep, drop);
	if (frc != FK_EXIT_OK) {
		*status = frc;
		return NULL;
	}
	return p;
}

int cli_tracer_kind(const char *path, bool folded, const fk_svg_opts *so,
		    const struct cli_given *given, const char *tracer, int *kind)
{
	int by_name = fk_output_for_path(path);
	if (folded && by_name && by_name != FK_OUTPUT_FOLDED) {
		cli_err("--folded and -o %s (%s) contradict each other", path, fk_output_name(by_name));
		return FK_EXIT_USAGE;
	}
	*kind = folded ? FK_OUTPUT_FOLDED : by_name ? by_name : FK_OUTPUT_SVG;
	if (fk_svg_opts_check(so) || cli_given_check(given, *kind, path) ||
	    cli_given_untimed(given, tracer))
		return FK_EXIT_USAGE;
	return FK_EXIT_OK;
}

int cli_tracer_run(char **argv, fk_profile *p, const fk_parse_opts *po, const char *tracer,
		   const char *hint, unsigned restop)
{
	int fd;
	fkp_policy_restop(restop);
	pid_t child = fkp_spawn(argv, FKP_PIPE, &fd, false);
	if (child < 0)
		return FK_EXIT_ERROR;
	fk_parse_stats st;
	int rc = fk_parse_fd(p, fd, po, &st);
	close(fd);
	int status = fkp_wait(child);
	if (status != 0) {
		if (status == 127)
			cli_err("%s", hint); /* the child said it cannot run the tracer */
		else if (status > 128)
			cli_err("%s was killed by signal %d", tracer, status - 128);
		else if (status > 0)
			cli_err("%s failed (exit status %d); see its messages above", tracer, status);
		return FK_EXIT_ERROR;
	}
	if (rc && rc != -FK_E_SKIPPED && rc != -FK_E_TRUNCATED) {
		cli_err("reading %s's output: %s", tracer, fk_strerror(rc));
		return FK_EXIT_ERROR;
	}
	if (fk_profile_total(p, 0) <= 0) {
		cli_err("%s printed no stacks (nothing sampled: is the process running on a CPU, "
			"and the duration long enough?)", tracer);
		return FK_EXIT_ERROR;
	}
	return rc ? FK_EXIT_SKIPPED : FK_EXIT_OK;
}

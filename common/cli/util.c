/* util.c - helpers shared by the flamekit subcommands: input options,
 * loading inputs with messages, atomic output files. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"

void cli_err(const char *fmt, ...)
{
	va_list ap;
	fputs("flamekit: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

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

bool cli_take_file(char **argv, int i, char **files, int *nfiles, bool *opts_done)
{
	const char *a = argv[i];
	if (*opts_done || a[0] != '-' || !strcmp(a, "-")) {
		files[(*nfiles)++] = argv[i];
		return true;
	}
	if (!strcmp(a, "--")) {
		*opts_done = true;
		return true;
	}
	return false;
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

/* "--opt VALUE" or "--opt=VALUE": returns the value and advances *i, or NULL. */
static const char *opt_value(const char *opt, int argc, char **argv, int *i, int *err)
{
	const char *a = argv[*i];
	size_t n = strlen(opt);
	if (strncmp(a, opt, n))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n])
		return NULL;
	if (*i + 1 >= argc) {
		cli_err("%s needs a value", opt);
		*err = 1;
		return NULL;
	}
	return argv[++*i];
}

int cli_input_option(fk_parse_opts *o, int argc, char **argv, int *i)
{
	static const struct { const char *name; size_t off; } flags[] = {
		{ "--pid", offsetof(fk_parse_opts, pid) },
		{ "--tid", offsetof(fk_parse_opts, tid) },
		{ "--kernel", offsetof(fk_parse_opts, kernel) },
		{ "--jit", offsetof(fk_parse_opts, jit) },
		{ "--all", offsetof(fk_parse_opts, all) },
		{ "--addrs", offsetof(fk_parse_opts, addrs) },
		{ "--inline", offsetof(fk_parse_opts, inline_frames) },
		{ "--full-names", offsetof(fk_parse_opts, full_names) },
		{ "--samples", offsetof(fk_parse_opts, samples) },
		{ "--no-comm", offsetof(fk_parse_opts, no_comm) },
		{ "--offsets", offsetof(fk_parse_opts, keep_offsets) },
		{ "--all-maps", offsetof(fk_parse_opts, all_maps) },
		{ "--rust-names", offsetof(fk_parse_opts, rust_names) },
		{ "--cxx-names", offsetof(fk_parse_opts, cxx_names) },
	};
	const char *a = argv[*i];
	for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
		if (!strcmp(a, flags[k].name)) {
			*(bool *)((char *)o + flags[k].off) = true;
			return 1;
		}
	int err = 0;
	const char *v;
	if ((v = opt_value("--format", argc, argv, i, &err)) || err) {
		if (err)
			return -1;
		o->format = v;
		return 1;
	}
	if ((v = opt_value("--event-filter", argc, argv, i, &err)) || err) {
		if (err)
			return -1;
		o->event_filter = v;
		return 1;
	}
	if ((v = opt_value("--sample-type", argc, argv, i, &err)) || err) {
		if (err)
			return -1;
		o->sample_type = v;
		return 1;
	}
	if ((v = opt_value("--label-frames", argc, argv, i, &err)) || err) {
		if (err)
			return -1;
		o->label_frames = v;
		return 1;
	}
	if ((v = opt_value("--map", argc, argv, i, &err)) || err) {
		if (err)
			return -1;
		o->map = v;
		return 1;
	}
	if ((v = opt_value("--threads", argc, argv, i, &err)) || err) {
		double d;
		if (err || cli_number("--threads", v, &d))
			return -1;
		if (d < 1 || d > 64) {
			cli_err("--threads: expected 1 to 64");
			return -1;
		}
		o->threads = (unsigned)d;
		return 1;
	}
	return 0;
}

void cli_input_help(FILE *out)
{
	fputs("input options (any command that reads stacks; gzip and zstd input is\n"
	      "decompressed on the fly, from files and pipes):\n"
	      "  --format NAME       input format (default: detected from the first lines;\n"
	      "                      `flamekit formats` lists them)\n"
	      "  --threads N         parse with N threads where the format supports it\n"
	      "pprof input:\n"
	      "  --sample-type TYPE  the sample type to read: cpu, alloc_space, TYPE/UNIT or\n"
	      "                      its index (default: the profile's default type)\n"
	      "  --label-frames K,K  labels with these keys (or all) become root frames\n"
	      "                      'key=value', for --keep/--drop and the graph\n"
	      "perf script input (same meaning as stackcollapse-perf.pl):\n"
	      "  --pid               include the PID in the process name (comm-PID)\n"
	      "  --tid               include PID and TID (comm-PID/TID)\n"
	      "  --kernel            annotate kernel frames with _[k]\n"
	      "  --jit               annotate JIT frames with _[j] (/tmp/perf-PID.map,\n"
	      "                      perf inject --jit's jitted-*.so)\n"
	      "  --all               all annotations (--kernel --jit)\n"
	      "  --addrs             show raw addresses for unknown symbols\n"
	      "  --inline            expand inline frames (_[i]) of user binaries via addr2line -i\n"
	      "  --event-filter EV   keep only event EV (default: the first event seen)\n"
	      "  --samples           count samples; default weighs each by its period\n"
	      "  --full-names        keep C++ names whole (lambdas, operator()) instead of\n"
	      "                      cutting at the first '('\n"
	      "  --no-comm           no process name as root frame\n"
	      "frame names, every input format:\n"
	      "  --rust-names        repair Rust legacy names a C++ demangler left half done:\n"
	      "                      drop ::h<hash>, decode $LT$ $GT$ $u20$ .. (inferno's rule)\n"
	      "  --cxx-names         cut a C++ name's whole parameter list only:\n"
	      "                      std::function<int (int, int)>::operator() stays whole\n"
	      "                      (perf and dtrace input: instead of their own cut)\n"
	      "other inputs:\n"
	      "  eu-stack: --pid, --tid add PID=N / TID=N root frames (stackcollapse-elfutils.pl)\n"
	      "  jstack: --tid keeps a thread name's -N suffix; --no-comm drops the thread name\n"
	      "bpftrace input:\n"
	      "  --offsets           keep frames' +OFFSET (one frame per call site, as\n"
	      "                      stackcollapse-bpftrace.pl); default: cut\n"
	      "  --map NAME          read stack map @NAME (default: the first one)\n"
	      "  --all-maps          read every stack map, each under a root frame @NAME\n", out);
}

static void progress(uint64_t bytes, void *ctx)
{
	fprintf(stderr, "\rflamekit: %s: %llu MB read", (const char *)ctx,
		(unsigned long long)(bytes >> 20));
}

static int load_files(fk_profile *p, char **files, int n, const fk_parse_opts *o);

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

int cli_load(fk_profile *p, char **files, int n, const fk_parse_opts *o)
{
	static char *stdin_only[] = { "-" };
	if (n == 0) {
		files = stdin_only;
		n = 1;
	}
	struct sigaction old_int;
	bool guarded = guard_sigint(files, n, &old_int);
	int rc = load_files(p, files, n, o);
	if (guarded)
		sigaction(SIGINT, &old_int, NULL);
	return rc;
}

static int load_files(fk_profile *p, char **files, int n, const fk_parse_opts *o)
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
	size_t nn;
	const fk_node *nodes = fk_profile_nodes(p, &nn);
	size_t i = 1; /* the first counted node ends the search (no pass over a whole big tree) */
	while (i < nn && nodes[i].self[0] == 0 && nodes[i].self[1] == 0)
		i++;
	if (i >= nn) {
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
	*status = cli_load(p, files, n, o);
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

int cli_out_open(cli_out *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->path = strdup(path);
	struct stat st;
	if (o->path && stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* a device or FIFO (/dev/stdout, /dev/full): write in place; renaming a
		 * temp file over it would replace the device node */
		o->f = fopen(path, "w");
		if (!o->f) {
			cli_err("%s: %s", path, strerror(errno));
			free(o->path);
			o->path = NULL;
			return -1;
		}
		return 0;
	}
	size_t n = strlen(path) + 32;
	o->tmp = malloc(n);
	if (!o->path || !o->tmp) {
		cli_err("out of memory");
		return -1;
	}
	snprintf(o->tmp, n, "%s.tmp.%d", path, (int)getpid());
	o->f = fopen(o->tmp, "w");
	if (!o->f) {
		cli_err("%s: %s", path, strerror(errno));
		free(o->path);
		free(o->tmp);
		o->path = o->tmp = NULL;
		return -1;
	}
	return 0;
}

int cli_out_close(cli_out *o, int ok)
{
	int rc = 0;
	const char *name = o->path ? o->path : "<stdout>";
	if (!o->f)
		return -1;
	if (fflush(o->f) || ferror(o->f)) {
		if (ok)
			cli_err("%s: write error: %s", name, strerror(errno ? errno : EIO));
		ok = 0;
		rc = -1;
	}
	if (o->path) {
		if (fclose(o->f) && ok) {
			cli_err("%s: write error: %s", name, strerror(errno));
			ok = 0;
			rc = -1;
		}
		if (o->tmp && ok && rename(o->tmp, o->path)) {
			cli_err("%s: %s", o->path, strerror(errno));
			rc = -1;
			ok = 0;
		}
		if (o->tmp && !ok)
			unlink(o->tmp);
		free(o->path);
		free(o->tmp);
	}
	o->f = NULL;
	return ok ? rc : -1;
}

const char *cli_emit_for_path(const char *path)
{
	switch (fk_export_for_path(path)) {
	case FK_EXPORT_PPROF: return "pprof";
	case FK_EXPORT_SPEEDSCOPE: return "speedscope";
	default: return "folded";
	}
}

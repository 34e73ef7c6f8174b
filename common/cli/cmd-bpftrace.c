/* cmd-bpftrace.c - `flamekit bpftrace`: samples stacks with bpftrace for -d
 * seconds or until Ctrl-C, reads the map bpftrace prints as it stops and renders
 * it (or prints the bpftrace command line). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"

static void bpftrace_help(FILE *out)
{
	fputs("usage: flamekit bpftrace [-p PID] [options]\n\n"
	      "Samples stacks with bpftrace's profile probe, kernel and user stacks aggregated\n"
	      "in the kernel, until Ctrl-C or for -d SECONDS; bpftrace then prints its map,\n"
	      "which is drawn as a flame graph (user frames under kernel frames). Without\n"
	      "-p every process is sampled, under a root frame with its name.\n\n"
	      "  -p, --pid PID       sample this process only\n"
	      "  --kernel            kernel stacks only\n"
	      "  --user              user stacks only\n"
	      "  --both              user stacks with kernel stacks on top (default)\n"
	      "  -F, --frequency HZ  samples per second per CPU (default 99)\n"
	      "  -d, --duration SEC  stop after SEC seconds (default: at Ctrl-C)\n"
	      "  -o, --output FILE   write the result to FILE (default standard output)\n"
	      "  --folded            write folded stacks instead of an SVG\n"
	      "  --title TEXT        SVG title\n"
	      "  --offsets           keep +OFFSET on frames (one frame per call site)\n"
	      "  --print-command     print the bpftrace command line and exit\n"
	      "  --bpftrace PATH     the bpftrace program (default $BPFTRACE or bpftrace)\n\n"
	      "bpftrace needs root (or CAP_BPF and CAP_PERFMON) and a kernel with BPF and\n"
	      "perf events. Its own messages go to standard error.\n\n"
	      "Exit status: 0 ok; 1 error (bpftrace failed or printed no stacks), nothing\n"
	      "written; 2 usage error; 3 output written but some of bpftrace's output was\n"
	      "malformed.\n", out);
}

enum kind { KIND_BOTH, KIND_KERNEL, KIND_USER };

static int whole(const char *opt, const char *v, long min, long max, long *out)
{
	double d;
	if (cli_number(opt, v, &d))
		return -1;
	if (!(d >= (double)min && d <= (double)max) || d != (double)(long)d) {
		cli_err("%s: expected an integer from %ld to %ld, got '%s'", opt, min, max, v);
		return -1;
	}
	*out = (long)d;
	return 0;
}

/* Run argv with its stdout into the bpftrace parser. Returns an exit code. */
static int run_tracer(char **argv, fk_profile *p, const fk_parse_opts *po)
{
	/* Ctrl-C goes to the whole process group: bpftrace stops sampling and
	 * prints its map; we live on to read and draw it (prog.h's signal policy). */
	int fd;
	pid_t child = fkp_spawn(argv, FKP_PIPE, &fd, false);
	if (child < 0)
		return FK_EXIT_ERROR;
	fk_parse_stats st;
	int rc = fk_parse_fd(p, fd, po, &st);
	close(fd);
	int status = fkp_wait(child);
	if (status != 0) {
		if (status == 127)
			cli_err("install bpftrace, or give --bpftrace PATH");
		else if (status > 128)
			cli_err("bpftrace was killed by signal %d", status - 128);
		else if (status > 0)
			cli_err("bpftrace failed (exit status %d); see its messages above", status);
		return FK_EXIT_ERROR;
	}
	if (rc && rc != -FK_E_SKIPPED && rc != -FK_E_TRUNCATED) {
		cli_err("reading bpftrace's output: %s", fk_strerror(rc));
		return FK_EXIT_ERROR;
	}
	if (fk_profile_total(p, 0) <= 0) {
		cli_err("bpftrace printed no stacks (nothing sampled: is the process running "
			"on a CPU, and the duration long enough?)");
		return FK_EXIT_ERROR;
	}
	return rc ? FK_EXIT_SKIPPED : FK_EXIT_OK;
}


/* "-x V", "--long V" or "--long=V": the value (advancing *i), NULL if argv[*i]
 * is not this option; *err set when the value is missing. */
static const char *value_of(const char *letter, const char *name, int argc, char **argv, int *i,
			    bool *err)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (!strncmp(a, name, n) && a[n] == '=')
		return a + n + 1;
	if (strcmp(a, name) && (!letter || strcmp(a, letter)))
		return NULL;
	if (*i + 1 >= argc) {
		cli_err("%s needs a value", a);
		*err = true;
		return NULL;
	}
	return argv[++*i];
}

static int bpftrace_run(int argc, char **argv)
{
	long pid = 0, hz = 99, duration = 0;
	int kind = -1;
	bool folded = false, print_cmd = false, offsets = false;
	const char *out_path = NULL, *title = NULL, *tracer = getenv("BPFTRACE");
	if (!tracer || !*tracer)
		tracer = "bpftrace";

	/* Every option is checked here, before anything is sampled. */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		bool err = false;
		if ((v = value_of("-p", "--pid", argc, argv, &i, &err))) {
			if (whole("--pid", v, 1, INT_MAX, &pid))
				return FK_EXIT_USAGE;
		} else if (!err && (v = value_of("-F", "--frequency", argc, argv, &i, &err))) {
			if (whole("--frequency", v, 1, 100000, &hz))
				return FK_EXIT_USAGE;
		} else if (!err && (v = value_of("-d", "--duration", argc, argv, &i, &err))) {
			if (whole("--duration", v, 1, 1000000000, &duration))
				return FK_EXIT_USAGE;
		} else if (!err && (v = value_of("-o", "--output", argc, argv, &i, &err))) {
			out_path = v;
		} else if (!err && (v = value_of(NULL, "--title", argc, argv, &i, &err))) {
			title = v;
		} else if (!err && (v = value_of(NULL, "--bpftrace", argc, argv, &i, &err))) {
			tracer = v;
		} else if (err) {
			return FK_EXIT_USAGE;
		} else if (!strcmp(a, "--kernel") || !strcmp(a, "--user") || !strcmp(a, "--both")) {
			int k = a[2] == 'k' ? KIND_KERNEL : a[2] == 'u' ? KIND_USER : KIND_BOTH;
			if (kind >= 0 && kind != k) {
				cli_err("--kernel, --user and --both exclude each other");
				return FK_EXIT_USAGE;
			}
			kind = k;
		} else if (!strcmp(a, "--folded")) {
			folded = true;
		} else if (!strcmp(a, "--offsets")) {
			offsets = true;
		} else if (!strcmp(a, "--print-command")) {
			print_cmd = true;
		} else {
			cli_err("unknown option or argument '%s' (see flamekit bpftrace --help)", a);
			return FK_EXIT_USAGE;
		}
	}
	if (kind < 0)
		kind = KIND_BOTH;

	/* The map's key: scalars first (they become root frames), then the stacks. */
	static const char *const keys[] = { "kstack, ustack", "kstack", "ustack" };
	char filter[48] = "", stop[48] = "", *prog = NULL;
	if (pid)
		snprintf(filter, sizeof(filter), " /pid == %ld/", pid);
	if (duration)
		snprintf(stop, sizeof(stop), " interval:s:%ld { exit(); }", duration);
	if (asprintf(&prog, "profile:hz:%ld%s { @[%s%s] = count(); }%s", hz, filter,
		     pid ? "" : "comm, ", keys[kind], stop) < 0) {
		cli_err("out of memory");
		return FK_EXIT_ERROR;
	}
	char pidbuf[24];
	snprintf(pidbuf, sizeof(pidbuf), "%ld", pid);
	/* -p lets bpftrace resolve the process's user symbols (and stop with it). */
	char *args[] = { (char *)tracer, "-e", prog, pid ? "-p" : NULL, pidbuf, NULL };

	if (print_cmd) {
		for (size_t i = 0; args[i]; i++) {
			if (i)
				fputc(' ', stdout);
			fkp_print_shell_word(stdout, args[i]);
		}
		fputc('\n', stdout);
		free(prog);
		return fflush(stdout) || ferror(stdout) ? FK_EXIT_ERROR : FK_EXIT_OK;
	}

	fk_profile *p = fk_profile_new(0);
	if (!p) {
		cli_err("out of memory");
		free(prog);
		return FK_EXIT_ERROR;
	}
	fk_parse_opts po;
	fk_parse_opts_init(&po);
	po.format = "bpftrace";
	po.name = "<bpftrace output>";
	po.keep_offsets = offsets;
	int ret = run_tracer(args, p, &po);
	free(prog);
	if (ret == FK_EXIT_OK || ret == FK_EXIT_SKIPPED) {
		fkp_out o;
		if (fkp_out_open(&o, out_path)) {
			ret = FK_EXIT_ERROR;
		} else {
			int rc;
			if (folded) {
				rc = fk_profile_write_folded(p, o.f);
			} else {
				fk_svg_opts so;
				fk_svg_opts_init(&so);
				so.title = title ? title : "Flame Graph";
				rc = fk_render_svg(p, &so, o.f);
			}
			if (rc)
				cli_err("%s: %s", out_path ? out_path : "<stdout>", fk_strerror(rc));
			if (fkp_out_close(&o, rc == 0) || rc)
				ret = FK_EXIT_ERROR;
		}
	}
	fk_profile_free(p);
	return ret;
}

const struct fk_cmd fk_cmd_bpftrace = {
	.name = "bpftrace",
	.summary = "sample stacks with bpftrace until Ctrl-C or -d SECONDS, then draw them",
	.run = bpftrace_run,
	.help = bpftrace_help,
};

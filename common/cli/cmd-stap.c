/* cmd-stap.c - `flamekit stap`: builds the stap command line that profiles a
 * process with the flamekit tapset (limits, -d for every mapped object), runs it
 * and renders its folded output, or just prints the command. */
#include <errno.h>
#include <sched.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "stap-runtime.h"

#define TAPSET_NAME "flamekit.stp"
#define SYSTEM_TAPSET_DIR "/usr/share/systemtap/tapset"

static void stap_help(FILE *out)
{
	fputs("usage: flamekit stap -p PID [options]\n"
	      "       flamekit stap --kernel [options]         (system-wide kernel stacks)\n\n"
	      "Profiles with SystemTap and the flamekit tapset: stacks are aggregated in the\n"
	      "kernel, printed as folded stacks when stap stops (Ctrl-C, or after -t), and\n"
	      "drawn as a flame graph. The stap command line carries the limits and a -d for\n"
	      "every object mapped by the process (read from /proc/PID/maps), so user stacks\n"
	      "unwind and symbolize through shared libraries.\n\n"
	      "  -p, --pid PID       profile this process (stap -x PID)\n"
	      "  -d OBJECT           also load symbols/unwind data of OBJECT (repeatable)\n"
	      "  --kernel            kernel stacks only (without -p: every process)\n"
	      "  --user              user stacks only\n"
	      "  --both              user stacks with kernel stacks on top (default with -p)\n"
	      "  --off-cpu           time blocked off CPU by stack, in microseconds, instead\n"
	      "                      of on-CPU samples\n"
	      "  -t, --duration SEC  stop after SEC seconds (default: at Ctrl-C)\n"
	      "  -o, --output FILE   write the result to FILE (default standard output; an SVG,\n"
	      "                      or the HTML viewer page for FILE.html)\n"
	      "  --folded            write folded stacks instead of an SVG\n"
	      "  --title TEXT        SVG title\n"
	      "  --print-command     print the stap command line and exit (run it elsewhere,\n"
	      "                      e.g. as root on the machine to profile)\n"
	      "  --max-depth N       frames per stack (MAXBACKTRACE, 64)\n"
	      "  --max-stacks N      unique stacks kept (MAXMAPENTRIES, 10240)\n"
	      "  --stap PATH         the stap program (default $STAP or stap)\n"
	      "  --tapset-dir DIR    where flamekit.stp is (default: found next to this\n"
	      "                      program, installed, or $FLAMEKIT_TAPSET_DIR)\n"
	      "  --stap-opt OPT      extra stap option, e.g. --stap-opt=--all-modules\n"
	      "                      (repeatable)\n"
	      "  --remote URL        run the module on another machine (stap --remote,\n"
	      "                      e.g. ssh://host or unix:SOCKET of a VM's stapsh); -p is\n"
	      "                      then a process there: give its objects with -d\n"
	      "  -r, --kernel-release REL\n"
	      "                      build for kernel REL (stap -r; with --remote, the\n"
	      "                      kernel the remote machine runs)\n"
	      "  --kallsyms FILE     a copy of /proc/kallsyms of the kernel built for, used\n"
	      "                      in place of this machine's (root: runs stap in a private\n"
	      "                      mount namespace with FILE bound over /proc/kallsyms)\n\n"
	      "SystemTap's runtime is checked against the kernel built for: where it needs a\n"
	      "fix (SystemTap 4.8 on Debian 12's 6.1 kernels needs three), flamekit makes a\n"
	      "fixed copy once in $XDG_CACHE_HOME/flamekit/stap-runtime/ and passes it with\n"
	      "-R. Building for another kernel than this machine's (-r, --remote) without\n"
	      "its debuginfo, stap would name kernel frames from this machine's\n"
	      "/proc/kallsyms: flamekit refuses kernel stacks then, unless --kallsyms.\n\n"
	      "SystemTap needs root (or stapdev), kernel headers for the running kernel\n"
	      "and a kernel that loads modules. Without module support (no /proc/modules)\n"
	      "flamekit stap fails at once; use --print-command there and render the\n"
	      "output of a run elsewhere with `flamekit svg`, or --remote. The check is\n"
	      "skipped with --remote, another --runtime, or FLAMEKIT_STAP_NO_MODULE_CHECK=1.\n"
	      "Kernel stacks add -d kernel (kernel symbols without kernel debuginfo).\n\n"
	      "Exit status: 0 ok; 1 error (stap failed or printed nothing), nothing written;\n"
	      "2 usage error; 3 output written but some of stap's output was malformed.\n", out);
}

/* A growable argv. */
typedef struct strv {
	char **v;
	size_t n, cap;
	bool oom;
} strv;

static void strv_add(strv *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void strv_add(strv *s, const char *fmt, ...)
{
	if (s->oom)
		return;
	if (s->n + 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 32;
		char **v = realloc(s->v, cap * sizeof(*v));
		if (!v) {
			s->oom = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s->v[s->n], fmt, ap) < 0)
		s->oom = true;
	else
		s->v[++s->n] = NULL;
	va_end(ap);
}

static bool strv_has(const strv *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], str))
			return true;
	return false;
}

static void strv_free(strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

static bool is_file(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The directory holding flamekit.stp: $FLAMEKIT_TAPSET_DIR, else relative to
 * this program (build tree: BUILD/flamekit -> ../stap-tapset; installed:
 * PREFIX/bin/flamekit -> PREFIX/share/systemtap/tapset), else the system
 * tapset directory. NULL if none has it. */
static char *find_tapset_dir(void)
{
	const char *env = getenv("FLAMEKIT_TAPSET_DIR");
	if (env && *env)
		return is_file(env, TAPSET_NAME) ? strdup(env) : NULL;
	static const char *const rel[] = {
		"../share/systemtap/tapset/" TAPSET_NAME, "../stap-tapset/" TAPSET_NAME,
		"../../stap-tapset/" TAPSET_NAME,
	};
	char *file = fkp_find_beside_exe(rel, sizeof(rel) / sizeof(rel[0]));
	if (file) {
		*strrchr(file, '/') = '\0';
		return file;
	}
	if (is_file(SYSTEM_TAPSET_DIR, TAPSET_NAME))
		return strdup(SYSTEM_TAPSET_DIR);
	return NULL;
}

/* Add "-d PATH" for every file-backed executable mapping of pid, once each,
 * in map order. Returns the number added, or -1 (message printed). */
static int add_mapped_objects(strv *args, strv *seen, int pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	FILE *f = fopen(path, "r");
	if (!f) {
		cli_err("%s: %s%s", path, strerror(errno),
			errno == ENOENT ? " (no such process)" : "");
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int added = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		/* address perms offset dev inode pathname */
		char perms[8] = "";
		int name_at = 0;
		if (sscanf(line, "%*s %7s %*s %*s %*s %n", perms, &name_at) < 1 || !name_at)
			continue;
		const char *name = line + name_at;
		if (name[0] != '/' || !strchr(perms, 'x'))
			continue;
		static const char deleted[] = " (deleted)";
		size_t nl = strlen(name), dl = sizeof(deleted) - 1;
		if (nl > dl && !strcmp(name + nl - dl, deleted)) {
			cli_err("warning: %s is mapped but deleted: its frames stay unresolved", name);
			continue;
		}
		if (strv_has(seen, name))
			continue;
		strv_add(seen, "%s", name);
		strv_add(args, "-d");
		strv_add(args, "%s", name);
		added++;
	}
	free(line);
	fclose(f);
	return added;
}


enum stack_kind { STACKS_DEFAULT, STACKS_KERNEL, STACKS_USER, STACKS_BOTH };

static const char *probe_name(int kind, bool off_cpu)
{
	static const char *const on[] = { "", "flamekit.oncpu.kernel", "flamekit.oncpu.user",
					   "flamekit.oncpu.both" };
	static const char *const off[] = { "", "flamekit.offcpu.kernel", "flamekit.offcpu.user",
					    "flamekit.offcpu" };
	return off_cpu ? off[kind] : on[kind];
}

static int positive_int(const char *opt, const char *v, long max, long *out)
{
	double d;
	if (cli_number(opt, v, &d))
		return -1;
	if (!(d >= 1 && d <= (double)max) || d != (double)(long)d) {
		cli_err("%s: expected an integer from 1 to %ld, got '%s'", opt, max, v);
		return -1;
	}
	*out = (long)d;
	return 0;
}

/* Run argv with stdout into the parser; fills p. Returns an exit code. With
 * kallsyms, stap runs in a private mount namespace where that file is
 * /proc/kallsyms (stap reads kernel symbols there without kernel debuginfo). */
static int run_stap(char **argv, const char *kallsyms, fk_profile *p, int *stap_status)
{
	int fds[2];
	if (pipe(fds)) {
		cli_err("pipe: %s", strerror(errno));
		return FK_EXIT_ERROR;
	}
	fflush(NULL);
	pid_t child = fork();
	if (child < 0) {
		cli_err("fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return FK_EXIT_ERROR;
	}
	if (child == 0) {
		/* stap stops on Ctrl-C even when we were started with it ignored
		 * (a background job of a script) */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		if (kallsyms && (unshare(CLONE_NEWNS) ||
				 mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
				 mount(kallsyms, "/proc/kallsyms", NULL, MS_BIND, NULL))) {
			fprintf(stderr, "flamekit: --kallsyms: cannot bind %s over /proc/kallsyms "
				"in a private mount namespace: %s%s\n", kallsyms, strerror(errno),
				errno == EPERM ? " (needs root)" : "");
			_exit(127);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "flamekit: cannot run %s: %s%s\n", argv[0], strerror(errno),
			errno == ENOENT ? " (install systemtap, or give --stap PATH)" : "");
		_exit(127);
	}
	close(fds[1]);
	/* Ctrl-C goes to the whole process group: stap stops sampling and prints
	 * its aggregate; we must live on to read and draw it. */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old_int, old_term;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGTERM, &ign, &old_term);

	fk_parse_opts po;
	fk_parse_opts_init(&po);
	po.format = "folded";
	po.name = "<stap output>";
	fk_parse_stats st;
	int rc = fk_parse_fd(p, fds[0], &po, &st);
	close(fds[0]);
	int status = 0;
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	*stap_status = status;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
			return FK_EXIT_ERROR; /* the child said why */
		if (WIFEXITED(status))
			cli_err("stap failed (exit status %d); see its messages above",
				WEXITSTATUS(status));
		else
			cli_err("stap was killed by signal %d", WTERMSIG(status));
		return FK_EXIT_ERROR;
	}
	if (rc && rc != -FK_E_SKIPPED && rc != -FK_E_TRUNCATED) {
		cli_err("reading stap's output: %s", fk_strerror(rc));
		return FK_EXIT_ERROR;
	}
	if (fk_profile_total(p, 0) <= 0) {
		cli_err("stap printed no stacks (nothing sampled: is the process running, "
			"and the duration long enough?)");
		return FK_EXIT_ERROR;
	}
	return rc ? FK_EXIT_SKIPPED : FK_EXIT_OK;
}

/* Whether stap will load a kernel module on this machine: not with
 * --remote (runs elsewhere) or another --runtime, nor when the caller says
 * so with FLAMEKIT_STAP_NO_MODULE_CHECK=1. */
static bool needs_local_modules(const strv *opts, bool remote)
{
	const char *env = getenv("FLAMEKIT_STAP_NO_MODULE_CHECK");
	if (remote || (env && *env && strcmp(env, "0")))
		return false;
	for (size_t i = 0; i < opts->n; i++) {
		const char *o = opts->v[i];
		if (!strncmp(o, "--runtime=", 10) && strcmp(o + 10, "kernel"))
			return false;
	}
	return true;
}

/* The stap options the runtime check and the remote mode depend on. */
static void scan_stap_opts(const strv *opts, bool *remote, bool *own_runtime, const char **rel)
{
	for (size_t i = 0; i < opts->n; i++) {
		const char *o = opts->v[i];
		if (!strncmp(o, "--remote", 8))
			*remote = true;
		else if (!strncmp(o, "-R", 2))
			*own_runtime = true;
		else if (!strcmp(o, "-r") && i + 1 < opts->n)
			*rel = opts->v[++i];
		else if (!strncmp(o, "-r", 2) && o[2])
			*rel = o + 2;
	}
}

enum { OPT_PID, OPT_OBJECT, OPT_DURATION, OPT_OUTPUT, OPT_TITLE, OPT_DEPTH, OPT_STACKS,
       OPT_STAP_OPT, OPT_STAP, OPT_TAPSET_DIR, OPT_REMOTE, OPT_RELEASE, OPT_KALLSYMS };
/* Options taking a value: "-x V", "--long V" or "--long=V". */
static const struct value_opt {
	const char *letter, *name;
	int id;
} value_opts[] = {
	{ "-p", "--pid", OPT_PID },
	{ "-d", "--object", OPT_OBJECT },
	{ "-t", "--duration", OPT_DURATION },
	{ "-o", "--output", OPT_OUTPUT },
	{ NULL, "--title", OPT_TITLE },
	{ NULL, "--max-depth", OPT_DEPTH },
	{ NULL, "--max-stacks", OPT_STACKS },
	{ NULL, "--stap-opt", OPT_STAP_OPT },
	{ NULL, "--stap", OPT_STAP },
	{ NULL, "--tapset-dir", OPT_TAPSET_DIR },
	{ NULL, "--remote", OPT_REMOTE },
	{ "-r", "--kernel-release", OPT_RELEASE },
	{ NULL, "--kallsyms", OPT_KALLSYMS },
};

static int stap_run(int argc, char **argv)
{
	long pid = 0, duration = 0, depth = 64, stacks = 10240;
	int kind = STACKS_DEFAULT;
	bool off_cpu = false, folded = false, print_cmd = false;
	const char *out_path = NULL, *title = NULL, *tapset_dir = NULL;
	const char *remote = NULL, *release = NULL, *kallsyms = NULL;
	const char *stap = getenv("STAP");
	strv extra_d = { 0 }, extra_opts = { 0 };
	int ret = FK_EXIT_USAGE;
	if (!stap || !*stap)
		stap = "stap";

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int id = -1;
		for (size_t o = 0; o < sizeof(value_opts) / sizeof(value_opts[0]); o++) {
			const struct value_opt *vo = &value_opts[o];
			size_t n = strlen(vo->name);
			if ((vo->letter && !strcmp(a, vo->letter)) || !strcmp(a, vo->name)) {
				id = vo->id;
			} else if (!strncmp(a, vo->name, n) && a[n] == '=') {
				id = vo->id;
				v = a + n + 1;
			} else {
				continue;
			}
			break;
		}
		if (id >= 0) {
			if (!v) {
				if (i + 1 >= argc) {
					cli_err("%s needs a value", a);
					goto out;
				}
				v = argv[++i];
			}
			switch (id) {
			case OPT_PID:
				if (positive_int("--pid", v, INT_MAX, &pid))
					goto out;
				break;
			case OPT_OBJECT:
				strv_add(&extra_d, "%s", v);
				break;
			case OPT_DURATION:
				if (positive_int("--duration", v, 1000000000, &duration))
					goto out;
				break;
			case OPT_OUTPUT:
				out_path = v;
				break;
			case OPT_TITLE:
				title = v;
				break;
			case OPT_DEPTH:
				if (positive_int("--max-depth", v, 4096, &depth))
					goto out;
				break;
			case OPT_STACKS:
				if (positive_int("--max-stacks", v, 100000000, &stacks))
					goto out;
				break;
			case OPT_STAP_OPT:
				strv_add(&extra_opts, "%s", v);
				break;
			case OPT_STAP:
				stap = v;
				break;
			case OPT_TAPSET_DIR:
				tapset_dir = v;
				break;
			case OPT_REMOTE:
				remote = v;
				break;
			case OPT_RELEASE:
				release = v;
				break;
			case OPT_KALLSYMS:
				kallsyms = v;
				break;
			}
			continue;
		}
		int k = !strcmp(a, "--kernel") ? STACKS_KERNEL : !strcmp(a, "--user") ? STACKS_USER
			: !strcmp(a, "--both") ? STACKS_BOTH : STACKS_DEFAULT;
		if (k != STACKS_DEFAULT) {
			if (kind != STACKS_DEFAULT && kind != k) {
				cli_err("--kernel, --user and --both exclude each other");
				goto out;
			}
			kind = k;
		} else if (!strcmp(a, "--off-cpu")) {
			off_cpu = true;
		} else if (!strcmp(a, "--folded")) {
			folded = true;
		} else if (!strcmp(a, "--print-command")) {
			print_cmd = true;
		} else {
			cli_err("unknown option or argument '%s' (see flamekit stap --help)", a);
			goto out;
		}
	}
	if (!pid && kind == STACKS_DEFAULT) {
		cli_err("give -p PID, or --kernel to profile kernel stacks of every process");
		goto out;
	}
	if (kind == STACKS_DEFAULT)
		kind = STACKS_BOTH;
	if (!pid && kind != STACKS_KERNEL) {
		cli_err("-p PID is needed for user stacks (system-wide profiling is --kernel only)");
		goto out;
	}
	if (extra_d.oom || extra_opts.oom) {
		cli_err("out of memory");
		ret = FK_EXIT_ERROR;
		goto out;
	}

	ret = FK_EXIT_ERROR;
	if (kallsyms && !stap_kallsyms_file_ok(kallsyms)) {
		cli_err("--kallsyms %s: not a copy of /proc/kallsyms (no _stext symbol)", kallsyms);
		goto out;
	}
	bool is_remote = remote != NULL, own_runtime = false;
	const char *opt_rel = NULL, *why = NULL;
	scan_stap_opts(&extra_opts, &is_remote, &own_runtime, &opt_rel);
	char *rel = stap_target_release(release ? release : opt_rel, is_remote, &why);
	/* Problem 4 of docs/stap-tapset.md: kernel symbols of the wrong kernel. */
	if (kind != STACKS_USER && !kallsyms && (rel ? !stap_kernel_symbols_ok(rel) : is_remote)) {
		struct utsname u;
		uname(&u);
		char what[300];
		if (rel)
			snprintf(what, sizeof(what), "stap builds for kernel %s on a machine running %s, "
				 "and %s's debuginfo is not installed", rel, u.release, rel);
		else
			snprintf(what, sizeof(what), "with --remote, the kernel built for is unknown "
				 "(%s; give -r RELEASE)", why);
		cli_err("%s%s: stap would name kernel frames from this machine's /proc/kallsyms, "
			"wrong names for that kernel. Give --kallsyms FILE (a copy of /proc/kallsyms "
			"of a machine running it), install its kernel debuginfo, or profile --user "
			"stacks", print_cmd ? "warning: " : "", what);
		if (!print_cmd) {
			free(rel);
			goto out;
		}
	}
	char *runtime = NULL;
	if (!own_runtime) {
		bool failed;
		runtime = stap_runtime_for(stap, rel, true, &failed);
		if (failed) {
			cli_err("cannot make the fixed SystemTap runtime for %s (see above); give "
				"--stap-opt=-R --stap-opt=DIR", rel);
			free(rel);
			goto out;
		}
	}
	char *dir = tapset_dir ? strdup(tapset_dir) : find_tapset_dir();
	if (!dir || !is_file(dir, TAPSET_NAME)) {
		cli_err("cannot find %s%s%s (give --tapset-dir DIR or set FLAMEKIT_TAPSET_DIR)",
			TAPSET_NAME, tapset_dir ? " in " : "", tapset_dir ? tapset_dir : "");
		free(dir);
		free(rel);
		free(runtime);
		goto out;
	}

	/* A backtrace string holds up to "0x" + 16 digits + ' ' per frame. */
	long strlen_max = 512;
	while (strlen_max < depth * 19 + 1)
		strlen_max *= 2;
	/* The printing end probe counts about 25 statements per frame (measured in
	 * the pass-3 C of flamekit_print_folded); leave room. */
	long long actions = (long long)stacks * (depth * 2) * 32 + 100000;

	strv args = { 0 }, seen = { 0 };
	strv_add(&args, "%s", stap);
	if (runtime) {
		strv_add(&args, "-R");
		strv_add(&args, "%s", runtime);
	}
	if (remote) {
		strv_add(&args, "--remote");
		strv_add(&args, "%s", remote);
	} else if (release && !is_remote) {
		strv_add(&args, "-r");
		strv_add(&args, "%s", release);
	}
	free(rel);
	free(runtime);
	if (strcmp(dir, SYSTEM_TAPSET_DIR)) {
		strv_add(&args, "-I");
		strv_add(&args, "%s", dir);
	}
	free(dir);
	if (pid) {
		strv_add(&args, "-x");
		strv_add(&args, "%ld", pid);
	}
	strv_add(&args, "-DMAXBACKTRACE=%ld", depth);
	strv_add(&args, "-DMAXSTRINGLEN=%ld", strlen_max);
	strv_add(&args, "-DMAXMAPENTRIES=%ld", stacks);
	strv_add(&args, "-DMAXACTION_INTERRUPTIBLE=%lld", actions);
	if (off_cpu)
		strv_add(&args, "-DMAXACTION=10000");
	/* Kernel symbols and unwind data: without kernel debuginfo stap puts them
	 * in the module (from /proc/kallsyms) only when asked; kernel frames are
	 * bare addresses otherwise. */
	if (kind != STACKS_USER) {
		strv_add(&args, "-d");
		strv_add(&args, "kernel");
	}
	/* (a remote process's maps are on the remote machine: -d names its objects) */
	if (is_remote && pid && kind != STACKS_KERNEL && !extra_d.n)
		cli_err("warning: with --remote, give the process's objects with -d (and "
			"--stap-opt=--ldd): its user frames stay unnamed otherwise");
	if (pid && kind != STACKS_KERNEL && !is_remote &&
	    add_mapped_objects(&args, &seen, (int)pid) < 0) {
		strv_free(&args);
		strv_free(&seen);
		goto out;
	}
	for (size_t i = 0; i < extra_d.n; i++) {
		strv_add(&args, "-d");
		strv_add(&args, "%s", extra_d.v[i]);
	}
	for (size_t i = 0; i < extra_opts.n; i++)
		strv_add(&args, "%s", extra_opts.v[i]);
	char *script = NULL;
	char stop[64] = "";
	if (duration)
		snprintf(stop, sizeof(stop), "probe timer.s(%ld) { exit() } ", duration);
	if (asprintf(&script, "probe %s {} %sprobe end { flamekit_print_folded() }",
		     probe_name(kind, off_cpu), stop) < 0)
		script = NULL;
	strv_add(&args, "-e");
	strv_add(&args, "%s", script ? script : "");
	free(script);
	strv_free(&seen);
	if (args.oom || !script) {
		cli_err("out of memory");
		strv_free(&args);
		goto out;
	}

	if (print_cmd) {
		if (kallsyms) {
			fputs("unshare -m sh -c 'mount --make-rprivate / && mount --bind \"$0\" "
			      "/proc/kallsyms && exec \"$@\"' ", stdout);
			fkp_print_shell_word(stdout, kallsyms);
			fputc(' ', stdout);
		}
		for (size_t i = 0; i < args.n; i++) {
			if (i)
				fputc(' ', stdout);
			fkp_print_shell_word(stdout, args.v[i]);
		}
		fputc('\n', stdout);
		ret = fflush(stdout) || ferror(stdout) ? FK_EXIT_ERROR : FK_EXIT_OK;
		strv_free(&args);
		goto out;
	}

	/* stap's kernel runtime loads a module: without module support it would
	 * compile for minutes and then fail at insmod, so say so up front. */
	if (needs_local_modules(&extra_opts, is_remote) && access("/proc/modules", F_OK) != 0) {
		struct utsname u;
		uname(&u);
		cli_err("this kernel (%s) cannot load modules (no /proc/modules), so SystemTap's "
			"kernel runtime cannot run here; use --print-command and run the command "
			"on a machine that can, then `flamekit svg` its output", u.release);
		strv_free(&args);
		goto out;
	}

	fk_profile *p = fk_profile_new(0);
	if (!p) {
		cli_err("out of memory");
		strv_free(&args);
		goto out;
	}
	int status;
	ret = run_stap(args.v, kallsyms, p, &status);
	strv_free(&args);
	if (ret == FK_EXIT_OK || ret == FK_EXIT_SKIPPED) {
		fkp_out o;
		if (fkp_out_open(&o, out_path)) {
			ret = FK_EXIT_ERROR;
		} else {
			int rc = 0;
			if (folded) {
				rc = fk_profile_write_folded(p, o.f);
			} else {
				fk_svg_opts so;
				fk_svg_opts_init(&so);
				so.title = title;
				/* off-CPU scripts count microseconds: the library's preset */
				if (off_cpu) {
					fk_profile_set_kind(p, FK_KIND_OFFCPU);
					rc = fk_profile_set_unit(p, "us");
				}
				rc = rc ? rc : fk_render_for_path(p, &so, out_path, o.f);
			}
			if (rc)
				cli_err("%s: %s", out_path ? out_path : "<stdout>", fk_strerror(rc));
			if (fkp_out_close(&o, rc == 0) || rc)
				ret = FK_EXIT_ERROR;
		}
	}
	fk_profile_free(p);
out:
	strv_free(&extra_d);
	strv_free(&extra_opts);
	return ret;
}

const struct fk_cmd fk_cmd_stap = {
	.name = "stap",
	.summary = "profile a process with SystemTap and the flamekit tapset",
	.run = stap_run,
	.help = stap_help,
};

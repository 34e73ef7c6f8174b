/* cmd-stap.c - `flamekit stap`: builds the stap command line that profiles a
 * process with the flamekit tapset (limits, -d for every mapped object), runs it
 * and renders its folded output, or just prints the command. */
#include <errno.h>
#include <sched.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "cli.h"
#include "stap-runtime.h"

#define TAPSET_NAME "flamekit.stp"
#define SYSTEM_TAPSET_DIR "/usr/share/systemtap/tapset"

/* The command's own options (-o and the renderer's are the shared rows). */
struct stap_cli {
	int pid, duration, io;
	unsigned depth, stacks;
	bool kernel, user, both, off_cpu, off_wake, folded, print_cmd;
	const char *stap, *tapset_dir, *remote, *release, *kallsyms;
	fkp_argv objects, stap_opts;   /* -d OBJECT, --stap-opt OPT: repeatable */
};

/* a repeatable option: each value appended to the fkp_argv at the row's offset */
static int parse_more(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	if (!*v) {
		snprintf(err, n, "expected a value");
		return -1;
	}
	if (fkp_argv_push((fkp_argv *)((char *)opts + row->offset), v)) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	return 0;
}

#define OFF(f) offsetof(struct stap_cli, f)
static const fk_option stap_rows[] = {
	{ "pid", NULL, 'p', FK_OPT_INT, 0, OFF(pid), 1, INT_MAX, NULL, "PID",
	  "profile this process (stap -x PID)", NULL },
	{ "object", NULL, 'd', FK_OPT_CUSTOM, 0, OFF(objects), 0, 0, "OBJECT", "OBJECT",
	  "also load symbols/unwind data of OBJECT (repeatable)", parse_more },
	{ "kernel", NULL, 0, FK_OPT_FLAG, 0, OFF(kernel), 0, 0, NULL, NULL,
	  "kernel stacks only (without -p: every process)", NULL },
	{ "user", NULL, 0, FK_OPT_FLAG, 0, OFF(user), 0, 0, NULL, NULL, "user stacks only", NULL },
	{ "both", NULL, 0, FK_OPT_FLAG, 0, OFF(both), 0, 0, NULL, NULL,
	  "user stacks with kernel stacks on top (default with -p)", NULL },
	{ "off-cpu", NULL, 0, FK_OPT_FLAG, 0, OFF(off_cpu), 0, 0, NULL, NULL,
	  "time blocked off CPU by stack, in microseconds, instead of on-CPU samples", NULL },
	{ "io", NULL, 0, FK_OPT_CHOICE, 0, OFF(io), 0, 0, "read|write", "KIND",
	  "bytes by user stack instead of samples: each read(2)/write(2) that returns n > 0 "
	  "adds n (tapset flamekit.io.read/write)", NULL },
	{ "off-wake", NULL, 0, FK_OPT_FLAG, 0, OFF(off_wake), 0, 0, NULL, NULL,
	  "blocked time by blocked stack, '--', then the waker's stack leaf first "
	  "(tapset flamekit.offwake; microseconds)", NULL },
	{ "duration", NULL, 't', FK_OPT_INT, 0, OFF(duration), 1, 1000000000, NULL, "SEC",
	  "stop after SEC seconds (default: at Ctrl-C)", NULL },
	{ "folded", NULL, 0, FK_OPT_FLAG, 0, OFF(folded), 0, 0, NULL, NULL,
	  "write folded stacks instead of an SVG (as -o NAME.folded does)", NULL },
	{ "print-command", NULL, 0, FK_OPT_FLAG, 0, OFF(print_cmd), 0, 0, NULL, NULL,
	  "print the stap command line and exit (run it elsewhere, e.g. as root on the "
	  "machine to profile)", NULL },
	{ "max-depth", NULL, 0, FK_OPT_UINT, 0, OFF(depth), 1, 4096, NULL, "N",
	  "frames per stack (MAXBACKTRACE, default 64)", NULL },
	{ "max-stacks", NULL, 0, FK_OPT_UINT, 0, OFF(stacks), 1, 100000000, NULL, "N",
	  "unique stacks kept (MAXMAPENTRIES, default 10240)", NULL },
	{ "stap", NULL, 0, FK_OPT_TEXT, 0, OFF(stap), 0, 0, NULL, "PATH",
	  "the stap program (default $STAP or stap)", NULL },
	{ "tapset-dir", NULL, 0, FK_OPT_TEXT, 0, OFF(tapset_dir), 0, 0, NULL, "DIR",
	  "where flamekit.stp is (default: found next to this program, installed, or "
	  "$FLAMEKIT_TAPSET_DIR)", NULL },
	{ "stap-opt", NULL, 0, FK_OPT_CUSTOM, 0, OFF(stap_opts), 0, 0, "OPT", "OPT",
	  "extra stap option, e.g. --stap-opt=--all-modules (repeatable)", parse_more },
	{ "remote", NULL, 0, FK_OPT_TEXT, 0, OFF(remote), 0, 0, NULL, "URL",
	  "run the module on another machine (stap --remote, e.g. ssh://host or unix:SOCKET "
	  "of a VM's stapsh; needs -t: a remote run stopped from here ends without its "
	  "output); -p is then a process there: give its objects with -d", NULL },
	{ "kernel-release", NULL, 'r', FK_OPT_TEXT, 0, OFF(release), 0, 0, NULL, "REL",
	  "build for kernel REL (stap -r; with --remote, the kernel the remote machine runs)",
	  NULL },
	{ "kallsyms", NULL, 0, FK_OPT_TEXT, 0, OFF(kallsyms), 0, 0, NULL, "FILE",
	  "a copy of /proc/kallsyms of the kernel built for, used in place of this machine's "
	  "(root: stap runs in a private mount namespace with FILE bound over /proc/kallsyms)",
	  NULL },
};
#undef OFF

const fk_option *cli_stap_options(size_t *n)
{
	*n = sizeof(stap_rows) / sizeof(stap_rows[0]);
	return stap_rows;
}

static void stap_sets(fkp_optset sets[3], struct cli_io *io, struct stap_cli *sc, fk_svg_opts *so)
{
	size_t n;
	sets[0] = cli_io_set(io, false);
	sets[1] = (fkp_optset){ stap_rows, sizeof(stap_rows) / sizeof(stap_rows[0]), sc, NULL, NULL };
	sets[2] = (fkp_optset){ fk_svg_options(&n), n, so, "SVG options (as flamekit svg; not "
				"--flamechart or --range: stap's stacks come without times):", NULL };
}

static void stap_help(FILE *out)
{
	struct cli_io io;
	struct stap_cli sc;
	fk_svg_opts so;
	fkp_optset sets[3];
	stap_sets(sets, &io, &sc, &so);
	fputs("usage: flamekit stap -p PID [options] [SVG options]\n"
	      "       flamekit stap --kernel [options]         (system-wide kernel stacks)\n\n"
	      "Profiles with SystemTap and the flamekit tapset: stacks are aggregated in the\n"
	      "kernel, printed as folded stacks when stap stops (Ctrl-C, or after -t), and\n"
	      "drawn as a flame graph. The stap command line carries the limits and a -d for\n"
	      "every object mapped by the process (read from /proc/PID/maps), so user stacks\n"
	      "unwind and symbolize through shared libraries. The -o name picks the output as\n"
	      "for flamekit svg (FILE.html the page, FILE.pb.gz pprof, FILE.speedscope.json,\n"
	      "FILE.folded); every option is checked before stap starts.\n\n", out);
	for (int i = 0; i < 3; i++) {
		if (i == 2)
			fputc('\n', out);
		fkp_opt_help(out, &sets[i]);
	}
	fputs("\nSystemTap's runtime is checked against the kernel built for: where it needs a\n"
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
static int add_mapped_objects(fkp_argv *args, fkp_argv *seen, int pid)
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
		if (fkp_argv_has(seen, name))
			continue;
		if (fkp_argv_push(seen, name) || fkp_argv_push(args, "-d") || fkp_argv_push(args, name)) {
			added = -1;
			cli_err("out of memory");
			break;
		}
		added++;
	}
	free(line);
	fclose(f);
	return added;
}


enum stack_kind { STACKS_DEFAULT, STACKS_KERNEL, STACKS_USER, STACKS_BOTH };

static const char *probe_name(int kind, const struct stap_cli *sc)
{
	static const char *const on[] = { "", "flamekit.oncpu.kernel", "flamekit.oncpu.user",
					   "flamekit.oncpu.both" };
	static const char *const off[] = { "", "flamekit.offcpu.kernel", "flamekit.offcpu.user",
					    "flamekit.offcpu" };
	static const char *const wake[] = { "", "flamekit.offwake.kernel", "flamekit.offwake.user",
					     "flamekit.offwake" };
	static const char *const io[] = { "flamekit.io.read", "flamekit.io.write" };
	return sc->io >= 0 ? io[sc->io] : sc->off_wake ? wake[kind] : sc->off_cpu ? off[kind] : on[kind];
}

/* stap reads kernel symbols from /proc/kallsyms when it has no kernel debuginfo: with
 * --kallsyms, this process moves to a private mount namespace where FILE is bound over
 * it, and stap (its child, fkp_spawn) inherits that view. 0, or -1 after a message. */
static int bind_kallsyms(const char *file)
{
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(file, "/proc/kallsyms", NULL, MS_BIND, NULL)) {
		cli_err("--kallsyms: cannot bind %s over /proc/kallsyms in a private mount "
			"namespace: %s%s", file, strerror(errno), errno == EPERM ? " (needs root)" : "");
		return -1;
	}
	return 0;
}

/* Whether stap will load a kernel module on this machine: not with
 * --remote (runs elsewhere) or another --runtime, nor when the caller says
 * so with FLAMEKIT_STAP_NO_MODULE_CHECK=1. */
static bool needs_local_modules(const fkp_argv *opts, bool remote)
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
static void scan_stap_opts(const fkp_argv *opts, bool *remote, bool *own_runtime, const char **rel)
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

static int stap_run(int argc, char **argv)
{
	struct stap_cli sc = { .depth = 64, .io = -1, .stacks = 10240, .stap = getenv("STAP") };
	struct cli_io io = { 0 };
	fk_svg_opts so;
	fk_svg_opts_init(&so);
	struct cli_given given;
	cli_given_init(&given);
	fkp_optset sets[3];
	stap_sets(sets, &io, &sc, &so);
	fkp_argv args = { 0 }, seen = { 0 };
	char *rel = NULL, *runtime = NULL, *dir = NULL, *script = NULL;
	fk_profile *p = NULL;
	fkp_out o = { 0 };
	int ret = FK_EXIT_USAGE, out_kind = FK_OUTPUT_SVG;
	const char *stap = sc.stap && *sc.stap ? sc.stap : "stap";
	char **ops = argv + 1;
	int nops = 0;
	/* Every option is checked here, before stap starts. */
	if (cli_parse(argc, argv, sets, 3, ops, &nops, &given))
		goto out;
	if (nops) {
		cli_err("stap: unexpected argument '%s' (see flamekit stap --help)", ops[0]);
		goto out;
	}
	stap = sc.stap && *sc.stap ? sc.stap : "stap";
	if (sc.kernel + sc.user + sc.both > 1) {
		cli_err("--kernel, --user and --both exclude each other");
		goto out;
	}
	if ((sc.io >= 0) + sc.off_cpu + sc.off_wake > 1) {
		cli_err("--io, --off-cpu and --off-wake exclude each other");
		goto out;
	}
	if (sc.io >= 0 && (sc.kernel || sc.both)) {
		cli_err("--io records user stacks (the kernel's at a system call's exit is its "
			"exit path): not with --kernel or --both");
		goto out;
	}
	int kind = sc.kernel ? STACKS_KERNEL : sc.user || sc.io >= 0 ? STACKS_USER : STACKS_BOTH;
	if (!sc.pid && !sc.kernel && !sc.user && !sc.both) {
		cli_err("give -p PID, or --kernel to profile kernel stacks of every process");
		goto out;
	}
	if (!sc.pid && kind != STACKS_KERNEL) {
		cli_err("-p PID is needed for user stacks (system-wide profiling is --kernel only)");
		goto out;
	}
	if (!sc.print_cmd && cli_tracer_kind(io.output, sc.folded, &so, &given, "stap", &out_kind))
		goto out;

	ret = FK_EXIT_ERROR;
	const char *kallsyms = sc.kallsyms;
	if (kallsyms && !stap_kallsyms_file_ok(kallsyms)) {
		cli_err("--kallsyms %s: not a copy of /proc/kallsyms (no _stext symbol)", kallsyms);
		goto out;
	}
	bool is_remote = sc.remote != NULL, own_runtime = false;
	const char *opt_rel = NULL, *why = NULL;
	scan_stap_opts(&sc.stap_opts, &is_remote, &own_runtime, &opt_rel);
	/* stapsh, SystemTap's end of --remote (4.8), kills staprun when stap asks it to
	 * stop (Ctrl-C, a signal) and passes on nothing printed after that: the
	 * profile, printed by the end probe, is lost, and stap waits for a second
	 * request. A remote run must end by itself. */
	if (is_remote && !sc.duration) {
		cli_err("%s--remote needs -t SEC: a remote run stopped from here (Ctrl-C) "
			"ends without its output, as stapsh drops what the module prints then",
			sc.print_cmd ? "warning: " : "");
		if (!sc.print_cmd) {
			ret = FK_EXIT_USAGE;
			goto out;
		}
	}
	rel = stap_target_release(sc.release ? sc.release : opt_rel, is_remote, &why);
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
			"stacks", sc.print_cmd ? "warning: " : "", what);
		if (!sc.print_cmd)
			goto out;
	}
	if (!own_runtime) {
		bool failed;
		runtime = stap_runtime_for(stap, rel, true, &failed);
		if (failed) {
			cli_err("cannot make the fixed SystemTap runtime for %s (see above); give "
				"--stap-opt=-R --stap-opt=DIR", rel);
			goto out;
		}
	}
	dir = sc.tapset_dir ? strdup(sc.tapset_dir) : find_tapset_dir();
	if (!dir || !is_file(dir, TAPSET_NAME)) {
		cli_err("cannot find %s%s%s (give --tapset-dir DIR or set FLAMEKIT_TAPSET_DIR)",
			TAPSET_NAME, sc.tapset_dir ? " in " : "", sc.tapset_dir ? sc.tapset_dir : "");
		goto out;
	}

	/* A backtrace string holds up to "0x" + 16 digits + ' ' per frame. */
	long strlen_max = 512;
	while (strlen_max < (long)sc.depth * 19 + 1)
		strlen_max *= 2;
	/* The printing end probe counts about 25 statements per frame (measured in
	 * the pass-3 C of flamekit_print_folded); leave room. */
	long long actions = (long long)sc.stacks * (sc.depth * 2) * 32 + 100000;

	bool oom = false;
#define ADD(...) (oom |= fkp_argv_pushf(&args, __VA_ARGS__) != 0)
	ADD("%s", stap);
	if (runtime)
		ADD("-R"), ADD("%s", runtime);
	if (sc.remote)
		ADD("--remote"), ADD("%s", sc.remote);
	else if (sc.release && !is_remote)
		ADD("-r"), ADD("%s", sc.release);
	if (strcmp(dir, SYSTEM_TAPSET_DIR))
		ADD("-I"), ADD("%s", dir);
	if (sc.pid)
		ADD("-x"), ADD("%d", sc.pid);
	ADD("-DMAXBACKTRACE=%u", sc.depth);
	ADD("-DMAXSTRINGLEN=%ld", strlen_max);
	ADD("-DMAXMAPENTRIES=%u", sc.stacks);
	ADD("-DMAXACTION_INTERRUPTIBLE=%lld", actions);
	if (sc.off_cpu || sc.off_wake)
		ADD("-DMAXACTION=10000");
	/* Kernel symbols and unwind data: without kernel debuginfo stap puts them
	 * in the module (from /proc/kallsyms) only when asked; kernel frames are
	 * bare addresses otherwise. */
	if (kind != STACKS_USER)
		ADD("-d"), ADD("kernel");
	/* (a remote process's maps are on the remote machine: -d names its objects) */
	if (is_remote && sc.pid && kind != STACKS_KERNEL && !sc.objects.n)
		cli_err("warning: with --remote, give the process's objects with -d (and "
			"--stap-opt=--ldd): its user frames stay unnamed otherwise");
	if (sc.pid && kind != STACKS_KERNEL && !is_remote &&
	    add_mapped_objects(&args, &seen, sc.pid) < 0)
		goto out;
	for (size_t i = 0; i < sc.objects.n; i++)
		ADD("-d"), ADD("%s", sc.objects.v[i]);
	for (size_t i = 0; i < sc.stap_opts.n; i++)
		ADD("%s", sc.stap_opts.v[i]);
	char stop[64] = "";
	if (sc.duration)
		snprintf(stop, sizeof(stop), "probe timer.s(%d) { exit() } ", sc.duration);
	/* (off-wake alone prints with flamekit_print_offwake: the on/off-CPU
	 * aggregate is then left out of the module, and its memory with it) */
	if (asprintf(&script, "probe %s {} %sprobe end { flamekit_print_%s() }",
		     probe_name(kind, &sc), stop, sc.off_wake ? "offwake" : "folded") < 0)
		script = NULL;
	if (script)
		ADD("-e"), ADD("%s", script);
#undef ADD
	if (oom || !script) {
		cli_err("out of memory");
		goto out;
	}

	if (sc.print_cmd) {
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
		goto out;
	}

	/* stap's kernel runtime loads a module: without module support it would
	 * compile for minutes and then fail at insmod, so say so up front. */
	if (needs_local_modules(&sc.stap_opts, is_remote) && access("/proc/modules", F_OK) != 0) {
		struct utsname u;
		uname(&u);
		cli_err("this kernel (%s) cannot load modules (no /proc/modules), so SystemTap's "
			"kernel runtime cannot run here; use --print-command and run the command "
			"on a machine that can, then `flamekit svg` its output", u.release);
		goto out;
	}
	/* the output (a temp file beside it) before stap starts: a path that cannot be
	 * written costs no sampling run */
	if (fkp_out_open(&o, io.output))
		goto out;
	if (!(p = fk_profile_new(0))) {
		cli_err("out of memory");
		goto out;
	}
	if (kallsyms && bind_kallsyms(kallsyms))
		goto out;
	fk_parse_opts po;
	fk_parse_opts_init(&po);
	po.format = "folded";
	po.name = "<stap output>";
	ret = cli_tracer_run(args.v, p, &po, "stap", "install systemtap, or give --stap PATH", 0);
	if (ret == FK_EXIT_ERROR && is_remote && fkp_stop_signal())
		cli_err("(a --remote run stopped before its -t ends without its output: "
			"stapsh drops what the module prints then)");
	int rc = 0;
	if (ret == FK_EXIT_OK || ret == FK_EXIT_SKIPPED) {
		/* off-CPU scripts count microseconds: the library's preset */
		if (sc.off_cpu || sc.off_wake) {
			fk_profile_set_kind(p, sc.off_wake ? FK_KIND_OFFWAKE : FK_KIND_OFFCPU);
			rc = fk_profile_set_unit(p, "us");
		} else if (sc.io >= 0) {
			fk_profile_set_kind(p, FK_KIND_IO);
			rc = fk_profile_set_unit(p, "bytes");
		}
		rc = rc ? rc : fk_write_output(p, out_kind, &so, o.f);
		if (rc)
			cli_err("%s: %s", io.output ? io.output : "<stdout>", fk_strerror(rc));
		if (rc)
			ret = FK_EXIT_ERROR;
	}
out:
	if (o.f && fkp_out_close(&o, ret == FK_EXIT_OK || ret == FK_EXIT_SKIPPED))
		ret = FK_EXIT_ERROR;
	fk_profile_free(p);
	free(script);
	free(dir);
	free(rel);
	free(runtime);
	fkp_argv_free(&args);
	fkp_argv_free(&seen);
	fkp_argv_free(&sc.objects);
	fkp_argv_free(&sc.stap_opts);
	return ret;
}

const struct fk_cmd fk_cmd_stap = {
	.name = "stap",
	.summary = "profile a process with SystemTap and the flamekit tapset",
	.run = stap_run,
	.help = stap_help,
};

/* cmd-gdb.c - `flamekit gdb -p PID`: runs gdb in batch mode with the flamekit gdb
 * script and its `flame` command, which attaches, samples, writes the outputs and
 * detaches. The script is found next to this program (build tree or installed). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"

static void gdb_help(FILE *out)
{
	fputs("usage: flamekit gdb -p PID [-d SECONDS] [-F HZ] [-o out.svg] [--folded FILE]\n"
	      "                    [--samples FILE] [options] [SVG options]\n\n"
	      "Samples the stacks of every thread of a running process with gdb (no perf\n"
	      "needed): attaches, stops the process HZ times a second, records each thread's\n"
	      "stack, lets it run, and at the end writes the outputs and detaches. The process\n"
	      "keeps running. Ctrl-C ends sampling early and still writes what was taken.\n\n"
	      "  -p, --pid PID       the process (required)\n"
	      "  -d, --duration S    sample for S seconds (default: until Ctrl-C or exit)\n"
	      "  -F, --frequency HZ  stops per second (default 99)\n"
	      "  -o, --output FILE   SVG flame graph (FILE.html: the HTML viewer page;\n"
	      "                      FILE.pb.gz: pprof; FILE.speedscope.json: speedscope)\n"
	      "  --folded FILE       folded stacks ('-' = standard output; the default when\n"
	      "                      no output is named)\n"
	      "  --samples FILE      timestamped samples (for heat maps and flame charts)\n"
	      "  --threads           thread names as root frames\n"
	      "  --max-depth N       unwind at most N frames per thread\n"
	      "  --precise           gdb's own unwinder (inline frames of every frame; slow)\n"
	      "  -q, --quiet         no progress or summary lines\n"
	      "  --gdb PATH          the gdb to run (default $GDB or gdb)\n"
	      "  --script FILE       the flamekit gdb script (default: found next to this\n"
	      "                      program, installed, or $FLAMEKIT_GDB_SCRIPT)\n"
	      "SVG options: --title T --subtitle T --width PX --height PX --minwidth PX|N%\n"
	      "  --colors P --bgcolors C --countname N --nametype T --fonttype F --fontsize N\n"
	      "  --fontwidth N --notes T --sort name|weight --focus F --cp-file F --seed N\n"
	      "  --hash --random --reverse --inverted --flamechart\n\n"
	      "The same command works inside gdb: source the script and type `flame`\n"
	      "(see docs/gdb-plugin.md).\n\n"
	      "Exit status: 0 ok; 1 error (gdb or the sampling failed); 2 usage error.\n", out);
}

/* Options passed through to `flame` as they are: with a value / without. */
static const char *const value_opts[] = {
	"-d", "--duration", "-F", "--frequency", "-o", "--output", "--folded", "--samples",
	"--max-depth", "--title", "--subtitle", "--width", "--height", "--minwidth", "--colors",
	"--bgcolors", "--countname", "--nametype", "--fonttype", "--fontsize", "--fontwidth",
	"--notes", "--sort", "--focus", "--cp-file", "--seed", NULL,
};
static const char *const flag_opts[] = {
	"--threads", "--precise", "-q", "--quiet", "--hash", "--random", "--reverse",
	"--inverted", "--flamechart", NULL,
};

static bool in_list(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return true;
	return false;
}

/* Append s to buf quoted for gdb's argument splitter (libiberty buildargv:
 * backslash escapes anything, quotes group). */
static int append_quoted(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t need = *len + 2 * strlen(s) + 4;
	if (need > *cap) {
		size_t n = need * 2;
		char *p = realloc(*buf, n);
		if (!p)
			return -1;
		*buf = p;
		*cap = n;
	}
	char *o = *buf + *len;
	*o++ = ' ';
	*o++ = '\'';
	for (; *s; s++) {
		if (*s == '\\' || *s == '\'' || *s == '"')
			*o++ = '\\';
		*o++ = *s;
	}
	*o++ = '\'';
	*o = 0;
	*len = (size_t)(o - *buf);
	return 0;
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* flamekit.py: $FLAMEKIT_GDB_SCRIPT, then beside this program (build tree:
 * build/flamekit + build/gdb/), then the installed layout (bin/../share/flamekit/gdb). */
static char *find_script(void)
{
	const char *env = getenv("FLAMEKIT_GDB_SCRIPT");
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
	static const char *const rel[] = { "gdb/flamekit.py", "../share/flamekit/gdb/flamekit.py" };
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		char path[PATH_MAX + 64];
		snprintf(path, sizeof(path), "%s/%s", exe, rel[i]);
		if (is_file(path)) {
			char *r = realpath(path, NULL);
			return r ? r : strdup(path);
		}
	}
	return NULL;
}

static int gdb_run(int argc, char **argv)
{
	const char *pid = NULL, *gdb = getenv("GDB"), *script_opt = NULL;
	char *cmd = NULL;
	size_t len = 0, cap = 0;
	bool have_output = false;
	if (!gdb || !*gdb)
		gdb = "gdb";
	cap = 256;
	cmd = malloc(cap);
	if (!cmd)
		goto oom;
	memcpy(cmd, "flame", 6);
	len = 5;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		char name[64];
		size_t nl = eq && a[0] == '-' && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
		if (nl >= sizeof(name))
			nl = sizeof(name) - 1;
		memcpy(name, a, nl);
		name[nl] = 0;
		const char *val = NULL;
		if (!strcmp(name, "-p") || !strcmp(name, "--pid") || !strcmp(name, "--gdb") ||
		    !strcmp(name, "--script") || in_list(value_opts, name)) {
			if (eq && nl == (size_t)(eq - a)) {
				val = eq + 1;
			} else if (i + 1 < argc) {
				val = argv[++i];
			} else {
				cli_err("gdb: option %s needs a value", name);
				free(cmd);
				return FK_EXIT_USAGE;
			}
		} else if (!in_list(flag_opts, name)) {
			cli_err("gdb: unknown option '%s' (see flamekit gdb --help)", a);
			free(cmd);
			return FK_EXIT_USAGE;
		}
		if (!strcmp(name, "-p") || !strcmp(name, "--pid")) {
			char *end;
			long v = strtol(val, &end, 10);
			if (*end || end == val || v <= 0 || v > INT_MAX) {
				cli_err("gdb: -p: not a process id: %s", val);
				free(cmd);
				return FK_EXIT_USAGE;
			}
			pid = val;
			continue;
		}
		if (!strcmp(name, "--gdb")) {
			gdb = val;
			continue;
		}
		if (!strcmp(name, "--script")) {
			script_opt = val;
			continue;
		}
		if (!strcmp(name, "-o") || !strcmp(name, "--output") || !strcmp(name, "--folded") ||
		    !strcmp(name, "--samples"))
			have_output = true;
		if (append_quoted(&cmd, &len, &cap, name) < 0 ||
		    (val && append_quoted(&cmd, &len, &cap, val) < 0))
			goto oom;
	}
	if (!pid) {
		cli_err("gdb: -p PID is required (see flamekit gdb --help)");
		free(cmd);
		return FK_EXIT_USAGE;
	}
	if (append_quoted(&cmd, &len, &cap, "-p") < 0 || append_quoted(&cmd, &len, &cap, pid) < 0)
		goto oom;
	if (!have_output && (append_quoted(&cmd, &len, &cap, "--folded") < 0 ||
			     append_quoted(&cmd, &len, &cap, "-") < 0))
		goto oom;
	char *script = script_opt ? strdup(script_opt) : find_script();
	if (!script || !is_file(script)) {
		cli_err("gdb: cannot find the flamekit gdb script (flamekit.py)%s%s; use --script FILE",
			script ? ": " : "", script ? script : "");
		free(script);
		free(cmd);
		return FK_EXIT_ERROR;
	}
	char *args[] = { (char *)gdb, "-batch", "-nx", "-q", "-x", script, "-ex", cmd, NULL };
	/* Ctrl-C belongs to gdb (the flame command ends sampling and writes what it
	 * has): this process only waits. */
	struct sigaction ign, old_int, old_quit;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	fflush(stdout);
	pid_t child = fork();
	if (child < 0) {
		cli_err("gdb: fork: %s", strerror(errno));
		free(script);
		free(cmd);
		return FK_EXIT_ERROR;
	}
	if (child == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(gdb, args);
		fprintf(stderr, "flamekit: gdb: cannot run %s: %s\n", gdb, strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(child, &status, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	free(script);
	free(cmd);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return FK_EXIT_OK;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return FK_EXIT_ERROR;
	cli_err("gdb: %s %s %d", gdb, WIFEXITED(status) ? "failed with exit status" : "died of signal",
		WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return FK_EXIT_ERROR;
oom:
	cli_err("gdb: out of memory");
	free(cmd);
	return FK_EXIT_ERROR;
}

const struct fk_cmd fk_cmd_gdb = {
	.name = "gdb",
	.summary = "sample a running process's stacks with gdb (the flame command)",
	.run = gdb_run,
	.help = gdb_help,
};

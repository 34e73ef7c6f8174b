/* cmd-gdb.c - `flamekit gdb -p PID`: runs gdb in batch mode with the flamekit gdb
 * script and its `flame` command, which attaches, samples, writes the outputs and
 * detaches. The script is found next to this program (build tree or installed). */
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "prog/flame-opts.h"

struct gdb_cli {
	const char *gdb, *script;
};

static const fk_option gdb_cli_rows[] = {
	{ "gdb", NULL, 0, FK_OPT_TEXT, 0, offsetof(struct gdb_cli, gdb), 0, 0, NULL, "PATH",
	  "the gdb to run (default $GDB or gdb)", NULL },
	{ "script", NULL, 0, FK_OPT_TEXT, 0, offsetof(struct gdb_cli, script), 0, 0, NULL, "FILE",
	  "the flamekit gdb script (default: found next to this program, installed, or "
	  "$FLAMEKIT_GDB_SCRIPT)", NULL },
};

static void gdb_sets(fkp_optset sets[3], struct gdb_cli *gc, struct fkp_flame_opts *fo,
		     fk_svg_opts *so)
{
	size_t n;
	sets[0] = (fkp_optset){ fkp_flame_options(&n), n, fo, NULL, NULL };
	sets[1] = (fkp_optset){ gdb_cli_rows, 2, gc, NULL, NULL };
	sets[2] = (fkp_optset){ fk_svg_options(&n), n, so, "SVG options (as flamekit svg):", NULL };
}

static void gdb_help(FILE *out)
{
	struct gdb_cli gc;
	struct fkp_flame_opts fo;
	fk_svg_opts so;
	fkp_optset sets[3];
	gdb_sets(sets, &gc, &fo, &so);
	fputs("usage: flamekit gdb -p PID [-d SECONDS] [-F HZ] [-o out.svg] [--folded FILE]\n"
	      "                    [--samples FILE] [options] [SVG options]\n\n"
	      "Samples the stacks of every thread of a running process with gdb (no perf\n"
	      "needed): attaches, stops the process HZ times a second, records each thread's\n"
	      "stack, lets it run, and at the end writes the outputs and detaches. The process\n"
	      "keeps running, whatever happens to gdb or to this program. Ctrl-C, SIGTERM\n"
	      "or SIGHUP end sampling early and still write what was taken (exit 0); a\n"
	      "second one aborts. Every option and output path is checked before gdb starts.\n\n", out);
	for (int i = 0; i < 3; i++)
		fkp_opt_help(out, &sets[i]);
	fputs("\nThe same command works inside gdb: source the script and type `flame`\n"
	      "(see docs/gdb-plugin.md).\n\n"
	      "Exit status: 0 ok; 1 error (gdb or the sampling failed); 2 usage error.\n", out);
}

/* Append s to buf quoted for gdb's argument splitter (libiberty buildargv:
 * backslash escapes anything, quotes group). */
static int append_quoted(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t need = *len + 2 * strlen(s) + 4;
	if (fkp_grow((void **)buf, cap, need, 1))
		return -1;
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

/* The `flame` command line being built: each option checked here is passed on
 * by its full name (abbreviations resolved), with its value. */
struct flame_cmd {
	char *buf;
	size_t len, cap;
	const fk_option *gdb_rows;
	bool oom;
};

static int pass_on(void *ctx, const fk_option *row, const char *value)
{
	struct flame_cmd *c = ctx;
	if (row >= c->gdb_rows && row < c->gdb_rows + 2)
		return 0;   /* ours, not the command's */
	char *word;
	if (asprintf(&word, "--%s%s%s", row->name, value ? "=" : "", value ? value : "") < 0) {
		c->oom = true;
		return -1;
	}
	if (append_quoted(&c->buf, &c->len, &c->cap, word))
		c->oom = true;
	free(word);
	return c->oom ? -1 : 0;
}

static int gdb_run(int argc, char **argv)
{
	struct gdb_cli gc = { getenv("GDB"), NULL };
	struct fkp_flame_opts fo;
	fkp_flame_opts_init(&fo);
	fk_svg_opts so;
	fk_svg_opts_init(&so);
	fkp_optset sets[3];
	gdb_sets(sets, &gc, &fo, &so);
	struct flame_cmd c = { .gdb_rows = gdb_cli_rows };
	if (fkp_grow((void **)&c.buf, &c.cap, 64, 1))
		goto oom;
	strcpy(c.buf, "flame");
	c.len = 5;
	fkp_parser parser = { .sets = sets, .nsets = 3, .hint = "see flamekit gdb --help", .seen = pass_on, .ctx = &c };
	char **ops = argv + 1;
	int nops = 0;
	if (fkp_opt_parse(&parser, argc, argv, ops, &nops)) {
		free(c.buf);
		if (c.oom)
			goto oom;
		return FK_EXIT_USAGE;
	}
	if (nops) {
		cli_err("gdb: unexpected argument '%s' (see flamekit gdb --help)", ops[0]);
		free(c.buf);
		return FK_EXIT_USAGE;
	}
	/* all of it before gdb starts: a bad palette must not cost a sampling run */
	if (fk_svg_opts_check(&so)) {
		free(c.buf);
		return FK_EXIT_USAGE;
	}
	if (fkp_flame_opts_check(&fo)) {
		cli_err("gdb: %s", fkp_flame_opts_check(&fo));
		free(c.buf);
		return FK_EXIT_USAGE;
	}
	if (!fo.pid) {
		cli_err("gdb: -p PID is required (see flamekit gdb --help)");
		free(c.buf);
		return FK_EXIT_USAGE;
	}
	/* and every output: a missing directory must not cost a sampling run */
	if (fkp_out_check(fo.svg) || fkp_out_check(fo.folded) || fkp_out_check(fo.samples)) {
		free(c.buf);
		return FK_EXIT_ERROR;
	}
	const char *gdb = gc.gdb && *gc.gdb ? gc.gdb : "gdb";
	if (!fo.svg && !fo.folded && !fo.samples &&
	    (append_quoted(&c.buf, &c.len, &c.cap, "--folded") ||
	     append_quoted(&c.buf, &c.len, &c.cap, "-")))
		goto oom;
	static const char *const rel[] = { "gdb/flamekit.py", "../share/flamekit/gdb/flamekit.py" };
	const char *env = getenv("FLAMEKIT_GDB_SCRIPT");
	char *script = gc.script ? strdup(gc.script) : env && *env ? strdup(env)
				 : fkp_find_beside_exe(rel, 2);
	struct stat st;
	if (!script || stat(script, &st) || !S_ISREG(st.st_mode)) {
		cli_err("gdb: cannot find the flamekit gdb script (flamekit.py)%s%s; use --script FILE",
			script ? ": " : "", script ? script : "");
		free(script);
		free(c.buf);
		return FK_EXIT_ERROR;
	}
	char *args[] = { (char *)gdb, "-batch", "-nx", "-q", "-x", script, "-ex", c.buf, NULL };
	/* prog.h's signal policy: Ctrl-C, SIGTERM or SIGHUP end sampling (gdb's flame
	 * command draws what it has and lets the process go), a second one aborts;
	 * if this program is killed, gdb is asked to stop the same way. A gdb that
	 * dies leaves nothing stopped: the command's guardian continues the target. */
	/* gdb learns of stop requests through a pipe too (a signal that comes while
	 * gdb is still loading is lost to it), and of our death by its end of file:
	 * the read end stays open across exec, ours is close-on-exec */
	int sp[2] = { -1, -1 };
	char me[32], fdname[32];
	if (pipe2(sp, O_CLOEXEC | O_NONBLOCK) == 0 && fcntl(sp[0], F_SETFD, 0) == 0) {
		snprintf(fdname, sizeof(fdname), "%d", sp[0]);
		setenv("FLAMEKIT_GDB_STOP_FD", fdname, 1);
		fkp_spawn_notify(sp[1]);
	}
	snprintf(me, sizeof(me), "%ld", (long)getpid());
	setenv("FLAMEKIT_GDB_SUPERVISOR", me, 1);  /* our forwarded signals are one request */
	pid_t child = fkp_spawn(args, -1, NULL, false);
	if (sp[0] >= 0)
		close(sp[0]);
	int rc = child < 0 ? -1 : fkp_wait(child);
	fkp_spawn_notify(-1);
	if (sp[1] >= 0)
		close(sp[1]);
	free(script);
	free(c.buf);
	if (child > 0 && (rc != 0 || fkp_aborted())) {
		/* gdb's unfinished outputs (written as PATH.tmp.GDBPID) go: aborted, or gdb died
		 * or failed while writing them (a gdb that ends well has renamed them) */
		const char *outs[] = { fo.svg, fo.folded, fo.samples };
		for (int i = 0; i < 3; i++) {
			char tmp[4200];
			if (outs[i] && strcmp(outs[i], "-") &&
			    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", outs[i], (long)child) < (int)sizeof(tmp))
				unlink(tmp);
		}
	}
	if (fkp_aborted()) {
		cli_err("gdb: aborted (a second signal)");
		return FK_EXIT_ERROR;
	}
	if (rc == 0)
		return FK_EXIT_OK;
	if (rc == 127 || rc < 0)
		return FK_EXIT_ERROR; /* could not start: the child said why */
	if (rc > 128)
		cli_err("gdb: %s died of signal %d", gdb, rc - 128);
	else
		cli_err("gdb: %s failed with exit status %d", gdb, rc);
	return FK_EXIT_ERROR;
oom:
	cli_err("gdb: out of memory");
	free(c.buf);
	return FK_EXIT_ERROR;
}

const struct fk_cmd fk_cmd_gdb = {
	.name = "gdb",
	.summary = "sample a running process's stacks with gdb (the flame command)",
	.run = gdb_run,
	.help = gdb_help,
};

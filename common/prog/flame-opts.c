/* flame-opts.c - the options of the gdb `flame` command, one table read by the
 * command itself (through the Python module) and by `flamekit gdb`, which checks
 * them all before it starts gdb; and the tables by name (flamekit options, Python). */
#include <limits.h>
#include <stddef.h>
#include <string.h>
#include "flame-opts.h"

#define OFF(f) offsetof(struct fkp_flame_opts, f)
static const fk_option rows[] = {
	{ "frequency", NULL, 'F', FK_OPT_DOUBLE, 0, OFF(hz), 0.01, 10000, NULL, "HZ",
	  "stops per second (default 99)", NULL },
	{ "duration", NULL, 'd', FK_OPT_DOUBLE, 0, OFF(duration), 0, 1e9, NULL, "SECONDS",
	  "how long to sample; 0 (default) = until Ctrl-C or the process exits", NULL },
	{ "output", NULL, 'o', FK_OPT_TEXT, 0, OFF(svg), 0, 0, NULL, "FILE",
	  "interactive SVG flame graph (FILE.html: the HTML viewer page; FILE.pb.gz: "
	  "pprof; FILE.speedscope.json: speedscope)", NULL },
	{ "folded", NULL, 0, FK_OPT_TEXT, 0, OFF(folded), 0, 0, NULL, "FILE",
	  "folded stacks ('-' = standard output, the default when no output is named)", NULL },
	{ "samples", NULL, 0, FK_OPT_TEXT, 0, OFF(samples), 0, 0, NULL, "FILE",
	  "timestamped samples (flamekit samples v1: heat maps, flame charts)", NULL },
	{ "threads", NULL, 0, FK_OPT_FLAG, 0, OFF(threads), 0, 0, NULL, NULL,
	  "thread names as root frames", NULL },
	{ "max-depth", NULL, 0, FK_OPT_UINT, 0, OFF(max_depth), 1, 1000000, NULL, "N",
	  "unwind at most N frames per thread (innermost kept)", NULL },
	{ "precise", NULL, 0, FK_OPT_FLAG, 0, OFF(precise), 0, 0, NULL, NULL,
	  "walk stacks with gdb's own unwinder (inline frames of every frame; slow)", NULL },
	{ "addrs", NULL, 0, FK_OPT_FLAG, 0, OFF(addrs), 0, 0, NULL, NULL,
	  "name code without symbols by address (module+0xOFFSET, as addr2line takes "
	  "it) instead of one [module] frame", NULL },
	{ "python", NULL, 0, FK_OPT_FLAG, 0, OFF(python), 0, 0, NULL, NULL,
	  "CPython 3.11 frames in place of the interpreter's eval loop: qualname (file.py), "
	  "native code under its Python caller (other versions are refused)", NULL },
	{ "python-lines", NULL, 0, FK_OPT_FLAG, 0, OFF(python_lines), 0, 0, NULL, NULL,
	  "as --python, with the line each Python frame is at: qualname (file.py:LINE)", NULL },
	{ "pid", NULL, 'p', FK_OPT_INT, 0, OFF(pid), 1, INT_MAX, NULL, "PID",
	  "attach PID first and detach at the end", NULL },
	{ "quiet", NULL, 'q', FK_OPT_FLAG, 0, OFF(quiet), 0, 0, NULL, NULL,
	  "no progress or summary lines", NULL },
};

const fk_option *fkp_flame_options(size_t *n)
{
	*n = sizeof(rows) / sizeof(rows[0]);
	return rows;
}

void fkp_flame_opts_init(struct fkp_flame_opts *o)
{
	*o = (struct fkp_flame_opts){ .hz = 99 };
}

const char *fkp_flame_opts_check(const struct fkp_flame_opts *o)
{
	if ((o->python || o->python_lines) && o->precise)
		return "--python reads frames at the fast path's stop: not with --precise";
	return NULL;
}

const fk_option *fkp_table(const char *name, size_t *n)
{
	if (!strcmp(name, "svg"))
		return fk_svg_options(n);
	if (!strcmp(name, "heatmap"))
		return fk_heatmap_options(n);
	if (!strcmp(name, "input"))
		return fk_parse_options(n);
	if (!strcmp(name, "gdb"))
		return fkp_flame_options(n);
	if (!strcmp(name, "gate"))
		return fk_gate_options(n);
	*n = 0;
	return NULL;
}

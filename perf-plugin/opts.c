/* opts.c - the KEY[=VALUE] options of flamekit-dlfilter.so (--dlarg) and of
 * perf-flame (the same keys as --long options): the dlfilter's own rows here,
 * the renderer's and the name-tidying ones from the library's tables. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dlfilter.h"

void fkd_opts_init(struct fkd_opts *o)
{
	memset(o, 0, sizeof(*o));
	fk_parse_opts_init(&o->popts);
	fk_svg_opts_init(&o->svg);
	o->max_stack = 127;
}

/* offcpu-min=US: microseconds into nanoseconds */
static int parse_offcpu_min(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	char *end;
	double d = strtod(v, &end);
	if (end == v || *end || !(d >= 0 && d <= 1e12)) {
		snprintf(err, n, "expected microseconds from 0 to 1e12");
		return -1;
	}
	((struct fkd_opts *)opts)->offcpu_min_ns = (int64_t)(d * 1000.0);
	return 0;
}

/* outputs: a path, "-" for stdout */
static int parse_path(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	if (!*v) {
		snprintf(err, n, "needs a path");
		return -1;
	}
	*(const char **)((char *)opts + row->offset) = v;
	return 0;
}

#define OFF(f) offsetof(struct fkd_opts, f)
static const fk_option rows[] = {
	{ "folded", NULL, 0, FK_OPT_CUSTOM, 0, OFF(folded), 0, 0, "PATH", "PATH",
	  "folded stacks (\"-\" = stdout; the default output)", parse_path },
	{ "svg", NULL, 0, FK_OPT_CUSTOM, 0, OFF(svg_path), 0, 0, "PATH", "PATH",
	  "interactive SVG flame graph (PATH.html: the HTML viewer page)", parse_path },
	{ "samples", NULL, 0, FK_OPT_CUSTOM, 0, OFF(samples), 0, 0, "PATH", "PATH",
	  "timestamped samples (flamekit samples v1)", parse_path },
	{ "pid", NULL, 0, FK_OPT_FLAG, 0, OFF(pid), 0, 0, NULL, NULL,
	  "process name root as comm-PID", NULL },
	{ "tid", NULL, 0, FK_OPT_FLAG, 0, OFF(tid), 0, 0, NULL, NULL,
	  "process name root as comm-PID/TID", NULL },
	{ "kernel-only", NULL, 0, FK_OPT_FLAG, 0, OFF(kernel_only), 0, 0, NULL, NULL,
	  "keep only kernel frames", NULL },
	{ "user-only", NULL, 0, FK_OPT_FLAG, 0, OFF(user_only), 0, 0, NULL, NULL,
	  "keep only user frames", NULL },
	{ "count", NULL, 0, FK_OPT_BCHOICE, 0, OFF(count_samples), 0, 0, "period|samples",
	  "period|samples", "sum periods (default) or count samples", NULL },
	{ "event", NULL, 0, FK_OPT_TEXT, 0, OFF(event), 0, 0, NULL, "NAME",
	  "on-CPU event to fold (default: the first seen)", NULL },
	{ "max-stack", NULL, 0, FK_OPT_UINT, 0, OFF(max_stack), 1, 65535, NULL, "N",
	  "frames per stack (default 127, like perf script)", NULL },
	{ "exact-ret", NULL, 0, FK_OPT_FLAG, 0, OFF(exact_ret), 0, 0, NULL, NULL,
	  "look up return addresses as they are (default: at addr-1)", NULL },
	{ "mode", NULL, 0, FK_OPT_CHOICE, 0, OFF(mode), 0, 0, "auto|cpu|offcpu|offwake",
	  "auto|cpu|offcpu|offwake",
	  "what to fold; auto folds sched:sched_switch as off-CPU time and other events as "
	  "on-CPU (both = combined graph), and with sched:sched_waking (or sched_wakeup) as off-wake time "
	  "(blocked stack;--;waker stack)", NULL },
	{ "offcpu-min", NULL, 0, FK_OPT_CUSTOM, 0, OFF(offcpu_min_ns), 0, 0, "US", "US",
	  "ignore off-CPU intervals shorter than US microseconds", parse_offcpu_min },
	{ "blocked-only", NULL, 0, FK_OPT_FLAG, 0, OFF(blocked_only), 0, 0, NULL, NULL,
	  "off-CPU: skip switch-outs of runnable (preempted) threads", NULL },
	{ "sched-format", NULL, 0, FK_OPT_TEXT, 0, OFF(sched_format), 0, 0, NULL, "FILE",
	  "sched_switch format (default: from tracefs)", NULL },
	{ "weight", NULL, 0, FK_OPT_TEXT, 0, OFF(weight), 0, 0, NULL, "FIELD",
	  "weigh each sample of the event by this field of its record (ret, bytes_alloc, "
	  "bytes, size...; negative values are counted, not summed)", NULL },
	{ "weight-format", NULL, 0, FK_OPT_TEXT, 0, OFF(weight_format), 0, 0, NULL, "FILE",
	  "the weighed event's format (default: from tracefs)", NULL },
	{ "dwarf", NULL, 0, FK_OPT_BCHOICE, 0, OFF(dwarf_partial), 0, 0, "error|partial",
	  "error|partial", "partial: accept --call-graph dwarf recordings (user frames are lost)",
	  NULL },
	{ "verbose", NULL, 0, FK_OPT_FLAG, 0, OFF(verbose), 0, 0, NULL, NULL,
	  "print counts at the end", NULL },
};

/* The name-tidying options of the perf script text path that the dlfilter has. */
static const char *const tidy_names[] = { "kernel", "jit", "all", "full-names", "rust-names",
					  "cxx-names", NULL };

const fk_option *fkd_options(size_t *n)
{
	*n = sizeof(rows) / sizeof(rows[0]);
	return rows;
}

void fkd_optsets(fkp_optset sets[FKD_NSETS], struct fkd_opts *o)
{
	size_t n;
	sets[0] = (fkp_optset){ rows, sizeof(rows) / sizeof(rows[0]), o, "outputs and folding:",
				NULL };
	sets[1] = (fkp_optset){ fk_parse_options(&n), n, &o->popts, NULL, tidy_names };
	sets[2] = (fkp_optset){ fk_svg_options(&n), n, &o->svg, "SVG (as flamekit svg):", NULL };
}

void fkd_usage(FILE *out, bool dashes)
{
	struct fkd_opts o;
	fkp_optset sets[FKD_NSETS];
	fkd_optsets(sets, &o);
	for (int s = 0; s < FKD_NSETS; s++) {
		if (sets[s].title)
			fprintf(out, "%s\n", sets[s].title);
		for (size_t r = 0; r < sets[s].n; r++) {
			const fk_option *row = &sets[s].rows[r];
			if (!fkp_optset_has(&sets[s], row) || (row->flags & FK_OPTF_HIDDEN))
				continue;
			char left[96];
			fkp_opt_synopsis(left, sizeof(left), row, dashes);
			fprintf(out, "  %-22s %s\n", left, row->help);
		}
	}
}

int fkd_parse_arg(struct fkd_opts *o, const char *arg)
{
	fkp_optset sets[FKD_NSETS];
	fkd_optsets(sets, o);
	fkp_parser p = { .sets = sets, .nsets = FKD_NSETS };
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
	char key[64];
	if (klen == 0 || klen >= sizeof(key) || arg[0] == '-') {
		fkp_err("malformed option '%s' (expected KEY or KEY=VALUE)", arg);
		return -1;
	}
	memcpy(key, arg, klen);
	key[klen] = 0;
	if (!strcmp(key, "help")) {
		fprintf(stderr, "usage: perf script --dlfilter flamekit-dlfilter.so [--dlarg KEY[=VALUE]]...\n");
		fkd_usage(stderr, false);
		return -1;
	}
	const fkp_optset *set;
	const fk_option *row = fkp_opt_lookup(&p, key, &set);
	if (!row) {
		fkp_err("unknown option '%s' (--dlarg help lists them)", key);
		return -1;
	}
	char err[512];
	if (fk_option_apply(row, set->obj, key, eq ? eq + 1 : NULL, err, sizeof(err))) {
		fkp_err("%s", err);
		return -1;
	}
	return 0;
}

int fkd_opts_check(const struct fkd_opts *o)
{
	if (o->kernel_only && o->user_only) {
		fkp_err("kernel-only and user-only exclude each other");
		return -1;
	}
	if (o->weight && o->count_samples) {
		fkp_err("weight and count=samples exclude each other");
		return -1;
	}
	if (o->weight && o->mode == MODE_OFFCPU) {
		fkp_err("weight weighs on-CPU events' samples: not with mode=offcpu");
		return -1;
	}
	/* every renderer option now, before perf reads any sample */
	return fk_svg_opts_check(&o->svg) ? -1 : 0;
}

const char *fkd_usage_text(void)
{
	static char *text;
	size_t len;
	if (!text) {
		FILE *f = open_memstream(&text, &len);
		if (!f)
			return "";
		fputs("usage: perf script --dlfilter flamekit-dlfilter.so [--dlarg KEY[=VALUE]]...\n", f);
		fkd_usage(f, false);
		fclose(f);
	}
	return text ? text : "";
}

bool fkd_needs_samples(const struct fkd_opts *o)
{
	return o->samples || o->svg.flamechart || !isnan(o->svg.range_start) ||
	       !isnan(o->svg.range_end);
}

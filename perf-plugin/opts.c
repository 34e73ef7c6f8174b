/* opts.c - the KEY[=VALUE] options shared by flamekit-dlfilter.so (--dlarg)
 * and perf-flame (which maps its --long options onto them). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dlfilter.h"

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", fkd_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void fkd_opts_init(struct fkd_opts *o)
{
	memset(o, 0, sizeof(*o));
	fk_parse_opts_init(&o->popts);
	fk_svg_opts_init(&o->svg);
	o->max_stack = 127;
}


const char *const fkd_usage_text =
	"usage: perf script --dlfilter flamekit-dlfilter.so [--dlarg OPTION]...\n"
	"outputs (default: folded stacks on stdout):\n"
	"  folded=PATH        folded stacks (\"-\" = stdout)\n"
	"  svg=PATH           interactive SVG flame graph (PATH.html: the HTML viewer page)\n"
	"  samples=PATH       timestamped samples (flamekit samples v1)\n"
	"folding:\n"
	"  pid | tid          process name root as comm-PID or comm-PID/TID\n"
	"  kernel-only | user-only   keep only kernel or only user frames\n"
	"  kernel | jit | all annotate kernel (_[k]) / jit (_[j]) frames\n"
	"  full-names         do not cut symbol names at '('\n"
	"  count=samples      count samples instead of summing periods\n"
	"  event=NAME         on-CPU event to fold (default: the first seen)\n"
	"  max-stack=N        frames per stack (default 127, like perf script)\n"
	"  exact-ret          look up return addresses as-is (default: at addr-1)\n"
	"  mode=auto|cpu|offcpu   what to fold; auto folds sched:sched_switch as off-CPU\n"
	"                     time and other events as on-CPU (both = combined graph)\n"
	"  offcpu-min=US      ignore off-CPU intervals shorter than US microseconds\n"
	"  blocked-only       off-CPU: skip switch-outs of runnable (preempted) threads\n"
	"  sched-format=FILE  sched_switch format (default: tracefs)\n"
	"  dwarf=partial      accept --call-graph dwarf recordings (user frames are lost)\n"
	"  verbose            print counts at the end\n"
	"svg: title= subtitle= width= height= minwidth=N[%] fonttype= fontsize= fontwidth=\n"
	"  countname= nametype= colors= bgcolors= hash seed= cp=FILE reverse inverted\n"
	"  flamechart notes= factor= total= sort=name|weight truncate=right|left focus=\n";

static int num_arg(const char *key, const char *v, double *out, double min, double max)
{
	char *end;
	errno = 0;
	double d = v ? strtod(v, &end) : 0;
	if (!v || !*v || *end || errno || !(d >= min && d <= max)) {
		say("bad value for option %s: '%s' (a number from %g to %g)", key, v ? v : "",
		    min, max);
		return -1;
	}
	*out = d;
	return 0;
}

static int set_out(const char **o, const char *key, const char *v)
{
	if (!v || !*v) {
		say("option %s needs a path: %s=PATH", key, key);
		return -1;
	}
	*o = v;
	return 0;
}

int fkd_parse_arg(struct fkd_opts *st, const char *arg)
{
	char key[64];
	const char *eq = strchr(arg, '=');
	size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
	const char *v = eq ? eq + 1 : NULL;
	if (klen == 0 || klen >= sizeof(key)) {
		say("malformed option '%s' (expected KEY or KEY=VALUE)", arg);
		return -1;
	}
	memcpy(key, arg, klen);
	key[klen] = 0;
	double d;
	fk_svg_opts *s = &st->svg;

#define IS(k) (strcmp(key, k) == 0)
#define FLAG(k, field) if (IS(k)) { if (v) goto noval; field = true; return 0; }
#define STR(k, field) if (IS(k)) { if (!v) goto needval; field = v; return 0; }
	FLAG("pid", st->pid)
	FLAG("tid", st->tid)
	FLAG("kernel-only", st->kernel_only)
	FLAG("user-only", st->user_only)
	FLAG("kernel", st->popts.kernel)
	FLAG("jit", st->popts.jit)
	FLAG("all", st->popts.all)
	FLAG("full-names", st->popts.full_names)
	FLAG("exact-ret", st->exact_ret)
	FLAG("blocked-only", st->blocked_only)
	FLAG("verbose", st->verbose)
	FLAG("hash", s->hash)
	FLAG("reverse", s->reverse)
	FLAG("inverted", s->inverted)
	FLAG("flamechart", s->flamechart)
	STR("event", st->event)
	STR("sched-format", st->sched_format)
	STR("title", s->title)
	STR("subtitle", s->subtitle)
	STR("fonttype", s->fonttype)
	STR("countname", s->countname)
	STR("nametype", s->nametype)
	STR("colors", s->colors)
	STR("bgcolors", s->bgcolors)
	STR("cp", s->cp_file)
	STR("notes", s->notes)
	STR("focus", s->focus)
	if (IS("folded"))
		return set_out(&st->folded, key, v);
	if (IS("svg"))
		return set_out(&st->svg_path, key, v);
	if (IS("samples"))
		return set_out(&st->samples, key, v);
	if (!v)
		goto needval_or_unknown;
	if (IS("count")) {
		if (strcmp(v, "samples") == 0)
			st->count_samples = true;
		else if (strcmp(v, "period") == 0)
			st->count_samples = false;
		else
			goto badval;
		return 0;
	}
	if (IS("mode")) {
		if (strcmp(v, "auto") == 0)
			st->mode = MODE_AUTO;
		else if (strcmp(v, "cpu") == 0)
			st->mode = MODE_CPU;
		else if (strcmp(v, "offcpu") == 0)
			st->mode = MODE_OFFCPU;
		else
			goto badval;
		return 0;
	}
	if (IS("dwarf")) {
		if (strcmp(v, "partial") != 0 && strcmp(v, "error") != 0)
			goto badval;
		st->dwarf_partial = strcmp(v, "partial") == 0;
		return 0;
	}
	if (IS("sort")) {
		if (strcmp(v, "name") == 0)
			s->sort = FK_SORT_NAME;
		else if (strcmp(v, "weight") == 0)
			s->sort = FK_SORT_WEIGHT;
		else
			goto badval;
		return 0;
	}
	if (IS("truncate")) {
		if (strcmp(v, "right") == 0)
			s->truncate = FK_TRUNC_RIGHT;
		else if (strcmp(v, "left") == 0)
			s->truncate = FK_TRUNC_LEFT;
		else
			goto badval;
		return 0;
	}
	if (IS("max-stack")) {
		if (num_arg(key, v, &d, 1, 65535) || d != floor(d))
			return -1;
		st->max_stack = (unsigned)d;
		return 0;
	}
	if (IS("offcpu-min")) {
		if (num_arg(key, v, &d, 0, 1e12))
			return -1;
		st->offcpu_min_ns = (int64_t)(d * 1000.0);
		return 0;
	}
	if (IS("width")) {
		if (num_arg(key, v, &d, 10, 1e6))
			return -1;
		s->width = (int)d;
		return 0;
	}
	if (IS("height")) {
		if (num_arg(key, v, &d, 1, 1000))
			return -1;
		s->frameheight = (int)d;
		return 0;
	}
	if (IS("minwidth")) {
		size_t n = strlen(v);
		char tmp[64];
		if (n && v[n - 1] == '%' && n < sizeof(tmp)) {
			memcpy(tmp, v, n - 1);
			tmp[n - 1] = 0;
			s->minwidth_pct = true;
			return num_arg(key, tmp, &s->minwidth, 0, 100);
		}
		return num_arg(key, v, &s->minwidth, 0, 1e6);
	}
	if (IS("fontsize"))
		return num_arg(key, v, &s->fontsize, 1, 1000);
	if (IS("fontwidth"))
		return num_arg(key, v, &s->fontwidth, 0.01, 10);
	if (IS("factor"))
		return num_arg(key, v, &s->factor, 1e-300, 1e300);
	if (IS("total"))
		return num_arg(key, v, &s->total, 0, 1e300);
	if (IS("seed")) {
		if (num_arg(key, v, &d, 0, 1e18))
			return -1;
		s->seed = (uint64_t)d;
		s->random = true;
		return 0;
	}
	say("unknown option '%s' (option help lists them)", arg);
	return -1;
#undef IS
#undef FLAG
#undef STR
noval:
	say("option %s takes no value (got '%s')", key, arg);
	return -1;
needval:
	say("option %s needs a value: %s=VALUE", key, key);
	return -1;
needval_or_unknown:
	if (strcmp(key, "help") == 0) {
		fputs(fkd_usage_text, stderr);
		return -1;
	}
	{
		static const char *const valued[] = { "count", "mode", "dwarf", "sort", "truncate",
			"max-stack", "offcpu-min", "width", "height", "minwidth", "fontsize",
			"fontwidth", "factor", "total", "seed" };
		for (size_t i = 0; i < sizeof(valued) / sizeof(valued[0]); i++)
			if (strcmp(key, valued[i]) == 0)
				goto needval;
	}
	say("unknown option '%s' (option help lists them)", arg);
	return -1;
badval:
	say("bad value for option %s: '%s'", key, v);
	return -1;
}


/* options.c - the option schemas: one table per public options struct (name, type,
 * range, help) and the one setter every front end goes through, so an option
 * has one name, one range and one message wherever it is typed. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>
#include "internal.h"
#include "render/palette.h"

#define NOFIELD SIZE_MAX
#define OFF(type, field) offsetof(type, field)
#define FG FK_OPTF_FLAMEGRAPH
#define PG FK_OPTF_PAGE   /* the HTML page honours it too */
#define TM FK_OPTF_TIMED  /* needs timestamped samples */

/* ------------------------------------------------------------------ custom values */

/* "PX" or "N%" (percent of the total). */
static int parse_minwidth(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	fk_svg_opts *o = opts;
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	bool pct = end > v && *end == '%' && !end[1];
	if (end == v || (*end && !pct) || errno || !isfinite(d) || d < 0 || (pct && d > 100)) {
		snprintf(err, n, "expected pixels (>= 0) or a percentage N%% (0 to 100)");
		return -1;
	}
	o->minwidth = d;
	o->minwidth_pct = pct;
	return 0;
}

/* START-END seconds, either may be empty; into two adjacent doubles. */
static int parse_range(void *opts, const fk_option *row, const char *s, char *err, size_t n)
{
	double *se = (double *)((char *)opts + row->offset), a = NAN, b = NAN;
	const char *dash = strchr(s, '-');
	char *end;
	if (!dash || strchr(dash + 1, '-'))
		goto bad;
	if (dash > s) {
		a = strtod(s, &end);
		if (end != dash || !(a >= 0) || !isfinite(a))
			goto bad;
	}
	if (dash[1]) {
		b = strtod(dash + 1, &end);
		if (*end || !(b >= 0) || !isfinite(b))
			goto bad;
	}
	if ((isnan(a) && isnan(b)) || (!isnan(a) && !isnan(b) && b <= a))
		goto bad;
	se[0] = a;
	se[1] = b;
	return 0;
bad:
	snprintf(err, n, "expected START-END in seconds, END after START (e.g. 2.5-4, 10-, -3)");
	return -1;
}

static int parse_u64(const char *v, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!v || !*v || *v == '-' || *v == '+')
		return -1;
	unsigned long long x = strtoull(v, &end, 10);
	if (*end || errno)
		return -1;
	*out = x;
	return 0;
}

/* --random (seed 1) or --random=SEED */
static int parse_random(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	fk_svg_opts *o = opts;
	uint64_t seed = 1;
	if (v && parse_u64(v, &seed)) {
		snprintf(err, n, "expected a whole number seed");
		return -1;
	}
	o->random = true;
	o->seed = seed;
	return 0;
}

/* seed=N: random colours from that seed */
static int parse_seed(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	if (!v) {
		snprintf(err, n, "needs a value");
		return -1;
	}
	return parse_random(opts, row, v, err, n);
}

/* --cp: ./palette.map; cp=FILE another file */
static int parse_cp(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	fk_svg_opts *o = opts;
	if (v && !*v) {
		snprintf(err, n, "expected a file name");
		return -1;
	}
	o->cp_file = v ? v : "palette.map";
	return 0;
}

/* N or all */
static int parse_max_frames(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	fk_svg_opts *o = opts;
	uint64_t x;
	if (!strcmp(v, "all")) {
		o->max_frames = SIZE_MAX;
		return 0;
	}
	if (parse_u64(v, &x) || x < 1) {
		snprintf(err, n, "expected a whole number from 1, or all");
		return -1;
	}
	o->max_frames = x > SIZE_MAX ? SIZE_MAX : (size_t)x;
	return 0;
}

/* flamegraph.pl's XML encoding label: flamekit always writes UTF-8 */
static int parse_encoding(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	if (strcasecmp(v, "utf-8") && strcasecmp(v, "utf8")) {
		snprintf(err, n, "flamekit writes UTF-8 only");
		return -1;
	}
	return 0;
}

/* a palette name: checked when set, as ranges are, not at render time */
static int parse_colors(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	if (!fk_palette_known(v)) {
		snprintf(err, n, "unknown palette '%s' (hot mem io wakeup chain java js perl python red green "
			 "blue aqua yellow purple orange)", v);
		return -1;
	}
	*(const char **)((char *)opts + row->offset) = v;
	return 0;
}

/* a background: a name or #rrggbb */
static int parse_bgcolors(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	char a[8], b[8];
	if (!*v || fk_palette_background(NULL, v, a, b)) {
		snprintf(err, n, "expected yellow blue green grey or #rrggbb");
		return -1;
	}
	*(const char **)((char *)opts + row->offset) = v;
	return 0;
}

/* an input format's name (or auto): checked when set, not when the first file is read */
static int parse_format(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	bool known = !strcmp(v, "auto");
	for (const char *const *f = fk_format_names(); *f && !known; f++)
		known = !strcmp(*f, v);
	if (!known) {
		size_t used = (size_t)snprintf(err, n, "unknown format '%s' (auto", v);
		for (const char *const *f = fk_format_names(); *f && used < n; f++)
			used += (size_t)snprintf(err + used, n - used, " %s", *f);
		if (used < n)
			snprintf(err + used, n - used, ")");
		return -1;
	}
	*(const char **)((char *)opts + row->offset) = v;
	return 0;
}

/* ------------------------------------------------------------------ the tables */

static const fk_option svg_rows[] = {
	{ "title", NULL, 0, FK_OPT_TEXT, FG | PG, OFF(fk_svg_opts, title), 0, 0, NULL, "TEXT",
	  "title (default Flame Graph, Icicle Graph or Flame Chart)", NULL },
	{ "subtitle", NULL, 0, FK_OPT_TEXT, FG | PG, OFF(fk_svg_opts, subtitle), 0, 0, NULL, "TEXT",
	  "second title line", NULL },
	{ "width", NULL, 0, FK_OPT_INT, FG, OFF(fk_svg_opts, width), 21, 1000000, NULL, "PX",
	  "image width (default 1200)", NULL },
	{ "height", NULL, 0, FK_OPT_INT, FG | PG, OFF(fk_svg_opts, frameheight), 2, 10000, NULL, "PX",
	  "height of each frame (default 16)", NULL },
	{ "minwidth", NULL, 0, FK_OPT_CUSTOM, FG, OFF(fk_svg_opts, minwidth), 0, 0, "PX|N%", "PX|N%",
	  "omit frames narrower than PX pixels or N% of the total (default 0.1)", parse_minwidth },
	{ "fonttype", NULL, 0, FK_OPT_TEXT, FG | PG, OFF(fk_svg_opts, fonttype), 0, 0, NULL, "FONT",
	  "font family (default Verdana)", NULL },
	{ "encoding", NULL, 0, FK_OPT_CUSTOM, FG | PG, NOFIELD, 0, 0, "UTF-8", "UTF-8",
	  "accepted for compatibility: the output is always UTF-8", parse_encoding },
	{ "fontsize", NULL, 0, FK_OPT_DOUBLE, FG | FK_OPTF_ABOVE_MIN | PG, OFF(fk_svg_opts, fontsize),
	  0, 999, NULL, "N", "font size (default 12)", NULL },
	{ "fontwidth", NULL, 0, FK_OPT_DOUBLE, FG | FK_OPTF_ABOVE_MIN, OFF(fk_svg_opts, fontwidth), 0, 99,
	  NULL, "N", "average character width relative to the size (default 0.59)", NULL },
	{ "countname", NULL, 0, FK_OPT_TEXT, FG | PG, OFF(fk_svg_opts, countname), 0, 0, NULL, "TEXT",
	  "what the counts are (default samples)", NULL },
	{ "nametype", NULL, 0, FK_OPT_TEXT, FG | PG, OFF(fk_svg_opts, nametype), 0, 0, NULL, "TEXT",
	  "what the names are (default Function:)", NULL },
	{ "colors", "color", 0, FK_OPT_CUSTOM, FG | PG, OFF(fk_svg_opts, colors), 0, 0, "PALETTE",
	  "PALETTE",
	  "hot (default) mem io wakeup chain java js perl python red green blue aqua yellow purple orange",
	  parse_colors },
	{ "bgcolors", NULL, 0, FK_OPT_CUSTOM, FG | PG, OFF(fk_svg_opts, bgcolors), 0, 0, "COLOR", "COLOR",
	  "yellow blue green grey or #rrggbb (default by palette)", parse_bgcolors },
	{ "hash", NULL, 0, FK_OPT_FLAG, FG | PG, OFF(fk_svg_opts, hash), 0, 0, NULL, NULL,
	  "colour by a hash of the name (flamegraph.pl's namehash)", NULL },
	{ "random", NULL, 0, FK_OPT_CUSTOM, FG | FK_OPTF_VALUE_OPTIONAL | PG, OFF(fk_svg_opts, random),
	  0, 0, "SEED", "SEED", "random colours from a seeded generator (SEED 1)", parse_random },
	{ "seed", NULL, 0, FK_OPT_CUSTOM, PG, OFF(fk_svg_opts, seed), 0, 0, "N", "N",
	  "random colours from seed N (same as random=N)", parse_seed },
	{ "cp", NULL, 0, FK_OPT_CUSTOM, FG | FK_OPTF_VALUE_OPTIONAL | PG, OFF(fk_svg_opts, cp_file), 0, 0,
	  "FILE", "FILE", "consistent palette: read and update ./palette.map (or FILE)", parse_cp },
	{ "cp-file", NULL, 0, FK_OPT_TEXT, PG, OFF(fk_svg_opts, cp_file), 0, 0, NULL, "FILE",
	  "consistent palette in FILE (lines NAME->rgb(R,G,B))", NULL },
	{ "reverse", NULL, 0, FK_OPT_FLAG, FG | PG, OFF(fk_svg_opts, reverse), 0, 0, NULL, NULL,
	  "reverse stacks (leaf first)", NULL },
	{ "inverted", NULL, 0, FK_OPT_FLAG, FG | PG, OFF(fk_svg_opts, inverted), 0, 0, NULL, NULL,
	  "icicle graph (root at the top)", NULL },
	{ "flamechart", NULL, 0, FK_OPT_FLAG, FG | TM, OFF(fk_svg_opts, flamechart), 0, 0, NULL, NULL,
	  "x axis is time: samples in time order, each stack merged only with the previous one",
	  NULL },
	{ "negate", NULL, 0, FK_OPT_FLAG, FG | PG, OFF(fk_svg_opts, negate), 0, 0, NULL, NULL,
	  "swap the red/blue of differential graphs", NULL },
	{ "notes", NULL, 0, FK_OPT_TEXT, FG, OFF(fk_svg_opts, notes), 0, 0, NULL, "TEXT",
	  "add a notes comment to the SVG", NULL },
	{ "factor", NULL, 0, FK_OPT_DOUBLE, FG | FK_OPTF_ABOVE_MIN | PG, OFF(fk_svg_opts, factor),
	  0, 1e300, NULL, "N", "multiply the counts shown by N", NULL },
	{ "total", NULL, 0, FK_OPT_DOUBLE, FG, OFF(fk_svg_opts, total), 0, 1e300, NULL, "N",
	  "draw against N instead of the sum of counts (if larger)", NULL },
	{ "sort", NULL, 0, FK_OPT_CHOICE, 0, OFF(fk_svg_opts, sort), 0, 0, "name|weight", "name|weight",
	  "order of sibling frames: by name (default) or heaviest first", NULL },
	{ "truncate", NULL, 0, FK_OPT_CHOICE, PG, OFF(fk_svg_opts, truncate), 0, 0, "right|left",
	  "right|left", "labels too long for their frame keep the start (right, default) or the end",
	  NULL },
	{ "focus", NULL, 0, FK_OPT_TEXT, PG, OFF(fk_svg_opts, focus), 0, 0, NULL, "NAME",
	  "only stacks through NAME, merged at NAME: its callees; with reverse, its callers", NULL },
	{ "diff", NULL, 0, FK_OPT_CHOICE, 0, OFF(fk_svg_opts, diff_mode), 0, 0, "self|total",
	  "self|total", "differential colour by the frame's own delta (self, default) or its total",
	  NULL },
	{ "range", NULL, 0, FK_OPT_CUSTOM, PG | TM, OFF(fk_svg_opts, range_start), 0, 0, "START-END",
	  "START-END", "only samples from START to END (exclusive) seconds after the first "
	  "sample's whole second; needs timestamps", parse_range },
	{ "max-frames", NULL, 0, FK_OPT_CUSTOM, 0, OFF(fk_svg_opts, max_frames), 0, 0, "N|all", "N|all",
	  "size guard: draw at most N frames (default 50000), merging the narrowest", parse_max_frames },
	{ "diff-shape", NULL, 0, FK_OPT_CHOICE, 0, OFF(fk_svg_opts, diff_shape), 0, 0,
	  "after|before|both", "after|before|both", "differential widths: after (default), before, "
	  "or both: the larger of the two, so code that went away is drawn too", NULL },
};

static const fk_option heatmap_rows[] = {
	{ "rows", NULL, 0, FK_OPT_UINT, 0, OFF(fk_heatmap_opts, rows), 1, 1000, NULL, "N",
	  "rows per second (default 50: 20 ms cells)", NULL },
	{ "start", NULL, 0, FK_OPT_DOUBLE, 0, OFF(fk_heatmap_opts, start), -1e15, 1e15, NULL, "SEC",
	  "ignore samples before SEC seconds after the first sample's whole second", NULL },
	{ "end", NULL, 0, FK_OPT_DOUBLE, 0, OFF(fk_heatmap_opts, end), -1e15, 1e15, NULL, "SEC",
	  "ignore samples from SEC on (same origin)", NULL },
	{ "range", NULL, 0, FK_OPT_CUSTOM, 0, OFF(fk_heatmap_opts, start), 0, 0, "START-END",
	  "START-END", "same as start=START end=END (either may be empty)", parse_range },
	{ "scale", NULL, 0, FK_OPT_BCHOICE, 0, OFF(fk_heatmap_opts, rank), 0, 0, "linear|rank",
	  "linear|rank", "colour scale: linear (default, the real load) or rank (subtle variation)",
	  NULL },
	{ "isolate", NULL, 0, FK_OPT_TEXT, 0, OFF(fk_heatmap_opts, isolate), 0, 0, NULL, "COMM",
	  "keep only samples of process/thread name COMM (pid:N or tid:N: one process or thread)",
	  NULL },
	{ "highlight", NULL, 0, FK_OPT_TEXT, 0, OFF(fk_heatmap_opts, highlight), 0, 0, NULL, "A,B",
	  "colour cells where comms A, B... have samples (up to 8)", NULL },
	{ "idle", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_heatmap_opts, idle_filter), 0, 0, NULL, NULL,
	  "drop idle stacks (swapper, cpu_idle, do_idle, intel_idle...)", NULL },
	{ "title", NULL, 0, FK_OPT_TEXT, 0, OFF(fk_heatmap_opts, title), 0, 0, NULL, "TEXT",
	  "page title", NULL },
	{ "countname", NULL, 0, FK_OPT_TEXT, 0, OFF(fk_heatmap_opts, svg.countname), 0, 0, NULL,
	  "TEXT", "what counts are called (default: the input's unit, e.g. ns for perf "
	  "cpu-clock periods, else samples)", NULL },
	{ "inverted", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_heatmap_opts, svg.inverted), 0, 0, NULL, NULL,
	  "icicle flame graphs (root at the top)", NULL },
};

static const fk_option parse_rows[] = {
	{ "format", NULL, 0, FK_OPT_CUSTOM, 0, OFF(fk_parse_opts, format), 0, 0, "NAME", "NAME",
	  "input format (default: detected from the first lines; `flamekit formats` lists them)",
	  parse_format },
	{ "threads", NULL, 0, FK_OPT_UINT, 0, OFF(fk_parse_opts, threads), 1, 64, NULL, "N",
	  "read with N threads where it pays (folded stacks of 16 MB or more, perf script "
	  "text of 56 MiB or more; one while other tasks hold the CPUs; the command line's "
	  "default is 2 on two CPUs or more)", NULL },
	{ "sample-type", NULL, 0, FK_OPT_TEXT, 0, OFF(fk_parse_opts, sample_type), 0, 0, NULL, "TYPE",
	  "pprof/cpuprofile: the sample type to read: cpu, alloc_space, TYPE/UNIT or its index "
	  "(default: the profile's default type)", NULL },
	{ "label-frames", NULL, 0, FK_OPT_TEXT, 0, OFF(fk_parse_opts, label_frames), 0, 0, NULL, "K,K",
	  "pprof: labels with these keys (or all) become root frames 'key=value', for keep/drop "
	  "and the graph", NULL },
	{ "pid", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, pid), 0, 0, NULL, NULL,
	  "perf: include the PID in the process name (comm-PID; eu-stack: a PID=N root frame)",
	  NULL },
	{ "tid", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, tid), 0, 0, NULL, NULL,
	  "perf: include PID and TID (comm-PID/TID; eu-stack: TID=N; jstack: keep a thread "
	  "name's -N suffix)", NULL },
	{ "kernel", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, kernel), 0, 0, NULL, NULL,
	  "perf: annotate kernel frames with _[k]", NULL },
	{ "jit", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, jit), 0, 0, NULL, NULL,
	  "perf: annotate JIT frames with _[j] (/tmp/perf-PID.map, perf inject --jit's "
	  "jitted-*.so)", NULL },
	{ "all", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, all), 0, 0, NULL, NULL,
	  "perf: all annotations (kernel and jit)", NULL },
	{ "addrs", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, addrs), 0, 0, NULL, NULL,
	  "perf: show raw addresses for unknown symbols", NULL },
	{ "inline", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, inline_frames), 0, 0, NULL, NULL,
	  "perf: expand inline frames (_[i]) of user binaries via addr2line -i", NULL },
	{ "event-filter", NULL, 0, FK_OPT_TEXT, 0, OFF(fk_parse_opts, event_filter), 0, 0, NULL, "EV",
	  "perf: keep only event EV (default: the first event seen)", NULL },
	{ "weight", NULL, 0, FK_OPT_TEXT, 0, OFF(fk_parse_opts, weight), 0, 0, NULL, "FIELD",
	  "perf: weigh each sample of a tracepoint or probe by its FIELD (name=value or, by the "
	  "event's print format, bare); negative values are counted, not summed", NULL },
	{ "off-wake", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, offwake), 0, 0, NULL, NULL,
	  "perf: pair sched:sched_waking (or sched_wakeup: the waker's stack) with the wakee's sched_switch "
	  "off-CPU interval: blocked stack;--;waker's stack, in microseconds", NULL },
	{ "weight-format", NULL, 0, FK_OPT_TEXT, 0, OFF(fk_parse_opts, weight_format), 0, 0, NULL,
	  "FILE", "perf: the weighed event's format file (default: from tracefs)", NULL },
	{ "samples", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, samples), 0, 0, NULL, NULL,
	  "perf: count samples; default weighs each by its period", NULL },
	{ "full-names", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, full_names), 0, 0, NULL, NULL,
	  "keep C++ names whole (lambdas, operator()) instead of cutting at the first '('", NULL },
	{ "no-comm", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, no_comm), 0, 0, NULL, NULL,
	  "no process name as root frame (jstack: no thread name)", NULL },
	{ "rust-names", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, rust_names), 0, 0, NULL, NULL,
	  "Rust names: demangle v0 names (_R...), repair legacy names a C++ demangler left "
	  "half done: drop ::h<hash>, decode $LT$ $GT$ $u20$ .. (inferno's rule)", NULL },
	{ "cxx-names", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, cxx_names), 0, 0, NULL, NULL,
	  "cut a C++ name's whole parameter list only: std::function<int (int, int)>::operator() "
	  "stays whole (perf and dtrace input: instead of their own cut)", NULL },
	{ "offsets", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, keep_offsets), 0, 0, NULL, NULL,
	  "bpftrace: keep frames' +OFFSET (one frame per call site, as "
	  "stackcollapse-bpftrace.pl); default: cut", NULL },
	{ "map", NULL, 0, FK_OPT_TEXT, 0, OFF(fk_parse_opts, map), 0, 0, NULL, "NAME",
	  "bpftrace: read stack map @NAME (default: the first one)", NULL },
	{ "all-maps", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_parse_opts, all_maps), 0, 0, NULL, NULL,
	  "bpftrace: read every stack map, each under a root frame @NAME", NULL },
};

/* The gate's growth limit: "10%" or "10" relative, "2pt" in points of the total. */
static int parse_limit(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	fk_gate_opts *o = opts;
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	bool pt = end > v && !strcmp(end, "pt"), pct = end > v && (!strcmp(end, "%") || !*end);
	if (end == v || (!pt && !pct) || errno || !isfinite(d) || d < 0) {
		snprintf(err, n, "expected a growth >= 0 in percent (10%%) or in points of the "
			 "total (2pt)");
		return -1;
	}
	o->limit = pt ? d : d / 100;
	o->points = pt;
	return 0;
}

/* A share of the total: "1%" or "1" (percent). */
static int parse_share(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	double *share = (double *)((char *)opts + row->offset);
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	if (end == v || (*end && strcmp(end, "%")) || errno || !(d >= 0 && d <= 100)) {
		snprintf(err, n, "expected a percentage from 0 to 100 (1%%)");
		return -1;
	}
	*share = d / 100;
	return 0;
}

static const fk_option gate_rows[] = {
	{ "fail-above", NULL, 0, FK_OPT_CUSTOM, 0, NOFIELD, 0, 0, NULL, "PCT",
	  "fail when a function's share grew by more than PCT: relative (10%, the default) "
	  "or in points of the total (2pt)", parse_limit },
	{ "self", NULL, 0, FK_OPT_FLAG, 0, OFF(fk_gate_opts, self), 0, 0, NULL, NULL,
	  "compare self (exclusive) shares; default inclusive", NULL },
	{ "min-share", NULL, 0, FK_OPT_CUSTOM, 0, OFF(fk_gate_opts, min_share), 0, 0, NULL, "PCT",
	  "leave out functions under PCT of the total on both sides: the noise floor "
	  "(default 1%)", parse_share },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
const fk_option *fk_svg_options(size_t *n) { *n = COUNT(svg_rows); return svg_rows; }
const fk_option *fk_heatmap_options(size_t *n) { *n = COUNT(heatmap_rows); return heatmap_rows; }
const fk_option *fk_parse_options(size_t *n) { *n = COUNT(parse_rows); return parse_rows; }
const fk_option *fk_gate_options(size_t *n) { *n = COUNT(gate_rows); return gate_rows; }

/* ------------------------------------------------------------------ lookup and setting */

/* name == key[0..len), '_' in key matching '-' */
static bool same_name(const char *name, const char *key, size_t len)
{
	if (!name)
		return false;
	size_t i = 0;
	for (; i < len && name[i]; i++)
		if (name[i] != key[i] && !(name[i] == '-' && key[i] == '_'))
			return false;
	return i == len && !name[i];
}

const fk_option *fk_option_find(const fk_option *rows, size_t n, const char *key, size_t keylen)
{
	if (!rows || !key)
		return NULL;
	if (keylen == (size_t)-1)
		keylen = strlen(key);
	while (keylen && *key == '-')
		key++, keylen--;
	for (size_t i = 0; i < n; i++)
		if (same_name(rows[i].name, key, keylen) || same_name(rows[i].alias, key, keylen))
			return &rows[i];
	return NULL;
}

/* A message into err, or through the print callback when err is NULL. */
static int say(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int say(char *err, size_t errlen, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err ? err : buf, err ? errlen : sizeof(buf), fmt, ap);
	va_end(ap);
	if (!err)
		fk_warn("%s", buf);
	return -FK_E_INVAL;
}

/* "--width: REASON, got 'V'" for a dashed key, "width=V: REASON" for a bare one */
static int fail(const char *spelled, const char *v, char *err, size_t errlen, const char *reason)
{
	char quoted[256];
	snprintf(quoted, sizeof(quoted), "'%s'", v ? v : "");
	const char *got = v && !strstr(reason, quoted) ? v : NULL; /* unless the reason names it */
	if (*spelled == '-')
		return say(err, errlen, "%s: %s%s%s%s", spelled, reason, got ? ", got '" : "",
			   got ? got : "", got ? "'" : "");
	return say(err, errlen, "%s=%s: %s", spelled, v ? v : "", reason);
}

static int choice_index(const char *choices, const char *v)
{
	size_t vl = strlen(v);
	int idx = 0;
	for (const char *c = choices; *c; idx++) {
		const char *bar = strchr(c, '|');
		size_t cl = bar ? (size_t)(bar - c) : strlen(c);
		if (cl == vl && !strncmp(c, v, cl))
			return idx;
		if (!bar)
			break;
		c = bar + 1;
	}
	return -1;
}

static void describe_range(char *buf, size_t n, const fk_option *r, const char *what)
{
	if (r->max >= 1e300 || r->max == 0)
		snprintf(buf, n, "expected %s %s %.15g", what,
			 r->flags & FK_OPTF_ABOVE_MIN ? "above" : "of at least", r->min);
	else if (r->flags & FK_OPTF_ABOVE_MIN)
		snprintf(buf, n, "expected %s above %.15g and at most %.15g", what, r->min, r->max);
	else
		snprintf(buf, n, "expected %s from %.15g to %.15g", what, r->min, r->max);
}

int fk_option_apply(const fk_option *row, void *opts, const char *spelled, const char *v,
		    char *err, size_t errlen)
{
	char why[256];
	if (!row || !opts)
		return -FK_E_INVAL;
	if (!spelled)
		spelled = row->name;
	char *field = row->offset == NOFIELD ? NULL : (char *)opts + row->offset;
	if (row->type == FK_OPT_FLAG) {
		bool on;
		if (!v || !strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
		    !strcasecmp(v, "on"))
			on = true;
		else if (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "no") ||
			 !strcasecmp(v, "off"))
			on = false;
		else
			return fail(spelled, v, err, errlen, "takes no value (or 1/0, true/false)");
		*(bool *)field = on;
		return 0;
	}
	if (!v && row->type == FK_OPT_CUSTOM && (row->flags & FK_OPTF_VALUE_OPTIONAL))
		return row->parse(opts, row, NULL, why, sizeof(why)) ? fail(spelled, v, err, errlen, why) : 0;
	if (!v)
		return *spelled == '-' ? say(err, errlen, "%s needs a value", spelled)
				       : say(err, errlen, "option %s needs a value: %s=VALUE", spelled,
					     spelled);
	switch (row->type) {
	case FK_OPT_TEXT:
		*(const char **)field = v;
		return 0;
	case FK_OPT_CHOICE:
	case FK_OPT_BCHOICE: {
		int idx = choice_index(row->choices, v);
		if (idx < 0) {
			snprintf(why, sizeof(why), "expected one of %s", row->choices);
			for (char *c = why; *c; c++)
				if (*c == '|')
					*c = ' ';
			return fail(spelled, v, err, errlen, why);
		}
		if (row->type == FK_OPT_CHOICE)
			*(int *)field = idx;
		else
			*(bool *)field = idx != 0;
		return 0;
	}
	case FK_OPT_CUSTOM:
		return row->parse(opts, row, v, why, sizeof(why)) ? fail(spelled, v, err, errlen, why) : 0;
	default:
		break;
	}
	/* numbers */
	bool whole = row->type != FK_OPT_DOUBLE;
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	bool ok = *v && !*end && !errno && isfinite(d) && d >= row->min && d <= row->max &&
		  !((row->flags & FK_OPTF_ABOVE_MIN) && d == row->min) && (!whole || d == floor(d));
	if (ok && row->type == FK_OPT_U64) {
		uint64_t x;
		ok = !parse_u64(v, &x);
		if (ok)
			*(uint64_t *)field = x;
		d = 0;
	}
	if (!ok) {
		describe_range(why, sizeof(why), row, whole ? "a whole number" : "a number");
		return fail(spelled, v, err, errlen, why);
	}
	if (row->type == FK_OPT_INT)
		*(int *)field = (int)d;
	else if (row->type == FK_OPT_UINT)
		*(unsigned *)field = (unsigned)d;
	else if (row->type == FK_OPT_DOUBLE)
		*(double *)field = d;
	return 0;
}

int fk_option_set(const fk_option *rows, size_t n, void *opts, const char *key, const char *value,
		  char *err, size_t errlen)
{
	if (!key)
		return -FK_E_INVAL;
	char spelled[128];
	size_t klen = strlen(key);
	const char *eq = value ? NULL : strchr(key, '=');
	if (eq) {
		klen = (size_t)(eq - key);
		value = eq + 1;
	}
	snprintf(spelled, sizeof(spelled), "%.*s", (int)klen, key);
	const fk_option *row = klen ? fk_option_find(rows, n, key, klen) : NULL;
	if (!row)
		return say(err, errlen, "unknown option '%s'", spelled);
	return fk_option_apply(row, opts, spelled, value, err, errlen);
}

bool fk_output_honours(int kind, const fk_option *row)
{
	if (!row)
		return false;
	switch (kind) {
	case FK_OUTPUT_SVG: return true;
	case FK_OUTPUT_HTML: return (row->flags & FK_OPTF_PAGE) != 0;
	default: return false;  /* pprof, speedscope, folded: the data as it is */
	}
}

int fk_svg_opts_set(fk_svg_opts *o, const char *key, const char *value)
{
	return fk_option_set(svg_rows, COUNT(svg_rows), o, key, value, NULL, 0);
}

int fk_heatmap_opts_set(fk_heatmap_opts *o, const char *key, const char *value)
{
	return fk_option_set(heatmap_rows, COUNT(heatmap_rows), o, key, value, NULL, 0);
}

int fk_parse_opts_set(fk_parse_opts *o, const char *key, const char *value)
{
	return fk_option_set(parse_rows, COUNT(parse_rows), o, key, value, NULL, 0);
}

/* ------------------------------------------------------------------ struct sizes */

void fk_opts_adopt(void *full, size_t fullsize, const void *user)
{
	size_t sz;
	memcpy(&sz, user, sizeof(sz));
	if (sz == 0 || sz > fullsize)
		sz = fullsize; /* a struct not set up by *_init: taken as this header's */
	memcpy(full, user, sz);
	memcpy(full, &fullsize, sizeof(fullsize));
}

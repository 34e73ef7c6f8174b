/* cmd-svg.c - `flamekit svg`: stacks (folded or any raw format) -> interactive
 * flame graph SVG, with flamegraph.pl's options and flamekit's additions. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli.h"

static void svg_help(FILE *out)
{
	fputs("usage: flamekit svg [options] [FILE...]\n\n"
	      "Draws an interactive flame graph (self-contained SVG: hover for details, click\n"
	      "to zoom, Ctrl-F/F3 to search a regex, Ctrl-I for case, Escape to reset) from\n"
	      "folded stacks or any input `flamekit collapse` reads (e.g. perf script text),\n"
	      "FILEs or standard input. Two-column folded input (flamekit diff) draws a\n"
	      "differential graph: red grew, blue shrank. Same input and options give the\n"
	      "same bytes.\n\n"
	      "  -o, --output FILE   write to FILE (replaced only when all went well); a name\n"
	      "                      ending in .html writes the page of `flamekit html`\n"
	      "flamegraph.pl options (same names and meaning):\n"
	      "  --title TEXT        title (default Flame Graph / Icicle Graph / Flame Chart)\n"
	      "  --subtitle TEXT     second title line\n"
	      "  --width PX          image width (1200)\n"
	      "  --height PX         height of each frame (16)\n"
	      "  --minwidth PX|N%    omit frames narrower than PX pixels or N% of the total (0.1)\n"
	      "  --fonttype FONT     font family (Verdana)\n"
	      "  --encoding UTF-8    accepted for compatibility: the output is always UTF-8\n"
	      "  --fontsize N        font size (12)\n"
	      "  --fontwidth N       average character width relative to the size (0.59)\n"
	      "  --countname TEXT    what the counts are (samples)\n"
	      "  --nametype TEXT     what the names are (Function:)\n"
	      "  --colors PALETTE    hot (default) mem io wakeup chain java js perl red green\n"
	      "                      blue aqua yellow purple orange\n"
	      "  --bgcolors COLOR    yellow blue green grey or #rrggbb (default by palette)\n"
	      "  --hash              colour by a hash of the name (flamegraph.pl's namehash)\n"
	      "  --random[=SEED]     random colours from a seeded generator (SEED 1)\n"
	      "  --cp                consistent palette: read and update ./palette.map\n"
	      "  --cp-file FILE      same with another palette file (lines NAME->rgb(R,G,B))\n"
	      "  --reverse           reverse stacks (leaf first)\n"
	      "  --inverted          icicle graph (root at the top)\n"
	      "  --flamechart        x axis is time: samples in time order (input order when\n"
	      "                      there are no timestamps), each stack merged only with\n"
	      "                      the previous one\n"
	      "  --negate            swap the red/blue of differential graphs\n"
	      "  --notes TEXT        add a notes comment to the SVG\n"
	      "  --factor N          multiply the counts shown by N\n"
	      "  --total N           draw against N instead of the sum of counts (if larger)\n"
	      "beyond flamegraph.pl:\n"
	      "  --sort name|weight  order of sibling frames: by name (default) or heaviest first\n"
	      "  --truncate right|left  labels too long for their frame keep the start (right,\n"
	      "                      default) or the end (left); cut between characters\n"
	      "  --focus NAME        only stacks through NAME, merged at NAME: its callees;\n"
	      "                      with --reverse, its callers\n"
	      "  --diff self|total   differential colour by the frame's own delta (self,\n"
	      "                      flamegraph.pl) or by its total delta\n"
	      "  --range START-END   only samples from START to END (exclusive) seconds, counted\n"
	      "                      from the first sample's whole second as in the heat map\n"
	      "                      (either may be empty); needs timestamped input\n"
	      "  --max-frames N|all  size guard: draw at most N frames (50000), merging the\n"
	      "                      narrowest into their parents\n\n", out);
	cli_input_help(out);
	fputs("\nExit status: 0 ok; 1 error, nothing written; 2 usage error;\n"
	      "3 output written but some input was malformed and skipped.\n", out);
}

/* "--name VALUE" or "--name=VALUE" */
static int value_opt(const char *name, int argc, char **argv, int *i, const char **v)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n))
		return 0;
	if (a[n] == '=') {
		*v = a + n + 1;
		return 1;
	}
	if (a[n])
		return 0;
	if (*i + 1 >= argc) {
		cli_err("%s needs a value", name);
		return -1;
	}
	*v = argv[++*i];
	return 1;
}

static int parse_range(const char *s, double *a, double *b)
{
	const char *dash = strchr(s, '-');
	*a = *b = NAN;
	if (!dash || strchr(dash + 1, '-'))
		goto bad;
	char *end;
	if (dash > s) {
		*a = strtod(s, &end);
		if (end != dash || !(*a >= 0))
			goto bad;
	}
	if (dash[1]) {
		*b = strtod(dash + 1, &end);
		if (*end || !(*b >= 0))
			goto bad;
	}
	if (isnan(*a) && isnan(*b))
		goto bad;
	return 0;
bad:
	cli_err("--range: expected START-END in seconds (e.g. 2.5-4, 10-, -3), got '%s'", s);
	return -1;
}

static int positive(const char *opt, const char *v, double *d)
{
	if (cli_number(opt, v, d))
		return -1;
	if (!(*d > 0) || !isfinite(*d)) {
		cli_err("%s: expected a positive number, got '%s'", opt, v);
		return -1;
	}
	return 0;
}

/* `flamekit svg` and `flamekit html` (html = true): the same options. */
int cli_svg_run(int argc, char **argv, bool html)
{
	fk_parse_opts po;
	fk_parse_opts_init(&po);
	fk_svg_opts so;
	fk_svg_opts_init(&so);
	const char *out_path = NULL;
	char **files = argv + 1;
	int nfiles = 0;
	bool opts_done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		double d;
		int r;
		if (cli_take_file(argv, i, files, &nfiles, &opts_done))
			continue;
		if ((r = cli_input_option(&po, argc, argv, &i)) < 0)
			return FK_EXIT_USAGE;
		if (r > 0)
			continue;
#define VOPT(name) ((r = value_opt(name, argc, argv, &i, &v)) != 0)
#define FAIL_IF(x) do { if (r < 0 || (x)) return FK_EXIT_USAGE; } while (0)
		if (!strcmp(a, "-o")) {
			if (i + 1 >= argc) {
				cli_err("-o needs a value");
				return FK_EXIT_USAGE;
			}
			out_path = argv[++i];
		} else if (VOPT("--output")) {
			FAIL_IF(0);
			out_path = v;
		} else if (VOPT("--title")) {
			FAIL_IF(0);
			so.title = v;
		} else if (VOPT("--subtitle")) {
			FAIL_IF(0);
			so.subtitle = v;
		} else if (VOPT("--width")) {
			FAIL_IF(positive("--width", v, &d));
			so.width = d > 1e6 ? 1000000 : (int)d;
		} else if (VOPT("--height")) {
			FAIL_IF(positive("--height", v, &d));
			so.frameheight = d > 1e4 ? 10000 : (int)d;
		} else if (VOPT("--minwidth")) {
			FAIL_IF(0);
			size_t n = strlen(v);
			char buf[64];
			so.minwidth_pct = n && v[n - 1] == '%';
			snprintf(buf, sizeof(buf), "%.*s", (int)(so.minwidth_pct ? n - 1 : n), v);
			FAIL_IF(cli_number("--minwidth", buf, &d) || d < 0);
			so.minwidth = d;
		} else if (VOPT("--encoding")) {
			/* flamegraph.pl's XML encoding label: flamekit always writes UTF-8 */
			FAIL_IF(0);
			if (strcasecmp(v, "utf-8") && strcasecmp(v, "utf8")) {
				cli_err("--encoding %s: flamekit writes UTF-8 only", v);
				return FK_EXIT_USAGE;
			}
		} else if (VOPT("--fonttype")) {
			FAIL_IF(0);
			so.fonttype = v;
		} else if (VOPT("--fontsize")) {
			FAIL_IF(positive("--fontsize", v, &d));
			so.fontsize = d;
		} else if (VOPT("--fontwidth")) {
			FAIL_IF(positive("--fontwidth", v, &d));
			so.fontwidth = d;
		} else if (VOPT("--countname")) {
			FAIL_IF(0);
			so.countname = v;
		} else if (VOPT("--nametype")) {
			FAIL_IF(0);
			so.nametype = v;
		} else if (VOPT("--colors") || VOPT("--color")) {
			FAIL_IF(0);
			so.colors = v;
		} else if (VOPT("--bgcolors")) {
			FAIL_IF(0);
			so.bgcolors = v;
		} else if (!strcmp(a, "--hash")) {
			so.hash = true;
		} else if (!strcmp(a, "--random") || !strncmp(a, "--random=", 9)) {
			so.random = true;
			so.seed = 1;
			if (a[8] == '=') {
				char *end;
				errno = 0;
				unsigned long long s = strtoull(a + 9, &end, 10);
				if (!a[9] || *end || errno) {
					cli_err("--random=SEED: expected an integer seed, got '%s'", a + 9);
					return FK_EXIT_USAGE;
				}
				so.seed = s;
			}
		} else if (!strcmp(a, "--cp")) {
			so.cp_file = "palette.map";
		} else if (VOPT("--cp-file")) {
			FAIL_IF(0);
			so.cp_file = v;
		} else if (!strcmp(a, "--reverse")) {
			so.reverse = true;
		} else if (!strcmp(a, "--inverted")) {
			so.inverted = true;
		} else if (!strcmp(a, "--flamechart")) {
			so.flamechart = true;
		} else if (!strcmp(a, "--negate")) {
			so.negate = true;
		} else if (VOPT("--notes")) {
			FAIL_IF(0);
			so.notes = v;
		} else if (VOPT("--factor")) {
			FAIL_IF(positive("--factor", v, &d));
			so.factor = d;
		} else if (VOPT("--total")) {
			FAIL_IF(positive("--total", v, &d));
			so.total = d;
		} else if (VOPT("--sort")) {
			FAIL_IF(0);
			if (!strcmp(v, "name"))
				so.sort = FK_SORT_NAME;
			else if (!strcmp(v, "weight"))
				so.sort = FK_SORT_WEIGHT;
			else {
				cli_err("--sort: expected name or weight, got '%s'", v);
				return FK_EXIT_USAGE;
			}
		} else if (VOPT("--truncate")) {
			FAIL_IF(0);
			if (!strcmp(v, "right"))
				so.truncate = FK_TRUNC_RIGHT;
			else if (!strcmp(v, "left"))
				so.truncate = FK_TRUNC_LEFT;
			else {
				cli_err("--truncate: expected left or right, got '%s'", v);
				return FK_EXIT_USAGE;
			}
		} else if (VOPT("--focus")) {
			FAIL_IF(0);
			so.focus = v;
		} else if (VOPT("--diff")) {
			FAIL_IF(0);
			if (!strcmp(v, "self"))
				so.diff_mode = FK_DIFF_SELF;
			else if (!strcmp(v, "total"))
				so.diff_mode = FK_DIFF_TOTAL;
			else {
				cli_err("--diff: expected self or total, got '%s'", v);
				return FK_EXIT_USAGE;
			}
		} else if (VOPT("--range")) {
			FAIL_IF(parse_range(v, &so.range_start, &so.range_end));
		} else if (VOPT("--max-frames")) {
			FAIL_IF(0);
			if (!strcmp(v, "all")) {
				so.max_frames = SIZE_MAX;
			} else {
				FAIL_IF(positive("--max-frames", v, &d));
				so.max_frames = d >= 1e18 ? SIZE_MAX : (size_t)d;
			}
		} else {
			cli_err("%s: unknown option '%s' (see flamekit %s --help)", argv[0], a, argv[0]);
			return FK_EXIT_USAGE;
		}
#undef VOPT
#undef FAIL_IF
	}
	if (fk_svg_opts_check(&so))
		return FK_EXIT_USAGE;
	html = html || fk_output_is_html(out_path); /* -o FILE.html: the page */
	if (html && so.flamechart) {
		cli_err("--flamechart: the HTML page draws merged stacks (use flamekit svg -o FILE.svg)");
		return FK_EXIT_USAGE;
	}
	bool samples = so.flamechart || !isnan(so.range_start) || !isnan(so.range_end);
	int status;
	fk_profile *p = cli_read(samples ? FK_PROFILE_SAMPLES : 0, files, nfiles, &po, NULL, NULL,
				 &status);
	if (!p)
		return status;
	cli_out out;
	if (cli_out_open(&out, out_path)) {
		fk_profile_free(p);
		return FK_EXIT_ERROR;
	}
	int rc = html ? fk_render_html(p, &so, out.f) : fk_render_svg(p, &so, out.f);
	fk_profile_free(p);
	if (rc == -FK_E_EMPTY)
		cli_err("no stacks to draw (empty input, or nothing left after --focus/--range)");
	else if (rc == -FK_E_INVAL)
		cli_err("invalid options (see above)");
	else if (rc)
		cli_err("%s: %s", out_path ? out_path : "<stdout>", fk_strerror(rc));
	if (cli_out_close(&out, rc == 0) || rc)
		return rc == -FK_E_INVAL ? FK_EXIT_USAGE : FK_EXIT_ERROR;
	return status;
}

static int svg_run(int argc, char **argv) { return cli_svg_run(argc, argv, false); }

const struct fk_cmd fk_cmd_svg = {
	.name = "svg",
	.summary = "draw an interactive flame graph SVG (flamegraph.pl options)",
	.run = svg_run,
	.help = svg_help,
};

/* cmd-html.c - `flamekit html`: stacks -> one offline HTML page holding every unique
 * stack, drawn with canvas (zoom, exact search, sandwich, functions table, transforms).
 * It takes the options of `flamekit svg` (one parser, in cmd-svg.c). */
#include <stdio.h>
#include "cli.h"

static void html_help(FILE *out)
{
	fputs("usage: flamekit html [options] [FILE...] -o out.html\n\n"
	      "Writes one self-contained HTML page (no network) holding every unique stack of\n"
	      "the input, not a pruned picture, drawn with canvas: flame graph or icicle, click\n"
	      "to zoom, hover for counts and shares, regex search whose Matched share is exact\n"
	      "over every frame (n/N: next/previous match), left-heavy order, a sandwich view of\n"
	      "one function (callers above, callees below), a functions table (self, total),\n"
	      "undoable transforms (focus, merge, drop, collapse recursion), per-thread or\n"
	      "per-process split (perf --tid/--pid roots), light and dark themes; all state\n"
	      "in the URL. Two-column input (flamekit diff) is coloured red\n"
	      "(grew) and blue (shrank); in on/off-CPU graphs (perf flame --combined) the frames\n"
	      "whose time is all off-CPU are blue, as in the SVG. Scripts drive it through\n"
	      "window.flamekit (docs/html.md).\n"
	      "`flamekit svg -o FILE.html` writes the same page; -o FILE.svg, FILE.pb.gz,\n"
	      "FILE.speedscope.json or FILE.folded write those instead (as flamekit svg).\n\n", out);
	struct cli_io io;
	fk_svg_opts so;
	fkp_optset ios = cli_io_set(&io, true);
	size_t n;
	fkp_optset page = { fk_svg_options(&n), n, &so,
			    "the options of `flamekit svg` that the page honours (the others are "
			    "refused):", NULL };
	fkp_opt_help(out, &ios);
	fputc('\n', out);
	fkp_opt_help_filtered(out, &page, FK_OPTF_PAGE, FK_OPTF_PAGE);
	fputc('\n', out);
	cli_input_help(out);
	fputs("\nExit status: 0 ok; 1 error, nothing written; 2 usage error;\n"
	      "3 output written but some input was malformed and skipped.\n", out);
}

static int html_run(int argc, char **argv) { return cli_svg_run(argc, argv, true); }

const struct fk_cmd fk_cmd_html = {
	.name = "html",
	.summary = "write one offline HTML page with every stack (canvas viewer, sandwich, table)",
	.run = html_run,
	.help = html_help,
};

/* cmd-svg.c - `flamekit svg`: stacks (folded or any raw format) -> interactive
 * flame graph SVG, with flamegraph.pl's options and flamekit's additions. */
#include <math.h>
#include "cli.h"

static void svg_help(FILE *out)
{
	struct cli_io io;
	fk_svg_opts so;
	fkp_optset ios = cli_io_set(&io, true);
	size_t n;
	fkp_optset svg = { fk_svg_options(&n), n, &so, NULL, NULL };
	fputs("usage: flamekit svg [options] [FILE...]\n\n"
	      "Draws an interactive flame graph (self-contained SVG: hover for details, click\n"
	      "to zoom, Ctrl-F/F3 to search a regex, Ctrl-I for case, Escape to reset) from\n"
	      "folded stacks or any input `flamekit collapse` reads (e.g. perf script text),\n"
	      "FILEs or standard input. Two-column folded input (flamekit diff) draws a\n"
	      "differential graph: red grew, blue shrank. Same input and options give the\n"
	      "same bytes. Options may be abbreviated while unambiguous, and written with\n"
	      "one dash (-title) as flamegraph.pl takes them. The -o name picks another\n"
	      "output (any case): FILE.html the page of `flamekit html`, FILE.pb.gz (.pb,\n"
	      ".pprof) pprof, FILE.speedscope.json speedscope, FILE.folded folded stacks;\n"
	      "an option that output does not honour is refused.\n\n", out);
	fkp_opt_help(out, &ios);
	fputs("flamegraph.pl options (same names and meaning):\n", out);
	fkp_opt_help_filtered(out, &svg, FK_OPTF_FLAMEGRAPH, FK_OPTF_FLAMEGRAPH);
	fputs("beyond flamegraph.pl:\n", out);
	fkp_opt_help_filtered(out, &svg, FK_OPTF_FLAMEGRAPH, 0);
	fputc('\n', out);
	cli_input_help(out);
	fputs("\nExit status: 0 ok; 1 error, nothing written; 2 usage error;\n"
	      "3 output written but some input was malformed and skipped.\n", out);
}

/* `flamekit svg` and `flamekit html` (html = true): the same options; the command is
 * the default output, the -o name picks another (fk_output_for_path). */
int cli_svg_run(int argc, char **argv, bool html)
{
	fk_parse_opts po;
	fk_parse_opts_init(&po);
	fk_svg_opts so;
	fk_svg_opts_init(&so);
	struct cli_io io = { 0 };
	struct cli_given given;
	cli_given_init(&given);
	size_t n;
	fkp_optset sets[] = { cli_io_set(&io, true), { fk_svg_options(&n), n, &so, NULL, NULL },
			      cli_input_set(&po) };
	char **files = argv + 1;
	int nfiles = 0;
	if (cli_parse(argc, argv, sets, 3, files, &nfiles, &given))
		return FK_EXIT_USAGE;
	int kind = cli_output_kind(io.output, html ? FK_OUTPUT_HTML : FK_OUTPUT_SVG);
	if (fk_svg_opts_check(&so) || cli_given_check(&given, kind, io.output))
		return FK_EXIT_USAGE;
	/* per-sample records: for a flame chart or a time range, and for pprof (pid/tid/comm
	 * labels) and speedscope (samples in time order), as collapse writes them */
	bool range = !isnan(so.range_start) || !isnan(so.range_end);
	bool samples = (kind == FK_OUTPUT_SVG && (so.flamechart || range)) ||
		       (kind == FK_OUTPUT_HTML && range) || kind == FK_OUTPUT_PPROF ||
		       kind == FK_OUTPUT_SPEEDSCOPE;
	int status;
	fk_profile *p = cli_read(samples ? FK_PROFILE_SAMPLES : 0, files, nfiles, &po, io.keep,
				 io.drop, &status);
	if (!p)
		return status;
	/* read: its lookup tables of names and stacks go before the drawing's peak (b-wide's
	 * same16 shape: 32 MB of its 164) */
	fk_profile_seal(p);
	const char *out_path = io.output;
	fkp_out out;
	if (fkp_out_open(&out, out_path)) {
		fk_profile_free(p);
		return FK_EXIT_ERROR;
	}
	int rc = fk_write_output(p, kind, &so, out.f);
	fk_profile_free(p);
	if (rc == -FK_E_EMPTY)
		cli_err("no stacks to draw (empty input, or nothing left after --focus/--range/--keep/--drop)");
	else if (rc == -FK_E_INVAL)
		cli_err("invalid options (see above)");
	else if (rc)
		cli_err("%s: %s", out_path ? out_path : "<stdout>", fk_strerror(rc));
	if (fkp_out_close(&out, rc == 0) || rc)
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

/* cmd-heatmap.c - `flamekit heatmap`: timestamped samples -> one offline HTML page
 * (subsecond-offset heat map + range flame graphs), or per-cell counts as TSV. */
#include <math.h>
#include "cli.h"

struct hm_cli {
	bool cells, periods;
};

static const fk_option hm_cli_rows[] = {
	{ "periods", NULL, 0, FK_OPT_FLAG, 0, offsetof(struct hm_cli, periods), 0, 0, NULL, NULL,
	  "weigh perf samples by their period, as every command does (the default; --samples "
	  "counts samples instead)", NULL },
	{ "cells", NULL, 0, FK_OPT_FLAG, 0, offsetof(struct hm_cli, cells), 0, 0, NULL, NULL,
	  "print per-cell counts instead of the page, as TSV: second<TAB>row<TAB>count, "
	  "non-empty cells only, sorted; row 0 is offset 0 of the second", NULL },
};

/* The option sets of the command, writing into the given structs. */
static void hm_sets(fkp_optset sets[4], struct cli_io *io, struct hm_cli *hc, fk_heatmap_opts *ho,
		    fk_parse_opts *po)
{
	size_t n;
	sets[0] = cli_io_set(io, true);
	sets[1] = (fkp_optset){ fk_heatmap_options(&n), n, ho, NULL, NULL };
	sets[2] = (fkp_optset){ hm_cli_rows, sizeof(hm_cli_rows) / sizeof(hm_cli_rows[0]), hc, NULL,
				NULL };
	sets[3] = cli_input_set(po);
}

static void heatmap_help(FILE *out)
{
	struct cli_io io;
	struct hm_cli hc;
	fk_heatmap_opts ho;
	fk_parse_opts po;
	fkp_optset sets[4];
	hm_sets(sets, &io, &hc, &ho, &po);
	fputs("usage: flamekit heatmap [options] [FILE...] -o out.html\n\n"
	      "Reads timestamped samples (perf script text, or the samples format written\n"
	      "by `flamekit collapse --emit samples`, the perf plugin and the gdb command)\n"
	      "and writes one self-contained HTML page: a subsecond-offset heat map (x:\n"
	      "seconds, y: offset within the second, colour: the counts). Drag over it (or\n"
	      "click a start cell, then an end cell) to see the flame graph of that time\n"
	      "range; a second range shows a differential flame graph. Works offline.\n"
	      "Seconds (start, end, range) count from the first sample's whole second, as\n"
	      "the page numbers them.\n\n", out);
	for (int i = 0; i < 4; i++) {
		if (i == 3)
			fputc('\n', out);
		fkp_opt_help(out, &sets[i]);
	}
	fputs("\nExit status: 0 ok; 1 error, nothing written; 2 usage error;\n"
	      "3 output written but some input was malformed and skipped.\n", out);
}

static int run(int argc, char **argv)
{
	fk_parse_opts po;
	fk_parse_opts_init(&po);
	/* weights as `flamekit svg --range` counts them: one range, one number */
	fk_heatmap_opts ho;
	fk_heatmap_opts_init(&ho);
	struct cli_io io = { 0 };
	struct hm_cli hc = { 0 };
	fkp_optset sets[4];
	hm_sets(sets, &io, &hc, &ho, &po);
	char **files = argv + 1;
	int nfiles = 0;
	if (cli_parse(argc, argv, sets, 4, files, &nfiles, NULL))
		return FK_EXIT_USAGE;
	if (hc.periods)
		po.samples = false;
	if (!isnan(ho.start) && !isnan(ho.end) && ho.end <= ho.start) {
		cli_err("empty time range: --end must be after --start");
		return FK_EXIT_USAGE;
	}
	const char *out_path = io.output;
	bool cells = hc.cells;
	/* the one output-name rule: the page goes to a name the rule gives the page (or
	 * none it knows), the cells' TSV to a name it does not know */
	int kind = fk_output_for_path(out_path);
	if (kind != FK_OUTPUT_DEFAULT && (cells || kind != FK_OUTPUT_HTML)) {
		cli_err("-o %s: heatmap writes %s, not %s", out_path,
			cells ? "per-cell counts as TSV (--cells)" : "one HTML page (NAME.html)",
			fk_output_name(kind));
		return FK_EXIT_USAGE;
	}

	int status;
	fk_profile *p = cli_read(FK_PROFILE_SAMPLES, files, nfiles, &po, io.keep, io.drop, &status);
	if (!p)
		return status;
	fkp_out out;
	if (fkp_out_open(&out, out_path)) {
		fk_profile_free(p);
		return FK_EXIT_ERROR;
	}
	int rc = cells ? fk_heatmap_cells(p, &ho, out.f) : fk_render_heatmap(p, &ho, out.f);
	fk_profile_free(p);
	/* other errors (no timestamps, empty after filters, span too long) were
	 * explained by the library's own message */
	if (rc == -FK_E_WRITE)
		cli_err("%s: %s", out_path ? out_path : "<stdout>", fk_strerror(rc));
	else if (rc == -FK_E_NOMEM)
		cli_err("heatmap: %s", fk_strerror(rc));
	if (fkp_out_close(&out, rc == 0) || rc)
		return rc == -FK_E_INVAL ? FK_EXIT_USAGE : FK_EXIT_ERROR;
	return status;
}

const struct fk_cmd fk_cmd_heatmap = {
	.name = "heatmap",
	.summary = "subsecond-offset heat map with time-range flame graphs (one HTML file)",
	.run = run,
	.help = heatmap_help,
};

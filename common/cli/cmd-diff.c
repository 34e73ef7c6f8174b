/* cmd-diff.c - `flamekit diff`: two profiles -> two-column folded stacks
 * (difffolded.pl), the input of a differential flame graph. */
#include <errno.h>
#include <string.h>
#include "cli.h"

struct diff_cli {
	bool normalize, strip;
};

static const fk_option diff_rows[] = {
	{ "normalize", NULL, 'n', FK_OPT_FLAG, 0, offsetof(struct diff_cli, normalize), 0, 0, NULL,
	  NULL, "scale BEFORE's counts to AFTER's total (truncated to integers, as difffolded.pl -n)",
	  NULL },
	{ "strip-hex", NULL, 's', FK_OPT_FLAG, 0, offsetof(struct diff_cli, strip), 0, 0, NULL, NULL,
	  "replace hex numbers (0x...) in names, so addresses that moved between runs still match",
	  NULL },
};

static void diff_sets(fkp_optset sets[3], struct cli_io *io, struct diff_cli *dc,
		      fk_parse_opts *po)
{
	sets[0] = (fkp_optset){ diff_rows, 2, dc, NULL, NULL };
	sets[1] = cli_io_set(io, false);
	sets[2] = cli_input_set(po);
}

static void diff_help(FILE *out)
{
	struct cli_io io;
	struct diff_cli dc;
	fk_parse_opts po;
	fkp_optset sets[3];
	diff_sets(sets, &io, &dc, &po);
	fputs("usage: flamekit diff [-n] [-s] [-o FILE] [input options] BEFORE AFTER\n\n"
	      "Writes the stacks of both profiles as two-column folded text,\n"
	      "'frame;frame;leaf BEFORE_COUNT AFTER_COUNT' (0 where a stack is missing),\n"
	      "sorted, as difffolded.pl does. BEFORE and AFTER may be folded stacks or any\n"
	      "input `flamekit collapse` reads. Draw it with `flamekit svg`: widths follow\n"
	      "AFTER, red frames grew, blue shrank; swap the files and add --negate to see\n"
	      "the widths of BEFORE. The -o name picks another output (any case):\n"
	      "FILE.pb.gz (.pb, .pprof) pprof with a sample type per side, FILE.svg or\n"
	      "FILE.html the differential graph with the renderer's defaults.\n\n", out);
	fkp_opt_help(out, &sets[0]);
	fkp_opt_help(out, &sets[1]);
	fputc('\n', out);
	fkp_opt_help(out, &sets[2]);
	fputs("\nExit status: 0 ok; 1 error, nothing written; 2 usage error;\n"
	      "3 output written but some input was malformed and skipped.\n", out);
}

static int diff_run(int argc, char **argv)
{
	fk_parse_opts po;
	fk_parse_opts_init(&po);
	struct cli_io io = { 0 };
	struct diff_cli dc = { 0 };
	fkp_optset sets[3];
	diff_sets(sets, &io, &dc, &po);
	char **files = argv + 1;
	int nfiles = 0;
	if (cli_parse(argc, argv, sets, 3, files, &nfiles, NULL))
		return FK_EXIT_USAGE;
	const char *out_path = io.output;
	bool normalize = dc.normalize, strip = dc.strip;
	if (nfiles != 2) {
		cli_err("diff: expected two files, BEFORE and AFTER (see flamekit diff --help)");
		return FK_EXIT_USAGE;
	}
	if (!strcmp(files[0], "-") && !strcmp(files[1], "-")) {
		cli_err("diff: only one of BEFORE and AFTER can be standard input");
		return FK_EXIT_USAGE;
	}
	/* the one output-name rule: folded (the default), pprof (a sample type per side), or
	 * the differential graph drawn with the renderer's defaults; speedscope has no
	 * second column */
	int kind = cli_output_kind(out_path, FK_OUTPUT_FOLDED);
	if (kind == FK_OUTPUT_SPEEDSCOPE) {
		cli_err("-o %s: speedscope holds one count a stack, a diff two (write folded, pprof, "
			"an SVG or a page)", out_path);
		return FK_EXIT_USAGE;
	}
	int status = FK_EXIT_OK;
	fk_profile *side[2] = { NULL, NULL };
	/* the output is open from the start (a temp file renamed only when all went well):
	 * the streamed diff writes as it reads */
	fkp_out out;
	if (fkp_out_open(&out, out_path))
		return FK_EXIT_ERROR;
	int rc = 1;
	/* two sorted folded files stream through (nothing held); any other input is read whole */
	if (kind == FK_OUTPUT_FOLDED && !strip && strcmp(files[0], "-") && strcmp(files[1], "-") &&
	    (!po.format || !strcmp(po.format, "folded")) && !po.rust_names && !po.cxx_names)
		rc = fk_diff_folded_files(files[0], files[1], normalize, out.f);
	if (rc == 1) {
		side[0] = fk_profile_new(0);
		side[1] = fk_profile_new(0);
		if (!side[0] || !side[1]) {
			cli_err("out of memory");
			status = FK_EXIT_ERROR;
			goto done;
		}
		for (int k = 0; k < 2; k++) {
			int st = cli_load(side[k], &files[k], 1, &po, NULL);
			if (st == FK_EXIT_ERROR) {
				status = st;
				goto done;
			}
			if (st == FK_EXIT_SKIPPED)
				status = st;
		}
		fk_profile *d = fk_profile_diff(side[0], side[1], normalize, strip);
		if (!d) {
			cli_err("diff: %s", fk_strerror(errno));
			status = FK_EXIT_ERROR;
			goto done;
		}
		fk_svg_opts so;
		fk_svg_opts_init(&so);
		rc = fk_write_output(d, kind, &so, out.f);
		fk_profile_free(d);
	}
	if (rc)
		cli_err("%s: %s", out_path ? out_path : "<stdout>", fk_strerror(rc));
	if (rc)
		status = FK_EXIT_ERROR;
done:
	if (fkp_out_close(&out, status != FK_EXIT_ERROR) && status != FK_EXIT_ERROR)
		status = FK_EXIT_ERROR;
	fk_profile_free(side[0]);
	fk_profile_free(side[1]);
	return status;
}

const struct fk_cmd fk_cmd_diff = {
	.name = "diff",
	.summary = "two profiles -> two-column folded stacks for a differential flame graph",
	.run = diff_run,
	.help = diff_help,
};

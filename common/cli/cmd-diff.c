/* cmd-diff.c - `flamekit diff`: two profiles -> two-column folded stacks
 * (difffolded.pl), the input of a differential flame graph; and the regression gate
 * over the runs of each side (--fail-above, --report: model/gate.c). */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <string.h>
#include <strings.h>
#include "cli.h"

struct diff_cli {
	bool normalize, strip;
	int report;              /* 0 none, 1 md, 2 json */
	const char *report_file;
	fkp_argv side[2];        /* -a / -b files, globs expanded */
};

static const char *const report_names[] = { NULL, "md", "json" };

/* -a/-b FILE: a run of a side; a pattern with * ? [ is expanded here (quoted, so the
 * shell leaves it), sorted, and must match something. */
static int parse_run(void *opts, const fk_option *row, const char *v, char *err, size_t n)
{
	struct diff_cli *dc = opts;
	int s = row->letter == 'b';
	glob_t gl = { 0 };
	bool pattern = strpbrk(v, "*?[") != NULL;
	if (pattern && glob(v, 0, NULL, &gl)) {
		globfree(&gl);
		snprintf(err, n, "no file matches '%s'", v);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < (pattern ? gl.gl_pathc : 1) && !rc; i++)
		rc = fkp_argv_push(&dc->side[s], pattern ? gl.gl_pathv[i] : v);
	if (rc)
		snprintf(err, n, "out of memory");
	globfree(&gl);
	return rc;
}

static const fk_option diff_rows[] = {
	{ "normalize", NULL, 'n', FK_OPT_FLAG, 0, offsetof(struct diff_cli, normalize), 0, 0, NULL,
	  NULL, "scale BEFORE's counts to AFTER's total (truncated to integers, as difffolded.pl -n)",
	  NULL },
	{ "strip-hex", NULL, 's', FK_OPT_FLAG, 0, offsetof(struct diff_cli, strip), 0, 0, NULL, NULL,
	  "replace hex numbers (0x...) in names, so addresses that moved between runs still match",
	  NULL },
	{ "before", NULL, 'a', FK_OPT_CUSTOM, 0, SIZE_MAX, 0, 0, NULL, "FILE",
	  "a run of the BEFORE side (repeat, or a quoted glob: -a 'base/*.folded')", parse_run },
	{ "after", NULL, 'b', FK_OPT_CUSTOM, 0, SIZE_MAX, 0, 0, NULL, "FILE",
	  "a run of the AFTER side (repeat, or a quoted glob)", parse_run },
	{ "report", NULL, 0, FK_OPT_CHOICE, 0, offsetof(struct diff_cli, report), 0, 0,
	  "none|md|json", "FMT", "write the gate's table of changes, Markdown or JSON, to standard "
	  "output (or -o) in place of the stacks", NULL },
	{ "report-file", NULL, 0, FK_OPT_TEXT, 0, offsetof(struct diff_cli, report_file), 0, 0, NULL,
	  "FILE", "write the table to FILE (Markdown, or JSON for *.json, or --report's), the stacks "
	  "still to standard output (or -o)", NULL },
};
#define NDIFF_ROWS (sizeof(diff_rows) / sizeof(diff_rows[0]))

static void diff_sets(fkp_optset sets[4], struct cli_io *io, struct diff_cli *dc,
		      fk_gate_opts *go, fk_parse_opts *po)
{
	size_t ng;
	const fk_option *gr = fk_gate_options(&ng);
	sets[0] = (fkp_optset){ diff_rows, NDIFF_ROWS, dc, NULL, NULL };
	sets[1] = cli_io_set(io, false);
	sets[2] = (fkp_optset){ gr, ng, go, "regression gate (compares each function's share of "
				"its profile's total):", NULL };
	sets[3] = cli_input_set(po);
}

static void diff_help(FILE *out)
{
	struct cli_io io;
	struct diff_cli dc;
	fk_gate_opts go;
	fk_parse_opts po;
	fkp_optset sets[4];
	fk_parse_opts_init(&po);
	diff_sets(sets, &io, &dc, &go, &po);
	fputs("usage: flamekit diff [-n] [-s] [-o FILE] [gate options] [input options] BEFORE AFTER\n"
	      "       flamekit diff [options] -a BEFORE... -b AFTER...\n\n"
	      "Writes the stacks of both profiles as two-column folded text,\n"
	      "'frame;frame;leaf BEFORE_COUNT AFTER_COUNT' (0 where a stack is missing),\n"
	      "sorted, as difffolded.pl does. BEFORE and AFTER may be folded stacks or any\n"
	      "input `flamekit collapse` reads. Draw it with `flamekit svg`: widths follow\n"
	      "AFTER, red frames grew, blue shrank; swap the files and add --negate to see\n"
	      "the widths of BEFORE. Several runs a side (-a, -b) are summed for the stacks.\n"
	      "The -o name picks another output (any case): FILE.pb.gz (.pb, .pprof) pprof\n"
	      "with a sample type per side, FILE.svg or FILE.html the differential graph with\n"
	      "the renderer's defaults.\n\n"
	      "The gate (--fail-above, --report, --report-file) compares each function's share\n"
	      "of its profile's total, BEFORE to AFTER: with several runs a side, the median\n"
	      "share over the side's runs. Without --report a summary goes to standard error.\n\n",
	      out);
	fkp_opt_help(out, &sets[0]);
	fkp_opt_help(out, &sets[1]);
	fputc('\n', out);
	fkp_opt_help(out, &sets[2]);
	fputc('\n', out);
	fkp_opt_help(out, &sets[3]);
	fputs("\nExit status: 0 ok (and no function over the limit); 1 error, nothing written,\n"
	      "or with --fail-above a function grew past the limit (the outputs are written);\n"
	      "2 usage error; 3 output written but some input was malformed and skipped.\n", out);
}

/* One side's runs read one by one: each goes to the gate, and (when stacks are written)
 * into the side's sum. FK_EXIT_OK, FK_EXIT_SKIPPED or FK_EXIT_ERROR (said). */
static int read_side(fkp_argv *runs, unsigned side, const fk_parse_opts *po, fk_gate *g,
		     fk_profile **sum)
{
	int status = FK_EXIT_OK;
	for (size_t i = 0; i < runs->n; i++) {
		fk_profile *p = fk_profile_new(0);
		if (!p) {
			cli_err("out of memory");
			return FK_EXIT_ERROR;
		}
		int st = cli_load(p, &runs->v[i], 1, po, NULL);
		if (st == FK_EXIT_SKIPPED)
			status = st;
		int rc = 0;
		if (st != FK_EXIT_ERROR && g)
			rc = fk_gate_add(g, side, p, runs->v[i]);
		if (st != FK_EXIT_ERROR && !rc && sum) {
			if (!*sum) {
				*sum = p;
				p = NULL;
			} else {
				rc = fk_profile_merge(*sum, p);
			}
		}
		fk_profile_free(p);
		if (st == FK_EXIT_ERROR)
			return st;
		if (rc) {
			/* the gate said why (units, nothing counted); memory is ours to say */
			if (rc == -FK_E_NOMEM)
				cli_err("out of memory");
			return FK_EXIT_ERROR;
		}
	}
	return status;
}

static int diff_run(int argc, char **argv)
{
	fk_parse_opts po;
	fk_parse_opts_init(&po);
	struct cli_io io = { 0 };
	struct diff_cli dc = { 0 };
	fk_gate_opts go;
	fk_gate_opts_init(&go);
	go.limit = NAN; /* --fail-above given or not */
	fkp_optset sets[4];
	diff_sets(sets, &io, &dc, &go, &po);
	char **files = argv + 1;
	int nfiles = 0;
	int status = FK_EXIT_USAGE;
	fk_profile *side[2] = { NULL, NULL };
	fk_gate *g = NULL;
	if (cli_parse(argc, argv, sets, 4, files, &nfiles, NULL))
		goto out;
	bool fail = !isnan(go.limit);
	if (!fail)
		go.limit = 0.10;
	go.strip_hex = dc.strip;
	bool gate = fail || dc.report || dc.report_file;
	if (dc.side[0].n || dc.side[1].n) {
		if (nfiles) {
			cli_err("diff: give the runs with -a and -b, or BEFORE AFTER, not both");
			goto out;
		}
		if (!dc.side[0].n || !dc.side[1].n) {
			cli_err("diff: -a and -b each need at least one run");
			goto out;
		}
	} else if (nfiles != 2) {
		cli_err("diff: expected two files, BEFORE and AFTER (see flamekit diff --help)");
		goto out;
	} else if (fkp_argv_push(&dc.side[0], files[0]) || fkp_argv_push(&dc.side[1], files[1])) {
		cli_err("out of memory");
		status = FK_EXIT_ERROR;
		goto out;
	}
	int stdin_runs = 0;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < dc.side[k].n; i++)
			stdin_runs += !strcmp(dc.side[k].v[i], "-");
	if (stdin_runs > 1) {
		cli_err("diff: only one of the inputs can be standard input");
		goto out;
	}
	const char *report_fmt = dc.report ? report_names[dc.report] : NULL;
	if (!report_fmt && dc.report_file) {
		size_t l = strlen(dc.report_file);
		report_fmt = l > 5 && !strcasecmp(dc.report_file + l - 5, ".json") ? "json" : "md";
	}
	/* the table in place of the stacks, or the stacks (and the table in its own file) */
	bool stacks = !(dc.report && !dc.report_file);
	/* the one output-name rule: folded (the default), pprof (a sample type per side), or
	 * the differential graph drawn with the renderer's defaults; speedscope has no
	 * second column */
	int kind = stacks ? cli_output_kind(io.output, FK_OUTPUT_FOLDED) : FK_OUTPUT_FOLDED;
	if (kind == FK_OUTPUT_SPEEDSCOPE) {
		cli_err("-o %s: speedscope holds one count a stack, a diff two (write folded, pprof, "
			"an SVG or a page)", io.output);
		goto out;
	}
	status = FK_EXIT_ERROR;
	if (gate && !(g = fk_gate_new(&go)))
		goto out;
	/* the outputs are open from the start (temp files renamed only when all went well):
	 * an unwritable path is found before anything is read, and the streamed diff writes
	 * as it reads */
	fkp_out out, rep;
	bool rep_open = false;
	if (fkp_out_open(&out, io.output))
		goto out;
	if (dc.report_file) {
		if (fkp_out_open(&rep, dc.report_file)) {
			fkp_out_close(&out, false);
			goto out;
		}
		rep_open = true;
	}
	status = FK_EXIT_OK;
	int rc = 1;
	/* two sorted folded files stream through (nothing held); any other input is read whole */
	if (!gate && kind == FK_OUTPUT_FOLDED && dc.side[0].n == 1 && dc.side[1].n == 1 && !dc.strip &&
	    strcmp(dc.side[0].v[0], "-") && strcmp(dc.side[1].v[0], "-") &&
	    (!po.format || !strcmp(po.format, "folded")) && !po.rust_names && !po.cxx_names)
		rc = fk_diff_folded_files(dc.side[0].v[0], dc.side[1].v[0], dc.normalize, out.f);
	if (rc == 1) {
		rc = 0;
		for (unsigned k = 0; k < 2; k++) {
			int st = read_side(&dc.side[k], k, &po, g, stacks ? &side[k] : NULL);
			if (st == FK_EXIT_ERROR) {
				status = st;
				goto done;
			}
			if (st == FK_EXIT_SKIPPED)
				status = st;
		}
		if (stacks) {
			fk_profile *d = fk_profile_diff(side[0], side[1], dc.normalize, dc.strip);
			if (!d) {
				cli_err("diff: %s", fk_strerror(errno));
				status = FK_EXIT_ERROR;
				goto done;
			}
			fk_svg_opts so;
			fk_svg_opts_init(&so);
			rc = fk_write_output(d, kind, &so, out.f);
			fk_profile_free(d);
			if (rc)
				cli_err("%s: %s", io.output ? io.output : "<stdout>", fk_strerror(rc));
		}
	}
	if (!rc && g) {
		if (!stacks)
			rc = fk_gate_write(g, report_fmt, out.f);
		else if (rep_open)
			rc = fk_gate_write(g, report_fmt, rep.f);
		if (!rc && !dc.report) {
			fflush(stdout);
			rc = fk_gate_write(g, "text", stderr);
		}
		if (rc)
			cli_err("diff: report: %s", fk_strerror(rc));
	}
	if (rc)
		status = FK_EXIT_ERROR;
done:
	if (rep_open && fkp_out_close(&rep, status != FK_EXIT_ERROR) && status != FK_EXIT_ERROR)
		status = FK_EXIT_ERROR;
	if (fkp_out_close(&out, status != FK_EXIT_ERROR) && status != FK_EXIT_ERROR)
		status = FK_EXIT_ERROR;
	/* the gate's verdict, once everything is written */
	if (status != FK_EXIT_ERROR && fail && fk_gate_failed(g))
		status = FK_EXIT_ERROR;
out:
	fk_gate_free(g);
	fk_profile_free(side[0]);
	fk_profile_free(side[1]);
	fkp_argv_free(&dc.side[0]);
	fkp_argv_free(&dc.side[1]);
	return status;
}

const struct fk_cmd fk_cmd_diff = {
	.name = "diff",
	.summary = "two profiles -> two-column folded stacks for a differential flame graph",
	.run = diff_run,
	.help = diff_help,
};

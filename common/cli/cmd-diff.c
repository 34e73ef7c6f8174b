/* cmd-diff.c - `flamekit diff`: two profiles -> two-column folded stacks
 * (difffolded.pl), the input of a differential flame graph. */
#include <errno.h>
#include <string.h>
#include "cli.h"

static void diff_help(FILE *out)
{
	fputs("usage: flamekit diff [-n] [-s] [-o FILE] [input options] BEFORE AFTER\n\n"
	      "Writes the stacks of both profiles as two-column folded text,\n"
	      "'frame;frame;leaf BEFORE_COUNT AFTER_COUNT' (0 where a stack is missing),\n"
	      "sorted, as difffolded.pl does. BEFORE and AFTER may be folded stacks or any\n"
	      "input `flamekit collapse` reads. Draw it with `flamekit svg`: widths follow\n"
	      "AFTER, red frames grew, blue shrank; swap the files and add --negate to see\n"
	      "the widths of BEFORE.\n\n"
	      "  -n, --normalize     scale BEFORE's counts to AFTER's total (truncated to\n"
	      "                      integers, as difffolded.pl -n)\n"
	      "  -s, --strip-hex     replace hex numbers (0x...) in names, so addresses that\n"
	      "                      moved between runs still match\n"
	      "  -o, --output FILE   write to FILE (replaced only when all went well)\n\n", out);
	cli_input_help(out);
	fputs("\nExit status: 0 ok; 1 error, nothing written; 2 usage error;\n"
	      "3 output written but some input was malformed and skipped.\n", out);
}

static int diff_run(int argc, char **argv)
{
	fk_parse_opts po;
	fk_parse_opts_init(&po);
	const char *out_path = NULL;
	char *files[2];
	int nfiles = 0;
	bool normalize = false, strip = false, opts_done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (opts_done || a[0] != '-' || !strcmp(a, "-")) {
			if (nfiles == 2) {
				cli_err("diff: expected two files, BEFORE and AFTER (see flamekit diff --help)");
				return FK_EXIT_USAGE;
			}
			files[nfiles++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			opts_done = true;
			continue;
		}
		int r = cli_input_option(&po, argc, argv, &i);
		if (r < 0)
			return FK_EXIT_USAGE;
		if (r > 0)
			continue;
		if (!strcmp(a, "-n") || !strcmp(a, "--normalize")) {
			normalize = true;
		} else if (!strcmp(a, "-s") || !strcmp(a, "--strip-hex")) {
			strip = true;
		} else if (!strcmp(a, "-ns") || !strcmp(a, "-sn")) {
			normalize = strip = true;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (i + 1 >= argc) {
				cli_err("%s needs a value", a);
				return FK_EXIT_USAGE;
			}
			out_path = argv[++i];
		} else if (!strncmp(a, "--output=", 9)) {
			out_path = a + 9;
		} else {
			cli_err("diff: unknown option '%s' (see flamekit diff --help)", a);
			return FK_EXIT_USAGE;
		}
	}
	if (nfiles != 2) {
		cli_err("diff: expected two files, BEFORE and AFTER (see flamekit diff --help)");
		return FK_EXIT_USAGE;
	}
	if (!strcmp(files[0], "-") && !strcmp(files[1], "-")) {
		cli_err("diff: only one of BEFORE and AFTER can be standard input");
		return FK_EXIT_USAGE;
	}
	fk_profile *side[2] = { fk_profile_new(0), fk_profile_new(0) };
	int status = FK_EXIT_OK;
	if (!side[0] || !side[1]) {
		cli_err("out of memory");
		status = FK_EXIT_ERROR;
		goto done;
	}
	for (int k = 0; k < 2; k++) {
		int s = cli_load(side[k], &files[k], 1, &po);
		if (s == FK_EXIT_ERROR) {
			status = s;
			goto done;
		}
		if (s == FK_EXIT_SKIPPED)
			status = s;
	}
	fk_profile *d = fk_profile_diff(side[0], side[1], normalize, strip);
	if (!d) {
		cli_err("diff: %s", fk_strerror(errno));
		status = FK_EXIT_ERROR;
		goto done;
	}
	cli_out out;
	if (cli_out_open(&out, out_path)) {
		fk_profile_free(d);
		status = FK_EXIT_ERROR;
		goto done;
	}
	int rc = fk_profile_write_folded(d, out.f);
	fk_profile_free(d);
	if (rc)
		cli_err("%s: %s", out_path ? out_path : "<stdout>", fk_strerror(rc));
	if (cli_out_close(&out, rc == 0) || rc)
		status = FK_EXIT_ERROR;
done:
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

/* cmd-formats.c - `flamekit formats`: the input formats and how to force one. */
#include "cli.h"

static void formats_help(FILE *out)
{
	fputs("usage: flamekit formats\n\nLists the input formats the core reads; "
	      "any command that reads stacks\ndetects the format from the first lines, "
	      "or takes --format NAME.\n", out);
}

static int formats_run(int argc, char **argv)
{
	char **ops = argv + 1;
	int nops = 0;
	if (cli_parse(argc, argv, NULL, 0, ops, &nops, NULL))
		return FK_EXIT_USAGE;
	if (nops) {
		cli_err("formats: unexpected argument '%s' (see flamekit formats --help)", ops[0]);
		return FK_EXIT_USAGE;
	}
	for (const char *const *n = fk_format_names(); *n; n++)
		printf("%-12s %s\n", *n, fk_format_description(*n));
	return fflush(stdout) || ferror(stdout) ? FK_EXIT_ERROR : FK_EXIT_OK;
}

const struct fk_cmd fk_cmd_formats = {
	.name = "formats",
	.summary = "list the input formats",
	.run = formats_run,
	.help = formats_help,
};

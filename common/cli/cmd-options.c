/* cmd-options.c - `flamekit options`: the option tables of the library and of the
 * gdb command, as TSV for scripts and tests or as the Markdown tables of the docs
 * (docs/gen-options.sh writes them into the pages). */
#include <string.h>
#include "cli.h"
#include "prog/flame-opts.h"

static void options_help(FILE *out)
{
	fputs("usage: flamekit options [--markdown|--man] [--keys] [--subset S] [TABLE]\n\n"
	      "Lists the options of a table, one per line as TSV: name, alias, type, values,\n"
	      "min, max, flamegraph.pl (when it has the option), help; '-' for none. Every\n"
	      "front end reads its options from these tables: flamekit's commands, perf\n"
	      "flame and the perf dlfilter's --dlarg, the Python module's keywords, the gdb\n"
	      "flame command.\n\n"
	      "  --markdown          a Markdown table instead (the docs' option tables)\n"
	      "  --man               man page entries instead\n"
	      "  --keys              spell options as KEY=VALUE (--dlarg, Python) not --KEY\n"
	      "  --subset S          all (default), flamegraph (the options flamegraph.pl\n"
	      "                      has too), other, page (the options the HTML page\n"
	      "                      honours too) or svg-only\n"
	      "tables: svg (flamekit svg, the default), heatmap, input (any command reading\n"
	      "stacks), gdb (the gdb flame command and flamekit gdb), stap and bpftrace (the\n"
	      "own options of flamekit stap and flamekit bpftrace, which take -o and the svg\n"
	      "table's too), gate (flamekit diff's regression gate)\n", out);
}

struct options_cli {
	bool markdown, man, keys;
	int subset;
};

static const fk_option options_rows[] = {
	{ "markdown", NULL, 0, FK_OPT_FLAG, 0, offsetof(struct options_cli, markdown), 0, 0, NULL,
	  NULL, "a Markdown table", NULL },
	{ "man", NULL, 0, FK_OPT_FLAG, 0, offsetof(struct options_cli, man), 0, 0, NULL,
	  NULL, "man page entries", NULL },
	{ "keys", NULL, 0, FK_OPT_FLAG, 0, offsetof(struct options_cli, keys), 0, 0, NULL, NULL,
	  "KEY=VALUE spelling", NULL },
	{ "subset", NULL, 0, FK_OPT_CHOICE, 0, offsetof(struct options_cli, subset), 0, 0,
	  "all|flamegraph|other|page|svg-only", "S", "which rows", NULL },
};

static int options_run(int argc, char **argv)
{
	struct options_cli oc = { 0 };
	fkp_optset set = { options_rows, 4, &oc, NULL, NULL };
	char **ops = argv + 1;
	int nops = 0;
	if (cli_parse(argc, argv, &set, 1, ops, &nops, NULL))
		return FK_EXIT_USAGE;
	const char *which = nops ? ops[0] : "svg";
	fkp_optset t = { NULL, 0, NULL, NULL, NULL };
	if (nops > 1) {
		cli_err("options: one table at a time");
		return FK_EXIT_USAGE;
	}
	if (!strcmp(which, "stap"))
		t.rows = cli_stap_options(&t.n);
	else if (!strcmp(which, "bpftrace"))
		t.rows = cli_bpftrace_options(&t.n);
	else
		t.rows = fkp_table(which, &t.n);
	if (!t.rows) {
		cli_err("options: unknown table '%s' (svg heatmap input gdb stap bpftrace gate)",
			which);
		return FK_EXIT_USAGE;
	}
	/* the subsets as flag masks: all, flamegraph.pl's, the others, the rows the HTML
	 * page honours, the SVG's alone */
	static const unsigned mask[] = { 0, FK_OPTF_FLAMEGRAPH, FK_OPTF_FLAMEGRAPH, FK_OPTF_PAGE,
					 FK_OPTF_PAGE };
	static const unsigned want[] = { 0, FK_OPTF_FLAMEGRAPH, 0, FK_OPTF_PAGE, 0 };
	fkp_opt_table(stdout, &t, oc.man ? FKP_TABLE_MAN : oc.markdown ? FKP_TABLE_MARKDOWN
		      : FKP_TABLE_TSV, !oc.keys, mask[oc.subset], want[oc.subset]);
	return fflush(stdout) || ferror(stdout) ? FK_EXIT_ERROR : FK_EXIT_OK;
}

const struct fk_cmd fk_cmd_options = {
	.name = "options",
	.summary = "list the option tables (TSV, or Markdown for the docs)",
	.run = options_run,
	.help = options_help,
};

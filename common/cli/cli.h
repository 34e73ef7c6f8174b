/* cli.h - shared pieces of the flamekit program: the command table entry and
 * the helpers every subcommand uses (options, loading inputs). The program
 * helpers (atomic output, children, the option parser) are in prog/prog.h. */
#ifndef FK_CLI_H
#define FK_CLI_H

#include "flamekit.h"
#include "prog/prog.h"

/* Exit codes (docs/DEVELOPING.md). */
enum { FK_EXIT_OK = 0, FK_EXIT_ERROR = 1, FK_EXIT_USAGE = 2, FK_EXIT_SKIPPED = 3 };

struct fk_cmd {
	const char *name;
	const char *summary;                 /* one line for `flamekit --help` */
	int (*run)(int argc, char **argv);   /* argv[0] is the command name; returns an exit code */
	void (*help)(FILE *out);             /* full `flamekit NAME --help` text */
};

/* Print "flamekit: " + message to stderr. */
#define cli_err fkp_err

/* `flamekit svg` (html = false) and `flamekit html`: one option parser (cmd-svg.c). */
int cli_svg_run(int argc, char **argv, bool html);

/* Options of the commands that read stacks and write one file: -o/--output,
 * --keep, --drop (cli_io_rows describe them). */
struct cli_io {
	const char *output, *keep, *drop;
};
/* The option set of those (writing into io); `keep_drop` false: -o only. */
fkp_optset cli_io_set(struct cli_io *io, bool keep_drop);
/* The input options (fk_parse_options) writing into po. */
fkp_optset cli_input_set(fk_parse_opts *po);
/* Help text for the input options. */
void cli_input_help(FILE *out);
/* Parse argv with sets (operands into files, which may alias argv + 1). 0, or
 * -1 after a message that names `flamekit argv[0] --help`. */
int cli_parse(int argc, char **argv, const fkp_optset *sets, size_t nsets, char **files,
	      int *nfiles);

/* Read every file (or stdin if n == 0; "-" is stdin) into p. Prints the
 * library's warnings. Returns FK_EXIT_OK, FK_EXIT_SKIPPED (some input was
 * skipped) or FK_EXIT_ERROR (a file could not be read at all). */
int cli_load(fk_profile *p, char **files, int n, const fk_parse_opts *o);

/* A new profile (fk_profile_new flags) holding every input (cli_load) after
 * the --keep/--drop filters (cli_filter; either may be NULL). Returns it with
 * *status FK_EXIT_OK or FK_EXIT_SKIPPED, or NULL with *status the exit code to
 * return (messages printed). */
fk_profile *cli_read(unsigned flags, char **files, int n, const fk_parse_opts *o,
		     const char *keep, const char *drop, int *status);

/* Apply --keep then --drop regex filters (either may be NULL) to *p, replacing
 * it. Returns FK_EXIT_OK, FK_EXIT_USAGE (bad regex, message printed) or
 * FK_EXIT_ERROR; on failure *p is freed and set to NULL. */
int cli_filter(fk_profile **p, const char *keep, const char *drop);

/* The --emit format an output name implies: "pprof" for NAME.pb.gz, .pb or .pprof,
 * "speedscope" for NAME.speedscope.json, else "folded" (also for NULL: standard output). */
const char *cli_emit_for_path(const char *path);

/* Parse a number option value; -1 + message on error. */
int cli_number(const char *opt, const char *s, double *out);

#endif

/* cli.h - shared pieces of the flamekit program: the command table entry and
 * the helpers every subcommand uses (input options, loading, atomic output). */
#ifndef FK_CLI_H
#define FK_CLI_H

#include "flamekit.h"

/* Exit codes (docs/DEVELOPING.md). */
enum { FK_EXIT_OK = 0, FK_EXIT_ERROR = 1, FK_EXIT_USAGE = 2, FK_EXIT_SKIPPED = 3 };

struct fk_cmd {
	const char *name;
	const char *summary;                 /* one line for `flamekit --help` */
	int (*run)(int argc, char **argv);   /* argv[0] is the command name; returns an exit code */
	void (*help)(FILE *out);             /* full `flamekit NAME --help` text */
};

/* Print "flamekit: " + message to stderr. */
void cli_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* `flamekit svg` (html = false) and `flamekit html`: one option parser (cmd-svg.c). */
int cli_svg_run(int argc, char **argv, bool html);

/* Input options shared by every command that reads stacks (collapse, svg, heatmap...).
 * If argv[*i] is one of them, consume it (and its value), update o and return 1;
 * return 0 if it is not an input option, -1 on a usage error (message printed). */
int cli_input_option(fk_parse_opts *o, int argc, char **argv, int *i);
/* Help text for those options. */
void cli_input_help(FILE *out);

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

/* Atomic output: opens path.tmp.PID (or stdout for NULL / "-"). */
typedef struct cli_out {
	FILE *f;
	char *path, *tmp;
} cli_out;
int cli_out_open(cli_out *o, const char *path);
/* ok: flush, check errors, rename into place. !ok: remove the temp file.
 * Returns 0, or -1 after printing an error (write error, full disk). */
int cli_out_close(cli_out *o, int ok);

/* Argument walk shared by the commands: if argv[i] is an input file ("-" or
 * not starting with '-', or anything after "--") append it to files and
 * return true; a "--" is consumed (true) and ends the options. Returns false
 * when argv[i] is an option for the caller to handle. files may alias argv+1. */
bool cli_take_file(char **argv, int i, char **files, int *nfiles, bool *opts_done);

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

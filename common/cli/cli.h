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
/* The renderer options (fk_svg_options rows) given on a command line, recorded by
 * the parser's seen callback (cli_given_seen, ctx the struct), so that a command can
 * refuse those the output it writes does not honour. */
struct cli_given {
	const fk_option *rows;   /* fk_svg_options() */
	size_t n;
	uint64_t bits;           /* bit i: rows[i] was given */
};
void cli_given_init(struct cli_given *g);
int cli_given_seen(void *ctx, const fk_option *row, const char *value);
/* FK_EXIT_OK, or FK_EXIT_USAGE after one message naming every given row that output
 * kind (enum fk_output_kind) does not honour (fk_output_honours), and path. */
int cli_given_check(const struct cli_given *g, int kind, const char *path);
/* FK_EXIT_OK, or FK_EXIT_USAGE after naming the given rows that need timestamped
 * samples (FK_OPTF_TIMED), which a tracer that aggregates in the kernel has not. */
int cli_given_untimed(const struct cli_given *g, const char *tracer);

/* What -o path writes: fk_output_for_path's kind, or dflt when the name says nothing. */
int cli_output_kind(const char *path, int dflt);

/* Parse argv with sets (operands into files, which may alias argv + 1); given (or
 * NULL) records the renderer options. 0, or -1 after a message that names
 * `flamekit argv[0] --help`. */
int cli_parse(int argc, char **argv, const fkp_optset *sets, size_t nsets, char **files,
	      int *nfiles, struct cli_given *given);

/* Read every file (or stdin if n == 0; "-" is stdin) into p. Prints the
 * library's warnings. format (NULL, or room for fk_parse_stats.format) gets the
 * format of the last file. Returns FK_EXIT_OK, FK_EXIT_SKIPPED (some input was
 * skipped) or FK_EXIT_ERROR (a file could not be read at all). */
int cli_load(fk_profile *p, char **files, int n, const fk_parse_opts *o, char *format);

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

/* The tracer front ends (stap, bpftrace): what they write, by the -o name (or folded
 * stacks with --folded; a name saying another output is refused), with the renderer
 * options checked against it and against stacks that come without times. Into *kind;
 * FK_EXIT_OK or FK_EXIT_USAGE (message printed). All before anything runs. */
int cli_tracer_kind(const char *path, bool folded, const fk_svg_opts *so,
		    const struct cli_given *given, const char *tracer, int *kind);
/* Run the tracer argv (the spawn helper's signal policy: Ctrl-C stops the tracer,
 * which prints what it gathered) with its standard output read into p by the parser
 * (po), and wait for it. FK_EXIT_OK, FK_EXIT_SKIPPED (malformed lines skipped) or
 * FK_EXIT_ERROR after a message naming what (the tracer failed, printed nothing...);
 * hint follows "cannot run" (the tracer not found). restop: a stop the tracer has not
 * answered within that many seconds is sent again (fkp_policy_restop; 0: never). */
int cli_tracer_run(char **argv, fk_profile *p, const fk_parse_opts *po, const char *tracer,
		   const char *hint, unsigned restop);

/* The own option rows of `flamekit stap` and `flamekit bpftrace` (flamekit options). */
const fk_option *cli_stap_options(size_t *n);
const fk_option *cli_bpftrace_options(size_t *n);

/* Parse a number option value; -1 + message on error. */
int cli_number(const char *opt, const char *s, double *out);

#endif

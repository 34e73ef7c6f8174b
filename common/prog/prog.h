/* prog.h - the helper layer of flamekit's programs (the CLI, perf-flame, the perf
 * dlfilter, the Python module): not part of libflamekit's ABI (like perf's
 * tools/lib/subcmd). Atomic output, child processes, files beside the program,
 * growable argv, and the option parser driven by the library's option tables. */
#ifndef FK_PROG_H
#define FK_PROG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include "flamekit.h"

/* ------------------------------------------------------------------ messages
 * Every message of this layer goes through fkp_report: by default
 * "<fkp_prog>: message\n" on stderr. A host (the Python module) may replace it. */
extern const char *fkp_prog;
extern void (*fkp_report)(const char *msg);
void fkp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ------------------------------------------------------------------ atomic output
 * A file is written to PATH.tmp.PID and renamed over PATH only once all went
 * well, so a partial output never looks complete. A FIFO or device (anything
 * that exists and is not a regular file: /dev/stdout, /dev/full, a named pipe)
 * is written in place: renaming over it would replace the node. NULL or "-" is
 * standard output. */
typedef struct fkp_out {
	FILE *f;
	char *path, *tmp;   /* tmp NULL: written in place (stdout, FIFO, device) */
} fkp_out;
/* 0, or -1 after a message naming the path. */
int fkp_out_open(fkp_out *o, const char *path);
/* ok: flush, check errors, rename into place; !ok: remove the temp file.
 * 0, or -1 after a message (write error, full disk, rename). */
int fkp_out_close(fkp_out *o, bool ok);
/* Can path be written as fkp_out_open would write it (its directory exists and
 * takes a new file, or the FIFO/device is writable; not a directory)? For the
 * front ends that sample: every output is checked before sampling starts.
 * 0, or -1 after a message naming the path. Creates nothing that stays. */
int fkp_out_check(const char *path);
/* True when path is missing or a regular file: the outputs written atomically. */
bool fkp_out_is_regular(const char *path);

/* ------------------------------------------------------------------ child processes
 * One signal policy for every child (the project's signal contract, docs/exit-status.md):
 * - The child starts with SIGINT, SIGTERM, SIGHUP and SIGQUIT at their defaults and
 *   unblocked (even when this program was started with them ignored), and with
 *   PR_SET_PDEATHSIG = SIGINT: if this program dies (kill -9), the child is asked to
 *   stop as by Ctrl-C, so a tracer ends cleanly and lets its target go.
 * - While children run, the first SIGINT, SIGTERM or SIGHUP to this program means
 *   "stop now and draw what you have": each child is sent SIGINT (every tool's stop
 *   request), except after a terminal's Ctrl-C, which reached the children already;
 *   this program lives on to read and write what they produced, and ends as a
 *   normal run would (fkp_stop_signal() says which signal came). The same signal
 *   from the same sender within a second counts once (timeout(1) signals the
 *   command and then its whole process group).
 * - A second one aborts: the children get SIGTERM, SIGKILL two seconds later if
 *   still there; fkp_aborted() is then true and the caller removes its partial
 *   output and exits 1.
 * - SIGQUIT is left to the child (ignored here). The handlers are in place from
 *   the first fkp_spawn to the last fkp_wait (at most 16 children at once), with
 *   SA_RESTART: reading a child's pipe goes on to its end; or from
 *   fkp_policy_begin to fkp_policy_end for a run of children in sequence. */
#define FKP_PIPE (-2)   /* out_fd: give the child's stdout to the caller as a pipe */
/* Start argv (PATH search). out_fd: -1 inherit, FKP_PIPE (read end into
 * *pipe_rd), or an fd for the child's stdout. quiet_stderr: child stderr to
 * /dev/null. Returns the pid, or -1 after a message. A child that cannot exec
 * says why and exits 127. */
pid_t fkp_spawn(char *const argv[], int out_fd, int *pipe_rd, bool quiet_stderr);
/* Wait for a child of fkp_spawn (EINTR retried) and end the signal policy.
 * Returns its exit status, 128+N when killed by signal N, -1 on error. */
int fkp_wait(pid_t pid);
/* fkp_spawn + fkp_wait. */
int fkp_run(char *const argv[], int out_fd);
/* 0, or the first SIGINT/SIGTERM/SIGHUP that asked the children to stop (since
 * the policy began with the first running child; kept after fkp_wait). A child
 * that ended after it (even killed by the SIGINT) ended as asked, not failed. */
int fkp_stop_signal(void);
/* A second signal came: the children were told to abort (see above). */
bool fkp_aborted(void);
/* A run of several children in sequence under one policy (perf flame: perf
 * record, then perf script): from begin to end the handlers stay in place and
 * the requests are counted across the children and the gaps between them. A
 * first request while no child runs is passed to the next child fkp_spawn
 * starts (before fkp_policy_drawing); after a second, fkp_spawn starts none
 * (-1, errno EINTR, no message: fkp_aborted() says why). Begin and end pair up;
 * neither prints. */
void fkp_policy_begin(void);
void fkp_policy_end(void);
/* From now until fkp_policy_end the children draw what the run recorded: a
 * first request no longer reaches them (the recording it stops is over; it is
 * still noted), a second still aborts them. */
void fkp_policy_drawing(void);
/* For the children fkp_spawn starts next, until the policy ends: a first request
 * they have not answered by ending within `seconds` is sent to them once more, and
 * again every `seconds` (0: never, the default). For a tool that takes a repeated
 * SIGINT as the one it handles but can miss one: bpftrace checks its stop flag and
 * then waits in epoll_wait, where a SIGINT that came in between waits for the next
 * event, which a map-only program may never have. */
void fkp_policy_restop(unsigned seconds);
/* Also tell the requests through fd (a non-blocking pipe the caller gave a
 * child): one byte 's' at the first request, 'a' at an abort. A signal can come
 * before the child is ready to take it (gdb loading its Python takes Ctrl-C as
 * its own); the byte waits in the pipe. -1: none (the default). */
void fkp_spawn_notify(int fd);

/* The one rule for "is this signal a second request?", for the policy above and
 * for gdb's flame (its signal hooks): a first request; the same one again (the
 * same signal from the same sender within a second, as timeout(1) sends it to
 * the command and to its group); or a second request (abort). supervisor: the
 * pid of the program that runs this one under the policy above (0: none): its
 * SIGINT is a stop request, never a second one (the same Ctrl-C or TERM may
 * have reached this process directly too), its SIGTERM is its abort.
 * code/pid: siginfo's si_code and si_pid. Async-signal-safe. */
typedef struct fkp_sigreq {
	int sig, code, pid;
	double at;      /* CLOCK_MONOTONIC seconds of the first */
	int n;          /* requests so far */
} fkp_sigreq;
enum { FKP_SIG_FIRST = 1, FKP_SIG_SAME = 0, FKP_SIG_AGAIN = 2 };
int fkp_sigreq_note(fkp_sigreq *r, int sig, int code, int pid, double now, int supervisor);

/* ------------------------------------------------------------------ files beside the program
 * The first of rel[] (paths relative to the directory of this executable, e.g.
 * "gdb/flamekit.py", "../share/flamekit/gdb/flamekit.py") that is a regular
 * file, as a malloc'd real path; NULL if none. */
char *fkp_find_beside_exe(const char *const rel[], size_t n);

/* ------------------------------------------------------------------ growable argv */
typedef struct fkp_argv {
	char **v;       /* NULL-terminated once anything was pushed */
	size_t n, cap;
} fkp_argv;
/* Append a copy of s (or of the formatted string). 0, or -1 on out of memory. */
int fkp_argv_push(fkp_argv *a, const char *s);
int fkp_argv_pushf(fkp_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool fkp_argv_has(const fkp_argv *a, const char *s);
void fkp_argv_free(fkp_argv *a);

/* Print one shell word, quoted when it has anything a shell would expand
 * (--print-command of the tracer runners). */
void fkp_print_shell_word(FILE *out, const char *w);

/* Grow *p (of *cap elements of size elem) to hold need; 0 or -1. */
int fkp_grow(void **p, size_t *cap, size_t need, size_t elem);
/* A 64-bit mixer for hash tables (murmur3's finaliser; deterministic). */
static inline uint64_t fkp_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* ------------------------------------------------------------------ options
 * The programs' option parser reads the library's option tables (fk_option
 * rows), and rows of the program's own (offsets into its own struct). One set
 * is one table and the struct its rows write into. */
typedef struct fkp_optset {
	const fk_option *rows;
	size_t n;
	void *obj;                /* the struct the rows describe */
	const char *title;        /* heading in help texts, NULL = none */
	const char *const *only;  /* NULL-terminated names accepted from rows; NULL = all */
} fkp_optset;

typedef struct fkp_parser {
	const fkp_optset *sets;
	size_t nsets;
	const char *hint;         /* after "unknown option": e.g. "see flamekit svg --help" */
	/* called after each option was applied (value as given, NULL for none):
	 * e.g. to pass it on to another program; non-zero stops with an error. */
	int (*seen)(void *ctx, const fk_option *row, const char *value);
	void *ctx;
	bool exact;   /* whole --names only: no abbreviations, no -name (when another
		       * program's options pass through beside ours) */
} fkp_parser;

/* If argv[*i] is one of the parser's options, apply it (taking its value,
 * *i advanced past it) and return 1; 0 if it is none of them; -1 after a
 * message. Accepts --name, --name=VALUE, --name VALUE, -name (one dash, as
 * flamegraph.pl's Getopt::Long does), -x / -xVALUE for rows with a letter,
 * aliases, '_' for '-', and unique abbreviations of long names (--wid). */
int fkp_opt_one(const fkp_parser *p, int argc, char **argv, int *i);
/* A whole command line (argv[0] is the command): operands (anything not
 * starting with '-', "-" itself, everything after "--") go to ops (may alias
 * argv + 1) in order; an unknown option is an error. 0 or -1 (message printed). */
int fkp_opt_parse(const fkp_parser *p, int argc, char **argv, char **ops, int *nops);
/* The row named name in the parser's sets and its set, or NULL. */
const fk_option *fkp_opt_lookup(const fkp_parser *p, const char *name, const fkp_optset **set);
/* Help lines of a set: "  --width PX          image width (default 1200)". */
void fkp_opt_help(FILE *out, const fkp_optset *set);
/* The same for the rows whose flags & mask == want (e.g. FK_OPTF_FLAMEGRAPH). */
void fkp_opt_help_filtered(FILE *out, const fkp_optset *set, unsigned mask, unsigned want);
/* One row's left column as help prints it ("-o, --output FILE", "--random[=SEED]"). */
void fkp_opt_synopsis(char *buf, size_t n, const fk_option *row, bool dashes);
/* The rows of a set (those whose flags & mask == want) as a table: TSV (name
 * alias type values min max flamegraph.pl help, for scripts and tests),
 * Markdown (| option | value | meaning |) or man page .TP entries (for the
 * docs); dashes: --name VALUE, else name=VALUE. */
enum { FKP_TABLE_TSV, FKP_TABLE_MARKDOWN, FKP_TABLE_MAN };
void fkp_opt_table(FILE *out, const fkp_optset *set, int style, bool dashes, unsigned mask,
		   unsigned want);
const char *fkp_opt_type_name(int type);
/* Whether the set accepts row (its `only` list). */
bool fkp_optset_has(const fkp_optset *set, const fk_option *row);

#endif

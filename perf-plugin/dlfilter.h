/* dlfilter.h - private state of flamekit-dlfilter.so shared by its files
 * (entry points and options in dlfilter.c, sched_switch decoding in sched.c). */
#ifndef FK_DLFILTER_H
#define FK_DLFILTER_H

#include <stdbool.h>
#include <stdint.h>
#include "flamekit.h"
#include "prog/prog.h"

enum { MODE_AUTO = 0, MODE_CPU, MODE_OFFCPU, MODE_OFFWAKE };

/* Options of one folding run: --dlarg KEY[=VALUE] strings, parsed by opts.c. */
struct fkd_opts {
	fk_parse_opts popts;            /* name tidying (kernel/jit/all/full-names) */
	fk_svg_opts svg;
	const char *folded, *svg_path, *samples;   /* outputs; "-" = stdout */
	bool pid, tid, kernel_only, user_only, count_samples, dwarf_partial, verbose;
	bool exact_ret, blocked_only;
	int mode;
	unsigned max_stack;
	const char *event;              /* on-CPU event to keep; NULL = first seen */
	const char *sched_format;
	const char *weight;             /* event field that weighs each sample (NULL = period) */
	const char *weight_format;      /* that event's format file (default: from tracefs) */
	int64_t offcpu_min_ns;
};

/* Program name for messages ("flamekit-dlfilter" or "perf flame"). */
extern const char *fkd_prog;
void fkd_opts_init(struct fkd_opts *o);
/* The option sets: the dlfilter's own rows (fkd_options), the library's
 * name-tidying rows it has (kernel jit all full-names), every SVG row. */
#define FKD_NSETS 3
const fk_option *fkd_options(size_t *n);
void fkd_optsets(fkp_optset sets[FKD_NSETS], struct fkd_opts *o);
/* The option list, as KEY=VALUE (dashes false) or --KEY VALUE. */
void fkd_usage(FILE *out, bool dashes);
/* The same as one string, KEY=VALUE (static, built once). */
const char *fkd_usage_text(void);
/* Parse one KEY[=VALUE]; 0, or -1 after printing why. Values are borrowed. */
int fkd_parse_arg(struct fkd_opts *o, const char *arg);
/* Checks between options, and every renderer option (fk_svg_opts_check):
 * 0, or -1 after a message. Run before any sample is read. */
int fkd_opts_check(const struct fkd_opts *o);
/* Whether the profile must keep per-sample records (samples output, a flame
 * chart, a time range). */
bool fkd_needs_samples(const struct fkd_opts *o);

/* Decoded sched:sched_switch payload. */
struct fkd_switch {
	int32_t prev_pid, next_pid;
	int64_t prev_state;
	char prev_comm[17], next_comm[17];
};

struct fkd_sched;
/* Load the sched_switch format (path NULL = tracefs). NULL + message on error. */
struct fkd_sched *fkd_sched_new(const char *format_path, char *err, size_t errlen);
void fkd_sched_free(struct fkd_sched *s);
/* Decode one raw tracepoint record; 0 or -1 (err filled) if it is not a
 * sched_switch record of the loaded format. */
int fkd_sched_decode(struct fkd_sched *s, const void *raw, uint32_t size, struct fkd_switch *out,
		     char *err, size_t errlen);

#endif

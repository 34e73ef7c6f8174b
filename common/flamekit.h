/* flamekit.h - the one public header of libflamekit: profile model, parsers, renderers.
 * Every adapter (CLI, perf dlfilter, gdb module) goes through this header only.
 */
#ifndef FLAMEKIT_H
#define FLAMEKIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define FK_API __attribute__((visibility("default")))
#else
#define FK_API
#endif

#define FK_VERSION_STRING "0.1.0"

/* ABI: version 0.x. Every public options struct starts with `size_t sz`, set by
 * its *_init() to the size the caller was compiled with; the library reads only
 * the fields that size covers and takes defaults for the rest, so a new option
 * added at the end of a struct does not break programs built against an older
 * header (libbpf's LIBBPF_OPTS idea). While the version is 0.x other changes
 * (a field moved, a row added to fk_option) may still need a rebuild. */

/* ------------------------------------------------------------------ errors
 * Conventions for the whole API:
 *  - int functions return 0 on success or a negative error: -errno for
 *    system errors, or -FK_E_* (numbered from 4000, far from errno).
 *  - constructors return NULL on failure and set errno.
 *  - every *_free() accepts NULL.
 *  - the library never prints to stdout/stderr directly and never exits: all
 *    diagnostics go through the print callback (fk_set_print).
 */
#define FK_ERRORS(X)                                                        \
	X(FK_E_NOMEM,     4000, "out of memory")                            \
	X(FK_E_FORMAT,    4001, "unknown or undetectable input format")     \
	X(FK_E_SKIPPED,   4002, "some input was malformed and skipped")     \
	X(FK_E_TRUNCATED, 4003, "input ended in the middle of a record")    \
	X(FK_E_TOOBIG,    4004, "input exceeds a hard limit")               \
	X(FK_E_REGEX,     4005, "invalid regular expression")               \
	X(FK_E_INVAL,     4006, "invalid argument")                         \
	X(FK_E_EMPTY,     4007, "no stacks in input")                       \
	X(FK_E_WRITE,     4008, "write error on output")                    \
	X(FK_E_BINARY,    4009, "input looks binary")                       \
	X(FK_E_DAMAGED,   4010, "compressed input is damaged")             \
	X(FK_E_CHANGED,   4011, "input file changed while it was read")

#define FK_ENUM_ENTRY_(name, num, str) name = num,
enum fk_error { FK_ERRORS(FK_ENUM_ENTRY_) };
#undef FK_ENUM_ENTRY_

/* Text for an error returned by any fk_ function (accepts the negative value
 * or its absolute value; errno values go through strerror). Static storage. */
FK_API const char *fk_strerror(int err);

/* ------------------------------------------------------------------ diagnostics */
enum fk_level { FK_LEVEL_WARN = 0, FK_LEVEL_INFO = 1, FK_LEVEL_DEBUG = 2 };
/* msg is one line without trailing newline, already prefixed with
 * "file:line: " where a location is known. */
typedef void (*fk_print_fn)(enum fk_level level, const char *msg, void *ctx);
/* Replace the print callback (process-wide). NULL restores the default, which
 * writes warnings to stderr prefixed by "flamekit: ". Returns the old one. */
FK_API fk_print_fn fk_set_print(fk_print_fn fn, void *ctx);

/* ------------------------------------------------------------------ profile model
 * A profile is a call tree (trie) of interned frame names. Each node has a
 * self count per column (column 1 is only used by differential profiles).
 * A unique stack is a path root -> node; adding the same stack twice adds to
 * the node's self count. Node 0 is the virtual root ("all"), frame id 0 is
 * its empty name. Counts are doubles: integers stay exact up to 2^53 and
 * fractional weights are kept.
 */
typedef struct fk_profile fk_profile;

#define FK_NONE UINT32_MAX

typedef struct fk_node {
	uint32_t parent;       /* FK_NONE for the root */
	uint32_t frame;        /* interned name id */
	uint32_t first_child;  /* FK_NONE if leaf */
	uint32_t next_sibling; /* FK_NONE if last */
	uint32_t depth;        /* root = 0 */
	double self[2];        /* counts of stacks ending here, per column */
} fk_node;

/* Per-sample record, kept only by profiles created with FK_PROFILE_SAMPLES. */
typedef struct fk_sample {
	double time;     /* seconds (perf: monotonic timestamp); NaN if unknown */
	double weight;   /* count this sample contributed */
	uint32_t node;   /* leaf node of its stack */
	uint32_t comm;   /* interned string id of the process/thread name, 0 if none */
	int32_t pid;     /* -1 if unknown */
	int32_t tid;     /* -1 if unknown */
	int32_t cpu;     /* -1 if unknown */
	uint32_t col;    /* 0 or 1 */
} fk_sample;

typedef struct fk_sample_info {
	double time;          /* NaN if unknown */
	int32_t pid, tid, cpu;/* -1 if unknown */
	const char *comm;     /* may be NULL */
	size_t comm_len;
} fk_sample_info;

enum fk_profile_flags {
	FK_PROFILE_SAMPLES = 1u << 0, /* keep one fk_sample per added sample */
};

/* New empty profile. NULL + errno on failure. */
FK_API fk_profile *fk_profile_new(unsigned flags);
FK_API void fk_profile_free(fk_profile *p);
FK_API unsigned fk_profile_flags(const fk_profile *p);
/* Done adding: lets go of the profile's lookup tables of names and stacks (up to a third of
 * a big profile's memory), before it is drawn or merged into another. It is still read,
 * drawn, written and freed (the renderers find the few names they look for by a scan);
 * interning a name or adding a stack fails with -FK_E_INVAL. */
FK_API void fk_profile_seal(fk_profile *p);

/* Intern a name (any bytes, may contain ';' or NUL). Returns its id (>= 1 for
 * non-empty names, 0 for the empty string) or a negative error. */
FK_API int64_t fk_profile_intern(fk_profile *p, const char *s, size_t len);
/* Name of an interned id; valid until the profile is freed or more names are
 * interned. *len may be NULL. The returned bytes are NUL-terminated. */
FK_API const char *fk_profile_name(const fk_profile *p, uint32_t id, size_t *len);
FK_API size_t fk_profile_name_count(const fk_profile *p);

/* Child of node `parent` with frame `frame`, created if missing. Returns the
 * node id or a negative error. The building block of add_stack; parsers that
 * walk a stack root-first use it directly. */
FK_API int64_t fk_profile_child(fk_profile *p, uint32_t parent, uint32_t frame);

/* Add a stack given as interned frame ids, root first (frames[0] is the
 * outermost frame). n may be 0 (counts go to the root). Adds `count` to column
 * `col` (0 or 1). Returns the leaf node id or a negative error. */
FK_API int64_t fk_profile_add_stack(fk_profile *p, const uint32_t *frames, size_t n,
				    unsigned col, double count);
/* Same with names given as a folded string "a;b;c" (split at every ';'). */
FK_API int64_t fk_profile_add_folded(fk_profile *p, const char *stack, size_t len,
				     unsigned col, double count);
/* add_stack plus a per-sample record (if the profile keeps samples). */
FK_API int64_t fk_profile_add_sample(fk_profile *p, const uint32_t *frames, size_t n,
				     unsigned col, double weight,
				     const fk_sample_info *info);
/* Add count to an existing node's self count (and record a sample when info
 * is non-NULL and the profile keeps samples). */
FK_API int fk_profile_add_to_node(fk_profile *p, uint32_t node, unsigned col, double count,
				  const fk_sample_info *info);

/* Read-only views. Pointers are valid until the profile is next modified.
 * A profile read from folded stacks without per-sample records holds its unique stacks, not
 * a tree (4 bytes a frame: renderers and the folded writer sort and sweep them); the first
 * fk_profile_nodes call builds the tree from them (not safe to race with other calls on the
 * same profile), and returns NULL with errno ENOMEM if that fails. Nodes are then in the
 * stacks' sorted order, not the order the stacks came in (a 0.x change). */
FK_API const fk_node *fk_profile_nodes(const fk_profile *p, size_t *n);
FK_API const fk_sample *fk_profile_samples(const fk_profile *p, size_t *n);
/* Origin of time ranges (the heat map's seconds, its start/end, --range): the
 * whole second of the earliest timestamped sample, in the input's clock. NaN if
 * no sample has a time. */
FK_API double fk_profile_time_origin(const fk_profile *p);
/* 1, or 2 once anything was added to column 1. */
FK_API unsigned fk_profile_columns(const fk_profile *p);
/* Sum of all self counts in a column. */
FK_API double fk_profile_total(const fk_profile *p, unsigned col);
/* Number of nodes with a non-zero self count in any column (unique stacks). */
FK_API size_t fk_profile_stack_count(const fk_profile *p);
/* Whether no stack has a count (stops at the first that has one). */
FK_API bool fk_profile_empty(const fk_profile *p);

/* Fill totals[i*2+col] with the inclusive count of node i (self + all
 * descendants). `totals` must hold 2 * node count doubles. */
FK_API void fk_profile_totals(const fk_profile *p, double *totals);

/* Add everything of src into dst (names are re-interned; samples copied when
 * both keep them). src is unchanged. */
FK_API int fk_profile_merge(fk_profile *dst, const fk_profile *src);

/* Merge with a scale and a mark (the on/off-CPU combine): every count of src is
 * multiplied by factor and, when factor is not 1, rounded to a whole number (ns
 * periods -> us stays exact in sums); when mark is non-NULL, a frame of that name
 * is added on top of every stack of src (FK_OFFCPU_MARK for off-CPU stacks).
 * factor 1 and mark NULL is fk_profile_merge. Samples are copied (scaled) when
 * both keep them. Units are not touched: the caller sets the result's. */
FK_API int fk_profile_merge_scaled(fk_profile *dst, const fk_profile *src, double factor,
				   const char *mark);

/* fk_profile_merge with every stack of src put under n root frames (frames[0] the
 * outermost): the origin of an input in a merged fleet profile ("host=db-1"), which
 * --keep/--drop and graphs see and pprof output writes as labels (root_labels). */
FK_API int fk_profile_merge_under(fk_profile *dst, const fk_profile *src,
				  const char *const *frames, size_t n);

/* What a profile counts, set by the parser or adapter that filled it. The unit
 * is the name the SVG shows after counts (its countname default) and the heat
 * map's: "samples", "ns" (perf cpu-clock/task-clock periods), "us" (off-CPU
 * time), an event name for other perf periods ("cycles")... NULL = unknown
 * (folded input). The kind says what the time is (title and palette presets). */
enum fk_profile_kind {
	FK_KIND_CPU = 0,       /* on-CPU samples or periods (the default) */
	FK_KIND_OFFCPU = 1,    /* off-CPU time: blocked intervals of sched_switch pairs */
	FK_KIND_ONOFFCPU = 2,  /* both in one graph, off-CPU stacks under FK_OFFCPU_MARK */
	FK_KIND_IO = 3,        /* an I/O event's field (bytes read, written, issued) */
	FK_KIND_MEM = 4,       /* a memory event's field (bytes allocated, faults) */
	FK_KIND_OFFWAKE = 5,   /* blocked time with the waker's stack above FK_OFFWAKE_SEP */
};
/* Frame added on top of every off-CPU stack of a combined on/off-CPU profile. */
#define FK_OFFCPU_MARK "[off-cpu]"
#define FK_OFFWAKE_SEP "--"
/* Copies unit (NULL = unknown). 0 or -FK_E_NOMEM. */
FK_API int fk_profile_set_unit(fk_profile *p, const char *unit);
FK_API const char *fk_profile_unit(const fk_profile *p);
/* The one warning for inputs that count different units (the sums are still made, and
 * mean little): "warning: NAME counts UNIT, BEFORE counts BEFORE_UNIT: their sums mix
 * units", with perf's remedy (--samples) only when one of them is perf script text
 * (format "perf") counting periods. before NULL: "the input before it"; a format NULL
 * when unknown. Through the print callback. */
FK_API void fk_warn_mixed_units(const char *name, const char *unit, const char *format,
				const char *before, const char *before_unit,
				const char *before_format);
FK_API void fk_profile_set_kind(fk_profile *p, int kind);
FK_API int fk_profile_kind(const fk_profile *p);

/* Make a new profile holding only the stacks whose folded text ("a;b;c")
 * matches (FK_FILTER_KEEP) or does not match (FK_FILTER_DROP) the POSIX
 * extended regex. NULL + errno (EINVAL for a bad regex, with a message through
 * the print callback). */
enum fk_filter_mode { FK_FILTER_KEEP = 0, FK_FILTER_DROP = 1 };
FK_API fk_profile *fk_profile_filter(const fk_profile *p, const char *regex, int mode);

/* Write folded stacks "frame;frame;leaf count[ count2]\n", one line per unique
 * stack, sorted bytewise by stack text. Integers print as integers,
 * fractions with the shortest text that reads back to the same double. Two
 * columns are printed when the profile has two. Returns 0 or -FK_E_WRITE. */
FK_API int fk_profile_write_folded(const fk_profile *p, FILE *out);
/* Format a count as folded output does; returns chars written (buf >= 32). */
FK_API int fk_format_count(char *buf, size_t size, double v);

/* Timestamped samples, one per line (format in docs/formats.md):
 *   "# flamekit samples v1" header, then
 *   TIME\tPID\tTID\tCPU\tCOMM\tWEIGHT\tframe;frame;leaf
 * in the order the samples were added. Needs FK_PROFILE_SAMPLES. */
FK_API int fk_profile_write_samples(const fk_profile *p, FILE *out);

/* ------------------------------------------------------------------ parsers */
typedef struct fk_parse_stats {
	uint64_t bytes;           /* bytes read */
	uint64_t lines;           /* lines read */
	uint64_t samples;         /* samples/stacks accepted */
	uint64_t bad_lines;       /* malformed lines skipped */
	uint64_t filtered;        /* samples dropped on purpose (event/pid filters) */
	char format[32];          /* name of the format used */
} fk_parse_stats;

typedef void (*fk_progress_fn)(uint64_t bytes_done, void *ctx);
/* The symboliser of --inline: the frames inlined at address pc (as perf script prints it)
 * of module mod, func the raw function text, as one malloc'd string "outer;...;inner"
 * ("" when none are known; the caller frees it), or NULL when out of memory. Called once
 * per distinct frame line, from up to two parsing threads at once (threads >= 2). */
typedef char *(*fk_inline_fn)(const char *pc, const char *mod, const char *func, void *ctx);

typedef struct fk_parse_opts {
	size_t sz;                /* sizeof(fk_parse_opts), set by fk_parse_opts_init */
	const char *format;       /* NULL or "auto": detect from the first lines */
	const char *name;         /* file name used in messages ("-" = stdin) */
	/* perf script options (stackcollapse-perf.pl counterparts) */
	bool pid;                 /* --pid: append -PID to the process name */
	bool tid;                 /* --tid: append -PID/TID */
	bool kernel;              /* --kernel: annotate kernel frames _[k] */
	bool jit;                 /* --jit: annotate jit frames _[j] */
	bool all;                 /* --all: kernel + jit annotations */
	bool addrs;               /* --addrs: show raw addresses for unknown symbols */
	bool inline_frames;       /* --inline: expand inline frames (_[i]) */
	bool full_names;          /* --full-names: do not cut names at '(' */
	bool samples;             /* --samples: count samples, ignore periods */
	bool no_comm;             /* do not add the process name as root frame */
	const char *event_filter; /* --event-filter EV; NULL = first seen */
	/* pprof options */
	const char *sample_type;  /* --sample-type: "cpu", "cpu/nanoseconds" or an index;
				   * NULL = the profile's default type */
	const char *label_frames; /* --label-frames: comma-separated label keys whose
				   * "key=value" become root frames; "all" = every label */
	/* general */
	unsigned threads;         /* 0/1 = one thread; 2+ where the parser supports it */
	unsigned max_warnings;    /* per input; 0 = default (5) */
	fk_progress_fn progress;  /* called every few MB; may be NULL */
	void *progress_ctx;
	/* with inline_frames: the symboliser; NULL = run addr2line (and nm) as
	 * stackcollapse-perf.pl does. The library runs no program otherwise. */
	fk_inline_fn inline_fn;
	void *inline_ctx;
	/* bpftrace input */
	bool keep_offsets;        /* --offsets: keep "+OFFSET" on frames (as stackcollapse-bpftrace.pl) */
	const char *map;          /* --map NAME: the stack map to read (NULL = the first one) */
	bool all_maps;            /* --all-maps: every stack map, each under a root frame @NAME */
	/* frame names, every format (common/formats/names.c) */
	bool rust_names;          /* --rust-names: demangle Rust v0 names, repair legacy ones (drop ::h<hash>, decode $LT$..) */
	bool cxx_names;           /* --cxx-names: cut a C++ name's whole parameter list, keeping
	                           * std::function<int (int, int)>::operator() (instead of the
	                           * format's own cut, e.g. perf's at the first '(') */
	/* perf script: a tracepoint's or probe's field weighs each of its samples */
	const char *weight;       /* --weight FIELD (NULL = the period) */
	const char *weight_format;/* --weight-format FILE: the event's format (default: tracefs) */
	bool offwake;             /* --off-wake: sched_switch + sched_waking/wakeup into off-wake stacks */
} fk_parse_opts;

FK_API void fk_parse_opts_init(fk_parse_opts *o);

/* Parse an input stream into the profile (adds to what is there). Streaming:
 * memory grows with unique stacks, not input size. Returns 0, -FK_E_SKIPPED
 * when malformed lines were skipped (good lines are still added; warnings name
 * file:line), or another negative error. stats may be NULL. */
FK_API int fk_parse_fd(fk_profile *p, int fd, const fk_parse_opts *o, fk_parse_stats *stats);
/* Same for a path ("-" = stdin). */
FK_API int fk_parse_file(fk_profile *p, const char *path, const fk_parse_opts *o,
			 fk_parse_stats *stats);
/* Same for a memory buffer (used by the fuzzers and bindings). */
FK_API int fk_parse_buffer(fk_profile *p, const char *buf, size_t len,
			   const fk_parse_opts *o, fk_parse_stats *stats);

/* Name of the format detected from the start of an input, or NULL. */
FK_API const char *fk_detect_format(const char *buf, size_t len);
/* NULL-terminated list of format names and one-line descriptions. */
FK_API const char *const *fk_format_names(void);
FK_API const char *fk_format_description(const char *name);

/* ------------------------------------------------------------------ perf script symbol tidying
 * stackcollapse-perf.pl's name tidying, public so the perf dlfilter folds
 * exactly like `perf script | flamekit collapse`. sym is the symbol as perf
 * script prints it (a +0xOFF suffix is dropped), dso the module. Writes the
 * folded name into out (size >= fk_perf_tidy_room(symlen, dsolen, o): symlen +
 * dsolen + 16, more with o->rust_names, whose names may print longer; "a->b"
 * inline chains give "a;b_[i]", cut at a piece boundary if that would not fit) and returns
 * its length, 0 when the perl would skip the frame. Honours o->kernel, jit,
 * all, full_names, rust_names, cxx_names (o may be NULL); not addrs or Java tidying (no address or
 * process name here). See docs/perf-script.md. */
FK_API size_t fk_perf_tidy_name(char *out, const char *sym, size_t symlen,
				const char *dso, size_t dsolen, const fk_parse_opts *o);
FK_API size_t fk_perf_tidy_room(size_t symlen, size_t dsolen, const fk_parse_opts *o);

/* The root frame of a perf sample (stackcollapse-perf.pl's $pname): the
 * process name with spaces made '_', then "-PID" (o->pid) or "-PID/TID" (o->tid);
 * a negative pid prints as '?' (perf script text without a pid). Both perf paths
 * (the text parser and the dlfilter) name roots with it; like the perl, a ';' in
 * the name splits it into several root frames. Writes into out (size >= commlen +
 * 32) and returns the length. o may be NULL (plain comm). */
FK_API size_t fk_perf_root_name(char *out, const char *comm, size_t commlen, int32_t pid,
				int32_t tid, const fk_parse_opts *o);

/* The unit of a perf event's counts (fk_profile_set_unit): "samples" when not
 * weighted by period (or every period was 1), "ns" for cpu-clock and
 * task-clock, else the event name without ":modifiers" ("cycles"). Writes a
 * NUL-terminated name into out (cut to size) and returns its length. */
FK_API size_t fk_perf_unit(char *out, size_t size, const char *event, size_t len, bool weighted);

/* ------------------------------------------------------------------ event fields
 * A tracepoint's or probe's format (tracefs events/SYSTEM/NAME/format): its fields
 * and its print format, so that one field can weigh each sample, read from the raw
 * record (perf dlfilter) or from the text perf script prints for it. */
typedef struct fk_tp_format fk_tp_format;
/* Parse format text; event names it in messages. NULL + errno (EINVAL: no fields). */
FK_API fk_tp_format *fk_tp_format_parse(const char *text, size_t len, const char *event);
/* Load the format of event "SYSTEM:NAME" from tracefs, or from path if not NULL.
 * NULL with a message in err (naming the file) on error. */
/* The text of an event's format: from path when given, else from tracefs by its name
 * (SYSTEM:NAME). Malloc'd, NUL-terminated, its length in *len; NULL with a message in err. */
FK_API char *fk_tp_format_read(const char *event, const char *path, size_t *len, char *err,
			       size_t errlen);
FK_API fk_tp_format *fk_tp_format_load(const char *event, const char *path, char *err,
				       size_t errlen);
FK_API void fk_tp_format_free(fk_tp_format *t);
/* The event id of the format (-1 if it had none). */
FK_API int32_t fk_tp_format_id(const fk_tp_format *t);
/* Index of a numeric field, -ENOENT (no such field) or -FK_E_INVAL (not a number). */
FK_API int fk_tp_format_field(const fk_tp_format *t, const char *name);
/* The numeric fields the event has (not common_*), "a, b, c", into out; its length. */
FK_API size_t fk_tp_format_fields(const fk_tp_format *t, char *out, size_t size);
/* The field's value from a raw record of size bytes (sign-extended as the format
 * says): 0, or -FK_E_FORMAT if the record is too short. */
FK_API int fk_tp_format_raw(const fk_tp_format *t, int field, const void *raw, size_t size,
			    int64_t *v);
/* The field's value from perf script's text of the record (what follows the event
 * name): "field=value", else by the field's place in the print format (syscall exits
 * print a bare "0x340"). 0, or -ENOENT when the text does not show it. */
FK_API int fk_tp_format_text(const fk_tp_format *t, int field, const char *text, size_t len,
			     int64_t *v);
/* What samples of event weighed by field count: the unit ("bytes" for byte fields,
 * else the field's name) into unit, and the kind (FK_KIND_IO, FK_KIND_MEM or
 * FK_KIND_CPU) that picks the graph's palette and title. Negative values (error
 * returns) are never weight: callers count them and say so. */
FK_API int fk_weight_kind(const char *event, const char *field, char *unit, size_t usize);

/* ------------------------------------------------------------------ off-CPU time
 * Pairs sched:sched_switch events into off-CPU intervals: a thread that
 * switches out (its stack is where it blocks) is off-CPU until it switches in
 * again. Used by the perf dlfilter (binary events) and the perf script text
 * parser alike. Times are nanoseconds of the recording's clock. */
typedef struct fk_offcpu fk_offcpu;
typedef struct fk_offcpu_interval {
	uint64_t handle;          /* what the caller gave fk_offcpu_block */
	uint64_t t_out, t_in;     /* switch-out and switch-in (or estimated end) */
	double us;                /* whole microseconds, rounded (sums stay exact) */
	int32_t pid, tid, cpu;    /* cpu of the switch-out */
	uint64_t waker;           /* with woken: the handle given to fk_offcpu_wakeup */
	bool woken;               /* a wakeup of this thread was seen for this interval */
} fk_offcpu_interval;
/* Called for every finished interval of at least min_ns; 0 or a negative error
 * (returned by the call that ended the interval). */
typedef int (*fk_offcpu_fn)(const fk_offcpu_interval *iv, void *ctx);
typedef struct fk_offcpu_stats {
	uint64_t switches;        /* fk_offcpu_switch calls */
	uint64_t intervals;       /* intervals ended (including those under min_ns) */
	uint64_t estimated;       /* ended at the CPU's previous switch (switch-in unseen) */
	uint64_t unpaired;        /* dropped: switch-in never seen, no estimate */
	uint64_t pending;         /* still off-CPU at the end (not counted) */
	uint64_t wakeups;         /* fk_offcpu_wakeup calls taken (not ignored) */
	uint64_t woken;           /* intervals ended that a wakeup was paired with */
	uint64_t wakeups_unpaired;/* wakeups no interval took (replaced, never blocked, pending) */
} fk_offcpu_stats;

/* min_ns: drop shorter intervals; blocked_only: ignore preempted (runnable)
 * switch-outs. NULL + errno. */
FK_API fk_offcpu *fk_offcpu_new(int64_t min_ns, bool blocked_only, fk_offcpu_fn fn, void *ctx);
FK_API void fk_offcpu_free(fk_offcpu *oc);
/* One sched_switch at t_ns on cpu: ends next_tid's interval, and prev_tid's if it
 * still had one (its switch-in was not recorded). Returns 1 when the caller
 * should track prev_tid (build its stack, then fk_offcpu_block), 0 when not
 * (idle task, or a preempted thread with blocked_only), or a negative error.
 * preempted: prev_state was TASK_RUNNING ("R" in perf script text). */
FK_API int fk_offcpu_switch(fk_offcpu *oc, uint64_t t_ns, int32_t cpu, int32_t prev_tid,
			    bool preempted, int32_t next_tid);
/* prev_tid of the last fk_offcpu_switch blocks with the stack the caller calls
 * handle (a node id, an index...); the interval starts at t_ns. */
FK_API int fk_offcpu_block(fk_offcpu *oc, int32_t pid, int32_t tid, uint64_t handle, uint64_t t_ns,
			   int32_t cpu);
/* tid was seen running on cpu (an on-CPU sample): an interval still open was
 * missed (perf records no samples in some tasks' context), so it ends at the
 * CPU's last switch (an underestimate), or is dropped if there is none. */
FK_API int fk_offcpu_running(fk_offcpu *oc, int32_t tid, int32_t cpu);
FK_API void fk_offcpu_get_stats(const fk_offcpu *oc, fk_offcpu_stats *st);
/* Off-wake: a wakeup of tid, by the waker whose stack the caller calls waker:
 * waking true for sched:sched_waking (fired in the waker's context), false for
 * sched:sched_wakeup (older recordings; fired where the wakeup completes, which is the
 * wakee CPU's interrupt, the idle task, when the kernel queues it on that CPU's wake
 * list). Once a sched_waking was seen, sched_wakeups are ignored (each follows a
 * sched_waking of the same wakeup). The interval tid is in (or is about to enter: a
 * wakeup may come just before the switch-out) ends with iv->woken set and iv->waker =
 * waker; a later wakeup of the same interval replaces it. 0 when taken, 1 when
 * ignored, or a negative error. */
FK_API int fk_offcpu_wakeup(fk_offcpu *oc, int32_t tid, uint64_t waker, bool waking);
/* The off-wake stack (docs/resource-graphs.md): the path of node bnode of blocked,
 * root first, then FK_OFFWAKE_SEP, then the path of wnode of waker leaf first (so the
 * waker's root, its comm, ends the stack), added to dst with count us (and info's
 * sample record when dst keeps them). 0 or a negative error. */
FK_API int fk_offwake_add(fk_profile *dst, const fk_profile *blocked, uint32_t bnode,
			  const fk_profile *waker, uint32_t wnode, double us,
			  const fk_sample_info *info);

/* ------------------------------------------------------------------ SVG renderer */
enum fk_sort { FK_SORT_NAME = 0, FK_SORT_WEIGHT = 1 };
enum fk_trunc { FK_TRUNC_RIGHT = 0, FK_TRUNC_LEFT = 1 };
enum fk_diff_mode { FK_DIFF_SELF = 0, FK_DIFF_TOTAL = 1 };
/* Widths of a differential (two-column) graph: column 1 (after, flamegraph.pl's), column 0
 * (before), or per stack the larger of the two (both: frames of either side are drawn). */
enum fk_diff_shape { FK_SHAPE_AFTER = 0, FK_SHAPE_BEFORE = 1, FK_SHAPE_BOTH = 2 };

typedef struct fk_svg_opts {
	size_t sz;                /* sizeof(fk_svg_opts), set by fk_svg_opts_init */
	const char *title;        /* NULL: "Flame Graph" / "Icicle Graph" / "Flame Chart",
				   * "Off-CPU Time ..." by the profile's kind */
	const char *subtitle;
	int width;                /* 1200 */
	int frameheight;          /* 16 (flamegraph.pl --height) */
	double minwidth;          /* 0.1 px, or percent when minwidth_pct */
	bool minwidth_pct;
	const char *fonttype;     /* "Verdana" */
	double fontsize;          /* 12 */
	double fontwidth;         /* 0.59 */
	const char *countname;    /* NULL: the profile's unit, else "samples" */
	const char *nametype;     /* "Function:" */
	const char *colors;       /* palette; NULL: "io" for off-CPU profiles, else "hot".
				   * Off-CPU frames of on/off-CPU graphs are drawn blue */
	const char *bgcolors;     /* NULL = by palette; "yellow" "blue" "green" "grey" or "#rrggbb" */
	bool hash;                /* colour by name hash */
	bool random;              /* random colours, seeded */
	uint64_t seed;
	const char *cp_file;      /* consistent palette file (read + updated), NULL = none */
	bool reverse;             /* reverse stacks (leaf first) */
	bool inverted;            /* icicle */
	bool flamechart;          /* x = time order; needs samples */
	bool negate;              /* diff: swap red/blue */
	const char *notes;
	double factor;            /* scale counts (1) */
	double total;             /* override the total (0 = sum) */
	int sort;                 /* enum fk_sort */
	int truncate;             /* enum fk_trunc */
	const char *focus;        /* merge all stacks through this function (callers view) */
	int diff_mode;            /* enum fk_diff_mode */
	double range_start, range_end; /* time range; both NaN = all */
	size_t max_frames;        /* size guard; 0 = default */
	int diff_shape;           /* enum fk_diff_shape; ignored (with a warning) for one column */
} fk_svg_opts;

FK_API void fk_svg_opts_init(fk_svg_opts *o);
/* Fill the options left NULL from what the profile counts (the presets):
 * countname = its unit (or "samples"), colors = "io" for off-CPU profiles
 * (else "hot"), title = "Off-CPU Time Flame Graph" / "On/Off-CPU Time Flame
 * Graph" by its kind (else left NULL: the renderer's default). Options the
 * caller set are kept. fk_render_svg and the heat map apply it themselves. */
FK_API void fk_svg_opts_defaults(fk_svg_opts *o, const fk_profile *p);
/* Validate options without rendering (bad palette, background, sizes...):
 * 0 or -FK_E_INVAL with a message through the print callback. */
FK_API int fk_svg_opts_check(const fk_svg_opts *o);
/* Render a self-contained interactive SVG. Deterministic. Returns 0 or a
 * negative error (-FK_E_EMPTY for an empty profile, -FK_E_INVAL for bad
 * options, -FK_E_WRITE). Writes o->cp_file back when it is set. */
FK_API int fk_render_svg(const fk_profile *p, const fk_svg_opts *o, FILE *out);
/* Render one self-contained, offline HTML page (canvas viewer: zoom, search with an
 * exact Matched share, sandwich, functions table, transforms; see docs/html.md) that
 * holds every unique stack of the profile. Uses the options the page can honour
 * (titles, palette, --hash/--random/--cp, --reverse, --focus, --range, --inverted,
 * --factor, --countname, --negate); -FK_E_INVAL for --flamechart. Deterministic.
 * Returns 0 or a negative error like fk_render_svg. */
FK_API int fk_render_html(const fk_profile *p, const fk_svg_opts *o, FILE *out);
/* The view an output file name asks for (fk_output_for_path below): an SVG, the HTML
 * page, pprof, speedscope or folded stacks; a name the rule does not know (or NULL for
 * standard output) gets fk_render_svg. */
FK_API bool fk_output_is_html(const char *path);
FK_API int fk_render_for_path(const fk_profile *p, const fk_svg_opts *o, const char *path, FILE *out);

/* Differential profile (difffolded.pl): column 0 of a's stacks in column 0,
 * column 0 of b's in column 1. normalize scales a's counts to b's total
 * (truncated to integers, as difffolded.pl -n); strip_hex rewrites every
 * 0x<hex> in frame names as "0x...". NULL + errno on failure. */
FK_API fk_profile *fk_profile_diff(const fk_profile *a, const fk_profile *b,
				   bool normalize, bool strip_hex);
/* The same diff, written as folded stacks, streamed from two files of folded stacks that
 * are both sorted by stack text (as collapse tools write them; lines of one stack next to
 * each other are summed): memory does not grow with the input. 0; 1 when the files are not
 * both such files (malformed lines, unsorted, compressed, another format, or no count at
 * all): then nothing was written, and the caller reads them whole (fk_profile_diff); or a
 * negative error (-FK_E_CHANGED: a file changed, cut short or written over, while it was
 * read, said with its name; what was written is not to be kept). Hex addresses are not
 * stripped here. */
FK_API int fk_diff_folded_files(const char *before, const char *after, bool normalize, FILE *out);
/* The n files of folded stacks summed into one, written as folded stacks (what reading them
 * into one profile and fk_profile_write_folded give, byte for byte), streamed when every
 * file is sorted by stack text with one count column: memory does not grow with the input.
 * 0; 1 when a file is not such a file (as above; or two count columns): then nothing was
 * written and the caller reads them whole; or a negative error. */
FK_API int fk_fold_sorted_files(const char *const *paths, size_t n, FILE *out);

/* ------------------------------------------------------------------ regression gate
 * "Did this change make anything slower?" Each function's share of its profile's total
 * (inclusive: the stacks it is on, each counted once however often it recurses; or self:
 * the stacks it ends), before (side 0) against after (side 1). With several profiles a side
 * (runs of one benchmark) a function's share is its median over the side's runs (0 in a
 * run it is missing from), so one outlier run moves nothing. A function is judged when its
 * share is at least min_share on either side (below it is noise); it is over the limit when
 * its share grew by more than limit: relative (after / before - 1 > limit) or, with points,
 * in percentage points of the total (100 * (after - before) > limit). A function that is new
 * and at least min_share is over the limit in either mode; one that went away is reported
 * as removed, never as over. */
typedef struct fk_gate_opts {
	size_t sz;            /* sizeof(fk_gate_opts), set by fk_gate_opts_init */
	double limit;         /* growth allowed: a fraction (0.10 = 10%) or, with points, points */
	bool points;          /* limit in percentage points of the total */
	bool self;            /* exclusive shares (default inclusive) */
	double min_share;     /* fraction of the total (default 0.01) */
	bool strip_hex;       /* 0x<hex> in names as "0x..." (addresses that moved between runs) */
} fk_gate_opts;
FK_API void fk_gate_opts_init(fk_gate_opts *o);

enum fk_gate_change {
	FK_GATE_SAME = 0,     /* judged, within the limit (grown a little, or shrunk) */
	FK_GATE_OVER = 1,     /* judged, grown past the limit */
	FK_GATE_NEW = 2,      /* only after (over the limit too when judged: see above) */
	FK_GATE_REMOVED = 3,  /* only before */
};
typedef struct fk_gate_row {
	const char *name;     /* the function (frame name); valid until fk_gate_free */
	size_t len;
	double before, after; /* median shares of the totals, fractions */
	int change;           /* enum fk_gate_change */
	bool over;            /* over the limit (the gate fails) */
} fk_gate_row;
typedef struct fk_gate fk_gate;

/* A gate with these options (NULL = defaults; copied). NULL + errno (EINVAL for a negative
 * or non-finite limit or min_share, said through the print callback). */
FK_API fk_gate *fk_gate_new(const fk_gate_opts *o);
FK_API void fk_gate_free(fk_gate *g);
/* Add a run to side 0 (before) or 1 (after): column 0 of p is read now, p is not kept.
 * `name` names the run in messages. 0, -FK_E_INVAL (a side past 1, or a unit that differs
 * from the runs added before: "a.pb.gz counts ns, b.folded counts samples"; runs of unknown
 * unit (folded stacks) go with any), -FK_E_EMPTY (nothing counted) or -FK_E_NOMEM. */
FK_API int fk_gate_add(fk_gate *g, unsigned side, const fk_profile *p, const char *name);
/* Compare: the judged, new and removed functions, the ones over the limit first, then by
 * the size of the change, then by name (deterministic). *n gets the count; the rows are
 * valid until the next fk_gate_add or fk_gate_free. NULL + errno (EINVAL when a side has no
 * run, ENOMEM); with *n = 0 a non-NULL pointer. */
FK_API const fk_gate_row *fk_gate_rows(fk_gate *g, size_t *n);
/* How many rows are over the limit (after fk_gate_rows). */
FK_API size_t fk_gate_failed(const fk_gate *g);
/* The table of changes as "md" (Markdown, for a pull-request comment), "json" (for tools)
 * or "text" (a short summary naming what failed). Names are escaped for each. 0,
 * -FK_E_INVAL (an unknown format) or -FK_E_WRITE. */
FK_API int fk_gate_write(fk_gate *g, const char *format, FILE *out);

/* ------------------------------------------------------------------ pprof output
 * The profile as pprof's profile.proto message, gzipped as pprof files are (what
 * `go tool pprof`, Pyroscope, Parca, speedscope and Perfetto read). One function and one
 * location per distinct frame name (address 0, names already resolved), one sample per
 * unique stack; with FK_PROFILE_SAMPLES, one per stack and pid/tid/comm of its recorded
 * samples, those as labels "pid", "tid" (numbers) and "comm". Counts are pprof's int64
 * values (fractions are rounded, with a warning). A two-column profile gets two sample
 * types, TYPE_before and TYPE_after. Same profile and options give the same bytes. */
typedef struct fk_pprof_opts {
	size_t sz;                 /* sizeof(fk_pprof_opts), set by fk_pprof_opts_init */
	const char *type;          /* sample type, e.g. "cpu"; NULL = by the profile's unit:
				    * samples (count), cpu (ns), off_cpu or time (us), else
				    * the unit's own name (a perf event: "cycles") */
	const char *unit;          /* its unit: NULL = count, nanoseconds or microseconds */
	const char *const *labels; /* nlabels "key=value" string labels put on every sample */
	size_t nlabels;
	size_t root_labels;        /* the outermost root_labels frames of every stack are
				    * "key=value" labels (fk_profile_merge_under), written as
				    * labels and not as frames; an empty value is left out */
	bool plain;                /* write the protobuf uncompressed */
	bool timestamps;           /* one sample per recorded sample, with its time and CPU
				    * as labels timestamp_ns and cpu (perf_to_profile's names):
				    * heat maps and time ranges survive the trip; bigger files */
} fk_pprof_opts;

FK_API void fk_pprof_opts_init(fk_pprof_opts *o);
/* 0, -FK_E_INVAL (a label without '=', said through the print callback), -FK_E_NOMEM
 * or -FK_E_WRITE. o may be NULL (defaults). */
FK_API int fk_write_pprof(const fk_profile *p, const fk_pprof_opts *o, FILE *out);

/* ------------------------------------------------------------------ speedscope output
 * speedscope's JSON file format (www.speedscope.app; schema in the speedscope npm package):
 * shared frames (the names in use, in byte order), a "sampled" profile of the unique stacks
 * (column 0) and, with timestamped samples, an "evented" one: the samples in time order, each
 * as wide as its weight (speedscope's time-order view). Same profile, same bytes. */
enum fk_speedscope_form {
	FK_SPEEDSCOPE_AUTO = 0,    /* sampled, plus evented when samples have times */
	FK_SPEEDSCOPE_SAMPLED = 1, /* the unique stacks only */
	FK_SPEEDSCOPE_EVENTED = 2, /* the samples in time order only (needs FK_PROFILE_SAMPLES) */
};
typedef struct fk_speedscope_opts {
	size_t sz;                 /* sizeof(fk_speedscope_opts), set by fk_speedscope_opts_init */
	const char *name;          /* profile name shown; NULL = "flamekit" */
	const char *unit;          /* none, nanoseconds, microseconds, milliseconds, seconds or
				    * bytes; NULL = by the profile's unit (ns, us, else none) */
	int form;                  /* enum fk_speedscope_form */
} fk_speedscope_opts;

FK_API void fk_speedscope_opts_init(fk_speedscope_opts *o);
/* 0, -FK_E_INVAL (bad unit, or evented without samples; said through the print
 * callback), -FK_E_NOMEM or -FK_E_WRITE. o may be NULL. */
FK_API int fk_write_speedscope(const fk_profile *p, const fk_speedscope_opts *o, FILE *out);

/* ------------------------------------------------------------------ output by file name
 * What `-o NAME` writes, one rule for every front end, by NAME's ending without regard to
 * case: .svg an SVG; .html or .htm the HTML page; .pb.gz, .pb or .pprof pprof;
 * .speedscope.json speedscope; .folded folded stacks. Any other name (or NULL: standard
 * output) is FK_OUTPUT_DEFAULT: the front end's own output (an SVG for the graph commands,
 * folded stacks for collapse). */
enum fk_output_kind {
	FK_OUTPUT_DEFAULT = 0, FK_OUTPUT_PPROF = 1, FK_OUTPUT_SPEEDSCOPE = 2, FK_OUTPUT_SVG = 3,
	FK_OUTPUT_HTML = 4, FK_OUTPUT_FOLDED = 5,
};
FK_API int fk_output_for_path(const char *path);
/* "svg", "html", "pprof", "speedscope", "folded"; NULL for FK_OUTPUT_DEFAULT. */
FK_API const char *fk_output_name(int kind);
/* Write p as kind: the SVG and the page with o (the rows of fk_svg_options that kind
 * honours, fk_output_honours), the other formats with their defaults. 0 or a negative
 * error (-FK_E_INVAL for FK_OUTPUT_DEFAULT). */
FK_API int fk_write_output(const fk_profile *p, int kind, const fk_svg_opts *o, FILE *out);
/* The older names: FK_EXPORT_PPROF and FK_EXPORT_SPEEDSCOPE are FK_OUTPUT_PPROF and
 * FK_OUTPUT_SPEEDSCOPE; fk_export_for_path is fk_output_for_path for those two kinds
 * and FK_EXPORT_NONE for any other. */
enum fk_export_kind { FK_EXPORT_NONE = 0, FK_EXPORT_PPROF = 1, FK_EXPORT_SPEEDSCOPE = 2 };
FK_API int fk_export_for_path(const char *path);
/* Write p in that format with default options: 0 or a negative error (-FK_E_INVAL
 * for FK_EXPORT_NONE). */
FK_API int fk_export(const fk_profile *p, int kind, FILE *out);

/* ------------------------------------------------------------------ heat map */
typedef struct fk_heatmap_opts {
	size_t sz;                /* sizeof(fk_heatmap_opts), set by fk_heatmap_opts_init */
	unsigned rows;            /* rows per second (50) */
	double start, end;        /* time range, NaN = all */
	bool rank;                /* rank colour scale instead of linear */
	const char *isolate;      /* comm to keep, NULL = all */
	const char *highlight;    /* comma-separated comms to colour */
	bool idle_filter;         /* drop idle stacks */
	const char *title;
	fk_svg_opts svg;          /* options of the embedded flame graphs */
} fk_heatmap_opts;

FK_API void fk_heatmap_opts_init(fk_heatmap_opts *o);
/* Write one self-contained HTML page. Needs a profile with samples. */
FK_API int fk_render_heatmap(const fk_profile *p, const fk_heatmap_opts *o, FILE *out);
/* Per-cell counts as TSV: second<TAB>row<TAB>count, sorted. */
FK_API int fk_heatmap_cells(const fk_profile *p, const fk_heatmap_opts *o, FILE *out);
/* The same as fk_profile_time_origin (kept for the ABI). */
FK_API double fk_heatmap_time_origin(const fk_profile *p);

/* ------------------------------------------------------------------ option schemas
 * One table per public options struct describes each option once: its name
 * (--NAME on command lines, NAME=VALUE in perf's --dlarg, NAME= as a Python
 * keyword with '_' for '-'), type, accepted range and one line of help. Every
 * front end (the flamekit CLI, perf flame, the perf dlfilter, the Python module,
 * the gdb `flame` command) reads its options through these tables and setters,
 * so an option added here reaches all of them with the same name and range, and
 * --help texts and the docs' option tables are generated from the rows. Programs
 * may describe their own options with the same rows (offsets into their own
 * structs) and get the same checks. */
enum fk_opt_type {
	FK_OPT_FLAG = 0,  /* bool: no value, or 1/0 true/false yes/no on/off */
	FK_OPT_TEXT,      /* const char *: borrowed, the caller keeps the string alive */
	FK_OPT_INT,       /* int: a whole number in [min, max] */
	FK_OPT_UINT,      /* unsigned: a whole number in [min, max] */
	FK_OPT_U64,       /* uint64_t: a whole number in [min, max] (max 2^64-1 as 1.8446744073709552e19) */
	FK_OPT_DOUBLE,    /* double in [min, max] (finite) */
	FK_OPT_CHOICE,    /* int: the index of the value in choices "a|b|c" */
	FK_OPT_BCHOICE,   /* bool: choices "no|yes" form, index 0 = false, 1 = true */
	FK_OPT_CUSTOM,    /* parsed by the row's parse function */
};

enum fk_opt_flags {
	FK_OPTF_VALUE_OPTIONAL = 1u << 0, /* a flag that may take a value: --random[=SEED] */
	FK_OPTF_FLAMEGRAPH = 1u << 1,     /* flamegraph.pl has this option (same name, meaning) */
	FK_OPTF_HIDDEN = 1u << 2,         /* accepted but left out of help texts */
	FK_OPTF_ABOVE_MIN = 1u << 3,      /* numbers: must be greater than min (not equal) */
	FK_OPTF_PAGE = 1u << 4,           /* fk_svg_options: the HTML page honours it too (the
					   * SVG honours every row; fk_output_honours) */
	FK_OPTF_TIMED = 1u << 5,          /* fk_svg_options: needs timestamped samples (front
					   * ends whose stacks come aggregated refuse it) */
};

typedef struct fk_option fk_option;
struct fk_option {
	const char *name;      /* "width": --width, width=, width= */
	const char *alias;     /* another accepted spelling ("color"), or NULL */
	char letter;           /* short option of the programs ('o' for -o), or 0 */
	int type;              /* enum fk_opt_type */
	unsigned flags;        /* enum fk_opt_flags */
	size_t offset;         /* of the field in the options struct; SIZE_MAX = none */
	double min, max;       /* numbers: accepted range, inclusive */
	const char *choices;   /* FK_OPT_CHOICE/BCHOICE: "name|weight" */
	const char *arg;       /* value placeholder for help ("PX"), NULL for flags */
	const char *help;      /* one line; a default is written "(default 1200)" */
	/* FK_OPT_CUSTOM: parse value (NULL when none was given) into opts. 0, or -1
	 * with a message in err that the caller prefixes with the key. */
	int (*parse)(void *opts, const fk_option *row, const char *value, char *err, size_t errlen);
};

/* The rows of each options struct; *n gets the count. Static storage. */
FK_API const fk_option *fk_svg_options(size_t *n);
FK_API const fk_option *fk_heatmap_options(size_t *n);
FK_API const fk_option *fk_parse_options(size_t *n);
FK_API const fk_option *fk_gate_options(size_t *n);

/* The row named key (leading '-'s skipped; '_' matches '-'; name or alias;
 * the first keylen bytes, or all of it when keylen is (size_t)-1), or NULL. */
FK_API const fk_option *fk_option_find(const fk_option *rows, size_t n, const char *key,
				       size_t keylen);
/* Check value against row and store it into opts (the struct the row
 * describes). value NULL: no value given (flags). spelled is the option as the
 * caller wrote it ("--width", "width"): messages name it that way ("width=5:
 * ...", "--width: ..., got '5'"). Returns 0, or -FK_E_INVAL with the message in
 * err (when err is NULL it goes through the print callback). */
FK_API int fk_option_apply(const fk_option *row, void *opts, const char *spelled,
			   const char *value, char *err, size_t errlen);
/* fk_option_find + fk_option_apply. key may be "key=value" when value is NULL.
 * An unknown key is -FK_E_INVAL with "unknown option 'key'". */
FK_API int fk_option_set(const fk_option *rows, size_t n, void *opts, const char *key,
			 const char *value, char *err, size_t errlen);
/* The same for each public struct, messages through the print callback:
 * fk_svg_opts_set(&o, "width=800", NULL) or fk_svg_opts_set(&o, "width", "800"). */
FK_API int fk_svg_opts_set(fk_svg_opts *o, const char *key, const char *value);
FK_API int fk_heatmap_opts_set(fk_heatmap_opts *o, const char *key, const char *value);
FK_API int fk_parse_opts_set(fk_parse_opts *o, const char *key, const char *value);
/* Whether an output kind (enum fk_output_kind) honours an fk_svg_options row: the SVG
 * every row, the HTML page the rows flagged FK_OPTF_PAGE, the other formats none (they
 * write the profile's data as it is). A front end refuses, before it samples or reads
 * anything, a row given for an output that does not honour it. */
FK_API bool fk_output_honours(int kind, const fk_option *row);

#ifdef __cplusplus
}
#endif
#endif /* FLAMEKIT_H */

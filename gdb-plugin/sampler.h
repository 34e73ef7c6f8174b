/* sampler.h - the gdb plugin's fast path: raw stack addresses of a ptrace-stopped
 * process (cached CFI rules, libdw fallback), the stop timer and the SIGINT hook.
 * Private to gdb-plugin/: used by the Python module (py-sampler.c) and the
 * interpreter support (interp.h), which reads memory and symbols through it. */
#ifndef FKG_SAMPLER_H
#define FKG_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct fkg_sampler fkg_sampler;

/* Per-thread outcome of fkg_sample(). */
enum fkg_unwind {
	FKG_UNWIND_FAST = 0,   /* cached rules all the way to the outermost frame */
	FKG_UNWIND_LIBDW = 1,  /* an unusual frame sent the thread through libdw */
	FKG_UNWIND_FAILED = 2, /* nothing usable (registers or first frames unreadable) */
};

typedef struct fkg_stats {
	uint64_t samples;       /* fkg_sample() calls */
	uint64_t stacks;        /* thread stacks recorded (each distinct one stored once) */
	uint64_t frames;        /* addresses recorded */
	uint64_t fast, libdw, failed, truncated;
	uint64_t unstopped;     /* threads listed but not ptrace-stopped (skipped) */
	uint64_t rules;         /* distinct addresses with a cached rule */
	uint64_t mem_reads;     /* pread()s of /proc/PID/mem */
	uint64_t reports;       /* module list re-reads (dlopen) */
	double unwind_s;        /* time spent inside fkg_sample() */
} fkg_stats;

/* NULL + errno. max_depth 0 = unlimited (a hard cap of 4096 applies). */
fkg_sampler *fkg_new(pid_t pid, unsigned max_depth);
void fkg_free(fkg_sampler *s);

/* Unwind every listed thread (all ptrace-stopped by the caller) and append
 * one record per thread stamped with `time`. Threads that could not be
 * unwound at all are written to failed[] (up to nfailed_max); returns how many,
 * or a negative error. */
int fkg_sample(fkg_sampler *s, const pid_t *tids, size_t n, double time, pid_t *failed,
	       size_t nfailed_max);
/* Append a record made elsewhere (gdb's own unwinder): pcs innermost first,
 * already adjusted (callers: return address - 1). */
int fkg_add_record(fkg_sampler *s, pid_t tid, double time, const uint64_t *pcs, size_t n);

/* Iterate records: *pos starts at 0; returns false at the end. */
bool fkg_record(const fkg_sampler *s, size_t *pos, double *time, pid_t *tid,
		const uint64_t **pcs, size_t *n);
/* Distinct addresses over all records, sorted; caller frees. With vframes,
 * the tagged words of interpreted frames too (FKG_IS_VFRAME, interp.h). */
int fkg_distinct(const fkg_sampler *s, uint64_t **out, size_t *n, bool vframes);

/* ---- for interpreter support (interp.h) */
/* Interpreter frames merged into every stack from now on: name is a table
 * entry ("python"), NULL for none. On error, msg says why (absent, unknown
 * version) and nothing changes but the interpreter is off. */
int fkg_set_interp(fkg_sampler *s, const char *name, bool lines, char *msg, size_t len);
/* Name of an interpreted frame's tagged word, or NULL. */
const char *fkg_vframe_name(const fkg_sampler *s, uint64_t word);
/* Read target memory (cached per stop); false if unmapped. */
bool fkg_read(fkg_sampler *s, uint64_t addr, void *buf, size_t len);
/* Address and size of a defined symbol of any loaded module; -ENOENT. */
int fkg_symbol(fkg_sampler *s, const char *name, uint64_t *addr, uint64_t *size);
/* Every defined symbol of that name (versions of a libc function): up to max
 * [lo, hi) ranges; how many. */
size_t fkg_symbol_all(fkg_sampler *s, const char *name, uint64_t *lo, uint64_t *hi, size_t max);
/* The address range of the module holding addr. */
bool fkg_module_range(fkg_sampler *s, uint64_t addr, uint64_t *lo, uint64_t *hi);
pid_t fkg_pid(const fkg_sampler *s);

/* "module+0xOFF" (offset in the ELF's address space, ready for addr2line) or
 * the bare "0xADDR"; and the ELF symbol covering addr (may be mangled) or NULL.
 * Results live until the next call. */
const char *fkg_module_offset(fkg_sampler *s, uint64_t addr);
const char *fkg_elf_symbol(fkg_sampler *s, uint64_t addr);
/* "[module]" (its file name, as perf and flamegraph.pl name a frame without a
 * symbol: one frame per module, not one per address) or "[unknown]" when no
 * module maps addr. Lives until the next call. */
const char *fkg_module_name(fkg_sampler *s, uint64_t addr);
/* Is addr inside a mapped module (ELF file or vdso)? */
bool fkg_mapped(fkg_sampler *s, uint64_t addr);
/* Thread name (/proc/PID/task/TID/comm, read the first time a tid is seen). */
const char *fkg_thread_name(fkg_sampler *s, pid_t tid);

void fkg_get_stats(const fkg_sampler *s, fkg_stats *st);

/* ---- stop timer: a helper thread sends SIGSTOP to the target (a signal the
 * target cannot block; the gdb command makes gdb swallow it with
 * `handle SIGSTOP nopass`). Ticks fall at start + k/hz. */
int fkg_timer_start(fkg_sampler *s, double hz);
/* Arm for the next tick; `tid` is the thread to signal (0 = the process). */
void fkg_timer_arm(fkg_sampler *s, pid_t tid);
/* Cancel a pending tick. Returns true if the signal was already sent (the
 * caller must then consume its stop before resuming for good). */
bool fkg_timer_disarm(fkg_sampler *s);
/* After fkg_timer_disarm: a second, process-directed SIGSTOP went out too (the
 * first was not answered within a second), so one may still be on its way. */
bool fkg_timer_refired(const fkg_sampler *s);
/* Monotonic time the last signal was sent. */
double fkg_timer_fired_at(const fkg_sampler *s);
void fkg_timer_stop(fkg_sampler *s);

/* ---- SIGINT: blocked in the calling (gdb's main) thread while sampling and
 * taken by the timer thread, so Ctrl-C never reaches gdb's handler (which
 * would forward it to the target); it sets a flag and fires the timer at once. */
int fkg_sigint_hook(fkg_sampler *s);
void fkg_sigint_unhook(fkg_sampler *s);
/* 0, or the signal seen (SIGINT; SIGTERM/SIGHUP take precedence). */
int fkg_sigint_seen(const fkg_sampler *s);
/* A second request to stop came (prog.h's fkp_sigreq_note: not the same
 * signal from the same sender within a second, not from the supervisor): the
 * command aborts, nothing written. */
bool fkg_aborted(const fkg_sampler *s);
/* The program that runs this gdb and forwards stop requests (flamekit gdb):
 * its signals end sampling but never count as a second request. */
void fkg_set_supervisor(fkg_sampler *s, pid_t pid);
/* 1 if SIGINT is blocked in the calling thread (tests). */
int fkg_sigint_state(void);

/* ---- guardian: a process of its own that sends SIGCONT to target if this
 * process (gdb) dies before fkg_guard_end (a SIGSTOP of the attach or of the
 * stop timer would otherwise leave the target stopped for good; see
 * sampler.c). Returns the descriptor to hand to fkg_guard_end, or -errno. */
int fkg_guard_start(pid_t target);
/* Sampling is over and the target is let go: the guardian exits quietly. */
void fkg_guard_end(int fd);
/* The command is over, but the target stays with a gdb that hit an internal error (its
 * detach may leak a SIGSTOP): the guardian stays until gdb ends, continuing the target
 * whenever it is found stopped with no tracer, and once more after gdb's end. */
void fkg_guard_watch(int fd);

double fkg_now(void);

#endif

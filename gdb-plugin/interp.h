/* interp.h - interpreter support for the gdb sampler: one table entry per
 * interpreter (how to find it in the target, how to walk a thread's frames at a
 * stop, how to name a frame), and the merge of its frames into native stacks
 * (interp.c). Private to gdb-plugin/; docs/python.md says what an entry needs. */
#ifndef FKG_INTERP_H
#define FKG_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sampler.h"

/* One interpreted frame as a walk sees it, innermost first. */
typedef struct fkg_vframe {
	uint64_t key;   /* what names the frame (CPython: the code object's address) */
	int32_t line;   /* 0 unless lines were asked for */
	bool entry;     /* the outermost frame one native eval-loop call runs */
} fkg_vframe;

typedef struct fkg_interp {
	const char *name;          /* the option that asks for it: "python" */
	/* the native function whose every call runs interpreted frames up to an
	 * entry frame: its frames are replaced by them */
	const char *eval_symbol;
	/* Native functions that wait for the interpreter's lock (NULL-ended):
	 * a frame "[waiting for ...]" goes above them. And the lock's own
	 * primitives (pthread_cond_wait...): a leaf chain of them under a
	 * function of the interpreter's module called straight from the eval
	 * loop (a static take_gil, say, with no symbol to name it) waits too. */
	const char *const *wait_symbols;
	const char *const *lock_symbols;
	const char *wait_frame;    /* "[waiting for GIL]" */
	/* Find the interpreter in s's process and check its version. NULL with
	 * msg filled when it is absent or a version the entry does not know:
	 * offsets are never trusted on a guess. */
	void *(*open)(fkg_sampler *s, bool lines, char *msg, size_t len);
	/* At each stop, before walks: read what is per process (the thread list). */
	int (*stop)(void *st, fkg_sampler *s);
	/* tid's frames, innermost first; how many (0: the thread runs none). */
	size_t (*walk)(void *st, fkg_sampler *s, pid_t tid, fkg_vframe *out, size_t max);
	/* The frame's name into buf (called once per distinct key and line, at
	 * the stop that first sees it: the target may be gone by the end). */
	void (*frame_name)(void *st, fkg_sampler *s, const fkg_vframe *f, char *buf, size_t len);
	void (*close)(void *st);
} fkg_interp;

extern const fkg_interp fkg_interp_python;

/* Interpreted frames are stored among native addresses as tagged words that
 * no canonical x86-64 address can be: FKG_VTAG | id. */
#define FKG_VTAG UINT64_C(0xfe00000000000000)
#define FKG_IS_VFRAME(a) (((a) & UINT64_C(0xff00000000000000)) == FKG_VTAG)

typedef struct fkg_vm fkg_vm;

/* Find interpreter `name` (a table entry) in s's process. NULL + message in
 * msg if the name is unknown, the interpreter absent or refused. */
fkg_vm *fkg_vm_open(fkg_sampler *s, const char *name, bool lines, char *msg, size_t len);
void fkg_vm_free(fkg_vm *vm);
/* Once per stop, before fkg_vm_merge. */
void fkg_vm_stop(fkg_vm *vm, fkg_sampler *s);
/* Native pcs of tid (innermost first) with eval-loop frames replaced by the
 * interpreted frames they ran; writes at most max words to out, returns how
 * many. */
size_t fkg_vm_merge(fkg_vm *vm, fkg_sampler *s, pid_t tid, const uint64_t *pcs, size_t n,
		    uint64_t *out, size_t max);
/* Name of a tagged word, or NULL. Lives as long as vm. */
const char *fkg_vm_name(const fkg_vm *vm, uint64_t word);

#endif

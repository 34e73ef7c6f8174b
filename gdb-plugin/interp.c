/* interp.c - the interpreter table and the one merge rule: each native call of
 * the eval loop runs the interpreted frames from one entry frame (outermost) to
 * the next, so the k-th eval-loop frame from the leaf is replaced by the k-th
 * such group; native frames between them stay where they ran. */
#include "interp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog/prog.h"

static const fkg_interp *const table[] = { &fkg_interp_python };

#define MAX_VFRAMES 4096
#define MAX_WAIT 8
#define MAX_LOCK 16

struct fkg_vm {
	const fkg_interp *ops;
	void *st;
	uint64_t eval_lo, eval_hi;
	uint64_t wait_lo[MAX_WAIT], wait_hi[MAX_WAIT];
	size_t nwait;
	uint64_t lock_lo[MAX_LOCK], lock_hi[MAX_LOCK];
	size_t nlock;
	uint64_t mod_lo, mod_hi;   /* the module of the eval loop */
	fkg_vframe *frames;
	/* interned (key, line) -> id; names[id] owned */
	struct vkey { uint64_t key; int32_t line; uint32_t id1; } *set;
	size_t set_cap, nnames, cnames;
	char **names;
	uint32_t wait_id;
};

fkg_vm *fkg_vm_open(fkg_sampler *s, const char *name, bool lines, char *msg, size_t len)
{
	const fkg_interp *ops = NULL;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcmp(table[i]->name, name))
			ops = table[i];
	if (!ops) {
		snprintf(msg, len, "no support for interpreter '%s'", name);
		return NULL;
	}
	fkg_vm *vm = calloc(1, sizeof(*vm));
	if (vm)
		vm->frames = malloc(MAX_VFRAMES * sizeof(*vm->frames));
	if (!vm || !vm->frames) {
		free(vm);
		snprintf(msg, len, "out of memory");
		return NULL;
	}
	vm->ops = ops;
	vm->wait_id = UINT32_MAX;
	uint64_t size;
	if (fkg_symbol(s, ops->eval_symbol, &vm->eval_lo, &size) < 0 || !size) {
		snprintf(msg, len, "%s: no symbol %s in process %d: not this interpreter, or stripped",
			 ops->name, ops->eval_symbol, (int)fkg_pid(s));
		fkg_vm_free(vm);
		return NULL;
	}
	vm->eval_hi = vm->eval_lo + size;
	for (size_t i = 0; ops->wait_symbols && ops->wait_symbols[i]; i++)
		vm->nwait += fkg_symbol_all(s, ops->wait_symbols[i], vm->wait_lo + vm->nwait,
					    vm->wait_hi + vm->nwait, MAX_WAIT - vm->nwait);
	for (size_t i = 0; ops->lock_symbols && ops->lock_symbols[i]; i++)
		vm->nlock += fkg_symbol_all(s, ops->lock_symbols[i], vm->lock_lo + vm->nlock,
					    vm->lock_hi + vm->nlock, MAX_LOCK - vm->nlock);
	if (!fkg_module_range(s, vm->eval_lo, &vm->mod_lo, &vm->mod_hi))
		vm->mod_lo = vm->mod_hi = 0;
	vm->st = ops->open(s, lines, msg, len);
	if (!vm->st) {
		fkg_vm_free(vm);
		return NULL;
	}
	return vm;
}

void fkg_vm_free(fkg_vm *vm)
{
	if (!vm)
		return;
	if (vm->st)
		vm->ops->close(vm->st);
	for (size_t i = 0; i < vm->nnames; i++)
		free(vm->names[i]);
	free(vm->names);
	free(vm->set);
	free(vm->frames);
	free(vm);
}

void fkg_vm_stop(fkg_vm *vm, fkg_sampler *s)
{
	vm->ops->stop(vm->st, s);
}

static int add_name(fkg_vm *vm, const char *name)
{
	if (fkp_grow((void **)&vm->names, &vm->cnames, vm->nnames + 1, sizeof(*vm->names)) < 0)
		return -ENOMEM;
	char *d = strdup(name);
	if (!d)
		return -ENOMEM;
	vm->names[vm->nnames] = d;
	return (int)vm->nnames++;
}

/* id of the frame (key, line), named at first sight; -1 on OOM */
static int64_t intern(fkg_vm *vm, fkg_sampler *s, const fkg_vframe *f)
{
	if ((vm->nnames + 1) * 2 >= vm->set_cap) {
		size_t ncap = vm->set_cap ? vm->set_cap * 2 : 1024;
		struct vkey *n = calloc(ncap, sizeof(*n));
		if (!n)
			return -1;
		for (size_t i = 0; i < vm->set_cap; i++) {
			if (!vm->set[i].id1)
				continue;
			size_t j = (size_t)(vm->set[i].key * 0x9e3779b97f4a7c15ULL ^ (uint64_t)vm->set[i].line) & (ncap - 1);
			while (n[j].id1)
				j = (j + 1) & (ncap - 1);
			n[j] = vm->set[i];
		}
		free(vm->set);
		vm->set = n;
		vm->set_cap = ncap;
	}
	size_t mask = vm->set_cap - 1;
	size_t j = (size_t)(f->key * 0x9e3779b97f4a7c15ULL ^ (uint64_t)f->line) & mask;
	for (; vm->set[j].id1; j = (j + 1) & mask)
		if (vm->set[j].key == f->key && vm->set[j].line == f->line)
			return vm->set[j].id1 - 1;
	char buf[1024];
	vm->ops->frame_name(vm->st, s, f, buf, sizeof(buf));
	int id = add_name(vm, buf);
	if (id < 0)
		return -1;
	vm->set[j] = (struct vkey){ .key = f->key, .line = f->line, .id1 = (uint32_t)id + 1 };
	return id;
}

static bool in_ranges(const uint64_t *lo, const uint64_t *hi, size_t n, uint64_t pc)
{
	for (size_t i = 0; i < n; i++)
		if (pc >= lo[i] && pc < hi[i])
			return true;
	return false;
}

static bool is_eval(const fkg_vm *vm, uint64_t pc)
{
	return pc >= vm->eval_lo && pc < vm->eval_hi;
}

/* Where the "[waiting for ...]" frame goes (above pcs[i]), or n: a wait
 * function, or a leaf chain holding a lock primitive whose first frame in the
 * interpreter's module is called by the eval loop or a wait function. */
static size_t wait_index(const fkg_vm *vm, const uint64_t *pcs, size_t n)
{
	bool lock = false;
	for (size_t i = 0; i < n; i++) {
		uint64_t pc = pcs[i];
		if (in_ranges(vm->wait_lo, vm->wait_hi, vm->nwait, pc))
			return i;
		if (in_ranges(vm->lock_lo, vm->lock_hi, vm->nlock, pc))
			lock = true;
		if (pc >= vm->mod_lo && pc < vm->mod_hi) {
			if (lock && !is_eval(vm, pc) && i + 1 < n &&
			    (is_eval(vm, pcs[i + 1]) ||
			     in_ranges(vm->wait_lo, vm->wait_hi, vm->nwait, pcs[i + 1])))
				return i;
			if (!in_ranges(vm->wait_lo, vm->wait_hi, vm->nwait, pcs[i + 1 < n ? i + 1 : i]))
				return n;
		}
	}
	return n;
}

size_t fkg_vm_merge(fkg_vm *vm, fkg_sampler *s, pid_t tid, const uint64_t *pcs, size_t n,
		    uint64_t *out, size_t max)
{
	size_t nv = vm->ops->walk(vm->st, s, tid, vm->frames, MAX_VFRAMES);
	size_t k = 0, v = 0;
	bool waited = false;
	/* a wait for the lock is the innermost thing that matters: look for it
	 * first, so the frame goes right above the waiting function */
	size_t wait_at = nv && vm->ops->wait_frame ? wait_index(vm, pcs, n) : n;
	for (size_t i = 0; i < n && k < max; i++) {
		if (i == wait_at && !waited) {
			if (vm->wait_id == UINT32_MAX) {
				int id = add_name(vm, vm->ops->wait_frame);
				if (id >= 0)
					vm->wait_id = (uint32_t)id;
			}
			if (vm->wait_id != UINT32_MAX && k < max)
				out[k++] = FKG_VTAG | vm->wait_id;
			waited = true;
		}
		bool eval = is_eval(vm, pcs[i]);
		if (!eval || v >= nv) {
			/* native, or an eval loop with no frame left to give it (a
			 * call just starting): kept as it is */
			out[k++] = pcs[i];
			continue;
		}
		/* this eval-loop call runs frames up to and with the next entry frame */
		for (; v < nv && k < max; v++) {
			int64_t id = intern(vm, s, &vm->frames[v]);
			if (id >= 0)
				out[k++] = FKG_VTAG | (uint64_t)id;
			if (vm->frames[v].entry) {
				v++;
				break;
			}
		}
	}
	/* frames left over (the native walk was cut short): outermost, in order */
	for (; v < nv && k < max; v++) {
		int64_t id = intern(vm, s, &vm->frames[v]);
		if (id >= 0)
			out[k++] = FKG_VTAG | (uint64_t)id;
	}
	return k;
}

const char *fkg_vm_name(const fkg_vm *vm, uint64_t word)
{
	if (!vm || !FKG_IS_VFRAME(word))
		return NULL;
	uint64_t id = word & ~FKG_VTAG;
	return id < vm->nnames ? vm->names[id] : NULL;
}

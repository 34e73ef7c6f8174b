/* sampler.c - raw stacks of a ptrace-stopped process for the gdb `flame` command:
 * registers via PTRACE_GETREGS, stack memory via /proc/PID/mem, unwind rules cached
 * per address (libdw's CFI), full libdw unwinding for unusual frames. x86-64 only. */
#include "prog/prog.h"
#include "sampler.h"
#include "interp.h"

#include <dirent.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The fast path reads x86-64 registers; elsewhere every thread is reported
 * as not unwound and the command walks it with gdb's unwinder. */
#if defined(__x86_64__)
#define FKG_FAST 1
typedef struct user_regs_struct fkg_regs;
#else
#define FKG_FAST 0
typedef struct { uint64_t rip, rsp, rbp; } fkg_regs;
#endif

#define HARD_MAX_DEPTH 4096
#define PAGE 4096u
#define PAGE_SLOTS 512u /* direct-mapped stack page cache (2 MiB) */

enum { RK_EMPTY = 0, RK_OK, RK_END, RK_UNUSUAL };
enum { BP_SAME = 0, BP_AT, BP_UNDEF };
enum { DW_RBP = 6, DW_RSP = 7 };

/* Where the caller's registers are, for one address. Only the shapes that
 * compilers emit for ordinary code; anything else goes to libdw. */
struct rule {
	uint64_t pc;
	int32_t cfa_off;
	int16_t ra_off, bp_off;
	uint8_t kind, cfa_reg, bp_kind;
};

struct page {
	uint64_t base;
	uint32_t gen;
	uint8_t ok;
	uint8_t data[PAGE];
};

struct tname {
	pid_t tid;
	char name[24];
};

enum { T_IDLE = 0, T_ARMED, T_FIRING, T_FIRED, T_QUIT };

struct fkg_sampler {
	pid_t pid;
	int memfd;
	unsigned max_depth;
	Dwfl *dwfl;
	bool attached;
	uint32_t gen;          /* bumps every sample: invalidates the page cache */
	uint32_t report_gen;   /* sample of the last module re-read */
	struct page *pages;
	struct rule *rules;
	size_t rcap, rcount;
	/* Distinct stacks are kept once (a long run at a high rate repeats the
	 * same deep stacks): pcs in one arena, a hash set of stack ids, and one
	 * small record per thread per stop. */
	uint64_t *arena;
	size_t alen, acap;
	struct stk { uint64_t off, hash; uint32_t n; } *stks;
	size_t nstks, cstks;
	uint32_t *sset;          /* stack id + 1, 0 = empty */
	size_t sset_cap;
	struct rec { double time; int32_t tid; uint32_t stack; } *recs;
	size_t nrecs, crecs;
	/* current thread for the libdw callbacks */
	pid_t cur_tid;
	fkg_regs cur_regs;
	uint64_t *cur_pcs;
	size_t cur_n;
	const pid_t *cur_list;
	size_t cur_list_n;
	/* names */
	struct tname *names;
	size_t nnames, cnames;
	char strbuf[4200];
	fkg_stats st;
	/* timer */
	pthread_t timer;
	bool timer_running;
	int pipefd[2];
	double period, next_tick, fired_at;
	_Atomic int tstate;
	_Atomic int target_tid;
	_Atomic int fire_now;
	bool refired;
	bool resent;           /* the refire sent a second SIGSTOP */
	/* SIGINT */
	_Atomic int sigint;
	_Atomic int aborted;     /* a second request (fkp_sigreq_note) */
	fkp_sigreq req;
	atomic_flag req_lock;
	int supervisor;          /* pid whose signals are never a second request */
	_Atomic int sigfd;
	bool hooked;
	sigset_t old_mask;
	/* interpreter frames (--python): merged into each stack at the stop */
	fkg_vm *vm;
	uint64_t *merged;
};

double fkg_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------ memory */
static bool read_word(fkg_sampler *s, uint64_t addr, uint64_t *out)
{
	uint8_t bytes[8];
	for (unsigned done = 0; done < 8;) {
		uint64_t a = addr + done, base = a & ~(uint64_t)(PAGE - 1);
		if (base > (UINT64_C(1) << 62))
			return false;
		struct page *pg = &s->pages[(base / PAGE) % PAGE_SLOTS];
		if (pg->gen != s->gen || pg->base != base) {
			pg->base = base;
			pg->gen = s->gen;
			s->st.mem_reads++;
			pg->ok = pread(s->memfd, pg->data, PAGE, (off_t)base) == (ssize_t)PAGE;
		}
		if (!pg->ok)
			return false;
		unsigned off = (unsigned)(a - base), take = PAGE - off;
		if (take > 8 - done)
			take = 8 - done;
		memcpy(bytes + done, pg->data + off, take);
		done += take;
	}
	memcpy(out, bytes, 8);
	return true;
}

bool fkg_read(fkg_sampler *s, uint64_t addr, void *buf, size_t len)
{
	uint8_t *out = buf;
	while (len) {
		uint64_t w;
		uint64_t base = addr & ~(uint64_t)7;
		if (!read_word(s, base, &w))
			return false;
		size_t off = (size_t)(addr - base), take = 8 - off;
		if (take > len)
			take = len;
		memcpy(out, (uint8_t *)&w + off, take);
		out += take;
		addr += take;
		len -= take;
	}
	return true;
}

pid_t fkg_pid(const fkg_sampler *s)
{
	return s->pid;
}

struct symq {
	const char *name;
	uint64_t *lo, *hi;
	size_t max, n;
};

static int sym_module_cb(Dwfl_Module *m, void **ud, const char *mname, Dwarf_Addr start, void *arg)
{
	struct symq *q = arg;
	int n = dwfl_module_getsymtab(m);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *nm = dwfl_module_getsym_info(m, i, &sym, &addr, NULL, NULL, NULL);
		/* a .symtab (from debug files) spells versions into the name:
		 * pthread_cond_wait@@GLIBC_2.3.2 */
		size_t k = strlen(q->name);
		if (nm && sym.st_shndx != SHN_UNDEF && !strncmp(nm, q->name, k) &&
		    (nm[k] == 0 || nm[k] == '@')) {
			q->lo[q->n] = addr;
			q->hi[q->n] = addr + sym.st_size;
			if (++q->n == q->max)
				return DWARF_CB_ABORT;
		}
	}
	return DWARF_CB_OK;
}

size_t fkg_symbol_all(fkg_sampler *s, const char *name, uint64_t *lo, uint64_t *hi, size_t max)
{
	struct symq q = { .name = name, .lo = lo, .hi = hi, .max = max };
	if (max)
		dwfl_getmodules(s->dwfl, sym_module_cb, &q, 0);
	return q.n;
}

int fkg_symbol(fkg_sampler *s, const char *name, uint64_t *addr, uint64_t *size)
{
	uint64_t lo, hi;
	if (!fkg_symbol_all(s, name, &lo, &hi, 1))
		return -ENOENT;
	*addr = lo;
	*size = hi - lo;
	return 0;
}

bool fkg_module_range(fkg_sampler *s, uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, addr);
	Dwarf_Addr a = 0, b = 0;
	if (!m || !dwfl_module_info(m, NULL, &a, &b, NULL, NULL, NULL, NULL))
		return false;
	*lo = a;
	*hi = b;
	return true;
}

int fkg_set_interp(fkg_sampler *s, const char *name, bool lines, char *msg, size_t len)
{
	fkg_vm_free(s->vm);
	s->vm = NULL;
	if (!name)
		return 0;
	if (!s->merged && !(s->merged = malloc(2 * HARD_MAX_DEPTH * sizeof(*s->merged)))) {
		snprintf(msg, len, "out of memory");
		return -ENOMEM;
	}
	s->gen++;
	if (s->gen == 0)
		s->gen = 1;
	s->vm = fkg_vm_open(s, name, lines, msg, len);
	return s->vm ? 0 : -EINVAL;
}

const char *fkg_vframe_name(const fkg_sampler *s, uint64_t word)
{
	return fkg_vm_name(s->vm, word);
}

/* ------------------------------------------------------------------ libdw state callbacks */
static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	fkg_sampler *s = arg;
	size_t i = (size_t)(uintptr_t)*thread_argp;
	if (i >= s->cur_list_n)
		return 0;
	*thread_argp = (void *)(uintptr_t)(i + 1);
	return s->cur_list[i];
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	*thread_argp = NULL;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	uint64_t v;
	if (!read_word(arg, addr, &v))
		return false;
	*result = v;
	return true;
}

/* dwfl_thread_state_registers wants the sampler; libdw gives us only the
 * thread, so the sampler in use is kept here (the gdb plugin unwinds on gdb's
 * main thread only, one sampler at a time). */
static fkg_sampler *active;

static bool cb_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
	fkg_sampler *s = active;
	if (!s || dwfl_thread_tid(thread) != s->cur_tid)
		return false;
#if FKG_FAST
	const fkg_regs *r = &s->cur_regs;
	Dwarf_Word regs[17] = {
		r->rax, r->rdx, r->rcx, r->rbx, r->rsi, r->rdi, r->rbp, r->rsp,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15, r->rip,
	};
	return dwfl_thread_state_registers(thread, 0, 17, regs);
#else
	return false;
#endif
}

static const Dwfl_Thread_Callbacks thread_cbs = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_initial_registers,
};

static char *debuginfo_path;
static const Dwfl_Callbacks proc_cbs = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

static int report_modules(fkg_sampler *s, bool add)
{
	if (add)
		dwfl_report_begin_add(s->dwfl);
	else
		dwfl_report_begin(s->dwfl);
	int r = dwfl_linux_proc_report(s->dwfl, s->pid);
	if (dwfl_report_end(s->dwfl, NULL, NULL) != 0 || r < 0)
		return -EINVAL;
	if (r > 0)
		return -r;
	s->st.reports++;
	return 0;
}

fkg_sampler *fkg_new(pid_t pid, unsigned max_depth)
{
	fkg_sampler *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->pid = pid;
	s->max_depth = max_depth && max_depth < HARD_MAX_DEPTH ? max_depth : HARD_MAX_DEPTH;
	s->memfd = -1;
	s->pipefd[0] = s->pipefd[1] = -1;
	atomic_store(&s->sigfd, -1);
	s->gen = 1;
	int err = ENOMEM;
	s->pages = calloc(PAGE_SLOTS, sizeof(*s->pages));
	s->cur_pcs = malloc(HARD_MAX_DEPTH * sizeof(*s->cur_pcs));
	if (!s->pages || !s->cur_pcs)
		goto fail;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	s->memfd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->memfd < 0) {
		err = errno;
		goto fail;
	}
	s->dwfl = dwfl_begin(&proc_cbs);
	if (!s->dwfl) {
		err = EINVAL;
		goto fail;
	}
	int r = report_modules(s, false);
	if (r < 0) {
		err = -r;
		goto fail;
	}
	/* One Dwfl and one attached state for the whole run: building them is
	 * what costs milliseconds, unwinding through them does not. */
	s->attached = dwfl_attach_state(s->dwfl, NULL, pid, &thread_cbs, s);
	return s;
fail:
	fkg_free(s);
	errno = err;
	return NULL;
}

void fkg_free(fkg_sampler *s)
{
	if (!s)
		return;
	fkg_timer_stop(s);
	fkg_sigint_unhook(s);
	if (s->pipefd[0] >= 0) {
		close(s->pipefd[0]);
		close(s->pipefd[1]);
	}
	if (active == s)
		active = NULL;
	fkg_vm_free(s->vm);
	free(s->merged);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	if (s->memfd >= 0)
		close(s->memfd);
	free(s->pages);
	free(s->rules);
	free(s->arena);
	free(s->stks);
	free(s->sset);
	free(s->recs);
	free(s->cur_pcs);
	free(s->names);
	free(s);
}

/* ------------------------------------------------------------------ rule cache */
static struct rule *rule_slot(fkg_sampler *s, uint64_t pc)
{
	size_t mask = s->rcap - 1, i = (size_t)(pc * 0x9e3779b97f4a7c15ULL >> 20) & mask;
	while (s->rules[i].kind != RK_EMPTY && s->rules[i].pc != pc)
		i = (i + 1) & mask;
	return &s->rules[i];
}

static int rules_grow(fkg_sampler *s)
{
	size_t ncap = s->rcap ? s->rcap * 2 : 4096;
	struct rule *old = s->rules;
	size_t ocap = s->rcap;
	struct rule *n = calloc(ncap, sizeof(*n));
	if (!n)
		return -ENOMEM;
	s->rules = n;
	s->rcap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].kind != RK_EMPTY)
			*rule_slot(s, old[i].pc) = old[i];
	free(old);
	return 0;
}

static bool op_offset(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops == 1 && ops[0].atom == DW_OP_call_frame_cfa) {
		*off = 0;
		return true;
	}
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/* Derive the rule for pc from the module's CFI. */
static void rule_compute(fkg_sampler *s, uint64_t pc, struct rule *r)
{
	r->kind = RK_UNUSUAL;
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, pc);
	if (!m && s->report_gen != s->gen) {
		/* maybe dlopen()ed since the last look at /proc/PID/maps */
		s->report_gen = s->gen;
		report_modules(s, true);
		m = dwfl_addrmodule(s->dwfl, pc);
	}
	if (!m)
		return;
	Dwarf_Addr bias;
	Dwarf_Frame *fr = NULL;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(m, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0) {
		fr = NULL;
		cfi = dwfl_module_dwarf_cfi(m, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &fr) != 0)
			return;
	}
	Dwarf_Op *ops, mem[3];
	size_t nops;
	bool signalp = false;
	int ra_reg = dwarf_frame_info(fr, NULL, NULL, &signalp);
	if (ra_reg < 0 || signalp)
		goto out;
	if (dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops != 1)
		goto out;
	int64_t reg, off;
	if (ops[0].atom == DW_OP_bregx) {
		reg = (int64_t)ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else {
		goto out;
	}
	if ((reg != DW_RSP && reg != DW_RBP) || off < INT32_MIN || off > INT32_MAX)
		goto out;
	if (dwarf_frame_register(fr, ra_reg, mem, &ops, &nops) != 0)
		goto out;

	/* libdw's convention: no ops and *ops == mem is "undefined", no ops and
	 * NULL is "same value" */
	if (nops == 0 && ops == mem) { /* return address undefined: outermost frame */
		r->kind = RK_END;
		goto out;
	}
	int64_t ra_off, bp_off = 0;
	if (!op_offset(ops, nops, &ra_off) || ra_off < INT16_MIN || ra_off > INT16_MAX)
		goto out;
	if (dwarf_frame_register(fr, DW_RBP, mem, &ops, &nops) != 0)
		goto out;
	uint8_t bpk;
	if (nops == 0)
		bpk = ops == mem ? BP_UNDEF : BP_SAME;
	else if (op_offset(ops, nops, &bp_off) && bp_off >= INT16_MIN && bp_off <= INT16_MAX)
		bpk = BP_AT;
	else
		goto out;
	r->kind = RK_OK;
	r->cfa_reg = (uint8_t)reg;
	r->cfa_off = (int32_t)off;
	r->ra_off = (int16_t)ra_off;
	r->bp_off = (int16_t)bp_off;
	r->bp_kind = bpk;
out:
	free(fr);
}

static const struct rule *rule_get(fkg_sampler *s, uint64_t pc)
{
	if (s->rcount * 2 >= s->rcap) {
		if (s->rcount > (1u << 22)) { /* a run through endless JIT code: start over */
			memset(s->rules, 0, s->rcap * sizeof(*s->rules));
			s->rcount = 0;
		} else if (rules_grow(s) < 0) {
			return NULL;
		}
	}
	struct rule *r = rule_slot(s, pc);
	if (r->kind == RK_EMPTY) {
		struct rule tmp = { .pc = pc };
		rule_compute(s, pc, &tmp);
		*r = tmp;
		s->rcount++;
		s->st.rules++;
	}
	return r;
}

/* ------------------------------------------------------------------ unwinding */
/* Is addr in a mapped module? Cached addresses are; others ask libdw (which
 * re-reads the module list once per sample for dlopen()ed code). */
static bool in_module(fkg_sampler *s, uint64_t addr)
{
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, addr);
	Dwarf_Addr lo = 0, hi = 0;
	/* libdw can answer for addresses outside every mapping (a module's span
	 * as it sees it); keep to the reported range */
	return m && dwfl_module_info(m, NULL, &lo, &hi, NULL, NULL, NULL, NULL) && addr >= lo &&
	       addr < hi;
}

bool fkg_mapped(fkg_sampler *s, uint64_t addr)
{
	if (addr < 4096)
		return false;
	if (s->rcap) {
		const struct rule *r = rule_slot(s, addr);
		if (r->kind != RK_EMPTY)
			return true;
	}
	if (in_module(s, addr))
		return true;
	if (s->report_gen != s->gen) {
		s->report_gen = s->gen;
		report_modules(s, true);
		return in_module(s, addr);
	}
	return false;
}

/* Fast walk. Returns 0 at the outermost frame or the depth limit, 1 if an
 * unusual frame needs libdw. Addresses land in s->cur_pcs (callers as
 * return address - 1, the address symbolization must look up). */
static int unwind_fast(fkg_sampler *s, bool *truncated)
{
	const fkg_regs *rg = &s->cur_regs;
	uint64_t pc = rg->rip, sp = rg->rsp, bp = rg->rbp, look = pc;
	size_t n = 0;
	s->cur_pcs[n++] = pc;
	for (;;) {
		if (n >= s->max_depth) {
			*truncated = true;
			break;
		}
		const struct rule *r = rule_get(s, look);
		if (!r || r->kind == RK_UNUSUAL)
			goto unusual;
		if (r->kind == RK_END)
			break;
		uint64_t cfa = (r->cfa_reg == DW_RSP ? sp : bp) + (uint64_t)(int64_t)r->cfa_off, ra;
		if (cfa <= sp || !read_word(s, cfa + (uint64_t)(int64_t)r->ra_off, &ra))
			goto unusual;
		if (r->bp_kind == BP_AT) {
			if (!read_word(s, cfa + (uint64_t)(int64_t)r->bp_off, &bp))
				goto unusual;
		} else if (r->bp_kind == BP_UNDEF) {
			bp = 0;
		}
		if (ra == 0)
			break;
		if (!fkg_mapped(s, ra - 1))
			break; /* not code of any module: garbage beyond the outermost frame */
		sp = cfa;
		look = ra - 1;
		s->cur_pcs[n++] = look;
	}
	s->cur_n = n;
	return 0;
unusual:
	s->cur_n = n;
	return 1;
}

struct dw_walk {
	fkg_sampler *s;
	size_t n;
	bool truncated;
};

static int dw_frame_cb(Dwfl_Frame *state, void *arg)
{
	struct dw_walk *w = arg;
	Dwarf_Addr pc;
	bool act;
	if (!dwfl_frame_pc(state, &pc, &act))
		return DWARF_CB_ABORT;
	if (w->n >= w->s->max_depth) {
		w->truncated = true;
		return DWARF_CB_ABORT;
	}
	if (w->n > 0 && !fkg_mapped(w->s, act ? pc : pc - 1))
		return DWARF_CB_ABORT; /* beyond the outermost frame */
	w->s->cur_pcs[w->n++] = act ? pc : pc - 1;
	return DWARF_CB_OK;
}

static uint64_t hash_pcs(const uint64_t *pcs, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	for (size_t i = 0; i < n; i++) {
		h ^= pcs[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return h;
}

/* Id of the stack pcs[0..n), added if new; negative on OOM. */
static int64_t intern_stack(fkg_sampler *s, const uint64_t *pcs, size_t n)
{
	if (s->nstks * 2 >= s->sset_cap) {
		size_t ncap = s->sset_cap ? s->sset_cap * 2 : 4096;
		uint32_t *ns = calloc(ncap, sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		for (size_t i = 0; i < s->nstks; i++) {
			size_t j = (size_t)s->stks[i].hash & (ncap - 1);
			while (ns[j])
				j = (j + 1) & (ncap - 1);
			ns[j] = (uint32_t)i + 1;
		}
		free(s->sset);
		s->sset = ns;
		s->sset_cap = ncap;
	}
	uint64_t h = hash_pcs(pcs, n);
	size_t j = (size_t)h & (s->sset_cap - 1);
	for (; s->sset[j]; j = (j + 1) & (s->sset_cap - 1)) {
		const struct stk *k = &s->stks[s->sset[j] - 1];
		if (k->hash == h && k->n == n && !memcmp(s->arena + k->off, pcs, n * sizeof(*pcs)))
			return s->sset[j] - 1;
	}
	if (s->nstks >= UINT32_MAX - 1 ||
	    fkp_grow((void **)&s->arena, &s->acap, s->alen + n, sizeof(*s->arena)) < 0 ||
	    fkp_grow((void **)&s->stks, &s->cstks, s->nstks + 1, sizeof(*s->stks)) < 0)
		return -ENOMEM;
	memcpy(s->arena + s->alen, pcs, n * sizeof(*pcs));
	s->stks[s->nstks] = (struct stk){ .off = s->alen, .hash = h, .n = (uint32_t)n };
	s->alen += n;
	s->sset[j] = (uint32_t)s->nstks + 1;
	return (int64_t)s->nstks++;
}

int fkg_add_record(fkg_sampler *s, pid_t tid, double time, const uint64_t *pcs, size_t n)
{
	int64_t id = intern_stack(s, pcs, n);
	if (id < 0 || fkp_grow((void **)&s->recs, &s->crecs, s->nrecs + 1, sizeof(*s->recs)) < 0)
		return -ENOMEM;
	s->recs[s->nrecs++] = (struct rec){ .time = time, .tid = tid, .stack = (uint32_t)id };
	s->st.stacks++;
	s->st.frames += n;
	return 0;
}

int fkg_sample(fkg_sampler *s, const pid_t *tids, size_t n, double time, pid_t *failed,
	       size_t nfailed_max)
{
	double t0 = fkg_now();
	size_t nf = 0;
	int ret = 0;
	s->gen++;
	if (s->gen == 0)
		s->gen = 1;
	active = s;
	s->cur_list = tids;
	s->cur_list_n = n;
	s->st.samples++;
	if (s->vm)
		fkg_vm_stop(s->vm, s);
	for (size_t i = 0; i < n; i++) {
		pid_t tid = tids[i];
		bool truncated = false;
		s->cur_tid = tid;
		if (!FKG_FAST) {
			if (nf < nfailed_max)
				failed[nf++] = tid;
			s->st.failed++;
			continue;
		}
#if FKG_FAST
		if (ptrace(PTRACE_GETREGS, tid, NULL, &s->cur_regs) != 0) {
			/* not stopped by our tracer (just born, or gone): nothing to
			 * read, and gdb's unwinder would only see stale registers */
			s->st.unstopped++;
			continue;
		}
#endif
		fkg_thread_name(s, tid); /* while it lives: short threads are gone by the end */
		int r = unwind_fast(s, &truncated);
		if (r == 1) {
			size_t fast_n = s->cur_n;
			struct dw_walk w = { .s = s };
			if (s->attached)
				dwfl_getthread_frames(s->dwfl, tid, dw_frame_cb, &w);
			truncated = w.truncated;
			if (w.n < fast_n) {
				/* libdw did worse than our partial walk: keep ours (a
				 * valid innermost part; redoing it is all cache hits) */
				bool t2 = false;
				unwind_fast(s, &t2);
				truncated = true;
			} else {
				s->cur_n = w.n;
			}
			if (s->cur_n < 2 && !truncated && nf < nfailed_max) {
				s->st.failed++;
				failed[nf++] = tid;
				continue;
			}
			s->st.libdw++;
		} else {
			s->st.fast++;
		}
		if (truncated)
			s->st.truncated++;
		const uint64_t *pcs = s->cur_pcs;
		size_t npcs = s->cur_n;
		if (s->vm) {
			npcs = fkg_vm_merge(s->vm, s, tid, pcs, npcs, s->merged, 2 * HARD_MAX_DEPTH);
			pcs = s->merged;
		}
		if (fkg_add_record(s, tid, time, pcs, npcs) < 0) {
			ret = -ENOMEM;
			break;
		}
		continue;
	}
	s->cur_list = NULL;
	s->cur_list_n = 0;
	s->st.unwind_s += fkg_now() - t0;
	return ret < 0 ? ret : (int)nf;
}

bool fkg_record(const fkg_sampler *s, size_t *pos, double *time, pid_t *tid,
		const uint64_t **pcs, size_t *n)
{
	if (*pos >= s->nrecs)
		return false;
	const struct rec *r = &s->recs[(*pos)++];
	const struct stk *k = &s->stks[r->stack];
	*time = r->time;
	*tid = r->tid;
	*pcs = s->arena + k->off;
	*n = k->n;
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int fkg_distinct(const fkg_sampler *s, uint64_t **out, size_t *n, bool vframes)
{
	/* every address of every distinct stack */
	uint64_t *a = malloc((s->alen ? s->alen : 1) * sizeof(*a));
	if (!a)
		return -ENOMEM;
	memcpy(a, s->arena, s->alen * sizeof(*a));
	qsort(a, s->alen, sizeof(*a), cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < s->alen; i++)
		if ((u == 0 || a[u - 1] != a[i]) && (vframes || !FKG_IS_VFRAME(a[i])))
			a[u++] = a[i];
	*out = a;
	*n = u;
	return 0;
}

/* ------------------------------------------------------------------ symbols */
const char *fkg_module_offset(fkg_sampler *s, uint64_t addr)
{
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, addr);
	if (!m) {
		report_modules(s, true);
		m = dwfl_addrmodule(s->dwfl, addr);
	}
	const char *file = NULL;
	Dwarf_Addr start = 0;
	const char *mname = m ? dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, &file, NULL) : NULL;
	if (!mname) {
		snprintf(s->strbuf, sizeof(s->strbuf), "0x%llx", (unsigned long long)addr);
		return s->strbuf;
	}
	const char *base = strrchr(mname, '/');
	base = base ? base + 1 : mname;
	/* offset in the ELF's own address space (what addr2line -e takes) */
	Dwarf_Addr bias = 0;
	uint64_t off = dwfl_module_getelf(m, &bias) ? addr - bias : addr - start;
	snprintf(s->strbuf, sizeof(s->strbuf), "%.*s+0x%llx", 4000, base, (unsigned long long)off);
	return s->strbuf;
}

const char *fkg_module_name(fkg_sampler *s, uint64_t addr)
{
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, addr);
	if (!m) {
		report_modules(s, true);
		m = dwfl_addrmodule(s->dwfl, addr);
	}
	const char *mname = m ? dwfl_module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL) : NULL;
	if (!mname)
		return "[unknown]";
	const char *base = strrchr(mname, '/');
	base = base ? base + 1 : mname;
	snprintf(s->strbuf, sizeof(s->strbuf), "[%.*s]", 4000, base);
	return s->strbuf;
}

const char *fkg_elf_symbol(fkg_sampler *s, uint64_t addr)
{
	Dwfl_Module *m = dwfl_addrmodule(s->dwfl, addr);
	if (!m)
		return NULL;
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(m, addr, &off, &sym, NULL, NULL, NULL);
	return name && *name ? name : NULL;
}

const char *fkg_thread_name(fkg_sampler *s, pid_t tid)
{
	for (size_t i = 0; i < s->nnames; i++)
		if (s->names[i].tid == tid)
			return s->names[i].name;
	if (s->nnames == s->cnames) {
		size_t n = s->cnames ? s->cnames * 2 : 32;
		struct tname *p = realloc(s->names, n * sizeof(*p));
		if (!p)
			return "?";
		s->names = p;
		s->cnames = n;
	}
	struct tname *t = &s->names[s->nnames++];
	t->tid = tid;
	snprintf(t->name, sizeof(t->name), "%d", (int)tid);
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)s->pid, (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t k = read(fd, t->name, sizeof(t->name) - 1);
		close(fd);
		if (k > 0) {
			while (k > 0 && (t->name[k - 1] == '\n'))
				k--;
			t->name[k] = 0;
		}
	}
	return t->name;
}

void fkg_get_stats(const fkg_sampler *s, fkg_stats *st)
{
	*st = s->st;
}

/* ------------------------------------------------------------------ timer */
/* The state letter of thread tid of pid from /proc ('t': stopped by its tracer,
 * 'Z'/'X': exiting), 0 when it is gone or unreadable. */
static char thread_state(pid_t pid, pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* 1 = sent, 0 = not now: the thread already sits in a tracing stop (gdb stopped
 * it for something else: a breakpoint, its own stop of all threads). A SIGSTOP
 * sent into such a stop is one gdb may hold beside the stop it reports, and pass
 * on at detach once `pass` is back: the process then stops for good. */
static int fire(fkg_sampler *s)
{
	pid_t tid = atomic_load(&s->target_tid);
	if (tid > 0 && thread_state(s->pid, tid) == 't')
		return 0;
	int expect = T_ARMED;
	if (!atomic_compare_exchange_strong(&s->tstate, &expect, T_FIRING))
		return 1;
	s->fired_at = fkg_now();
	/* SIGSTOP: the target cannot block it, and gdb (told `nopass`) swallows
	 * it. A thread-directed one first; if that thread just exited, the
	 * process-directed one reaches whichever thread is left. */
	if (getenv("FKG_PROCKILL") || tid <= 0 || syscall(SYS_tgkill, s->pid, tid, SIGSTOP) != 0)
		kill(s->pid, SIGSTOP);
	atomic_store(&s->tstate, T_FIRED);
	return 1;
}

static void poke(fkg_sampler *s);

/* gdb's own threads do not all block SIGTERM and SIGHUP: one of them would run
 * gdb's handler (SIGHUP: gdb quits on the spot, nothing written). While hooked,
 * the process-wide action is ours instead: note the signal, fire at once. */
static fkg_sampler *_Atomic hooked_sampler;
static const int term_signals[] = { SIGTERM, SIGHUP };
static struct sigaction term_saved[2];

/* Signals are noted by the timer thread (signalfd) and by a handler in any other
 * gdb thread, so the request count is guarded by a spin lock: the timer thread
 * blocks every signal and a handler blocks them all while it runs, so no thread
 * ever waits for a lock it holds itself. */
static void note_signal(fkg_sampler *s, int sig, int code, int pid)
{
	while (atomic_flag_test_and_set(&s->req_lock))
		;
	int r = fkp_sigreq_note(&s->req, sig, code, pid, fkg_now(), s->supervisor);
	atomic_flag_clear(&s->req_lock);
	if (r == FKP_SIG_AGAIN)
		atomic_store(&s->aborted, 1);
	/* SIGTERM/SIGHUP win over SIGINT: they ask gdb itself to end */
	int cur = atomic_load(&s->sigint);
	if (cur != SIGTERM && cur != SIGHUP)
		atomic_store(&s->sigint, sig);
	atomic_store(&s->fire_now, 1);
}

static void on_term(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int e = errno;
	fkg_sampler *s = atomic_load(&hooked_sampler);
	if (s) {
		note_signal(s, sig, si ? si->si_code : SI_USER, si ? si->si_pid : 0);
		if (s->pipefd[1] >= 0)
			poke(s);
	}
	errno = e;
}

static void *timer_main(void *arg)
{
	fkg_sampler *s = arg;
	for (;;) {
		int st = atomic_load(&s->tstate);
		if (st == T_QUIT)
			break;
		struct timespec ts, *tsp = NULL;
		if (st == T_FIRED && !s->refired) {
			/* Sent, but no disarm within a second: the thread it went to
			 * may be a zombie leader. The process-directed one reaches a
			 * live thread; an extra SIGSTOP left over is swallowed by the
			 * command's final pending-signal check. */
			double left = s->fired_at + 1.0 - fkg_now();
			if (left <= 0) {
				/* as fire() does: FIRING while the signal goes, so a disarm
				 * in the meantime waits for it (and a pending-SIGSTOP check
				 * after the disarm sees it), and one before it wins. Sent
				 * only when that thread is gone: one it stopped is waiting
				 * for gdb, and a second SIGSTOP would be one more for gdb
				 * to hold (see fire) */
				int expect = T_FIRED;
				if (atomic_compare_exchange_strong(&s->tstate, &expect, T_FIRING)) {
					s->refired = true;
					pid_t tid = atomic_load(&s->target_tid);
					char c = tid > 0 ? thread_state(s->pid, tid) : 0;
					if (c == 0 || c == 'Z' || c == 'X') {
						s->resent = true;
						kill(s->pid, SIGSTOP);
					}
					atomic_store(&s->tstate, T_FIRED);
				}
				continue;
			}
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
			tsp = &ts;
		}
		if (st == T_ARMED) {
			if (atomic_load(&s->fire_now) && fire(s)) {
				atomic_store(&s->fire_now, 0);
				continue;
			}
			double left = s->next_tick - fkg_now();
			if (left <= 0) {
				if (!fire(s)) /* stopped already: look again a tick later */
					s->next_tick += s->period;
				continue;
			}
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
			tsp = &ts;
		}
		struct pollfd pfd[2] = { { .fd = s->pipefd[0], .events = POLLIN },
					 { .fd = atomic_load(&s->sigfd), .events = POLLIN } };
		int r = ppoll(pfd, pfd[1].fd >= 0 ? 2 : 1, tsp, NULL);
		if (r > 0 && (pfd[0].revents & POLLIN)) {
			char buf[64];
			while (read(s->pipefd[0], buf, sizeof(buf)) > 0)
				;
		}
		if (r > 0 && pfd[1].fd >= 0 && (pfd[1].revents & POLLIN)) {
			struct signalfd_siginfo si;
			while (read(pfd[1].fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				note_signal(s, (int)si.ssi_signo, si.ssi_code, (int)si.ssi_pid);
		}
	}
	return NULL;
}

static void poke(fkg_sampler *s)
{
	ssize_t r = write(s->pipefd[1], "x", 1);
	(void)r;
}

int fkg_timer_start(fkg_sampler *s, double hz)
{
	if (s->timer_running || hz <= 0)
		return -EINVAL;
	if (pipe2(s->pipefd, O_CLOEXEC | O_NONBLOCK) != 0)
		return -errno;
	s->period = 1.0 / hz;
	s->next_tick = fkg_now() + s->period;
	atomic_store(&s->tstate, T_IDLE);
	/* the helper thread must never take gdb's signals (SIGINT, SIGCHLD) */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = pthread_create(&s->timer, NULL, timer_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		close(s->pipefd[0]);
		close(s->pipefd[1]);
		s->pipefd[0] = s->pipefd[1] = -1;
		return -r;
	}
	s->timer_running = true;
	return 0;
}

void fkg_timer_arm(fkg_sampler *s, pid_t tid)
{
	if (!s->timer_running)
		return;
	double now = fkg_now();
	/* next tick strictly in the future: missed ticks are skipped, so the
	 * target always runs a while between two stops */
	if (s->next_tick <= now) {
		double k = (now - s->next_tick) / s->period;
		s->next_tick += ((double)(uint64_t)k + 1) * s->period;
	}
	atomic_store(&s->target_tid, tid);
	s->refired = false;
	s->resent = false;
	atomic_store(&s->tstate, T_ARMED);
	poke(s);
}

bool fkg_timer_disarm(fkg_sampler *s)
{
	if (!s->timer_running)
		return false;
	/* to IDLE from whatever the timer thread left, never while it is sending a
	 * SIGSTOP (FIRING: it sets FIRED once the signal is queued): after this, no
	 * signal of ours can reach the target until the next arm */
	int st;
	for (;;) {
		st = atomic_load(&s->tstate);
		if (st == T_FIRING) {
			sched_yield();
			continue;
		}
		if (atomic_compare_exchange_weak(&s->tstate, &st, T_IDLE))
			break;
	}
	bool fired = st == T_FIRED;
	if (fired) /* the tick after this one */
		s->next_tick = s->fired_at + s->period;
	return fired;
}

bool fkg_timer_refired(const fkg_sampler *s)
{
	return s->resent;
}

double fkg_timer_fired_at(const fkg_sampler *s)
{
	return s->fired_at;
}

void fkg_timer_stop(fkg_sampler *s)
{
	if (!s->timer_running)
		return;
	fkg_timer_disarm(s);
	atomic_store(&s->tstate, T_QUIT);
	poke(s);
	pthread_join(s->timer, NULL);
	s->timer_running = false;
	/* the pipe stays until fkg_free: a SIGTERM handler may still poke it */
}

/* ------------------------------------------------------------------ SIGINT
 * gdb puts its own SIGINT handler back whenever Python runs a gdb command, and
 * during `continue` that handler would forward Ctrl-C to the target. So SIGINT
 * is blocked in gdb's main thread instead and taken by the timer thread from
 * a signalfd. SIGTERM and SIGHUP too: gdb quitting mid-sample would detach
 * with our SIGSTOP still due and leave the target stopped; the command ends
 * sampling cleanly and raises them again afterwards. */
int fkg_sigint_hook(fkg_sampler *s)
{
	if (s->hooked)
		return 0;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (pthread_sigmask(SIG_BLOCK, &set, &s->old_mask) != 0)
		return -EINVAL;
	int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		pthread_sigmask(SIG_SETMASK, &s->old_mask, NULL);
		return -e;
	}
	atomic_store(&s->sigfd, fd);
	atomic_store(&hooked_sampler, s);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_term;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	for (int i = 0; i < 2; i++)
		sigaction(term_signals[i], &sa, &term_saved[i]);
	s->hooked = true;
	if (s->pipefd[1] >= 0)
		poke(s);
	return 0;
}

void fkg_sigint_unhook(fkg_sampler *s)
{
	if (!s->hooked)
		return;
	int fd = atomic_exchange(&s->sigfd, -1);
	if (s->pipefd[1] >= 0)
		poke(s);
	/* a Ctrl-C that came in was for us: do not let gdb see it afterwards */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	struct timespec zero = { 0, 0 };
	int sig;
	siginfo_t si;
	while ((sig = sigtimedwait(&set, &si, &zero)) > 0)
		note_signal(s, sig, si.si_code, si.si_pid);
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 2; i++)
		sigaction(term_signals[i], &term_saved[i], NULL);
	atomic_store(&hooked_sampler, NULL);
	pthread_sigmask(SIG_SETMASK, &s->old_mask, NULL);
	s->hooked = false;
}

int fkg_sigint_state(void)
{
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, SIGINT);
}

int fkg_sigint_seen(const fkg_sampler *s)
{
	return atomic_load(&s->sigint);
}

void fkg_set_supervisor(fkg_sampler *s, pid_t pid)
{
	s->supervisor = (int)pid;
}

bool fkg_aborted(const fkg_sampler *s)
{
	return atomic_load(&s->aborted);
}

/* ------------------------------------------------------------------ guardian
 * gdb attaches with PTRACE_ATTACH, and both its attach and our stop timer stop
 * the target with SIGSTOP. If gdb dies (kill -9) while such a SIGSTOP is queued,
 * or while a thread sits in its signal-delivery-stop for one, the kernel
 * detaches the threads and lets the SIGSTOP through: the whole process is left
 * in a group stop (state T) with nobody to continue it. (PTRACE_SEIZE with
 * PTRACE_INTERRUPT would not stop anything behind a vanished tracer, but gdb
 * owns the attach.) A SIGCONT sent once the tracer has fully exited undoes it
 * on every path: it discards queued stop signals and cancels a dequeued one
 * (JOBCTL_STOP_DEQUEUED), and wakes threads already group-stopped.
 *
 * The guardian is a grandchild of gdb in a session of its own (a kill of gdb's
 * process group does not reach it), holding only the read end of a pipe. EOF
 * without the word "done" means gdb is gone: it waits until gdb's whole thread
 * group has exited (so no timer thread of ours can still send a SIGSTOP and
 * every thread is detached), sends SIGCONT and exits. Only async-signal-safe
 * calls after fork: gdb is multithreaded. */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif

/* true once every thread of pid has exited (zombie or reaped) */
static bool group_gone(const char *stat_path)
{
	char buf[512];
	int fd = open(stat_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	if (!p || (p[2] != 'Z' && p[2] != 'X'))
		return false;
	/* a zombie leader: the threads (field 20) must be gone too */
	int field = 3;
	for (p += 2; *p && field < 20; p++)
		if (*p == ' ')
			field++;
	return *p == '1' || *p == '0';
}

/* true when pid is stopped (a group stop, state T) with no tracer */
static bool stopped_untraced(pid_t pid)
{
	char path[48], buf[2048];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	const char *st = strstr(buf, "\nState:\t"), *tr = strstr(buf, "\nTracerPid:\t");
	return st && tr && st[8] == 'T' && tr[12] == '0' && tr[13] == '\n';
}

static void guardian(int rd, const char *gdb_stat, int gdb_pidfd, pid_t target, int target_pidfd)
{
	setsid();
	prctl(PR_SET_NAME, "flame-guardian");  /* not one more "gdb" in ps */
	/* keep only what is needed: no pipe gdb's reader waits on stays open */
	int keep[3] = { rd, gdb_pidfd, target_pidfd };
	for (int fd = 0; fd < 1024; fd++)
		if (fd != keep[0] && fd != keep[1] && fd != keep[2])
			close(fd);
	syscall(SYS_close_range, 1024, ~0U, 0);
	char c = 0;
	ssize_t n;
	while ((n = read(rd, &c, 1)) < 0 && errno == EINTR)
		;
	if (n == 1 && c == 'd')
		_exit(0);
	if (n == 1 && c == 'w') {
		/* the command is over but gdb is not to be trusted (it hit an internal
		 * error): until gdb ends, a target it lets go of stopped (a SIGSTOP
		 * leaked at its detach) is continued; then once more after its end */
		for (;;) {
			struct pollfd p[2] = { { .fd = rd, .events = POLLIN }, { .fd = gdb_pidfd, .events = POLLIN } };
			int r = poll(p, gdb_pidfd >= 0 ? 2 : 1, 100);
			if (stopped_untraced(target))
				kill(target, SIGCONT);
			if (kill(target, 0) != 0)
				_exit(0);
			if (r > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
				while ((n = read(rd, &c, 1)) < 0 && errno == EINTR)
					;
				if (n <= 0)
					break;  /* gdb closed it: gdb's end */
			}
			if (r > 0 && gdb_pidfd >= 0 && (p[1].revents & POLLIN))
				break;
		}
		for (int i = 0; i < 6000 && !group_gone(gdb_stat); i++) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
		if (stopped_untraced(target))
			kill(target, SIGCONT);
		_exit(0);
	}
	/* gdb went away mid-run: wait for its whole thread group (60 s at most) */
	for (int i = 0; i < 6000; i++) {
		if (gdb_pidfd >= 0) {
			struct pollfd p = { .fd = gdb_pidfd, .events = POLLIN };
			if (poll(&p, 1, 10) > 0)
				break;
		} else {
			if (group_gone(gdb_stat))
				break;
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
	if (target_pidfd < 0 || syscall(SYS_pidfd_send_signal, target_pidfd, SIGCONT, NULL, 0) != 0)
		kill(target, SIGCONT);
	_exit(0);
}

int fkg_guard_start(pid_t target)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return -errno;
	pid_t self = getpid();
	char gdb_stat[64];
	snprintf(gdb_stat, sizeof(gdb_stat), "/proc/%d/stat", (int)self);
	int gdb_pidfd = (int)syscall(SYS_pidfd_open, self, 0);
	int target_pidfd = (int)syscall(SYS_pidfd_open, target, 0);
	pid_t mid = fork();
	if (mid == 0) {
		/* the middle child exits at once: the guardian is nobody's child
		 * gdb could reap by mistake or wait for */
		if (fork() == 0)
			guardian(pfd[0], gdb_stat, gdb_pidfd, target, target_pidfd);
		_exit(0);
	}
	int e = errno;
	close(pfd[0]);
	if (gdb_pidfd >= 0)
		close(gdb_pidfd);
	if (target_pidfd >= 0)
		close(target_pidfd);
	if (mid < 0) {
		close(pfd[1]);
		return -e;
	}
	int status;
	while (waitpid(mid, &status, __WALL) < 0 && errno == EINTR)
		;
	return pfd[1];
}

void fkg_guard_watch(int fd)
{
	if (fd < 0)
		return;
	ssize_t r = write(fd, "w", 1);
	(void)r;
	/* fd stays open (close-on-exec) until gdb's end: its EOF tells the guardian */
}

void fkg_guard_end(int fd)
{
	if (fd < 0)
		return;
	ssize_t r = write(fd, "d", 1);
	(void)r;
	close(fd);
}

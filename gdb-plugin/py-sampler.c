/* py-sampler.c - the gdb plugin's part of the _flamekit Python module: the Sampler
 * the gdb `flame` command drives (sampler.c), the command's option parsing (the same
 * tables as `flamekit gdb`), and the helpers the command needs from C. */
#include "fkpy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog/prog.h"
#include "prog/flame-opts.h"
#include "sampler.h"

static PyObject *sampler_type;

/* ------------------------------------------------------------------ Sampler */
typedef struct {
	PyObject_HEAD
	fkg_sampler *s;
	int pid;
} SamplerObject;

static fkg_sampler *samp_of(PyObject *self)
{
	fkg_sampler *s = ((SamplerObject *)self)->s;
	if (!s)
		PyErr_SetString(PyExc_ValueError, "sampler is closed");
	return s;
}

static int samp_init(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "pid", "max_depth", "interp", "lines", NULL };
	int pid, lines = 0;
	unsigned int depth = 0;
	const char *interp = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "i|Izp:Sampler", kws, &pid, &depth, &interp,
					 &lines))
		return -1;
	SamplerObject *so = (SamplerObject *)self;
	fkg_free(so->s);
	so->s = fkg_new(pid, depth);
	if (!so->s) {
		PyErr_SetFromErrno(PyExc_OSError);
		return -1;
	}
	so->pid = pid;
	char msg[512];
	if (interp && fkg_set_interp(so->s, interp, lines, msg, sizeof(msg)) < 0) {
		fkg_free(so->s);
		so->s = NULL;
		PyErr_SetString(PyExc_ValueError, msg);
		return -1;
	}
	return 0;
}

static void samp_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);
	fkg_free(((SamplerObject *)self)->s);
	freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
	f(self);
	Py_DECREF(tp);
}

static PyObject *samp_close(PyObject *self, PyObject *unused)
{
	SamplerObject *so = (SamplerObject *)self;
	fkg_free(so->s);
	so->s = NULL;
	Py_RETURN_NONE;
}

static int tids_from(PyObject *seq, pid_t **out, size_t *n)
{
	PyObject *it = PyObject_GetIter(seq), *item;
	if (!it)
		return -1;
	size_t cap = 16, k = 0;
	pid_t *a = malloc(cap * sizeof(*a));
	if (!a) {
		Py_DECREF(it);
		PyErr_NoMemory();
		return -1;
	}
	while ((item = PyIter_Next(it))) {
		long v = PyLong_AsLong(item);
		Py_DECREF(item);
		if (v == -1 && PyErr_Occurred())
			goto fail;
		if (k == cap) {
			pid_t *b = realloc(a, cap * 2 * sizeof(*a));
			if (!b) {
				PyErr_NoMemory();
				goto fail;
			}
			a = b;
			cap *= 2;
		}
		a[k++] = (pid_t)v;
	}
	if (PyErr_Occurred())
		goto fail;
	Py_DECREF(it);
	*out = a;
	*n = k;
	return 0;
fail:
	Py_DECREF(it);
	free(a);
	return -1;
}

static PyObject *samp_sample(PyObject *self, PyObject *args)
{
	fkg_sampler *s = samp_of(self);
	PyObject *tidseq;
	double time;
	if (!s || !PyArg_ParseTuple(args, "Od:sample", &tidseq, &time))
		return NULL;
	pid_t *tids, *failed;
	size_t n;
	if (tids_from(tidseq, &tids, &n) < 0)
		return NULL;
	failed = malloc((n ? n : 1) * sizeof(*failed));
	if (!failed) {
		free(tids);
		return PyErr_NoMemory();
	}
	int r = fkg_sample(s, tids, n, time, failed, n);
	free(tids);
	if (r < 0) {
		free(failed);
		return fkpy_raise(r, NULL);
	}
	PyObject *l = PyList_New(r);
	for (int i = 0; l && i < r; i++)
		PyList_SetItem(l, i, PyLong_FromLong(failed[i]));
	free(failed);
	return l;
}

static PyObject *samp_add_record(PyObject *self, PyObject *args)
{
	fkg_sampler *s = samp_of(self);
	int tid;
	double time;
	PyObject *pcs;
	if (!s || !PyArg_ParseTuple(args, "idO:add_record", &tid, &time, &pcs))
		return NULL;
	PyObject *it = PyObject_GetIter(pcs), *item;
	if (!it)
		return NULL;
	uint64_t buf[4096];
	size_t n = 0;
	while ((item = PyIter_Next(it))) {
		unsigned long long v = PyLong_AsUnsignedLongLongMask(item);
		Py_DECREF(item);
		if (PyErr_Occurred())
			break;
		if (n < 4096)
			buf[n++] = v;
	}
	Py_DECREF(it);
	if (PyErr_Occurred())
		return NULL;
	int r = fkg_add_record(s, tid, time, buf, n);
	if (r < 0)
		return fkpy_raise(r, NULL);
	Py_RETURN_NONE;
}

static PyObject *samp_distinct(PyObject *self, PyObject *unused)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	uint64_t *a;
	size_t n;
	int r = fkg_distinct(s, &a, &n, false);
	if (r < 0)
		return fkpy_raise(r, NULL);
	PyObject *l = PyList_New((Py_ssize_t)n);
	for (size_t i = 0; l && i < n; i++)
		PyList_SetItem(l, (Py_ssize_t)i, PyLong_FromUnsignedLongLong(a[i]));
	free(a);
	return l;
}

static PyObject *samp_module_offset(PyObject *self, PyObject *arg)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	unsigned long long a = PyLong_AsUnsignedLongLongMask(arg);
	if (PyErr_Occurred())
		return NULL;
	return PyUnicode_DecodeUTF8(fkg_module_offset(s, a), (Py_ssize_t)strlen(fkg_module_offset(s, a)),
				    "surrogateescape");
}

static PyObject *samp_module_name(PyObject *self, PyObject *arg)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	unsigned long long a = PyLong_AsUnsignedLongLong(arg);
	if (a == (unsigned long long)-1 && PyErr_Occurred())
		return NULL;
	const char *n = fkg_module_name(s, a);
	return PyUnicode_DecodeUTF8(n, (Py_ssize_t)strlen(n), "surrogateescape");
}

static PyObject *samp_mapped(PyObject *self, PyObject *arg)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	unsigned long long a = PyLong_AsUnsignedLongLongMask(arg);
	if (PyErr_Occurred())
		return NULL;
	return PyBool_FromLong(fkg_mapped(s, a));
}

static PyObject *samp_elf_symbol(PyObject *self, PyObject *arg)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	unsigned long long a = PyLong_AsUnsignedLongLongMask(arg);
	if (PyErr_Occurred())
		return NULL;
	const char *n = fkg_elf_symbol(s, a);
	if (!n)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(n, (Py_ssize_t)strlen(n), "surrogateescape");
}

static PyObject *samp_thread_name(PyObject *self, PyObject *arg)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	long tid = PyLong_AsLong(arg);
	if (tid == -1 && PyErr_Occurred())
		return NULL;
	const char *n = fkg_thread_name(s, (pid_t)tid);
	return PyUnicode_DecodeUTF8(n, (Py_ssize_t)strlen(n), "surrogateescape");
}

/* addr -> interned frame ids, built once per distinct address */
struct symtab {
	uint64_t *keys;
	uint32_t *first, *count;
	size_t cap;
	uint32_t *ids;
	size_t nids, cids;
};

static size_t sym_slot(const struct symtab *t, uint64_t k)
{
	size_t i = (size_t)((k * 0x9e3779b97f4a7c15ULL) >> 17) & (t->cap - 1);
	while (t->keys[i] != 0 && t->keys[i] != k + 1)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static int push_id(struct symtab *t, uint32_t id)
{
	if (t->nids == t->cids) {
		size_t n = t->cids ? t->cids * 2 : 4096;
		uint32_t *p = realloc(t->ids, n * sizeof(*p));
		if (!p)
			return -1;
		t->ids = p;
		t->cids = n;
	}
	t->ids[t->nids++] = id;
	return 0;
}

static int intern_name(fk_profile *p, PyObject *name, uint32_t *id)
{
	PyObject *keep;
	const char *s;
	Py_ssize_t len;
	if (fkpy_text(name, &keep, &s, &len) < 0)
		return -1;
	int64_t r = fk_profile_intern(p, s, (size_t)len);
	Py_DECREF(keep);
	if (r < 0) {
		fkpy_raise((int)r, NULL);
		return -1;
	}
	*id = (uint32_t)r;
	return 0;
}

static PyObject *samp_build(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "profile", "names", "threads", "addrs", NULL };
	fkg_sampler *s = samp_of(self);
	PyObject *prof, *names;
	int threads = 0, by_addr = 0;
	if (!s || !PyArg_ParseTupleAndKeywords(args, kw, "OO!|pp:build", kws, &prof, &PyDict_Type,
					       &names, &threads, &by_addr))
		return NULL;
	fk_profile *p = fkpy_profile(prof);
	if (!p)
		return NULL;
	uint64_t *addrs;
	size_t na;
	int r = fkg_distinct(s, &addrs, &na, true);
	if (r < 0)
		return fkpy_raise(r, NULL);
	struct symtab t;
	memset(&t, 0, sizeof(t));
	t.cap = 64;
	while (t.cap < na * 2 + 2)
		t.cap *= 2;
	t.keys = calloc(t.cap, sizeof(*t.keys));
	t.first = calloc(t.cap, sizeof(*t.first));
	t.count = calloc(t.cap, sizeof(*t.count));
	uint32_t *stack = malloc((4096 * 4 + 1) * sizeof(*stack));
	PyObject *ret = NULL;
	size_t added = 0;
	if (!t.keys || !t.first || !t.count || !stack) {
		PyErr_NoMemory();
		goto out;
	}
	for (size_t i = 0; i < na; i++) {
		size_t slot = sym_slot(&t, addrs[i]);
		t.keys[slot] = addrs[i] + 1;
		t.first[slot] = (uint32_t)t.nids;
		const char *vname = fkg_vframe_name(s, addrs[i]);
		if (vname) { /* an interpreted frame, named at its stop */
			int64_t id = fk_profile_intern(p, vname, strlen(vname));
			if (id < 0 || push_id(&t, (uint32_t)id) < 0) {
				fkpy_raise(id < 0 ? (int)id : -ENOMEM, NULL);
				goto out;
			}
			t.count[slot] = 1;
			continue;
		}
		PyObject *key = PyLong_FromUnsignedLongLong(addrs[i]);
		if (!key)
			goto out;
		PyObject *v = PyDict_GetItem(names, key); /* borrowed */
		Py_DECREF(key);
		if (v && (PyUnicode_Check(v) || PyBytes_Check(v))) {
			uint32_t id;
			if (intern_name(p, v, &id) < 0 || push_id(&t, id) < 0)
				goto out;
		} else if (v && v != Py_None) {
			PyObject *it = PyObject_GetIter(v), *item;
			if (!it)
				goto out;
			while ((item = PyIter_Next(it))) {
				uint32_t id;
				int e = intern_name(p, item, &id);
				Py_DECREF(item);
				if (e < 0 || push_id(&t, id) < 0) {
					Py_DECREF(it);
					goto out;
				}
			}
			Py_DECREF(it);
			if (PyErr_Occurred())
				goto out;
		}
		if (t.nids == t.first[slot]) { /* nothing from the caller: [module] */
			const char *mo = by_addr ? fkg_module_offset(s, addrs[i])
						 : fkg_module_name(s, addrs[i]);
			int64_t id = fk_profile_intern(p, mo, strlen(mo));
			if (id < 0 || push_id(&t, (uint32_t)id) < 0) {
				fkpy_raise(id < 0 ? (int)id : -ENOMEM, NULL);
				goto out;
			}
		}
		t.count[slot] = (uint32_t)(t.nids - t.first[slot]);
	}
	size_t pos = 0, n;
	double time;
	pid_t tid;
	const uint64_t *pcs;
	SamplerObject *so = (SamplerObject *)self;
	while (fkg_record(s, &pos, &time, &tid, &pcs, &n)) {
		size_t k = 0;
		const char *comm = fkg_thread_name(s, tid);
		if (threads) {
			int64_t id = fk_profile_intern(p, comm, strlen(comm));
			if (id < 0) {
				fkpy_raise((int)id, NULL);
				goto out;
			}
			stack[k++] = (uint32_t)id;
		}
		for (size_t i = n; i-- > 0;) {
			size_t slot = sym_slot(&t, pcs[i]);
			for (uint32_t j = 0; j < t.count[slot] && k < 4096 * 4 + 1; j++)
				stack[k++] = t.ids[t.first[slot] + j];
		}
		fk_sample_info info = { .time = time, .pid = so->pid, .tid = tid, .cpu = -1,
					.comm = comm, .comm_len = strlen(comm) };
		int64_t e = fk_profile_flags(p) & FK_PROFILE_SAMPLES
				    ? fk_profile_add_sample(p, stack, k, 0, 1, &info)
				    : fk_profile_add_stack(p, stack, k, 0, 1);
		if (e < 0) {
			fkpy_raise((int)e, NULL);
			goto out;
		}
		added++;
	}
	ret = PyLong_FromSize_t(added);
out:
	free(addrs);
	free(t.keys);
	free(t.first);
	free(t.count);
	free(t.ids);
	free(stack);
	return ret;
}

static PyObject *samp_stats(PyObject *self, PyObject *unused)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	fkg_stats st;
	fkg_get_stats(s, &st);
	return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:d}",
			     "unstopped", (unsigned long long)st.unstopped,
			     "samples", (unsigned long long)st.samples,
			     "stacks", (unsigned long long)st.stacks,
			     "frames", (unsigned long long)st.frames,
			     "fast", (unsigned long long)st.fast,
			     "libdw", (unsigned long long)st.libdw,
			     "failed", (unsigned long long)st.failed,
			     "truncated", (unsigned long long)st.truncated,
			     "rules", (unsigned long long)st.rules,
			     "mem_reads", (unsigned long long)st.mem_reads,
			     "reports", (unsigned long long)st.reports,
			     "unwind_s", st.unwind_s);
}

static PyObject *samp_start_timer(PyObject *self, PyObject *args)
{
	fkg_sampler *s = samp_of(self);
	double hz;
	if (!s || !PyArg_ParseTuple(args, "d:start_timer", &hz))
		return NULL;
	int r = fkg_timer_start(s, hz);
	if (r < 0)
		return fkpy_raise(r, NULL);
	Py_RETURN_NONE;
}

static PyObject *samp_stop_timer(PyObject *self, PyObject *unused)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	fkg_timer_stop(s);
	Py_RETURN_NONE;
}

static PyObject *samp_arm(PyObject *self, PyObject *args)
{
	fkg_sampler *s = samp_of(self);
	int tid = 0;
	if (!s || !PyArg_ParseTuple(args, "|i:arm", &tid))
		return NULL;
	fkg_timer_arm(s, tid);
	Py_RETURN_NONE;
}

static PyObject *samp_disarm(PyObject *self, PyObject *unused)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	return PyBool_FromLong(fkg_timer_disarm(s));
}

static PyObject *samp_refired(PyObject *self, PyObject *unused)
{
	(void)unused;
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	return PyBool_FromLong(fkg_timer_refired(s));
}

static PyObject *samp_fired_at(PyObject *self, PyObject *unused)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	return PyFloat_FromDouble(fkg_timer_fired_at(s));
}

static PyObject *samp_hook_sigint(PyObject *self, PyObject *unused)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	int r = fkg_sigint_hook(s);
	if (r < 0)
		return fkpy_raise(r, NULL);
	Py_RETURN_NONE;
}

static PyObject *samp_unhook_sigint(PyObject *self, PyObject *unused)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	fkg_sigint_unhook(s);
	Py_RETURN_NONE;
}

static PyObject *samp_aborted(PyObject *self, PyObject *unused)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	return PyBool_FromLong(fkg_aborted(s));
}

static PyObject *samp_set_supervisor(PyObject *self, PyObject *arg)
{
	fkg_sampler *s = samp_of(self);
	long pid = PyLong_AsLong(arg);
	if (!s || (pid == -1 && PyErr_Occurred()))
		return NULL;
	fkg_set_supervisor(s, (pid_t)pid);
	Py_RETURN_NONE;
}

static PyObject *samp_sigstate(PyObject *self, PyObject *unused)
{
	return PyLong_FromLong(fkg_sigint_state());
}

static PyObject *samp_interrupted(PyObject *self, PyObject *unused)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	return PyLong_FromLong(fkg_sigint_seen(s));
}

static PyMethodDef samp_methods[] = {
	{ "sample", samp_sample, METH_VARARGS,
	  "sample(tids, time) -> [tid...]: unwind every listed (stopped) thread and keep its raw\n"
	  "addresses; returns the threads that could not be unwound." },
	{ "add_record", samp_add_record, METH_VARARGS,
	  "add_record(tid, time, pcs): a stack found elsewhere, innermost first (callers: ret-1)." },
	{ "distinct", samp_distinct, METH_NOARGS, "distinct() -> sorted distinct addresses recorded." },
	{ "module_offset", samp_module_offset, METH_O, "module_offset(addr) -> 'module+0xOFF' or '0xADDR'." },
	{ "mapped", samp_mapped, METH_O, "mapped(addr) -> True if addr is in a mapped module." },
	{ "module_name", samp_module_name, METH_O,
	  "module_name(addr) -> '[module]', or '[unknown]' outside every module." },
	{ "elf_symbol", samp_elf_symbol, METH_O, "elf_symbol(addr) -> ELF symbol name or None." },
	{ "thread_name", samp_thread_name, METH_O, "thread_name(tid) -> name from /proc." },
	{ "build", (PyCFunction)(void (*)(void))samp_build, METH_VARARGS | METH_KEYWORDS,
	  "build(profile, names, threads=False) -> stacks added. names maps address -> name or\n"
	  "names (outermost first, inline frames after their caller); missing -> module+offset." },
	{ "stats", samp_stats, METH_NOARGS, "stats() -> dict of counters." },
	{ "start_timer", samp_start_timer, METH_VARARGS, "start_timer(hz): start the stop timer thread." },
	{ "stop_timer", samp_stop_timer, METH_NOARGS, "stop_timer()" },
	{ "arm", samp_arm, METH_VARARGS, "arm(tid=0): SIGSTOP tid (0 = the process) at the next tick." },
	{ "disarm", samp_disarm, METH_NOARGS, "disarm() -> True if the SIGSTOP was already sent." },
	{ "refired", samp_refired, METH_NOARGS,
	  "refired() -> True if the last arm sent a second, process-directed SIGSTOP." },
	{ "fired_at", samp_fired_at, METH_NOARGS, "fired_at() -> monotonic time of the last SIGSTOP." },
	{ "hook_sigint", samp_hook_sigint, METH_NOARGS, "hook_sigint(): take SIGINT from gdb while sampling." },
	{ "unhook_sigint", samp_unhook_sigint, METH_NOARGS, "unhook_sigint(): give SIGINT back." },
	{ "sigstate", samp_sigstate, METH_NOARGS, "sigstate() -> 1 if SIGINT is blocked in this thread." },
	{ "interrupted", samp_interrupted, METH_NOARGS, "interrupted() -> 0, or the signal that asked sampling to end (SIGINT, SIGTERM, SIGHUP)." },
	{ "aborted", samp_aborted, METH_NOARGS,
	  "aborted() -> True after a second request to stop (abort: write nothing)." },
	{ "set_supervisor", samp_set_supervisor, METH_O,
	  "set_supervisor(pid): signals from pid (flamekit gdb) never count as a second request." },
	{ "close", samp_close, METH_NOARGS, "close(): free everything (stops the timer, unhooks SIGINT)." },
	{ NULL, NULL, 0, NULL },
};

static PyType_Slot samp_slots[] = {
	{ Py_tp_doc, "Sampler(pid, max_depth=0, interp=None, lines=False): fast raw-address unwinder\n"
		     "for a ptrace-stopped process (the calling thread must be its tracer). Used by the\n"
		     "gdb flame command. interp='python' merges CPython 3.11 frames into the stacks\n"
		     "(qualname (file.py), with :LINE under lines); ValueError if absent or another version." },
	{ Py_tp_init, samp_init },
	{ Py_tp_new, PyType_GenericNew },
	{ Py_tp_dealloc, samp_dealloc },
	{ Py_tp_methods, samp_methods },
	{ 0, NULL },
};

static PyType_Spec samp_spec = {
	"_flamekit.Sampler", sizeof(SamplerObject), 0, Py_TPFLAGS_DEFAULT, samp_slots,
};

static PyObject *mod_now(PyObject *m, PyObject *unused)
{
	return PyFloat_FromDouble(fkg_now());
}

/* gdb prints "Thread N received signal SIGSTOP" on every stop whatever the
 * notification settings; while sampling its stdout goes to /dev/null. */
static PyObject *mod_mute_stdout(PyObject *m, PyObject *unused)
{
	fflush(stdout);
	int saved = dup(STDOUT_FILENO);
	if (saved < 0)
		return PyErr_SetFromErrno(PyExc_OSError);
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null < 0 || dup2(null, STDOUT_FILENO) < 0) {
		PyErr_SetFromErrno(PyExc_OSError);
		if (null >= 0)
			close(null);
		close(saved);
		return NULL;
	}
	close(null);
	return PyLong_FromLong(saved);
}

static PyObject *mod_unmute_stdout(PyObject *m, PyObject *arg)
{
	long fd = PyLong_AsLong(arg);
	if (fd == -1 && PyErr_Occurred())
		return NULL;
	fflush(stdout);
	if (dup2((int)fd, STDOUT_FILENO) < 0)
		return PyErr_SetFromErrno(PyExc_OSError);
	close((int)fd);
	Py_RETURN_NONE;
}

/* guard(pid) -> fd: a guardian continues pid if gdb dies before unguard(fd) */
static PyObject *mod_guard(PyObject *m, PyObject *arg)
{
	long pid = PyLong_AsLong(arg);
	if (pid == -1 && PyErr_Occurred())
		return NULL;
	int fd = fkg_guard_start((pid_t)pid);
	if (fd < 0) {
		errno = -fd;
		return PyErr_SetFromErrno(PyExc_OSError);
	}
	return PyLong_FromLong(fd);
}

static PyObject *mod_unguard(PyObject *m, PyObject *arg)
{
	long fd = PyLong_AsLong(arg);
	if (fd == -1 && PyErr_Occurred())
		return NULL;
	fkg_guard_end((int)fd);
	Py_RETURN_NONE;
}

static PyObject *mod_watch_guard(PyObject *m, PyObject *arg)
{
	long fd = PyLong_AsLong(arg);
	if (fd == -1 && PyErr_Occurred())
		return NULL;
	fkg_guard_watch((int)fd);
	Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ the flame command's options */

/* parse_flame_args(argv) -> dict: the `flame` command line checked in full (its
 * own options and every SVG option, by the tables `flamekit gdb` uses) before
 * any sampling starts. Keys: hz duration svg folded samples threads max_depth
 * precise pid quiet, and svg_options (keyword arguments for write_svg). */
struct flame_args {
	PyObject *svg_kw;   /* name -> value as given (True for none) */
	const fk_option *svg_rows;
	size_t nsvg;
};

static int note_svg(void *ctx, const fk_option *row, const char *value)
{
	struct flame_args *fa = ctx;
	if (row < fa->svg_rows || row >= fa->svg_rows + fa->nsvg)
		return 0;
	PyObject *v = value ? PyUnicode_DecodeFSDefault(value) : (Py_INCREF(Py_True), Py_True);
	int r = v ? PyDict_SetItemString(fa->svg_kw, row->name, v) : -1;
	Py_XDECREF(v);
	return r;
}

static PyObject *mod_parse_flame_args(PyObject *m, PyObject *arg)
{
	PyObject *seq = PySequence_List(arg);
	if (!seq)
		return NULL;
	Py_ssize_t n = PyList_Size(seq);
	PyObject *keep = PyList_New(0), *res = NULL;
	char **argv = calloc((size_t)n + 2, sizeof(*argv));
	struct flame_args fa = { PyDict_New(), NULL, 0 };
	if (!keep || !argv || !fa.svg_kw) {
		PyErr_NoMemory();
		goto out;
	}
	argv[0] = "flame";
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *b;
		const char *s;
		Py_ssize_t len;
		if (fkpy_text(PyList_GetItem(seq, i), &b, &s, &len) < 0)
			goto out;
		int r = PyList_Append(keep, b);
		Py_DECREF(b);
		if (r < 0)
			goto out;
		argv[i + 1] = (char *)s;
	}
	struct fkp_flame_opts fo;
	fkp_flame_opts_init(&fo);
	fk_svg_opts so;
	fk_svg_opts_init(&so);
	size_t nf;
	fa.svg_rows = fk_svg_options(&fa.nsvg);
	fkp_optset sets[2] = { { fkp_flame_options(&nf), nf, &fo, NULL, NULL },
			       { fa.svg_rows, fa.nsvg, &so, NULL, NULL } };
	fkp_parser p = { .sets = sets, .nsets = 2, .hint = "see: help flame", .seen = note_svg,
			 .ctx = &fa };
	char **ops = calloc((size_t)n + 1, sizeof(*ops));
	int nops = 0;
	fkpy_last_msg[0] = 0;
	int r = ops ? fkp_opt_parse(&p, (int)n + 1, argv, ops, &nops) : -1;
	if (r == 0 && nops)
		snprintf(fkpy_last_msg, sizeof(fkpy_last_msg), "unexpected argument '%s' (see: help flame)", ops[0]);
	free(ops);
	if (r || nops) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_ValueError, fkpy_last_msg);
		goto out;
	}
	if (fkpy_check_svg(&so))
		goto out;
	if (fkp_flame_opts_check(&fo)) {
		PyErr_SetString(PyExc_ValueError, fkp_flame_opts_check(&fo));
		goto out;
	}
	/* the outputs before any sampling: a missing directory must not cost a run */
	const char *outs[] = { fo.svg, fo.folded, fo.samples };
	for (int i = 0; i < 3; i++) {
		fkpy_last_msg[0] = 0;
		if (outs[i] && fkp_out_check(outs[i])) {
			PyErr_SetString(PyExc_ValueError, fkpy_last_msg);
			goto out;
		}
	}
	res = Py_BuildValue("{s:O,s:O,s:d,s:d,s:z,s:z,s:z,s:O,s:I,s:O,s:O,s:i,s:O,s:O}",
			    "python", fo.python || fo.python_lines ? Py_True : Py_False,
			    "python_lines", fo.python_lines ? Py_True : Py_False, "hz", fo.hz,
			    "duration", fo.duration, "svg", fo.svg, "folded", fo.folded,
			    "samples", fo.samples, "threads", fo.threads ? Py_True : Py_False,
			    "max_depth", fo.max_depth, "precise", fo.precise ? Py_True : Py_False,
			    "addrs", fo.addrs ? Py_True : Py_False,
			    "pid", fo.pid, "quiet", fo.quiet ? Py_True : Py_False,
			    "svg_options", fa.svg_kw);
out:
	Py_XDECREF(fa.svg_kw);
	Py_XDECREF(keep);
	Py_DECREF(seq);
	free(argv);
	return res;
}

/* help flame: the option lines, from the tables */
static PyObject *mod_flame_help(PyObject *m, PyObject *unused)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return PyErr_NoMemory();
	struct fkp_flame_opts fo;
	fk_svg_opts so;
	size_t nf, ns;
	fkp_optset sets[2] = { { fkp_flame_options(&nf), nf, &fo, NULL, NULL },
			       { fk_svg_options(&ns), ns, &so, "SVG options (as flamekit svg):", NULL } };
	fkp_opt_help(f, &sets[0]);
	fkp_opt_help(f, &sets[1]);
	fclose(f);
	PyObject *s = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len, "replace");
	free(buf);
	return s;
}

static PyMethodDef gdb_methods[] = {
	{ "mute_stdout", mod_mute_stdout, METH_NOARGS,
	  "mute_stdout() -> fd: point fd 1 at /dev/null; returns the saved descriptor." },
	{ "unmute_stdout", mod_unmute_stdout, METH_O, "unmute_stdout(fd): restore fd 1." },
	{ "guard", mod_guard, METH_O,
	  "guard(pid) -> fd: a guardian process sends pid SIGCONT if gdb dies before unguard(fd)." },
	{ "unguard", mod_unguard, METH_O, "unguard(fd): sampling over, the guardian exits quietly." },
	{ "watch_guard", mod_watch_guard, METH_O,
	  "watch_guard(fd): sampling over but gdb hit an internal error: the guardian continues the target "
	  "whenever it is left stopped with no tracer, until gdb ends." },
	{ "now", mod_now, METH_NOARGS, "now() -> CLOCK_MONOTONIC seconds (perf's sample clock)." },
	{ "parse_flame_args", mod_parse_flame_args, METH_O,
	  "parse_flame_args(argv) -> dict: the gdb flame command's options, all checked." },
	{ "flame_help", mod_flame_help, METH_NOARGS, "flame_help() -> str: option lines of help flame." },
	{ NULL, NULL, 0, NULL },
};

int fkpy_add_gdb(PyObject *m)
{
	sampler_type = PyType_FromSpec(&samp_spec);
	if (!sampler_type)
		return -1;
	Py_INCREF(sampler_type);
	if (PyModule_AddObject(m, "Sampler", sampler_type) < 0)
		return -1;
	PyObject *name = PyModule_GetNameObject(m);
	for (PyMethodDef *d = gdb_methods; d->ml_name; d++) {
		PyObject *fn = PyCFunction_NewEx(d, NULL, name);
		if (!fn || PyModule_AddObject(m, d->ml_name, fn) < 0) {
			Py_XDECREF(fn);
			Py_XDECREF(name);
			return -1;
		}
	}
	Py_XDECREF(name);
	return 0;
}

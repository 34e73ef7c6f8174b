/* module.c - the _flamekit Python extension (stable ABI): a Profile over the core's
 * model (add stacks, folded/samples/SVG output, merge) for gdb, perf's Python hooks and
 * plain Python, plus the Sampler the gdb `flame` command drives (sampler.c). */
#define Py_LIMITED_API 0x03070000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flamekit.h"
#include "sampler.h"

static PyObject *profile_type, *sampler_type;

/* The renderer may be missing from a partial build of the core; the module
 * still loads (rules.mk links the whole archive, so a present one is used). */
#pragma weak fk_render_svg
#pragma weak fk_render_for_path
#pragma weak fk_svg_opts_init

static PyObject *raise_fk(int err, const char *what)
{
	if (err == -ENOMEM || err == -FK_E_NOMEM)
		return PyErr_NoMemory();
	if (err < 0 && -err < 4000) {
		errno = -err;
		return what ? PyErr_SetFromErrnoWithFilename(PyExc_OSError, what)
			    : PyErr_SetFromErrno(PyExc_OSError);
	}
	if (err == -FK_E_INVAL || err == -FK_E_FORMAT || err == -FK_E_REGEX)
		PyErr_Format(PyExc_ValueError, "%s%s%s", what ? what : "", what ? ": " : "",
			     fk_strerror(err));
	else
		PyErr_Format(PyExc_RuntimeError, "%s%s%s", what ? what : "", what ? ": " : "",
			     fk_strerror(err));
	return NULL;
}

/* UTF-8 bytes of a str, or the bytes object itself; new reference in *keep. */
static int text_of(PyObject *o, PyObject **keep, const char **s, Py_ssize_t *len)
{
	char *buf;
	if (PyUnicode_Check(o)) {
		*keep = PyUnicode_AsEncodedString(o, "utf-8", "surrogateescape");
		if (!*keep)
			return -1;
	} else if (PyBytes_Check(o)) {
		Py_INCREF(o);
		*keep = o;
	} else {
		PyErr_SetString(PyExc_TypeError, "frame names must be str or bytes");
		return -1;
	}
	if (PyBytes_AsStringAndSize(*keep, &buf, len) < 0) {
		Py_CLEAR(*keep);
		return -1;
	}
	*s = buf;
	return 0;
}

/* ------------------------------------------------------------------ atomic file output */
typedef struct {
	FILE *f;
	char *path, *tmp;
	int is_stdout;
} out_file;

static int out_open(out_file *o, PyObject *pathobj)
{
	memset(o, 0, sizeof(*o));
	PyObject *b = NULL;
	if (!PyUnicode_FSConverter(pathobj, &b))
		return -1;
	const char *p = PyBytes_AsString(b);
	if (!p) {
		Py_DECREF(b);
		return -1;
	}
	if (!strcmp(p, "-")) {
		Py_DECREF(b);
		o->f = stdout;
		o->is_stdout = 1;
		return 0;
	}
	size_t n = strlen(p);
	o->path = strdup(p);
	o->tmp = malloc(n + 32);
	Py_DECREF(b);
	if (!o->path || !o->tmp) {
		free(o->path);
		free(o->tmp);
		PyErr_NoMemory();
		return -1;
	}
	snprintf(o->tmp, n + 32, "%s.tmp.%ld", o->path, (long)getpid());
	o->f = fopen(o->tmp, "w");
	if (!o->f) {
		PyErr_SetFromErrnoWithFilename(PyExc_OSError, o->tmp);
		free(o->path);
		free(o->tmp);
		return -1;
	}
	return 0;
}

/* ok: flush and rename into place; otherwise remove the partial file.
 * Returns 0 or -1 with an exception set. */
static int out_close(out_file *o, int ok)
{
	int ret = 0;
	if (o->is_stdout) {
		if (fflush(stdout) != 0 && ok) {
			PyErr_SetFromErrno(PyExc_OSError);
			ret = -1;
		}
		return ret;
	}
	int bad = ferror(o->f) || fflush(o->f) != 0;
	if (fclose(o->f) != 0)
		bad = 1;
	if (ok && bad) {
		PyErr_SetFromErrnoWithFilename(PyExc_OSError, o->path);
		ret = -1;
	}
	if (ok && !bad && rename(o->tmp, o->path) != 0) {
		PyErr_SetFromErrnoWithFilename(PyExc_OSError, o->path);
		ret = -1;
	}
	if (!ok || ret < 0)
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	return ret;
}

/* ------------------------------------------------------------------ Profile */
typedef struct {
	PyObject_HEAD
	fk_profile *p;
} ProfileObject;

static fk_profile *prof_of(PyObject *o)
{
	if (!PyObject_TypeCheck(o, (PyTypeObject *)profile_type)) {
		PyErr_SetString(PyExc_TypeError, "expected a flamekit Profile");
		return NULL;
	}
	return ((ProfileObject *)o)->p;
}

static int prof_init(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "samples", NULL };
	int samples = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "|p:Profile", kws, &samples))
		return -1;
	ProfileObject *po = (ProfileObject *)self;
	fk_profile_free(po->p);
	po->p = fk_profile_new(samples ? FK_PROFILE_SAMPLES : 0);
	if (!po->p) {
		PyErr_NoMemory();
		return -1;
	}
	return 0;
}

static void prof_dealloc(PyObject *self)
{
	PyTypeObject *tp = Py_TYPE(self);
	fk_profile_free(((ProfileObject *)self)->p);
	freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
	f(self);
	Py_DECREF(tp);
}

static int fill_info(fk_sample_info *info, PyObject *time, int pid, int tid, int cpu,
		     PyObject *comm, PyObject **keep)
{
	info->time = NAN;
	info->pid = pid;
	info->tid = tid;
	info->cpu = cpu;
	info->comm = NULL;
	info->comm_len = 0;
	*keep = NULL;
	if (time && time != Py_None) {
		info->time = PyFloat_AsDouble(time);
		if (info->time == -1.0 && PyErr_Occurred())
			return -1;
	}
	if (comm && comm != Py_None) {
		Py_ssize_t len;
		if (text_of(comm, keep, &info->comm, &len) < 0)
			return -1;
		info->comm_len = (size_t)len;
	}
	return 0;
}

static PyObject *prof_add(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "frames", "count", "time", "pid", "tid", "cpu", "comm", "column", NULL };
	PyObject *frames, *time = NULL, *comm = NULL;
	double count = 1;
	int pid = -1, tid = -1, cpu = -1, col = 0;
	fk_profile *p = ((ProfileObject *)self)->p;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|dOiiiOi:add", kws, &frames, &count, &time,
					 &pid, &tid, &cpu, &comm, &col))
		return NULL;
	if (col != 0 && col != 1) {
		PyErr_SetString(PyExc_ValueError, "column must be 0 or 1");
		return NULL;
	}
	if (PyUnicode_Check(frames) || PyBytes_Check(frames)) {
		PyErr_SetString(PyExc_TypeError, "frames must be a list of names (root first); use add_folded() for \"a;b;c\"");
		return NULL;
	}
	PyObject *it = PyObject_GetIter(frames);
	if (!it)
		return NULL;
	uint32_t stackbuf[256], *ids = stackbuf;
	size_t n = 0, cap = 256;
	PyObject *item, *ckeep = NULL;
	while ((item = PyIter_Next(it))) {
		PyObject *keep;
		const char *s;
		Py_ssize_t len;
		int r = text_of(item, &keep, &s, &len);
		Py_DECREF(item);
		if (r < 0)
			goto fail;
		int64_t id = fk_profile_intern(p, s, (size_t)len);
		Py_DECREF(keep);
		if (id < 0) {
			raise_fk((int)id, NULL);
			goto fail;
		}
		if (n == cap) {
			uint32_t *nb = malloc(cap * 2 * sizeof(*nb));
			if (!nb) {
				PyErr_NoMemory();
				goto fail;
			}
			memcpy(nb, ids, n * sizeof(*nb));
			if (ids != stackbuf)
				free(ids);
			ids = nb;
			cap *= 2;
		}
		ids[n++] = (uint32_t)id;
	}
	if (PyErr_Occurred())
		goto fail;
	Py_CLEAR(it);
	int64_t r;
	if (fk_profile_flags(p) & FK_PROFILE_SAMPLES) {
		fk_sample_info info;
		if (fill_info(&info, time, pid, tid, cpu, comm, &ckeep) < 0)
			goto fail;
		r = fk_profile_add_sample(p, ids, n, (unsigned)col, count, &info);
	} else {
		r = fk_profile_add_stack(p, ids, n, (unsigned)col, count);
	}
	Py_CLEAR(ckeep);
	if (ids != stackbuf)
		free(ids);
	if (r < 0)
		return raise_fk((int)r, NULL);
	Py_RETURN_NONE;
fail:
	Py_XDECREF(it);
	Py_XDECREF(ckeep);
	if (ids != stackbuf)
		free(ids);
	return NULL;
}

static PyObject *prof_add_folded(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "stack", "count", "column", NULL };
	PyObject *stack, *keep;
	double count = 1;
	int col = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|di:add_folded", kws, &stack, &count, &col))
		return NULL;
	if (col != 0 && col != 1) {
		PyErr_SetString(PyExc_ValueError, "column must be 0 or 1");
		return NULL;
	}
	const char *s;
	Py_ssize_t len;
	if (text_of(stack, &keep, &s, &len) < 0)
		return NULL;
	int64_t r = fk_profile_add_folded(((ProfileObject *)self)->p, s, (size_t)len, (unsigned)col, count);
	Py_DECREF(keep);
	if (r < 0)
		return raise_fk((int)r, NULL);
	Py_RETURN_NONE;
}

static PyObject *prof_merge(PyObject *self, PyObject *other)
{
	fk_profile *src = prof_of(other);
	if (!src)
		return NULL;
	int r = fk_profile_merge(((ProfileObject *)self)->p, src);
	if (r < 0)
		return raise_fk(r, NULL);
	Py_RETURN_NONE;
}

static PyObject *prof_parse(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "path", "format", NULL };
	PyObject *path, *b = NULL;
	const char *format = NULL;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|z:parse", kws, &path, &format))
		return NULL;
	if (!PyUnicode_FSConverter(path, &b))
		return NULL;
	fk_parse_opts o;
	fk_parse_opts_init(&o);
	o.format = format;
	fk_parse_stats st;
	memset(&st, 0, sizeof(st));
	int r = fk_parse_file(((ProfileObject *)self)->p, PyBytes_AsString(b), &o, &st);
	if (r < 0 && r != -FK_E_SKIPPED) {
		raise_fk(r, PyBytes_AsString(b));
		Py_DECREF(b);
		return NULL;
	}
	Py_DECREF(b);
	return Py_BuildValue("{s:K,s:K,s:s}", "samples", (unsigned long long)st.samples,
			     "bad_lines", (unsigned long long)st.bad_lines, "format", st.format);
}

/* ---- output: one writer per format, to a path or to a string */
typedef int (*writer_fn)(PyObject *self, FILE *f, void *ctx);

/* The path being written (write_to_path), for writers that choose by its name. */
static const char *writing_path;

static PyObject *write_to_path(PyObject *self, PyObject *path, writer_fn fn, void *ctx)
{
	out_file o;
	if (out_open(&o, path) < 0)
		return NULL;
	writing_path = o.is_stdout ? NULL : o.path;
	int r = fn(self, o.f, ctx);
	writing_path = NULL;
	if (r < 0) {
		out_close(&o, 0);
		return raise_fk(r, NULL);
	}
	if (out_close(&o, 1) < 0)
		return NULL;
	Py_RETURN_NONE;
}

static PyObject *write_to_str(PyObject *self, writer_fn fn, void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return PyErr_NoMemory();
	int r = fn(self, f, ctx);
	if (fclose(f) != 0 && r == 0)
		r = -FK_E_NOMEM;
	if (r < 0) {
		free(buf);
		return raise_fk(r, NULL);
	}
	PyObject *s = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len, "surrogateescape");
	free(buf);
	return s;
}

static int w_folded(PyObject *self, FILE *f, void *ctx)
{
	return fk_profile_write_folded(((ProfileObject *)self)->p, f);
}

static int w_samples(PyObject *self, FILE *f, void *ctx)
{
	fk_profile *p = ((ProfileObject *)self)->p;
	if (!(fk_profile_flags(p) & FK_PROFILE_SAMPLES))
		return -FK_E_INVAL;
	return fk_profile_write_samples(p, f);
}

/* write_svg("x.html") writes the HTML viewer page (the library's one rule) */
static int w_svg(PyObject *self, FILE *f, void *ctx)
{
	if (!fk_render_svg || !fk_render_for_path)
		return -ENOSYS;
	return fk_render_for_path(((ProfileObject *)self)->p, ctx, writing_path, f);
}

static PyObject *prof_write_folded(PyObject *self, PyObject *path)
{
	return write_to_path(self, path, w_folded, NULL);
}

static PyObject *prof_folded(PyObject *self, PyObject *unused)
{
	return write_to_str(self, w_folded, NULL);
}

static PyObject *prof_write_samples(PyObject *self, PyObject *path)
{
	return write_to_path(self, path, w_samples, NULL);
}

static PyObject *prof_samples_text(PyObject *self, PyObject *unused)
{
	return write_to_str(self, w_samples, NULL);
}

/* SVG keyword options, named as flamegraph.pl's (and `flamekit svg`'s) options. */
enum { OPT_STR, OPT_INT, OPT_DBL, OPT_BOOL, OPT_U64, OPT_SORT, OPT_TRUNC, OPT_MINW };
static const struct svgopt {
	const char *name;
	int type;
	size_t off;
} svgopts[] = {
	{ "title", OPT_STR, offsetof(fk_svg_opts, title) },
	{ "subtitle", OPT_STR, offsetof(fk_svg_opts, subtitle) },
	{ "width", OPT_INT, offsetof(fk_svg_opts, width) },
	{ "height", OPT_INT, offsetof(fk_svg_opts, frameheight) },
	{ "minwidth", OPT_MINW, offsetof(fk_svg_opts, minwidth) },
	{ "fonttype", OPT_STR, offsetof(fk_svg_opts, fonttype) },
	{ "fontsize", OPT_DBL, offsetof(fk_svg_opts, fontsize) },
	{ "fontwidth", OPT_DBL, offsetof(fk_svg_opts, fontwidth) },
	{ "countname", OPT_STR, offsetof(fk_svg_opts, countname) },
	{ "nametype", OPT_STR, offsetof(fk_svg_opts, nametype) },
	{ "colors", OPT_STR, offsetof(fk_svg_opts, colors) },
	{ "bgcolors", OPT_STR, offsetof(fk_svg_opts, bgcolors) },
	{ "hash", OPT_BOOL, offsetof(fk_svg_opts, hash) },
	{ "random", OPT_BOOL, offsetof(fk_svg_opts, random) },
	{ "seed", OPT_U64, offsetof(fk_svg_opts, seed) },
	{ "cp_file", OPT_STR, offsetof(fk_svg_opts, cp_file) },
	{ "reverse", OPT_BOOL, offsetof(fk_svg_opts, reverse) },
	{ "inverted", OPT_BOOL, offsetof(fk_svg_opts, inverted) },
	{ "flamechart", OPT_BOOL, offsetof(fk_svg_opts, flamechart) },
	{ "negate", OPT_BOOL, offsetof(fk_svg_opts, negate) },
	{ "notes", OPT_STR, offsetof(fk_svg_opts, notes) },
	{ "factor", OPT_DBL, offsetof(fk_svg_opts, factor) },
	{ "total", OPT_DBL, offsetof(fk_svg_opts, total) },
	{ "sort", OPT_SORT, offsetof(fk_svg_opts, sort) },
	{ "truncate", OPT_TRUNC, offsetof(fk_svg_opts, truncate) },
	{ "focus", OPT_STR, offsetof(fk_svg_opts, focus) },
	{ "range_start", OPT_DBL, offsetof(fk_svg_opts, range_start) },
	{ "range_end", OPT_DBL, offsetof(fk_svg_opts, range_end) },
	{ "max_frames", OPT_U64, offsetof(fk_svg_opts, max_frames) },
};

/* Fill o from keyword arguments; string values stay alive through *keep (a list). */
static int svg_opts_from(fk_svg_opts *o, PyObject *kw, PyObject *keep)
{
	if (!fk_svg_opts_init) {
		PyErr_SetString(PyExc_NotImplementedError, "this libflamekit has no SVG renderer");
		return -1;
	}
	fk_svg_opts_init(o);
	if (!kw)
		return 0;
	PyObject *key, *val;
	Py_ssize_t pos = 0;
	while (PyDict_Next(kw, &pos, &key, &val)) {
		PyObject *kb = PyUnicode_AsEncodedString(key, "utf-8", "strict");
		if (!kb)
			return -1;
		const char *k = PyBytes_AsString(kb);
		const struct svgopt *so = NULL;
		for (size_t i = 0; i < sizeof(svgopts) / sizeof(svgopts[0]); i++)
			if (!strcmp(svgopts[i].name, k))
				so = &svgopts[i];
		if (!so) {
			PyErr_Format(PyExc_TypeError, "unknown SVG option '%s'", k);
			Py_DECREF(kb);
			return -1;
		}
		Py_DECREF(kb);
		char *field = (char *)o + so->off;
		if (val == Py_None && so->type == OPT_STR) {
			*(const char **)field = NULL;
			continue;
		}
		switch (so->type) {
		case OPT_STR: case OPT_SORT: case OPT_TRUNC: {
			PyObject *b;
			const char *s;
			Py_ssize_t len;
			if (text_of(val, &b, &s, &len) < 0)
				return -1;
			int r = PyList_Append(keep, b);
			Py_DECREF(b);
			if (r < 0)
				return -1;
			if (so->type == OPT_STR) {
				*(const char **)field = s;
			} else if (so->type == OPT_SORT) {
				if (strcmp(s, "name") && strcmp(s, "weight"))
					goto bad;
				*(int *)field = !strcmp(s, "name") ? FK_SORT_NAME : FK_SORT_WEIGHT;
			} else {
				if (strcmp(s, "right") && strcmp(s, "left"))
					goto bad;
				*(int *)field = !strcmp(s, "right") ? FK_TRUNC_RIGHT : FK_TRUNC_LEFT;
			}
			break;
		}
		case OPT_INT: {
			long v = PyLong_AsLong(val);
			if (v == -1 && PyErr_Occurred())
				return -1;
			if (v <= 0 || v > 1000000)
				goto bad;
			*(int *)field = (int)v;
			break;
		}
		case OPT_U64: {
			unsigned long long v = PyLong_AsUnsignedLongLong(val);
			if (PyErr_Occurred())
				return -1;
			if (so->off == offsetof(fk_svg_opts, seed))
				*(uint64_t *)field = v;
			else
				*(size_t *)field = (size_t)v;
			break;
		}
		case OPT_DBL: {
			double v = PyFloat_AsDouble(val);
			if (v == -1.0 && PyErr_Occurred())
				return -1;
			*(double *)field = v;
			break;
		}
		case OPT_MINW: {
			/* a number of pixels, or "N%" of the width */
			if (PyUnicode_Check(val)) {
				PyObject *b = PyUnicode_AsEncodedString(val, "utf-8", "strict");
				if (!b)
					return -1;
				const char *s = PyBytes_AsString(b);
				char *end;
				double v = strtod(s, &end);
				int pct = *end == '%';
				if (end == s || (*end && !(pct && end[1] == 0)) || v < 0) {
					Py_DECREF(b);
					goto bad;
				}
				Py_DECREF(b);
				o->minwidth = v;
				o->minwidth_pct = pct;
			} else {
				double v = PyFloat_AsDouble(val);
				if (v == -1.0 && PyErr_Occurred())
					return -1;
				o->minwidth = v;
				o->minwidth_pct = false;
			}
			break;
		}
		case OPT_BOOL: {
			int v = PyObject_IsTrue(val);
			if (v < 0)
				return -1;
			*(bool *)field = v;
			break;
		}
		}
		continue;
bad:
		PyErr_Format(PyExc_ValueError, "bad value for SVG option '%s'", so->name);
		return -1;
	}
	return 0;
}

static PyObject *prof_write_svg(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *path;
	if (!PyArg_ParseTuple(args, "O:write_svg", &path))
		return NULL;
	PyObject *keep = PyList_New(0);
	if (!keep)
		return NULL;
	fk_svg_opts o;
	PyObject *r = NULL;
	if (svg_opts_from(&o, kw, keep) == 0)
		r = write_to_path(self, path, w_svg, &o);
	Py_DECREF(keep);
	return r;
}

static PyObject *prof_svg(PyObject *self, PyObject *args, PyObject *kw)
{
	if (!PyArg_ParseTuple(args, ":svg"))
		return NULL;
	PyObject *keep = PyList_New(0);
	if (!keep)
		return NULL;
	fk_svg_opts o;
	PyObject *r = NULL;
	if (svg_opts_from(&o, kw, keep) == 0)
		r = write_to_str(self, w_svg, &o);
	Py_DECREF(keep);
	return r;
}

static PyObject *prof_get_total(PyObject *self, void *c)
{
	return PyFloat_FromDouble(fk_profile_total(((ProfileObject *)self)->p, 0));
}

static PyObject *prof_get_stacks(PyObject *self, void *c)
{
	return PyLong_FromSize_t(fk_profile_stack_count(((ProfileObject *)self)->p));
}

static PyObject *prof_get_samples(PyObject *self, void *c)
{
	size_t n = 0;
	fk_profile_samples(((ProfileObject *)self)->p, &n);
	return PyLong_FromSize_t(n);
}

static PyObject *prof_get_columns(PyObject *self, void *c)
{
	return PyLong_FromLong((long)fk_profile_columns(((ProfileObject *)self)->p));
}

static PyMethodDef prof_methods[] = {
	{ "add", (PyCFunction)(void (*)(void))prof_add, METH_VARARGS | METH_KEYWORDS,
	  "add(frames, count=1, time=None, pid=-1, tid=-1, cpu=-1, comm=None, column=0)\n"
	  "Add one stack: frames is an iterable of names (str or bytes), root first.\n"
	  "time/pid/tid/cpu/comm are kept per sample when the profile keeps samples." },
	{ "add_folded", (PyCFunction)(void (*)(void))prof_add_folded, METH_VARARGS | METH_KEYWORDS,
	  "add_folded(stack, count=1, column=0): add \"a;b;c\" (split at every ';')." },
	{ "merge", prof_merge, METH_O, "merge(other): add everything of another Profile." },
	{ "parse", (PyCFunction)(void (*)(void))prof_parse, METH_VARARGS | METH_KEYWORDS,
	  "parse(path, format=None): read stacks in any format flamekit reads; returns stats." },
	{ "write_folded", prof_write_folded, METH_O,
	  "write_folded(path): folded stacks, sorted ('-' = stdout). Atomic: path.tmp.PID, renamed." },
	{ "folded", prof_folded, METH_NOARGS, "folded() -> str: folded stacks." },
	{ "write_samples", prof_write_samples, METH_O,
	  "write_samples(path): timestamped samples (# flamekit samples v1); needs Profile(samples=True)." },
	{ "samples_text", prof_samples_text, METH_NOARGS, "samples_text() -> str." },
	{ "write_svg", (PyCFunction)(void (*)(void))prof_write_svg, METH_VARARGS | METH_KEYWORDS,
	  "write_svg(path, **options): interactive SVG flame graph. Options (flamegraph.pl's):\n"
	  "title subtitle width height minwidth (px, or 'N%') fonttype fontsize fontwidth countname\n"
	  "nametype colors bgcolors hash random seed cp_file reverse inverted flamechart negate notes\n"
	  "factor total sort ('name'|'weight') truncate ('right'|'left') focus range_start range_end\n"
	  "max_frames." },
	{ "svg", (PyCFunction)(void (*)(void))prof_svg, METH_VARARGS | METH_KEYWORDS,
	  "svg(**options) -> str: the SVG as a string (same options as write_svg)." },
	{ NULL, NULL, 0, NULL },
};

static PyGetSetDef prof_getset[] = {
	{ "total", prof_get_total, NULL, "sum of counts (column 0)", NULL },
	{ "stacks", prof_get_stacks, NULL, "number of unique stacks", NULL },
	{ "samples", prof_get_samples, NULL, "number of per-sample records kept", NULL },
	{ "columns", prof_get_columns, NULL, "1, or 2 for a differential profile", NULL },
	{ NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot prof_slots[] = {
	{ Py_tp_doc, "Profile(samples=False): stacks and counts, as flamekit's core model.\n"
		     "samples=True keeps one record per add() (time, pid, tid, comm) for\n"
		     "write_samples() and flame charts." },
	{ Py_tp_init, prof_init },
	{ Py_tp_new, PyType_GenericNew },
	{ Py_tp_dealloc, prof_dealloc },
	{ Py_tp_methods, prof_methods },
	{ Py_tp_getset, prof_getset },
	{ 0, NULL },
};

static PyType_Spec prof_spec = {
	"_flamekit.Profile", sizeof(ProfileObject), 0, Py_TPFLAGS_DEFAULT, prof_slots,
};

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
	static char *kws[] = { "pid", "max_depth", NULL };
	int pid;
	unsigned int depth = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "i|I:Sampler", kws, &pid, &depth))
		return -1;
	SamplerObject *so = (SamplerObject *)self;
	fkg_free(so->s);
	so->s = fkg_new(pid, depth);
	if (!so->s) {
		PyErr_SetFromErrno(PyExc_OSError);
		return -1;
	}
	so->pid = pid;
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
		return raise_fk(r, NULL);
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
		return raise_fk(r, NULL);
	Py_RETURN_NONE;
}

static PyObject *samp_distinct(PyObject *self, PyObject *unused)
{
	fkg_sampler *s = samp_of(self);
	if (!s)
		return NULL;
	uint64_t *a;
	size_t n;
	int r = fkg_distinct(s, &a, &n);
	if (r < 0)
		return raise_fk(r, NULL);
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
	if (text_of(name, &keep, &s, &len) < 0)
		return -1;
	int64_t r = fk_profile_intern(p, s, (size_t)len);
	Py_DECREF(keep);
	if (r < 0) {
		raise_fk((int)r, NULL);
		return -1;
	}
	*id = (uint32_t)r;
	return 0;
}

static PyObject *samp_build(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kws[] = { "profile", "names", "threads", NULL };
	fkg_sampler *s = samp_of(self);
	PyObject *prof, *names;
	int threads = 0;
	if (!s || !PyArg_ParseTupleAndKeywords(args, kw, "OO!|p:build", kws, &prof, &PyDict_Type,
					       &names, &threads))
		return NULL;
	fk_profile *p = prof_of(prof);
	if (!p)
		return NULL;
	uint64_t *addrs;
	size_t na;
	int r = fkg_distinct(s, &addrs, &na);
	if (r < 0)
		return raise_fk(r, NULL);
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
		if (t.nids == t.first[slot]) { /* nothing from the caller: module+offset */
			const char *mo = fkg_module_offset(s, addrs[i]);
			int64_t id = fk_profile_intern(p, mo, strlen(mo));
			if (id < 0 || push_id(&t, (uint32_t)id) < 0) {
				raise_fk(id < 0 ? (int)id : -ENOMEM, NULL);
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
				raise_fk((int)id, NULL);
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
			raise_fk((int)e, NULL);
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
		return raise_fk(r, NULL);
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
		return raise_fk(r, NULL);
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
	{ "fired_at", samp_fired_at, METH_NOARGS, "fired_at() -> monotonic time of the last SIGSTOP." },
	{ "hook_sigint", samp_hook_sigint, METH_NOARGS, "hook_sigint(): take SIGINT from gdb while sampling." },
	{ "unhook_sigint", samp_unhook_sigint, METH_NOARGS, "unhook_sigint(): give SIGINT back." },
	{ "sigstate", samp_sigstate, METH_NOARGS, "sigstate() -> 1 if SIGINT is blocked in this thread." },
	{ "interrupted", samp_interrupted, METH_NOARGS, "interrupted() -> 0, or the signal that asked sampling to end (SIGINT, SIGTERM, SIGHUP)." },
	{ "close", samp_close, METH_NOARGS, "close(): free everything (stops the timer, unhooks SIGINT)." },
	{ NULL, NULL, 0, NULL },
};

static PyType_Slot samp_slots[] = {
	{ Py_tp_doc, "Sampler(pid, max_depth=0): fast raw-address unwinder for a ptrace-stopped\n"
		     "process (the calling thread must be its tracer). Used by the gdb flame command." },
	{ Py_tp_init, samp_init },
	{ Py_tp_new, PyType_GenericNew },
	{ Py_tp_dealloc, samp_dealloc },
	{ Py_tp_methods, samp_methods },
	{ 0, NULL },
};

static PyType_Spec samp_spec = {
	"_flamekit.Sampler", sizeof(SamplerObject), 0, Py_TPFLAGS_DEFAULT, samp_slots,
};

/* ------------------------------------------------------------------ module */
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

static PyMethodDef mod_methods[] = {
	{ "mute_stdout", mod_mute_stdout, METH_NOARGS,
	  "mute_stdout() -> fd: point fd 1 at /dev/null; returns the saved descriptor." },
	{ "unmute_stdout", mod_unmute_stdout, METH_O, "unmute_stdout(fd): restore fd 1." },
	{ "now", mod_now, METH_NOARGS, "now() -> CLOCK_MONOTONIC seconds (perf's sample clock)." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef moddef = {
	PyModuleDef_HEAD_INIT, "_flamekit",
	"flamekit core bindings: Profile (stacks -> folded / samples / SVG) and the gdb Sampler.",
	-1, mod_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__flamekit(void)
{
	PyObject *m = PyModule_Create(&moddef);
	if (!m)
		return NULL;
	profile_type = PyType_FromSpec(&prof_spec);
	sampler_type = PyType_FromSpec(&samp_spec);
	if (!profile_type || !sampler_type)
		goto fail;
	Py_INCREF(profile_type);
	Py_INCREF(sampler_type);
	if (PyModule_AddObject(m, "Profile", profile_type) < 0 ||
	    PyModule_AddObject(m, "Sampler", sampler_type) < 0 ||
	    PyModule_AddStringConstant(m, "__version__", FK_VERSION_STRING) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}

/* module.c - the _flamekit Python extension (stable ABI), the general part: a Profile
 * over the core's model (add stacks, folded/samples/SVG output, merge, parse) for perf's
 * Python hooks, gdb and plain Python, and the option tables. The gdb sampler adds its
 * own type from gdb-plugin/py-sampler.c. */
#include "fkpy.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prog/prog.h"
#include "prog/flame-opts.h"

static PyObject *profile_type;

/* The renderer may be missing from a partial build of the core; the module
 * still loads (rules.mk links the whole archive, so a present one is used). */
#pragma weak fk_render_svg
#pragma weak fk_render_for_path
#pragma weak fk_svg_opts_init
#pragma weak fk_svg_opts_check

PyObject *fkpy_raise(int err, const char *what)
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
int fkpy_text(PyObject *o, PyObject **keep, const char **s, Py_ssize_t *len)
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

/* ------------------------------------------------------------------ messages
 * The library's messages and the program layer's are kept, not printed, while a
 * call runs: they become the text of the exception it raises. */
char fkpy_last_msg[512];
#define last_msg fkpy_last_msg /* short name here */

static void keep_msg(enum fk_level level, const char *msg, void *ctx)
{
	if (level == FK_LEVEL_WARN)
		snprintf(last_msg, sizeof(last_msg), "%s", msg);
}

static void keep_prog_msg(const char *msg)
{
	keep_msg(FK_LEVEL_WARN, msg, NULL);
}

/* ------------------------------------------------------------------ atomic file output
 * prog.h's: PATH.tmp.PID renamed into place, FIFOs and devices written in place. */
static int out_open(fkp_out *o, PyObject *pathobj)
{
	PyObject *b = NULL;
	if (!PyUnicode_FSConverter(pathobj, &b))
		return -1;
	const char *p = PyBytes_AsString(b);
	int rc = p ? fkp_out_open(o, p) : -1;
	if (rc && p)
		PyErr_SetFromErrnoWithFilename(PyExc_OSError, p);
	Py_DECREF(b);
	return rc;
}

/* ok: flush and rename into place; otherwise remove the partial file.
 * Returns 0 or -1 with an exception set. */
static int out_close(fkp_out *o, int ok)
{
	int rc = fkp_out_close(o, ok);
	if (rc && ok)
		PyErr_Format(PyExc_OSError, "%s", last_msg);
	return rc;
}

/* ------------------------------------------------------------------ Profile */
typedef struct {
	PyObject_HEAD
	fk_profile *p;
} ProfileObject;

fk_profile *fkpy_profile(PyObject *o)
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
		if (fkpy_text(comm, keep, &info->comm, &len) < 0)
			return -1;
		info->comm_len = (size_t)len;
	}
	return 0;
}

/* A frame name as the folded format can carry it: ';' separates frames and a
 * line ends a stack, so ';' becomes ':' (as stackcollapse-perf.pl tidies it) and
 * CR/LF a space. NULL when the name needs no change (or on no memory: then the
 * name is kept as it is, which only costs the folded output its shape). */
static char *frame_name(const char *s, size_t len)
{
	if (!memchr(s, ';', len) && !memchr(s, '\n', len) && !memchr(s, '\r', len))
		return NULL;
	char *c = malloc(len + 1);
	if (!c)
		return NULL;
	for (size_t i = 0; i < len; i++)
		c[i] = s[i] == ';' ? ':' : s[i] == '\n' || s[i] == '\r' ? ' ' : s[i];
	c[len] = 0;
	return c;
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
		int r = fkpy_text(item, &keep, &s, &len);
		Py_DECREF(item);
		if (r < 0)
			goto fail;
		char *clean = frame_name(s, (size_t)len);
		int64_t id = fk_profile_intern(p, clean ? clean : s, (size_t)len);
		free(clean);
		Py_DECREF(keep);
		if (id < 0) {
			fkpy_raise((int)id, NULL);
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
		return fkpy_raise((int)r, NULL);
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
	if (fkpy_text(stack, &keep, &s, &len) < 0)
		return NULL;
	int64_t r = fk_profile_add_folded(((ProfileObject *)self)->p, s, (size_t)len, (unsigned)col, count);
	Py_DECREF(keep);
	if (r < 0)
		return fkpy_raise((int)r, NULL);
	Py_RETURN_NONE;
}

static PyObject *prof_merge(PyObject *self, PyObject *other)
{
	fk_profile *src = fkpy_profile(other);
	if (!src)
		return NULL;
	int r = fk_profile_merge(((ProfileObject *)self)->p, src);
	if (r < 0)
		return fkpy_raise(r, NULL);
	Py_RETURN_NONE;
}

/* ---- parse: the library's messages of one input, kept while it runs. A failure raises
 * ParseError (a ValueError: the input is wrong) with the one message that says why, and
 * the profile is as it was (the library adds an input whole or not at all); OSError for
 * the file itself, MemoryError. Input skipped in part gives one ParseWarning, which
 * warnings.simplefilter("error", ParseWarning) makes an error (the CLI's exit 3). */
static PyObject *parse_error, *parse_warning;

struct msgs {
	char *text;      /* the messages, one a line */
	size_t len, cap;
	char last[512];  /* the last one */
	bool oom;
};

static void keep_parse_msg(enum fk_level level, const char *msg, void *ctx)
{
	struct msgs *m = ctx;
	if (level != FK_LEVEL_WARN)
		return;
	snprintf(m->last, sizeof(m->last), "%s", msg);
	size_t n = strlen(msg);
	if (m->len + n + 2 > m->cap) {
		size_t cap = (m->cap ? m->cap * 2 : 1024) + n + 2;
		char *t = realloc(m->text, cap);
		if (!t) {
			m->oom = true;
			return;
		}
		m->text = t;
		m->cap = cap;
	}
	memcpy(m->text + m->len, msg, n);
	m->len += n;
	m->text[m->len++] = '\n';
	m->text[m->len] = 0;
}

/* The number after `key` in msg, or None. */
static PyObject *number_after(const char *msg, const char *key)
{
	const char *at = strstr(msg, key);
	if (!at)
		Py_RETURN_NONE;
	char *end;
	unsigned long long v = strtoull(at + strlen(key), &end, 10);
	if (end == at + strlen(key))
		Py_RETURN_NONE;
	return PyLong_FromUnsignedLongLong(v);
}

/* ParseError(msg) with .path, .line ("PATH:LINE: ..."), .offset (the byte binary formats
 * and compressed input name), .code (the flamekit error text). */
static void raise_parse_error(const char *path, const char *msg, int err)
{
	PyObject *e = PyObject_CallFunction(parse_error, "s", msg);
	if (!e)
		return;
	size_t pl = strlen(path);
	PyObject *line = !strncmp(msg, path, pl) && msg[pl] == ':' && msg[pl + 1] >= '0' &&
			 msg[pl + 1] <= '9' ? number_after(msg + pl, ":") : (Py_INCREF(Py_None), Py_None);
	PyObject *off = number_after(msg, " byte ");
	PyObject *p = PyUnicode_DecodeFSDefault(path);
	PyObject *code = PyUnicode_FromString(fk_strerror(err));
	if (line && off && p && code && !PyObject_SetAttrString(e, "path", p) &&
	    !PyObject_SetAttrString(e, "line", line) && !PyObject_SetAttrString(e, "offset", off) &&
	    !PyObject_SetAttrString(e, "code", code))
		PyErr_SetObject(parse_error, e);
	Py_XDECREF(line);
	Py_XDECREF(off);
	Py_XDECREF(p);
	Py_XDECREF(code);
	Py_DECREF(e);
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
	const char *name = PyBytes_AsString(b);
	fk_parse_opts o;
	fk_parse_opts_init(&o);
	o.format = format;
	fk_parse_stats st;
	memset(&st, 0, sizeof(st));
	struct msgs m = { 0 };
	fk_print_fn old = fk_set_print(keep_parse_msg, &m);
	int r = fk_parse_file(((ProfileObject *)self)->p, name, &o, &st);
	fk_set_print(old, NULL);
	PyObject *ret = NULL;
	if (r == -ENOMEM || r == -FK_E_NOMEM || m.oom) {
		PyErr_NoMemory();
	} else if (r < 0 && -r < 4000) {
		/* the file itself: not found, a directory, a read error */
		errno = -r;
		PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
	} else if (r < 0 && r != -FK_E_SKIPPED) {
		raise_parse_error(name, m.last[0] ? m.last : fk_strerror(r), r);
	} else if (m.len && PyErr_WarnFormat(parse_warning, 1, "%s%s",
			    r == -FK_E_SKIPPED ? "some input was malformed and skipped:\n" : "",
			    m.text) < 0) {
		/* the warning was made an error */
	} else {
		ret = Py_BuildValue("{s:K,s:K,s:s}", "samples", (unsigned long long)st.samples,
				    "bad_lines", (unsigned long long)st.bad_lines, "format", st.format);
	}
	free(m.text);
	Py_DECREF(b);
	return ret;
}

/* ---- output: one writer per format, to a path or to a string */
typedef int (*writer_fn)(PyObject *self, FILE *f, void *ctx);

/* The path being written (write_to_path), for writers that choose by its name. */
static const char *writing_path;

static PyObject *write_to_path(PyObject *self, PyObject *path, writer_fn fn, void *ctx)
{
	fkp_out o;
	if (out_open(&o, path) < 0)
		return NULL;
	writing_path = o.path;
	int r = fn(self, o.f, ctx);
	writing_path = NULL;
	if (r < 0) {
		out_close(&o, 0);
		return fkpy_raise(r, NULL);
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
		return fkpy_raise(r, NULL);
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

/* One keyword option into the struct a table describes: the value as text (a
 * number or a bool as Python prints it), checked by the library's setter.
 * TypeError for an unknown key, ValueError naming the key for a bad value. */
int fkpy_set_option(const fk_option *rows, size_t n, void *opts, PyObject *key, PyObject *val,
		    PyObject *keep, const char *what)
{
	PyObject *kb = PyUnicode_AsEncodedString(key, "utf-8", "strict");
	if (!kb)
		return -1;
	int r = PyList_Append(keep, kb);
	Py_DECREF(kb);
	const char *k = r < 0 ? NULL : PyBytes_AsString(kb);
	if (!k)
		return -1;
	const fk_option *row = fk_option_find(rows, n, k, (size_t)-1);
	if (!row) {
		PyErr_Format(PyExc_TypeError, "unknown %s option '%s'", what, k);
		return -1;
	}
	const char *v = NULL;
	if (val == Py_None) {
		if (row->type != FK_OPT_TEXT)
			return 0;          /* the default */
		*(const char **)((char *)opts + row->offset) = NULL;
		return 0;
	}
	if (PyBool_Check(val)) {
		if (val == Py_False && row->type != FK_OPT_FLAG)
			return 0;          /* random=False: the default */
		v = val == Py_True ? (row->type == FK_OPT_FLAG ||
				      (row->flags & FK_OPTF_VALUE_OPTIONAL) ? NULL : "1") : "0";
	} else {
		PyObject *s = PyUnicode_Check(val) || PyBytes_Check(val) ? val : PyObject_Str(val);
		PyObject *b;
		Py_ssize_t len;
		if (!s)
			return -1;
		r = fkpy_text(s, &b, &v, &len);
		if (s != val)
			Py_DECREF(s);
		if (r < 0)
			return -1;
		r = PyList_Append(keep, b);   /* the struct borrows the text */
		Py_DECREF(b);
		if (r < 0)
			return -1;
	}
	char err[512];
	if (fk_option_apply(row, opts, k, v, err, sizeof(err))) {
		PyErr_SetString(PyExc_ValueError, err);
		return -1;
	}
	return 0;
}

/* fk_svg_opts_check with its message as the ValueError. */
int fkpy_check_svg(const fk_svg_opts *o)
{
	last_msg[0] = 0;
	fk_print_fn old = fk_set_print(keep_msg, NULL);
	int r = fk_svg_opts_check(o);
	fk_set_print(old, NULL);
	if (r) {
		PyErr_SetString(PyExc_ValueError, last_msg[0] ? last_msg : fk_strerror(r));
		return -1;
	}
	return 0;
}

/* Fill o from keyword arguments (the rows of fk_svg_options, '_' for '-');
 * string values stay alive through keep (a list). */
static int svg_opts_from(fk_svg_opts *o, PyObject *kw, PyObject *keep)
{
	if (!fk_svg_opts_init) {
		PyErr_SetString(PyExc_NotImplementedError, "this libflamekit has no SVG renderer");
		return -1;
	}
	fk_svg_opts_init(o);
	size_t n;
	const fk_option *rows = fk_svg_options(&n);
	PyObject *key, *val;
	Py_ssize_t pos = 0;
	while (kw && PyDict_Next(kw, &pos, &key, &val))
		if (fkpy_set_option(rows, n, o, key, val, keep, "SVG"))
			return -1;
	return fkpy_check_svg(o);
}

/* The SVG of self with keyword options: to path, to a string (path NULL), or
 * only checked (self NULL). */
static PyObject *svg_call(PyObject *self, PyObject *path, PyObject *kw)
{
	PyObject *keep = PyList_New(0), *r = NULL;
	if (!keep)
		return NULL;
	fk_svg_opts o;
	if (svg_opts_from(&o, kw, keep) == 0) {
		if (!self)
			r = (Py_INCREF(Py_None), Py_None);
		else
			r = path ? write_to_path(self, path, w_svg, &o) : write_to_str(self, w_svg, &o);
	}
	Py_DECREF(keep);
	return r;
}

static PyObject *prof_write_svg(PyObject *self, PyObject *args, PyObject *kw)
{
	PyObject *path;
	if (!PyArg_ParseTuple(args, "O:write_svg", &path))
		return NULL;
	return svg_call(self, path, kw);
}

static PyObject *prof_svg(PyObject *self, PyObject *args, PyObject *kw)
{
	if (!PyArg_ParseTuple(args, ":svg"))
		return NULL;
	return svg_call(self, NULL, kw);
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
	  "Add one stack: frames is an iterable of names (str or bytes), root first; a ';'\n"
	  "in a name becomes ':' and a line break a space, so folded output keeps its shape.\n"
	  "time/pid/tid/cpu/comm are kept per sample when the profile keeps samples." },
	{ "add_folded", (PyCFunction)(void (*)(void))prof_add_folded, METH_VARARGS | METH_KEYWORDS,
	  "add_folded(stack, count=1, column=0): add \"a;b;c\" (split at every ';')." },
	{ "merge", prof_merge, METH_O, "merge(other): add everything of another Profile." },
	{ "parse", (PyCFunction)(void (*)(void))prof_parse, METH_VARARGS | METH_KEYWORDS,
	  "parse(path, format=None): read stacks in any format flamekit reads; returns stats\n"
	  "{samples, bad_lines, format}. Raises ParseError (a ValueError) when the input cannot\n"
	  "be used (nothing of it is added), OSError for the file; warns ParseWarning when\n"
	  "malformed parts were skipped (the rest is added)." },
	{ "write_folded", prof_write_folded, METH_O,
	  "write_folded(path): folded stacks, sorted ('-' = stdout). Atomic: path.tmp.PID, renamed." },
	{ "folded", prof_folded, METH_NOARGS, "folded() -> str: folded stacks." },
	{ "write_samples", prof_write_samples, METH_O,
	  "write_samples(path): timestamped samples (# flamekit samples v1); needs Profile(samples=True)." },
	{ "samples_text", prof_samples_text, METH_NOARGS, "samples_text() -> str." },
	{ "write_svg", (PyCFunction)(void (*)(void))prof_write_svg, METH_VARARGS | METH_KEYWORDS,
	  "write_svg(path, **options): interactive SVG flame graph. The options are those of\n"
	  "flamekit svg (svg_options() lists them), '_' for '-': width=800, minwidth='0.5%',\n"
	  "max_frames='all', range='2-4'. A bad one raises ValueError naming it." },
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

/* ------------------------------------------------------------------ option tables */
static const char *const type_names[] = { "flag", "text", "int", "uint", "u64", "number",
					  "choice", "choice", "custom" };

/* The rows of a table as dicts: what a front end (the gdb command, a script,
 * the docs) needs to offer the same options with the same names. */
PyObject *fkpy_rows(const fk_option *rows, size_t n)
{
	PyObject *list = PyList_New(0);
	for (size_t i = 0; list && i < n; i++) {
		const fk_option *r = &rows[i];
		PyObject *d = Py_BuildValue("{s:s,s:z,s:s,s:z,s:z,s:s,s:d,s:d,s:O,s:O}", "name", r->name,
					    "alias", r->alias, "type", type_names[r->type], "arg", r->arg,
					    "choices", r->choices, "help", r->help, "min", r->min,
					    "max", r->max,
					    "takes_value", r->type == FK_OPT_FLAG ||
					    (r->flags & FK_OPTF_VALUE_OPTIONAL) ? Py_False : Py_True,
					    "flamegraph", r->flags & FK_OPTF_FLAMEGRAPH ? Py_True : Py_False);
		if (!d || PyList_Append(list, d) < 0) {
			Py_XDECREF(d);
			Py_CLEAR(list);
		}
		Py_XDECREF(d);
	}
	return list;
}

/* options(table="svg"): the rows of a table (svg heatmap input gdb) */
static PyObject *mod_options(PyObject *m, PyObject *args)
{
	const char *name = "svg";
	if (!PyArg_ParseTuple(args, "|s:options", &name))
		return NULL;
	size_t n;
	const fk_option *rows = fkp_table(name, &n);
	if (!rows) {
		PyErr_Format(PyExc_ValueError, "no option table '%s' (svg heatmap input gdb)", name);
		return NULL;
	}
	return fkpy_rows(rows, n);
}

/* check_svg(**options): the same checks write_svg makes, without a profile. */
static PyObject *mod_check_svg(PyObject *m, PyObject *args, PyObject *kw)
{
	if (!PyArg_ParseTuple(args, ":check_svg"))
		return NULL;
	return svg_call(NULL, NULL, kw);
}

/* ------------------------------------------------------------------ perf naming
 * The perf paths' frame and root names (fk_perf_tidy_name, fk_perf_root_name)
 * for perf's Python scripting: a hook names frames exactly as the dlfilter does. */

/* "a;b" -> ["a", "b"] (a name the rules made into several frames, root-most first) */
static PyObject *split_frames(const char *s, size_t len)
{
	PyObject *list = PyList_New(0);
	size_t start = 0;
	for (size_t i = 0; list && len && i <= len; i++) {
		if (i < len && s[i] != ';')
			continue;
		PyObject *str = PyUnicode_DecodeUTF8(s + start, (Py_ssize_t)(i - start), "surrogateescape");
		if (!str || PyList_Append(list, str) < 0)
			Py_CLEAR(list);
		Py_XDECREF(str);
		start = i + 1;
	}
	return list;
}

/* perf_frames(sym, dso, kernel=False, jit=False, all=False, full_names=False,
 *             rust_names=False, cxx_names=False) -> [str] */
static PyObject *mod_perf_frames(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "sym", "dso", "kernel", "jit", "all", "full_names", "rust_names",
			       "cxx_names", NULL };
	const char *sym, *dso;
	Py_ssize_t sl, dl;
	int k = 0, j = 0, a = 0, fn = 0, rn = 0, cn = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "z#z#|pppppp:perf_frames", kwl, &sym, &sl, &dso,
					 &dl, &k, &j, &a, &fn, &rn, &cn))
		return NULL;
	if (!sym)
		sym = "[unknown]", sl = 9;
	if (!dso)
		dso = "[unknown]", dl = 9;
	fk_parse_opts o;
	fk_parse_opts_init(&o);
	o.kernel = k, o.jit = j, o.all = a, o.full_names = fn, o.rust_names = rn, o.cxx_names = cn;
	char *out = malloc(fk_perf_tidy_room((size_t)sl, (size_t)dl, &o));
	if (!out)
		return PyErr_NoMemory();
	size_t len = fk_perf_tidy_name(out, sym, (size_t)sl, dso, (size_t)dl, &o);
	PyObject *r = split_frames(out, len);
	free(out);
	return r;
}

/* perf_root(comm, pid=-1, tid=-1, show_pid=False, show_tid=False) -> [str] */
static PyObject *mod_perf_root(PyObject *m, PyObject *args, PyObject *kw)
{
	static char *kwl[] = { "comm", "pid", "tid", "show_pid", "show_tid", NULL };
	const char *comm;
	Py_ssize_t cl;
	int pid = -1, tid = -1, sp = 0, st = 0;
	if (!PyArg_ParseTupleAndKeywords(args, kw, "s#|iipp:perf_root", kwl, &comm, &cl, &pid, &tid,
					 &sp, &st))
		return NULL;
	fk_parse_opts o;
	fk_parse_opts_init(&o);
	o.pid = sp, o.tid = st;
	char *out = malloc((size_t)cl + 32);
	if (!out)
		return PyErr_NoMemory();
	size_t len = fk_perf_root_name(out, comm, (size_t)cl, pid, tid, &o);
	PyObject *r = split_frames(out, len);
	free(out);
	return r;
}

/* ------------------------------------------------------------------ module */
static PyMethodDef mod_methods[] = {
	{ "options", mod_options, METH_VARARGS,
	  "options(table='svg') -> [dict]: the rows of an option table (svg heatmap input gdb):\n"
	  "name, alias, type, arg, choices, help, min, max, takes_value, flamegraph." },
	{ "check_svg", (PyCFunction)(void (*)(void))mod_check_svg, METH_VARARGS | METH_KEYWORDS,
	  "check_svg(**options): raise ValueError/TypeError as write_svg would for these options." },
	{ "perf_frames", (PyCFunction)(void (*)(void))mod_perf_frames, METH_VARARGS | METH_KEYWORDS,
	  "perf_frames(sym, dso, kernel=False, jit=False, all=False, full_names=False,\n"
	  "rust_names=False, cxx_names=False) -> [str]: the frames perf's symbol makes, as the\n"
	  "perf dlfilter and `flamekit collapse` name them (root-most first; [] = skipped)." },
	{ "perf_root", (PyCFunction)(void (*)(void))mod_perf_root, METH_VARARGS | METH_KEYWORDS,
	  "perf_root(comm, pid=-1, tid=-1, show_pid=False, show_tid=False) -> [str]: the root\n"
	  "frame(s) of a perf sample, as the perf paths name them." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef moddef = {
	PyModuleDef_HEAD_INIT, "_flamekit",
	"flamekit core bindings: Profile (stacks -> folded / samples / SVG), the option tables,\n"
	"and (in the gdb plugin's build) the gdb Sampler.",
	-1, mod_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__flamekit(void)
{
	/* the program layer's messages become exception texts, never prints */
	fkp_report = keep_prog_msg;
	PyObject *m = PyModule_Create(&moddef);
	if (!m)
		return NULL;
	profile_type = PyType_FromSpec(&prof_spec);
	if (!profile_type)
		goto fail;
	Py_INCREF(profile_type);
	parse_error = PyErr_NewExceptionWithDoc("_flamekit.ParseError",
		"An input flamekit cannot use (damaged, truncated, not the format asked for): the\n"
		"one message that says why, with .path, .line and .offset (None where the\n"
		"message names no line or byte) and .code. Nothing of the input was added.",
		PyExc_ValueError, NULL);
	parse_warning = PyErr_NewExceptionWithDoc("_flamekit.ParseWarning",
		"Profile.parse() read the input but skipped malformed parts of it (the CLI's\n"
		"exit status 3), or had something to say about it: the library's messages.",
		PyExc_UserWarning, NULL);
	if (!parse_error || !parse_warning)
		goto fail;
	Py_INCREF(parse_error);
	Py_INCREF(parse_warning);
	if (PyModule_AddObject(m, "ParseError", parse_error) < 0 ||
	    PyModule_AddObject(m, "ParseWarning", parse_warning) < 0)
		goto fail;
	if (PyModule_AddObject(m, "Profile", profile_type) < 0 ||
	    PyModule_AddStringConstant(m, "__version__", FK_VERSION_STRING) < 0)
		goto fail;
	if (fkpy_add_gdb && fkpy_add_gdb(m) < 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}

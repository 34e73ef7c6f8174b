/* fkpy.h - what the parts of the _flamekit Python module share: the general binding
 * (common/python/module.c: Profile, option tables) and the gdb sampler's part
 * (gdb-plugin/py-sampler.c), linked into one extension. */
#ifndef FK_FKPY_H
#define FK_FKPY_H

#define Py_LIMITED_API 0x03070000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "flamekit.h"

/* The last message of the library or the program layer during a call: kept (not
 * printed) to become the text of the exception the call raises. */
extern char fkpy_last_msg[512];

/* Raise the Python exception for a flamekit error (OSError for errno values,
 * ValueError for bad arguments, RuntimeError otherwise); returns NULL. */
PyObject *fkpy_raise(int err, const char *what);
/* UTF-8 bytes of a str, or the bytes object itself; new reference in *keep. */
int fkpy_text(PyObject *o, PyObject **keep, const char **s, Py_ssize_t *len);
/* The fk_profile of a Profile object, or NULL with TypeError. */
fk_profile *fkpy_profile(PyObject *o);
/* One keyword option (key, val) into opts through a table's rows; text kept alive
 * in keep (a list). 0, or -1 with TypeError (unknown) / ValueError (bad value). */
int fkpy_set_option(const fk_option *rows, size_t n, void *opts, PyObject *key, PyObject *val,
		    PyObject *keep, const char *what);
/* fk_svg_opts_check, its message as ValueError. 0 or -1. */
int fkpy_check_svg(const fk_svg_opts *o);
/* The rows of a table as a list of dicts. */
PyObject *fkpy_rows(const fk_option *rows, size_t n);

/* Defined by the gdb plugin's part (Sampler, gdb helpers); absent elsewhere. */
int fkpy_add_gdb(PyObject *m) __attribute__((weak));

#endif

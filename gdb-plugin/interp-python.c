/* interp-python.c - CPython 3.11 for the gdb sampler: from _PyRuntime to each
 * thread's state, its frame chain and each frame's code object, read from the
 * stopped target's memory. The offsets are CPython 3.11's own layout (see
 * docs/python.md); any other version is refused before a frame is read. */
#include "interp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* _PyRuntimeState, PyInterpreterState, PyThreadState, _PyCFrame (3.11) */
#define RT_INTERP_HEAD 40
#define IS_THREADS_HEAD 16
#define TS_NEXT 8
#define TS_CFRAME 56
#define TS_NATIVE_TID 160
#define CF_CURRENT 8
/* _PyInterpreterFrame */
#define FR_CODE 32
#define FR_PREVIOUS 48
#define FR_PREV_INSTR 56
#define FR_IS_ENTRY 68
/* PyCodeObject */
#define CO_FIRSTLINENO 72
#define CO_FILENAME 112
#define CO_QUALNAME 128
#define CO_LINETABLE 136
#define CO_CODE_ADAPTIVE 184
/* PyBytesObject, PyASCIIObject */
#define BYTES_SIZE 16
#define BYTES_DATA 32
#define STR_LENGTH 16
#define STR_STATE 32
#define STR_ASCII_DATA 48
#define STR_COMPACT_DATA 72

#define MAX_THREADS 4096

struct py {
	uint64_t runtime;
	bool lines;
	struct pth { pid_t tid; uint64_t frame; } *th;
	size_t nth;
};

static bool rd64(fkg_sampler *s, uint64_t a, uint64_t *v)
{
	return a && fkg_read(s, a, v, 8);
}

static void *py_open(fkg_sampler *s, bool lines, char *msg, size_t len)
{
	uint64_t rt, ver_at, size;
	pid_t pid = fkg_pid(s);
	if (fkg_symbol(s, "_PyRuntime", &rt, &size) < 0) {
		snprintf(msg, len, "python: process %d has no _PyRuntime symbol: not CPython, or a "
			 "stripped interpreter", (int)pid);
		return NULL;
	}
	uint32_t hex = 0;
	if (fkg_symbol(s, "Py_Version", &ver_at, &size) < 0 || !fkg_read(s, ver_at, &hex, 4)) {
		snprintf(msg, len, "python: process %d: interpreter version unknown (no Py_Version: "
			 "CPython before 3.11?); flamekit reads CPython 3.11 frames only", (int)pid);
		return NULL;
	}
	unsigned major = hex >> 24, minor = (hex >> 16) & 0xff, micro = (hex >> 8) & 0xff;
	if (major != 3 || minor != 11) {
		snprintf(msg, len, "python: process %d runs CPython %u.%u.%u, which is not supported: "
			 "flamekit reads CPython 3.11 frames only (for 3.12 and later, run python -X perf "
			 "and use perf with --jit; see docs/python.md)", (int)pid, major, minor, micro);
		return NULL;
	}
	struct py *p = calloc(1, sizeof(*p));
	if (p)
		p->th = calloc(MAX_THREADS, sizeof(*p->th));
	if (!p || !p->th) {
		free(p);
		snprintf(msg, len, "out of memory");
		return NULL;
	}
	p->runtime = rt;
	p->lines = lines;
	return p;
}

static void py_close(void *st)
{
	struct py *p = st;
	free(p->th);
	free(p);
}

/* every thread state of the main interpreter: tid -> current frame */
static int py_stop(void *st, fkg_sampler *s)
{
	struct py *p = st;
	uint64_t interp, ts;
	p->nth = 0;
	if (!rd64(s, p->runtime + RT_INTERP_HEAD, &interp) || !rd64(s, interp + IS_THREADS_HEAD, &ts))
		return 0;
	while (ts && p->nth < MAX_THREADS) {
		uint64_t tid, cframe, frame = 0;
		if (!rd64(s, ts + TS_NATIVE_TID, &tid))
			break;
		if (rd64(s, ts + TS_CFRAME, &cframe))
			rd64(s, cframe + CF_CURRENT, &frame);
		p->th[p->nth++] = (struct pth){ .tid = (pid_t)tid, .frame = frame };
		if (!rd64(s, ts + TS_NEXT, &ts))
			break;
	}
	return 0;
}

/* 3.11's location table (Objects/locations.md): entries of one first byte
 * (bit 7 set, code in bits 3-6, length-1 in code units in bits 0-2) and a code-
 * dependent tail; varints in 6-bit groups, bit 6 = more. */
static unsigned lt_varint(const uint8_t *t, size_t n, size_t *i)
{
	unsigned v = 0, shift = 0;
	while (*i < n) {
		uint8_t b = t[(*i)++];
		v |= (unsigned)(b & 63) << shift;
		shift += 6;
		if (!(b & 64) || shift > 28)
			break;
	}
	return v;
}

static int lt_svarint(const uint8_t *t, size_t n, size_t *i)
{
	unsigned v = lt_varint(t, n, i);
	return v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
}

static int line_of(const uint8_t *t, size_t n, int first, int64_t offset)
{
	int line = first;
	int64_t addr = 0;
	size_t i = 0;
	while (i < n) {
		uint8_t b = t[i++];
		if (!(b & 128))
			break; /* out of step: keep what we have */
		int code = (b >> 3) & 15, len = (b & 7) + 1, delta = 0;
		bool none = false;
		if (code == 15) {
			none = true;
		} else if (code == 14) {
			delta = lt_svarint(t, n, &i);
			lt_varint(t, n, &i);
			lt_varint(t, n, &i);
			lt_varint(t, n, &i);
		} else if (code == 13) {
			delta = lt_svarint(t, n, &i);
		} else if (code >= 10) {
			delta = code - 10;
			i += 2;
		} else {
			i += 1;
		}
		line += delta;
		if (offset >= addr && offset < addr + len)
			return none ? first : line;
		addr += len;
	}
	return line;
}

static size_t py_walk(void *st, fkg_sampler *s, pid_t tid, fkg_vframe *out, size_t max)
{
	struct py *p = st;
	uint64_t fr = 0;
	for (size_t i = 0; i < p->nth; i++)
		if (p->th[i].tid == tid) {
			fr = p->th[i].frame;
			break;
		}
	size_t n = 0;
	while (fr && n < max) {
		uint64_t code, prev, instr = 0;
		uint8_t entry = 0;
		if (!rd64(s, fr + FR_CODE, &code) || !code || !rd64(s, fr + FR_PREVIOUS, &prev) ||
		    !fkg_read(s, fr + FR_IS_ENTRY, &entry, 1))
			break;
		fkg_vframe *f = &out[n++];
		f->key = code;
		f->entry = entry != 0;
		f->line = 0;
		if (p->lines && rd64(s, fr + FR_PREV_INSTR, &instr)) {
			int32_t first = 0;
			uint64_t lt, ltn = 0;
			fkg_read(s, code + CO_FIRSTLINENO, &first, 4);
			f->line = first > 0 ? first : 1;
			if (rd64(s, code + CO_LINETABLE, &lt) && rd64(s, lt + BYTES_SIZE, &ltn) && ltn &&
			    ltn < 65536) {
				uint8_t *t = malloc(ltn);
				int64_t off = ((int64_t)instr - (int64_t)(code + CO_CODE_ADAPTIVE)) / 2;
				if (t && fkg_read(s, lt + BYTES_DATA, t, ltn))
					f->line = line_of(t, ltn, first, off < 0 ? 0 : off);
				free(t);
			}
		}
		fr = prev;
	}
	return n;
}

/* a str object as UTF-8 ("?" if unreadable) */
static void read_str(fkg_sampler *s, uint64_t obj, char *buf, size_t len)
{
	uint64_t n = 0;
	uint32_t state = 0;
	snprintf(buf, len, "?");
	if (!obj || !rd64(s, obj + STR_LENGTH, &n) || !fkg_read(s, obj + STR_STATE, &state, 4))
		return;
	if (!(state & 32))
		return; /* not compact: code objects' names always are */
	unsigned kind = (state >> 2) & 7;
	bool ascii = state & 64;
	uint64_t data = obj + (ascii ? STR_ASCII_DATA : STR_COMPACT_DATA);
	size_t k = 0;
	for (uint64_t i = 0; i < n && k + 5 < len; i++) {
		uint32_t c = 0;
		if (kind == 1 || ascii) {
			uint8_t b;
			if (!fkg_read(s, data + i, &b, 1))
				break;
			c = b;
		} else if (kind == 2) {
			uint16_t w;
			if (!fkg_read(s, data + 2 * i, &w, 2))
				break;
			c = w;
		} else if (kind == 4) {
			if (!fkg_read(s, data + 4 * i, &c, 4))
				break;
		} else {
			break;
		}
		if (c < 0x80) {
			buf[k++] = (char)(c ? c : '?');
		} else if (c < 0x800) {
			buf[k++] = (char)(0xc0 | c >> 6);
			buf[k++] = (char)(0x80 | (c & 63));
		} else if (c < 0x10000) {
			if (c >= 0xd800 && c < 0xe000)
				c = 0xfffd;
			buf[k++] = (char)(0xe0 | c >> 12);
			buf[k++] = (char)(0x80 | ((c >> 6) & 63));
			buf[k++] = (char)(0x80 | (c & 63));
		} else {
			buf[k++] = (char)(0xf0 | c >> 18);
			buf[k++] = (char)(0x80 | ((c >> 12) & 63));
			buf[k++] = (char)(0x80 | ((c >> 6) & 63));
			buf[k++] = (char)(0x80 | (c & 63));
		}
	}
	if (k)
		buf[k] = 0;
}

/* "qualname (file.py)", "qualname (file.py:LINE)" with lines */
static void py_name(void *st, fkg_sampler *s, const fkg_vframe *f, char *buf, size_t len)
{
	char qual[256], file[512];
	uint64_t q = 0, fn = 0;
	rd64(s, f->key + CO_QUALNAME, &q);
	rd64(s, f->key + CO_FILENAME, &fn);
	read_str(s, q, qual, sizeof(qual));
	read_str(s, fn, file, sizeof(file));
	/* ';' separates frames in folded stacks */
	for (char *c = qual; *c; c++)
		if (*c == ';' || *c == '\n')
			*c = ':';
	for (char *c = file; *c; c++)
		if (*c == ';' || *c == '\n')
			*c = ':';
	if (f->line)
		snprintf(buf, len, "%s (%s:%d)", qual, file, (int)f->line);
	else
		snprintf(buf, len, "%s (%s)", qual, file);
}

static const char *const py_wait[] = { "PyEval_RestoreThread", "PyEval_AcquireThread",
					"PyGILState_Ensure", NULL };
static const char *const py_lock[] = { "pthread_cond_timedwait", "pthread_cond_wait",
					"pthread_cond_clockwait", "pthread_mutex_lock", NULL };

const fkg_interp fkg_interp_python = {
	.name = "python",
	.eval_symbol = "_PyEval_EvalFrameDefault",
	.wait_symbols = py_wait,
	.lock_symbols = py_lock,
	.wait_frame = "[waiting for GIL]",
	.open = py_open,
	.stop = py_stop,
	.walk = py_walk,
	.frame_name = py_name,
	.close = py_close,
};

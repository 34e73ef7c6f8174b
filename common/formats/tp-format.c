/* tp-format.c - a tracepoint's format (tracefs events/SYS/NAME/format): its fields
 * (offset, size, sign) and where its print format puts each, so an event field can
 * weigh a sample read from raw data (the perf dlfilter) or from perf script text. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "internal.h"

#define TPF_MAX 64

struct tpf_field {
	char name[64];
	int32_t offset, size;
	bool is_signed;
	int arg;              /* index among the print format's arguments; -1 = not printed alone */
};

struct fk_tp_format {
	char event[128];
	int32_t id;
	struct tpf_field f[TPF_MAX];
	size_t n;             /* fields, common_* first */
	char *fmt;            /* the print format's string (unescaped), NULL = none */
	size_t nconv;         /* its conversions */
};

static const char *const tracefs_roots[] = { "/sys/kernel/tracing/events",
					     "/sys/kernel/debug/tracing/events" };

/* tracefs files say size 0: read to EOF */
static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap + 1);
	while (buf) {
		if (n == cap) {
			char *nb = cap > (16u << 20) ? NULL : realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				errno = ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0) {
				free(buf);
				buf = NULL;
			} else {
				buf[n] = 0;
				*len = n;
			}
			break;
		}
		n += (size_t)r;
	}
	int e = errno;
	close(fd);
	errno = e;
	return buf;
}

static const char *num_after(const char *s, const char *end, const char *key, long *v)
{
	const char *p = memmem(s, (size_t)(end - s), key, strlen(key));
	if (!p)
		return NULL;
	char *e;
	*v = strtol(p + strlen(key), &e, 10);
	return e;
}

/* "field:unsigned long foo[4];\toffset:8;\tsize:8;\tsigned:0;" */
static int field_line(fk_tp_format *t, const char *l, const char *end)
{
	const char *semi = memchr(l, ';', (size_t)(end - l));
	if (!semi || t->n >= TPF_MAX)
		return 0;
	const char *ne = semi;
	const char *br = memchr(l, '[', (size_t)(semi - l));
	if (br)
		ne = br;
	while (ne > l && ne[-1] == ' ')
		ne--;
	const char *nb = ne;
	while (nb > l && (nb[-1] == '_' || (nb[-1] >= '0' && nb[-1] <= '9') ||
			  ((nb[-1] | 32) >= 'a' && (nb[-1] | 32) <= 'z')))
		nb--;
	long off, size, sg = 0;
	if (ne == nb || (size_t)(ne - nb) >= sizeof(t->f[0].name) || !num_after(semi, end, "offset:", &off) ||
	    !num_after(semi, end, "size:", &size))
		return -1;
	num_after(semi, end, "signed:", &sg);
	struct tpf_field *f = &t->f[t->n++];
	memcpy(f->name, nb, (size_t)(ne - nb));
	f->name[ne - nb] = 0;
	f->offset = (int32_t)off;
	f->size = br ? 0 : (int32_t)size;   /* arrays are not numbers */
	f->is_signed = sg != 0;
	f->arg = -1;
	return 0;
}

/* print fmt: "FORMAT", ARG, ARG...: the format's conversions in order, and for each
 * argument that is exactly REC->field (maybe cast), that field's position. */
static void print_line(fk_tp_format *t, const char *l, const char *end)
{
	const char *q = memchr(l, '"', (size_t)(end - l));
	if (!q)
		return;
	const char *p = q + 1;
	char *fmt = malloc((size_t)(end - p) + 1);
	if (!fmt)
		return;
	size_t n = 0;
	for (; p < end && *p != '"'; p++) {
		if (*p == '\\' && p + 1 < end) {
			p++;
			fmt[n++] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
		} else {
			fmt[n++] = *p;
		}
	}
	fmt[n] = 0;
	t->fmt = fmt;
	for (size_t i = 0; i < n; i++) {
		if (fmt[i] != '%')
			continue;
		if (fmt[i + 1] == '%') {
			i++;
			continue;
		}
		t->nconv++;
	}
	/* the arguments, split at top-level commas */
	int arg = 0, depth = 0;
	const char *a = p < end ? p + 1 : end;
	for (const char *c = a; c <= end; c++) {
		if (c < end && (*c == '(' || *c == '{' || *c == '['))
			depth++;
		else if (c < end && (*c == ')' || *c == '}' || *c == ']'))
			depth--;
		else if (c < end && *c == '"') {
			for (c++; c < end && *c != '"'; c++)
				if (*c == '\\')
					c++;
		}
		if (c < end && !(*c == ',' && depth == 0))
			continue;
		if (c > a) {
			/* last "REC->name" of the argument, with nothing after it but ')' */
			const char *r = NULL;
			for (const char *s = a; s + 5 <= c; s++)
				if (!memcmp(s, "REC->", 5))
					r = s + 5;
			if (r) {
				const char *e = r;
				while (e < c && (*e == '_' || (*e >= '0' && *e <= '9') ||
						 ((*e | 32) >= 'a' && (*e | 32) <= 'z')))
					e++;
				const char *z = e;
				while (z < c && (*z == ')' || *z == ' '))
					z++;
				if (z == c) {
					for (size_t k = 0; k < t->n; k++)
						if (strlen(t->f[k].name) == (size_t)(e - r) &&
						    !memcmp(t->f[k].name, r, (size_t)(e - r)) && t->f[k].arg < 0)
							t->f[k].arg = arg;
				}
			}
			arg++;
		}
		a = c + 1;
	}
}

fk_tp_format *fk_tp_format_parse(const char *text, size_t len, const char *event)
{
	fk_tp_format *t = calloc(1, sizeof(*t));
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(t->event, sizeof(t->event), "%s", event ? event : "");
	t->id = -1;
	const char *p = text, *end = text + len;
	bool any = false;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *l = p;
		while (l < le && (*l == ' ' || *l == '\t'))
			l++;
		long v;
		if (!strncmp(l, "ID:", 3) && num_after(l, le, "ID:", &v)) {
			t->id = (int32_t)v;
		} else if ((size_t)(le - l) > 6 && !memcmp(l, "field:", 6)) {
			if (field_line(t, l + 6, le) < 0)
				break;
			any = true;
		} else if ((size_t)(le - l) > 10 && !memcmp(l, "print fmt:", 10)) {
			print_line(t, l + 10, le);
		}
		p = nl ? nl + 1 : end;
	}
	if (!any) {
		fk_tp_format_free(t);
		errno = EINVAL;
		return NULL;
	}
	return t;
}

char *fk_tp_format_read(const char *event, const char *path, size_t *len, char *err, size_t errlen)
{
	char buf[512];
	char *text = NULL;
	const char *colon = event ? strchr(event, ':') : NULL;
	*len = 0;
	if (path) {
		if (!(text = slurp(path, len)))
			snprintf(err, errlen, "cannot read event format %s: %s", path, strerror(errno));
		return text;
	}
	if (!colon || colon == event || !colon[1] || strchr(colon + 1, ':') || strchr(event, '/')) {
		snprintf(err, errlen, "event %s is not a tracepoint or probe (SYSTEM:NAME): "
			 "only those have fields", event ? event : "(none)");
		errno = EINVAL;
		return NULL;
	}
	for (size_t i = 0; i < sizeof(tracefs_roots) / sizeof(tracefs_roots[0]) && !text; i++) {
		snprintf(buf, sizeof(buf), "%s/%.*s/%s/format", tracefs_roots[i],
			 (int)(colon - event), event, colon + 1);
		text = slurp(buf, len);
	}
	if (!text) {
		int e = errno;
		snprintf(buf, sizeof(buf), "%s/%.*s/%s/format", tracefs_roots[0],
			 (int)(colon - event), event, colon + 1);
		snprintf(err, errlen, "cannot read the format of %s (%s: %s): no such event "
			 "on this kernel, or tracefs is not mounted", event, buf, strerror(e));
		errno = e;
	}
	return text;
}

fk_tp_format *fk_tp_format_load(const char *event, const char *path, char *err, size_t errlen)
{
	size_t len = 0;
	char *text = fk_tp_format_read(event, path, &len, err, errlen);
	if (!text)
		return NULL;
	fk_tp_format *t = fk_tp_format_parse(text, len, event);
	free(text);
	if (!t)
		snprintf(err, errlen, "%s: not an event format (no field lines)", path ? path : event);
	return t;
}

void fk_tp_format_free(fk_tp_format *t)
{
	if (!t)
		return;
	free(t->fmt);
	free(t);
}

int32_t fk_tp_format_id(const fk_tp_format *t)
{
	return t->id;
}

int fk_tp_format_field(const fk_tp_format *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->f[i].name, name))
			return t->f[i].size > 0 && t->f[i].size <= 8 ? (int)i : -FK_E_INVAL;
	return -ENOENT;
}

size_t fk_tp_format_fields(const fk_tp_format *t, char *out, size_t size)
{
	size_t n = 0;
	if (size)
		out[0] = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (!strncmp(t->f[i].name, "common_", 7) || t->f[i].size <= 0 || t->f[i].size > 8)
			continue;
		int k = snprintf(out + n, n < size ? size - n : 0, "%s%s", n ? ", " : "", t->f[i].name);
		if (k > 0)
			n += (size_t)k;
	}
	return n;
}

int fk_tp_format_raw(const fk_tp_format *t, int field, const void *raw, size_t size, int64_t *v)
{
	if (field < 0 || (size_t)field >= t->n)
		return -FK_E_INVAL;
	const struct tpf_field *f = &t->f[field];
	if (f->offset < 0 || (size_t)f->offset + (size_t)f->size > size)
		return -FK_E_FORMAT;
	const unsigned char *b = (const unsigned char *)raw + f->offset;
	uint64_t u = 0;
	switch (f->size) {
	case 1: u = b[0]; if (f->is_signed) u = (uint64_t)(int64_t)(int8_t)b[0]; break;
	case 2: { uint16_t x; memcpy(&x, b, 2); u = f->is_signed ? (uint64_t)(int64_t)(int16_t)x : x; break; }
	case 4: { uint32_t x; memcpy(&x, b, 4); u = f->is_signed ? (uint64_t)(int64_t)(int32_t)x : x; break; }
	case 8: memcpy(&u, b, 8); break;
	default: return -FK_E_FORMAT;
	}
	/* unsigned 64-bit values past INT64_MAX do not occur as sizes: read them as negative */
	*v = (int64_t)u;
	return 0;
}

static bool wordc(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z');
}

static int number(const char *s, const char *end, int base, int64_t *v)
{
	bool neg = s < end && *s == '-';
	if (neg)
		s++;
	if (end - s > 2 && s[0] == '0' && (s[1] | 32) == 'x')
		s += 2, base = 16;
	uint64_t u = 0;
	const char *d = s;
	for (; s < end; s++) {
		int x = *s >= '0' && *s <= '9' ? *s - '0' : base == 16 && (*s | 32) >= 'a' && (*s | 32) <= 'f' ? (*s | 32) - 'a' + 10 : -1;
		if (x < 0)
			break;
		u = u * (unsigned)base + (unsigned)x;
	}
	if (s == d)
		return -FK_E_FORMAT;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

int fk_tp_format_text(const fk_tp_format *t, int field, const char *text, size_t len, int64_t *v)
{
	if (field < 0 || (size_t)field >= t->n)
		return -FK_E_INVAL;
	const struct tpf_field *f = &t->f[field];
	const char *end = text + len;
	size_t nl = strlen(f->name);
	/* "name=value" (most print formats) */
	for (const char *p = text; p + nl < end; p++) {
		if (p[nl] == '=' && !memcmp(p, f->name, nl) && (p == text || !wordc(p[-1])))
			return number(p + nl + 1, end, 10, v);
	}
	/* else by position: walk the print format, literal text matching, each
	 * conversion taking the printed text up to the next literal character */
	if (!t->fmt || f->arg < 0)
		return -ENOENT;
	const char *fm = t->fmt, *p = text;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	int arg = 0;
	while (*fm && p <= end) {
		if (*fm != '%' || fm[1] == '%') {
			if (*fm == '%')
				fm++;
			if (p < end && *p == *fm)
				p++;
			else if (!(*fm == ' ' && p == end))
				return -ENOENT;
			fm++;
			continue;
		}
		fm++;
		while (*fm && strchr("-+ #0123456789.*lhzjtLq", *fm))
			fm++;
		if (*fm == 'p')   /* %pS, %pU ... */
			while (fm[1] && wordc(fm[1]) && fm[1] != ' ')
				fm++;
		/* %x prints hex without "0x" (the format's literal text has it) */
		int base = *fm == 'x' || *fm == 'X' || *fm == 'p' ? 16 : 10;
		if (*fm)
			fm++;
		char stop = *fm;
		const char *s = p;
		while (p < end && (!stop || *p != stop))
			p++;
		if (arg == f->arg)
			return number(s, p, base, v);
		arg++;
	}
	return -ENOENT;
}

int fk_weight_kind(const char *event, const char *field, char *unit, size_t usize)
{
	static const char *const bytes[] = { "bytes", "bytes_alloc", "bytes_req", "nr_bytes", "len",
					     "size", "count", NULL };
	bool isbytes = false;
	for (size_t i = 0; bytes[i] && !isbytes; i++)
		isbytes = !strcmp(field, bytes[i]);
	bool io = event && (!strncmp(event, "block:", 6) || !strncmp(event, "syscalls:sys_exit_read", 22) ||
			    !strncmp(event, "syscalls:sys_exit_write", 23) ||
			    !strncmp(event, "syscalls:sys_exit_pread", 23) ||
			    !strncmp(event, "syscalls:sys_exit_pwrite", 24) ||
			    !strncmp(event, "syscalls:sys_exit_recv", 22) ||
			    !strncmp(event, "syscalls:sys_exit_send", 22));
	if (io && !strcmp(field, "ret"))
		isbytes = true;   /* read/write/recv/send return the bytes moved */
	bool mem = event && (!strncmp(event, "kmem:", 5) || strstr(event, "malloc") ||
			     strstr(event, "alloc") || strstr(event, "page_fault") ||
			     strstr(event, "page-faults") || strstr(event, "faults"));
	snprintf(unit, usize, "%s", isbytes ? "bytes" : field);
	return mem ? FK_KIND_MEM : io ? FK_KIND_IO : FK_KIND_CPU;
}

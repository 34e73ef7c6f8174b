/* prog.c - program helpers: messages, atomic output (temp file + rename, FIFOs
 * and devices in place), files beside the executable, growable argv. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "prog.h"

const char *fkp_prog = "flamekit";

static void report_stderr(const char *msg)
{
	fprintf(stderr, "%s: %s\n", fkp_prog, msg);
}

void (*fkp_report)(const char *msg) = report_stderr;

void fkp_err(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fkp_report(buf);
}

/* ------------------------------------------------------------------ atomic output */

bool fkp_out_is_regular(const char *path)
{
	struct stat st;
	return stat(path, &st) != 0 || S_ISREG(st.st_mode);
}

int fkp_out_check(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return 0;
	struct stat st;
	int e = 0;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		e = EISDIR;
	} else if (!fkp_out_is_regular(path)) {
		if (access(path, W_OK))
			e = errno;
	} else {
		/* the very file fkp_out_open would create first, made and removed */
		size_t n = strlen(path) + 32;
		char *tmp = malloc(n);
		if (!tmp) {
			fkp_err("out of memory");
			return -1;
		}
		snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		} else if (errno != EEXIST) {
			e = errno;
		}
		free(tmp);
	}
	if (e) {
		fkp_err("cannot write %s: %s", path, strerror(e));
		return -1;
	}
	return 0;
}

int fkp_out_open(fkp_out *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->path = strdup(path);
	if (!o->path)
		goto oom;
	if (!fkp_out_is_regular(path)) {
		o->f = fopen(path, "w");
	} else {
		size_t n = strlen(path) + 32;
		if (!(o->tmp = malloc(n)))
			goto oom;
		snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
		o->f = fopen(o->tmp, "w");
	}
	if (!o->f) {
		fkp_err("cannot write %s: %s", path, strerror(errno));
		free(o->path);
		free(o->tmp);
		memset(o, 0, sizeof(*o));
		return -1;
	}
	return 0;
oom:
	fkp_err("out of memory");
	free(o->path);
	memset(o, 0, sizeof(*o));
	return -1;
}

/* tmp, complete, in path's place. Over an existing file ext4 (auto_da_alloc) has rename()
 * write the new file's blocks out at once (6 ms of a 90 ms `flamekit svg` making a 7.5 MB
 * SVG, each time an output is drawn again); exchanging the names, atomic too, and
 * removing the old file under the temporary name does not. */
static int replace_file(const char *tmp, const char *path)
{
#ifdef RENAME_EXCHANGE
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
		unlink(tmp);
		return 0;
	}
#endif
	return rename(tmp, path);
}

int fkp_out_close(fkp_out *o, bool ok)
{
	const char *name = o->path ? o->path : "<stdout>";
	bool failed = false;
	if (!o->f)
		return -1;
	if (fflush(o->f) || ferror(o->f)) {
		if (ok)
			fkp_err("write error on %s: %s", name, strerror(errno ? errno : EIO));
		failed = true;
	}
	if (o->path && fclose(o->f) && ok && !failed) {
		fkp_err("write error on %s: %s", name, strerror(errno));
		failed = true;
	}
	if (o->tmp && ok && !failed && replace_file(o->tmp, o->path)) {
		fkp_err("cannot rename %s to %s: %s", o->tmp, o->path, strerror(errno));
		failed = true;
	}
	if (o->tmp && (!ok || failed))
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	return ok && !failed ? 0 : -1;
}

/* ------------------------------------------------------------------ beside the program */

char *fkp_find_beside_exe(const char *const rel[], size_t n)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len <= 0)
		return NULL;
	exe[len] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX + 256];
		struct stat st;
		if (snprintf(path, sizeof(path), "%s/%s", exe, rel[i]) >= (int)sizeof(path))
			continue;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			char *r = realpath(path, NULL);
			return r ? r : strdup(path);
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------ growable argv */

int fkp_grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 16;
	while (nc < need) {
		if (nc > SIZE_MAX / 2)
			return -1;
		nc *= 2;
	}
	if (nc > SIZE_MAX / elem)
		return -1;
	void *np = realloc(*p, nc * elem);
	if (!np)
		return -1;
	*p = np;
	*cap = nc;
	return 0;
}

static int push_owned(fkp_argv *a, char *s)
{
	if (!s || fkp_grow((void **)&a->v, &a->cap, a->n + 2, sizeof(*a->v))) {
		free(s);
		return -1;
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
	return 0;
}

int fkp_argv_push(fkp_argv *a, const char *s)
{
	return push_owned(a, strdup(s));
}

int fkp_argv_pushf(fkp_argv *a, const char *fmt, ...)
{
	char *s;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return push_owned(a, r < 0 ? NULL : s);
}

bool fkp_argv_has(const fkp_argv *a, const char *s)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->v[i], s))
			return true;
	return false;
}

void fkp_argv_free(fkp_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

void fkp_print_shell_word(FILE *out, const char *w)
{
	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			    "0123456789_-+=./,:@%") == strlen(w)) {
		fputs(w, out);
		return;
	}
	fputc('\'', out);
	for (; *w; w++) {
		if (*w == '\'')
			fputs("'\\''", out);
		else
			fputc(*w, out);
	}
	fputc('\'', out);
}

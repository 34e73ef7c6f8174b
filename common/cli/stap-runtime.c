/* stap-runtime.c - `flamekit stap`'s checks of SystemTap's runtime against the
 * kernel it builds for, and the patched runtime copy kept in the user's cache
 * (docs/stap-tapset.md, "Runtime fixes"). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli.h"
#include "stap-runtime.h"

/* A fix of SystemTap's runtime for some kernels: exact text replaced in one
 * file, each replacement found exactly once. */
struct subst {
	const char *old, *new;
};
struct fix {
	const char *name, *file, *why;
	struct subst subst[2];
};

static const struct fix fixes[] = {
	{ "task_work_cancel_func", "stp_task_work.c",
	  "the kernel has the backported task_work_cancel(task, cb) and task_work_cancel_func(): "
	  "without the fix every module fails to compile (pass 4)",
	  { { "typeof(&task_work_cancel) task_work_cancel_fn",
	      "typeof(&task_work_cancel_func) task_work_cancel_fn" },
	    { "kallsyms_lookup_name(\"task_work_cancel\")",
	      "kallsyms_lookup_name(\"task_work_cancel_func\")" } } },
	{ "user_addr_max", "linux/addr-map.c",
	  "the kernel has no user_addr_max(): without the fix user stacks sampled outside "
	  "task context (timer.profile) stop after one frame",
	  { { "#if defined(user_addr_max)\n"
	      "\t  && ((user_addr_max() - size) < addr)\n"
	      "#endif\n",
	      "#if defined(user_addr_max)\n"
	      "\t  && ((user_addr_max() - size) < addr)\n"
	      "#elif defined(TASK_SIZE_MAX) /* flamekit: user_addr_max() is gone since 5.18 */\n"
	      "\t  && ((TASK_SIZE_MAX - size) < addr)\n"
	      "#endif\n" },
	    { NULL, NULL } } },
	{ "relay_header", "transport/relay_v2.c",
	  "a message that starts in the last bytes of a relay sub-buffer is dropped whole "
	  "(print_flush.c needs room for its header) and the stream garbled: printed "
	  "profiles lose lines (\"transport failures\")",
	  { { "\tif (buf->offset >= buf->chan->subbuf_size) {\n"
	      "\t\tsize_request = __stp_relay_switch_subbuf(buf, size_request);\n",
	      "\t/* flamekit: leave no sliver too small for a message header */\n"
	      "\tif (buf->offset >= buf->chan->subbuf_size\n"
	      "\t    || (buf->offset + size_request > buf->chan->subbuf_size\n"
	      "\t\t&& buf->chan->subbuf_size - buf->offset <= 16)) {\n"
	      "\t\tsize_request = __stp_relay_switch_subbuf(buf, size_request);\n" },
	    { NULL, NULL } } },
};
enum { N_FIXES = sizeof(fixes) / sizeof(fixes[0]) };

/* Whole file, NUL-terminated; NULL if unreadable. */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			char *b = realloc(buf, cap);
			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	bool err = ferror(f);
	fclose(f);
	if (err) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;
	size_t nl = strlen(needle);
	for (const char *p = hay; (p = strstr(p, needle)); p += nl)
		n++;
	return n;
}

static bool file_has(const char *path, const char *text)
{
	char *s = read_file(path, NULL);
	bool has = s && strstr(s, text);
	free(s);
	return has;
}

/* A file of the kernel tree of rel: the source tree first (Debian splits the
 * headers into build and source trees), then the build tree. */
static bool kernel_file_has(const char *rel, const char *file, const char *text)
{
	static const char *const trees[] = { "source", "build" };
	for (size_t i = 0; i < 2; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "/lib/modules/%s/%s/%s", rel, trees[i], file);
		if (file_has(path, text))
			return true;
	}
	return false;
}

static bool have_build_tree(const char *rel)
{
	char path[PATH_MAX];
	struct stat st;
	snprintf(path, sizeof(path), "/lib/modules/%s/build", rel);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Whether kernel rel needs fix i (the runtime is checked separately). */
static bool kernel_needs(const char *rel, int i)
{
	if (i == 2)
		return true; /* the runtime's own bug, on every kernel */
	if (i == 0)
		return kernel_file_has(rel, "include/linux/task_work.h", "task_work_cancel_func(");
	/* user_addr_max() was defined in one of these until it was removed */
	static const char *const where[] = {
		"arch/x86/include/asm/uaccess.h", "arch/arm64/include/asm/uaccess.h",
		"include/asm-generic/uaccess.h", "include/asm-generic/access_ok.h",
		"include/linux/uaccess.h",
	};
	for (size_t k = 0; k < sizeof(where) / sizeof(where[0]); k++)
		if (kernel_file_has(rel, where[k], "define user_addr_max"))
			return false;
	return true;
}

char *stap_target_release(const char *explicit_rel, bool remote, const char **why)
{
	*why = NULL;
	if (explicit_rel)
		return strdup(explicit_rel);
	if (!remote) {
		struct utsname u;
		return uname(&u) ? NULL : strdup(u.release);
	}
	/* stap compiles a remote machine's modules here, against the build tree of
	 * the kernel it runs: with one build tree installed, it is that one */
	DIR *d = opendir("/lib/modules");
	char *found = NULL;
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !have_build_tree(e->d_name))
			continue;
		if (!n++)
			found = strdup(e->d_name);
	}
	if (d)
		closedir(d);
	if (n == 1)
		return found;
	free(found);
	*why = n ? "several kernel build trees are installed" : "no kernel build tree is installed";
	return NULL;
}

/* stap's runtime directory: $SYSTEMTAP_RUNTIME (stap reads it too), else
 * PREFIX/share/systemtap/runtime of the stap program. */
static char *runtime_dir(const char *stap)
{
	const char *env = getenv("SYSTEMTAP_RUNTIME");
	if (env && *env)
		return strdup(env);
	char prog[PATH_MAX] = "";
	if (strchr(stap, '/')) {
		snprintf(prog, sizeof(prog), "%s", stap);
	} else {
		const char *path = getenv("PATH");
		char *copy = strdup(path ? path : "/usr/bin:/bin"), *save = NULL;
		for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir;
		     dir = strtok_r(NULL, ":", &save)) {
			char cand[PATH_MAX];
			snprintf(cand, sizeof(cand), "%s/%s", *dir ? dir : ".", stap);
			if (access(cand, X_OK) == 0) {
				snprintf(prog, sizeof(prog), "%s", cand);
				break;
			}
		}
		free(copy);
	}
	char real[PATH_MAX];
	if (!*prog || !realpath(prog, real))
		return NULL;
	char *slash = strrchr(real, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	char dir[PATH_MAX + 64], rt[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/../share/systemtap/runtime", real);
	struct stat st;
	if (!realpath(dir, rt) || stat(rt, &st) || !S_ISDIR(st.st_mode))
		return NULL;
	return strdup(rt);
}

/* "4.8" from `stap -V` ("Systemtap translator/driver (version 4.8/0.188, ..."). */
static char *stap_version(const char *stap)
{
	int fds[2];
	if (pipe(fds))
		return NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execlp(stap, stap, "-V", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	char buf[512];
	size_t n = 0;
	ssize_t got;
	while (n < sizeof(buf) - 1 && (got = read(fds[0], buf + n, sizeof(buf) - 1 - n)) != 0) {
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	close(fds[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	const char *v = strstr(buf, "(version ");
	if (!v)
		return NULL;
	v += 9;
	size_t len = strcspn(v, "/ ,)\n");
	if (!len || len > 32)
		return NULL;
	/* it names a directory: letters, digits and . - _ + only */
	for (size_t i = 0; i < len; i++)
		if (!strchr("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-_+", v[i]))
			return NULL;
	return strndup(v, len);
}

/* Recursive copy of a directory tree (files, directories, symlinks). */
static const char *copy_src, *copy_dst;
static int copy_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	char dst[PATH_MAX];
	if (snprintf(dst, sizeof(dst), "%s%s", copy_dst, path + strlen(copy_src)) >= (int)sizeof(dst))
		return ENAMETOOLONG;
	if (type == FTW_D)
		return mkdir(dst, 0755) && errno != EEXIST ? errno : 0;
	if (type == FTW_SL) {
		char target[PATH_MAX];
		ssize_t n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			return errno;
		target[n] = '\0';
		return symlink(target, dst) ? errno : 0;
	}
	if (type != FTW_F)
		return EACCES;
	int in = open(path, O_RDONLY), out = -1, err = 0;
	if (in < 0)
		return errno;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL, st->st_mode & 0777);
	if (out < 0) {
		err = errno;
		close(in);
		return err;
	}
	char buf[65536];
	ssize_t n;
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write(out, buf, (size_t)n) != n) {
			err = errno ? errno : EIO;
			break;
		}
	}
	close(in);
	if (close(out) && !err)
		err = errno;
	return err;
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

static void remove_tree(const char *dir)
{
	nftw(dir, remove_one, 32, FTW_DEPTH | FTW_PHYS);
}

/* Apply fix f to the copy in dir; false (message printed) if any replacement
 * is not found exactly once, or the result does not hold the new text. */
static bool apply_fix(const char *dir, const struct fix *f)
{
	char path[PATH_MAX + 512];
	snprintf(path, sizeof(path), "%s/%s", dir, f->file);
	char *s = read_file(path, NULL);
	if (!s) {
		cli_err("%s: %s", path, strerror(errno));
		return false;
	}
	for (size_t i = 0; i < 2 && f->subst[i].old; i++) {
		const struct subst *r = &f->subst[i];
		int n = count_of(s, r->old);
		if (n != 1) {
			cli_err("runtime fix %s: %s holds the text to replace %d times, not once "
				"(a SystemTap version this fix does not know)", f->name, path, n);
			free(s);
			return false;
		}
		char *at = strstr(s, r->old), *t = NULL;
		if (asprintf(&t, "%.*s%s%s", (int)(at - s), s, r->new, at + strlen(r->old)) < 0) {
			free(s);
			cli_err("out of memory");
			return false;
		}
		free(s);
		s = t;
	}
	FILE *out = fopen(path, "w");
	bool ok = out && fputs(s, out) >= 0;
	if (out && fclose(out))
		ok = false;
	free(s);
	if (!ok) {
		cli_err("%s: %s", path, strerror(errno));
		return false;
	}
	for (size_t i = 0; i < 2 && f->subst[i].old; i++)
		if (!file_has(path, f->subst[i].new)) {
			cli_err("runtime fix %s did not apply to %s", f->name, path);
			return false;
		}
	return true;
}

/* What the copy was made from: the source directory, size and mtime of each
 * file a fix touches, and the fixes. A copy whose stamp differs is remade. */
static char *stamp_text(const char *src, const bool *need)
{
	char *t = NULL, *prev;
	if (asprintf(&t, "flamekit stap runtime copy of %s\n", src) < 0)
		return NULL;
	for (int i = 0; i < N_FIXES; i++) {
		char path[PATH_MAX];
		struct stat st = { 0 };
		snprintf(path, sizeof(path), "%s/%s", src, fixes[i].file);
		stat(path, &st);
		prev = t;
		if (asprintf(&t, "%s%s %s %lld %lld\n", prev, need[i] ? "fixed" : "as-is",
			     fixes[i].file, (long long)st.st_size, (long long)st.st_mtime) < 0)
			t = NULL;
		free(prev);
		if (!t)
			return NULL;
	}
	return t;
}

static int mkdirs(const char *dir)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

char *stap_runtime_for(const char *stap, const char *rel, bool notes, bool *failed)
{
	*failed = false;
	if (!rel || !have_build_tree(rel))
		return NULL; /* stap itself will say that the build tree is missing */
	char *src = runtime_dir(stap);
	if (!src)
		return NULL;
	bool need[N_FIXES], any = false;
	for (int i = 0; i < N_FIXES; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", src, fixes[i].file);
		need[i] = file_has(path, fixes[i].subst[0].old) && kernel_needs(rel, i);
		any |= need[i];
	}
	if (!any) {
		free(src);
		return NULL;
	}

	char *ver = stap_version(stap), *stamp = stamp_text(src, need);
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char base[PATH_MAX], dir[PATH_MAX + 300], tmp[PATH_MAX + 400], stamp_path[PATH_MAX + 500];
	if (xdg && xdg[0] == '/')
		snprintf(base, sizeof(base), "%s/flamekit/stap-runtime", xdg);
	else
		snprintf(base, sizeof(base), "%s/.cache/flamekit/stap-runtime",
			 home && *home ? home : "/tmp");
	snprintf(dir, sizeof(dir), "%s/%s-%s", base, ver ? ver : "unknown", rel);
	snprintf(stamp_path, sizeof(stamp_path), "%s/.flamekit-stamp", dir);
	free(ver);
	char *old = read_file(stamp_path, NULL);
	bool valid = old && stamp && !strcmp(old, stamp);
	free(old);
	if (valid) {
		free(src);
		free(stamp);
		return strdup(dir);
	}
	if (notes)
		for (int i = 0; i < N_FIXES; i++)
			if (need[i])
				cli_err("note: SystemTap runtime fix %s needed for %s: %s", fixes[i].name,
					rel, fixes[i].why);

	/* Build it beside the final place and rename it in, so a concurrent run
	 * never sees half a copy; under a lock, so a concurrent run that found
	 * no copy either does not remove this one while its stap reads it. */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", dir, (int)getpid());
	bool ok = stamp && mkdirs(base) == 0;
	if (!ok)
		cli_err("cannot create %s: %s", base, strerror(errno));
	char lock_path[PATH_MAX + 300];
	snprintf(lock_path, sizeof(lock_path), "%s/.lock", base);
	int lock = ok ? open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644) : -1;
	if (lock >= 0)
		while (flock(lock, LOCK_EX) && errno == EINTR)
			;
	old = read_file(stamp_path, NULL);
	if (ok && old && !strcmp(old, stamp)) { /* another run made it meanwhile */
		free(old);
		if (lock >= 0)
			close(lock);
		free(src);
		free(stamp);
		return strdup(dir);
	}
	free(old);
	remove_tree(tmp);
	copy_src = src;
	copy_dst = tmp;
	int err = ok ? nftw(src, copy_one, 32, FTW_PHYS) : 0;
	if (ok && err) {
		cli_err("copying %s to %s: %s", src, tmp, strerror(err > 0 ? err : errno));
		ok = false;
	}
	for (int i = 0; ok && i < N_FIXES; i++)
		if (need[i])
			ok = apply_fix(tmp, &fixes[i]);
	if (ok) {
		char tstamp[PATH_MAX + 500];
		snprintf(tstamp, sizeof(tstamp), "%s/.flamekit-stamp", tmp);
		FILE *f = fopen(tstamp, "w");
		ok = f && fputs(stamp, f) >= 0;
		if (f && fclose(f))
			ok = false;
		if (!ok)
			cli_err("%s: %s", tstamp, strerror(errno));
	}
	if (ok) {
		remove_tree(dir); /* an outdated copy */
		if (rename(tmp, dir)) {
			/* another run put its copy there first: use that one */
			char *now = read_file(stamp_path, NULL);
			ok = now && !strcmp(now, stamp);
			free(now);
			if (!ok)
				cli_err("rename %s to %s: %s", tmp, dir, strerror(errno));
		}
	}
	remove_tree(tmp);
	if (lock >= 0)
		close(lock);
	if (ok && notes)
		cli_err("note: patched copy of %s made in %s", src, dir);
	free(src);
	free(stamp);
	if (!ok) {
		*failed = true;
		return NULL;
	}
	return strdup(dir);
}

bool stap_kernel_symbols_ok(const char *rel)
{
	struct utsname u;
	if (uname(&u) == 0 && !strcmp(u.release, rel))
		return true;
	static const char *const vmlinux[] = {
		"/usr/lib/debug/lib/modules/%s/vmlinux", "/usr/lib/debug/boot/vmlinux-%s",
		"/boot/vmlinux-%s", "/lib/modules/%s/build/vmlinux", "/lib/modules/%s/vmlinux",
	};
	for (size_t i = 0; i < sizeof(vmlinux) / sizeof(vmlinux[0]); i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), vmlinux[i], rel);
		if (access(path, R_OK) == 0)
			return true;
	}
	return false;
}

bool stap_kallsyms_file_ok(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return false;
	char line[512];
	bool ok = false;
	while (!ok && fgets(line, sizeof(line), f)) {
		const char *sp = strrchr(line, ' ');
		if (sp && (!strcmp(sp, " _stext\n") || !strcmp(sp, " _stext")))
			ok = true;
	}
	fclose(f);
	return ok;
}

/* parse-perf-addr2line.c - the default symboliser of --inline, as stackcollapse-perf.pl's
 * inline(): addr2line for the frames inlined at an address, nm when addr2line knows none.
 * The only place the perf parser runs programs, and only when --inline asks with no
 * symboliser of the host's own (fk_parse_opts.inline_fn). */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include "parse-perf.h"

extern char **environ;

/* one per parsing thread: nm's output per module */
struct fk_addr2line {
	struct nmc { char *mod; char *out; size_t len; } *nm;
	size_t nm_n;
};

struct fk_addr2line *fk_addr2line_new(void)
{
	return calloc(1, sizeof(struct fk_addr2line));
}

void fk_addr2line_free(struct fk_addr2line *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nm_n; i++)
		free(a->nm[i].mod), free(a->nm[i].out);
	free(a->nm);
	free(a);
}

/* Run argv with stdout captured (stderr to /dev/null). 0 or negative error. */
static int run_capture(char *const argv[], char **out, size_t *outlen)
{
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (rc) {
		close(pfd[0]);
		return -rc;
	}
	char *b = NULL;
	size_t cap = 0, n = 0;
	for (;;) {
		if (fk_perf_grow_bytes(&b, &cap, n + 4096 + 1)) {
			rc = -FK_E_NOMEM;
			break;
		}
		ssize_t k = read(pfd[0], b + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(pfd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (rc) {
		free(b);
		return rc;
	}
	if (!b && !(b = malloc(1)))
		return -FK_E_NOMEM;
	b[n] = 0;
	*out = b;
	*outlen = n;
	return 0;
}

/* addr2line -a PC -e MOD -i -f -s -C, as the perl's inline(): "outer;...;inner" or "" */
static char *addr2line_frames(struct fk_addr2line *t, const char *pc, const char *mod,
			      const char *rawfunc, int depth)
{
	char *argv[] = { "addr2line", "-a", (char *)pc, "-e", (char *)mod, "-i", "-f", "-s", "-C", NULL };
	char *out;
	size_t n;
	if (run_capture(argv, &out, &n))
		return strdup("");
	char *body = strchr(out, '\n');
	body = body ? body + 1 : out + n;
	if (depth == 0 && strstr(body, "??\n??:0")) {
		/* addr2line failed: fall back to nm's address of func when rawfunc is func+0xOFF */
		size_t rl = strlen(rawfunc), h = rl;
		while (h > 0 && ((rawfunc[h - 1] >= '0' && rawfunc[h - 1] <= '9') ||
				 (rawfunc[h - 1] >= 'a' && rawfunc[h - 1] <= 'f')))
			h--;
		if (h < rl && h >= 4 && !memcmp(rawfunc + h - 3, "+0x", 3)) {
			size_t fl = h - 3;
			struct nmc *c = NULL;
			for (size_t i = 0; i < t->nm_n; i++)
				if (!strcmp(t->nm[i].mod, mod))
					c = &t->nm[i];
			if (!c) {
				struct nmc *nn = realloc(t->nm, (t->nm_n + 1) * sizeof(*nn));
				char *nargv[] = { "nm", (char *)mod, NULL };
				if (nn) {
					t->nm = nn;
					c = &t->nm[t->nm_n];
					if (run_capture(nargv, &c->out, &c->len) == 0 && (c->mod = strdup(mod)))
						t->nm_n++;
					else
						c = NULL;
				}
			}
			/* /^([0-9a-f]+) . \Qfunc\E$/m */
			for (const char *l = c ? c->out : NULL; l && *l;) {
				const char *e = strchr(l, '\n');
				size_t ll = e ? (size_t)(e - l) : strlen(l);
				size_t x = 0;
				while (x < ll && ((l[x] >= '0' && l[x] <= '9') || (l[x] >= 'a' && l[x] <= 'f')))
					x++;
				if (x > 0 && ll == x + 3 + fl && l[x] == ' ' && l[x + 1] != '\n' &&
				    l[x + 2] == ' ' && !memcmp(l + x + 3, rawfunc, fl)) {
					unsigned long long base = strtoull(l, NULL, 16);
					unsigned long long off = strtoull(rawfunc + h, NULL, 16);
					char npc[32];
					snprintf(npc, sizeof(npc), "0x%llx", base + off);
					free(out);
					return addr2line_frames(t, npc, mod, "", depth + 1);
				}
				l = e ? e + 1 : l + ll;
			}
		}
	}
	/* pairs of lines: function, file:line; kept outermost first */
	size_t cap = strlen(body) + 1, rl = 0;
	char *res = malloc(cap + 1);
	if (!res) {
		free(out);
		return NULL;
	}
	res[0] = 0;
	const char *item = NULL;
	size_t item_len = 0;
	for (char *l = body; *l;) {
		char *e = strchr(l, '\n');
		size_t ll = e ? (size_t)(e - l) : strlen(l);
		char *d = memmem(l, ll, " (discriminator ", 16);
		if (d) { /* s/ \(discriminator \S+\)// */
			char *q = d + 16, *qe = q;
			while (qe < l + ll && !IS_WS(*qe))
				qe++;
			while (qe > q && qe[-1] != ')')
				qe--;
			if (qe > q + 1) {
				memmove(d, qe, (size_t)(l + ll - qe));
				ll -= (size_t)(qe - d);
			}
		}
		if (!item || item_len == 0) {
			item = l;
			item_len = ll;
			if (ll == 0)
				item = NULL;
		} else {
			/* unshift: prepend */
			memmove(res + item_len + (rl ? 1 : 0), res, rl);
			memcpy(res, item, item_len);
			if (rl)
				res[item_len] = ';';
			rl += item_len + (rl ? 1 : 0);
			item = NULL;
			item_len = 0;
		}
		l = e ? e + 1 : l + ll;
	}
	res[rl] = 0;
	free(out);
	return res;
}

char *fk_addr2line_inline(const char *pc, const char *mod, const char *func, void *ctx)
{
	return addr2line_frames(ctx, pc, mod, func, 0);
}

/* parse-perf.c - `perf script` text -> stacks, folded exactly as FlameGraph's
 * stackcollapse-perf.pl folds them (same regex semantics, tidying and options), at
 * GB/s: lines found with vector compares, each distinct frame line tidied once. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "parse-perf.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

extern char **environ;

/* ------------------------------------------------------------------ character classes
 * Perl's ASCII rules on byte strings: \s = [\t\n\v\f\r ], \w = [A-Za-z0-9_], \d = [0-9]. */
enum { C_WS = 1, C_W = 2, C_D = 4 };
static const unsigned char ctab[256] = {
	['\t'] = C_WS, ['\n'] = C_WS, ['\v'] = C_WS, ['\f'] = C_WS, ['\r'] = C_WS, [' '] = C_WS,
	['0'] = C_W | C_D, ['1'] = C_W | C_D, ['2'] = C_W | C_D, ['3'] = C_W | C_D,
	['4'] = C_W | C_D, ['5'] = C_W | C_D, ['6'] = C_W | C_D, ['7'] = C_W | C_D,
	['8'] = C_W | C_D, ['9'] = C_W | C_D, ['_'] = C_W,
	['A'] = C_W, ['B'] = C_W, ['C'] = C_W, ['D'] = C_W, ['E'] = C_W, ['F'] = C_W, ['G'] = C_W,
	['H'] = C_W, ['I'] = C_W, ['J'] = C_W, ['K'] = C_W, ['L'] = C_W, ['M'] = C_W, ['N'] = C_W,
	['O'] = C_W, ['P'] = C_W, ['Q'] = C_W, ['R'] = C_W, ['S'] = C_W, ['T'] = C_W, ['U'] = C_W,
	['V'] = C_W, ['W'] = C_W, ['X'] = C_W, ['Y'] = C_W, ['Z'] = C_W,
	['a'] = C_W, ['b'] = C_W, ['c'] = C_W, ['d'] = C_W, ['e'] = C_W, ['f'] = C_W, ['g'] = C_W,
	['h'] = C_W, ['i'] = C_W, ['j'] = C_W, ['k'] = C_W, ['l'] = C_W, ['m'] = C_W, ['n'] = C_W,
	['o'] = C_W, ['p'] = C_W, ['q'] = C_W, ['r'] = C_W, ['s'] = C_W, ['t'] = C_W, ['u'] = C_W,
	['v'] = C_W, ['w'] = C_W, ['x'] = C_W, ['y'] = C_W, ['z'] = C_W,
};
#define IS_WS(c) (ctab[(unsigned char)(c)] & C_WS)
#define IS_W(c) (ctab[(unsigned char)(c)] & C_W)
#define IS_D(c) (ctab[(unsigned char)(c)] & C_D)

/* ------------------------------------------------------------------ hashing: 8 bytes a step,
 * four independent lanes so long C++ names hash at several bytes per cycle. */
#define HK1 0x9e3779b97f4a7c15ULL
#define HK2 0xc2b2ae3d27d4eb4fULL
static inline uint64_t rd64(const char *s) { uint64_t w; memcpy(&w, s, 8); return w; }
static inline uint32_t rd32(const char *s) { uint32_t w; memcpy(&w, s, 4); return w; }
static inline uint64_t rotl(uint64_t x, int r) { return x << r | x >> (64 - r); }

struct h128 {
	uint64_t a, b;
};

static inline uint64_t step1(uint64_t h, uint64_t w) { return rotl((h ^ w) * HK1, 29); }
static inline uint64_t step2(uint64_t h, uint64_t w) { return rotl((h ^ w) * HK2, 31); }

/* 128 bits of fingerprint; for a given length every byte enters the state (the short
 * tails are read as overlapping words, which is injective once the length is fixed). */
static inline __attribute__((always_inline)) struct h128 hash128(const char *s, size_t n, uint64_t seed)
{
	uint64_t a = seed ^ (n * HK2), b = ~seed ^ n, c = HK1 + n, d = HK2 ^ seed;
	if (n >= 32) {
		/* whole blocks, then the last 32 bytes (overlapping the one before): no branch
		 * on the length past the loop */
		const char *last = s + n - 32;
		for (; s < last; s += 32) {
			a = step1(a, rd64(s));
			b = step2(b, rd64(s + 8));
			c = step1(c, rd64(s + 16));
			d = step2(d, rd64(s + 24));
		}
		a = step2(a, rd64(last));
		b = step1(b, rd64(last + 8));
		c = step2(c, rd64(last + 16));
		d = step1(d, rd64(last + 24));
		n = 0;
	}
	if (n >= 16) {
		a = step1(a, rd64(s));
		b = step2(b, rd64(s + 8));
		s += 16;
		n -= 16;
	}
	if (n >= 8) {
		c = step1(c, rd64(s));
		d = step2(d, n > 8 ? rd64(s + n - 8) : 0);
	} else if (n >= 4) {
		c = step1(c, (uint64_t)rd32(s) | (uint64_t)rd32(s + n - 4) << 32);
	} else if (n) {
		c = step1(c, (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n >> 1] << 8 |
				     (uint64_t)(unsigned char)s[n - 1] << 16);
	}
	/* a: full avalanche (it picks the slot); b: a second, independent fold of the state
	 * (only compared), one multiply is enough for it. */
	struct h128 h;
	h.a = fk_mix64(a ^ rotl(b, 17) ^ rotl(c, 31) ^ rotl(d, 47));
	uint64_t x = (b ^ rotl(a, 41) ^ rotl(c, 23) ^ rotl(d, 7)) * HK2;
	h.b = x ^ x >> 29;
	return h;
}

/* ------------------------------------------------------------------ caches
 * Frame cache: the raw bytes of a frame line (from the end of the address on) -> the
 * frame ids it folds to. The pname cache is the same structure keyed by the
 * process-name text. Keys live in one arena addressed by offsets. */
#define NRES_BAD UINT32_MAX

/* 16 bytes, four to a cache line. res: a frame id below 2^31; RES_BAD (line does not
 * parse); RES_NONE (no frame); else RES_MULTI | offset in rids of "count, ids...". */
struct fent {
	uint64_t hash;  /* 0 = empty slot (real hashes have the top bit set) */
	uint32_t check; /* 32 more bits of fingerprint: 96 in all */
	uint32_t res;
};
#define RES_BAD UINT32_MAX
#define RES_NONE (UINT32_MAX - 1)
#define RES_MULTI 0x80000000u

/* A unique stack: its frame ids root first (process name first) in sids. */
struct sent {
	uint64_t hash, check; /* 128-bit fingerprint of the id sequence */
	uint64_t off;
	uint32_t n;
	uint32_t idx; /* order of first appearance */
	double w;     /* total weight (kept here: one cache miss per sample, not two) */
};

/* One sample, kept when the profile records samples; added in input order at the end. */
struct psamp {
	double time, weight;
	uint32_t stk, comm; /* comm: name id in this thread's profile */
	int32_t pid, tid, cpu;
};

struct ftab {
	struct fent *t;
	size_t mask, n;
};

struct evfilter {
	char name[256];
	size_t len;
	bool set, defaulted, too_long;
};

struct warn {
	uint64_t line;
	char msg[240];
};

/* One parsing thread: its profile, caches, the state of the sample being read. */
struct pp {
	fk_profile *p;
	const fk_parse_opts *o;
	fk_perf_scan_fn scan;
	bool keep_samples, pc_key, kern, jitm;
	char *ibuf; /* file input */
	size_t icap;
	struct evfilter ev;

	struct ftab fc, fc2, pc; /* frame lines, frame lines without module, process names */
	uint32_t *rids;
	size_t rids_len, rids_cap;
	struct sent *st;
	size_t st_mask, st_n;
	uint32_t *sids;
	size_t sids_len, sids_cap;
	double *sw; /* weight of each unique stack, gathered by stack_arrays() */
	size_t nstk;
	struct psamp *ps;
	size_t ps_n, ps_cap;
	uint64_t *soff; /* the unique stacks by index (stack_arrays), sord their order (sort_stacks) */
	uint32_t *slen, *sord;
	uint32_t *leaf; /* each unique stack's leaf node, once built */
	uint32_t *spath; /* their nodes root first (offsets as in sids), kept for a merge */
	bool want_spath; /* keep spath: a second half will merge along this one's stacks */
	bool built;
	uint32_t *key; /* the stack being looked up, root first */
	size_t key_cap;
	uint32_t *pkey; /* the pending stack (see finish_pending) */
	size_t pkey_cap, pend_n;
	struct h128 pend_h;
	double pend_w;
	bool pend;
	uint32_t last_comm;
	bool have_comm;

	/* sample being read: perl's $pname, @stack, $m_period */
	bool have_pname, java;
	uint32_t pn_res, pn_n;
	double weight;
	fk_sample_info info;
	char *comm;
	size_t comm_cap;
	uint32_t *fr; /* frame ids, leaf first */
	size_t fr_n, fr_cap;

	uint32_t *tmp;
	size_t tmp_n, tmp_cap;
	uint32_t one;
	struct h128 hv[16]; /* fingerprints of the lines hashed ahead (AHEAD) */
	char *sbuf;
	size_t sbuf_cap;
	char *kbuf;
	size_t kbuf_cap;
	uint32_t *ends;

	/* per block accounting; line numbers relative to the region start */
	uint64_t lineno, samples, filtered, orphans;
	struct warn *warns;
	unsigned nwarns, maxwarns;
	uint64_t unshown;
	uint64_t skip_line;
	char skip_ev[80];
	bool skipped;
	uint64_t nul_line, utf8_line;
	bool saw_nul, saw_utf8;
	int err;

	struct { void *p; size_t size; } grave[24]; /* tables outgrown (see table_double) */
	unsigned ngrave;
	/* --inline: nm output per module */
	struct nmc { char *mod; char *out; size_t len; } *nm;
	size_t nm_n;
};

static int grow_bytes(char **b, size_t *cap, size_t need)
{
	return fk_grow((void **)b, cap, need, 1);
}

static void set_err(struct pp *t, int err)
{
	if (!t->err)
		t->err = err;
}

static bool valid_utf8(const unsigned char *s, size_t n);

/* Printable excerpt of an untrusted line for a message: control bytes and bytes that are
 * not valid UTF-8 become '?', cut at a character boundary. */
static void excerpt(char *out, size_t size, const char *l, size_t len)
{
	size_t i = 0, o = 0;
	while (i < len && o + 4 + 3 < size) {
		unsigned char ch = (unsigned char)l[i];
		size_t k = ch < 0x80 ? 1 : ch >= 0xc2 && ch <= 0xdf ? 2 : ch >= 0xe0 && ch <= 0xef ? 3
			 : ch >= 0xf0 && ch <= 0xf4 ? 4 : 0;
		if (k > 1 && i + k <= len && valid_utf8((const unsigned char *)l + i, k)) {
			memcpy(out + o, l + i, k);
			o += k;
			i += k;
			continue;
		}
		out[o++] = (k != 1 || ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
		i++;
	}
	if (i < len)
		memcpy(out + o, "...", 3), o += 3;
	out[o] = 0;
}

static void bad(struct pp *t, const char *what, const char *l, size_t len)
{
	if (t->nwarns >= t->maxwarns) {
		t->unshown++;
		return;
	}
	struct warn *w = &t->warns[t->nwarns++];
	char ex[72];
	excerpt(ex, sizeof(ex), l, len);
	w->line = t->lineno;
	snprintf(w->msg, sizeof(w->msg), "%s: '%s'", what, ex);
}

/* UTF-8 validity (names are kept byte for byte either way; this only feeds a note). */
static bool valid_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		while (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (w & 0x8080808080808080ULL)
				break;
			i += 8;
		}
		if (i >= n)
			break;
		unsigned c = s[i];
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t k;
		unsigned min;
		if (c >= 0xc2 && c <= 0xdf)
			k = 1, min = 0x80;
		else if (c >= 0xe0 && c <= 0xef)
			k = 2, min = 0x800;
		else if (c >= 0xf0 && c <= 0xf4)
			k = 3, min = 0x10000;
		else
			return false;
		if (i + k >= n)
			return false;
		unsigned cp = c & (0x3f >> k);
		for (size_t j = 1; j <= k; j++) {
			if (i + j >= n || (s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += k + 1;
	}
	return true;
}

/* ------------------------------------------------------------------ perl's regexes */

/* the regex ^(\S.+?)\s+(\d+)[/]*(\d+)*\s+ : the sample header. */
struct hdr {
	size_t comm_len;
	size_t a0, a1;    /* $2 */
	size_t b0, b1;    /* $3 (b0 == b1: undef) */
	size_t end;       /* end of the match */
};

static bool match_header(const char *l, size_t len, struct hdr *h)
{
	if (len < 4 || IS_WS(l[0]))
		return false;
	for (size_t i = 2; i < len; i++) {
		if (!IS_WS(l[i]))
			continue;
		size_t j = i;
		while (j < len && IS_WS(l[j]))
			j++;
		size_t wsend = j, a0 = j;
		while (j < len && IS_D(l[j]))
			j++;
		if (j > a0) {
			size_t a1 = j;
			while (j < len && l[j] == '/')
				j++;
			size_t b0 = j;
			while (j < len && IS_D(l[j]))
				j++;
			if (j < len && IS_WS(l[j])) {
				*h = (struct hdr){ i, a0, a1, b0, j, j };
				return true;
			}
		}
		i = wsend - 1; /* later starts inside this blank run fail the same way */
	}
	return false;
}

/* /:\s*(\d+)*\s+(\S+):\s*$/ : period and event at the end of the header. */
static bool match_event(const char *l, size_t len, size_t *e0, size_t *e1, size_t *d0, size_t *d1)
{
	size_t e = len;
	while (e > 0 && IS_WS(l[e - 1]))
		e--;
	if (e < 2 || l[e - 1] != ':')
		return false;
	size_t t = e - 1;
	while (t > 0 && !IS_WS(l[t - 1]))
		t--;
	if (t == 0 || e - t < 2)
		return false;
	size_t w0 = t;
	while (w0 > 0 && IS_WS(l[w0 - 1]))
		w0--;
	if (w0 == 0)
		return false;
	*e0 = t;
	*e1 = e - 1;
	if (l[w0 - 1] == ':') {
		*d0 = *d1 = 0;
		return true;
	}
	size_t g = w0;
	while (g > 0 && IS_D(l[g - 1]))
		g--;
	if (g == w0 || g == 0)
		return false;
	*d0 = g;
	*d1 = w0;
	if (l[g - 1] == ':')
		return true;
	size_t v = g;
	while (v > 0 && IS_WS(l[v - 1]))
		v--;
	return v < g && v > 0 && l[v - 1] == ':';
}

/* /^\s*(\w+)\s*(.+) \((.*)\)/ : a stack frame line. pc, raw function and module spans. */
struct frm {
	size_t pc0, pc1, f0, f1, m0, m1;
};

static bool match_frame(const char *l, size_t len, struct frm *f)
{
	size_t s = 0;
	while (s < len && IS_WS(l[s]))
		s++;
	size_t w = s;
	while (w < len && IS_W(l[w]))
		w++;
	if (w == s)
		return false;
	size_t q0 = w;
	while (q0 < len && IS_WS(l[q0]))
		q0++;
	const char *rp = memrchr(l, ')', len);
	if (!rp || rp - l < 2)
		return false;
	size_t lp = (size_t)(rp - l), P = lp - 2;
	for (;; P--) {
		if (l[P] == ' ' && l[P + 1] == '(')
			break;
		if (P == 0)
			return false;
	}
	if (P >= q0 + 1)
		*f = (struct frm){ s, w, q0, P, P + 2, lp };
	else if (P >= w + 1)
		*f = (struct frm){ s, w, P - 1, P, P + 2, lp };
	else if (P >= s + 2)
		*f = (struct frm){ s, P - 1, P - 1, P, P + 2, lp };
	else
		return false;
	return true;
}

/* ------------------------------------------------------------------ name tidying */

/* Short-needle search (glibc's memmem sets up a general algorithm each call). */
static const char *find2(const char *s, size_t n, const char *needle, size_t nl)
{
	const char *end = s + n;
	while (n >= nl && (s = memchr(s, needle[0], (size_t)(end - s) - nl + 1))) {
		if (!memcmp(s, needle, nl))
			return s;
		s++;
		n = (size_t)(end - s);
	}
	return NULL;
}

static bool contains(const char *s, size_t n, const char *needle)
{
	return find2(s, n, needle, strlen(needle)) != NULL;
}

/* $mod =~ m:/tmp/perf-\d+\.map: */
static bool is_jit_mod(const char *m, size_t n)
{
	const char *p = m, *end = m + n;
	while ((p = memmem(p, (size_t)(end - p), "/tmp/perf-", 10))) {
		const char *q = p + 10, *d = q;
		while (q < end && IS_D(*q))
			q++;
		if (q > d && end - q >= 4 && !memcmp(q, ".map", 4))
			return true;
		p++;
	}
	return false;
}

/* $mod =~ m/(^\[|vmlinux$)/ && $mod !~ /unknown/ */
static bool is_kernel_mod(const char *m, size_t n)
{
	bool k = (n && m[0] == '[') || (n >= 7 && !memcmp(m + n - 7, "vmlinux", 7));
	return k && !contains(m, n, "unknown");
}

/* $func =~ m/\.\(.*\)\./ : a Go method name such as net/http.(*Client).Do */
static bool go_method(const char *s, size_t n)
{
	const char *a = find2(s, n, ".(", 2);
	if (!a)
		return false;
	for (size_t j = n - 1; j > 0; j--)
		if (s[j - 1] == ')' && s[j] == '.')
			return (size_t)(j - 1) >= (size_t)(a - s) + 2;
	return false;
}

/* Tidy one "->" piece of a raw function name, as stackcollapse-perf.pl's loop body does.
 * out needs n + mlen + pclen + 16 bytes. Returns the length. */
static size_t tidy_piece(char *out, const char *f, size_t n, const char *pc, size_t pclen,
			 const char *mod, size_t mlen, bool java, bool first, const fk_parse_opts *o)
{
	size_t len;
	if (n == 9 && !memcmp(f, "[unknown]", 9)) {
		const char *b = "unknown";
		size_t bl = 7;
		if (!(mlen == 9 && !memcmp(mod, "[unknown]", 9))) {
			const char *sl = memrchr(mod, '/', mlen);
			b = sl ? sl + 1 : mod;
			bl = (size_t)(mod + mlen - b);
		}
		char *w = out;
		*w++ = '[';
		memcpy(w, b, bl);
		w += bl;
		if (o->addrs && pc) {
			*w++ = ' ';
			*w++ = '<';
			memcpy(w, pc, pclen);
			w += pclen;
			*w++ = '>';
		}
		*w++ = ']';
		len = (size_t)(w - out);
		f = out;
		n = len;
	}
	/* One pass for the perl's three: ';' -> ':', cut at the first '(' (unless it opens
	 * "(anonymous namespace)" or the name is a Go method), drop quotes. The Go test does not
	 * depend on ';' or quotes, so it can look at the raw text first. f may alias out: the
	 * write position never passes the read position. */
	bool cut = !o->full_names && !go_method(f, n);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		char ch = f[i];
		if (ch == '(' && cut &&
		    !(n - i - 1 >= 20 && !memcmp(f + i + 1, "anonymous namespace)", 20)))
			break;
		if (ch == '"' || ch == '\'')
			continue;
		out[k++] = ch == ';' ? ':' : ch;
	}
	len = k;
	if (java && len && out[0] == 'L' && memchr(out, '/', len)) {
		memmove(out, out + 1, len - 1);
		len--;
	}
	bool kernel = o->kernel || o->all, jit = o->jit || o->all;
	if (!first) {
		if (!contains(out, len, "_[i]"))
			memcpy(out + len, "_[i]", 4), len += 4;
	} else if (kernel && is_kernel_mod(mod, mlen)) {
		memcpy(out + len, "_[k]", 4), len += 4;
	} else if (jit && is_jit_mod(mod, mlen)) {
		if (!contains(out, len, "_[j]"))
			memcpy(out + len, "_[j]", 4), len += 4;
	}
	return len;
}

/* s/\+0x[\da-f]+$// */
static inline size_t strip_offset(const char *f, size_t n)
{
	size_t h = n;
	while (h > 0 && ((f[h - 1] >= '0' && f[h - 1] <= '9') || (f[h - 1] >= 'a' && f[h - 1] <= 'f')))
		h--;
	if (h < n && h >= 3 && !memcmp(f + h - 3, "+0x", 3))
		return h - 3;
	return n;
}

size_t fk_perf_tidy_name(char *out, const char *sym, size_t symlen, const char *dso, size_t dsolen,
			 const fk_parse_opts *o)
{
	fk_parse_opts def;
	if (!o) {
		fk_parse_opts_init(&def);
		o = &def;
	}
	size_t cap = symlen + dsolen + 16, w = 0;
	size_t n = strip_offset(sym, symlen);
	if (n && sym[0] == '(')
		return 0;
	/* split /->/ drops trailing empty fields */
	while (n >= 2 && sym[n - 1] == '>' && sym[n - 2] == '-')
		n -= 2;
	size_t i = 0;
	bool first = true;
	while (n && i <= n) {
		const char *a = find2(sym + i, n - i, "->", 2);
		size_t pe = a ? (size_t)(a - sym) : n;
		size_t pl = pe - i;
		size_t need = pl + dsolen + 16 + (first ? 0 : 1);
		if (w + need > cap)
			break; /* documented: a name of many "->" pieces may be cut */
		if (!first)
			out[w++] = ';';
		char tmp[4096];
		char *buf = pl + dsolen + 16 <= sizeof(tmp) ? tmp : malloc(pl + dsolen + 16);
		if (!buf)
			break;
		size_t tl = tidy_piece(buf, sym + i, pl, NULL, 0, dso, dsolen, false, first, o);
		memcpy(out + w, buf, tl);
		w += tl;
		if (buf != tmp)
			free(buf);
		first = false;
		if (!a)
			break;
		i = pe + 2;
	}
	return w;
}

/* ------------------------------------------------------------------ --inline (addr2line) */

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
		if (grow_bytes(&b, &cap, n + 4096 + 1)) {
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

/* $mod !~ m/(perf-\d+.map|kernel\.|\[[^\]]+\])/ */
static bool inline_mod_ok(const char *m, size_t n)
{
	if (contains(m, n, "kernel."))
		return false;
	for (const char *p = m, *end = m + n; (p = memmem(p, (size_t)(end - p), "perf-", 5)); p++) {
		const char *q = p + 5, *d = q;
		while (q < end && IS_D(*q))
			q++;
		if (q > d && end - q >= 4 && q[1] == 'm' && q[2] == 'a' && q[3] == 'p')
			return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (m[i] != '[')
			continue;
		size_t j = i + 1;
		while (j < n && m[j] != ']')
			j++;
		if (j < n && j > i + 1)
			return false;
	}
	return true;
}

/* addr2line -a PC -e MOD -i -f -s -C, as the perl's inline(): "outer;...;inner" or "" */
static char *addr2line_frames(struct pp *t, const char *pc, const char *mod, const char *rawfunc,
			      int depth)
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

/* ------------------------------------------------------------------ cache tables */

/* Zeroed memory for a big hash table: fresh pages straight from mmap (already zero) marked
 * for transparent huge pages, so random probes miss the TLB far less (and fault once per
 * 2 MiB, not 512 times). Free with table_free and the same size. */
#define TABLE_MMAP (2u << 20)
static void *table_alloc(size_t n, size_t elem)
{
	size_t size = n * elem;
	if (n && size / n != elem)
		return NULL;
	if (size < TABLE_MMAP)
		return fk_zalloc(n, elem);
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	madvise(p, size, MADV_HUGEPAGE);
#endif
	/* Write every page now: a table's first touch is a probe (a read), which would map the
	 * shared zero page and then take a second, copy-on-write fault on the insert; with two
	 * threads each of those flushes the other CPU's TLB by IPI. */
	fk_touch_pages(p, size);
	return p;
}

static void table_free(void *p, size_t n, size_t elem)
{
	if (p && n * elem >= TABLE_MMAP)
		munmap(p, n * elem);
	else
		free(p);
}

static int ftab_init(struct ftab *f, size_t size)
{
	f->t = table_alloc(size, sizeof(*f->t));
	if (!f->t)
		return -FK_E_NOMEM;
	f->mask = size - 1;
	f->n = 0;
	return 0;
}

_Static_assert(offsetof(struct fent, hash) == 0, "table_double reads the hash first");
_Static_assert(offsetof(struct sent, hash) == 0, "table_double reads the hash first");

/* Double an open-addressing table whose entries start with a uint64_t hash
 * (0 = empty slot): the new table, with the old one freed, or NULL with the
 * old one kept. Shared by the frame-line and the stack tables. */
static void *table_double(struct pp *t, void *old, size_t n, size_t elem)
{
	size_t size = n * 2;
	char *nt = table_alloc(size, elem);
	if (!nt)
		return NULL;
	const char *ot = old;
	for (size_t i = 0; i < n; i++) {
		uint64_t h, hj;
		memcpy(&h, ot + i * elem, sizeof(h));
		if (!h)
			continue;
		size_t j = h & (size - 1);
		for (;; j = (j + 1) & (size - 1)) {
			memcpy(&hj, nt + j * elem, sizeof(hj));
			if (!hj)
				break;
		}
		memcpy(nt + j * elem, ot + i * elem, elem);
	}
	if (n * elem >= TABLE_MMAP && t->ngrave < sizeof(t->grave) / sizeof(t->grave[0])) {
		/* unmapped at the end: unmapping now would interrupt the other thread's CPU
		 * to flush its TLB */
		t->grave[t->ngrave].p = old;
		t->grave[t->ngrave++].size = n * elem;
	} else {
		table_free(old, n, elem);
	}
	return nt;
}

static int ftab_grow(struct pp *t, struct ftab *f)
{
	struct fent *nt = table_double(t, f->t, f->mask + 1, sizeof(*nt));
	if (!nt)
		return -FK_E_NOMEM;
	f->t = nt;
	f->mask = f->mask * 2 + 1;
	return 0;
}

/* Intern a name (maybe holding ';': a folded name is several frames) into tmp. */
static int push_name(struct pp *t, const char *s, size_t n, bool split)
{
	size_t i = 0;
	for (;;) {
		const char *sc = split ? memchr(s + i, ';', n - i) : NULL;
		size_t e = sc ? (size_t)(sc - s) : n;
		int64_t id = fk_profile_intern(t->p, s + i, e - i);
		if (id < 0)
			return (int)id;
		if (FK_GROW(t->tmp, t->tmp_cap, t->tmp_n + 1))
			return -FK_E_NOMEM;
		t->tmp[t->tmp_n++] = (uint32_t)id;
		if (!sc)
			return 0;
		i = e + 1;
	}
}

/* The frame ids of one frame line, root-first within the line, into tmp.
 * Returns 0, 1 when the line does not parse, or a negative error. */
static int frame_compute(struct pp *t, const char *l, size_t len)
{
	struct frm f;
	t->tmp_n = 0;
	if (!match_frame(l, len, &f))
		return 1;
	const char *mod = l + f.m0, *func = l + f.f0;
	size_t mlen = f.m1 - f.m0, flen = f.f1 - f.f0, pclen = f.pc1 - f.pc0;
	if (!valid_utf8((const unsigned char *)func, flen) && !t->saw_utf8) {
		t->saw_utf8 = true;
		t->utf8_line = t->lineno;
	}
	if (t->o->inline_frames && inline_mod_ok(mod, mlen)) {
		char *pc = strndup(l + f.pc0, pclen), *m = strndup(mod, mlen), *rf = strndup(func, flen);
		char *res = pc && m && rf ? addr2line_frames(t, pc, m, rf, 0) : NULL;
		free(pc), free(m), free(rf);
		if (!res)
			return -FK_E_NOMEM;
		bool ok = *res && strcmp(res, "??") && strcmp(res, "??:??:0");
		int rc = ok ? push_name(t, res, strlen(res), true) : 0;
		free(res);
		if (rc || ok)
			return rc;
	}
	flen = strip_offset(func, flen);
	if (flen && func[0] == '(')
		return 0;
	while (flen >= 2 && func[flen - 1] == '>' && func[flen - 2] == '-')
		flen -= 2;
	if (!flen)
		return 0;
	if (grow_bytes(&t->sbuf, &t->sbuf_cap, flen + mlen + pclen + 16))
		return -FK_E_NOMEM;
	for (size_t i = 0, first = 1;; first = 0) {
		const char *a = find2(func + i, flen - i, "->", 2);
		size_t pe = a ? (size_t)(a - func) : flen;
		size_t tl = tidy_piece(t->sbuf, func + i, pe - i, l + f.pc0, pclen, mod, mlen, t->java,
				       first, t->o);
		int rc = push_name(t, t->sbuf, tl, false);
		if (rc)
			return rc;
		if (!a)
			return 0;
		i = pe + 2;
	}
}

/* Look a key up by its fingerprint; on a miss compute the ids (from the frame line, or
 * the process name) and insert. ids/nres describe them (nres NRES_BAD: the line does not
 * parse); they point into tmp or rids and stay valid until the next lookup. */
#define JAVA_MARK 0x5bd1e9955bd1e995ULL
static inline __attribute__((always_inline)) struct h128 frame_key(const struct pp *t, const char *l,
								  size_t len, bool modfree, bool *ok);

/* ids/nres of a table result (see struct fent). */
static inline void decode_res(struct pp *t, uint32_t r, const uint32_t **ids, uint32_t *nres)
{
	if (FK_LIKELY(r < RES_MULTI)) {
		t->one = r;
		*ids = &t->one;
		*nres = 1;
	} else if (r == RES_BAD) {
		*nres = NRES_BAD;
	} else if (r == RES_NONE) {
		*nres = 0;
	} else {
		*nres = t->rids[r & ~RES_MULTI];
		*ids = t->rids + (r & ~RES_MULTI) + 1;
	}
}


static int cache_lookup(struct pp *t, struct ftab *tab, struct h128 h, const uint32_t **ids,
			uint32_t *nres, bool is_pname, const char *line, size_t llen)
{
	h.a |= 1ull << 63; /* 0 marks an empty slot */
	uint32_t chk = (uint32_t)h.b;
	size_t i = h.a & tab->mask;
	const struct fent *e;
	for (; (e = &tab->t[i])->hash; i = (i + 1) & tab->mask) {
		if (e->hash == h.a && e->check == chk) {
			decode_res(t, e->res, ids, nres);
			return 0;
		}
	}
	int rc;
	struct h128 g = { 0, 0 };
	bool g_ok = false;
	size_t gj = 0;
	if (is_pname) {
		t->tmp_n = 0;
		rc = push_name(t, line, llen, true);
		if (!t->saw_utf8 && !valid_utf8((const unsigned char *)line, llen)) {
			t->saw_utf8 = true;
			t->utf8_line = t->lineno;
		}
	} else {
		/* second chance: the same function text in another module of the same class */
		if (!t->pc_key) {
			g = frame_key(t, line, llen, true, &g_ok);
			if (g_ok) {
				g.a |= 1ull << 63;
				if (t->java)
					g.b ^= JAVA_MARK;
				gj = g.a & t->fc2.mask;
				for (const struct fent *f; (f = &t->fc2.t[gj])->hash; gj = (gj + 1) & t->fc2.mask) {
					if (f->hash == g.a && f->check == (uint32_t)g.b) {
						uint32_t r = f->res;
						tab->t[i] = (struct fent){ h.a, chk, r };
						if (++tab->n * 2 > tab->mask + 1 && ftab_grow(t, tab))
							return -FK_E_NOMEM;
						decode_res(t, r, ids, nres);
						return 0;
					}
				}
			}
		}
		rc = frame_compute(t, line, llen);
	}
	if (rc < 0)
		return rc;
	uint32_t nr = rc == 1 ? NRES_BAD : (uint32_t)t->tmp_n, res;
	*nres = nr;
	*ids = t->tmp;
	if (nr == NRES_BAD)
		res = RES_BAD;
	else if (nr == 0)
		res = RES_NONE;
	else if (nr == 1 && t->tmp[0] < RES_MULTI)
		res = t->tmp[0];
	else if (t->rids_len + nr + 1 >= RES_MULTI - 2)
		return 0; /* no room to cache it: computed again next time */
	else if (FK_GROW(t->rids, t->rids_cap, t->rids_len + nr + 1))
		return -FK_E_NOMEM;
	else {
		res = RES_MULTI | (uint32_t)t->rids_len;
		t->rids[t->rids_len] = nr;
		memcpy(t->rids + t->rids_len + 1, t->tmp, nr * sizeof(uint32_t));
		*ids = t->rids + t->rids_len + 1;
		t->rids_len += nr + 1;
	}
	tab->t[i] = (struct fent){ h.a, chk, res };
	if (g_ok) {
		t->fc2.t[gj] = (struct fent){ g.a, (uint32_t)g.b, res };
		if (++t->fc2.n * 2 > t->fc2.mask + 1 && ftab_grow(t, &t->fc2))
			return -FK_E_NOMEM;
	}
	if (++tab->n * 2 > tab->mask + 1 && ftab_grow(t, tab))
		return -FK_E_NOMEM;
	return 0;
}

/* ------------------------------------------------------------------ per-line handlers */

static int push_frames(struct pp *t, const uint32_t *ids, uint32_t n)
{
	if (FK_UNLIKELY(t->fr_n + n > t->fr_cap) && FK_GROW(t->fr, t->fr_cap, t->fr_n + n))
		return -FK_E_NOMEM;
	uint32_t *d = t->fr + t->fr_n;
	for (uint32_t i = n; i-- > 0;)
		*d++ = ids[i];
	t->fr_n += n;
	return 0;
}

/* The end of a frame line's second key (see frame_key): the start of the module, which
 * begins at the last " (" before the last ')' (rp), as in match_frame, less the offset
 * after the function name, when the function text [k0, there) has no '['; else len (and
 * *ok false). Sets the key's flag bits. */
static inline size_t key_end(const struct pp *t, const char *l, size_t len, size_t k0, const char *rp,
			     unsigned *flags, bool *ok)
{
	for (const char *op = rp - 1; op > l + k0; op--) {
		if (*op != '(' || op[-1] != ' ')
			continue;
		size_t P = (size_t)(op - 1 - l);
		if (memchr(l + k0, '[', P - k0))
			break;
		const char *mod = op + 1;
		size_t mlen = (size_t)(rp - mod);
		*ok = true;
		*flags |= 4u | (unsigned)(t->kern && is_kernel_mod(mod, mlen)) << 3 |
			  (unsigned)(t->jitm && is_jit_mod(mod, mlen)) << 4;
		/* and without the "+0x..." offset, which tidying drops (strip_offset) */
		return k0 + strip_offset(l + k0, P - k0);
	}
	return len;
}

/* Fingerprint of a frame line's key, before the process-name dependent part (java).
 * The folded result depends on the bytes after the address, except when the address
 * itself can end up in the name (--addrs, --inline, or perl's regex backtracking into it
 * when " (" follows the address directly). */
/* modfree: key without the module (see below); false when that is not possible. */
static inline __attribute__((always_inline)) struct h128 frame_key(const struct pp *t, const char *l,
								  size_t len, bool modfree, bool *ok)
{
	size_t s = 0;
#if defined(__SSE2__)
	/* perf right-aligns addresses in a 16-column field: skip the blanks 16 at a time */
	while (s + 16 <= len) {
		__m128i v = _mm_loadu_si128((const __m128i *)(l + s));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
								     _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
		if (m != 0xffff) {
			s += (size_t)__builtin_ctz(~m);
			break;
		}
		s += 16;
	}
#endif
	while (s < len && IS_WS(l[s]))
		s++;
	size_t w = s;
#if defined(__SSE2__)
	/* the address: a run of \w bytes, 16 at a time (bytes >= 0x80 compare negative, so
	 * they fall outside every range, as in IS_W) */
	while (w + 16 <= len) {
		__m128i v = _mm_loadu_si128((const __m128i *)(l + w));
		__m128i lo = _mm_or_si128(v, _mm_set1_epi8(0x20));
		__m128i dig = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
					    _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
		__m128i alp = _mm_and_si128(_mm_cmpgt_epi8(lo, _mm_set1_epi8('a' - 1)),
					    _mm_cmplt_epi8(lo, _mm_set1_epi8('z' + 1)));
		__m128i und = _mm_cmpeq_epi8(v, _mm_set1_epi8('_'));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(dig, alp), und));
		if (m != 0xffff) {
			w += (size_t)__builtin_ctz(~m);
			break;
		}
		w += 16;
	}
#endif
	while (w < len && IS_W(l[w]))
		w++;
	bool whole = t->pc_key || (w + 1 < len && l[w] == ' ' && l[w + 1] == '(');
	size_t k0 = whole ? s : w, kend = len;
	unsigned flags = (unsigned)(w > s) | (unsigned)whole << 1;
	/* The module only matters through "[unknown]" names and the --kernel/--jit tests: when
	 * the function text has no '[', a second key is the function text plus those two
	 * answers, so the same JIT symbol in a thousand /tmp/perf-PID.map files is tidied once.
	 * The module starts at the last " (" before the last ')', as in match_frame. */
	*ok = !modfree;
	const char *rp = !modfree || t->pc_key ? NULL : memrchr(l + k0, ')', len - k0);
	if (rp)
		kend = key_end(t, l, len, k0, rp, &flags, ok);
	return hash128(l + k0, kend - k0, HK1 * (flags + 1));
}

static inline __attribute__((always_inline)) struct h128 frame_hash(const struct pp *t, const char *l,
								   size_t len)
{
	bool ok = false;
	/* JIT code: the same symbol in the /tmp/perf-PID.map of many processes folds the same
	 * way, so those lines are keyed by their function text and class alone (frame_key's
	 * second key; the whole line when that is not possible). */
	bool jit = len > 5 && !memcmp(l + len - 5, ".map)", 5) && !t->pc_key;
#if defined(__SSE2__)
	/* perf's own layout: a tab, the address right-aligned in 16 columns, a blank. Checked
	 * in one vector compare; the key is the one frame_key computes for such a line. */
	if (FK_LIKELY(len >= 19 && l[0] == '\t' && l[17] == ' ')) {
		__m128i v = _mm_loadu_si128((const __m128i *)(l + 1));
		__m128i lo = _mm_or_si128(v, _mm_set1_epi8(0x20));
		__m128i dig = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
					    _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
		__m128i hex = _mm_and_si128(_mm_cmpgt_epi8(lo, _mm_set1_epi8('a' - 1)),
					    _mm_cmplt_epi8(lo, _mm_set1_epi8('f' + 1)));
		unsigned sp = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
		unsigned hx = (unsigned)_mm_movemask_epi8(_mm_or_si128(dig, hex));
		if ((sp | hx) == 0xffff && !(sp & (sp + 1)) && hx) {
			bool whole = t->pc_key || l[18] == '(';
			size_t k0 = whole ? 1 + (size_t)__builtin_popcount(sp) : 17, kend = len;
			unsigned flags = 1u | (unsigned)whole << 1;
			if (jit)
				kend = key_end(t, l, len, k0, l + len - 1, &flags, &ok);
			return hash128(l + k0, kend - k0, HK1 * (flags + 1));
		}
	}
#endif
	return frame_key(t, l, len, jit, &ok);
}

static void frame_line_h(struct pp *t, const char *l, size_t len, struct h128 h)
{
	if (!t->have_pname) {
		struct frm f;
		if (!match_frame(l, len, &f))
			bad(t, "unrecognized line", l, len);
		else
			t->orphans++; /* a frame outside any sample: skipped, as the perl does */
		return;
	}
	if (t->java) /* java names are tidied differently: another entry, same slot run */
		h.b ^= JAVA_MARK;
	const uint32_t *ids;
	uint32_t n;
	int rc = cache_lookup(t, &t->fc, h, &ids, &n, false, l, len);
	if (rc < 0) {
		set_err(t, rc);
		return;
	}
	if (n == NRES_BAD) {
		bad(t, "unrecognized line", l, len);
		return;
	}
	if (n && (rc = push_frames(t, ids, n)))
		set_err(t, rc);
}

/* The common case inline: a cached line of one frame, room for it in fr. */
static inline __attribute__((always_inline)) void frame_line_fast(struct pp *t, const char *l,
								  size_t len, struct h128 h)
{
	if (FK_LIKELY(t->have_pname)) {
		uint64_t ha = h.a | 1ull << 63;
		uint32_t chk = (uint32_t)(t->java ? h.b ^ JAVA_MARK : h.b);
		const struct fent *tab = t->fc.t;
		for (size_t i = ha & t->fc.mask;; i = (i + 1) & t->fc.mask) {
			const struct fent *e = &tab[i];
			if (e->hash == ha && e->check == chk) {
				if (FK_LIKELY(e->res < RES_MULTI && t->fr_n < t->fr_cap)) {
					t->fr[t->fr_n++] = e->res;
					return;
				}
				break;
			}
			if (!e->hash)
				break;
		}
	}
	frame_line_h(t, l, len, h);
}

static void frame_line(struct pp *t, const char *l, size_t len)
{
	frame_line_h(t, l, len, frame_hash(t, l, len));
}

/* A sample ends (blank line): find its stack among the unique ones (or add it) and add its
 * weight there. The call tree is built once at the end (build_tree), so a new stack costs
 * no tree walk here and the second thread needs no merge of trees. */
/* Add one sample of stack k[0..n) (fingerprint hh) with weight w to the unique stacks. */
static void stack_add(struct pp *t, const uint32_t *k, size_t n, struct h128 hh, double w)
{
	uint64_t h = hh.a | 1ull << 63;
	size_t i = h & t->st_mask;
	struct sent *e;
	for (; (e = &t->st[i])->hash; i = (i + 1) & t->st_mask)
		if (e->hash == h && e->check == hh.b && e->n == n)
			break;
	uint32_t idx;
	if (e->hash) {
		idx = e->idx;
		e->w += w;
	} else {
		if (n > UINT32_MAX || t->nstk >= UINT32_MAX || FK_GROW(t->sids, t->sids_cap, t->sids_len + n))
			return set_err(t, -FK_E_NOMEM);
		memcpy(t->sids + t->sids_len, k, n * sizeof(uint32_t));
		idx = (uint32_t)t->nstk++;
		*e = (struct sent){ h, hh.b, t->sids_len, (uint32_t)n, idx, w };
		t->sids_len += n;
		if (++t->st_n * 2 > t->st_mask + 1) {
			struct sent *nt = table_double(t, t->st, t->st_mask + 1, sizeof(*nt));
			if (!nt)
				return set_err(t, -FK_E_NOMEM);
			t->st = nt;
			t->st_mask = t->st_mask * 2 + 1;
		}
	}
	if (t->keep_samples) {
		if (FK_GROW(t->ps, t->ps_cap, t->ps_n + 1))
			return set_err(t, -FK_E_NOMEM);
		const fk_sample_info *in = &t->info;
		uint32_t comm = 0;
		if (in->comm && in->comm_len) {
			int64_t id = fk_profile_intern(t->p, in->comm, in->comm_len);
			if (id < 0)
				return set_err(t, (int)id);
			comm = (uint32_t)id;
		}
		t->ps[t->ps_n++] = (struct psamp){ in->time, w, idx, comm, in->pid, in->tid, in->cpu };
	}
	t->samples++;
}

/* The stack that end_sample left for later, so its table slot could be fetched meanwhile.
 * Done before anything looks at the stacks or the counts (parse_region ends with it). */
static inline void finish_pending(struct pp *t)
{
	if (t->pend) {
		t->pend = false;
		stack_add(t, t->pkey, t->pend_n, t->pend_h, t->pend_w);
	}
}

static void end_sample(struct pp *t)
{
	if (!t->have_pname)
		return;
	const uint32_t *pn = t->pn_n == 1 ? &t->pn_res : t->rids + t->pn_res;
	uint32_t npn = t->o->no_comm ? 0 : t->pn_n;
	t->have_pname = false;
	size_t nfr = t->fr_n, n = nfr + npn;
	t->fr_n = 0;
	if (n == 0)
		return;
	if (FK_GROW(t->key, t->key_cap, n))
		return set_err(t, -FK_E_NOMEM);
	uint32_t *k = t->key;
	memcpy(k, pn, npn * sizeof(uint32_t));
	for (size_t j = 0; j < nfr; j++)
		k[npn + j] = t->fr[nfr - 1 - j];
	struct h128 hh = hash128((const char *)k, n * sizeof(uint32_t), HK2);
	if (t->keep_samples) /* the sample record reads this header's fields: no deferring */
		return stack_add(t, k, n, hh, t->weight);
	/* The unique-stack table is far bigger than the cache: prefetch this stack's slot and
	 * add it when the next sample ends, one sample's lines later. */
	finish_pending(t);
	__builtin_prefetch(&t->st[(hh.a | 1ull << 63) & t->st_mask]);
	uint32_t *sw = t->pkey;
	size_t sc = t->pkey_cap;
	t->pkey = t->key;
	t->pkey_cap = t->key_cap;
	t->key = sw;
	t->key_cap = sc;
	t->pend = true;
	t->pend_n = n;
	t->pend_h = hh;
	t->pend_w = t->weight;
}

struct sortctx {
	const uint32_t *ids;
	const uint64_t *off;
	const uint32_t *len;
};

static int stack_cmp(const void *a, const void *b, void *arg)
{
	const struct sortctx *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const uint32_t *p = c->ids + c->off[x], *q = c->ids + c->off[y];
	uint32_t n = c->len[x] < c->len[y] ? c->len[x] : c->len[y];
	for (uint32_t i = 0; i < n; i++)
		if (p[i] != q[i])
			return p[i] < q[i] ? -1 : 1;
	return (c->len[x] > c->len[y]) - (c->len[x] < c->len[y]);
}

/* Sort ord[0..ns) by the id sequences (ids + off[x], len[x] ids) in stack_cmp's order,
 * all of which share their first d ids. Most-significant first: ids d..d+2 (+1, 21 bits
 * each; 0 past the end) make a 63-bit key, sorted by radix (11 bits a pass); runs of
 * equal keys go one level deeper; small runs are compared whole. */
static void sort_seqs_at(uint32_t *ord, size_t ns, const struct sortctx *sc, uint32_t d, uint64_t *key,
			 uint64_t *k2, uint32_t *tmp)
{
	if (ns < 64) {
		qsort_r(ord, ns, sizeof(*ord), stack_cmp, (void *)sc);
		return;
	}
	for (size_t i = 0; i < ns; i++) {
		uint32_t x = ord[i], n = sc->len[x];
		const uint32_t *q = sc->ids + sc->off[x];
		uint64_t k = 0;
		for (uint32_t j = d; j < d + 3; j++) {
			uint64_t v = j < n ? (uint64_t)q[j] + 1 : 0;
			if (v >= 1u << 21) { /* ids past 2^21 - 2: compare whole */
				qsort_r(ord, ns, sizeof(*ord), stack_cmp, (void *)sc);
				return;
			}
			k = k << 21 | v;
		}
		key[i] = k;
	}
	uint32_t cnt[2048];
	for (unsigned sh = 0; sh < 63; sh += 11) {
		memset(cnt, 0, sizeof(cnt));
		for (size_t i = 0; i < ns; i++)
			cnt[key[i] >> sh & 2047]++;
		if (cnt[key[0] >> sh & 2047] == ns)
			continue; /* every key has this digit: the order stands */
		uint32_t sum = 0;
		for (size_t b = 0; b < 2048; b++) {
			uint32_t c = cnt[b];
			cnt[b] = sum;
			sum += c;
		}
		for (size_t i = 0; i < ns; i++) {
			uint32_t o = cnt[key[i] >> sh & 2047]++;
			k2[o] = key[i];
			tmp[o] = ord[i];
		}
		memcpy(key, k2, ns * sizeof(*key));
		memcpy(ord, tmp, ns * sizeof(*ord));
	}
	for (size_t i = 0; i < ns;) {
		size_t j = i + 1;
		while (j < ns && key[j] == key[i])
			j++;
		/* equal keys with the last id present: they go on past d + 3 */
		if (j - i > 1 && (key[i] & ((1u << 21) - 1)))
			sort_seqs_at(ord + i, j - i, sc, d + 3, key + i, k2 + i, tmp + i);
		i = j;
	}
}

static void sort_seqs(uint32_t *ord, size_t ns, const uint32_t *ids, const uint64_t *off,
		      const uint32_t *len)
{
	struct sortctx sc = { ids, off, len };
	uint64_t *key = malloc(2 * ns * sizeof(*key));
	uint32_t *tmp = malloc(ns * sizeof(*tmp));
	if (key && tmp)
		sort_seqs_at(ord, ns, &sc, 0, key, key + ns, tmp);
	else
		qsort_r(ord, ns, sizeof(*ord), stack_cmp, &sc);
	free(key);
	free(tmp);
}

/* The unique stacks of t as arrays by index (offsets into sids, lengths, weights), then
 * their order root-first in sord (each needs only t: the second thread makes them before
 * it hands over). */
static int stack_arrays(struct pp *t)
{
	size_t ns = t->nstk;
	if (t->soff || !ns)
		return 0;
	t->soff = malloc(ns * sizeof(*t->soff));
	t->slen = malloc(ns * sizeof(*t->slen));
	t->sw = malloc(ns * sizeof(*t->sw));
	if (!t->soff || !t->slen || !t->sw)
		return -FK_E_NOMEM;
	for (size_t i = 0; i <= t->st_mask; i++) {
		if (t->st[i].hash) {
			t->soff[t->st[i].idx] = t->st[i].off;
			t->slen[t->st[i].idx] = t->st[i].n;
			t->sw[t->st[i].idx] = t->st[i].w;
		}
	}
	return 0;
}

static int sort_stacks(struct pp *t)
{
	size_t ns = t->nstk;
	int rc = stack_arrays(t);
	if (rc || t->sord || !ns)
		return rc;
	if (!(t->sord = malloc(ns * sizeof(*t->sord))))
		return -FK_E_NOMEM;
	for (size_t i = 0; i < ns; i++)
		t->sord[i] = (uint32_t)i;
	sort_seqs(t->sord, ns, t->sids, t->soff, t->slen);
	return 0;
}

/* The weights of t's unique stacks onto their leaves in dst, or its samples in input order. */
static int add_weights(const struct pp *t, fk_profile *dst, const uint32_t *leaf)
{
	int rc = 0;
	if (!t->keep_samples) {
		for (size_t i = 0; i < t->nstk && !rc; i++)
			rc = fk_profile_add_to_node(dst, leaf[i], 0, t->sw[i], NULL);
		return rc;
	}
	for (size_t i = 0; i < t->ps_n && !rc; i++) {
		const struct psamp *sp = &t->ps[i];
		fk_sample_info in = { .time = sp->time, .pid = sp->pid, .tid = sp->tid, .cpu = sp->cpu };
		if (sp->comm)
			in.comm = fk_profile_name(t->p, sp->comm, &in.comm_len);
		rc = fk_profile_add_to_node(dst, leaf[sp->stk], 0, sp->weight, &in);
	}
	return rc;
}

/* Put the unique stacks of t into dst (fmap: t's name ids -> dst's, or NULL when t parsed
 * into dst itself), then the weights, or the samples in input order. In sorted order a
 * stack shares its longest prefix with the one before, so only new nodes are looked up. */
static int build_tree(struct pp *t, fk_profile *dst, const uint32_t *fmap)
{
	size_t ns = t->nstk;
	if (t->built || !ns)
		return 0;
	t->built = true;
	int rc = sort_stacks(t);
	if (rc)
		return rc;
	const uint64_t *off = t->soff;
	const uint32_t *len = t->slen, *ord = t->sord;
	uint32_t *leaf = t->leaf = malloc(ns * sizeof(*leaf)), *path = NULL;
	size_t path_cap = 0;
	if (!leaf)
		return -FK_E_NOMEM;
	/* In sorted order the nodes a stack adds are those past its common prefix with the one
	 * before: reserve them all. */
	const uint32_t *prev = NULL;
	uint32_t prevn = 0;
	size_t total = 0;
	for (size_t i = 0; i < ns; i++) {
		uint32_t x = ord[i], n = len[x], l = 0;
		const uint32_t *seq = t->sids + off[x];
		while (prev && l < n && l < prevn && seq[l] == prev[l])
			l++;
		total += n - l;
		prev = seq;
		prevn = n;
	}
	if ((rc = fk_profile_reserve_nodes(dst, total)))
		goto out;
	if (t->want_spath && !(t->spath = malloc((t->sids_len ? t->sids_len : 1) * sizeof(*t->spath)))) {
		rc = -FK_E_NOMEM;
		goto out;
	}
	prev = NULL;
	prevn = 0;
	for (size_t i = 0; i < ns; i++) {
		uint32_t x = ord[i], n = len[x];
		const uint32_t *seq = t->sids + off[x];
		if (FK_GROW(path, path_cap, n)) {
			rc = -FK_E_NOMEM;
			goto out;
		}
		uint32_t l = 0;
		while (prev && l < n && l < prevn && seq[l] == prev[l])
			l++;
		/* In sorted order no node this loop adds can be the child looked up here (the
		 * stacks sharing a prefix are contiguous), so only nodes that were there before
		 * are searched, and new ones are not indexed one by one. */
		for (uint32_t k = l; k < n; k++) {
			int64_t c = fk_profile_child_unindexed(dst, k ? path[k - 1] : 0,
							       fmap ? fmap[seq[k]] : seq[k]);
			if (c < 0) {
				rc = (int)c;
				goto out;
			}
			path[k] = (uint32_t)c;
			size_t nn;
			fk_profile_nodes(dst, &nn);
			if (!fmap && (size_t)c == nn - 1) {
				/* a new node: all below it are new too, appended as a chain */
				if ((rc = fk_profile_append_chain(dst, (uint32_t)c, seq + k + 1, n - k - 1,
								  path + k + 1)))
					goto out;
				break;
			}
		}
		leaf[x] = path[n - 1];
		if (t->spath)
			memcpy(t->spath + off[x], path, n * sizeof(*path));
		prev = seq;
		prevn = n;
	}
	rc = add_weights(t, dst, leaf);
out:
	free(path);
	return rc;
}

/* Order of two id sequences, and the length of their common prefix in *lcp. */
static int seq_cmp(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb, uint32_t *lcp)
{
	uint32_t n = na < nb ? na : nb, i = 0;
	while (i < n && a[i] == b[i])
		i++;
	*lcp = i;
	if (i < n)
		return a[i] < b[i] ? -1 : 1;
	return (na > nb) - (na < nb);
}

/* The second thread's stacks merged into a tree that holds exactly base's (built from
 * nothing), with no index of children. t's stacks, mapped to dst's ids and sorted, are
 * walked along base's sorted ones; the longest prefix a new stack shares with the tree is
 * the one it shares with its neighbour before or after it in that order (base's, or the
 * new stack added just before), and the nodes of that prefix are the neighbour's leaf and
 * its parents. Only the rest is created.
 * The plan (mapping, sorting, the walk) needs base's sorted stacks and dst's names but
 * not base's tree: the second thread makes it while the first builds that tree. */
struct mplan {
	uint32_t *ids;   /* t's stacks in dst's ids (same offsets as t->sids) */
	uint32_t *ord;   /* t's stacks sorted */
	uint32_t *from;  /* per ord entry: base's equal stack, or the base stack to copy the
			  * prefix from, or UINT32_MAX (the prefix is the previous new stack's) */
	uint32_t *plen;  /* per ord entry: UINT32_MAX when equal to from, else the prefix length */
	uint64_t *soff;  /* per ord entry: the stack's offset in ids (read in order after the join) */
	uint32_t *slen;  /* per ord entry: its length */
	size_t nnew;     /* nodes the merge adds */
	bool done;
};

static void mplan_free(struct mplan *m)
{
	free(m->ids);
	free(m->ord);
	free(m->from);
	free(m->plen);
	free(m->soff);
	free(m->slen);
	memset(m, 0, sizeof(*m));
}

static int merge_plan(struct mplan *m, const struct pp *t, const uint32_t *fmap, const struct pp *base)
{
	size_t ns = t->nstk;
	m->ids = malloc((t->sids_len ? t->sids_len : 1) * sizeof(*m->ids));
	m->ord = malloc((ns ? ns : 1) * sizeof(*m->ord));
	m->from = malloc((ns ? ns : 1) * sizeof(*m->from));
	m->plen = malloc((ns ? ns : 1) * sizeof(*m->plen));
	m->soff = malloc((ns ? ns : 1) * sizeof(*m->soff));
	m->slen = malloc((ns ? ns : 1) * sizeof(*m->slen));
	if (!m->ids || !m->ord || !m->from || !m->plen || !m->soff || !m->slen)
		return -FK_E_NOMEM;
	for (size_t i = 0; i < t->sids_len; i++)
		m->ids[i] = fmap[t->sids[i]];
	for (size_t i = 0; i < ns; i++)
		m->ord[i] = (uint32_t)i;
	sort_seqs(m->ord, ns, m->ids, t->soff, t->slen);
	const uint32_t *bord = base->sord, *blen = base->slen;
	const uint64_t *boff = base->soff;
	size_t bi = 0, bn = base->nstk;
	const uint32_t *prev = NULL; /* the last new stack */
	uint32_t prevn = 0;
	for (size_t j = 0; j < ns; j++) {
		uint32_t x = m->ord[j], n = t->slen[x], lq = 0, lp = 0, lv = 0;
		const uint32_t *seq = m->ids + t->soff[x];
		m->soff[j] = t->soff[x];
		m->slen[j] = n;
		int c = 1;
		while (bi < bn && (c = seq_cmp(base->sids + boff[bord[bi]], blen[bord[bi]], seq, n, &lq)) < 0)
			bi++;
		if (bi < bn && c == 0) {
			m->from[j] = bord[bi];
			m->plen[j] = UINT32_MAX;
			continue;
		}
		if (bi == bn)
			lq = 0;
		if (bi > 0)
			seq_cmp(base->sids + boff[bord[bi - 1]], blen[bord[bi - 1]], seq, n, &lp);
		if (prev)
			seq_cmp(prev, prevn, seq, n, &lv);
		if (lp > lv || lq > lv) {
			m->from[j] = lp >= lq ? bord[bi - 1] : bord[bi];
			m->plen[j] = lp >= lq ? lp : lq;
		} else {
			m->from[j] = UINT32_MAX;
			m->plen[j] = lv;
		}
		m->nnew += n - m->plen[j];
		prev = seq;
		prevn = n;
	}
	m->done = true;
	return 0;
}

static int merge_apply(const struct mplan *m, struct pp *t, fk_profile *dst, const struct pp *base)
{
	size_t ns = t->nstk, path_cap = 0;
	uint32_t *path = NULL, *leaf = t->leaf = malloc((ns ? ns : 1) * sizeof(*leaf));
	int rc = 0;
	t->built = true;
	if (!leaf || (rc = fk_profile_grow_nodes(dst, m->nnew))) {
		rc = rc ? rc : -FK_E_NOMEM;
		goto out;
	}
	for (size_t j = 0; j < ns; j++) {
		uint32_t x = m->ord[j], n = m->slen[j], y = m->from[j], l = m->plen[j];
		if (l == UINT32_MAX) {
			leaf[x] = base->leaf[y];
			continue;
		}
		const uint32_t *seq = m->ids + m->soff[j];
		if (FK_GROW(path, path_cap, n)) {
			rc = -FK_E_NOMEM;
			goto out;
		}
		/* the nodes of the prefix: a base neighbour's (else path[] still holds the
		 * previous new stack's) */
		if (y != UINT32_MAX)
			memcpy(path, base->spath + base->soff[y], l * sizeof(*path));
		/* none of the rest exists (l is the longest prefix the tree has) */
		if ((rc = fk_profile_append_chain(dst, l ? path[l - 1] : 0, seq + l, n - l, path + l)))
			goto out;
		leaf[x] = path[n - 1];
	}
	rc = add_weights(t, dst, leaf);
out:
	free(path);
	return rc;
}

static int merge_tree(struct pp *t, fk_profile *dst, const uint32_t *fmap, const struct pp *base,
		      struct mplan *m)
{
	if (t->built || !t->nstk)
		return 0;
	if (!base->spath)
		return -FK_E_INVAL; /* base was not built to be merged along */
	int rc = stack_arrays(t); /* the plan sorts them its own way */
	if (!rc && !m->done) {
		mplan_free(m);
		rc = merge_plan(m, t, fmap, base);
	}
	if (!rc)
		rc = merge_apply(m, t, dst, base);
	t->built = true;
	return rc;
}

/* Name ids of src -> ids in dst (interning them there). NULL + *err on failure. */
static uint32_t *map_names(fk_profile *dst, const fk_profile *src, int *err)
{
	size_t n = fk_profile_name_count(src);
	uint32_t *m = malloc((n + 1) * sizeof(*m));
	if (!m) {
		*err = -FK_E_NOMEM;
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		size_t l;
		const char *s = fk_profile_name(src, (uint32_t)i, &l);
		int64_t id = fk_profile_intern(dst, s, l);
		if (id < 0) {
			*err = (int)id;
			free(m);
			return NULL;
		}
		m[i] = (uint32_t)id;
	}
	return m;
}

/* Digits -> number as perl numifies them (exact below 2^53). */
static double digits_value(const char *s, size_t n)
{
	double v = 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

static void parse_info(struct pp *t, const char *l, size_t len, const struct hdr *h)
{
	fk_sample_info *in = &t->info;
	in->time = NAN;
	in->cpu = -1;
	bool has_b = h->b1 > h->b0;
	/* a pid/tid beyond int32 (corrupt input) is unknown, not undefined behaviour */
	double pv = has_b ? digits_value(l + h->a0, h->a1 - h->a0) : -1;
	double tv = digits_value(l + (has_b ? h->b0 : h->a0), has_b ? h->b1 - h->b0 : h->a1 - h->a0);
	in->pid = pv >= 0 && pv <= INT32_MAX ? (int32_t)pv : -1;
	in->tid = tv >= 0 && tv <= INT32_MAX ? (int32_t)tv : -1;
	if (!has_b && in->tid == 0)
		in->pid = 0; /* "swapper 0" is the idle task */
	if (grow_bytes(&t->comm, &t->comm_cap, h->comm_len + 1) == 0) {
		memcpy(t->comm, l, h->comm_len);
		in->comm = t->comm;
		in->comm_len = h->comm_len;
	} else {
		in->comm = NULL;
		in->comm_len = 0;
	}
	/* then optional "[CPU]" and "SECONDS.FRACTION:" */
	size_t i = h->end;
	while (i < len) {
		while (i < len && IS_WS(l[i]))
			i++;
		size_t s = i;
		while (i < len && !IS_WS(l[i]))
			i++;
		if (i - s >= 3 && l[s] == '[' && l[i - 1] == ']') {
			size_t k = s + 1;
			while (k < i - 1 && IS_D(l[k]))
				k++;
			double cv = digits_value(l + s + 1, k - s - 1);
			if (k == i - 1 && cv <= INT32_MAX)
				in->cpu = (int32_t)cv;
			continue;
		}
		size_t k = s;
		while (k < i && IS_D(l[k]))
			k++;
		if (k > s && k < i && l[k] == '.' && l[i - 1] == ':') {
			size_t f0 = k + 1, f = f0;
			while (f < i - 1 && IS_D(l[f]))
				f++;
			if (f == i - 1) {
				in->time = digits_value(l + s, k - s) +
					   digits_value(l + f0, f - f0) / pow(10, (double)(f - f0));
			}
		}
		break;
	}
}

static void header_line(struct pp *t, const char *l, size_t len)
{
	struct hdr h;
	if (!match_header(l, len, &h)) {
		/* perl then tries the frame regex on it */
		frame_line(t, l, len);
		return;
	}
	size_t e0, e1, d0, d1;
	double period = 1;
	if (match_event(l, len, &e0, &e1, &d0, &d1)) {
		size_t el = e1 - e0;
		struct evfilter *ev = &t->ev;
		if (!ev->set) {
			ev->set = ev->defaulted = true;
			if (el > sizeof(ev->name)) { /* absurd event name: compare by a prefix */
				el = sizeof(ev->name);
				ev->too_long = true;
			}
			memcpy(ev->name, l + e0, el);
			ev->len = el;
		} else if (el != ev->len || memcmp(l + e0, ev->name, el)) {
			if (!(ev->too_long && el > ev->len && !memcmp(l + e0, ev->name, ev->len))) {
				t->filtered++;
				if (!t->skipped) {
					t->skipped = true;
					t->skip_line = t->lineno;
					excerpt(t->skip_ev, sizeof(t->skip_ev), l + e0, el);
				}
				return;
			}
		}
		if (d1 > d0 && !(d1 - d0 == 1 && l[d0] == '0'))
			period = digits_value(l + d0, d1 - d0);
	}
	t->weight = t->o->samples ? 1 : period;

	/* $pname: comm[-pid[/tid]] with spaces made underscores */
	bool has_b = h.b1 > h.b0 && !(h.b1 - h.b0 == 1 && l[h.b0] == '0');
	size_t need = h.comm_len + (h.a1 - h.a0) + (h.b1 - h.b0) + 4;
	if (grow_bytes(&t->kbuf, &t->kbuf_cap, need))
		return set_err(t, -FK_E_NOMEM);
	char *k = t->kbuf;
	size_t n = h.comm_len;
	memcpy(k, l, n);
	if (t->o->tid || t->o->pid) {
		k[n++] = '-';
		if (has_b) {
			memcpy(k + n, l + h.a0, h.a1 - h.a0);
			n += h.a1 - h.a0;
		} else {
			k[n++] = '?';
		}
		if (t->o->tid) {
			size_t t0 = has_b ? h.b0 : h.a0, t1 = has_b ? h.b1 : h.a1;
			k[n++] = '/';
			memcpy(k + n, l + t0, t1 - t0);
			n += t1 - t0;
		}
	}
	for (size_t i = 0; i < h.comm_len; i++)
		if (k[i] == ' ')
			k[i] = '_';
	const uint32_t *ids;
	uint32_t nres;
	int rc = cache_lookup(t, &t->pc, hash128(k, n, HK2), &ids, &nres, true, k, n);
	if (rc < 0)
		return set_err(t, rc);
	if (nres == 1) {
		t->pn_res = ids[0];
	} else {
		/* several frames (';' in the name): they live in rids once cached */
		if (ids == t->tmp) {
			if (FK_GROW(t->rids, t->rids_cap, t->rids_len + nres))
				return set_err(t, -FK_E_NOMEM);
			memcpy(t->rids + t->rids_len, ids, nres * sizeof(uint32_t));
			ids = t->rids + t->rids_len;
			t->rids_len += nres;
		}
		t->pn_res = (uint32_t)(ids - t->rids);
	}
	t->pn_n = nres;
	t->java = n >= 4 && !memcmp(k, "java", 4);
	t->have_pname = true;
	if (t->keep_samples)
		parse_info(t, l, len, &h);
}

/* ------------------------------------------------------------------ regions */

#define CHUNK (64u << 10)
#define AHEAD 16 /* lines hashed ahead (a power of two, the size of hv) */
_Static_assert(AHEAD == sizeof(((struct pp *)0)->hv) / sizeof(struct h128), "hv holds AHEAD lines");

static inline void one_line(struct pp *t, const char *l, size_t len)
{
	char c = len ? l[0] : 0;
	if (c == '\t' || c == ' ')
		frame_line(t, l, len);
	else if (len == 0)
		end_sample(t);
	else if (c != '#')
		header_line(t, l, len);
}

/* Parse the lines of [buf, buf+len); the last one may lack its '\n'. Line numbers in
 * messages count from the region start (fixed up by the caller). */
static void parse_region(struct pp *t, const char *buf, size_t len, const fk_parse_opts *o,
			 bool progress)
{
	const char *p = buf, *end = buf + len;
	uint64_t next_prog = 64ull << 20;
	while (p < end && !t->err) {
		size_t n = (size_t)(end - p) < CHUNK ? (size_t)(end - p) : CHUNK;
		bool nul = false;
		size_t cnt = t->scan(p, n, t->ends, &nul);
		const char *ls = p;
		if (nul && !t->saw_nul) {
			const char *z = memchr(p, 0, n);
			size_t k = 0;
			while (k < cnt && p + t->ends[k] < z)
				k++;
			t->saw_nul = true;
			t->nul_line = t->lineno + k + 1;
		}
		/* Each frame line's fingerprint is computed AHEAD lines before the line is
		 * handled, and its cache slot prefetched then: the table misses overlap with the
		 * work of the lines in between (a burst of prefetches would stall on the CPU's
		 * few miss buffers). */
		const char *la = ls;
		size_t ia = 0;
		for (size_t i = 0; i < cnt; i++) {
			for (size_t stop = i + AHEAD < cnt ? i + AHEAD : cnt; ia < stop; ia++) {
				const char *le = p + t->ends[ia];
				size_t ll = (size_t)(le - la);
				if (ll && (la[0] == '\t' || la[0] == ' ')) {
					struct h128 h = frame_hash(t, la, ll);
					t->hv[ia % AHEAD] = h;
					__builtin_prefetch(&t->fc.t[h.a & t->fc.mask]);
				}
				la = le + 1;
			}
			const char *le = p + t->ends[i];
			size_t ll = (size_t)(le - ls);
			t->lineno++;
			if (ll && (ls[0] == '\t' || ls[0] == ' '))
				frame_line_fast(t, ls, ll, t->hv[i % AHEAD]);
			else
				one_line(t, ls, ll);
			ls = le + 1;
		}
		if (cnt == 0 && n == CHUNK) {
			/* a line longer than a chunk */
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *le = nl ? nl : end;
			t->lineno++;
			if ((size_t)(le - p) > FK_MAX_LINE)
				bad(t, "line longer than 16 MiB skipped", p, 60);
			else
				one_line(t, p, (size_t)(le - p));
			ls = nl ? nl + 1 : end;
		} else if (n < CHUNK && ls < end) {
			/* the last line of the region has no '\n' */
			t->lineno++;
			one_line(t, ls, (size_t)(end - ls));
			ls = end;
		}
		p = ls;
		if (progress && o->progress && (uint64_t)(p - buf) >= next_prog) {
			o->progress((uint64_t)(p - buf), o->progress_ctx);
			next_prog += 64ull << 20;
		}
	}
	finish_pending(t);
}

/* ------------------------------------------------------------------ thread contexts */

static int pp_init(struct pp *t, fk_profile *p, const fk_parse_opts *o, fk_perf_scan_fn scan)
{
	memset(t, 0, sizeof(*t));
	t->p = p;
	t->o = o;
	t->scan = scan;
	t->keep_samples = (fk_profile_flags(p) & FK_PROFILE_SAMPLES) != 0;
	t->pc_key = o->addrs || o->inline_frames;
	t->kern = o->kernel || o->all;
	t->jitm = o->jit || o->all;
	t->maxwarns = o->max_warnings ? o->max_warnings : 5;
	if (o->event_filter && *o->event_filter) {
		size_t el = strlen(o->event_filter);
		if (el > sizeof(t->ev.name))
			el = sizeof(t->ev.name), t->ev.too_long = true;
		memcpy(t->ev.name, o->event_filter, el);
		t->ev.len = el;
		t->ev.set = true;
	}
	t->warns = calloc(t->maxwarns + 1, sizeof(*t->warns));
	t->ends = malloc((CHUNK + FK_PERF_SCAN_SLACK) * sizeof(uint32_t));
	t->st = fk_zalloc(4096, sizeof(*t->st));
	t->st_mask = 4095;
	if (!t->warns || !t->ends || !t->st || ftab_init(&t->fc, 16384) || ftab_init(&t->fc2, 4096) ||
	    ftab_init(&t->pc, 256))
		return -FK_E_NOMEM;
	return 0;
}

static void pp_fini(struct pp *t)
{
	table_free(t->fc.t, t->fc.t ? t->fc.mask + 1 : 0, sizeof(*t->fc.t));
	table_free(t->pc.t, t->pc.t ? t->pc.mask + 1 : 0, sizeof(*t->pc.t));
	table_free(t->fc2.t, t->fc2.t ? t->fc2.mask + 1 : 0, sizeof(*t->fc2.t));
	free(t->rids);
	table_free(t->st, t->st ? t->st_mask + 1 : 0, sizeof(*t->st));
	for (unsigned i = 0; i < t->ngrave; i++)
		munmap(t->grave[i].p, t->grave[i].size);
	free(t->sids);
	free(t->sw);
	free(t->soff);
	free(t->slen);
	free(t->sord);
	free(t->leaf);
	free(t->spath);
	free(t->ps);
	free(t->key);
	free(t->pkey);
	free(t->comm);
	free(t->fr);
	free(t->tmp);
	free(t->sbuf);
	free(t->kbuf);
	free(t->ends);
	free(t->ibuf);
	free(t->warns);
	for (size_t i = 0; i < t->nm_n; i++)
		free(t->nm[i].mod), free(t->nm[i].out);
	free(t->nm);
}

#define IBUF (256u << 10) /* file input block: small enough to leave L2 to the tables */

/* Parse [off, end) of a regular file with pread into this thread's buffer. */
static void parse_fd_region(struct pp *t, int fd, uint64_t off, uint64_t end, const fk_parse_opts *o,
			    bool progress)
{
	size_t have = 0;
	bool skipping = false;
	uint64_t start = off, next_prog = 64ull << 20;
	if (!t->ibuf) {
		if (!(t->ibuf = malloc(IBUF)))
			return set_err(t, -FK_E_NOMEM);
		t->icap = IBUF;
	}
	while (!t->err) {
		size_t want = t->icap - have;
		if (want > end - off)
			want = (size_t)(end - off);
		ssize_t k = want ? pread(fd, t->ibuf + have, want, (off_t)off) : 0;
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return set_err(t, -errno);
		}
		off += (uint64_t)k;
		size_t n = have + (size_t)k;
		bool last = off >= end || k == 0;
		char *b = t->ibuf;
		if (skipping) {
			char *nl = memchr(b, '\n', n);
			if (!nl) {
				have = 0;
				if (last)
					break;
				continue;
			}
			skipping = false;
			n -= (size_t)(nl + 1 - b);
			memmove(b, nl + 1, n);
		}
		if (last) {
			parse_region(t, b, n, o, false);
			break;
		}
		char *nl = memrchr(b, '\n', n);
		if (!nl) {
			if (t->icap > FK_MAX_LINE) {
				t->lineno++;
				bad(t, "line longer than 16 MiB skipped", b, 60);
				skipping = true;
				have = 0;
				continue;
			}
			char *nb = realloc(t->ibuf, t->icap * 2);
			if (!nb)
				return set_err(t, -FK_E_NOMEM);
			t->ibuf = nb;
			t->icap *= 2;
			have = n;
			continue;
		}
		size_t used = (size_t)(nl + 1 - b);
		parse_region(t, b, used, o, false);
		have = n - used;
		memmove(b, b + used, have);
		if (progress && o->progress && off - start >= next_prog) {
			o->progress(off - start, o->progress_ctx);
			next_prog += 64ull << 20;
		}
	}
}

/* Whole-input driver state. */
struct drv {
	fk_parse_ctx *c;
	struct pp t1, t2;
	bool t2_ok, threads;
	uint64_t line;       /* absolute lines done */
	bool noted_skip, noted_nul, noted_utf8;
	struct pp *last; /* the context that parsed the end of the input */
	uint64_t split_min;
	uint64_t orphans; /* frame lines seen outside any sample */
	bool fresh; /* the profile held nothing before: the second half merges without an index */
	/* the second half's merge plan, made by its thread once the first half is parsed
	 * and sorted (t1_ready); names the profile lacked then get the ids they will have
	 * when interned in order after the join (premiss) */
	struct mplan plan;
	uint32_t *premap, *premiss;
	size_t npremiss, pre_n0;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool t1_ready;
};


struct job {
	struct drv *d; /* set for a file's second half: plan its merge before the join */
	struct pp *t;
	const char *buf;
	size_t len;
	int fd;
	uint64_t off, end;
	const fk_parse_opts *o;
};

/* The first half is parsed and its stacks sorted: the second may plan its merge. */
static void t1_ready(struct drv *d)
{
	pthread_mutex_lock(&d->mu);
	d->t1_ready = true;
	pthread_cond_signal(&d->cv);
	pthread_mutex_unlock(&d->mu);
}

/* In the second thread, while the first builds its tree (which reads the profile's names
 * and writes only nodes): map t2's names to the profile's without interning (the missing
 * ones get the ids interning them in order will give), then plan the merge. */
static void plan_early(struct drv *d)
{
	pthread_mutex_lock(&d->mu);
	while (!d->t1_ready)
		pthread_cond_wait(&d->cv, &d->mu);
	pthread_mutex_unlock(&d->mu);
	struct pp *t1 = &d->t1, *t2 = &d->t2;
	if (t1->err || t2->err || !t1->sord || (t2->nstk && !t2->soff) || t1->keep_samples || !d->fresh)
		return;
	fk_profile *dst = d->c->p;
	size_t n = fk_profile_name_count(t2->p), n0 = fk_profile_name_count(dst);
	d->premap = malloc((n + 1) * sizeof(*d->premap));
	d->premiss = malloc((n + 1) * sizeof(*d->premiss));
	if (!d->premap || !d->premiss)
		return;
	for (size_t i = 0; i < n; i++) {
		size_t l;
		const char *nm = fk_profile_name(t2->p, (uint32_t)i, &l);
		int64_t id = fk_profile_find_name(dst, nm, l);
		if (id < 0) {
			id = (int64_t)(n0 + d->npremiss);
			d->premiss[d->npremiss++] = (uint32_t)i;
		}
		d->premap[i] = (uint32_t)id;
	}
	d->pre_n0 = n0;
	if (merge_plan(&d->plan, t2, d->premap, t1))
		mplan_free(&d->plan);

}

static void *job_run(void *arg)
{
	struct job *j = arg;
	j->t->lineno = 0;
	if (j->buf) {
		parse_region(j->t, j->buf, j->len, j->o, false);
	} else {
		parse_fd_region(j->t, j->fd, j->off, j->end, j->o, false);
		/* the file's second half: nothing more comes (the merge plan sorts the stacks
		 * itself, by the ids they get in the first half's profile) */
		int rc = j->d ? stack_arrays(j->t) : sort_stacks(j->t);
		if (rc)
			set_err(j->t, rc);
		if (j->d)
			plan_early(j->d);
	}
	return NULL;
}


/* The second thread's state and profile, made the first time a region is split. */
static int start_second(struct drv *d, const fk_parse_opts *o)
{
	if (d->t2_ok)
		return 0;
	fk_profile *p2 = fk_profile_new(fk_profile_flags(d->c->p));
	if (!p2)
		return -FK_E_NOMEM;
	int rc = pp_init(&d->t2, p2, o, d->t1.scan);
	if (rc) {
		pp_fini(&d->t2);
		fk_profile_free(p2);
		return rc;
	}
	d->t2_ok = true;
	d->t1.want_spath = d->fresh; /* the second half merges along the first (merge_tree) */
	return 0;
}

/* Report a region's messages with absolute line numbers, then reset them. */
static void flush_msgs(struct drv *d, struct pp *t, uint64_t base)
{
	fk_parse_ctx *c = d->c;
	for (unsigned i = 0; i < t->nwarns; i++)
		fk_bad_line(c, base + t->warns[i].line, "%s", t->warns[i].msg);
	c->st->bad_lines += t->unshown;
	c->warned += (unsigned)t->unshown;
	t->nwarns = 0;
	t->unshown = 0;
	if (t->skipped && !d->noted_skip && t->ev.defaulted) {
		/* an explicit --event-filter skips silently, as the perl does */
		d->noted_skip = true;
		fk_note(c, base + t->skip_line,
			"events '%s' skipped: only '%.*s', the first event seen, is kept (choose one with --event-filter)",
			t->skip_ev, (int)t->ev.len, t->ev.name);
	}
	if (t->saw_nul && !d->noted_nul) {
		d->noted_nul = true;
		fk_note(c, base + t->nul_line, "NUL byte in input; kept as is in names");
	}
	if (t->saw_utf8 && !d->noted_utf8) {
		d->noted_utf8 = true;
		fk_note(c, base + t->utf8_line, "invalid UTF-8 in a name; bytes kept as is");
	}
	t->saw_utf8 = t->saw_nul = t->skipped = false;
	c->st->samples += t->samples;
	c->st->filtered += t->filtered;
	d->orphans += t->orphans;
	t->samples = t->filtered = t->orphans = 0;
}

/* First event of [buf, buf+len) that the perl would default the filter to. */
static void prescan_event(struct pp *t, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	while (p < end && !t->ev.set) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		struct hdr h;
		size_t e0, e1, d0, d1;
		if (n && !IS_WS(p[0]) && p[0] != '#' && match_header(p, n, &h) &&
		    match_event(p, n, &e0, &e1, &d0, &d1)) {
			size_t el = e1 - e0;
			if (el > sizeof(t->ev.name))
				el = sizeof(t->ev.name), t->ev.too_long = true;
			memcpy(t->ev.name, p + e0, el);
			t->ev.len = el;
			t->ev.set = t->ev.defaulted = true;
		}
		p = le + 1;
	}
}

/* Blank-line boundaries: a sample ends there and the parser state is clean after it. */
static size_t next_boundary(const char *buf, size_t len, size_t from)
{
	if (from < 1)
		from = 1;
	for (size_t i = from; i < len;) {
		const char *a = memchr(buf + i, '\n', len - i);
		if (!a)
			return SIZE_MAX;
		size_t k = (size_t)(a - buf);
		if (k + 1 < len && buf[k + 1] == '\n')
			return k + 2;
		i = k + 1;
	}
	return SIZE_MAX;
}

static size_t last_boundary(const char *buf, size_t len)
{
	for (size_t i = len; i >= 2; i--)
		if (buf[i - 1] == '\n' && buf[i - 2] == '\n')
			return i;
	return SIZE_MAX;
}

static int process_block(struct drv *d, const char *buf, size_t len)
{
	fk_parse_ctx *c = d->c;
	const fk_parse_opts *o = c->o;
	size_t b = SIZE_MAX, lb = SIZE_MAX;
	if (d->threads && len >= d->split_min / 4) {
		b = next_boundary(buf, len, len / 2);
		if (b != SIZE_MAX) {
			lb = len >= 2 && buf[len - 1] == '\n' && buf[len - 2] == '\n' ? len
											: last_boundary(buf, len);
			if (lb < b)
				b = SIZE_MAX;
		}
	}
	if (b == SIZE_MAX || b >= lb) {
		d->t1.lineno = 0;
		parse_region(&d->t1, buf, len, o, true);
		flush_msgs(d, &d->t1, d->line);
		d->line += d->t1.lineno;
		return d->t1.err;
	}
	int rc2 = start_second(d, o);
	if (rc2)
		return rc2;
	if (!d->t1.ev.set)
		prescan_event(&d->t1, buf, b);
	d->t2.ev = d->t1.ev;
	struct job j = { .t = &d->t2, .buf = buf + b, .len = lb - b, .o = o };
	pthread_t th;
	bool spawned = pthread_create(&th, NULL, job_run, &j) == 0;
	d->t1.lineno = 0;
	parse_region(&d->t1, buf, b, o, true);
	if (spawned)
		pthread_join(th, NULL);
	else
		job_run(&j);
	uint64_t l1 = d->t1.lineno;
	flush_msgs(d, &d->t1, d->line);
	d->line += l1;
	flush_msgs(d, &d->t2, d->line);
	d->line += d->t2.lineno;
	if (!d->t1.ev.set && d->t2.ev.set)
		d->t1.ev = d->t2.ev;
	if (d->t1.err || d->t2.err)
		return d->t1.err ? d->t1.err : d->t2.err;
	if (lb < len) {
		d->t1.lineno = 0;
		parse_region(&d->t1, buf + lb, len - lb, o, false);
		flush_msgs(d, &d->t1, d->line);
		d->line += d->t1.lineno;
	}
	return d->t1.err;
}

/* Offset just after the first blank line at or after from (within 64 MiB), or UINT64_MAX. */
static uint64_t file_boundary(int fd, uint64_t from, uint64_t end)
{
	char buf[65536];
	uint64_t off = from ? from - 1 : 0, lim = from + (64ull << 20);
	while (off < end && off < lim) {
		ssize_t k = pread(fd, buf, sizeof(buf), (off_t)off);
		if (k <= 1)
			return UINT64_MAX;
		for (ssize_t i = 1; i < k; i++)
			if (buf[i] == '\n' && buf[i - 1] == '\n')
				return off + (uint64_t)i + 1;
		off += (uint64_t)k - 1; /* keep one byte of overlap */
	}
	return UINT64_MAX;
}

static int process_file(struct drv *d, int fd, uint64_t start, uint64_t end)
{
	fk_parse_ctx *c = d->c;
	const fk_parse_opts *o = c->o;
	uint64_t b = UINT64_MAX;
	if (d->threads && end - start >= d->split_min)
		b = file_boundary(fd, start + (end - start) / 2, end);
	if (b != UINT64_MAX && !d->t1.ev.set) {
		/* The default event is the first one of the input: find it before the second
		 * half starts (give up splitting if the first 4 MiB do not say). */
		size_t n = b - start < (4u << 20) ? (size_t)(b - start) : (4u << 20);
		char *tmp = malloc(n);
		ssize_t k = tmp ? pread(fd, tmp, n, (off_t)start) : -1;
		if (k > 0) {
			const char *nl = memrchr(tmp, '\n', (size_t)k);
			prescan_event(&d->t1, tmp, nl ? (size_t)(nl - tmp) : 0);
		}
		free(tmp);
		if (!d->t1.ev.set && b - start > (4u << 20))
			b = UINT64_MAX;
	}
	if (b == UINT64_MAX) {
		d->t1.lineno = 0;
		parse_fd_region(&d->t1, fd, start, end, o, true);
		flush_msgs(d, &d->t1, d->line);
		d->line += d->t1.lineno;
		return d->t1.err;
	}
	int rc2 = start_second(d, o);
	if (rc2)
		return rc2;
	d->t2.ev = d->t1.ev;
	struct job j = { .d = d, .t = &d->t2, .fd = fd, .off = b, .end = end, .o = o };
	pthread_t th;
	bool spawned = pthread_create(&th, NULL, job_run, &j) == 0;
	d->t1.lineno = 0;
	parse_fd_region(&d->t1, fd, start, b, o, true);
	/* the first half is complete: its stacks are sorted (the second thread plans its
	 * merge along them), then its tree goes in while the second half is parsed; when the
	 * profile held something before, that tree is indexed for the second half's lookups
	 * (reserving no nodes does just that) */
	int brc = d->t1.err ? 0 : sort_stacks(&d->t1);
	t1_ready(d);
	if (!brc && !d->t1.err)
		brc = build_tree(&d->t1, c->p, NULL);
	if (!brc && !d->t1.err && !d->fresh)
		brc = fk_profile_reserve_nodes(c->p, 0);
	if (brc)
		set_err(&d->t1, brc);
	if (spawned)
		pthread_join(th, NULL);
	else
		job_run(&j);
	flush_msgs(d, &d->t1, d->line);
	d->line += d->t1.lineno;
	flush_msgs(d, &d->t2, d->line);
	d->line += d->t2.lineno;
	d->last = &d->t2;
	return d->t1.err ? d->t1.err : d->t2.err;
}

static int perf_parse(fk_parse_ctx *c)
{
	const fk_parse_opts *o = c->o;
	fk_reader *r = c->r;
	const char *simd;
	fk_perf_scan_fn scan = fk_perf_pick_scan(&simd);
	fk_log(FK_LEVEL_DEBUG, "%s: perf script parser, %s line scan", c->name, simd);
	struct drv d = { .c = c, .line = r->lineno, .mu = PTHREAD_MUTEX_INITIALIZER,
			 .cv = PTHREAD_COND_INITIALIZER };
	int rc = pp_init(&d.t1, c->p, o, scan);
	if (rc)
		goto out;
	d.threads = o->threads >= 2;
	size_t nn;
	fk_profile_nodes(c->p, &nn);
	d.fresh = nn == 1;
	/* Inputs smaller than this are not split (tests lower it to split tiny inputs). */
	const char *sm = getenv("FLAMEKIT_SPLIT_MIN");
	d.split_min = sm ? strtoull(sm, NULL, 10) : 8u << 20;

	if (r->mem) {
		rc = process_block(&d, r->pos, (size_t)(r->end - r->pos));
		r->pos = r->end;
	} else {
		/* A regular file is read with pread, by two threads on two halves when asked;
		 * a pipe goes through the reader's blocks. */
		struct stat sb;
		off_t cur = lseek(r->fd, 0, SEEK_CUR);
		size_t unread = (size_t)(r->end - r->pos);
		if (cur >= 0 && fstat(r->fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= cur &&
		    (uint64_t)cur >= unread) {
			uint64_t start = (uint64_t)cur - unread;
			rc = process_file(&d, r->fd, start, (uint64_t)sb.st_size);
			r->bytes += (uint64_t)(sb.st_size - cur);
			r->pos = r->end;
			lseek(r->fd, sb.st_size, SEEK_SET);
		} else {
			/* A pipe: blocks are parsed one after another; with samples kept, one thread
			 * so sample order stays the input order. */
			if (d.t1.keep_samples)
				d.threads = false;
			const char *buf;
			size_t len;
			for (;;) {
				r->lineno = d.line;
				int k = fk_reader_block(r, &buf, &len);
				if (k < 0) {
					rc = k;
					break;
				}
				if (k == 0)
					break;
				d.line = r->lineno; /* the reader counts lines it skipped as too long */
				if ((rc = process_block(&d, buf, len)))
					break;
			}
		}
	}
	if (!rc && (d.last ? d.last : &d.t1)->have_pname) {
		/* perl drops a sample that no blank line closes; say so */
		fk_bad_line(c, d.line, "input ended inside a sample (no blank line after it); sample dropped%s",
			    c->st->samples ? "" : " (perf script prints no blank lines without callchains: record with -g)");
	}
	if (!rc)
		rc = build_tree(&d.t1, c->p, NULL);
	if (!rc && d.t2_ok) {
		uint32_t *m = NULL;
		if (d.plan.done) {
			/* the early plan holds if the missing names get the ids it gave them */
			for (size_t k = 0; k < d.npremiss && d.plan.done; k++) {
				size_t l;
				const char *nm = fk_profile_name(d.t2.p, d.premiss[k], &l);
				int64_t id = fk_profile_intern(c->p, nm, l);
				if (id < 0)
					rc = (int)id;
				if (id != (int64_t)(d.pre_n0 + k))
					mplan_free(&d.plan);
			}
			if (d.plan.done) {
				m = d.premap;
				d.premap = NULL;
			}
		}
		if (!m && !rc)
			m = map_names(c->p, d.t2.p, &rc);
		if (m)
			rc = d.fresh && d.t1.built ? merge_tree(&d.t2, c->p, m, &d.t1, &d.plan)
					       : build_tree(&d.t2, c->p, m);
		free(m);
	}
	if (!rc && !c->st->samples && d.orphans)
		fk_note(c, 1, "%llu frame lines but no sample header before them: is this perf script "
			"output of a recording without callchains (record with -g)?",
			(unsigned long long)d.orphans);
	r->lineno = d.line;
	c->st->lines = d.line;
out:
	if (d.t2_ok) {
		fk_profile_free(d.t2.p);
		pp_fini(&d.t2);
	}
	pp_fini(&d.t1);
	mplan_free(&d.plan);
	free(d.premap);
	free(d.premiss);
	pthread_mutex_destroy(&d.mu);
	pthread_cond_destroy(&d.cv);
	return rc;
}

/* ------------------------------------------------------------------ detection */

static int perf_probe(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	int state = 0; /* 1 = saw a header */
	bool ev = false;
	for (int lines = 0; p < end && lines < 200; lines++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		if (n && n < 4096 && p[n - 1] == '\r')
			n--;
		if (state == 0) {
			struct hdr h;
			size_t e0, e1, d0, d1;
			if (n == 0 || p[0] == '#') {
				/* skip */
			} else if (match_header(p, n, &h)) {
				state = 1;
				ev = match_event(p, n, &e0, &e1, &d0, &d1);
			} else {
				/* perf script without callchains: "   comm PID TIME: PERIOD EVENT:  ADDR
				 * SYM (DSO)" with the comm right-aligned. Claimed weakly, so the parser
				 * can say what is wrong with it. */
				size_t k = 0;
				while (k < n && IS_WS(p[k]))
					k++;
				struct frm f;
				if (k && match_header(p + k, n - k, &h) && match_frame(p, n, &f) &&
				    memchr(p + k, ':', n - k))
					return 30;
				return 0;
			}
		} else {
			struct frm f;
			if (n && IS_WS(p[0]) && match_frame(p, n, &f))
				return 95;
			if (n == 0 || !IS_WS(p[0]))
				return ev ? 70 : 0;
			return 0;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return state && ev ? 60 : 0;
}

const fk_format fk_format_perf = {
	.name = "perf",
	.desc = "perf script text (stackcollapse-perf.pl compatible)",
	.probe = perf_probe,
	.parse = perf_parse,
};

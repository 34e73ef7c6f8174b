/* palette.c - frame colours: flamegraph.pl's palettes and formulas, name
 * hashing, seeded random colours, the consistent palette file (--cp) and
 * the red/blue differential scale. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "base/out.h"
#include "render/palette.h"

enum pal_type {
	P_HOT, P_MEM, P_IO, P_WAKEUP, P_CHAIN, P_JAVA, P_JS, P_PERL, P_PYTHON,
	P_RED, P_GREEN, P_BLUE, P_AQUA, P_YELLOW, P_PURPLE, P_ORANGE,
};

static const char *const pal_names[] = {
	"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl", "python",
	"red", "green", "blue", "aqua", "yellow", "purple", "orange", NULL,
};

typedef struct cp_entry {
	char *name;
	size_t len;
	uint32_t rgb;
} cp_entry;

struct fk_palette {
	enum pal_type type;
	bool hash, random;
	uint64_t rng;
	/* consistent palette: name -> colour, kept across runs in a file */
	const char *cp_file;
	cp_entry *ents;
	size_t n, cap;
	uint32_t *slots; /* open addressing: entry index + 1, 0 = empty */
	size_t nslots;
	bool dirty;
};

static int pal_type_of(const char *name)
{
	for (int i = 0; pal_names[i]; i++)
		if (!strcmp(pal_names[i], name))
			return i;
	return -1;
}

bool fk_palette_known(const char *colors)
{
	return pal_type_of(colors ? colors : "hot") >= 0;
}

int fk_palette_background(const char *colors, const char *bg, char bg1[8], char bg2[8])
{
	int t = pal_type_of(colors ? colors : "hot");
	if (!bg || !*bg) {
		if (t == P_MEM)
			bg = "green";
		else if (t == P_IO || t == P_WAKEUP || t == P_CHAIN)
			bg = "blue";
		else if (t >= P_RED)
			bg = "grey";
		else
			bg = "yellow";
	}
	const char *a, *b;
	if (!strcmp(bg, "yellow"))
		a = "#eeeeee", b = "#eeeeb0";
	else if (!strcmp(bg, "blue"))
		a = "#eeeeee", b = "#e0e0ff";
	else if (!strcmp(bg, "green"))
		a = "#eef2ee", b = "#e0ffe0";
	else if (!strcmp(bg, "grey") || !strcmp(bg, "gray"))
		a = "#f8f8f8", b = "#e8e8e8";
	else {
		if (strlen(bg) != 7 || bg[0] != '#')
			return -FK_E_INVAL;
		for (int i = 1; i < 7; i++) {
			char c = bg[i];
			if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
				return -FK_E_INVAL;
		}
		a = b = bg;
	}
	memcpy(bg1, a, 8);
	memcpy(bg2, b, 8);
	return 0;
}

/* ---- name tests used by the multi palettes (perl regexes of flamegraph.pl) */
static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t k = strlen(suf);
	return n >= k && !memcmp(s + n - k, suf, k);
}

static bool contains(const char *s, size_t n, const char *needle)
{
	return memmem(s, n, needle, strlen(needle)) != NULL;
}

static bool java_package(const char *s, size_t n)
{
	static const char *const pk[] = { "java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/", NULL };
	if (n && s[0] == 'L') {
		for (int i = 0; pk[i]; i++)
			if (n - 1 >= strlen(pk[i]) && !memcmp(s + 1, pk[i], strlen(pk[i])))
				return true;
	}
	for (int i = 0; pk[i]; i++)
		if (n >= strlen(pk[i]) && !memcmp(s, pk[i], strlen(pk[i])))
			return true;
	return false;
}

/* "/" followed somewhere later by ".js" */
static bool js_path(const char *s, size_t n)
{
	const char *slash = memchr(s, '/', n);
	return slash && memmem(slash + 1, n - (size_t)(slash + 1 - s), ".js", 3) != NULL;
}

/* A Python frame as the gdb sampler names it: "qualname (path.py)" or
 * "qualname (path.py:LINE)"; *path gets the part in parentheses. */
static bool python_frame(const char *s, size_t n, const char **path, size_t *plen)
{
	if (!n || s[n - 1] != ')')
		return false;
	const char *open = NULL;
	for (size_t i = n - 1; i-- > 0;)
		if (s[i] == '(' && i > 0 && s[i - 1] == ' ') {
			open = s + i + 1;
			break;
		}
	if (!open)
		return false;
	*path = open;
	*plen = (size_t)(s + n - 1 - open);
	/* "<frozen ...>" arrives as "(frozen ...)": colours see "<>" as "()" */
	return memmem(open, *plen, ".py", 3) != NULL || (*plen && (open[0] == '<' || open[0] == '('));
}

/* a path component "pythonX.Y" (a version of digits and dots) */
static bool stdlib_path(const char *p, size_t n)
{
	for (size_t i = 0; i + 6 <= n; i++) {
		if ((i && p[i - 1] != '/') || memcmp(p + i, "python", 6))
			continue;
		size_t j = i + 6;
		bool digits = j < n && p[j] >= '0' && p[j] <= '9';
		while (j < n && ((p[j] >= '0' && p[j] <= '9') || p[j] == '.'))
			j++;
		if (digits && (j == n || p[j] == '/'))
			return true;
	}
	return false;
}

static enum pal_type resolve_type(enum pal_type t, const char *s, size_t n)
{
	switch (t) {
	case P_JAVA:
		if (ends_with(s, n, "_[j]"))
			return P_GREEN;
		if (ends_with(s, n, "_[i]"))
			return P_AQUA;
		if (java_package(s, n) || contains(s, n, ":::"))
			return P_GREEN;
		if (contains(s, n, "::"))
			return P_YELLOW;
		if (ends_with(s, n, "_[k]"))
			return P_ORANGE;
		return P_RED;
	case P_PERL:
		if (contains(s, n, "::"))
			return P_YELLOW;
		if (contains(s, n, "Perl") || contains(s, n, ".pl"))
			return P_GREEN;
		if (ends_with(s, n, "_[k]"))
			return P_ORANGE;
		return P_RED;
	case P_JS:
		if (ends_with(s, n, "_[j]"))
			return memchr(s, '/', n) ? P_GREEN : P_AQUA;
		if (contains(s, n, "::"))
			return P_YELLOW;
		if (js_path(s, n))
			return P_GREEN;
		if (memchr(s, ':', n))
			return P_AQUA;
		if (n == 1 && s[0] == ' ')
			return P_GREEN;
		if (contains(s, n, "_[k]"))
			return P_ORANGE;
		return P_RED;
	case P_PYTHON: {
		/* inferno's python palette: installed packages aqua, the standard
		 * library (and frozen or built-in code) yellow, the program red;
		 * native frames keep the hot palette's colours */
		const char *path;
		size_t plen;
		if (!python_frame(s, n, &path, &plen))
			return P_HOT;
		if (contains(path, plen, "site-packages/") || contains(path, plen, "dist-packages/"))
			return P_AQUA;
		if (stdlib_path(path, plen) || (plen && (path[0] == '<' || path[0] == '(')))
			return P_YELLOW;
		return P_RED;
	}
	case P_WAKEUP:
		return P_AQUA;
	case P_CHAIN:
		return contains(s, n, "_[w]") ? P_AQUA : P_BLUE;
	default:
		return t;
	}
}

static inline uint32_t rgb(int r, int g, int b)
{
	return ((uint32_t)r << 16) | ((uint32_t)g << 8) | (uint32_t)b;
}

/* perl int(): truncation toward zero; all values here are >= 0 */
#define I(x) ((int)(x))

static uint32_t formula(enum pal_type t, double v1, double v2, double v3)
{
	switch (t) {
	case P_HOT: return rgb(205 + I(50 * v3), I(230 * v1), I(55 * v2));
	case P_MEM: return rgb(0, 190 + I(50 * v2), I(210 * v1));
	case P_IO: { int r = 80 + I(60 * v1); return rgb(r, r, 190 + I(55 * v2)); }
	case P_RED: { int x = 50 + I(80 * v1); return rgb(200 + I(55 * v1), x, x); }
	case P_GREEN: { int x = 50 + I(60 * v1); return rgb(x, 200 + I(55 * v1), x); }
	case P_BLUE: { int x = 80 + I(60 * v1); return rgb(x, x, 205 + I(50 * v1)); }
	case P_YELLOW: { int x = 175 + I(55 * v1); return rgb(x, x, 50 + I(20 * v1)); }
	case P_PURPLE: { int x = 190 + I(65 * v1); return rgb(x, 80 + I(60 * v1), x); }
	case P_AQUA: return rgb(50 + I(60 * v1), 165 + I(55 * v1), 165 + I(55 * v1));
	case P_ORANGE: return rgb(190 + I(65 * v1), 90 + I(65 * v1), 0);
	default: return 0;
	}
}

uint32_t fk_palette_fixed(const char *s, size_t n)
{
	if (n == 2 && s[0] == '-' && s[1] == '-')
		return 0xa0a0a0;
	if (n == 1 && s[0] == '-')
		return 0xc8c8c8;
	return UINT32_MAX;
}

uint32_t fk_palette_diff_color(double value, double max, bool negate)
{
	int r = 255, g = 255, b = 255;
	if (negate)
		value = -value;
	if (max <= 0)
		max = 1;
	if (value > 0)
		g = b = I(210 * (max - value) / max);
	else if (value < 0)
		r = g = I(210 * (max + value) / max);
	if (g < 0) g = 0;
	if (b < 0) b = 0;
	if (r < 0) r = 0;
	return rgb(r, g, b);
}

/* flamegraph.pl's namehash: weights the first three characters (code points)
 * after removing a "module`" prefix. reversed: of the reversed name. */
double fk_palette_namehash(const char *s, size_t len, bool reversed)
{
	uint32_t stackbuf[256], *cps = stackbuf;
	if (len > 256) {
		cps = malloc(len * sizeof(*cps));
		if (!cps)
			return 0.5;
	}
	size_t n = 0;
	for (size_t i = 0; i < len;)
		i += fk_utf8_next((const unsigned char *)s + i, len - i, &cps[n++]);
	if (reversed)
		for (size_t i = 0; i < n / 2; i++) {
			uint32_t t = cps[i];
			cps[i] = cps[n - 1 - i];
			cps[n - 1 - i] = t;
		}
	/* s/.(.*?)`//: the earliest match of one character, then a lazy run, then
	 * a backtick; "." never matches a newline. */
	size_t from = 0, cut_start = 0, cut_end = 0;
	for (size_t st = 0; st + 1 < n; st++) {
		if (cps[st] == '\n')
			continue;
		size_t k = st + 1;
		while (k < n && cps[k] != '\n' && cps[k] != '`')
			k++;
		if (k < n && cps[k] == '`') {
			cut_start = st;
			cut_end = k + 1;
			break;
		}
		if (k >= n)
			break; /* no backtick after st: none after any later start either */
		st = k; /* a newline at k: next start after it */
	}
	double vector = 0, weight = 1, max = 1;
	int mod = 10;
	for (size_t i = from; i < n; i++) {
		if (i >= cut_start && i < cut_end)
			continue;
		int v = (int)(cps[i] % (uint32_t)mod);
		vector += ((double)v / (mod - 1)) * weight;
		mod++;
		max += weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	if (cps != stackbuf)
		free(cps);
	return 1 - vector / max;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline double unit(uint64_t x) { return (double)(x >> 11) * 0x1.0p-53; }

/* (pal->rng advances for random colours; else pal is only read) */
static uint32_t compute(fk_palette *pal, enum pal_type type, const char *s, size_t n)
{
	double v1, v2, v3;
	if (pal->hash) {
		v1 = fk_palette_namehash(s, n, false);
		v2 = v3 = fk_palette_namehash(s, n, true);
	} else if (pal->random) {
		v1 = unit(splitmix(&pal->rng));
		v2 = unit(splitmix(&pal->rng));
		v3 = unit(splitmix(&pal->rng));
	} else {
		/* flamegraph.pl picks these at random; a hash of the name keeps the
		 * output reproducible and one function one colour across graphs */
		uint64_t h = fk_hash(s, n);
		v1 = unit(fk_mix64(h ^ 0x51ed2701a3c5f1b7ULL));
		v2 = unit(fk_mix64(h ^ 0x2545f4914f6cdd1dULL));
		v3 = unit(fk_mix64(h ^ 0x9fb21c651e98df25ULL));
	}
	return formula(resolve_type(type, s, n), v1, v2, v3);
}

/* ---- consistent palette map */
static cp_entry *cp_find(fk_palette *pal, const char *s, size_t n, uint64_t h)
{
	if (!pal->nslots)
		return NULL;
	for (size_t i = h & (pal->nslots - 1);; i = (i + 1) & (pal->nslots - 1)) {
		uint32_t e = pal->slots[i];
		if (!e)
			return NULL;
		cp_entry *c = &pal->ents[e - 1];
		if (c->len == n && !memcmp(c->name, s, n))
			return c;
	}
}

static int cp_add(fk_palette *pal, const char *s, size_t n, uint32_t color)
{
	if ((pal->n + 1) * 2 > pal->nslots) {
		size_t ns = pal->nslots ? pal->nslots * 2 : 64;
		uint32_t *sl = calloc(ns, sizeof(*sl));
		if (!sl)
			return -FK_E_NOMEM;
		for (size_t k = 0; k < pal->n; k++) {
			size_t i = fk_hash(pal->ents[k].name, pal->ents[k].len) & (ns - 1);
			while (sl[i])
				i = (i + 1) & (ns - 1);
			sl[i] = (uint32_t)k + 1;
		}
		free(pal->slots);
		pal->slots = sl;
		pal->nslots = ns;
	}
	if (FK_GROW(pal->ents, pal->cap, pal->n + 1))
		return -FK_E_NOMEM;
	char *copy = malloc(n + 1);
	if (!copy)
		return -FK_E_NOMEM;
	memcpy(copy, s, n);
	copy[n] = 0;
	pal->ents[pal->n] = (cp_entry){ copy, n, color };
	size_t i = fk_hash(s, n) & (pal->nslots - 1);
	while (pal->slots[i])
		i = (i + 1) & (pal->nslots - 1);
	pal->slots[i] = (uint32_t)++pal->n;
	return 0;
}

static bool parse_color(const char *v, uint32_t *out)
{
	unsigned r, g, b;
	char end;
	if (sscanf(v, "rgb(%u,%u,%u%c", &r, &g, &b, &end) == 4 && end == ')' && r < 256 && g < 256 && b < 256) {
		*out = rgb((int)r, (int)g, (int)b);
		return true;
	}
	if (v[0] == '#' && strlen(v) == 7) {
		char *e;
		unsigned long x = strtoul(v + 1, &e, 16);
		if (*e == 0) {
			*out = (uint32_t)x;
			return true;
		}
	}
	return false;
}

static int cp_read(fk_palette *pal)
{
	FILE *f = fopen(pal->cp_file, "r");
	if (!f) {
		if (errno == ENOENT)
			return 0; /* first run: the file is created on save */
		int e = errno;
		fk_warn("%s: %s", pal->cp_file, strerror(e));
		return -e;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	uint64_t lineno = 0;
	int rc = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len)
			continue;
		/* the key is a function name and may itself contain "->" (C++):
		 * the colour follows the last one */
		char *arrow = NULL;
		for (char *q = line; (q = strstr(q, "->")); q++)
			arrow = q;
		uint32_t c;
		if (!arrow || !parse_color(arrow + 2, &c)) {
			fk_warn("%s:%llu: expected NAME->rgb(R,G,B), line skipped", pal->cp_file,
				(unsigned long long)lineno);
			continue;
		}
		size_t klen = (size_t)(arrow - line);
		uint64_t h = fk_hash(line, klen);
		cp_entry *e = cp_find(pal, line, klen, h);
		if (e)
			e->rgb = c;
		else if ((rc = cp_add(pal, line, klen, c)))
			break;
	}
	free(line);
	fclose(f);
	return rc;
}

fk_palette *fk_palette_new(const fk_svg_opts *o)
{
	int t = pal_type_of(o->colors ? o->colors : "hot");
	if (t < 0) {
		fk_warn("unknown palette '%s' (hot mem io wakeup chain java js perl python red green blue aqua yellow purple orange)",
			o->colors);
		errno = FK_E_INVAL;
		return NULL;
	}
	fk_palette *pal = calloc(1, sizeof(*pal));
	if (!pal) {
		errno = FK_E_NOMEM;
		return NULL;
	}
	pal->type = (enum pal_type)t;
	pal->hash = o->hash;
	pal->random = o->random && !o->hash;
	pal->rng = o->seed;
	pal->cp_file = o->cp_file;
	if (pal->cp_file) {
		int rc = cp_read(pal);
		if (rc) {
			fk_palette_free(pal);
			errno = -rc;
			return NULL;
		}
	}
	return pal;
}

void fk_palette_free(fk_palette *pal)
{
	if (!pal)
		return;
	for (size_t i = 0; i < pal->n; i++)
		free(pal->ents[i].name);
	free(pal->ents);
	free(pal->slots);
	free(pal);
}

uint32_t fk_palette_color(fk_palette *pal, const char *name, size_t len, bool waker)
{
	char small[256], *buf = NULL;
	const char *s = name;
	size_t n = len;
	bool angle = memchr(name, '<', len) || memchr(name, '>', len);
	bool w = waker && pal->type == P_CHAIN;
	if (angle || w) {
		/* Colour the name flamegraph.pl colours: it reads "<" and ">" as "(" and
		 * ")" (so --hash and palette.map keys match its files), and marks frames
		 * after a "--" separator with _[w] in chain graphs. */
		buf = len + 5 <= sizeof(small) ? small : malloc(len + 5);
		if (buf) {
			for (size_t i = 0; i < len; i++)
				buf[i] = name[i] == '<' ? '(' : name[i] == '>' ? ')' : name[i];
			n = len;
			if (w) {
				memcpy(buf + len, "_[w]", 4);
				n += 4;
			}
			s = buf;
		}
	}
	uint32_t c;
	if (pal->cp_file) {
		uint64_t h = fk_hash(s, n);
		cp_entry *e = cp_find(pal, s, n, h);
		if (e) {
			c = e->rgb;
		} else {
			c = compute(pal, pal->type, s, n);
			if (!memchr(s, '\n', n) && cp_add(pal, s, n, c) == 0)
				pal->dirty = true;
		}
	} else {
		c = compute(pal, pal->type, s, n);
	}
	if (buf && buf != small)
		free(buf);
	return c;
}

uint32_t fk_palette_offcpu_color(fk_palette *pal, const char *name, size_t len)
{
	/* the io palette's blues, whatever the graph's palette (not kept in a cp file:
	 * the same name has its on-CPU colour there) */
	return compute(pal, P_IO, name, len);
}

bool fk_palette_shared(const fk_palette *pal)
{
	return !pal->cp_file && !pal->random;
}

static int cmp_entry(const void *a, const void *b)
{
	const cp_entry *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);
	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

int fk_palette_save(fk_palette *pal)
{
	if (!pal || !pal->cp_file || !pal->dirty)
		return 0;
	/* sorting invalidates the slot table; nothing looks up after saving */
	qsort(pal->ents, pal->n, sizeof(*pal->ents), cmp_entry);
	free(pal->slots);
	pal->slots = NULL;
	pal->nslots = 0;
	size_t plen = strlen(pal->cp_file);
	char *tmp = malloc(plen + 32);
	if (!tmp)
		return -FK_E_NOMEM;
	snprintf(tmp, plen + 32, "%s.tmp.%ld", pal->cp_file, (long)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		int e = errno;
		fk_warn("%s: %s", tmp, strerror(e));
		free(tmp);
		return -e;
	}
	for (size_t i = 0; i < pal->n; i++) {
		uint32_t c = pal->ents[i].rgb;
		fwrite(pal->ents[i].name, 1, pal->ents[i].len, f);
		fprintf(f, "->rgb(%u,%u,%u)\n", c >> 16, (c >> 8) & 255, c & 255);
	}
	int rc = 0;
	if (fflush(f) || ferror(f))
		rc = -FK_E_WRITE;
	if (fclose(f))
		rc = -FK_E_WRITE;
	if (!rc && rename(tmp, pal->cp_file)) {
		rc = -errno;
		fk_warn("%s: %s", pal->cp_file, strerror(errno));
	} else if (rc) {
		fk_warn("%s: write error", tmp);
	}
	if (rc)
		unlink(tmp);
	free(tmp);
	pal->dirty = false;
	return rc;
}

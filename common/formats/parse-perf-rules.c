/* parse-perf-rules.c - stackcollapse-perf.pl's rules, read as the perl reads its input: the
 * header, event and frame regexes (Perl's ASCII \s \w \d), the process-name frame, and the
 * tidying of each function name (--kernel, --jit, --addrs, --full-names, Java, Go, inline). */
#include "parse-perf.h"

/* Perl's ASCII rules on byte strings: \s = [\t\n\v\f\r ], \w = [A-Za-z0-9_], \d = [0-9]. */
const unsigned char fk_perf_ctab[256] = {
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

/* the regex ^(\S.+?)\s+(\d+)[/]*(\d+)*\s+ : the sample header. */
bool fk_perf_match_header(const char *l, size_t len, struct hdr *h)
{
	if (len < 4 || IS_WS(l[0]))
		return false;
	/* the perl's (\S.+?) wants two characters; a one-character comm ("w 26464 [000] ...")
	 * would then take the whole header up to the period as its name */
	for (size_t i = 1; i < len; i++) {
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
bool fk_perf_match_event(const char *l, size_t len, size_t *e0, size_t *e1, size_t *d0, size_t *d1)
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
bool fk_perf_match_frame(const char *l, size_t len, struct frm *f)
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

/* $pname: comm[-pid[/tid]] with spaces made underscores */
size_t fk_perf_pname(char *k, const char *l, const struct hdr *h, const fk_parse_opts *o)
{
	/* "PID/0" is read as the TID alone, as the perl does ("swapper 0/0" -> swapper-?/0) */
	bool has_b = h->b1 > h->b0 && !(h->b1 - h->b0 == 1 && l[h->b0] == '0');
	const char *tid = l + (has_b ? h->b0 : h->a0);
	size_t tidlen = has_b ? h->b1 - h->b0 : h->a1 - h->a0;
	return fk_perf_root_text(k, l, h->comm_len, l + h->a0, has_b ? h->a1 - h->a0 : 0, tid, tidlen, o);
}

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

/* $mod =~ m:/tmp/perf-\d+\.map: , or an ELF file perf inject --jit wrote for jitted code
 * (".../jitted-PID-N.so", as inferno's --jit also counts it). */
bool fk_perf_jit_mod(const char *m, size_t n)
{
	const char *p = m, *end = m + n;
	if (n >= 3 && !memcmp(m + n - 3, ".so", 3) && memmem(m, n, "/jitted-", 8))
		return true;
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

/* $mod =~ m/(^\[|vmlinux$)/ && $mod !~ /unknown/; and a BPF program, which perf names as
 * its own module "bpf_prog_TAG_NAME" (a tracer's program runs in the kernel, inside the
 * kernel stack of whatever it traces) */
bool fk_perf_kernel_mod(const char *m, size_t n)
{
	bool k = (n && m[0] == '[') || (n >= 7 && !memcmp(m + n - 7, "vmlinux", 7)) ||
		 (n > 9 && !memcmp(m, "bpf_prog_", 9));
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

/* The bytes tidy_piece needs for a piece of n bytes: the perl's tidying never lengthens a
 * name; the name rules may (a Rust v0 name printed: fk_name_rules_room). */
static size_t piece_room(size_t n, size_t mlen, size_t pclen, const fk_parse_opts *o)
{
	return (fk_name_rules_on(o) ? fk_name_rules_room(n) : n) + mlen + pclen + 16;
}

/* Tidy one "->" piece of a raw function name, as stackcollapse-perf.pl's loop body does.
 * out needs piece_room(n, mlen, pclen, o) bytes. Returns the length. */
static size_t tidy_piece(char *out, const char *f, size_t n, const char *pc, size_t pclen,
			 const char *mod, size_t mlen, bool java, bool first, const fk_parse_opts *o)
{
	size_t len, room = piece_room(n, mlen, pclen, o);
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
	bool cut = !o->full_names && !o->cxx_names && !go_method(f, n);
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
	if (fk_name_rules_on(o))   /* the room out has, less a "_[i]" */
		len = fk_name_rules(o, out, len, room - 4);
	bool kernel = o->kernel || o->all, jit = o->jit || o->all;
	if (!first) {
		if (!contains(out, len, "_[i]"))
			memcpy(out + len, "_[i]", 4), len += 4;
	} else if (kernel && fk_perf_kernel_mod(mod, mlen)) {
		memcpy(out + len, "_[k]", 4), len += 4;
	} else if (jit && fk_perf_jit_mod(mod, mlen)) {
		if (!contains(out, len, "_[j]"))
			memcpy(out + len, "_[j]", 4), len += 4;
	}
	return len;
}

size_t fk_perf_tidy_room(size_t symlen, size_t dsolen, const fk_parse_opts *o)
{
	/* (with the rules, room for a deleted module's name too, which is tidied as part of
	 * the symbol: fk_perf_tidy_name) */
	return (o && fk_name_rules_on(o) ? fk_name_rules_room(symlen + dsolen) : symlen) + dsolen + 16;
}

size_t fk_perf_tidy_name(char *out, const char *sym, size_t symlen, const char *dso, size_t dsolen,
			 const fk_parse_opts *o)
{
	fk_parse_opts def;
	if (!o) {
		fk_parse_opts_init(&def);
		o = &def;
	}
	if (dsolen > 10 && !memcmp(dso + dsolen - 10, " (deleted)", 10)) {
		/* perf script prints the module of deleted or memfd code as "(/x (deleted))",
		 * where the perl's frame regex takes "deleted)" for the module and "SYM (/x" for
		 * the function: fold what the text route folds ("[unknown] " for the usual
		 * symbol-less JIT code), so both routes name it alike (docs/formats.md) */
		size_t rl = symlen + 2 + dsolen - 10;
		char small[512], *raw = rl <= sizeof(small) ? small : malloc(rl);
		if (!raw)
			return 0;
		memcpy(raw, sym, symlen);
		memcpy(raw + symlen, " (", 2);
		memcpy(raw + symlen + 2, dso, dsolen - 10);
		size_t r = fk_perf_tidy_name(out, raw, rl, "deleted)", 8, o);
		if (raw != small)
			free(raw);
		return r;
	}
	size_t cap = fk_perf_tidy_room(symlen, dsolen, o), w = 0;
	size_t n = fk_perf_strip_offset(sym, symlen);
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
		size_t room = piece_room(pl, dsolen, 0, o), need = room + (first ? 0 : 1);
		if (w + need > cap)
			break; /* documented: a name of many "->" pieces may be cut */
		if (!first)
			out[w++] = ';';
		char tmp[4096];
		char *buf = room <= sizeof(tmp) ? tmp : malloc(room);
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

/* ---- --inline */

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

/* The perl's loop over the stack lines: the pieces of one frame (inline frames from the
 * symboliser when asked, else the "->" pieces of the function), each tidied. */
int fk_perf_frame_names(struct pp *t, const char *l, size_t len)
{
	struct frm f;
	t->tmp_n = 0;
	if (!fk_perf_match_frame(l, len, &f))
		return 1;
	const char *mod = l + f.m0, *func = l + f.f0;
	size_t mlen = f.m1 - f.m0, flen = f.f1 - f.f0, pclen = f.pc1 - f.pc0;
	if (!fk_utf8_valid((const unsigned char *)func, flen) && !t->saw_utf8) {
		t->saw_utf8 = true;
		t->utf8_line = t->lineno;
	}
	if (t->o->inline_frames && inline_mod_ok(mod, mlen)) {
		char *pc = strndup(l + f.pc0, pclen), *m = strndup(mod, mlen), *rf = strndup(func, flen);
		char *res = pc && m && rf ? t->inl(pc, m, rf, t->inl_ctx) : NULL;
		free(pc), free(m), free(rf);
		if (!res)
			return -FK_E_NOMEM;
		bool ok = *res && strcmp(res, "??") && strcmp(res, "??:??:0");
		int rc = ok ? fk_perf_push_name(t, res, strlen(res), true) : 0;
		free(res);
		if (rc || ok)
			return rc;
	}
	flen = fk_perf_strip_offset(func, flen);
	if (flen && func[0] == '(')
		return 0;
	while (flen >= 2 && func[flen - 1] == '>' && func[flen - 2] == '-')
		flen -= 2;
	if (!flen)
		return 0;
	if (fk_perf_grow_bytes(&t->sbuf, &t->sbuf_cap, piece_room(flen, mlen, pclen, t->o)))
		return -FK_E_NOMEM;
	for (size_t i = 0, first = 1;; first = 0) {
		const char *a = find2(func + i, flen - i, "->", 2);
		size_t pe = a ? (size_t)(a - func) : flen;
		size_t tl = tidy_piece(t->sbuf, func + i, pe - i, l + f.pc0, pclen, mod, mlen, t->java,
				       first, t->o);
		int rc = fk_perf_push_name(t, t->sbuf, tl, false);
		if (rc)
			return rc;
		if (!a)
			return 0;
		i = pe + 2;
	}
}


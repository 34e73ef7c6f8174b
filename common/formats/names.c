/* names.c - the frame-name rules a user can ask of every input format: Rust
 * names (--rust-names: legacy names a C++ demangler left half done repaired,
 * v0 names "_R..." demangled) and C++ parameter lists cut as a whole
 * (--cxx-names). Parsers call fk_name_rules() on each name they keep. */
#include <stdlib.h>
#include "internal.h"

static bool is_hex(char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'); }

/* "::h" and 16 lowercase hex digits at the end: the hash rustc's legacy
 * mangling appends, left in place by a C++ demangler. */
static bool rust_hash_at_end(const char *s, size_t len)
{
	if (len < 19 + 1 || memcmp(s + len - 19, "::h", 3))
		return false;
	for (size_t i = len - 16; i < len; i++)
		if (!is_hex(s[i]))
			return false;
	return true;
}

/* Rust legacy mangling, half undone by a C++ demangler:
 *   _$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$core..ops..drop..Drop$GT$::drop::h3b2fe2b3c1e0d2f3
 * becomes <alloc::vec::Vec<T> as core::ops::drop::Drop>::drop: the hash goes,
 * "$XX$" escapes and ".." are decoded, the '_' that guards a component starting
 * with '$' is dropped. In place (the result is never longer); the length, or
 * len unchanged when s is not such a name or holds an escape rustc never writes. */
static size_t rust_legacy(char *s, size_t len)
{
	if (!rust_hash_at_end(s, len))
		return len;
	size_t n = len - 19, w = 0;
	static const struct { const char *code; char ch; } esc[] = {
		{ "SP", '@' }, { "BP", '*' }, { "RF", '&' }, { "LT", '<' }, { "GT", '>' },
		{ "LP", '(' }, { "RP", ')' }, { "C", ',' },
	};
	/* first pass: validate (so a name that is not Rust's is left alone) */
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '$')
			continue;
		const char *e = memchr(s + i + 1, '$', n - i - 1);
		if (!e)
			return len;
		size_t cl = (size_t)(e - s) - i - 1;
		bool ok = false;
		for (size_t k = 0; k < sizeof(esc) / sizeof(esc[0]) && !ok; k++)
			ok = strlen(esc[k].code) == cl && !memcmp(esc[k].code, s + i + 1, cl);
		if (!ok && cl >= 2 && cl <= 3 && s[i + 1] == 'u' && is_hex(s[i + 2]) &&
		    (cl == 2 || is_hex(s[i + 3])))
			ok = true;
		if (!ok)
			return len;
		i += cl + 1;
	}
	for (size_t i = 0; i < n;) {
		bool comp_start = i == 0 || s[i - 1] == '`' || (i >= 2 && s[i - 1] == ':' && s[i - 2] == ':');
		if (comp_start && s[i] == '_' && i + 1 < n && s[i + 1] == '$') {
			i++;
			continue;
		}
		if (s[i] == '.' && i + 1 < n && s[i + 1] == '.') {
			s[w++] = ':';
			s[w++] = ':';
			i += 2;
			continue;
		}
		if (s[i] != '$') {
			s[w++] = s[i++];
			continue;
		}
		const char *e = memchr(s + i + 1, '$', n - i - 1);
		size_t cl = (size_t)(e - s) - i - 1;
		char ch = 0;
		for (size_t k = 0; k < sizeof(esc) / sizeof(esc[0]) && !ch; k++)
			if (strlen(esc[k].code) == cl && !memcmp(esc[k].code, s + i + 1, cl))
				ch = esc[k].ch;
		if (!ch) {
			unsigned v = 0;
			for (size_t k = i + 2; k < i + 1 + cl; k++)
				v = v * 16 + (unsigned)(s[k] <= '9' ? s[k] - '0' : s[k] - 'a' + 10);
			/* printable ASCII only: anything else stays escaped */
			if (v < 0x20 || v > 0x7e) {
				memmove(s + w, s + i, cl + 2);
				w += cl + 2;
				i += cl + 2;
				continue;
			}
			ch = (char)v;
		}
		s[w++] = ch;
		i += cl + 2;
	}
	return w;
}

/* ------------------------------------------------------------------ Rust v0
 * rustc's v0 mangling (RFC 2603; doc.rust-lang.org/rustc/symbol-mangling/v0.html)
 * printed as perf, gdb and `c++filt -i` print it: crate disambiguators and
 * integer constants' types left out, closures as {closure#N}, shims as
 * {shim:NAME#N}. A name that does not parse stays as it is. */

struct v0 {
	const char *s;        /* after "_R" */
	size_t n, pos;
	char *out;            /* NULL: parse only */
	size_t cap, len;      /* len may pass cap: then the result does not fit */
	unsigned depth;       /* recursion guard */
	uint64_t binders;     /* lifetimes bound so far (for 'a, 'b, ...) */
	bool bad, skip;       /* skip: parsing without printing (an impl's path) */
};

#define V0_MAX_DEPTH 300

static void v0_put(struct v0 *d, const char *p, size_t k)
{
	if (d->skip || d->bad)
		return;
	if (d->out && d->len + k <= d->cap)
		memcpy(d->out + d->len, p, k);
	d->len += k;
	if (d->len > d->cap)
		d->bad = true;   /* too long for the room: the name stays mangled */
}

static void v0_puts(struct v0 *d, const char *p) { v0_put(d, p, strlen(p)); }

static void v0_putu(struct v0 *d, uint64_t v)
{
	char b[24];
	int k = snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	v0_put(d, b, (size_t)k);
}

static int v0_peek(const struct v0 *d) { return d->pos < d->n ? (unsigned char)d->s[d->pos] : 0; }

static bool v0_eat(struct v0 *d, char c)
{
	if (v0_peek(d) != c)
		return false;
	d->pos++;
	return true;
}

/* Whether another item of a list ended by "E" follows (item i, from 0): the separator is
 * written before every item but the first; input that ends first is bad. */
static bool v0_more(struct v0 *d, unsigned i, const char *sep)
{
	if (d->bad || v0_eat(d, 'E'))
		return false;
	if (d->pos >= d->n) {
		d->bad = true;
		return false;
	}
	if (i)
		v0_puts(d, sep);
	return true;
}

/* <base-62-number>: {0-9a-zA-Z} "_"; "_" is 0, otherwise the digits' value + 1 */
static uint64_t v0_b62(struct v0 *d)
{
	if (v0_eat(d, '_'))
		return 0;
	uint64_t x = 0;
	for (;;) {
		int c = v0_peek(d);
		unsigned v;
		if (c >= '0' && c <= '9')
			v = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'z')
			v = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'Z')
			v = (unsigned)(c - 'A' + 36);
		else if (c == '_') {
			d->pos++;
			if (x == UINT64_MAX)
				d->bad = true;
			return x + 1;
		} else {
			d->bad = true;
			return 0;
		}
		if (x > (UINT64_MAX - v) / 62) {
			d->bad = true;
			return 0;
		}
		x = x * 62 + v;
		d->pos++;
	}
}

/* [tag <base-62-number>]: absent 0, else the number + 1 */
static uint64_t v0_opt_b62(struct v0 *d, char tag)
{
	if (!v0_eat(d, tag))
		return 0;
	uint64_t x = v0_b62(d);
	if (x == UINT64_MAX)
		d->bad = true;
	return x + 1;
}

static uint64_t v0_decimal(struct v0 *d)
{
	int c = v0_peek(d);
	if (c < '0' || c > '9') {
		d->bad = true;
		return 0;
	}
	uint64_t x = 0;
	if (c == '0') {
		d->pos++;
		return 0;
	}
	while ((c = v0_peek(d)) >= '0' && c <= '9') {
		if (x > (UINT64_MAX - 9) / 10) {
			d->bad = true;
			return 0;
		}
		x = x * 10 + (uint64_t)(c - '0');
		d->pos++;
	}
	return x;
}

/* <undisambiguated-identifier>: ["u"] <decimal> ["_"] <bytes>; "u": the bytes are
 * Punycode (RFC 3492, '_' for its '-'), *puny set. */
static bool v0_ident(struct v0 *d, const char **name, size_t *len, bool *puny)
{
	*puny = v0_eat(d, 'u');
	uint64_t k = v0_decimal(d);
	v0_eat(d, '_');
	if (d->bad || k > d->n - d->pos) {
		d->bad = true;
		return false;
	}
	*name = d->s + d->pos;
	*len = (size_t)k;
	d->pos += (size_t)k;
	return true;
}

static size_t utf8_put(char *o, uint32_t c)
{
	if (c < 0x80)
		return o[0] = (char)c, 1;
	if (c < 0x800)
		return o[0] = (char)(0xc0 | c >> 6), o[1] = (char)(0x80 | (c & 0x3f)), 2;
	if (c < 0x10000)
		return o[0] = (char)(0xe0 | c >> 12), o[1] = (char)(0x80 | (c >> 6 & 0x3f)),
		       o[2] = (char)(0x80 | (c & 0x3f)), 3;
	return o[0] = (char)(0xf0 | c >> 18), o[1] = (char)(0x80 | (c >> 12 & 0x3f)),
	       o[2] = (char)(0x80 | (c >> 6 & 0x3f)), o[3] = (char)(0x80 | (c & 0x3f)), 4;
}

/* An identifier's name, Punycode decoded (RFC 3492 section 6.2: the basic code
 * points before the last '_', then the deltas; at most 128 code points). */
static void v0_name(struct v0 *d, const char *p, size_t len, bool puny)
{
	if (!puny) {
		v0_put(d, p, len);
		return;
	}
	enum { BASE = 36, TMIN = 1, TMAX = 26, SKEW = 38, DAMP = 700, MAXCP = 128 };
	uint32_t cp[MAXCP];
	size_t ncp = 0, at = 0;
	const char *us = memrchr(p, '_', len);
	if (us) {
		for (const char *q = p; q < us; q++) {
			if (ncp == MAXCP || (unsigned char)*q >= 0x80)
				goto bad;
			cp[ncp++] = (unsigned char)*q;
		}
		at = (size_t)(us - p) + 1;
	}
	uint64_t n = 128, i = 0, bias = 72;
	while (at < len) {
		uint64_t oldi = i, w = 1;
		for (uint64_t k = BASE;; k += BASE) {
			if (at >= len)
				goto bad;
			char c = p[at++];
			uint64_t digit = c >= 'a' && c <= 'z' ? (uint64_t)(c - 'a')
					 : c >= '0' && c <= '9' ? (uint64_t)(c - '0' + 26) : BASE;
			if (digit >= BASE || digit > (UINT32_MAX - i) / w)
				goto bad;
			i += digit * w;
			uint64_t t = k <= bias ? TMIN : k >= bias + TMAX ? TMAX : k - bias;
			if (digit < t)
				break;
			if (w > UINT32_MAX / (BASE - t))
				goto bad;
			w *= BASE - t;
		}
		if (ncp == MAXCP)
			goto bad;
		/* adapt the bias */
		uint64_t delta = oldi == 0 ? (i - oldi) / DAMP : (i - oldi) / 2, k = 0;
		delta += delta / (ncp + 1);
		while (delta > ((BASE - TMIN) * TMAX) / 2) {
			delta /= BASE - TMIN;
			k += BASE;
		}
		bias = k + (BASE - TMIN + 1) * delta / (delta + SKEW);
		n += i / (ncp + 1);
		i %= ncp + 1;
		if (n > 0x10ffff || (n >= 0xd800 && n < 0xe000))
			goto bad;
		memmove(cp + i + 1, cp + i, (ncp - i) * sizeof(cp[0]));
		cp[i++] = (uint32_t)n;
		ncp++;
	}
	for (size_t j = 0; j < ncp; j++) {
		char b[4];
		v0_put(d, b, utf8_put(b, cp[j]));
	}
	return;
bad:
	d->bad = true;
}

static void v0_path(struct v0 *d, bool in_value);
static void v0_type(struct v0 *d);
static void v0_const(struct v0 *d);

/* Follow a backref: parse what is at that earlier position, then come back.
 * While skipping, the target is not visited (it prints nothing and it was
 * checked where it stands). */
static void v0_backref(struct v0 *d, void (*fn)(struct v0 *, bool), bool arg)
{
	size_t here = d->pos - 1;   /* the 'B' */
	uint64_t at = v0_b62(d);
	if (d->bad || at >= here) {
		d->bad = true;
		return;
	}
	if (d->skip)
		return;
	size_t back = d->pos;
	d->pos = (size_t)at;
	fn(d, arg);
	d->pos = back;
}

static void v0_lifetime(struct v0 *d, uint64_t lt)
{
	if (lt == 0) {
		v0_puts(d, "'_");
		return;
	}
	if (lt > d->binders) {
		d->bad = true;
		return;
	}
	uint64_t i = d->binders - lt;
	if (i < 26) {
		char b[3] = { '\'', (char)('a' + i), 0 };
		v0_puts(d, b);
	} else {
		v0_puts(d, "'_");
		v0_putu(d, i);
	}
}

/* [<binder>]: "G" <base-62-number> binds that many lifetimes + 1: for<'a, ...> */
static uint64_t v0_binder(struct v0 *d)
{
	uint64_t k = v0_opt_b62(d, 'G');
	if (!k)
		return 0;
	v0_puts(d, "for<");
	for (uint64_t i = 0; i < k && !d->bad; i++) {
		if (i)
			v0_puts(d, ", ");
		d->binders++;
		v0_lifetime(d, 1);
	}
	v0_puts(d, "> ");
	return k;
}

static void v0_generic_arg(struct v0 *d)
{
	if (v0_eat(d, 'L'))
		v0_lifetime(d, v0_b62(d));
	else if (v0_eat(d, 'K'))
		v0_const(d);
	else
		v0_type(d);
}

static void v0_path_b(struct v0 *d, bool in_value) { v0_path(d, in_value); }

/* <path>; in_value: generic arguments print as ::<...> (a value's path) */
static void v0_path(struct v0 *d, bool in_value)
{
	if (d->bad || ++d->depth > V0_MAX_DEPTH) {
		d->bad = true;
		return;
	}
	int tag = v0_peek(d);
	d->pos++;
	const char *name;
	size_t nlen;
	bool puny;
	switch (tag) {
	case 'C': {                                  /* crate root */
		v0_opt_b62(d, 's');
		if (v0_ident(d, &name, &nlen, &puny))
			v0_name(d, name, nlen, puny);
		break;
	}
	case 'M': case 'X': {                        /* <T> and <T as Trait> impls */
		v0_opt_b62(d, 's');
		bool was = d->skip;
		d->skip = true;                      /* the impl's own path is not printed */
		v0_path(d, false);
		d->skip = was;
		v0_puts(d, "<");
		v0_type(d);
		if (tag == 'X') {
			v0_puts(d, " as ");
			v0_path(d, false);
		}
		v0_puts(d, ">");
		break;
	}
	case 'Y':                                    /* <T as Trait> */
		v0_puts(d, "<");
		v0_type(d);
		v0_puts(d, " as ");
		v0_path(d, false);
		v0_puts(d, ">");
		break;
	case 'N': {                                  /* nested: path::name */
		int ns = v0_peek(d);
		if (!((ns >= 'a' && ns <= 'z') || (ns >= 'A' && ns <= 'Z'))) {
			d->bad = true;
			break;
		}
		d->pos++;
		v0_path(d, in_value);
		uint64_t dis = v0_opt_b62(d, 's');
		if (!v0_ident(d, &name, &nlen, &puny))
			break;
		if (ns >= 'a' && ns <= 'z') {   /* internal namespaces: just the name */
			if (nlen) {
				v0_puts(d, "::");
				v0_name(d, name, nlen, puny);
			}
			break;
		}
		v0_puts(d, ns == 'C' ? "::{closure" : ns == 'S' ? "::{shim" : "::{");
		if (ns != 'C' && ns != 'S')
			v0_put(d, (const char *)&(char){ (char)ns }, 1);
		if (nlen) {
			v0_puts(d, ":");
			v0_name(d, name, nlen, puny);
		}
		v0_puts(d, "#");
		v0_putu(d, dis);
		v0_puts(d, "}");
		break;
	}
	case 'I':                                    /* generic arguments */
		v0_path(d, in_value);
		v0_puts(d, in_value ? "::<" : "<");
		for (unsigned i = 0; v0_more(d, i, ", "); i++) {
			v0_generic_arg(d);
		}
		v0_puts(d, ">");
		break;
	case 'B':
		v0_backref(d, v0_path_b, in_value);
		break;
	default:
		d->bad = true;
	}
	d->depth--;
}

static const char *v0_basic(int c)
{
	switch (c) {
	case 'a': return "i8";
	case 'b': return "bool";
	case 'c': return "char";
	case 'd': return "f64";
	case 'e': return "str";
	case 'f': return "f32";
	case 'h': return "u8";
	case 'i': return "isize";
	case 'j': return "usize";
	case 'l': return "i32";
	case 'm': return "u32";
	case 'n': return "i128";
	case 'o': return "u128";
	case 's': return "i16";
	case 't': return "u16";
	case 'u': return "()";
	case 'v': return "...";
	case 'x': return "i64";
	case 'y': return "u64";
	case 'z': return "!";
	case 'p': return "_";
	}
	return NULL;
}

static void v0_type_b(struct v0 *d, bool unused) { (void)unused; v0_type(d); }

static void v0_fn_sig(struct v0 *d)
{
	uint64_t bound = v0_binder(d);
	if (v0_eat(d, 'U'))
		v0_puts(d, "unsafe ");
	if (v0_eat(d, 'K')) {
		v0_puts(d, "extern \"");
		if (v0_eat(d, 'C')) {
			v0_puts(d, "C");
		} else {
			const char *name;
			size_t nlen;
			bool puny;
			if (v0_ident(d, &name, &nlen, &puny) && puny)
				d->bad = true;
			else if (!d->bad)
				for (size_t i = 0; i < nlen; i++)   /* '_' stands for '-' */
					v0_put(d, name[i] == '_' ? "-" : name + i, 1);
		}
		v0_puts(d, "\" ");
	}
	v0_puts(d, "fn(");
	for (unsigned i = 0; v0_more(d, i, ", "); i++) {
		v0_type(d);
	}
	v0_puts(d, ")");
	if (v0_eat(d, 'u')) {
		/* returns (): nothing printed */
	} else {
		v0_puts(d, " -> ");
		v0_type(d);
	}
	d->binders -= bound;
}

static void v0_dyn(struct v0 *d)
{
	uint64_t bound = v0_binder(d);
	for (unsigned i = 0; v0_more(d, i, " + "); i++) {
		/* <path> {"p" <ident> <type>}: the trait, then its associated types,
		 * inside the trait's own <...> when it has generic arguments */
		size_t before = d->len;
		v0_path(d, false);
		bool open = d->len > before && d->out && d->len <= d->cap && d->out[d->len - 1] == '>';
		for (unsigned k = 0; !d->bad && v0_eat(d, 'p'); k++) {
			const char *name;
			size_t nlen;
			if (k == 0) {
				if (open)
					d->len--;   /* reopen Trait<A> as Trait<A, Name = T> */
				v0_puts(d, open ? ", " : "<");
			} else {
				v0_puts(d, ", ");
			}
			bool puny;
			if (!v0_ident(d, &name, &nlen, &puny))
				break;
			v0_name(d, name, nlen, puny);
			v0_puts(d, " = ");
			v0_type(d);
			if (!v0_peek(d) || v0_peek(d) != 'p')
				v0_puts(d, ">");
		}
	}
	d->binders -= bound;
}

static void v0_type(struct v0 *d)
{
	if (d->bad || ++d->depth > V0_MAX_DEPTH) {
		d->bad = true;
		return;
	}
	int tag = v0_peek(d);
	const char *basic = v0_basic(tag);
	if (basic) {
		d->pos++;
		v0_puts(d, basic);
		d->depth--;
		return;
	}
	d->pos++;
	switch (tag) {
	case 'R': case 'Q': {                        /* &T, &mut T */
		v0_puts(d, "&");
		if (v0_eat(d, 'L')) {
			uint64_t lt = v0_b62(d);
			if (lt) {
				v0_lifetime(d, lt);
				v0_puts(d, " ");
			}
		}
		if (tag == 'Q')
			v0_puts(d, "mut ");
		v0_type(d);
		break;
	}
	case 'P': v0_puts(d, "*const "); v0_type(d); break;
	case 'O': v0_puts(d, "*mut "); v0_type(d); break;
	case 'A': case 'S':                          /* [T; N], [T] */
		v0_puts(d, "[");
		v0_type(d);
		if (tag == 'A') {
			v0_puts(d, "; ");
			v0_const(d);
		}
		v0_puts(d, "]");
		break;
	case 'T': {                                  /* (A, B), (A,) */
		v0_puts(d, "(");
		unsigned i = 0;
		for (; v0_more(d, i, ", "); i++) {
			v0_type(d);
		}
		if (i == 1)
			v0_puts(d, ",");
		v0_puts(d, ")");
		break;
	}
	case 'F': v0_fn_sig(d); break;
	case 'D':                                    /* dyn Trait + 'a */
		v0_puts(d, "dyn ");
		v0_dyn(d);
		if (!v0_eat(d, 'L')) {
			d->bad = true;
			break;
		}
		{
			uint64_t lt = v0_b62(d);
			if (lt) {
				v0_puts(d, " + ");
				v0_lifetime(d, lt);
			}
		}
		break;
	case 'B': v0_backref(d, v0_type_b, false); break;
	default:
		d->pos--;
		v0_path(d, false);
	}
	d->depth--;
}

static void v0_const_b(struct v0 *d, bool unused) { (void)unused; v0_const(d); }

/* <const>: <type> <const-data> (integers, bool, char), "p" (a placeholder), a backref */
static void v0_const(struct v0 *d)
{
	if (d->bad || ++d->depth > V0_MAX_DEPTH) {
		d->bad = true;
		return;
	}
	int tag = v0_peek(d);
	d->pos++;
	if (tag == 'B') {
		v0_backref(d, v0_const_b, false);
		d->depth--;
		return;
	}
	if (tag == 'p') {
		v0_puts(d, "_");
		d->depth--;
		return;
	}
	bool neg = false, is_signed = strchr("alnisx", tag) && tag, is_int = tag && strchr("hmotyjalnisx", tag);
	if (!is_int && tag != 'b' && tag != 'c') {
		d->bad = true;   /* structural constants are not printed: stay mangled */
		d->depth--;
		return;
	}
	if (is_signed && v0_eat(d, 'n'))
		neg = true;
	size_t start = d->pos;
	while (v0_peek(d) && v0_peek(d) != '_' && is_hex((char)v0_peek(d)))
		d->pos++;
	size_t digits = d->pos - start;
	if (!v0_eat(d, '_')) {
		d->bad = true;
		d->depth--;
		return;
	}
	uint64_t v = 0;
	if (digits > 16) {
		if (!is_int || neg) {
			d->bad = true;
		} else {
			v0_puts(d, "0x");
			v0_put(d, d->s + start, digits);
		}
		d->depth--;
		return;
	}
	for (size_t i = start; i < start + digits; i++)
		v = v * 16 + (uint64_t)(d->s[i] <= '9' ? d->s[i] - '0' : d->s[i] - 'a' + 10);
	if (tag == 'b') {
		if (v > 1)
			d->bad = true;
		v0_puts(d, v ? "true" : "false");
	} else if (tag == 'c') {
		/* printable ASCII as 'c'; anything else as its code point */
		if (v >= 0x20 && v < 0x7f && v != '\'' && v != '\\') {
			char b[4] = { '\'', (char)v, '\'', 0 };
			v0_puts(d, b);
		} else {
			char b[24];
			snprintf(b, sizeof(b), "'\\u{%llx}'", (unsigned long long)v);
			v0_puts(d, b);
		}
	} else {
		if (neg)
			v0_puts(d, "-");
		v0_putu(d, v);
	}
	d->depth--;
}

/* One pass of the grammar over s (after "_R"), printing into out when it is
 * not NULL. The printed length, or SIZE_MAX when the name is not v0 (or does
 * not fit in cap). */
static size_t v0_run(const char *s, size_t n, char *out, size_t cap)
{
	struct v0 d = { .s = s, .n = n, .out = out, .cap = cap };
	if (n && s[0] >= '0' && s[0] <= '9')
		return SIZE_MAX;   /* an encoding version: none is defined but the first */
	v0_path(&d, true);
	/* [<instantiating-crate>]: a path, not printed */
	if (!d.bad && d.pos < d.n && s[d.pos] != '.' && s[d.pos] != '$') {
		d.skip = true;
		v0_path(&d, false);
		d.skip = false;
	}
	/* a vendor suffix (".llvm.123") after it is dropped */
	if (d.bad || (d.pos < d.n && s[d.pos] != '.' && s[d.pos] != '$'))
		return SIZE_MAX;
	return d.len;
}

/* s[0..len) demangled in place when it is a v0 name ("_R", or "__R" as on
 * macOS) whose demangled form fits in cap bytes; otherwise len. A ';' that the
 * grammar prints (array types) becomes ':', as perf names' ';' do: a ';' would
 * split the frame. */
static size_t rust_v0(char *s, size_t len, size_t cap)
{
	size_t skip = len > 2 && s[0] == '_' && s[1] == 'R' ? 2
		      : len > 3 && s[0] == '_' && s[1] == '_' && s[2] == 'R' ? 3 : 0;
	if (!skip || s[skip] < 'A' || s[skip] > 'Z')
		return len;
	size_t need = v0_run(s + skip, len - skip, NULL, cap);
	if (need == SIZE_MAX || need > cap)
		return len;
	char small[1024], *tmp = need <= sizeof(small) ? small : malloc(need);
	if (!tmp)
		return len;
	v0_run(s + skip, len - skip, tmp, need);
	for (size_t i = 0; i < need; i++)
		if (tmp[i] == ';')
			tmp[i] = ':';
	memcpy(s, tmp, need);
	if (tmp != small)
		free(tmp);
	return need;
}

static bool ends_with(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);
	return len >= n && !memcmp(s + len - n, lit, n);
}

/* A C++ name's own parameter list, cut as a whole:
 *   std::function<int (int, int)>::operator()(int, int) const
 * becomes std::function<int (int, int)>::operator(): the last balanced "(...)"
 * (with the qualifiers after it) goes if a name is right before it, so
 * parentheses inside template arguments, "operator()" and "(anonymous
 * namespace)" stay. The new length. */
static size_t cxx_cut(const char *s, size_t len)
{
	size_t e = len;
	static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };
	for (bool again = true; again;) {
		again = false;
		for (size_t k = 0; k < sizeof(quals) / sizeof(quals[0]); k++)
			if (ends_with(s, e, quals[k])) {
				e -= strlen(quals[k]);
				again = true;
			}
	}
	if (!e || s[e - 1] != ')')
		return len;
	int depth = 0;
	size_t i = e;
	while (i-- > 0) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			break;
	}
	if (depth || i == 0 || s[i - 1] == ' ' || s[i - 1] == '(' || s[i - 1] == ':')
		return len;
	/* "operator()" with no parameter list after it is the name itself */
	if (ends_with(s, i, "operator"))
		return len;
	return i;
}

size_t fk_name_rules(const fk_parse_opts *o, char *s, size_t len, size_t cap)
{
	if (o->rust_names) {
		size_t v0 = rust_v0(s, len, cap);
		len = v0 != len ? v0 : rust_legacy(s, len);
	}
	if (o->cxx_names)
		len = cxx_cut(s, len);
	return len;
}

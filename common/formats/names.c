/* names.c - the frame-name rules a user can ask of every input format: Rust
 * legacy names repaired (--rust-names) and C++ parameter lists cut as a
 * whole (--cxx-names). Parsers call fk_name_rules() on each name they keep. */
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

size_t fk_name_rules(const fk_parse_opts *o, char *s, size_t len)
{
	if (o->rust_names)
		len = rust_legacy(s, len);
	if (o->cxx_names)
		len = cxx_cut(s, len);
	return len;
}

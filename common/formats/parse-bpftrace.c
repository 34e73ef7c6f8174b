/* parse-bpftrace.c - bpftrace map output keyed by stacks: "@[" (or "@name["),
 * frames leaf first one per line, ", " between stacks, "]: COUNT", as
 * stackcollapse-bpftrace.pl reads it, plus scalar keys (comm, pid) as root
 * frames, user stacks under kernel stacks in either key order, offsets cut. */
#include <stdio.h>
#include <stdlib.h>
#include "parse-stack.h"

static bool starts(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);
	return len >= n && !memcmp(s, lit, n);
}

/* "@name[" at the start of a line: length of the prefix, or 0. */
static size_t map_open(const char *s, size_t len)
{
	if (!len || s[0] != '@')
		return 0;
	size_t i = 1;
	while (i < len && (s[i] == '_' || (s[i] >= '0' && s[i] <= '9') ||
			   (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
		i++;
	return i < len && s[i] == '[' ? i + 1 : 0;
}

/* A line ending in "]: COUNT": position of that ']' and the count. */
static bool entry_close(const char *s, size_t len, size_t *at, double *count)
{
	size_t e = len;
	while (e && fk_is_space(s[e - 1]))
		e--;
	size_t b = e;
	while (b && s[b - 1] >= '0' && s[b - 1] <= '9')
		b--;
	if (b == e || b < 3 || s[b - 1] != ' ' || s[b - 2] != ':' || s[b - 3] != ']')
		return false;
	if (fk_parse_count(s + b, e - b, count))
		return false;
	*at = b - 3;
	return true;
}

/* An entry's key is a list of elements, as bpftrace prints a tuple: ", "
 * between them; a stack element is its frames one per line (leaf first), or
 * nothing when the stack is empty; a scalar element (comm, pid) is inline text. */
struct elem {
	size_t from, n;      /* its ids in t->b (frames leaf first, or the one scalar) */
	bool scalar;
	char whose;          /* 'k'/'u' when ustack(perf)/kstack(perf) addresses told, else 0 */
};

struct bt {
	fk_parse_ctx *c;
	fk_stackbuf b;       /* every element's ids, in listing order */
	fk_stackbuf out;     /* the stack being built, root first */
	struct elem *el;
	size_t nel, el_cap;
	bool in;             /* inside a multi-line entry */
	bool skip;           /* ... of another map: frames are not kept */
	uint64_t start;      /* its first line */
	char map[64];        /* the stack map in use ("" = @) */
	size_t map_len;
	bool have_map;
	char cur[64];        /* the map of the entry being read (--all-maps) */
	size_t cur_len;
	int kernel_at;       /* which of two stacks the last decided entry had the kernel's: -1 unknown */
	uint64_t other_maps; /* entries of other stack maps, skipped */
	uint64_t other_line;
	char seen[128];      /* names of the stack maps met, for a note when --map matches none */
	size_t seen_len;
};

static int new_elem(struct bt *t)
{
	if (FK_GROW(t->el, t->el_cap, t->nel + 1))
		return -FK_E_NOMEM;
	t->el[t->nel++] = (struct elem){ .from = t->b.n };
	return 0;
}

/* "leaf_a+25" -> "leaf_a" unless --offsets: bpftrace prints "+OFFSET" (decimal)
 * on every resolved frame, so one function would be many sibling frames. */
static size_t strip_offset(const fk_parse_ctx *c, const char *f, size_t len)
{
	if (c->o->keep_offsets)
		return len;
	size_t e = len;
	while (e && f[e - 1] >= '0' && f[e - 1] <= '9')
		e--;
	if (e < len && e >= 2 && f[e - 1] == '+')
		return e - 1;
	return len;
}

static int push_frame(struct bt *t, const char *f, size_t fl)
{
	if (!t->nel || t->el[t->nel - 1].scalar) {
		int rc = new_elem(t);
		if (rc)
			return rc;
	}
	/* kstack(perf)/ustack(perf): "ffffffff821cea0b mt_find+171" and
	 * "7f5a3a747bd3 wait4+19 (/usr/lib/.../libc.so.6)": the address and the
	 * module go (the address says whose stack it is), the name stays. */
	size_t h = 0;
	uint64_t a = 0;
	while (h < fl && h < 17 && ((f[h] >= '0' && f[h] <= '9') || (f[h] >= 'a' && f[h] <= 'f'))) {
		a = a << 4 | (uint64_t)(f[h] <= '9' ? f[h] - '0' : f[h] - 'a' + 10);
		h++;
	}
	if (h >= 6 && h <= 16 && h + 1 < fl && f[h] == ' ') {
		f += h + 1;
		fl -= h + 1;
		if (fl && f[fl - 1] == ')') {
			const char *m = NULL;
			for (size_t i = fl - 1; i-- > 0;)
				if (f[i] == '(' && i && f[i - 1] == ' ') {
					m = f + i - 1;
					break;
				}
			if (m)
				fl = (size_t)(m - f);
		}
		t->el[t->nel - 1].whose = a >= 0xffff800000000000ull ? 'k' : 'u';
	}
	int rc = fk_stackbuf_push(t->c, &t->b, f, strip_offset(t->c, f, fl));
	if (!rc)
		t->el[t->nel - 1].n++;
	return rc;
}

static void trim(const char **s, size_t *len)
{
	while (*len && fk_is_space(**s))
		(*s)++, (*len)--;
	while (*len && fk_is_space((*s)[*len - 1]))
		(*len)--;
}

/* Key text on the opening or closing line: its first part belongs to the
 * element being read, each ", " starts a new one. */
static int inline_key(struct bt *t, const char *s, size_t len)
{
	for (bool first = true;; first = false) {
		const char *comma = memchr(s, ',', len);
		size_t part = comma ? (size_t)(comma - s) : len;
		const char *k = s;
		size_t kl = part;
		trim(&k, &kl);
		int rc;
		if ((!first || !t->nel) && (rc = new_elem(t)))
			return rc;
		if (kl) {
			struct elem *e = &t->el[t->nel - 1];
			if (e->n) {
				/* text after frames in one element: a new (scalar) element */
				if ((rc = new_elem(t)))
					return rc;
				e = &t->el[t->nel - 1];
			}
			if ((rc = fk_stackbuf_push(t->c, &t->b, k, kl)))
				return rc;
			e->n = 1;
			e->scalar = true;
		}
		if (!comma)
			return 0;
		len -= part + 1;
		s = comma + 1;
	}
}

static bool is_hex(const char *s, size_t len, uint64_t *v)
{
	if (len < 3 || len > 18 || s[0] != '0' || s[1] != 'x')
		return false;
	uint64_t x = 0;
	for (size_t i = 2; i < len; i++) {
		char ch = s[i];
		int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
		if (d < 0)
			return false;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return true;
}

static bool prefixed(const char *s, size_t len, const char *const *list)
{
	for (; *list; list++) {
		size_t n = strlen(*list);
		if (len >= n && !memcmp(s, *list, n))
			return true;
	}
	return false;
}

/* Whose stack this is: 'k' (kernel), 'u' (user) or 0 (cannot tell). Kernel
 * stacks end (at their root) in an entry point: a system call, an interrupt, a
 * new kernel thread, the idle loop; user stacks in the C runtime's start or a
 * thread start. Addresses tell too: the kernel's are in the top half. */
static char whose(struct bt *t, const struct elem *e)
{
	static const char *const kernel_roots[] = {
		"entry_SYSCALL", "entry_INT80", "entry_SYSENTER", "asm_", "ret_from_fork",
		"secondary_startup", "common_startup", "start_kernel", "x86_64_start",
		"cpu_startup_entry", "rest_init", "el0t_", "el1h_", "el0_", "ret_from_exception",
		"handle_exception", "do_el0_", NULL,
	};
	static const char *const user_roots[] = {
		"_start", "__libc_start_main", "__libc_start_call_main", "start_thread",
		"clone", "__clone", "thread_start", "_dl_start", NULL,
	};
	if (e->scalar || !e->n)
		return 0;
	if (e->whose)
		return e->whose;
	for (size_t i = e->from; i < e->from + e->n; i++) {
		size_t len;
		const char *f = fk_profile_name(t->c->p, t->b.ids[i], &len);
		uint64_t a;
		if (is_hex(f, strip_offset(t->c, f, len), &a))
			return a >= 0xffff800000000000ull ? 'k' : 'u';
	}
	size_t len;
	const char *root = fk_profile_name(t->c->p, t->b.ids[e->from + e->n - 1], &len);
	if (prefixed(root, len, kernel_roots))
		return 'k';
	if (prefixed(root, len, user_roots))
		return 'u';
	return 0;
}

static int out_push(struct bt *t, uint32_t id)
{
	if (FK_GROW(t->out.ids, t->out.cap, t->out.n + 1))
		return -FK_E_NOMEM;
	t->out.ids[t->out.n++] = id;
	return 0;
}

static int out_stack(struct bt *t, const struct elem *e)
{
	for (size_t i = e->from + e->n; i-- > e->from;) {
		int rc = out_push(t, t->b.ids[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* The off-wake separator (FK_OFFWAKE_SEP, docs/resource-graphs.md): a scalar in a key
 * that splits the blocked thread's part from the waker's. */
static bool is_sep(struct bt *t, const struct elem *e)
{
	size_t len;
	if (!e->scalar)
		return false;
	const char *s = fk_profile_name(t->c->p, t->b.ids[e->from], &len);
	return len == sizeof(FK_OFFWAKE_SEP) - 1 && !memcmp(s, FK_OFFWAKE_SEP, len);
}

/* After the separator (off-wake keys): the waker's part in the key's order,
 * each stack as printed (leaf first, so the waker's leaf is nearest "--"),
 * scalars (the waker's comm) where they stand: the last on top. */
static int waker_part(struct bt *t, size_t from)
{
	int rc = 0;
	for (size_t i = from; i < t->nel && !rc; i++) {
		const struct elem *e = &t->el[i];
		for (size_t j = e->from; j < e->from + e->n && !rc; j++)
			rc = out_push(t, t->b.ids[j]);
	}
	return rc;
}

/* The entry is complete: root first, the map's name (--all-maps), the scalar
 * keys in order, then the stacks: user frames under kernel frames whichever
 * order the key lists them in, else the last listed stack at the root. A key
 * with a "--" scalar is an off-wake key: that is done for the elements before
 * it, then "--" and the waker's part (waker_part). */
static int finish(struct bt *t, double count)
{
	fk_parse_ctx *c = t->c;
	int rc = 0;
	size_t nstacks = 0, frames = 0, scalars = 0;
	const struct elem *st[2] = { NULL, NULL };
	size_t nel = t->nel, sep = SIZE_MAX;
	for (size_t i = 0; i < t->nel; i++)
		if (is_sep(t, &t->el[i])) {
			sep = i;
			break;
		}
	if (sep != SIZE_MAX)
		t->nel = sep;
	for (size_t i = 0; i < t->nel; i++) {
		if (t->el[i].scalar) {
			scalars++;
		} else {
			if (nstacks < 2)
				st[nstacks] = &t->el[i];
			nstacks++;
			frames += t->el[i].n;
		}
	}
	t->out.n = 0;
	if (!nstacks) {
		/* "@[comm]: 5": no stack in the key */
		c->st->filtered++;
		goto done;
	}
	if (!frames && !scalars) {
		/* No frames at all: nothing to draw; keep the count in the total. */
		c->st->filtered++;
		goto done;
	}
	if (c->o->all_maps) {
		char name[sizeof(t->cur) + 1];
		name[0] = '@';
		memcpy(name + 1, t->cur, t->cur_len);
		int64_t id = fk_profile_intern(c->p, name, t->cur_len + 1);
		if (id < 0 || (rc = out_push(t, (uint32_t)id)))
			return id < 0 ? (int)id : rc;
	}
	for (size_t i = 0; i < t->nel; i++)
		if (t->el[i].scalar && (rc = out_push(t, t->b.ids[t->el[i].from])))
			return rc;
	if (nstacks == 2) {
		char w0 = whose(t, st[0]), w1 = whose(t, st[1]);
		int k = w0 == 'k' || w1 == 'u' ? 0 : w1 == 'k' || w0 == 'u' ? 1 : -1;
		if (k >= 0)
			t->kernel_at = k;
		else
			k = t->kernel_at >= 0 ? t->kernel_at : 0;
		if ((rc = out_stack(t, st[1 - k])) || (rc = out_stack(t, st[k])))
			return rc;
	} else {
		for (size_t i = t->nel; i-- > 0;)
			if (!t->el[i].scalar && (rc = out_stack(t, &t->el[i])))
				return rc;
	}
	if (sep != SIZE_MAX) {
		t->nel = nel;
		if ((rc = out_push(t, t->b.ids[t->el[sep].from])) || (rc = waker_part(t, sep + 1)))
			return rc;
	}
	rc = fk_stackbuf_add(c, &t->out, count, NULL);
done:
	t->b.n = 0;
	t->nel = 0;
	t->in = false;
	return rc;
}

static void note_seen(struct bt *t, const char *name, size_t len)
{
	char buf[80];
	int n = snprintf(buf, sizeof(buf), "@%.*s", (int)(len < 64 ? len : 64), name);
	for (size_t i = 0; i < t->seen_len;) {
		const char *e = memchr(t->seen + i, ' ', t->seen_len - i);
		size_t l = e ? (size_t)(e - t->seen - i) : t->seen_len - i;
		if (l == (size_t)n && !memcmp(t->seen + i, buf, l))
			return;
		i += l + 1;
	}
	if (t->seen_len + (size_t)n + 1 < sizeof(t->seen)) {
		if (t->seen_len)
			t->seen[t->seen_len++] = ' ';
		memcpy(t->seen + t->seen_len, buf, (size_t)n);
		t->seen_len += (size_t)n;
	}
}

/* Entries of one map only (unless --all-maps): two stack maps in one output
 * would count samples twice. --map NAME picks it; else the first one met. */
static bool want_map(struct bt *t, const char *name, size_t len, uint64_t lineno)
{
	const fk_parse_opts *o = t->c->o;
	note_seen(t, name, len);
	t->cur_len = len < sizeof(t->cur) ? len : sizeof(t->cur);
	memcpy(t->cur, name, t->cur_len);
	if (o->all_maps)
		return true;
	if (!t->have_map) {
		const char *want = o->map;
		if (want && *want == '@')
			want++;
		if (want && (strlen(want) != len || memcmp(want, name, len))) {
			if (!t->other_maps++)
				t->other_line = lineno;
			return false;
		}
		if (len > sizeof(t->map))
			len = sizeof(t->map);
		memcpy(t->map, name, len);
		t->map_len = len;
		t->have_map = true;
		return true;
	}
	/* names longer than the buffer compare by their stored prefix */
	size_t cmp = len < sizeof(t->map) ? len : sizeof(t->map);
	if (cmp == t->map_len && !memcmp(name, t->map, cmp))
		return true;
	if (!t->other_maps++)
		t->other_line = lineno;
	return false;
}

static int outside(struct bt *t, const char *line, size_t len)
{
	fk_parse_ctx *c = t->c;
	uint64_t ln = c->r->lineno;
	size_t open = map_open(line, len);
	if (!open) {
		if (fk_is_blank(line, len) || starts(line, len, "Attaching "))
			return 0;
		/* "@name: 12" (a plain counter) is not a stack; say so once per map. */
		if (len && line[0] == '@' && memchr(line, ':', len)) {
			c->st->filtered++;
			return 0;
		}
		fk_bad_line(c, ln, "not bpftrace map output (expected '@[' or '@name[')");
		return 0;
	}
	const char *name = line + 1;
	size_t name_len = open - 2;
	size_t at;
	double count;
	t->b.n = 0;
	t->nel = 0;
	if (entry_close(line, len, &at, &count) && at >= open) {
		/* One-line entry "@[comm, ]: 5" or "@[, comm]: 5" (a stack part that
		 * is empty), "@[]: 5"; "@[comm]: 5" has no stack at all: a scalar
		 * map is not a stack map, so it must not become the map read. */
		const char *k = line + open;
		size_t kl = at - open;
		if (kl && !memchr(k, ',', kl)) {
			c->st->filtered++;
			return 0;
		}
		if (!want_map(t, name, name_len, ln))
			return 0;
		int rc = inline_key(t, k, kl);
		return rc ? rc : finish(t, count);
	}
	/* Multi-line entry: "@[" or "@[comm, pid, " then frames. */
	t->in = true;
	t->start = ln;
	if (!want_map(t, name, name_len, ln)) {
		t->skip = true;
		return 0;
	}
	t->skip = false;
	return inline_key(t, line + open, len - open);
}

static int inside(struct bt *t, const char *line, size_t len)
{
	fk_parse_ctx *c = t->c;
	bool skipping = t->skip;
	size_t at;
	double count;
	if (entry_close(line, len, &at, &count)) {
		if (skipping) {
			t->in = false;
			return 0;
		}
		/* "]: 5", ", ]: 5" (an empty last stack), ", comm]: 5" (a trailing scalar) */
		int rc = 0;
		const char *k = line;
		size_t kl = at;
		trim(&k, &kl);
		if (kl && (rc = inline_key(t, k, kl)))
			return rc;
		return finish(t, count);
	}
	if (len && line[0] == '@' && map_open(line, len)) {
		/* A new entry without the old one's "]: N": the old one is lost. */
		if (!skipping)
			fk_bad_line(c, t->start, "bpftrace entry has no closing ']: COUNT'; dropped");
		t->in = false;
		return outside(t, line, len);
	}
	if (skipping)
		return 0;
	const char *f = line;
	size_t fl = len;
	trim(&f, &fl);
	if (fl == 0)
		return 0; /* blank lines carry nothing */
	/* "," between two stacks of one key: the next element; ", --, " (a scalar
	 * between two stacks, as off-wake keys have): that element, then the next */
	if (f[0] == ',')
		return fl == 1 ? new_elem(t) : inline_key(t, f, fl);
	return push_frame(t, f, fl);
}

static int parse(fk_parse_ctx *c)
{
	struct bt t = { .c = c, .kernel_at = -1 };
	const char *line;
	size_t len;
	int rc;
	while ((rc = fk_reader_line(c->r, &line, &len)) > 0) {
		c->st->lines++;
		len = fk_chomp_cr(line, len);
		rc = t.in ? inside(&t, line, len) : outside(&t, line, len);
		if (rc < 0)
			break;
	}
	if (rc == 0 && t.in && !t.skip)
		fk_bad_line(c, t.start, "input ends inside a bpftrace entry (no ']: COUNT'); dropped");
	if (rc == 0 && t.other_maps && t.have_map && !c->o->map)
		fk_note(c, t.other_line,
			"%llu entries of other stack maps skipped (only @%.*s is read; "
			"choose with --map NAME, or --all-maps)",
			(unsigned long long)t.other_maps, (int)t.map_len, t.map);
	else if (rc == 0 && t.other_maps && !t.have_map)
		fk_note(c, 1, "no stack map @%s in the input (it has %.*s)",
			c->o->map[0] == '@' ? c->o->map + 1 : c->o->map, (int)t.seen_len, t.seen);
	c->st->filtered += t.other_maps;
	fk_stackbuf_free(&t.b);
	fk_stackbuf_free(&t.out);
	free(t.el);
	return rc;
}

static int probe(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *s;
	size_t l;
	int opens = 0, closes = 0, lines = 0;
	bool attaching = false;
	while (lines < 400 && fk_probe_line(&p, end, &s, &l)) {
		size_t at;
		double cnt;
		lines++;
		if (lines <= 3 && starts(s, l, "Attaching ") && memmem(s, l, " probe", 6))
			attaching = true;
		if (map_open(s, l))
			opens++;
		if (entry_close(s, l, &at, &cnt))
			closes++;
	}
	if (opens && closes)
		return attaching ? 95 : 85;
	return attaching ? 60 : 0;
}

const fk_format fk_format_bpftrace = {
	.name = "bpftrace",
	.unit = "samples",
	.desc = "bpftrace maps keyed by kstack/ustack: @[kstack, ustack]: COUNT and friends",
	.probe = probe,
	.parse = parse,
};

/* opt.c - the programs' one option parser: long options from the library's option
 * tables (and a program's own rows), --name=VALUE, -name, short letters, unique
 * abbreviations; and the help lines printed from the same rows. */
#include <stdlib.h>
#include <string.h>
#include "prog.h"

bool fkp_optset_has(const fkp_optset *set, const fk_option *row)
{
	if (!set->only)
		return true;
	for (const char *const *o = set->only; *o; o++)
		if (!strcmp(*o, row->name))
			return true;
	return false;
}

/* '_' in key matches '-' in name; key is key[0..len) */
static bool prefix_of(const char *name, const char *key, size_t len, bool whole)
{
	if (!name)
		return false;
	size_t i = 0;
	for (; i < len; i++)
		if (!name[i] || (name[i] != key[i] && !(name[i] == '-' && key[i] == '_')))
			return false;
	return !whole || !name[i];
}

/* The row for key[0..len): exact name or alias first (first set wins), else the
 * one row whose name (or alias) starts with key. *ambiguous is set when several
 * different rows start with it. */
static const fk_option *resolve(const fkp_parser *p, const char *key, size_t len,
				const fkp_optset **set, bool *ambiguous)
{
	const fk_option *found = NULL;
	*ambiguous = false;
	for (int whole = 1; whole >= 0; whole--) {
		for (size_t s = 0; s < p->nsets; s++) {
			const fkp_optset *st = &p->sets[s];
			for (size_t r = 0; r < st->n; r++) {
				const fk_option *row = &st->rows[r];
				if (!fkp_optset_has(st, row))
					continue;
				if (!prefix_of(row->name, key, len, whole) &&
				    !prefix_of(row->alias, key, len, whole))
					continue;
				if (whole) {
					*set = st;
					return row;
				}
				if (found && strcmp(found->name, row->name))
					*ambiguous = true;
				if (!found) {
					found = row;
					*set = st;
				}
			}
		}
	}
	return *ambiguous ? NULL : found;
}

static const fk_option *by_letter(const fkp_parser *p, char c, const fkp_optset **set)
{
	for (size_t s = 0; s < p->nsets; s++)
		for (size_t r = 0; r < p->sets[s].n; r++)
			if (p->sets[s].rows[r].letter == c && fkp_optset_has(&p->sets[s], &p->sets[s].rows[r])) {
				*set = &p->sets[s];
				return &p->sets[s].rows[r];
			}
	return NULL;
}

const fk_option *fkp_opt_lookup(const fkp_parser *p, const char *name, const fkp_optset **set)
{
	bool amb;
	const fkp_optset *dummy;
	return resolve(p, name, strlen(name), set ? set : &dummy, &amb);
}

static void say_ambiguous(const fkp_parser *p, const char *arg, const char *key, size_t len)
{
	char list[512] = "";
	for (size_t s = 0; s < p->nsets; s++)
		for (size_t r = 0; r < p->sets[s].n; r++) {
			const fk_option *row = &p->sets[s].rows[r];
			if (fkp_optset_has(&p->sets[s], row) && prefix_of(row->name, key, len, false) &&
			    !strstr(list, row->name) && strlen(list) + strlen(row->name) + 4 < sizeof(list)) {
				strcat(list, " --");
				strcat(list, row->name);
			}
		}
	fkp_err("option '%s' is ambiguous:%s", arg, list);
}

/* Set one option (message on error), then tell the parser's seen callback. */
static int apply(const fkp_parser *p, const fkp_optset *set, const fk_option *row,
		 const char *spelled, const char *val)
{
	char err[512];
	if (fk_option_apply(row, set->obj, spelled, val, err, sizeof(err))) {
		fkp_err("%s", err);
		return -1;
	}
	return p->seen && p->seen(p->ctx, row, val) ? -1 : 0;
}

/* -abc: every letter a flag of its own */
static int flag_cluster(const fkp_parser *p, const char *a)
{
	for (const char *c = a + 1; *c; c++) {
		const fkp_optset *set;
		const fk_option *row = by_letter(p, *c, &set);
		if (!row || row->type != FK_OPT_FLAG) {
			fkp_err("%s: -%c is not a flag that can be grouped", a, *c);
			return -1;
		}
		char spelled[4] = { '-', *c, 0 };
		if (apply(p, set, row, spelled, NULL))
			return -1;
	}
	return 1;
}

int fkp_opt_one(const fkp_parser *p, int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	if (a[0] != '-' || !a[1] || !strcmp(a, "--"))
		return 0;
	const fkp_optset *set = NULL;
	const fk_option *row = NULL;
	const char *key = a + 1 + (a[1] == '-');
	const char *eq = strchr(key, '=');
	size_t klen = eq ? (size_t)(eq - key) : strlen(key);
	const char *val = eq ? eq + 1 : NULL;
	bool amb = false;
	bool single = a[1] != '-';
	if (klen && (!single || klen > 1) && !(single && p->exact)) {
		row = resolve(p, key, klen, &set, &amb);
		if (row && p->exact && !prefix_of(row->name, key, klen, true) &&
		    !prefix_of(row->alias, key, klen, true))
			row = NULL;   /* an abbreviation */
		if (p->exact)
			amb = false;
	}
	if (single && !row && (row = by_letter(p, a[1], &set))) {
		/* -x, -xVALUE, or a cluster of flags -ns */
		amb = false;
		klen = 1;
		val = a[2] ? a + 2 : NULL;
		if (row->type == FK_OPT_FLAG && val)
			return flag_cluster(p, a);
	}
	if (!row) {
		if (amb && !single) {
			say_ambiguous(p, a, key, klen);
			return -1;
		}
		return 0;
	}
	char spelled[96];
	snprintf(spelled, sizeof(spelled), "%.*s", (int)(key - a + klen), a);
	bool takes = row->type != FK_OPT_FLAG && !(row->flags & FK_OPTF_VALUE_OPTIONAL);
	if (takes && !val) {
		if (*i + 1 >= argc) {
			fkp_err("%s needs a value", spelled);
			return -1;
		}
		val = argv[++*i];
	}
	return apply(p, set, row, spelled, val) ? -1 : 1;
}

int fkp_opt_parse(const fkp_parser *p, int argc, char **argv, char **ops, int *nops)
{
	bool done = false;
	*nops = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (done || a[0] != '-' || !strcmp(a, "-")) {
			ops[(*nops)++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			done = true;
			continue;
		}
		int r = fkp_opt_one(p, argc, argv, &i);
		if (r < 0)
			return -1;
		if (r == 0) {
			fkp_err("unknown option '%s'%s%s%s", a, p->hint ? " (" : "", p->hint ? p->hint : "",
				p->hint ? ")" : "");
			return -1;
		}
	}
	return 0;
}

void fkp_opt_synopsis(char *buf, size_t n, const fk_option *row, bool dashes)
{
	const char *dd = dashes ? "--" : "";
	char letter[8] = "";
	if (row->letter && dashes)
		snprintf(letter, sizeof(letter), "-%c, ", row->letter);
	if (row->type == FK_OPT_FLAG)
		snprintf(buf, n, "%s%s%s", letter, dd, row->name);
	else if (row->flags & FK_OPTF_VALUE_OPTIONAL)
		snprintf(buf, n, "%s%s%s[=%s]", letter, dd, row->name, row->arg ? row->arg : "VALUE");
	else
		snprintf(buf, n, "%s%s%s%s%s", letter, dd, row->name, dashes ? " " : "=",
			 row->arg ? row->arg : "VALUE");
}

/* help text wrapped at 80 columns, continuation lines under column 22 */
static void print_wrapped(FILE *out, const char *text, size_t col)
{
	const size_t width = 80;
	while (*text) {
		size_t room = width - col, len = strlen(text);
		size_t cut = len;
		if (len > room) {
			cut = room;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = len;
		}
		fprintf(out, "%.*s\n", (int)cut, text);
		text += cut;
		while (*text == ' ')
			text++;
		if (*text)
			fprintf(out, "%*s", (int)col, "");
	}
}

void fkp_opt_help_filtered(FILE *out, const fkp_optset *set, unsigned mask, unsigned want)
{
	if (set->title)
		fprintf(out, "%s\n", set->title);
	for (size_t r = 0; r < set->n; r++) {
		const fk_option *row = &set->rows[r];
		if ((row->flags & FK_OPTF_HIDDEN) || !fkp_optset_has(set, row) ||
		    (row->flags & mask) != want)
			continue;
		char left[96];
		fkp_opt_synopsis(left, sizeof(left), row, true);
		fprintf(out, "  %s", left);
		size_t used = 2 + strlen(left);
		if (used >= 22) {
			fputc('\n', out);
			used = 0;
		}
		fprintf(out, "%*s", (int)(22 - used), "");
		print_wrapped(out, row->help ? row->help : "", 22);
	}
}

void fkp_opt_help(FILE *out, const fkp_optset *set)
{
	fkp_opt_help_filtered(out, set, 0, 0);
}

const char *fkp_opt_type_name(int type)
{
	static const char *const names[] = { "flag", "text", "int", "uint", "u64", "number",
					     "choice", "choice", "custom" };
	return type >= 0 && type < (int)(sizeof(names) / sizeof(names[0])) ? names[type] : "?";
}

/* what a value may be, for tables: "21 to 1000000", "name, weight", "PX|N%" */
static void value_text(char *buf, size_t n, const fk_option *r)
{
	switch (r->type) {
	case FK_OPT_FLAG:
		snprintf(buf, n, "(flag)");
		break;
	case FK_OPT_INT: case FK_OPT_UINT: case FK_OPT_U64: case FK_OPT_DOUBLE:
		if (r->max >= 1e300 || r->max == 0)
			snprintf(buf, n, "%s %.15g", r->flags & FK_OPTF_ABOVE_MIN ? ">" : ">=", r->min);
		else
			snprintf(buf, n, "%.15g%s to %.15g", r->min,
				 r->flags & FK_OPTF_ABOVE_MIN ? " (excluded)" : "", r->max);
		break;
	case FK_OPT_CHOICE: case FK_OPT_BCHOICE: case FK_OPT_CUSTOM:
		snprintf(buf, n, "%s", r->choices ? r->choices : r->arg ? r->arg : "");
		break;
	default:
		snprintf(buf, n, "%s", r->arg ? r->arg : "TEXT");
	}
}

/* roff text: backslashes and leading dots/quotes made inert, '-' as \- */
static void man_text(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", out);
		else if (*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
	}
}

void fkp_opt_table(FILE *out, const fkp_optset *set, int style, bool dashes, unsigned mask,
		   unsigned want)
{
	bool markdown = style == FKP_TABLE_MARKDOWN;
	if (markdown)
		fputs("| option | value | meaning |\n| --- | --- | --- |\n", out);
	for (size_t i = 0; i < set->n; i++) {
		const fk_option *r = &set->rows[i];
		if ((r->flags & FK_OPTF_HIDDEN) || !fkp_optset_has(set, r) || (r->flags & mask) != want)
			continue;
		char syn[96], val[96];
		fkp_opt_synopsis(syn, sizeof(syn), r, dashes);
		value_text(val, sizeof(val), r);
		if (style == FKP_TABLE_MAN) {
			fputs(".TP\n.B ", out);
			man_text(out, syn);
			fputc('\n', out);
			man_text(out, r->help);
			if (r->type != FK_OPT_FLAG && r->type != FK_OPT_TEXT &&
			    !(r->arg && !strcmp(val, r->arg))) {
				fputs(" (", out);
				man_text(out, val);
				fputc(')', out);
			}
			fputc('\n', out);
			continue;
		}
		if (!markdown) {
			fprintf(out, "%s\t%s\t%s\t%s\t%.17g\t%.17g\t%s\t%s\n", r->name,
				r->alias ? r->alias : "-", fkp_opt_type_name(r->type),
				r->choices ? r->choices : r->arg ? r->arg : "-", r->min, r->max,
				r->flags & FK_OPTF_FLAMEGRAPH ? "flamegraph.pl" : "-", r->help);
			continue;
		}
		fputs("| `", out);
		for (const char *c = syn; *c; c++)
			fputs(*c == '|' ? "\\|" : (char[2]){ *c, 0 }, out);
		fputs("` | ", out);
		for (const char *c = val; *c; c++)
			fputs(*c == '|' ? "\\|" : (char[2]){ *c, 0 }, out);
		fprintf(out, " | %s%s%s%s |\n", r->help, r->alias ? " (also `" : "",
			r->alias ? r->alias : "", r->alias ? "`)" : "");
	}
}

/* gate-report.c - the regression gate's table of changes as Markdown (a pull-request
 * comment), JSON (tools) or a short text summary (a terminal). Names go through out.c's
 * escapers like every other writer's. */
#include <errno.h>
#include <math.h>
#include "base/out.h"

/* What happened to a function: new and removed by enum fk_gate_change, else by the sign. */
static const char *change_name(const fk_gate_row *r)
{
	if (r->change == FK_GATE_NEW)
		return "new";
	if (r->change == FK_GATE_REMOVED)
		return "removed";
	return r->after > r->before ? "grew" : r->after < r->before ? "shrank" : "same";
}

/* "12.34%" of a share */
static void put_share(fk_obuf *b, double v)
{
	fk_obuf_printf(b, "%.2f%%", 100 * v);
}

/* The change as the limit reads it: points, or relative ("new" when before was 0). */
static void put_change(fk_obuf *b, const fk_gate_opts *o, const fk_gate_row *r)
{
	double pts = 100 * (r->after - r->before);
	if (o->points)
		fk_obuf_printf(b, "%+.2f pt", pts);
	else if (r->before > 0)
		fk_obuf_printf(b, "%+.1f%%", 100 * (r->after / r->before - 1));
	else
		fk_obuf_puts(b, "new");
}

/* "BEFORE<s1>AFTER<s2>CHANGE": a row's numbers, between the separators of a format. */
static void put_numbers(fk_obuf *b, const fk_gate_opts *o, const fk_gate_row *r, const char *s1,
			const char *s2)
{
	put_share(b, r->before);
	fk_obuf_puts(b, s1);
	put_share(b, r->after);
	fk_obuf_puts(b, s2);
	put_change(b, o, r);
}

static void put_limit(fk_obuf *b, const fk_gate_opts *o)
{
	if (o->points)
		fk_obuf_printf(b, "+%g pt", o->limit);
	else
		fk_obuf_printf(b, "+%g%%", 100 * o->limit);
}

static void put_runs(fk_obuf *b, const size_t runs[2])
{
	if (runs[0] > 1 || runs[1] > 1)
		fk_obuf_printf(b, ", medians of %zu and %zu runs", runs[0], runs[1]);
}

/* A name for a terminal: controls and invalid UTF-8 as U+FFFD, nothing else touched. */
static void put_text_name(fk_obuf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = fk_utf8_next(p + i, n - i, &cp);
		if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || (cp == 0xfffd && k != 3))
			fk_obuf_put(b, "\xef\xbf\xbd", 3);
		else
			fk_obuf_put(b, s + i, k);
		i += k;
	}
}

static void write_md(fk_obuf *b, const fk_gate_opts *o, const size_t runs[2],
		     const fk_gate_row *rows, size_t n, size_t failed)
{
	fk_obuf_printf(b, "### flamekit diff: %s%zu function%s over the limit\n\n",
		       failed ? "\xe2\x9d\x8c " : "\xe2\x9c\x85 ", failed, failed == 1 ? "" : "s");
	fk_obuf_printf(b, "%s shares of each profile's total; limit ", o->self ? "Self" : "Inclusive");
	put_limit(b, o);
	fk_obuf_printf(b, "; functions under %.2f%% on both sides left out", 100 * o->min_share);
	put_runs(b, runs);
	fk_obuf_puts(b, ".\n\n");
	if (!n) {
		fk_obuf_puts(b, "No function reaches the minimum share.\n");
		return;
	}
	fk_obuf_puts(b, "| function | before | after | change | |\n|---|---:|---:|---:|---|\n");
	for (size_t i = 0; i < n; i++) {
		const fk_gate_row *r = &rows[i];
		fk_obuf_puts(b, "| ");
		fk_obuf_md(b, r->name, r->len);
		fk_obuf_puts(b, " | ");
		put_numbers(b, o, r, " | ", " | ");
		fk_obuf_printf(b, " | %s |\n", r->over ? "**over**" :
				   r->change == FK_GATE_REMOVED ? "removed" : "");
	}
}

static void write_json(fk_obuf *b, const fk_gate_opts *o, const size_t runs[2], const char *unit,
		       const fk_gate_row *rows, size_t n, size_t failed)
{
	fk_obuf_printf(b, "{\"failed\":%s,\"over\":%zu,\"shares\":\"%s\",\"limit\":%.17g,"
			  "\"limit_unit\":\"%s\",\"min_share\":%.17g,\"runs\":[%zu,%zu],\"unit\":",
		       failed ? "true" : "false", failed, o->self ? "self" : "inclusive",
		       o->points ? o->limit : 100 * o->limit, o->points ? "points" : "percent",
		       o->min_share, runs[0], runs[1]);
	if (unit)
		fk_obuf_js(b, unit, strlen(unit));
	else
		fk_obuf_puts(b, "null");
	fk_obuf_puts(b, ",\"functions\":[");
	for (size_t i = 0; i < n; i++) {
		const fk_gate_row *r = &rows[i];
		fk_obuf_puts(b, i ? ",\n{\"name\":" : "\n{\"name\":");
		fk_obuf_js(b, r->name, r->len);
		fk_obuf_printf(b, ",\"before\":%.17g,\"after\":%.17g,\"points\":%.17g,\"relative\":",
			       r->before, r->after, 100 * (r->after - r->before));
		if (r->before > 0)
			fk_obuf_printf(b, "%.17g", r->after / r->before - 1);
		else
			fk_obuf_puts(b, "null");
		fk_obuf_printf(b, ",\"change\":\"%s\",\"over\":%s}", change_name(r),
			       r->over ? "true" : "false");
	}
	fk_obuf_puts(b, "\n]}\n");
}

static void write_text(fk_obuf *b, const fk_gate_opts *o, const size_t runs[2],
		       const fk_gate_row *rows, size_t n, size_t failed)
{
	fk_obuf_printf(b, "flamekit diff: %zu of %zu function%s over the limit (", failed, n,
		       n == 1 ? "" : "s");
	put_limit(b, o);
	fk_obuf_printf(b, " of %s share, min share %.2f%%", o->self ? "self" : "inclusive",
		       100 * o->min_share);
	put_runs(b, runs);
	fk_obuf_puts(b, ")\n");
	for (size_t i = 0; i < n; i++) {
		const fk_gate_row *r = &rows[i];
		if (!r->over && r->change != FK_GATE_REMOVED)
			continue;
		fk_obuf_puts(b, r->over ? "  over     " : "  removed  ");
		put_text_name(b, r->name, r->len);
		fk_obuf_puts(b, "  ");
		put_numbers(b, o, r, " -> ", " (");
		fk_obuf_puts(b, ")\n");
	}
}

int fk_gate_write(fk_gate *g, const char *format, FILE *out)
{
	int fmt = !strcmp(format, "md") ? 0 : !strcmp(format, "json") ? 1 :
		  !strcmp(format, "text") ? 2 : -1;
	if (fmt < 0) {
		fk_warn("gate: unknown report format '%s' (md, json or text)", format);
		return -FK_E_INVAL;
	}
	size_t n;
	const fk_gate_row *rows = fk_gate_rows(g, &n);
	if (!rows)
		return errno == ENOMEM ? -FK_E_NOMEM : -FK_E_INVAL;
	size_t runs[2];
	const char *unit;
	const fk_gate_opts *o = fk_gate_state(g, runs, &unit);
	fk_obuf b;
	if (fk_obuf_init(&b, out))
		return -FK_E_NOMEM;
	if (fmt == 0)
		write_md(&b, o, runs, rows, n, fk_gate_failed(g));
	else if (fmt == 1)
		write_json(&b, o, runs, unit, rows, n, fk_gate_failed(g));
	else
		write_text(&b, o, runs, rows, n, fk_gate_failed(g));
	return fk_obuf_finish(&b);
}

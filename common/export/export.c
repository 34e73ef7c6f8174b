/* export.c - the one rule that maps an output file name to what is written there
 * (NAME.svg, NAME.html, NAME.pb.gz, NAME.speedscope.json, NAME.folded), for every
 * front end, and the one writer of each of those outputs. */
#include <strings.h>
#include "internal.h"

/* The endings the rule knows, matched without regard to case; the longest first
 * where one ends another (.speedscope.json before any .json). */
static const struct {
	const char *suffix;
	int kind;
} endings[] = {
	{ ".speedscope.json", FK_OUTPUT_SPEEDSCOPE },
	{ ".pb.gz", FK_OUTPUT_PPROF },
	{ ".pprof", FK_OUTPUT_PPROF },
	{ ".pb", FK_OUTPUT_PPROF },
	{ ".html", FK_OUTPUT_HTML },
	{ ".htm", FK_OUTPUT_HTML },
	{ ".svg", FK_OUTPUT_SVG },
	{ ".folded", FK_OUTPUT_FOLDED },
};

int fk_output_for_path(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	for (size_t i = 0; i < sizeof(endings) / sizeof(endings[0]); i++) {
		size_t k = strlen(endings[i].suffix);
		/* a name that is only the ending (".svg") names a hidden file, not a kind */
		if (n > k && path[n - k - 1] != '/' && !strcasecmp(path + n - k, endings[i].suffix))
			return endings[i].kind;
	}
	return FK_OUTPUT_DEFAULT;
}

const char *fk_output_name(int kind)
{
	switch (kind) {
	case FK_OUTPUT_PPROF: return "pprof";
	case FK_OUTPUT_SPEEDSCOPE: return "speedscope";
	case FK_OUTPUT_SVG: return "svg";
	case FK_OUTPUT_HTML: return "html";
	case FK_OUTPUT_FOLDED: return "folded";
	default: return NULL;
	}
}

int fk_export_for_path(const char *path)
{
	int kind = fk_output_for_path(path);
	return kind == FK_OUTPUT_PPROF || kind == FK_OUTPUT_SPEEDSCOPE ? kind : FK_EXPORT_NONE;
}

bool fk_output_is_html(const char *path)
{
	return fk_output_for_path(path) == FK_OUTPUT_HTML;
}

int fk_export(const fk_profile *p, int kind, FILE *out)
{
	switch (kind) {
	case FK_EXPORT_PPROF: return fk_write_pprof(p, NULL, out);
	case FK_EXPORT_SPEEDSCOPE: return fk_write_speedscope(p, NULL, out);
	default: return -FK_E_INVAL;
	}
}

int fk_write_output(const fk_profile *p, int kind, const fk_svg_opts *o, FILE *out)
{
	switch (kind) {
	case FK_OUTPUT_PPROF:
	case FK_OUTPUT_SPEEDSCOPE: return fk_export(p, kind, out);
	case FK_OUTPUT_FOLDED: return fk_profile_write_folded(p, out);
	case FK_OUTPUT_HTML: return fk_render_html(p, o, out);
	case FK_OUTPUT_SVG: return fk_render_svg(p, o, out);
	default: return -FK_E_INVAL;
	}
}

int fk_render_for_path(const fk_profile *p, const fk_svg_opts *o, const char *path, FILE *out)
{
	int kind = fk_output_for_path(path);
	return fk_write_output(p, kind ? kind : FK_OUTPUT_SVG, o, out);
}

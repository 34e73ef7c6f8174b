/* export.c - the one rule that maps an output file name to another tool's format
 * (NAME.pb.gz -> pprof, NAME.speedscope.json -> speedscope), for every front end. */
#include "internal.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

int fk_export_for_path(const char *path)
{
	if (!path)
		return FK_EXPORT_NONE;
	if (ends_with(path, ".pb.gz") || ends_with(path, ".pb") || ends_with(path, ".pprof"))
		return FK_EXPORT_PPROF;
	if (ends_with(path, ".speedscope.json"))
		return FK_EXPORT_SPEEDSCOPE;
	return FK_EXPORT_NONE;
}

int fk_export(const fk_profile *p, int kind, FILE *out)
{
	switch (kind) {
	case FK_EXPORT_PPROF: return fk_write_pprof(p, NULL, out);
	case FK_EXPORT_SPEEDSCOPE: return fk_write_speedscope(p, NULL, out);
	default: return -FK_E_INVAL;
	}
}

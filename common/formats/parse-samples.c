/* parse-samples.c - flamekit's timestamped samples format (docs/formats.md):
 * "# flamekit samples v1", then TIME\tPID\tTID\tCPU\tCOMM\tWEIGHT\tSTACK
 * per sample. Written by fk_profile_write_samples, the perf plugin and the
 * gdb command; read by the heat map and the flame chart. */
#include <math.h>
#include <stdlib.h>
#include "internal.h"

static const char magic[] = "# flamekit samples v1";

static int probe(const char *buf, size_t len)
{
	return len >= sizeof(magic) - 1 && !memcmp(buf, magic, sizeof(magic) - 1) ? 100 : 0;
}

static int field_int(const char *s, size_t len, int32_t *out)
{
	if (len == 2 && s[0] == '-' && s[1] == '1') {
		*out = -1;
		return 0;
	}
	if (len == 0 || len > 10)
		return -1;
	int64_t v = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v > INT32_MAX)
		return -1;
	*out = (int32_t)v;
	return 0;
}

static int parse(fk_parse_ctx *c)
{
	const char *line;
	size_t len;
	int rc;
	while ((rc = fk_reader_line(c->r, &line, &len)) > 0) {
		c->st->lines++;
		if (len && line[len - 1] == '\r')
			len--;
		if (len == 0 || line[0] == '#')
			continue;
		const char *f[7];
		size_t fl[7], n = 0;
		const char *s = line, *end = line + len;
		while (n < 6) {
			const char *tab = memchr(s, '\t', (size_t)(end - s));
			if (!tab)
				break;
			f[n] = s;
			fl[n++] = (size_t)(tab - s);
			s = tab + 1;
		}
		f[n] = s;
		fl[n] = (size_t)(end - s);
		if (n != 6) {
			fk_bad_line(c, c->r->lineno, "expected 7 tab-separated fields, found %zu", n + 1);
			continue;
		}
		fk_sample_info info = { .time = NAN };
		double w;
		if (!(fl[0] == 1 && f[0][0] == '-') && fk_parse_count(f[0], fl[0], &info.time)) {
			fk_bad_line(c, c->r->lineno, "bad time '%.*s'", (int)(fl[0] > 40 ? 40 : fl[0]), f[0]);
			continue;
		}
		if (field_int(f[1], fl[1], &info.pid) || field_int(f[2], fl[2], &info.tid) ||
		    field_int(f[3], fl[3], &info.cpu)) {
			fk_bad_line(c, c->r->lineno, "bad pid, tid or cpu field");
			continue;
		}
		if (fk_parse_count(f[5], fl[5], &w)) {
			fk_bad_line(c, c->r->lineno, "bad weight '%.*s'", (int)(fl[5] > 40 ? 40 : fl[5]), f[5]);
			continue;
		}
		if (fl[6] == 0) {
			fk_bad_line(c, c->r->lineno, "empty stack");
			continue;
		}
		info.comm = f[4];
		info.comm_len = fl[4];
		int64_t node = fk_profile_add_folded(c->p, f[6], fl[6], 0, 0);
		if (node < 0)
			return (int)node;
		if ((rc = fk_profile_add_to_node(c->p, (uint32_t)node, 0, w, &info)))
			return rc;
		c->st->samples++;
	}
	return rc;
}

const fk_format fk_format_samples = {
	.name = "samples",
	.desc = "flamekit timestamped samples (# flamekit samples v1)",
	.probe = probe,
	.parse = parse,
};

/* fuzz-one.h - one input through one parser, shared by the libFuzzer targets
 * (fuzz.c) and the plain replay driver (replay.c) so both exercise the same code. */
#ifndef FK_FUZZ_ONE_H
#define FK_FUZZ_ONE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flamekit.h"

static void fk_fuzz_quiet(enum fk_level level, const char *msg, void *ctx)
{
	(void)level;
	(void)ctx;
	/* Touch the message so a bad format string or a missing NUL shows up under ASan. */
	volatile size_t n = strlen(msg);
	(void)n;
}

/* Options come from a hash of the input, so one corpus file always runs
 * the same way but the corpus as a whole covers every option. */
static uint64_t fk_fuzz_hash(const uint8_t *d, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ d[i]) * 1099511628211ULL;
	return h;
}

/* Parse data as format (NULL = auto-detect) into a fresh profile, then read
 * the model back (folded text, samples, totals). Returns the parse result. */
static int fk_fuzz_one(const char *format, const uint8_t *data, size_t size, FILE *sink)
{
	uint64_t h = fk_fuzz_hash(data, size);
	fk_parse_opts o;
	fk_parse_opts_init(&o);
	o.format = format;
	o.name = "fuzz";
	o.pid = h & 1;
	o.tid = h & 2;
	o.kernel = h & 4;
	o.jit = h & 8;
	o.all = (h & 0x30) == 0x30;
	o.addrs = h & 0x40;
	/* --inline runs addr2line on paths from the input: not in a fuzzer */
	o.inline_frames = false;
	o.full_names = h & 0x100;
	o.samples = h & 0x200;
	o.no_comm = h & 0x400;
	o.event_filter = (h & 0x1800) == 0x1800 ? "cpu-clock" : NULL;
	o.max_warnings = 3;
	o.label_frames = h & 0x10000 ? "all" : NULL;
	o.sample_type = (h & 0x60000) == 0x60000 ? "0" : NULL;
	o.rust_names = h & 0x80000;
	o.cxx_names = h & 0x100000;
	o.keep_offsets = h & 0x200000;
	o.all_maps = h & 0x400000;
	o.map = (h & 0x1800000) == 0x1800000 ? "u" : NULL;
	fk_profile *p = fk_profile_new(h & 0x2000 ? FK_PROFILE_SAMPLES : 0);
	if (!p)
		return -1;
	fk_parse_stats st;
	int rc = fk_parse_buffer(p, (const char *)data, size, &o, &st);
	/* Everything the parser built must read back without trouble. */
	if (sink) {
		fk_profile_write_folded(p, sink);
		if (fk_profile_flags(p) & FK_PROFILE_SAMPLES)
			fk_profile_write_samples(p, sink);
		if (h & 0x4000) {
			static const char *const labels[] = { "host=fuzz" };
			fk_pprof_opts po;
			fk_pprof_opts_init(&po);
			po.labels = labels;
			po.nlabels = 1;
			po.plain = h & 0x8000;
			fk_write_pprof(p, &po, sink);
		}
	}
	size_t n;
	fk_profile_nodes(p, &n);
	double *tot = malloc(n * 2 * sizeof(double));
	if (tot) {
		fk_profile_totals(p, tot);
		free(tot);
	}
	fk_profile_free(p);
	return rc;
}

#endif

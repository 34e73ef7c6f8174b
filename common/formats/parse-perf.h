/* parse-perf.h - private pieces shared by the perf script parser's files. */
#ifndef FK_PARSE_PERF_H
#define FK_PARSE_PERF_H

#include <stdlib.h>
#include "internal.h"

/* Scan [p, p+len) (len < 4 GiB): store the offset of every '\n' into ends (room for len
 * entries plus FK_PERF_SCAN_SLACK), return how many; set *nul if the span holds a NUL byte. */
#define FK_PERF_SCAN_SLACK 4
typedef size_t (*fk_perf_scan_fn)(const char *p, size_t len, uint32_t *ends, bool *nul);
/* The best variant for this CPU (FLAMEKIT_SIMD=scalar|sse2 forces one); *name says which. */
FK_HIDDEN fk_perf_scan_fn fk_perf_pick_scan(const char **name);

#endif

/* flame-opts.h - the gdb `flame` command's own options (flame-opts.c). */
#ifndef FK_FLAME_OPTS_H
#define FK_FLAME_OPTS_H

#include <stdbool.h>
#include "flamekit.h"

struct fkp_flame_opts {
	double hz, duration;
	const char *svg, *folded, *samples;
	bool threads, precise, quiet, addrs, python, python_lines;
	unsigned max_depth;
	int pid;
};
void fkp_flame_opts_init(struct fkp_flame_opts *o);
const fk_option *fkp_flame_options(size_t *n);
/* NULL, or why the options do not go together (checked by the command and by
 * flamekit gdb before any attach). */
const char *fkp_flame_opts_check(const struct fkp_flame_opts *o);
/* A table by name: svg, heatmap, input (fk_parse_options), gdb (the flame
 * command's); NULL (and *n 0) for another name. */
const fk_option *fkp_table(const char *name, size_t *n);

#endif

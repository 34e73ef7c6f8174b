/* page-counts.c - the one count encoding of the pages (flamekit html, the heat map), see
 * render/page.h; page/counts.js is its decoder. */
#include <math.h>
#include "render/page.h"

int fk_page_count(struct fk_page_floats *fl, double v, uint64_t *code)
{
	if (v >= 0 && v < 4.5e15 && v == floor(v)) {
		*code = (uint64_t)v * 2;
		return 0;
	}
	if (FK_GROW(fl->v, fl->cap, fl->n + 1))
		return -FK_E_NOMEM;
	fl->v[fl->n] = isfinite(v) ? v : 0;
	*code = (uint64_t)fl->n++ * 2 + 1;
	return 0;
}

void fk_page_floats_json(fk_obuf *w, const struct fk_page_floats *fl)
{
	for (size_t i = 0; i < fl->n; i++) {
		if (i)
			fk_obuf_puts(w, ",");
		fk_obuf_exact(w, fl->v[i]);
	}
}

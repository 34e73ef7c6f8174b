/* page.h - the page code embedded into the library: each file of common/render/page/
 * becomes one NUL-terminated string at build time (see embed.awk and common/rules.mk). */
#ifndef FK_PAGE_H
#define FK_PAGE_H

#include "internal.h"
#include "base/out.h"

extern const char fk_page_svg_js[] FK_HIDDEN;      /* the flame graph SVG's script */
extern const char fk_page_svg_css[] FK_HIDDEN;     /* ... and its style */
extern const char fk_page_heatmap_js[] FK_HIDDEN;  /* the heat map page's script */
extern const char fk_page_heatmap_css[] FK_HIDDEN; /* ... and its style */

extern const char fk_page_viewer_js[] FK_HIDDEN;   /* the canvas viewer (HTML page, heat map) */
extern const char fk_page_viewer_css[] FK_HIDDEN;  /* ... and its style */
extern const char fk_page_counts_js[] FK_HIDDEN;   /* the count decoder of both pages */

/* The pages' one count encoding (html.c's streams, heatmap.c's cells; decoded by
 * page/counts.js): a count that is an integer in [0, 4.5e15) is the code 2v, any other
 * the code 2i+1, i its place in the page's table of floats (a non-finite count as 0). */
struct fk_page_floats {
	double *v;
	size_t n, cap;
};
/* The code of count v, adding v to fl when it is not such an integer: 0 or -FK_E_NOMEM. */
FK_HIDDEN int fk_page_count(struct fk_page_floats *fl, double v, uint64_t *code);
/* The floats table as the elements of a JSON array (each exact). */
FK_HIDDEN void fk_page_floats_json(fk_obuf *w, const struct fk_page_floats *fl);

#endif /* FK_PAGE_H */

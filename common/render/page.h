/* page.h - the page code embedded into the library: each file of common/render/page/
 * becomes one NUL-terminated string at build time (see embed.awk and common/rules.mk). */
#ifndef FK_PAGE_H
#define FK_PAGE_H

#include "internal.h"

extern const char fk_page_svg_js[] FK_HIDDEN;      /* the flame graph SVG's script */
extern const char fk_page_svg_css[] FK_HIDDEN;     /* ... and its style */
extern const char fk_page_heatmap_js[] FK_HIDDEN;  /* the heat map page's script */
extern const char fk_page_heatmap_css[] FK_HIDDEN; /* ... and its style */

extern const char fk_page_viewer_js[] FK_HIDDEN;   /* the canvas viewer (HTML page, heat map) */
extern const char fk_page_viewer_css[] FK_HIDDEN;  /* ... and its style */

#endif /* FK_PAGE_H */

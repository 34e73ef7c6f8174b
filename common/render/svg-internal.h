/* svg-internal.h - private interfaces between the SVG renderer's files: layout
 * (svg-layout.c) and the writer (svg-write.c); palettes are in palette.h, the
 * script and style in page/svg.js and page/svg.css. */
#ifndef FK_SVG_INTERNAL_H
#define FK_SVG_INTERNAL_H

#include "internal.h"
#include "render/page.h"
#include "base/out.h"
#include "render/palette.h"

/* ---- layout: the frames to draw, in pre-order (parents before children) */
enum {
	FK_SVGF_WAKER = 1u << 0,  /* below a "--" frame (chain palette's _[w]) */
	FK_SVGF_OFFCPU = 1u << 1, /* all of its time is off-CPU (FK_OFFCPU_MARK stacks) */
};

/* 40 bytes a drawn frame; what only a differential graph needs is in fk_svg_ab, so the
 * frames of every other graph carry none of it. */
typedef struct fk_svg_frame {
	uint32_t name;    /* name id in fk_svg_layout.names */
	uint32_t depth;   /* root ("all") = 0 */
	uint32_t flags;
	uint32_t ab;      /* differential: its entry in fk_svg_layout.ab */
	double x;         /* absolute start, in count units */
	double rel;       /* x - parent's x (exactly what the script adds back; the parent is
			   * the frame before it one level up) */
	double w;         /* width in count units */
} fk_svg_frame;

/* A differential frame's real counts, whatever the widths are drawn from. */
typedef struct fk_svg_ab {
	double delta;     /* colour: after - before (self or total, by --diff) */
	double before;    /* total in column 0 (positive counts) */
	double after;     /* total in column 1 */
} fk_svg_ab;

typedef struct fk_svg_layout {
	const fk_profile *names;  /* resolves frame names */
	fk_profile *owned;        /* derived profile (reverse/focus/range), or NULL */
	fk_svg_frame *frames;
	size_t n, cap;
	size_t reserved;          /* frames' stretch of address space (frames_room), or 0 */
	uint32_t depthmax;
	double total;             /* sum of counts drawn (width column) */
	double timemax;           /* total, or the larger --total */
	double maxdelta;          /* differential colour scale */
	double full_total;        /* total before --focus / --range (for the subtitle) */
	bool diff;                /* two columns: colour by delta, widths by shape */
	int shape;                /* enum fk_diff_shape drawn (AFTER when not a diff) */
	fk_svg_ab *ab;            /* differential: per frame (fk_svg_frame.ab), else NULL */
	size_t nab, abcap;
	size_t guard_dropped;     /* frames dropped by the max_frames size guard */
	double minw;              /* effective minimum width (count units) */
} fk_svg_layout;

FK_HIDDEN int fk_svg_layout_build(fk_svg_layout *L, const fk_profile *p, const fk_svg_opts *o);
FK_HIDDEN void fk_svg_layout_free(fk_svg_layout *L);

/* The profile a view draws after --reverse, --focus and --range: *out is a new
 * profile (the caller frees it), or NULL when p itself is drawn. 0 or a negative
 * error (-FK_E_EMPTY when no stack holds the --focus function). */
FK_HIDDEN int fk_svg_derive(const fk_profile *p, const fk_svg_opts *o, fk_profile **out);

/* Length of name without one trailing annotation _[k] _[j] _[i] _[w]. */
FK_HIDDEN size_t fk_svg_strip_annotation(const char *s, size_t len);

#endif /* FK_SVG_INTERNAL_H */

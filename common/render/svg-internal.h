/* svg-internal.h - private interfaces between the SVG renderer's files: layout
 * (svg-layout.c), palettes (palette.c), text escaping and output (svg-text.c),
 * the writer (svg-write.c) and the embedded script/style (svg-js.c). */
#ifndef FK_SVG_INTERNAL_H
#define FK_SVG_INTERNAL_H

#include "internal.h"

/* ---- layout: the frames to draw, in pre-order (parents before children) */
enum {
	FK_SVGF_WAKER = 1u << 0,  /* below a "--" frame (chain palette's _[w]) */
	FK_SVGF_OFFCPU = 1u << 1, /* all of its time is off-CPU (FK_OFFCPU_MARK stacks) */
};

typedef struct fk_svg_frame {
	uint32_t name;    /* name id in fk_svg_layout.names */
	uint32_t depth;   /* root ("all") = 0 */
	uint32_t parent;  /* index of the parent frame, FK_NONE for the root */
	uint32_t flags;
	double x;         /* absolute start, in count units */
	double rel;       /* x - parent's x (exactly what the script adds back) */
	double w;         /* width in count units */
	double delta;     /* differential: after - before (self or total) */
} fk_svg_frame;

typedef struct fk_svg_layout {
	const fk_profile *names;  /* resolves frame names */
	fk_profile *owned;        /* derived profile (reverse/focus/range), or NULL */
	fk_svg_frame *frames;
	size_t n, cap;
	uint32_t depthmax;
	double total;             /* sum of counts drawn (width column) */
	double timemax;           /* total, or the larger --total */
	double maxdelta;          /* differential colour scale */
	double full_total;        /* total before --focus / --range (for the subtitle) */
	bool diff;                /* two columns: widths from column 1, colour by delta */
	size_t guard_dropped;     /* frames dropped by the max_frames size guard */
	double minw;              /* effective minimum width (count units) */
} fk_svg_layout;

FK_HIDDEN int fk_svg_layout_build(fk_svg_layout *L, const fk_profile *p, const fk_svg_opts *o);
FK_HIDDEN void fk_svg_layout_free(fk_svg_layout *L);

/* Length of name without one trailing annotation _[k] _[j] _[i] _[w]. */
FK_HIDDEN size_t fk_svg_strip_annotation(const char *s, size_t len);

/* ---- palettes (flamegraph.pl's colour rules) */
typedef struct fk_palette fk_palette;
/* NULL + errno; messages through fk_log. Reads o->cp_file when set. */
FK_HIDDEN fk_palette *fk_palette_new(const fk_svg_opts *o);
FK_HIDDEN void fk_palette_free(fk_palette *pal);
/* 0xRRGGBB of a frame. Deterministic for a given call sequence. */
FK_HIDDEN uint32_t fk_palette_color(fk_palette *pal, const char *name, size_t len, bool waker);
/* Colour of a frame whose time is all off-CPU in an on/off-CPU graph (blues). */
FK_HIDDEN uint32_t fk_palette_offcpu_color(fk_palette *pal, const char *name, size_t len);
/* Differential colour (flamegraph.pl color_scale). */
FK_HIDDEN uint32_t fk_palette_diff_color(double delta, double maxdelta, bool negate);
/* Background gradient colours as "#rrggbb" (NUL-terminated). 0 or -FK_E_INVAL. */
FK_HIDDEN int fk_palette_background(const char *colors, const char *bgcolors, char bg1[8], char bg2[8]);
FK_HIDDEN bool fk_palette_known(const char *colors);
/* Write the consistent palette file back (sorted, atomically). */
FK_HIDDEN int fk_palette_save(fk_palette *pal);
/* flamegraph.pl's namehash over a name (exposed for the unit test). */
FK_HIDDEN double fk_palette_namehash(const char *s, size_t len, bool reversed);

/* ---- buffered output with escaping */
typedef struct fk_obuf {
	FILE *out;
	char *buf;
	size_t len, cap;
	int err;
} fk_obuf;

FK_HIDDEN int fk_obuf_init(fk_obuf *b, FILE *out);
FK_HIDDEN int fk_obuf_finish(fk_obuf *b);  /* flush + free; returns b->err */
FK_HIDDEN void fk_obuf_flush(fk_obuf *b);
FK_HIDDEN void fk_obuf_put(fk_obuf *b, const char *s, size_t n);
static inline void fk_obuf_puts(fk_obuf *b, const char *s) { fk_obuf_put(b, s, strlen(s)); }
FK_HIDDEN void fk_obuf_printf(fk_obuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Number with one decimal (x, width). */
FK_HIDDEN void fk_obuf_fixed1(fk_obuf *b, double v);
/* Number with up to two decimals, trailing zeros removed. */
FK_HIDDEN void fk_obuf_num(fk_obuf *b, double v);
/* Shortest text that reads back as the same double (JS data). */
FK_HIDDEN void fk_obuf_exact(fk_obuf *b, double v);
/* XML text/attribute content: escapes & < > " ', replaces invalid UTF-8 and
 * characters XML forbids with U+FFFD. */
FK_HIDDEN void fk_obuf_xml(fk_obuf *b, const char *s, size_t n);
/* Same, truncated to `chars` columns with "..": keep the start (left =
 * false) or the end (left = true); cuts only between characters (code
 * points), wide East Asian characters count two columns. chars >= 3. */
FK_HIDDEN void fk_obuf_xml_trunc(fk_obuf *b, const char *s, size_t n, size_t chars, bool left);
/* A JavaScript string literal with quotes; < > & and controls as \uXXXX so it
 * can end neither the CDATA section nor an HTML script element. */
FK_HIDDEN void fk_obuf_js(fk_obuf *b, const char *s, size_t n);
/* An XML comment body: "--" is broken up, invalid UTF-8 replaced. */
FK_HIDDEN void fk_obuf_comment(fk_obuf *b, const char *s, size_t n);

/* Decode one UTF-8 character: returns bytes consumed (>= 1); *cp = U+FFFD for
 * an invalid sequence (one byte consumed). */
FK_HIDDEN size_t fk_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);
/* Columns of a character in a label: 2 for East Asian wide, else 1. */
FK_HIDDEN int fk_char_columns(uint32_t cp);
/* Number of characters as counted by fk_utf8_next. */
FK_HIDDEN size_t fk_utf8_count(const char *s, size_t n);

/* ---- the embedded script and style */
extern const char fk_svg_script[] FK_HIDDEN;
extern const char fk_svg_style[] FK_HIDDEN;

#endif /* FK_SVG_INTERNAL_H */

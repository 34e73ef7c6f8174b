/* palette.h - frame colours shared by every view (SVG, heat map, HTML page): the same
 * name gets the same colour everywhere for the same options. */
#ifndef FK_PALETTE_H
#define FK_PALETTE_H

#include "internal.h"

/* flamegraph.pl's colour rules */
typedef struct fk_palette fk_palette;
/* NULL + errno; messages through fk_log. Reads o->cp_file when set. */
FK_HIDDEN fk_palette *fk_palette_new(const fk_svg_opts *o);
FK_HIDDEN void fk_palette_free(fk_palette *pal);
/* 0xRRGGBB of a frame. Deterministic for a given call sequence. */
FK_HIDDEN uint32_t fk_palette_color(fk_palette *pal, const char *name, size_t len, bool waker);
/* Colour of a frame whose time is all off-CPU in an on/off-CPU graph (blues). */
FK_HIDDEN uint32_t fk_palette_offcpu_color(fk_palette *pal, const char *name, size_t len);
/* Whether the two calls above change nothing in pal (no palette file, no random colours):
 * then they may be made by two threads at once. */
FK_HIDDEN bool fk_palette_shared(const fk_palette *pal);
/* The fixed grey of the separator frames "--" and "-", else UINT32_MAX (before
 * any palette or differential colour). */
FK_HIDDEN uint32_t fk_palette_fixed(const char *name, size_t len);
/* Differential colour (flamegraph.pl color_scale). */
FK_HIDDEN uint32_t fk_palette_diff_color(double delta, double maxdelta, bool negate);
/* Background gradient colours as "#rrggbb" (NUL-terminated). 0 or -FK_E_INVAL. */
FK_HIDDEN int fk_palette_background(const char *colors, const char *bgcolors, char bg1[8], char bg2[8]);
FK_HIDDEN bool fk_palette_known(const char *colors);
/* Write the consistent palette file back (sorted, atomically). */
FK_HIDDEN int fk_palette_save(fk_palette *pal);
/* flamegraph.pl's namehash over a name (exposed for the unit test). */
FK_HIDDEN double fk_palette_namehash(const char *s, size_t len, bool reversed);

#endif /* FK_PALETTE_H */

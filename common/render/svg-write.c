/* svg-write.c - fk_render_svg: turns a layout into one self-contained,
 * deterministic, interactive SVG (static rects and labels that render without
 * script, plus compact data the embedded script uses for zoom and search). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/uio.h>
#include "svg-internal.h"

#define XPAD 10
#define SEARCH_COLOR "rgb(230,0,230)"

void fk_svg_opts_init(fk_svg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->width = 1200;
	o->frameheight = 16;
	o->minwidth = 0.1;
	o->fonttype = "Verdana";
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->nametype = "Function:";
	/* countname, colors, title: NULL = by the profile (fk_svg_opts_defaults) */
	o->factor = 1;
	o->sort = FK_SORT_NAME;
	o->truncate = FK_TRUNC_RIGHT;
	o->diff_mode = FK_DIFF_SELF;
	o->range_start = NAN;
	o->range_end = NAN;
	o->sz = sizeof(*o);
}

int fk_svg_opts_check(const fk_svg_opts *user)
{
	char a[8], b[8];
	if (!user)
		return -FK_E_INVAL;
	fk_svg_opts full;
	fk_svg_opts_init(&full);
	FK_OPTS_ADOPT(full, user);
	const fk_svg_opts *o = &full;
	if (o->width < 2 * XPAD + 1 || o->width > 1000000) {
		fk_warn("--width %d: must be between %d and 1000000", o->width, 2 * XPAD + 1);
		return -FK_E_INVAL;
	}
	if (o->frameheight < 2 || o->frameheight > 10000) {
		fk_warn("--height %d: must be between 2 and 10000", o->frameheight);
		return -FK_E_INVAL;
	}
	if (!(o->fontsize > 0 && o->fontsize < 1000) || !(o->fontwidth > 0 && o->fontwidth < 100)) {
		fk_warn("--fontsize and --fontwidth must be positive");
		return -FK_E_INVAL;
	}
	if (!(o->minwidth >= 0) || (o->minwidth_pct && o->minwidth > 100)) {
		fk_warn("--minwidth must be >= 0 (pixels) or between 0%% and 100%%");
		return -FK_E_INVAL;
	}
	if (!(o->factor > 0) || !isfinite(o->factor)) {
		fk_warn("--factor must be a positive number");
		return -FK_E_INVAL;
	}
	if (!(o->total >= 0) || !isfinite(o->total)) {
		fk_warn("--total must be a positive number");
		return -FK_E_INVAL;
	}
	if (!fk_palette_known(o->colors)) {
		fk_warn("unknown palette '%s' (hot mem io wakeup chain java js perl python red green blue aqua yellow purple orange)",
			o->colors);
		return -FK_E_INVAL;
	}
	if (fk_palette_background(o->colors, o->bgcolors, a, b)) {
		fk_warn("unknown background '%s' (yellow blue green grey or #rrggbb)", o->bgcolors);
		return -FK_E_INVAL;
	}
	if ((o->sort != FK_SORT_NAME && o->sort != FK_SORT_WEIGHT) ||
	    (o->truncate != FK_TRUNC_RIGHT && o->truncate != FK_TRUNC_LEFT) ||
	    (o->diff_mode != FK_DIFF_SELF && o->diff_mode != FK_DIFF_TOTAL) ||
	    (o->diff_shape < FK_SHAPE_AFTER || o->diff_shape > FK_SHAPE_BOTH))
		return -FK_E_INVAL;
	if (o->diff_shape == FK_SHAPE_BOTH && o->flamechart) {
		fk_warn("--diff-shape both: a flame chart's x axis is time, one side's: "
			"use --diff-shape before or after");
		return -FK_E_INVAL;
	}
	if (!isnan(o->range_start) && !isnan(o->range_end) && o->range_start > o->range_end) {
		fk_warn("--range: start is after end");
		return -FK_E_INVAL;
	}
	if (o->focus && !*o->focus) {
		fk_warn("--focus needs a function name");
		return -FK_E_INVAL;
	}
	return 0;
}

static void put_text_at(fk_obuf *b, const char *id, double x, double y, const char *extra,
			const char *s)
{
	fk_obuf_printf(b, "<text id=\"%s\" x=\"", id);
	fk_obuf_num(b, x);
	fk_obuf_puts(b, "\" y=\"");
	fk_obuf_num(b, y);
	fk_obuf_printf(b, "\"%s>", extra);
	fk_obuf_xml(b, s, strlen(s));
	fk_obuf_puts(b, "</text>\n");
}

static inline void put_hex(fk_obuf *b, uint32_t c)
{
	static const char hex[] = "0123456789abcdef";
	char t[7] = { '#', hex[(c >> 20) & 15], hex[(c >> 16) & 15], hex[(c >> 12) & 15],
		      hex[(c >> 8) & 15], hex[(c >> 4) & 15], hex[c & 15] };
	fk_obuf_put(b, t, 7);
}

/* A differential colour too dark for black text (the deep blues: black on rgb(0,0,255)
 * has a contrast of 2.4:1): its label is white. Relative luminance (sRGB) under 0.18,
 * where black's contrast falls under 4.6:1. */
static bool dark_fill(uint32_t c)
{
	double ch[3];
	for (int k = 0; k < 3; k++) {
		double v = ((c >> (16 - 8 * k)) & 255) / 255.0;
		ch[k] = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
	}
	return 0.2126 * ch[0] + 0.7152 * ch[1] + 0.0722 * ch[2] < 0.18;
}

/* The frames' colours: col[i] of frame i, made all at once in drawing order (the seeded
 * --random sequence, a palette file's new names), or where the palette is shared
 * (fk_palette_shared) or the graph differential, chunk by chunk by the threads that write
 * the rects (lazy). cache: per name drawn (fidx: frame_index's), the colour its plain
 * frames share + 1 (0: not made yet); two threads may make the same one at once, alike
 * (relaxed atomics). */
typedef struct fcolors {
	uint32_t *col;
	uint32_t *cache;  /* NULL: none (random colours, differential) */
	uint32_t *fidx;   /* frame_index's (the script's names too) */
	fk_palette *pal;
	const fk_svg_layout *L;
	const fk_svg_opts *o;
	bool lazy;
} fcolors;

/* Each drawn frame's name as the script numbers the names: 1, 2, ... in the order the
 * frames first have them (frame 0, the root: 0), found in a table of the drawn names
 * alone. (Arrays by name id, one for this and one for the colours, were 4 bytes for every
 * name of the profile, touched at random: b-wide's names shape draws 27k frames of 724k
 * names, and its two 2.9 MB arrays, a page fault every few frames, made the rects'
 * colours 3x slower with two threads, each faulting, than with one.) NULL: out of memory;
 * *nk: the names drawn. */
static uint32_t *frame_index(const fk_svg_layout *L, size_t *nk)
{
	size_t n = L->n ? L->n : 1, nn = fk_profile_name_count(L->names), most = n < nn ? n : nn;
	size_t size = 16;
	while (size < 2 * most)
		size *= 2;
	uint32_t *fidx = malloc(n * sizeof(*fidx));
	uint64_t *tab = calloc(size, sizeof(*tab)); /* name id << 32 | its index (never 0) */
	if (!fidx || !tab) {
		free(fidx);
		free(tab);
		return NULL;
	}
	uint32_t next = 1;
	fidx[0] = 0;
	for (size_t i = 1; i < L->n; i++) {
		uint32_t id = L->frames[i].name;
		size_t k = fk_mix64(id) & (size - 1);
		uint64_t v;
		while ((v = tab[k]) && (uint32_t)(v >> 32) != id)
			k = (k + 1) & (size - 1);
		if (!v)
			tab[k] = v = (uint64_t)id << 32 | next++;
		fidx[i] = (uint32_t)v;
	}
	free(tab);
	*nk = next - 1;
	return fidx;
}

static int colors_init(fcolors *fc, const fk_svg_layout *L, const fk_svg_opts *o, fk_palette *pal)
{
	*fc = (fcolors){ .pal = pal, .L = L, .o = o };
	size_t nk = 0;
	if (!(fc->col = malloc((L->n ? L->n : 1) * sizeof(*fc->col))) ||
	    !(fc->fidx = frame_index(L, &nk)))
		return -FK_E_NOMEM;
	if (!o->random && !L->diff && !(fc->cache = calloc(nk + 1, sizeof(*fc->cache))))
		return -FK_E_NOMEM;
	return 0;
}

static void colors_make(const fcolors *fc, size_t from, size_t to)
{
	const fk_svg_layout *L = fc->L;
	for (size_t i = from; i < to; i++) {
		const fk_svg_frame *f = &L->frames[i];
		size_t len;
		const char *s = fk_profile_name(L->names, f->name, &len);
		uint32_t c = fk_palette_fixed(s, len);
		if (c != UINT32_MAX) {
			fc->col[i] = c;
			continue;
		}
		if (L->diff) {
			fc->col[i] = fk_palette_diff_color(L->ab[f->ab].delta, L->maxdelta, fc->o->negate);
			continue;
		}
		if (f->flags & FK_SVGF_OFFCPU) {
			fc->col[i] = fk_palette_offcpu_color(fc->pal, s, len);
			continue;
		}
		bool waker = f->flags & FK_SVGF_WAKER;
		uint32_t *slot = fc->cache && !waker ? &fc->cache[fc->fidx[i]] : NULL;
		uint32_t known = slot ? __atomic_load_n(slot, __ATOMIC_RELAXED) : 0;
		if (known) {
			fc->col[i] = known - 1;
			continue;
		}
		c = fk_palette_color(fc->pal, s, len, waker);
		if (slot)
			__atomic_store_n(slot, c + 1, __ATOMIC_RELAXED);
		fc->col[i] = c;
	}
}

static void colors_free(fcolors *fc)
{
	free(fc->col);
	free(fc->cache);
	free(fc->fidx);
}

/* y0/dy: y of the rects of depth 0 and the step per depth (the script puts
 * labels by depth without reading the rects back). */
static void put_js_config(fk_obuf *b, const fk_svg_layout *L, const fk_svg_opts *o, unsigned stride,
			  double y0, double dy)
{
	fk_obuf_printf(b, "var fkC={w:%d,xpad:%d,fh:%d,y0:", o->width, XPAD, o->frameheight);
	fk_obuf_exact(b, y0);
	fk_obuf_puts(b, ",dy:");
	fk_obuf_exact(b, dy);
	fk_obuf_puts(b, ",fs:");
	fk_obuf_exact(b, o->fontsize);
	fk_obuf_puts(b, ",fw:");
	fk_obuf_exact(b, o->fontwidth);
	fk_obuf_puts(b, ",tm:");
	fk_obuf_exact(b, L->timemax);
	fk_obuf_puts(b, ",fac:");
	fk_obuf_exact(b, o->factor);
	fk_obuf_printf(b, ",tl:%d,diff:%d,neg:%d,S:%u,sc:\"" SEARCH_COLOR "\",cn:",
		       o->truncate == FK_TRUNC_LEFT, L->diff, o->negate, stride);
	fk_obuf_js(b, o->countname, strlen(o->countname));
	fk_obuf_puts(b, ",nt:");
	fk_obuf_js(b, o->nametype, strlen(o->nametype));
	fk_obuf_puts(b, "};\n");
}

/* A count as titles and the details line show it: times --factor, an integer with
 * thousands commas, or rounded to 3 decimals without trailing zeros. */
static void put_count(fk_obuf *b, double v)
{
	char t[64];
	if (fabs(v - round(v)) < 1e-9 * fmax(1, fabs(v)) && fabs(v) < 1e18) {
		double r = round(v); /* (as "%.0f" writes it: -0 for a small negative) */
		size_t n = signbit(r) ? 1 : 0;
		t[0] = '-';
		t[n + fk_dec_u64(t + n, (uint64_t)fabs(r))] = 0;
	} else {
		snprintf(t, sizeof(t), "%.3f", round(v * 1000) / 1000);
		char *e = t + strlen(t);
		while (e > t && e[-1] == '0')
			*--e = 0;
		if (e > t && e[-1] == '.')
			*--e = 0;
	}
	const char *d = t + (*t == '-'), *dot = strchr(d, '.');
	size_t nd = dot ? (size_t)(dot - d) : strlen(d);
	char c[96], *q = c;
	if (d > t)
		*q++ = '-';
	for (size_t k = 0; k < nd; k++) {
		if (k && (nd - k) % 3 == 0)
			*q++ = ',';
		*q++ = d[k];
	}
	fk_obuf_put(b, c, (size_t)(q - c));
	fk_obuf_puts(b, d + nd);
}

/* A differential frame's counts, whatever its width is drawn from: before (column 0),
 * after (column 1), the change and the change relative to before ("new" from nothing). */
static void put_diff_counts(fk_obuf *b, const fk_svg_ab *d, const fk_svg_opts *o)
{
	double ch = (d->after - d->before) * o->factor;
	fk_obuf_puts(b, "before ");
	put_count(b, d->before * o->factor);
	fk_obuf_puts(b, ", after ");
	put_count(b, d->after * o->factor);
	fk_obuf_puts(b, " ");
	fk_obuf_xml(b, o->countname, strlen(o->countname));
	fk_obuf_puts(b, ", change ");
	if (round(ch * 1000) > 0)
		fk_obuf_puts(b, "+");
	put_count(b, round(ch * 1000) == 0 ? 0 : ch);
	if (d->before > 0) {
		double pct = 100 * (d->after - d->before) / d->before;
		if (fabs(pct) < 0.005)
			pct = 0; /* no -0.00% */
		fk_obuf_printf(b, ", %s%.2f%%", pct > 0 ? "+" : "", pct);
	} else {
		fk_obuf_puts(b, d->after > 0 ? ", new" : ", 0.00%");
	}
}

/* Frame i's <title> (a tooltip at the cursor, without script, as flamegraph.pl's), which
 * the script's details line shows too: NAME (COUNT COUNTNAME, PERCENT%), or for a diff
 * NAME (before A, after B COUNTNAME, change +D, +P%). */
static void put_title(fk_obuf *b, const fk_svg_layout *L, const fk_svg_opts *o, size_t i)
{
	const fk_svg_frame *f = &L->frames[i];
	size_t len = 3;
	const char *s = i ? fk_profile_name(L->names, f->name, &len) : "all";
	fk_obuf_puts(b, "><title>");
	fk_obuf_xml(b, s, i ? fk_svg_strip_annotation(s, len) : len);
	fk_obuf_puts(b, " (");
	if (L->diff) {
		put_diff_counts(b, &L->ab[f->ab], o);
	} else {
		put_count(b, f->w * o->factor);
		fk_obuf_puts(b, " ");
		fk_obuf_xml(b, o->countname, strlen(o->countname));
		if (i) {
			fk_obuf_puts(b, ", ");
			fk_obuf_fixed2(b, L->timemax > 0 ? 100 * f->w / L->timemax : 0.0);
			fk_obuf_puts(b, "%");
		} else
			fk_obuf_puts(b, ", 100%");
	}
	fk_obuf_puts(b, ")</title></rect>\n");
}

/* Where the frames go: the drawing's height, pixels per count, the pads. */
struct geom {
	double H, wpt, fh, ypad1, ypad2, ypad3;
	char hbuf[32]; /* the rects' height and the fill attribute's start */
};

static struct geom geometry(const fk_svg_layout *L, const fk_svg_opts *o, const char *subtitle)
{
	struct geom g;
	const double fs = o->fontsize;
	g.fh = o->frameheight;
	g.ypad1 = fs * 3;
	g.ypad2 = fs * 2 + 10;
	g.ypad3 = subtitle ? fs * 2 : 0;
	g.H = (L->depthmax + 1) * g.fh + g.ypad1 + g.ypad2 + g.ypad3;
	g.wpt = (o->width - 2.0 * XPAD) / L->timemax;
	snprintf(g.hbuf, sizeof(g.hbuf), "\" height=\"%d\" fill=\"", o->frameheight - 1);
	return g;
}

/* The top of frame f's rect. */
static double frame_y(const struct geom *g, const fk_svg_opts *o, const fk_svg_frame *f)
{
	return o->inverted ? g->ypad1 + g->ypad3 + f->depth * g->fh
			   : g->H - g->ypad2 - (f->depth + 1) * g->fh + 1;
}

/* The rects (with their titles) of frames [from, to). */
static void put_rects(fk_obuf *b, const fk_svg_layout *L, const fk_svg_opts *o, const uint32_t *colors,
		      const struct geom *g, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		const fk_svg_frame *f = &L->frames[i];
		double x1 = XPAD + f->x * g->wpt, x2 = XPAD + (f->x + f->w) * g->wpt;
		double r1 = round(x1 * 10) / 10, r2 = round(x2 * 10) / 10;
		/* class dk: a dark diff colour, white labels (the script's too) */
		fk_obuf_puts(b, L->diff && dark_fill(colors[i]) ? "<rect class=\"dk\" x=\"" : "<rect x=\"");
		fk_obuf_fixed1(b, r1);
		fk_obuf_puts(b, "\" y=\"");
		fk_obuf_num(b, frame_y(g, o, f));
		fk_obuf_puts(b, "\" width=\"");
		fk_obuf_fixed1(b, r2 - r1);
		fk_obuf_puts(b, g->hbuf);
		put_hex(b, colors[i]);
		fk_obuf_puts(b, "\"");
		put_title(b, L, o, i);
	}
}

/* The rects written by two threads (two threads asked for, 8192 frames or more, a CPU
 * free at one of the looks asked between the chunks: fk_looks): the frames go in chunks,
 * each formatted into one of a ring of buffers by whichever thread takes it next, and
 * written out in order by whichever thread finds the next one formatted and nobody
 * writing; then the script's frame data, in bigger chunks, whose first ones the second
 * thread formats while the first writes the labels and names. The ring holds RING chunks,
 * ~1 MB whatever the drawing's size (all of the second thread's rects in one buffer took
 * 7 MB more on a run of 9 MB); those formatted next in order go out together, in one writev
 * past the output's buffer where they fill it (64 MB of perf text, 32k frames: the rects
 * and frame data 8.3 -> 7.2 ms against a ring of 4 copied into the buffer one by one). The
 * frames' colours are made chunk by chunk too where they can be (fcolors). The second
 * thread starts before the layout is made when a CPU is free at the first look, as its
 * first milliseconds of waking would otherwise come after; else when one is at a later
 * look, or never (five looks, none free: the chunks formatted straight into the output).
 * The same bytes as one thread writes. */
enum {
	HALF_MIN_FRAMES = 8192,
	CHUNK_FRAMES = 256,  /* rects */
	DATA_FRAMES = 2048,  /* the script's frame data */
	RING = 16,
	HALF_RUN_KB = 12 << 10,
};
struct half {
	pthread_t th;
	bool spawned;      /* th runs */
	fk_looks looks;    /* for a free CPU, until th runs or none was */
	fk_handoff ho;     /* (what follows is read and changed under ho.mu) */
	int state;         /* 0: waiting for the layout, 1: chunks to format, 2: stop */
	size_t next;       /* the next chunk to take */
	size_t written;    /* chunks written out */
	size_t nchunks;    /* the rects' chunks, then the script's frame data's (fkF) */
	size_t nrects;     /* chunks of rects */
	size_t gate;       /* chunks from here on wait to be written out (the labels and names
			    * go between the rects and the frame data) */
	size_t ready[RING]; /* the chunk formatted into ring[k] (+ 1; 0: none) */
	fk_obuf ring[RING];
	bool writing;      /* a thread is writing chunks out */
	fk_obuf *b;        /* where they go */
	int rc;            /* a chunk's error (out of memory) */
	const fk_svg_layout *L;
	const fk_svg_opts *o;
	const fcolors *fc;
	const struct geom *g;
	const uint32_t *fidx; /* the script's name index of each frame (frame_index) */
};

/* Whether the rects of L are written with the second writer (when there is one). */
static bool half_two(const struct half *h, const fk_svg_layout *L)
{
	return h && L->n >= HALF_MIN_FRAMES;
}

/* The script's data of frames [from, to) (fkF): name index, depth, width, x within the
 * parent, and a differential graph's delta. */
static void put_frame_data(fk_obuf *b, const fk_svg_layout *L, const uint32_t *fidx, size_t from,
			   size_t to)
{
	for (size_t i = from; i < to; i++) {
		const fk_svg_frame *f = &L->frames[i];
		if (i)
			fk_obuf_puts(b, (i & 7) ? "," : ",\n");
		fk_obuf_u64(b, fidx[i]);
		fk_obuf_puts(b, ",");
		fk_obuf_u64(b, f->depth);
		fk_obuf_puts(b, ",");
		fk_obuf_exact(b, f->w);
		fk_obuf_puts(b, ",");
		fk_obuf_exact(b, f->rel);
		if (L->diff) {
			fk_obuf_puts(b, ",");
			fk_obuf_exact(b, L->ab[f->ab].delta);
		}
	}
}

/* (locked) Take the next chunk, once its buffer is free (SIZE_MAX: none left, or stop). */
static size_t half_next(struct half *h, bool wait)
{
	for (;;) {
		if (h->state != 1 || h->next >= h->nchunks)
			return SIZE_MAX;
		if (h->next < h->written + RING)
			return h->next++;
		if (!wait)
			return SIZE_MAX;
		fk_handoff_wait(&h->ho);
	}
}

/* (locked) The chunks formatted next in order written out, when no thread is at it (the
 * writing out of the lock: the other thread takes or formats chunks meanwhile). */
static void half_flush(struct half *h)
{
	if (h->writing)
		return;
	h->writing = true;
	for (;;) {
		/* the chunks formatted next in order, together (their buffers are not reused
		 * until they are counted written) */
		struct iovec v[RING];
		size_t e = h->written;
		while (e < h->nchunks && e < h->gate && e < h->written + RING &&
		       h->ready[e % RING] == e + 1) {
			fk_obuf *m = &h->ring[e % RING];
			if (m->err && !h->rc)
				h->rc = m->err;
			v[e - h->written] = (struct iovec){ m->buf, m->len };
			e++;
		}
		if (e == h->written)
			break;
		pthread_mutex_unlock(&h->ho.mu);
		fk_obuf_putv(h->b, v, (int)(e - h->written));
		pthread_mutex_lock(&h->ho.mu);
		h->written = e; /* (their buffers are free) */
		fk_handoff_changed(&h->ho);
	}
	h->writing = false;
}

/* (locked) Chunk k formatted into its buffer out of the lock, said to be there, and what is
 * next in order written out. */
static void half_format(struct half *h, size_t k)
{
	/* alone for good, everything before written out: straight into the output */
	bool direct = !h->spawned && h->looks.answer == 0 && h->written == k && k < h->gate;
	fk_obuf *m = direct ? h->b : &h->ring[k % RING];
	bool rects = k < h->nrects;
	size_t per = rects ? CHUNK_FRAMES : DATA_FRAMES, j = rects ? k : k - h->nrects;
	size_t from = j * per, to = from + per < h->L->n ? from + per : h->L->n;
	pthread_mutex_unlock(&h->ho.mu);
	if (!direct)
		m->len = 0;
	if (rects && h->fc->lazy)
		colors_make(h->fc, from, to);
	if (rects)
		put_rects(m, h->L, h->o, h->fc->col, h->g, from, to);
	else
		put_frame_data(m, h->L, h->fidx, from, to);
	pthread_mutex_lock(&h->ho.mu);
	if (direct) {
		h->written++;
		return;
	}
	h->ready[k % RING] = k + 1;
	fk_handoff_changed(&h->ho);
	half_flush(h);
}

static void *half_run(void *arg);

/* The second thread started when a look finds a CPU free (locked, or before it runs). */
static void half_spawn(struct half *h)
{
	if (!h->spawned && fk_looks_ask(&h->looks) == 1 &&
	    !(h->spawned = fk_thread_start(&h->th, half_run, h) == 0))
		h->looks.answer = 0; /* (no thread to be had: alone) */
}

static void *half_run(void *arg)
{
	struct half *h = arg;
	pthread_mutex_lock(&h->ho.mu);
	while (h->state == 0)
		fk_handoff_wait(&h->ho);
	for (size_t k; (k = half_next(h, true)) != SIZE_MAX;)
		half_format(h, k);
	pthread_mutex_unlock(&h->ho.mu);
	return NULL;
}

static void half_free(struct half *h)
{
	for (size_t k = 0; k < RING; k++)
		fk_obuf_free(&h->ring[k]);
	free(h);
}

/* A second writer for p's SVG, or NULL (one thread, too few frames to pay, or a run that has
 * held under 12 MB: the ring and the thread's stack take ~0.65 MB, and issue 23's realistic
 * shape, 128 MB of perf text folded, 29k frames, was drawn in the same time with it and
 * without, 24.0 and 23.9 ms, in 9.25 MB against 8.6; inferno 38.7). */
static struct half *half_start(const fk_profile *p, const fk_svg_opts *o)
{
	/* (another task on one of two CPUs: the second thread would slow the first, 3 ms of
	 * 27 on 16 MB of perf text) */
	if (fk_profile_frames_bound(p) < HALF_MIN_FRAMES || !fk_run_held_kb(HALF_RUN_KB) ||
	    fk_profile_threads(p) < 2)
		return NULL;
	struct half *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	/* a chunk's rects, 200-300 bytes each (a buffer grows if its chunk needs more) */
	for (size_t k = 0; k < RING; k++)
		if (fk_obuf_init_mem(&h->ring[k], CHUNK_FRAMES * 320)) {
			half_free(h);
			return NULL;
		}
	if (fk_handoff_init(&h->ho)) {
		half_free(h);
		return NULL;
	}
	fk_looks_start(&h->looks, false);
	half_spawn(h);
	return h;
}

static void half_set(struct half *h, int state)
{
	pthread_mutex_lock(&h->ho.mu);
	h->state = state;
	fk_handoff_changed(&h->ho);
	pthread_mutex_unlock(&h->ho.mu);
}

/* Chunks taken, formatted and written out with the second writer until `upto` are written.
 * 0 or a negative error (a buffer's: out of memory). */
static int half_out(struct half *h, size_t upto)
{
	pthread_mutex_lock(&h->ho.mu);
	while (h->written < upto) {
		half_flush(h);
		size_t k = half_next(h, false);
		if (k != SIZE_MAX) {
			half_format(h, k);
			half_spawn(h);
		} else if (h->written < upto)
			fk_handoff_wait(&h->ho); /* the other is at the chunks left */
	}
	int rc = h->rc;
	pthread_mutex_unlock(&h->ho.mu);
	return rc;
}

/* The rects of the frames: by this thread alone (*two := false), or with the second
 * writer, which goes on to format the script's frame data (half_data). 0 or a negative
 * error (a buffer's: out of memory). */
static int half_rects(struct half *h, fk_obuf *b, const fk_svg_layout *L, const fk_svg_opts *o,
		      const fcolors *fc, const struct geom *g, bool *two)
{
	*two = half_two(h, L);
	if (!*two) {
		put_rects(b, L, o, fc->col, g, 0, L->n);
		return 0;
	}
	h->L = L;
	h->o = o;
	h->fc = fc;
	h->g = g;
	h->fidx = fc->fidx;
	h->nrects = (L->n + CHUNK_FRAMES - 1) / CHUNK_FRAMES;
	h->nchunks = h->nrects + (L->n + DATA_FRAMES - 1) / DATA_FRAMES;
	h->gate = h->nrects;
	h->b = b;
	half_set(h, 1);
	return half_out(h, h->nrects);
}

/* (the second writer's chunks, when there is one) The script's frame data after the names:
 * its first chunks formatted meanwhile by the second thread, written out now. */
static int half_data(struct half *h)
{
	pthread_mutex_lock(&h->ho.mu);
	h->gate = SIZE_MAX;
	fk_handoff_changed(&h->ho);
	pthread_mutex_unlock(&h->ho.mu);
	return half_out(h, h->nchunks);
}

/* Stop the second writer (whether it wrote or not) and free it. */
static void half_end(struct half *h)
{
	if (!h)
		return;
	half_set(h, 2);
	if (h->spawned)
		pthread_join(h->th, NULL);
	fk_handoff_destroy(&h->ho);
	half_free(h);
}

static int write_svg(fk_obuf *b, const fk_svg_layout *L, const fk_svg_opts *o, const fcolors *fc,
		     const char *subtitle, const struct geom *g, struct half *h)
{
	const double fs = o->fontsize, fh = g->fh, H = g->H;
	const double ypad1 = g->ypad1, ypad2 = g->ypad2, ypad3 = g->ypad3;
	const int W = o->width;
	const double charw = fs * o->fontwidth;
	char bg1[8], bg2[8];
	fk_palette_background(o->colors, o->bgcolors, bg1, bg2);

	fk_obuf_puts(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fk_obuf_printf(b, "<svg version=\"1.1\" width=\"%d\" height=\"", W);
	fk_obuf_num(b, H);
	fk_obuf_printf(b, "\" viewBox=\"0 0 %d ", W);
	fk_obuf_num(b, H);
	fk_obuf_puts(b, "\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"");
	fk_obuf_xml(b, o->fonttype, strlen(o->fonttype));
	fk_obuf_puts(b, "\" font-size=\"");
	fk_obuf_num(b, fs);
	fk_obuf_puts(b, "\">\n<!-- Flame graph drawn by flamekit " FK_VERSION_STRING
			"; hover for details, click to zoom, Ctrl-F to search. -->\n");
	if (o->notes) {
		fk_obuf_puts(b, "<!-- NOTES: ");
		fk_obuf_comment(b, o->notes, strlen(o->notes));
		fk_obuf_puts(b, " -->\n");
	}
	if (L->guard_dropped) {
		fk_obuf_printf(b, "<!-- size guard: %zu frames narrower than %.4g (%.3g px) were merged into their parents -->\n",
			       L->guard_dropped, L->minw, L->minw * (W - 2.0 * XPAD) / L->timemax);
	}
	fk_obuf_printf(b, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
			  "<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/>"
			  "</linearGradient></defs>\n", bg1, bg2);
	fk_obuf_puts(b, "<style type=\"text/css\"><![CDATA[\n");
	fk_obuf_puts(b, fk_page_svg_css);
	fk_obuf_puts(b, "]]></style>\n");
	fk_obuf_printf(b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"", W);
	fk_obuf_num(b, H);
	fk_obuf_puts(b, "\" fill=\"url(#background)\"/>\n");

	const char *title = o->title && *o->title ? o->title
			  : o->flamechart ? "Flame Chart" : o->inverted ? "Icicle Graph" : "Flame Graph";
	char extra[64];
	snprintf(extra, sizeof(extra), " text-anchor=\"middle\" font-size=\"%g\"", fs + 5);
	put_text_at(b, "title", (double)(W / 2), fs * 2, extra, title);
	if (subtitle)
		put_text_at(b, "subtitle", (double)(W / 2), fs * 4, " text-anchor=\"middle\" fill=\"#a0a0a0\"",
			    subtitle);
	put_text_at(b, "details", XPAD, H - ypad2 / 2, "", " ");
	put_text_at(b, "unzoom", XPAD, fs * 2, "", "Reset Zoom");
	put_text_at(b, "search", W - XPAD - 100, fs * 2, "", "Search");
	put_text_at(b, "ignorecase", W - XPAD - 16, fs * 2, "", "ic");
	put_text_at(b, "matched", W - XPAD, H - ypad2 / 2, " text-anchor=\"end\"", " ");

	fk_obuf_puts(b, "<g id=\"frames\">\n");
	bool two;
	int rc = half_rects(h, b, L, o, fc, g, &two);
	if (rc)
		return rc;
	fk_obuf_puts(b, "</g>\n<g id=\"labels\">\n");
	for (size_t i = 0; i < L->n; i++) {
		const fk_svg_frame *f = &L->frames[i];
		double x1 = XPAD + f->x * g->wpt, w = f->w * g->wpt;
		double chars = floor(w / charw);
		if (chars < 3)
			continue;
		size_t len;
		const char *s = i ? fk_profile_name(L->names, f->name, &len) : "all";
		if (!i)
			len = 3;
		len = fk_svg_strip_annotation(s, len);
		fk_obuf_puts(b, L->diff && dark_fill(fc->col[i]) ? "<text class=\"dk\" x=\"" : "<text x=\"");
		fk_obuf_num(b, x1 + 3);
		fk_obuf_puts(b, "\" y=\"");
		fk_obuf_num(b, frame_y(g, o, f) + 3 + (fh - 1) / 2);
		fk_obuf_puts(b, "\">");
		fk_obuf_xml_trunc(b, s, len, (size_t)chars, o->truncate == FK_TRUNC_LEFT);
		fk_obuf_puts(b, "</text>\n");
	}
	fk_obuf_puts(b, "</g>\n");

	/* data for the script: names (deduplicated by id; index 0 is the root) */
	fk_obuf_puts(b, "<script type=\"text/ecmascript\"><![CDATA[\n");
	unsigned stride = L->diff ? 5 : 4;
	put_js_config(b, L, o, stride, o->inverted ? ypad1 + ypad3 : H - ypad2 - fh + 1,
		      o->inverted ? fh : -fh);
	fk_obuf_puts(b, "var fkN=[\"all\"");
	uint32_t next = 1;
	for (size_t i = 1; i < L->n; i++) {
		if (fc->fidx[i] != next)
			continue; /* (not its name's first frame) */
		next++;
		size_t len;
		const char *s = fk_profile_name(L->names, L->frames[i].name, &len);
		fk_obuf_puts(b, (next & 7) == 2 ? ",\n" : ",");
		fk_obuf_js(b, s, fk_svg_strip_annotation(s, len));
	}
	fk_obuf_puts(b, "];\nvar fkF=[");
	if (two)
		rc = half_data(h);
	else
		put_frame_data(b, L, fc->fidx, 0, L->n);
	if (rc)
		return rc;
	fk_obuf_puts(b, "];\n");
	fk_obuf_puts(b, fk_page_svg_js);
	fk_obuf_puts(b, "]]></script>\n</svg>\n");
	return 0;
}

/* "Callees of NAME" / "Callers of NAME" and the share of the whole profile. */
static char *focus_subtitle(const fk_svg_layout *L, const fk_svg_opts *o)
{
	size_t n = strlen(o->focus) + 96;
	char *s = malloc(n);
	if (!s)
		return NULL;
	double pct = L->full_total > 0 ? 100 * L->total / L->full_total : 0;
	snprintf(s, n, "%s of %s (%.2f%% of all %s)", o->reverse ? "Callers" : "Callees", o->focus,
		 pct, o->countname);
	return s;
}

int fk_render_svg(const fk_profile *p, const fk_svg_opts *opts, FILE *out)
{
	if (!p || !opts || !out)
		return -FK_E_INVAL;
	fk_svg_opts o;
	fk_svg_opts_init(&o);
	FK_OPTS_ADOPT(o, opts);
	if (!o.fonttype)
		o.fonttype = "Verdana";
	fk_svg_opts_defaults(&o, p);
	if (!o.nametype)
		o.nametype = "Function:";
	int rc = fk_svg_opts_check(&o);
	if (rc)
		return rc;
	struct half *h = half_start(p, &o);
	fk_svg_layout L;
	rc = fk_svg_layout_build(&L, p, &o);
	if (rc) {
		half_end(h);
		fk_svg_layout_free(&L);
		return rc;
	}
	fk_log(FK_LEVEL_DEBUG, "svg: laid out, %zu frames drawn", L.n);
	fk_palette *pal = NULL;
	fcolors fc = { 0 };
	char *sub = NULL;
	const char *subtitle = o.subtitle && *o.subtitle ? o.subtitle : NULL;
	if (!L.diff && !(pal = fk_palette_new(&o))) {
		rc = errno == FK_E_NOMEM || errno == ENOMEM ? -FK_E_NOMEM : -(errno ? errno : FK_E_INVAL);
		goto out;
	}
	if ((rc = colors_init(&fc, &L, &o, pal)))
		goto out;
	/* (made by the rects' chunks where two threads write them) */
	fc.lazy = half_two(h, &L) && (L.diff || fk_palette_shared(pal));
	if (!fc.lazy)
		colors_make(&fc, 0, L.n);
	if (!subtitle && o.focus) {
		if (!(sub = focus_subtitle(&L, &o))) {
			rc = -FK_E_NOMEM;
			goto out;
		}
		subtitle = sub;
	}
	/* what the widths of a diff are, when they are not flamegraph.pl's (its key) */
	if (!subtitle && L.shape == FK_SHAPE_BOTH)
		subtitle = o.negate ? "Widths: the larger of before and after. Blue: grew, red: shrank or went away"
				    : "Widths: the larger of before and after. Red: grew, blue: shrank or went away";
	else if (!subtitle && L.shape == FK_SHAPE_BEFORE)
		subtitle = o.negate ? "Widths: before. Blue: grew, red: shrank or went away"
				    : "Widths: before. Red: grew, blue: shrank or went away";
	fk_obuf b;
	if ((rc = fk_obuf_init(&b, out)))
		goto out;
	struct geom g = geometry(&L, &o, subtitle);
	rc = write_svg(&b, &L, &o, &fc, subtitle, &g, h);
	int wrc = fk_obuf_finish(&b);
	fk_log(FK_LEVEL_DEBUG, "svg: written, %llu bytes", (unsigned long long)b.flushed);
	if (!rc)
		rc = wrc;
	if (!rc)
		rc = fk_palette_save(pal);
out:
	half_end(h);
	free(sub);
	colors_free(&fc);
	fk_palette_free(pal);
	fk_svg_layout_free(&L);
	return rc;
}

/* heatmap.c - subsecond-offset heat map: bins timestamped samples into (second, row)
 * cells, keeps per-cell counts of deduplicated stacks, and writes the --cells TSV or
 * the self-contained HTML page (its script and style are page/heatmap.js and page/heatmap.css). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "render/page.h"
#include "base/out.h"
#include "render/palette.h"


#define HM_MAX_ROWS 1000
/* Dense cell arrays: 16M cells (e.g. 93 hours at 50 rows) is far beyond what a
 * page can show; past it the user narrows with --start/--end. */
#define HM_MAX_CELLS (16u << 20)
#define HM_MAX_SECS 86400
#define HM_MAX_HL 8
#define NS_PER_SEC 1000000000LL

void fk_heatmap_opts_init(fk_heatmap_opts *o)
{
	memset(o, 0, sizeof(*o));
	/* the page's flame graphs use its frame height, font, minwidth, countname, inverted */
	fk_svg_opts_init(&o->svg);
	o->rows = 50;
	o->start = NAN;
	o->end = NAN;
	o->sz = sizeof(*o);
}

/* Everything the page and the TSV need, computed once. */
struct hm {
	const fk_profile *p;
	const fk_heatmap_opts *o;
	const fk_sample *s;
	size_t ns;
	const fk_node *nd;
	size_t nn;
	unsigned rows;
	int64_t base;            /* absolute second of the earliest timestamped sample */
	int64_t first, nsecs;    /* shown seconds, relative to base */
	size_t ncells;
	uint32_t *cell_of;       /* per sample: cell index, FK_NONE when dropped */
	double *cell;            /* per cell: summed weight */
	size_t kept;
	uint64_t no_time;        /* samples without a timestamp */
	/* stack table: used nodes renumbered in preorder, children sorted by name */
	uint32_t *new_id;        /* old node -> new id (FK_NONE if unused) */
	uint32_t *old_of;        /* new id -> old node */
	uint32_t nnew;
	uint32_t *name_new;      /* old name id -> new name id (FK_NONE if unused) */
	uint32_t *name_old;      /* new name id -> old */
	uint32_t nnames;
	/* per cell (stack, count) pairs, cells in order, stacks ascending */
	size_t *pair_start;      /* ncells + 1 */
	uint32_t *pair_leaf;
	double *pair_count;
	size_t npairs;
	/* highlighted comms */
	size_t nhl;
	int64_t hl_id[HM_MAX_HL];
	const char *hl_name[HM_MAX_HL];
	size_t hl_len[HM_MAX_HL];
	double *hl_cell;         /* nhl * ncells */
};

static void hm_free(struct hm *h)
{
	free(h->cell_of);
	free(h->cell);
	free(h->new_id);
	free(h->old_of);
	free(h->name_new);
	free(h->name_old);
	free(h->pair_start);
	free(h->pair_leaf);
	free(h->pair_count);
	free(h->hl_cell);
}

/* Timestamps go through integer nanoseconds so that bins do not depend on how
 * 12345.200000 happens to round as a double (0.2 * 50 must land in row 10). */
static int64_t time_ns(double t)
{
	return llround(t * 1e9);
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Frames that mean "this CPU had nothing to do"; perf annotations (_[k]) and
 * suffixes like ".isra.0" are ignored when matching. */
static bool idle_name(const char *s, size_t len)
{
	static const char *const idle[] = {
		"cpu_idle", "cpu_idle_loop", "do_idle", "default_idle", "default_idle_call",
		"arch_cpu_idle", "cpu_startup_entry", "cpu_bringup_and_idle", "native_safe_halt",
		"intel_idle", "intel_idle_irq", "poll_idle", "acpi_idle_do_entry", "acpi_idle_enter",
		"acpi_safe_halt", "mwait_idle", "mwait_idle_with_hints", "cpuidle_enter",
		"cpuidle_enter_state", "cpuidle_idle_call", "sched_idle", "xen_hypercall_sched_op",
		"hv_native_safe_halt", "pv_native_safe_halt", "swapper", "start_secondary",
	};
	size_t n = len;
	if (n > 4 && s[n - 1] == ']' && s[n - 4] == '[' && s[n - 5] == '_')
		n -= 5;
	const char *dot = memchr(s, '.', n);
	if (dot)
		n = (size_t)(dot - s);
	if (n >= 7 && !memcmp(s, "swapper", 7))
		return true; /* swapper, swapper/3 */
	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++)
		if (strlen(idle[i]) == n && !memcmp(idle[i], s, n))
			return true;
	return false;
}

/* Preorder over the whole tree from the root (parents before children whatever
 * the node numbering). */
static int preorder(const fk_node *nd, size_t nn, uint32_t **out)
{
	uint32_t *ord = malloc((nn ? nn : 1) * sizeof(*ord));
	uint32_t *stack = malloc((nn ? nn : 1) * sizeof(*stack));
	if (!ord || !stack) {
		free(ord);
		free(stack);
		return -FK_E_NOMEM;
	}
	size_t k = 0, sp = 0;
	if (nn)
		stack[sp++] = 0;
	while (sp) {
		uint32_t n = stack[--sp];
		ord[k++] = n;
		for (uint32_t c = nd[n].first_child; c != FK_NONE && sp < nn; c = nd[c].next_sibling)
			stack[sp++] = c;
	}
	free(stack);
	*out = ord;
	/* every node hangs under the root, so k == nn; anything else is a broken tree */
	return k == nn ? 0 : -FK_E_INVAL;
}

struct name_cmp_ctx {
	const fk_profile *p;
	const fk_node *nd;
};

static int child_cmp(const void *a, const void *b, void *ctx)
{
	const struct name_cmp_ctx *c = ctx;
	size_t la, lb;
	const char *na = fk_profile_name(c->p, c->nd[*(const uint32_t *)a].frame, &la);
	const char *nb = fk_profile_name(c->p, c->nd[*(const uint32_t *)b].frame, &lb);
	int r = memcmp(na, nb, la < lb ? la : lb);
	if (r)
		return r;
	return la < lb ? -1 : la > lb;
}

/* Does the sample belong to comm id `id`? Samples without a comm (folded-like
 * inputs) are matched on their root frame, which parsers set to the comm. */
static bool sample_comm_is(const struct hm *h, const fk_sample *s, const uint32_t *root_frame,
			   int64_t id)
{
	if (id < 0)
		return false;
	if (s->comm)
		return s->comm == (uint32_t)id;
	return root_frame[s->node] == (uint32_t)id;
}

/* Samples beyond +-9e9 s count as untimed: their nanoseconds would overflow. */
static bool timed(double t)
{
	return isfinite(t) && fabs(t) <= 9.0e9;
}

/* kept for the ABI: the origin belongs to the model (fk_profile_time_origin) */
double fk_heatmap_time_origin(const fk_profile *p)
{
	return fk_profile_time_origin(p);
}

static int build(struct hm *h, const fk_profile *p, const fk_heatmap_opts *o)
{
	int err = 0;
	uint32_t *ord = NULL, *root_frame = NULL, *stack = NULL, *kids = NULL;
	uint8_t *idle = NULL, *idle_nm = NULL, *used = NULL;
	size_t *bucket = NULL;
	uint32_t *members = NULL;
	struct { uint32_t leaf; double w; } *tmp = NULL;
	size_t tmp_cap = 0;

	memset(h, 0, sizeof(*h));
	h->p = p;
	h->o = o;
	h->rows = o->rows ? o->rows : 50;
	if (!(fk_profile_flags(p) & FK_PROFILE_SAMPLES)) {
		fk_warn("heat map: the profile keeps no per-sample records");
		return -FK_E_INVAL;
	}
	if (h->rows > HM_MAX_ROWS) {
		fk_warn("heat map: %u rows per second is more than %d", h->rows, HM_MAX_ROWS);
		return -FK_E_INVAL;
	}
	if (!isnan(o->start) && !isnan(o->end) && o->end <= o->start) {
		fk_warn("heat map: empty time range %g-%g", o->start, o->end);
		return -FK_E_INVAL;
	}
	h->s = fk_profile_samples(p, &h->ns);
	if (!(h->nd = fk_profile_nodes(p, &h->nn)))
		return -FK_E_NOMEM;
	size_t nnames = fk_profile_name_count(p);

	/* Per node: root frame (for comm matching) and idle flag. */
	if ((err = preorder(h->nd, h->nn, &ord))) {
		if (err == -FK_E_INVAL)
			fk_warn("heat map: the profile's call tree is inconsistent");
		goto out;
	}
	root_frame = malloc(h->nn * sizeof(*root_frame));
	idle = calloc(h->nn, 1);
	idle_nm = calloc(nnames ? nnames : 1, 1);
	if (!root_frame || !idle || !idle_nm) {
		err = -FK_E_NOMEM;
		goto out;
	}
	if (o->idle_filter)
		for (size_t i = 1; i < nnames; i++) {
			size_t l;
			const char *s = fk_profile_name(p, (uint32_t)i, &l);
			idle_nm[i] = idle_name(s, l);
		}
	for (size_t k = 0; k < h->nn; k++) {
		uint32_t n = ord[k], par = h->nd[n].parent;
		if (par == FK_NONE) {
			root_frame[n] = 0;
			continue;
		}
		root_frame[n] = par == 0 ? h->nd[n].frame : root_frame[par];
		idle[n] = idle[par] | idle_nm[h->nd[n].frame];
	}

	/* --isolate COMM, or pid:N / tid:N for one process or thread */
	int64_t iso = -1;
	long iso_pid = -1, iso_tid = -1;
	if (o->isolate) {
		const char *v = o->isolate;
		char *end;
		bool is_pid = !strncmp(v, "pid:", 4), is_tid = !strncmp(v, "tid:", 4);
		if (is_pid || is_tid) {
			errno = 0;
			long n = strtol(v + 4, &end, 10);
			if (!v[4] || *end || errno || n < 0 || n > INT32_MAX) {
				fk_warn("heat map: isolate '%s': expected pid:N or tid:N", v);
				err = -FK_E_INVAL;
				goto out;
			}
			*(is_pid ? &iso_pid : &iso_tid) = n;
		} else {
			iso = fk_profile_find_name(p, v, strlen(v));
		}
		if (iso < 0 && iso_pid < 0 && iso_tid < 0) {
			fk_warn("heat map: no samples of comm '%s'", o->isolate);
			err = -FK_E_EMPTY;
			goto out;
		}
	}

	/* Base second: the earliest timestamped sample, before any filter, so that
	 * second numbers stay the same whatever --start/--end/--isolate select. */
	int64_t min_ns = INT64_MAX;
	for (size_t i = 0; i < h->ns; i++) {
		double t = h->s[i].time;
		if (!timed(t)) {
			h->no_time++;
			continue;
		}
		int64_t t_ns = time_ns(t);
		if (t_ns < min_ns)
			min_ns = t_ns;
	}
	if (min_ns == INT64_MAX) {
		fk_warn("heat map: no sample has a timestamp (perf script text, or the samples "
			"format, carries them)");
		err = -FK_E_EMPTY;
		goto out;
	}
	h->base = floor_div(min_ns, NS_PER_SEC);
	/* clamped so that the nanosecond arithmetic cannot overflow */
	int64_t lo_ns = isnan(o->start) ? INT64_MIN
			: h->base * NS_PER_SEC + time_ns(fmax(-9.0e9, fmin(9.0e9, o->start)));
	int64_t hi_ns = isnan(o->end) ? INT64_MAX
			: h->base * NS_PER_SEC + time_ns(fmax(-9.0e9, fmin(9.0e9, o->end)));

	h->cell_of = malloc((h->ns ? h->ns : 1) * sizeof(*h->cell_of));
	if (!h->cell_of) {
		err = -FK_E_NOMEM;
		goto out;
	}
	int64_t smin = INT64_MAX, smax = INT64_MIN;
	for (size_t i = 0; i < h->ns; i++) {
		const fk_sample *s = &h->s[i];
		h->cell_of[i] = FK_NONE;
		if (!timed(s->time))
			continue;
		int64_t t_ns = time_ns(s->time);
		if (t_ns < lo_ns || t_ns >= hi_ns)
			continue;
		if (iso_pid >= 0 ? s->pid != iso_pid : iso_tid >= 0 ? s->tid != iso_tid :
		    o->isolate && !sample_comm_is(h, s, root_frame, iso))
			continue;
		if (o->idle_filter && idle[s->node])
			continue;
		if (o->idle_filter && s->comm) { /* swapper, swapper/3 */
			size_t cl;
			const char *cn = fk_profile_name(p, s->comm, &cl);
			if (cl >= 7 && !memcmp(cn, "swapper", 7))
				continue;
		}
		int64_t sec = floor_div(t_ns, NS_PER_SEC) - h->base;
		if (sec < smin)
			smin = sec;
		if (sec > smax)
			smax = sec;
		h->cell_of[i] = 0; /* kept; the index is set once the range is known */
		h->kept++;
	}
	if (!h->kept) {
		fk_warn("heat map: no samples left after the time range and comm/idle filters");
		err = -FK_E_EMPTY;
		goto out;
	}
	h->first = smin;
	h->nsecs = smax - smin + 1;
	if (h->nsecs > HM_MAX_SECS || (uint64_t)h->nsecs * h->rows > HM_MAX_CELLS) {
		fk_warn("heat map: samples span %lld seconds (more than %d, or %u cells); "
			"choose a range with --start/--end", (long long)h->nsecs, HM_MAX_SECS,
			HM_MAX_CELLS);
		err = -FK_E_TOOBIG;
		goto out;
	}
	h->ncells = (size_t)h->nsecs * h->rows;

	/* Highlighted comms (by name; unknown names simply never match). */
	if (o->highlight) {
		const char *q = o->highlight;
		while (*q && h->nhl < HM_MAX_HL) {
			const char *e = strchr(q, ',');
			size_t l = e ? (size_t)(e - q) : strlen(q);
			if (l) {
				h->hl_name[h->nhl] = q;
				h->hl_len[h->nhl] = l;
				h->hl_id[h->nhl] = fk_profile_find_name(p, q, l);
				h->nhl++;
			}
			q += l + (e ? 1 : 0);
		}
		if (*q)
			fk_warn("heat map: only the first %d highlighted comms are coloured", HM_MAX_HL);
	}

	h->cell = calloc(h->ncells, sizeof(*h->cell));
	bucket = calloc(h->ncells + 1, sizeof(*bucket));
	h->hl_cell = calloc(h->nhl * h->ncells + 1, sizeof(*h->hl_cell));
	used = calloc(h->nn, 1);
	if (!h->cell || !bucket || !h->hl_cell || !used) {
		err = -FK_E_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < h->ns; i++) {
		if (h->cell_of[i] == FK_NONE)
			continue;
		const fk_sample *s = &h->s[i];
		int64_t t_ns = time_ns(s->time);
		int64_t sec = floor_div(t_ns, NS_PER_SEC);
		int64_t off = t_ns - sec * NS_PER_SEC;
		size_t row = (size_t)((uint64_t)off * h->rows / (uint64_t)NS_PER_SEC);
		size_t c = (size_t)(sec - h->base - h->first) * h->rows + row;
		h->cell_of[i] = (uint32_t)c;
		h->cell[c] += s->weight;
		bucket[c + 1]++;
		for (size_t k = 0; k < h->nhl; k++)
			if (sample_comm_is(h, s, root_frame, h->hl_id[k]))
				h->hl_cell[k * h->ncells + c] += s->weight;
		for (uint32_t n = s->node; n != FK_NONE && !used[n]; n = h->nd[n].parent)
			used[n] = 1;
	}
	used[0] = 1;

	/* Stack table: used nodes in preorder with children sorted by name, so the
	 * numbering (and the page) depends only on the stacks, not on input order. */
	h->new_id = malloc(h->nn * sizeof(*h->new_id));
	h->old_of = malloc(h->nn * sizeof(*h->old_of));
	h->name_new = malloc((nnames ? nnames : 1) * sizeof(*h->name_new));
	h->name_old = malloc((nnames ? nnames : 1) * sizeof(*h->name_old));
	stack = malloc(h->nn * sizeof(*stack));
	kids = malloc(h->nn * sizeof(*kids));
	if (!h->new_id || !h->old_of || !h->name_new || !h->name_old || !stack || !kids) {
		err = -FK_E_NOMEM;
		goto out;
	}
	for (size_t i = 0; i < h->nn; i++)
		h->new_id[i] = FK_NONE;
	for (size_t i = 0; i < nnames; i++)
		h->name_new[i] = FK_NONE;
	struct name_cmp_ctx cctx = { p, h->nd };
	size_t sp = 0;
	stack[sp++] = 0;
	while (sp) {
		uint32_t n = stack[--sp];
		h->new_id[n] = h->nnew;
		h->old_of[h->nnew++] = n;
		uint32_t f = h->nd[n].frame;
		if (h->name_new[f] == FK_NONE) {
			h->name_new[f] = h->nnames;
			h->name_old[h->nnames++] = f;
		}
		size_t nk = 0;
		for (uint32_t c = h->nd[n].first_child; c != FK_NONE; c = h->nd[c].next_sibling)
			if (used[c])
				kids[nk++] = c;
		qsort_r(kids, nk, sizeof(*kids), child_cmp, &cctx);
		/* pushed last-first so the smallest name is numbered first */
		while (nk)
			stack[sp++] = kids[--nk];
	}

	/* Bucket the kept samples by cell (counting sort), then merge equal stacks
	 * within each cell. */
	for (size_t c = 0; c < h->ncells; c++)
		bucket[c + 1] += bucket[c];
	members = malloc((h->kept ? h->kept : 1) * sizeof(*members));
	h->pair_start = malloc((h->ncells + 1) * sizeof(*h->pair_start));
	if (!members || !h->pair_start) {
		err = -FK_E_NOMEM;
		goto out;
	}
	{
		size_t *fill = bucket; /* reused: advances to the next cell's start */
		for (size_t i = 0; i < h->ns; i++)
			if (h->cell_of[i] != FK_NONE)
				members[fill[h->cell_of[i]]++] = (uint32_t)i;
		/* fill[c] now equals the old bucket[c + 1]: cell c is [fill[c-1], fill[c]) */
	}
	size_t pair_cap = 0;
	size_t from = 0;
	for (size_t c = 0; c < h->ncells; c++) {
		size_t to = bucket[c], m = to - from;
		h->pair_start[c] = h->npairs;
		if (m > tmp_cap) {
			void *nt = realloc(tmp, m * sizeof(*tmp));
			if (!nt) {
				err = -FK_E_NOMEM;
				goto out;
			}
			tmp = nt;
			tmp_cap = m;
		}
		for (size_t k = 0; k < m; k++) {
			const fk_sample *s = &h->s[members[from + k]];
			tmp[k].leaf = h->new_id[s->node];
			tmp[k].w = s->weight;
		}
		/* insertion sort: cells hold tens of samples; stable keeps sums in input order */
		for (size_t k = 1; k < m; k++) {
			__typeof__(*tmp) v = tmp[k];
			size_t j = k;
			while (j && tmp[j - 1].leaf > v.leaf) {
				tmp[j] = tmp[j - 1];
				j--;
			}
			tmp[j] = v;
		}
		for (size_t k = 0; k < m;) {
			uint32_t leaf = tmp[k].leaf;
			double sum = 0;
			while (k < m && tmp[k].leaf == leaf)
				sum += tmp[k++].w;
			if (h->npairs == pair_cap) {
				if (FK_GROW(h->pair_leaf, pair_cap, h->npairs + 1)) {
					err = -FK_E_NOMEM;
					goto out;
				}
				size_t cap2 = pair_cap;
				void *nc = realloc(h->pair_count, cap2 * sizeof(*h->pair_count));
				if (!nc) {
					err = -FK_E_NOMEM;
					goto out;
				}
				h->pair_count = nc;
			}
			h->pair_leaf[h->npairs] = leaf;
			h->pair_count[h->npairs] = sum;
			h->npairs++;
		}
		from = to;
	}
	h->pair_start[h->ncells] = h->npairs;
out:
	free(ord);
	free(root_frame);
	free(idle);
	free(idle_nm);
	free(used);
	free(stack);
	free(kids);
	free(bucket);
	free(members);
	free(tmp);
	if (err)
		hm_free(h);
	return err;
}

int fk_heatmap_cells(const fk_profile *p, const fk_heatmap_opts *user, FILE *out)
{
	struct hm h;
	fk_heatmap_opts o;
	fk_heatmap_opts_init(&o);
	if (user)
		FK_OPTS_ADOPT(o, user);
	int err = build(&h, p, user ? &o : NULL);
	if (err)
		return err;
	for (size_t c = 0; c < h.ncells; c++) {
		if (h.cell[c] == 0)
			continue;
		char num[40];
		fk_format_count(num, sizeof(num), h.cell[c]);
		fprintf(out, "%lld\t%zu\t%s\n", (long long)(h.first + (int64_t)(c / h.rows)),
			c % h.rows, num);
	}
	hm_free(&h);
	if (fflush(out) || ferror(out))
		return -FK_E_WRITE;
	return 0;
}

/* ------------------------------------------------------------------ page output */

/* Compact unsigned integers for the page: 5 bits per character, bit 5 set on
 * every character but the last, in the URL-safe base64 alphabet (no character
 * that needs escaping in JSON or HTML). The page decodes with a lookup table. */
static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void w_uv(fk_obuf *w, uint64_t v)
{
	char t[16];
	size_t k = 0;
	while (v >= 32) {
		t[k++] = b64[32 | (v & 31)];
		v >>= 5;
	}
	t[k++] = b64[v];
	fk_obuf_put(w, t, k);
}

/* Counts in the pages' one encoding (render/page.h); the first error is kept. */
struct floats {
	struct fk_page_floats t;
	int err;
};

static void w_num(fk_obuf *w, struct floats *fl, double v)
{
	uint64_t code;
	int rc = fk_page_count(&fl->t, v, &code);
	if (rc) {
		fl->err = fl->err ? fl->err : rc;
		return;
	}
	w_uv(w, code);
}

static void w_head(fk_obuf *w, const struct hm *h, const char *title)
{
	fk_obuf_puts(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		 "<meta name=\"generator\" content=\"flamekit " FK_VERSION_STRING "\">\n"
		 "<meta name=\"viewport\" content=\"width=device-width\">\n<title>");
	fk_obuf_xml(w, title, strlen(title));
	fk_obuf_puts(w, "</title>\n<style>\n");
	fk_obuf_puts(w, fk_page_heatmap_css);
	fk_obuf_puts(w, fk_page_viewer_css);
	fk_obuf_puts(w, "</style>\n</head>\n<body>\n<header><h1>");
	fk_obuf_xml(w, title, strlen(title));
	fk_obuf_puts(w, "</h1>\n<span id=\"summary\"></span>\n"
		 "<span class=\"ctl\"><label>scale <select id=\"scale\">"
		 "<option value=\"linear\">linear</option><option value=\"rank\">rank</option>"
		 "</select></label>\n<button id=\"selall\" type=\"button\">Whole profile</button>\n"
		 "<button id=\"clear\" type=\"button\">Clear selection</button></span>\n"
		 "<div id=\"legend\"></div>\n</header>\n"
		 "<main>\n<section id=\"hmpane\"><div id=\"hmhelp\">Drag over the cells (or click a start "
		 "cell, then an end cell) to select a time range. A second range shows a differential "
		 "flame graph (red: more in the second range, blue: less).</div>\n"
		 "<div id=\"hmscroll\"><div id=\"hmwrap\"></div></div>\n<div id=\"sel\"></div></section>\n"
		 "<section id=\"fgpane\">"
		 "<div id=\"fgtitle\">Select a range in the heat map.</div>\n"
		 "<div id=\"fg\" hidden></div></section>\n</main>\n"
		 "<div id=\"tip\" hidden></div>\n"
		 "<noscript>This page needs JavaScript.</noscript>\n");
	(void)h;
}

static void put_hex6(fk_obuf *w, uint32_t c)
{
	static const char hex[] = "0123456789abcdef";
	char t[6];
	for (int i = 0; i < 6; i++)
		t[i] = hex[(c >> (20 - 4 * i)) & 15];
	fk_obuf_put(w, t, 6);
}

/* rrggbb per name (the page's name order), then the root's: the colours
 * fk_render_svg gives the same names with the same options. */
static int put_colors(fk_obuf *w, const struct hm *h, const fk_svg_opts *so)
{
	fk_svg_opts po = *so;
	fk_svg_opts_defaults(&po, h->p); /* the palette fk_render_svg picks for this profile */
	/* a --cp file is read (same colours as the SVG) but never written back here */
	fk_palette *pal = fk_palette_new(&po);
	if (!pal)
		return errno == ENOMEM || errno == FK_E_NOMEM ? -FK_E_NOMEM : -(errno ? errno : FK_E_INVAL);
	for (uint32_t i = 0; i <= h->nnames; i++) {
		size_t l;
		const char *s = fk_profile_name(h->p, i < h->nnames ? h->name_old[i] : 0, &l);
		uint32_t c = fk_palette_fixed(s, l);
		put_hex6(w, c != UINT32_MAX ? c : fk_palette_color(pal, s, l, false));
	}
	fk_palette_free(pal);
	return 0;
}

static int write_page(struct hm *h, FILE *f)
{
	const fk_heatmap_opts *o = h->o;
	const fk_svg_opts *so = &o->svg;
	struct floats fl = { 0 };
	fk_obuf ob, *w = &ob;
	int err = fk_obuf_init(w, f);
	if (err)
		return err;
	const char *title = o->title && *o->title ? o->title : "Subsecond Offset Heat Map";

	w_head(w, h, title);
	fk_obuf_puts(w, "<script id=\"fkdata\" type=\"application/json\">{\"v\":1,\"title\":");
	fk_obuf_js(w, title, strlen(title));
	fk_obuf_printf(w, ",\"rows\":%u,\"base\":%lld,\"first\":%lld,\"nsecs\":%lld,\"scale\":\"%s\"",
	      h->rows, (long long)h->base, (long long)h->first, (long long)h->nsecs,
	      o->rank ? "rank" : "linear");
	fk_obuf_printf(w, ",\"samples\":%zu,\"notime\":%llu", h->kept, (unsigned long long)h->no_time);
	fk_svg_opts dso = *so;   /* countname: the profile's unit unless given */
	fk_svg_opts_defaults(&dso, h->p);
	const char *cn = *dso.countname ? dso.countname : "samples";
	fk_obuf_puts(w, ",\"countname\":");
	fk_obuf_js(w, cn, strlen(cn));
	fk_obuf_printf(w, ",\"fh\":%d,\"fs\":%g,\"minw\":%g,\"inverted\":%s", so->frameheight > 0 ? so->frameheight : 16,
	      so->fontsize > 0 ? so->fontsize : 12, so->minwidth > 0 ? so->minwidth : 0.1,
	      so->inverted ? "true" : "false");
	const char *font = so->fonttype && *so->fonttype ? so->fonttype : "Verdana";
	fk_obuf_puts(w, ",\"font\":");
	fk_obuf_js(w, font, strlen(font));

	fk_obuf_puts(w, ",\n\"names\":[");
	for (uint32_t i = 0; i < h->nnames; i++) {
		size_t l;
		const char *s = fk_profile_name(h->p, h->name_old[i], &l);
		if (i)
			fk_obuf_put(w, i % 16 ? "," : ",\n", i % 16 ? 1 : 2);
		fk_obuf_js(w, s, l);
	}
	/* the flame graphs' colours: the SVG's palette for each name, the root's last */
	fk_obuf_puts(w, "],\n\"colors\":\"");
	if ((err = put_colors(w, h, so)))
		goto fail;
	/* nodes 1..n-1: parent as a distance back in preorder, then name id */
	fk_obuf_printf(w, "\",\n\"nnodes\":%u,\"nodes\":\"", h->nnew);
	for (uint32_t i = 1; i < h->nnew; i++) {
		const fk_node *n = &h->nd[h->old_of[i]];
		w_uv(w, i - h->new_id[n->parent]);
		w_uv(w, h->name_new[n->frame]);
	}
	fk_obuf_puts(w, "\",\n\"cells\":\"");
	for (size_t c = 0; c < h->ncells; c++)
		w_num(w, &fl, h->cell[c]);
	/* pairs: per cell its pair count, then (stack id delta, count); secoff[s] is
	 * where second s starts, so the page decodes only the seconds it needs */
	fk_obuf_puts(w, "\",\n\"pairs\":\"");
	int64_t *secoff = malloc((size_t)(h->nsecs + 1) * sizeof(*secoff));
	if (!secoff) {
		err = -FK_E_NOMEM;
		goto fail;
	}
	uint64_t pairs0 = fk_obuf_tell(w);
	for (size_t c = 0; c < h->ncells; c++) {
		if (c % h->rows == 0)
			secoff[c / h->rows] = (int64_t)(fk_obuf_tell(w) - pairs0);
		size_t a = h->pair_start[c], b = h->pair_start[c + 1];
		w_uv(w, b - a);
		uint32_t prev = 0;
		for (size_t j = a; j < b; j++) {
			w_uv(w, h->pair_leaf[j] - prev);
			w_num(w, &fl, h->pair_count[j]);
			prev = h->pair_leaf[j];
		}
	}
	secoff[h->nsecs] = (int64_t)(fk_obuf_tell(w) - pairs0);
	fk_obuf_puts(w, "\",\n\"secoff\":[");
	for (int64_t s = 0; s <= h->nsecs; s++)
		fk_obuf_printf(w, s ? (s % 32 ? ",%lld" : ",\n%lld") : "%lld", (long long)secoff[s]);
	free(secoff);
	fk_obuf_puts(w, "],\n\"hl\":[");
	for (size_t k = 0; k < h->nhl; k++) {
		fk_obuf_puts(w, k ? ",{\"comm\":" : "{\"comm\":");
		fk_obuf_js(w, h->hl_name[k], h->hl_len[k]);
		fk_obuf_puts(w, ",\"cells\":\"");
		size_t prev = 0;
		const double *hc = h->hl_cell + k * h->ncells;
		for (size_t c = 0; c < h->ncells; c++)
			if (hc[c] != 0) {
				w_uv(w, c - prev);
				w_num(w, &fl, hc[c]);
				prev = c;
			}
		fk_obuf_puts(w, "\"}");
	}
	fk_obuf_puts(w, "],\n\"floats\":[");
	fk_page_floats_json(w, &fl.t);
	fk_obuf_puts(w, "]}</script>\n<script>\n");
	fk_obuf_puts(w, fk_page_counts_js);
	fk_obuf_puts(w, fk_page_viewer_js);
	fk_obuf_puts(w, fk_page_heatmap_js);
	fk_obuf_puts(w, "</script>\n</body></html>\n");
	err = fk_obuf_finish(w);
	if (!err && fl.err)
		err = fl.err;
fail:
	fk_obuf_free(w);
	free(fl.t.v);
	return err;
}

int fk_render_heatmap(const fk_profile *p, const fk_heatmap_opts *user, FILE *out)
{
	struct hm h;
	fk_heatmap_opts o;
	fk_heatmap_opts_init(&o);
	if (user)
		FK_OPTS_ADOPT(o, user);
	int err = build(&h, p, user ? &o : NULL);
	if (err)
		return err;
	err = write_page(&h, out);
	hm_free(&h);
	return err;
}

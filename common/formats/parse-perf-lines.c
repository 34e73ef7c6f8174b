/* parse-perf-lines.c - the perf parser's per-line work: a region of `perf script` text is
 * cut into lines (vector scan), each frame line's key hashed ahead and its cache slot
 * prefetched, headers and frames handed to the rules and caches, samples closed at blank
 * lines. Also the state of one parsing thread (fk_perf_pp_init) and pread input. */
#include <errno.h>
#include <math.h>
#include <unistd.h>
#include "parse-perf.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Printable excerpt of an untrusted line for a message: control bytes and bytes that are
 * not valid UTF-8 become '?', cut at a character boundary. */
void fk_perf_excerpt(char *out, size_t size, const char *l, size_t len)
{
	const unsigned char *u = (const unsigned char *)l;
	size_t i = 0, o = 0;
	while (i < len && o + 4 + 3 < size) {
		uint32_t cp;
		size_t k = fk_utf8_next(u + i, len - i, &cp);
		if (k > 1) {
			memcpy(out + o, l + i, k);
			o += k;
		} else {
			/* one byte: ASCII, or not valid UTF-8 (then cp is U+FFFD) */
			out[o++] = (cp < 0x20 || cp == 0x7f || cp >= 0x80) ? '?' : (char)cp;
		}
		i += k;
	}
	if (i < len)
		memcpy(out + o, "...", 3), o += 3;
	out[o] = 0;
}

void fk_perf_bad(struct pp *t, const char *what, const char *l, size_t len)
{
	if (t->nwarns >= t->maxwarns) {
		t->unshown++;
		return;
	}
	struct warn *w = &t->warns[t->nwarns++];
	char ex[72];
	fk_perf_excerpt(ex, sizeof(ex), l, len);
	w->line = t->lineno;
	snprintf(w->msg, sizeof(w->msg), "%s: '%s'", what, ex);
}

static int push_frames(struct pp *t, const uint32_t *ids, uint32_t n)
{
	if (FK_UNLIKELY(t->fr_n + n > t->fr_cap) && FK_GROW(t->fr, t->fr_cap, t->fr_n + n))
		return -FK_E_NOMEM;
	uint32_t *d = t->fr + t->fr_n;
	for (uint32_t i = n; i-- > 0;)
		*d++ = ids[i];
	t->fr_n += n;
	return 0;
}

/* The end of a frame line's second key (see frame_key): the start of the module, which
 * begins at the last " (" before the last ')' (rp), as in fk_perf_match_frame, less the offset
 * after the function name, when the function text [k0, there) has no '['; else len (and
 * *ok false). Sets the key's flag bits. */
static inline size_t key_end(const struct pp *t, const char *l, size_t len, size_t k0, const char *rp,
			     unsigned *flags, bool *ok)
{
	for (const char *op = rp - 1; op > l + k0; op--) {
		if (*op != '(' || op[-1] != ' ')
			continue;
		size_t P = (size_t)(op - 1 - l);
		if (memchr(l + k0, '[', P - k0))
			break;
		const char *mod = op + 1;
		size_t mlen = (size_t)(rp - mod);
		*ok = true;
		*flags |= 4u | (unsigned)(t->kern && fk_perf_kernel_mod(mod, mlen)) << 3 |
			  (unsigned)(t->jitm && fk_perf_jit_mod(mod, mlen)) << 4;
		/* and without the "+0x..." offset, which tidying drops (fk_perf_strip_offset) */
		return k0 + fk_perf_strip_offset(l + k0, P - k0);
	}
	return len;
}

/* Fingerprint of a frame line's key, before the process-name dependent part (java).
 * The folded result depends on the bytes after the address, except when the address
 * itself can end up in the name (--addrs, --inline, or perl's regex backtracking into it
 * when " (" follows the address directly). */
/* modfree: key without the module (see below); false when that is not possible. */
static inline __attribute__((always_inline)) struct h128 frame_key(const struct pp *t, const char *l,
								  size_t len, bool modfree, bool *ok)
{
	size_t s = 0;
#if defined(__SSE2__)
	/* perf right-aligns addresses in a 16-column field: skip the blanks 16 at a time */
	while (s + 16 <= len) {
		__m128i v = _mm_loadu_si128((const __m128i *)(l + s));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')),
								     _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
		if (m != 0xffff) {
			s += (size_t)__builtin_ctz(~m);
			break;
		}
		s += 16;
	}
#endif
	while (s < len && IS_WS(l[s]))
		s++;
	size_t w = s;
#if defined(__SSE2__)
	/* the address: a run of \w bytes, 16 at a time (bytes >= 0x80 compare negative, so
	 * they fall outside every range, as in IS_W) */
	while (w + 16 <= len) {
		__m128i v = _mm_loadu_si128((const __m128i *)(l + w));
		__m128i lo = _mm_or_si128(v, _mm_set1_epi8(0x20));
		__m128i dig = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
					    _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
		__m128i alp = _mm_and_si128(_mm_cmpgt_epi8(lo, _mm_set1_epi8('a' - 1)),
					    _mm_cmplt_epi8(lo, _mm_set1_epi8('z' + 1)));
		__m128i und = _mm_cmpeq_epi8(v, _mm_set1_epi8('_'));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(dig, alp), und));
		if (m != 0xffff) {
			w += (size_t)__builtin_ctz(~m);
			break;
		}
		w += 16;
	}
#endif
	while (w < len && IS_W(l[w]))
		w++;
	bool whole = t->pc_key || (w + 1 < len && l[w] == ' ' && l[w + 1] == '(');
	size_t k0 = whole ? s : w, kend = len;
	unsigned flags = (unsigned)(w > s) | (unsigned)whole << 1;
	/* The module only matters through "[unknown]" names and the --kernel/--jit tests: when
	 * the function text has no '[', a second key is the function text plus those two
	 * answers, so the same JIT symbol in a thousand /tmp/perf-PID.map files is tidied once.
	 * The module starts at the last " (" before the last ')', as in match_frame. */
	*ok = !modfree;
	const char *rp = !modfree || t->pc_key ? NULL : memrchr(l + k0, ')', len - k0);
	if (rp)
		kend = key_end(t, l, len, k0, rp, &flags, ok);
	return hash128(l + k0, kend - k0, HK1 * (flags + 1));
}

static inline __attribute__((always_inline)) struct h128 frame_hash(const struct pp *t, const char *l,
								   size_t len)
{
	bool ok = false;
	/* JIT code: the same symbol in the /tmp/perf-PID.map of many processes folds the same
	 * way, so those lines are keyed by their function text and class alone (frame_key's
	 * second key; the whole line when that is not possible). */
	bool jit = len > 5 && !memcmp(l + len - 5, ".map)", 5) && !t->pc_key;
#if defined(__SSE2__)
	/* perf's own layout: a tab, the address right-aligned in 16 columns, a blank. Checked
	 * in one vector compare; the key is the one frame_key computes for such a line. */
	if (FK_LIKELY(len >= 19 && l[0] == '\t' && l[17] == ' ')) {
		__m128i v = _mm_loadu_si128((const __m128i *)(l + 1));
		__m128i lo = _mm_or_si128(v, _mm_set1_epi8(0x20));
		__m128i dig = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)),
					    _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
		__m128i hex = _mm_and_si128(_mm_cmpgt_epi8(lo, _mm_set1_epi8('a' - 1)),
					    _mm_cmplt_epi8(lo, _mm_set1_epi8('f' + 1)));
		unsigned sp = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
		unsigned hx = (unsigned)_mm_movemask_epi8(_mm_or_si128(dig, hex));
		if ((sp | hx) == 0xffff && !(sp & (sp + 1)) && hx) {
			bool whole = t->pc_key || l[18] == '(';
			size_t k0 = whole ? 1 + (size_t)__builtin_popcount(sp) : 17, kend = len;
			unsigned flags = 1u | (unsigned)whole << 1;
			if (jit)
				kend = key_end(t, l, len, k0, l + len - 1, &flags, &ok);
			return hash128(l + k0, kend - k0, HK1 * (flags + 1));
		}
	}
#endif
	return frame_key(t, l, len, jit, &ok);
}

struct h128 fk_perf_frame_key_modfree(const struct pp *t, const char *l, size_t len, bool *ok)
{
	return frame_key(t, l, len, true, ok);
}

static bool header_with_frame(struct pp *t, const char *l, size_t len);

static void frame_line_h(struct pp *t, const char *l, size_t len, struct h128 h)
{
	if (!t->have_pname) {
		if (t->in_filtered)
			return; /* a frame of a sample whose event is filtered out */
		size_t ws = 0;
		while (ws < len && IS_WS(l[ws]))
			ws++;
		if (header_with_frame(t, l + ws, len - ws))
			return;
		struct frm f;
		if (t->at_start && t->lineno == 1 && !t->in_orphans) {
			/* text cut at its start (tail -c): the rest of a line, then the rest of a
			 * sample whose header is gone. Skipped and counted as malformed: its
			 * stack is incomplete (docs/perf-script.md) */
			t->in_orphans = true;
			fk_perf_bad(t, "the input starts inside a sample (cut at its start?); its lines "
				    "up to the first sample header are skipped", l, len);
		} else if (!fk_perf_match_frame(l, len, &f)) {
			fk_perf_bad(t, "unrecognized line", l, len);
		} else if (!t->in_orphans) {
			/* the perl skips it silently; data is lost, so say where (once a run) */
			t->in_orphans = true;
			fk_perf_bad(t, "frame line with no sample header before it (skipped, and the frame lines after it)",
				    l, len);
		}
		return;
	}
	if (t->java) /* java names are tidied differently: another entry, same slot run */
		h.b ^= JAVA_MARK;
	const uint32_t *ids;
	uint32_t n;
	int rc = fk_perf_cache_lookup(t, &t->fc, h, &ids, &n, false, l, len);
	if (rc < 0) {
		fk_perf_set_err(t, rc);
		return;
	}
	if (n == NRES_BAD) {
		fk_perf_bad(t, "unrecognized line", l, len);
		return;
	}
	if (n && (rc = push_frames(t, ids, n)))
		fk_perf_set_err(t, rc);
}

/* The common case inline: a cached line of one frame, room for it in fr. */
static inline __attribute__((always_inline)) void frame_line_fast(struct pp *t, const char *l,
								  size_t len, struct h128 h)
{
	if (FK_LIKELY(t->have_pname)) {
		uint64_t ha = h.a | 1ull << 63;
		uint32_t chk = (uint32_t)(t->java ? h.b ^ JAVA_MARK : h.b);
		const struct fent *tab = t->fc.t;
		for (size_t i = ha & t->fc.mask;; i = (i + 1) & t->fc.mask) {
			const struct fent *e = &tab[i];
			if (e->hash == ha && e->check == chk) {
				if (FK_LIKELY(e->res < RES_MULTI && t->fr_n < t->fr_cap)) {
					t->fr[t->fr_n++] = e->res;
					return;
				}
				break;
			}
			if (!e->hash)
				break;
		}
	}
	frame_line_h(t, l, len, h);
}

static void frame_line(struct pp *t, const char *l, size_t len)
{
	frame_line_h(t, l, len, frame_hash(t, l, len));
}

/* The stack that end_sample left for later, so its table slot could be fetched meanwhile.
 * Done before anything looks at the stacks or the counts (parse_region ends with it). */
static inline void finish_pending(struct pp *t)
{
	if (t->pend) {
		t->pend = false;
		fk_perf_stack_add(t, t->pkey, t->pend_n, t->pend_h, t->pend_w);
	}
}

static void end_sample(struct pp *t)
{
	if (!t->have_pname)
		return;
	const uint32_t *pn = t->pn_n == 1 ? &t->pn_res : t->rids + t->pn_res;
	uint32_t npn = t->o->no_comm ? 0 : t->pn_n;
	t->have_pname = false;
	size_t nfr = t->fr_n, n = nfr + npn;
	t->fr_n = 0;
	if (n == 0)
		return;
	if (FK_GROW(t->key, t->key_cap, n))
		return fk_perf_set_err(t, -FK_E_NOMEM);
	uint32_t *k = t->key;
	memcpy(k, pn, npn * sizeof(uint32_t));
	for (size_t j = 0; j < nfr; j++)
		k[npn + j] = t->fr[nfr - 1 - j];
	struct h128 hh = hash128((const char *)k, n * sizeof(uint32_t), HK2);
	if (t->offcpu > 0) { /* a switch-out: weighed when its thread is switched in */
		int rc = t->wk_tid ? fk_perf_offcpu_waker(t, k, n) : fk_perf_offcpu_block(t, k, n, hh);
		return rc < 0 ? fk_perf_set_err(t, rc) : (void)0;
	}
	if (t->keep_samples) /* the sample record reads this header's fields: no deferring */
		return fk_perf_stack_add(t, k, n, hh, t->weight);
	/* The unique-stack table is far bigger than the cache: prefetch this stack's slot and
	 * add it when the next sample ends, one sample's lines later. */
	finish_pending(t);
	__builtin_prefetch(&t->st[(hh.a | 1ull << 63) & t->st_mask]);
	uint32_t *sw = t->pkey;
	size_t sc = t->pkey_cap;
	t->pkey = t->key;
	t->pkey_cap = t->key_cap;
	t->key = sw;
	t->key_cap = sc;
	t->pend = true;
	t->pend_n = n;
	t->pend_h = hh;
	t->pend_w = t->weight;
}

static double digits_value(const char *s, size_t n)
{
	double v = 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

static void parse_info(struct pp *t, const char *l, size_t len, const struct hdr *h)
{
	fk_sample_info *in = &t->info;
	in->time = NAN;
	in->cpu = -1;
	bool has_b = h->b1 > h->b0;
	/* a pid/tid beyond int32 (corrupt input) is unknown, not undefined behaviour */
	double pv = has_b ? digits_value(l + h->a0, h->a1 - h->a0) : -1;
	double tv = digits_value(l + (has_b ? h->b0 : h->a0), has_b ? h->b1 - h->b0 : h->a1 - h->a0);
	in->pid = pv >= 0 && pv <= INT32_MAX ? (int32_t)pv : -1;
	in->tid = tv >= 0 && tv <= INT32_MAX ? (int32_t)tv : -1;
	if (!has_b && in->tid == 0)
		in->pid = 0; /* "swapper 0" is the idle task */
	if (fk_perf_grow_bytes(&t->comm, &t->comm_cap, h->comm_len + 1) == 0) {
		memcpy(t->comm, l, h->comm_len);
		in->comm = t->comm;
		in->comm_len = h->comm_len;
	} else {
		in->comm = NULL;
		in->comm_len = 0;
	}
	/* then optional "[CPU]" and "SECONDS.FRACTION:" */
	size_t i = h->end;
	while (i < len) {
		while (i < len && IS_WS(l[i]))
			i++;
		size_t s = i;
		while (i < len && !IS_WS(l[i]))
			i++;
		if (i - s >= 3 && l[s] == '[' && l[i - 1] == ']') {
			size_t k = s + 1;
			while (k < i - 1 && IS_D(l[k]))
				k++;
			double cv = digits_value(l + s + 1, k - s - 1);
			if (k == i - 1 && cv <= INT32_MAX)
				in->cpu = (int32_t)cv;
			continue;
		}
		size_t k = s;
		while (k < i && IS_D(l[k]))
			k++;
		if (k > s && k < i && l[k] == '.' && l[i - 1] == ':') {
			size_t f0 = k + 1, f = f0;
			while (f < i - 1 && IS_D(l[f]))
				f++;
			if (f == i - 1) {
				in->time = digits_value(l + s, k - s) +
					   digits_value(l + f0, f - f0) / pow(10, (double)(f - f0));
			}
		}
		break;
	}
}

/* --event-filter cpu-clock keeps cpu-clock:ppp (the event with perf's modifier letters) */
static bool event_modifiers(const struct evfilter *ev, const char *e, size_t el)
{
	if (ev->defaulted || el <= ev->len + 1 || e[ev->len] != ':' || memcmp(e, ev->name, ev->len))
		return false;
	for (size_t i = ev->len + 1; i < el; i++)
		if (!e[i] || !strchr("ukhIGHpPSDWebx", e[i]))
			return false;
	return true;
}

/* --weight FIELD: "comm PID [CPU] TIME: [PERIOD] SYS:EVENT: payload". The event is the
 * first word after the header that ends in ':' and holds a letter; the first such event
 * (or --event-filter's) is weighed, others filtered. 1 = weighed (t->weight set), 0 = not
 * folded (another event, a negative value, no value), negative = error (said). */
static int weight_header(struct pp *t, const char *l, size_t len, const struct hdr *h)
{
	size_t i = h->end, e0 = 0, e1 = 0;
	while (i < len) {
		while (i < len && IS_WS(l[i]))
			i++;
		size_t s = i;
		bool letter = false;
		while (i < len && !IS_WS(l[i])) {
			letter |= (l[i] | 32) >= 'a' && (l[i] | 32) <= 'z';
			i++;
		}
		if (i > s + 1 && l[i - 1] == ':' && letter && l[s] != '[') {
			e0 = s;
			e1 = i - 1;
			break;
		}
	}
	if (e1 <= e0)
		return 0;
	struct evfilter *ev = &t->ev;
	size_t el = e1 - e0;
	if (!ev->set) {
		if (el >= sizeof(ev->name))
			return 0;
		ev->set = ev->defaulted = true;
		memcpy(ev->name, l + e0, el);
		ev->len = el;
	} else if (el != ev->len || memcmp(l + e0, ev->name, el)) {
		return 0;
	}
	if (!t->wtp) {
		char name[sizeof(ev->name) + 1], err[512];
		memcpy(name, ev->name, ev->len);
		name[ev->len] = 0;
		t->wtp = fk_tp_format_load(name, t->o->weight_format, err, sizeof(err));
		if (!t->wtp) {
			fk_warn("%s: --weight %s: %s", t->o->name ? t->o->name : "perf script",
				t->o->weight, err);
			fk_perf_set_err(t, -FK_E_INVAL);
			return -1;
		}
		t->wfield = fk_tp_format_field(t->wtp, t->o->weight);
		if (t->wfield < 0) {
			char fields[1024];
			fk_tp_format_fields(t->wtp, fields, sizeof(fields));
			fk_warn("%s: --weight %s: event %s has no numeric field %s; its fields: %s",
				t->o->name ? t->o->name : "perf script", t->o->weight, name,
				t->o->weight, fields);
			fk_perf_set_err(t, -FK_E_INVAL);
			return -1;
		}
	}
	int64_t v;
	size_t p0 = e1 + 1;
	if (fk_tp_format_text(t->wtp, t->wfield, l + p0, len - p0, &v))
		return 0;
	if (v < 0) {
		t->wneg++;
		return 0;
	}
	if (v == 0)
		return 0;
	t->weight = (double)v;
	t->weighted = true;
	return 1;
}

static void header_line(struct pp *t, const char *l, size_t len)
{
	struct hdr h;
	if (!fk_perf_match_header(l, len, &h)) {
		if (t->offcpu > 0 && fk_perf_offcpu_unnamed(t, l, len)) {
			t->filtered++;
			t->in_filtered = true; /* its frame lines too */
			return;
		}
		/* perl then tries the frame regex on it */
		frame_line(t, l, len);
		return;
	}
	size_t e0, e1, d0, d1;
	double period = 1;
	struct fk_perf_switch sw;
	bool is_sw = false;
	if (t->o->weight) {
		int k = weight_header(t, l, len, &h);
		t->in_orphans = false;
		if (k <= 0) {
			t->filtered++;
			t->in_filtered = true;
			return;
		}
		t->in_filtered = false;
		goto pname;
	}
	bool ev_ok = fk_perf_match_event(l, len, &e0, &e1, &d0, &d1);
	is_sw = !ev_ok && t->offcpu >= 0 && fk_perf_switch_fields(l + h.end, len - h.end, &sw);
	int32_t wakee = 0;
	bool waking = false;
	bool is_wk = !ev_ok && !is_sw && t->o->offwake && t->offcpu > 0 &&
		     fk_perf_wakeup_fields(l + h.end, len - h.end, &wakee, &waking);
	t->wk_tid = wakee;
	t->wk_waking = waking;
	if (!ev_ok && !is_sw && header_with_frame(t, l, len))
		return;
	t->in_orphans = t->in_filtered = false;
	if (t->offcpu == 0 && (ev_ok || is_sw)) {
		/* the first event decides, as it picks the filter: a sched_switch recording
		 * folds into off-CPU time */
		t->offcpu = is_sw && !t->ev.set ? 1 : -1;
		if (t->offcpu > 0) {
			memcpy(t->ev.name, "sched:sched_switch", 18);
			t->ev.len = 18;
			t->ev.set = t->ev.defaulted = true;
		}
	}
	if (t->offcpu > 0 && !ev_ok && !is_sw && !is_wk) {
		/* another tracepoint (its payload follows the event name): not folded */
		t->filtered++;
		t->in_filtered = true;
		return;
	}
	if (ev_ok) {
		size_t el = e1 - e0;
		struct evfilter *ev = &t->ev;
		if (!ev->set) {
			ev->set = ev->defaulted = true;
			if (el > sizeof(ev->name)) { /* absurd event name: compare by a prefix */
				el = sizeof(ev->name);
				ev->too_long = true;
			}
			memcpy(ev->name, l + e0, el);
			ev->len = el;
		} else if ((el != ev->len || memcmp(l + e0, ev->name, el)) && !event_modifiers(ev, l + e0, el)) {
			if (!(ev->too_long && el > ev->len && !memcmp(l + e0, ev->name, ev->len))) {
				t->filtered++;
				t->in_filtered = true;
				if (!t->skipped) {
					t->skipped = true;
					t->skip_line = t->lineno;
					fk_perf_excerpt(t->skip_ev, sizeof(t->skip_ev), l + e0, el);
				}
				return;
			}
		}
		if (d1 > d0 && !(d1 - d0 == 1 && l[d0] == '0'))
			period = digits_value(l + d0, d1 - d0);
	}
	t->weight = t->o->samples ? 1 : period;
	if (period != 1)
		t->weighted = true;

pname:	/* $pname */
	size_t need = h.comm_len + (h.a1 - h.a0) + (h.b1 - h.b0) + 4;
	if (fk_perf_grow_bytes(&t->kbuf, &t->kbuf_cap, need))
		return fk_perf_set_err(t, -FK_E_NOMEM);
	char *k = t->kbuf;
	size_t n = fk_perf_pname(k, l, &h, t->o);
	const uint32_t *ids;
	uint32_t nres;
	int rc = fk_perf_cache_lookup(t, &t->pc, hash128(k, n, HK2), &ids, &nres, true, k, n);
	if (rc < 0)
		return fk_perf_set_err(t, rc);
	if (nres == 1) {
		t->pn_res = ids[0];
	} else {
		/* several frames (';' in the name): they live in rids once cached */
		if (ids == t->tmp) {
			if (FK_GROW(t->rids, t->rids_cap, t->rids_len + nres))
				return fk_perf_set_err(t, -FK_E_NOMEM);
			memcpy(t->rids + t->rids_len, ids, nres * sizeof(uint32_t));
			ids = t->rids + t->rids_len;
			t->rids_len += nres;
		}
		t->pn_res = (uint32_t)(ids - t->rids);
	}
	t->pn_n = nres;
	t->java = n >= 4 && !memcmp(k, "java", 4);
	t->have_pname = true;
	if (t->keep_samples || is_sw)
		parse_info(t, l, len, &h);
	if (is_sw && (rc = fk_perf_offcpu_switch(t, &sw)) < 0)
		fk_perf_set_err(t, rc);
}
/* Header lines that are not the start of a sample, l from the comm on; true when l was one.
 * perf script of a recording without callchains (no -g) prints one line per sample, its
 * header and its one frame together: "comm PID [CPU] TIME: PERIOD EVENT: ADDR SYM (DSO)",
 * the comm right-aligned, no blank lines. The perl skips those lines; this, as inferno
 * does, folds each as a sample of that one frame. perf script --show-task-events,
 * --show-mmap-events (...) print "comm PID TIME: PERF_RECORD_COMM ..." lines between the
 * samples, which belong to none. */
static bool header_with_frame(struct pp *t, const char *l, size_t len)
{
	struct hdr h;
	if (!fk_perf_match_header(l, len, &h))
		return false;
	if (memmem(l + h.end, len - h.end, "PERF_RECORD_", 12))
		return true;
	/* the event: the first word ending in ':' that ends a header; then a hex address */
	for (size_t i = h.end; i < len;) {
		while (i < len && IS_WS(l[i]))
			i++;
		while (i < len && !IS_WS(l[i]))
			i++;
		size_t e0, e1, d0, d1;
		if (i == len || l[i - 1] != ':' || !fk_perf_match_event(l, i, &e0, &e1, &d0, &d1))
			continue;
		size_t a0 = i, a;
		while (a0 < len && IS_WS(l[a0]))
			a0++;
		for (a = a0; a < len && ((l[a] >= '0' && l[a] <= '9') || ((l[a] | 0x20) >= 'a' && (l[a] | 0x20) <= 'f'));)
			a++;
		struct frm f;
		if (a == a0 || a == len || !IS_WS(l[a]) || !fk_perf_match_frame(l + i, len - i, &f))
			return false;
		end_sample(t); /* one left open (no blank line after it) */
		header_line(t, l, i);
		if (t->have_pname) {
			frame_line(t, l + i, len - i);
			end_sample(t);
		}
		t->in_filtered = false; /* the sample is complete either way */
		return true;
	}
	return false;
}

void fk_perf_end_input(struct pp *t)
{
	end_sample(t);
	finish_pending(t);
}

#define CHUNK (64u << 10)
#define AHEAD 16 /* lines hashed ahead (a power of two, the size of hv) */
_Static_assert(AHEAD == sizeof(((struct pp *)0)->hv) / sizeof(struct h128), "hv holds AHEAD lines");

static inline void one_line(struct pp *t, const char *l, size_t len)
{
	char c = len ? l[0] : 0;
	if (c == '\t' || c == ' ')
		frame_line(t, l, len);
	else if (len == 0) {
		t->in_orphans = t->in_filtered = false;
		end_sample(t);
	}
	else if (c != '#')
		header_line(t, l, len);
}

/* Parse the lines of [buf, buf+len); the last one may lack its '\n'. Line numbers in
 * messages count from the region start (fixed up by the caller). */
void fk_perf_parse_region(struct pp *t, const char *buf, size_t len, const fk_parse_opts *o,
			 bool progress)
{
	const char *p = buf, *end = buf + len;
	uint64_t next_prog = 64ull << 20;
	while (p < end && !t->err) {
		size_t n = (size_t)(end - p) < CHUNK ? (size_t)(end - p) : CHUNK;
		bool nul = false;
		size_t cnt = t->scan(p, n, t->ends, &nul);
		const char *ls = p;
		if (nul && !t->saw_nul) {
			const char *z = memchr(p, 0, n);
			size_t k = 0;
			while (k < cnt && p + t->ends[k] < z)
				k++;
			t->saw_nul = true;
			t->nul_line = t->lineno + k + 1;
		}
		/* Each frame line's fingerprint is computed AHEAD lines before the line is
		 * handled, and its cache slot prefetched then: the table misses overlap with the
		 * work of the lines in between (a burst of prefetches would stall on the CPU's
		 * few miss buffers). */
		const char *la = ls;
		size_t ia = 0;
		for (size_t i = 0; i < cnt; i++) {
			for (size_t stop = i + AHEAD < cnt ? i + AHEAD : cnt; ia < stop; ia++) {
				const char *le = p + t->ends[ia];
				size_t ll = (size_t)(le - la);
				if (ll && (la[0] == '\t' || la[0] == ' ')) {
					struct h128 h = frame_hash(t, la, ll);
					t->hv[ia % AHEAD] = h;
					__builtin_prefetch(&t->fc.t[h.a & t->fc.mask]);
				}
				la = le + 1;
			}
			const char *le = p + t->ends[i];
			size_t ll = (size_t)(le - ls);
			t->lineno++;
			if (ll && (ls[0] == '\t' || ls[0] == ' '))
				frame_line_fast(t, ls, ll, t->hv[i % AHEAD]);
			else
				one_line(t, ls, ll);
			ls = le + 1;
		}
		if (cnt == 0 && n == CHUNK) {
			/* a line longer than a chunk */
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *le = nl ? nl : end;
			t->lineno++;
			if ((size_t)(le - p) > FK_MAX_LINE)
				fk_perf_bad(t, "line longer than 16 MiB skipped", p, 60);
			else
				one_line(t, p, (size_t)(le - p));
			ls = nl ? nl + 1 : end;
		} else if (n < CHUNK && ls < end) {
			/* the last line of the region has no '\n' */
			t->lineno++;
			one_line(t, ls, (size_t)(end - ls));
			ls = end;
		}
		p = ls;
		if (progress && o->progress && (uint64_t)(p - buf) >= next_prog) {
			o->progress((uint64_t)(p - buf), o->progress_ctx);
			next_prog += 64ull << 20;
		}
	}
	finish_pending(t);
	t->at_start = false;
}

int fk_perf_pp_init(struct pp *t, fk_profile *p, const fk_parse_opts *o, fk_perf_scan_fn scan)
{
	memset(t, 0, sizeof(*t));
	t->p = p;
	t->o = o;
	t->scan = scan;
	t->keep_samples = (fk_profile_flags(p) & FK_PROFILE_SAMPLES) != 0;
	t->pc_key = o->addrs || o->inline_frames;
	t->kern = o->kernel || o->all;
	t->jitm = o->jit || o->all;
	t->maxwarns = o->max_warnings ? o->max_warnings : 5;
	if (o->event_filter && *o->event_filter) {
		size_t el = strlen(o->event_filter);
		t->offcpu = !strcmp(o->event_filter, "sched:sched_switch") || o->offwake ? 1 : -1;
		if (el > sizeof(t->ev.name))
			el = sizeof(t->ev.name), t->ev.too_long = true;
		memcpy(t->ev.name, o->event_filter, el);
		t->ev.len = el;
		t->ev.set = true;
	}
	if (o->offwake && !t->ev.set) {
		/* sched_switch and sched_waking/wakeup samples pair across the whole input */
		t->offcpu = 1;
		memcpy(t->ev.name, "sched:sched_switch", 18);
		t->ev.len = 18;
		t->ev.set = t->ev.defaulted = true;
	}
	if (o->inline_frames) {
		t->inl = o->inline_fn;
		t->inl_ctx = o->inline_ctx;
		if (!t->inl) {
			if (!(t->a2l = fk_addr2line_new()))
				return -FK_E_NOMEM;
			t->inl = fk_addr2line_inline;
			t->inl_ctx = t->a2l;
		}
	}
	t->warns = calloc(t->maxwarns + 1, sizeof(*t->warns));
	t->ends = malloc((CHUNK + FK_PERF_SCAN_SLACK) * sizeof(uint32_t));
	if (!t->warns || !t->ends || fk_perf_tables_init(t))
		return -FK_E_NOMEM;
	return 0;
}

void fk_perf_pp_fini(struct pp *t)
{
	fk_tp_format_free(t->wtp);
	fk_perf_offcpu_free(t);
	fk_perf_tables_fini(t);
	free(t->rids);
	free(t->sids);
	free(t->sw);
	free(t->soff);
	free(t->slen);
	free(t->sord);
	free(t->leaf);
	free(t->spath);
	free(t->ps);
	free(t->key);
	free(t->pkey);
	free(t->comm);
	free(t->fr);
	free(t->tmp);
	free(t->sbuf);
	free(t->kbuf);
	free(t->ends);
	free(t->ibuf);
	free(t->warns);
	fk_addr2line_free(t->a2l);
}

#define IBUF (256u << 10) /* file input block: small enough to leave L2 to the tables */

/* Parse [off, end) of a regular file with pread into this thread's buffer. */
void fk_perf_parse_fd_region(struct pp *t, int fd, uint64_t off, uint64_t end, fk_span *span,
			    const fk_parse_opts *o, bool progress)
{
	size_t have = 0;
	bool skipping = false;
	uint64_t start = off, next_prog = 64ull << 20;
	if (!t->ibuf) {
		if (!(t->ibuf = malloc(IBUF)))
			return fk_perf_set_err(t, -FK_E_NOMEM);
		t->icap = IBUF;
	}
	while (!t->err) {
		if (span) {
			pthread_mutex_lock(&span->mu);
			end = span->end;
		}
		size_t want = t->icap - have;
		if (want > end - off)
			want = (size_t)(end - off);
		if (span) {
			span->claimed = off + want;
			pthread_mutex_unlock(&span->mu);
		}
		ssize_t k = want ? pread(fd, t->ibuf + have, want, (off_t)off) : 0;
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return fk_perf_set_err(t, -errno);
		}
		off += (uint64_t)k;
		size_t n = have + (size_t)k;
		bool last = off >= end || k == 0;
		char *b = t->ibuf;
		if (skipping) {
			char *nl = memchr(b, '\n', n);
			if (!nl) {
				have = 0;
				if (last)
					break;
				continue;
			}
			skipping = false;
			n -= (size_t)(nl + 1 - b);
			memmove(b, nl + 1, n);
		}
		if (last) {
			fk_perf_parse_region(t, b, n, o, false);
			break;
		}
		char *nl = memrchr(b, '\n', n);
		if (!nl) {
			if (t->icap > FK_MAX_LINE) {
				t->lineno++;
				fk_perf_bad(t, "line longer than 16 MiB skipped", b, 60);
				skipping = true;
				have = 0;
				continue;
			}
			char *nb = realloc(t->ibuf, t->icap * 2);
			if (!nb)
				return fk_perf_set_err(t, -FK_E_NOMEM);
			t->ibuf = nb;
			t->icap *= 2;
			have = n;
			continue;
		}
		size_t used = (size_t)(nl + 1 - b);
		fk_perf_parse_region(t, b, used, o, false);
		have = n - used;
		memmove(b, b + used, have);
		if (progress && o->progress && off - start >= next_prog) {
			o->progress(off - start, o->progress_ctx);
			next_prog += 64ull << 20;
		}
	}
}


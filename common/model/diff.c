/* diff.c - differential profiles (difffolded.pl semantics): the stacks of two
 * profiles side by side in two columns, optionally normalised and with hex
 * addresses blanked so two runs of the same program line up. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "internal.h"

typedef struct diff_ctx {
	fk_profile *dst;
	bool strip_hex;
	char *buf;
	size_t cap;
	uint32_t *ids;
	size_t ids_cap;
} diff_ctx;

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

size_t fk_strip_hex(const char *s, size_t n, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		if (s[i] == '0' && i + 2 < n && s[i + 1] == 'x' && is_hex(s[i + 2])) {
			memcpy(out + o, "0x...", 5);
			o += 5;
			i += 2;
			while (i < n && is_hex(s[i]))
				i++;
		} else {
			out[o++] = s[i++];
		}
	}
	return o;
}

/* s/0x[0-9a-fA-F]+/0x.../g into d->buf; returns the new length. */
static int strip_hex(diff_ctx *d, const char *s, size_t n, size_t *out)
{
	if (FK_GROW(d->buf, d->cap, n * 2 + 8))
		return -FK_E_NOMEM;
	*out = fk_strip_hex(s, n, d->buf);
	return 0;
}

struct side {
	diff_ctx *d;
	const fk_profile *src;
	uint32_t *map;      /* src id -> dst id + 1 */
	unsigned col;
};

static int add_stack(void *vctx, const uint32_t *ids, size_t n, const double self[2])
{
	struct side *sd = vctx;
	diff_ctx *d = sd->d;
	if (self[0] == 0)
		return 0;
	if (FK_GROW(d->ids, d->ids_cap, n + 1))
		return -FK_E_NOMEM;
	for (size_t k = 0; k < n; k++) {
		uint32_t id = ids[k];
		if (!sd->map[id]) {
			size_t len;
			const char *s = fk_profile_name(sd->src, id, &len);
			int rc;
			if (d->strip_hex && memmem(s, len, "0x", 2)) {
				if ((rc = strip_hex(d, s, len, &len)))
					return rc;
				s = d->buf;
			}
			int64_t nid = fk_profile_intern(d->dst, s, len);
			if (nid < 0)
				return (int)nid;
			sd->map[id] = (uint32_t)nid + 1;
		}
		d->ids[k] = sd->map[id] - 1;
	}
	return fk_profile_add_seq(d->dst, d->ids, n, sd->col, self[0]);
}

/* Copy column 0 of src's stacks into column col of d->dst. */
static int add_side(diff_ctx *d, const fk_profile *src, unsigned col)
{
	size_t names = fk_profile_name_count(src);
	struct side sd = { d, src, calloc(names ? names : 1, sizeof(uint32_t)), col };
	if (!sd.map)
		return -FK_E_NOMEM;
	int rc = fk_profile_each_stack(src, add_stack, &sd);
	free(sd.map);
	return rc;
}

double fk_diff_normalized(double v, double t1, double t2)
{
	/* difffolded.pl: int($count1 * $total2 / $total1) */
	return t1 > 0 && t1 != t2 ? trunc(v * t2 / t1) : v;
}

static double scale_trunc(double v, void *ctx)
{
	const double *t = ctx;
	return fk_diff_normalized(v, t[0], t[1]);
}

fk_profile *fk_profile_diff(const fk_profile *a, const fk_profile *b, bool normalize,
			    bool strip)
{
	if (!a || !b) {
		errno = EINVAL;
		return NULL;
	}
	diff_ctx d = { .strip_hex = strip };
	d.dst = fk_profile_new(0);
	if (!d.dst)
		return NULL;
	int rc = add_side(&d, a, 0);
	if (!rc)
		rc = add_side(&d, b, 1);
	if (!rc && normalize) {
		double t1 = fk_profile_total(a, 0), t2 = fk_profile_total(b, 0);
		if (t1 > 0 && t1 != t2) {
			double t[2] = { t1, t2 };
			fk_profile_map_counts(d.dst, 0, scale_trunc, t);
		}
	}
	free(d.buf);
	free(d.ids);
	if (rc) {
		fk_profile_free(d.dst);
		errno = rc == -FK_E_NOMEM ? ENOMEM : -rc;
		return NULL;
	}
	/* a side that only had zero-count stacks still makes a two-column profile */
	fk_profile_two_columns(d.dst);
	return d.dst;
}

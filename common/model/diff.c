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

/* s/0x[0-9a-fA-F]+/0x.../g into d->buf; returns the new length. */
static int strip_hex(diff_ctx *d, const char *s, size_t n, size_t *out)
{
	if (FK_GROW(d->buf, d->cap, n * 2 + 8))
		return -FK_E_NOMEM;
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		if (s[i] == '0' && i + 2 < n && s[i + 1] == 'x' && is_hex(s[i + 2])) {
			memcpy(d->buf + o, "0x...", 5);
			o += 5;
			i += 2;
			while (i < n && is_hex(s[i]))
				i++;
		} else {
			d->buf[o++] = s[i++];
		}
	}
	*out = o;
	return 0;
}

/* Copy column 0 of src's stacks into column col of d->dst. */
static int add_side(diff_ctx *d, const fk_profile *src, unsigned col)
{
	size_t nn, names = fk_profile_name_count(src);
	const fk_node *nodes = fk_profile_nodes(src, &nn);
	uint32_t *map = calloc(names ? names : 1, sizeof(*map)); /* src id -> dst id + 1 */
	uint32_t *path = NULL;
	size_t pcap = 0;
	int rc = 0;
	if (!map)
		return -FK_E_NOMEM;
	for (size_t i = 0; i < nn && !rc; i++) {
		if (nodes[i].self[0] == 0)
			continue;
		size_t n;
		if ((rc = fk_profile_path_ids(src, (uint32_t)i, &path, &pcap, &n)))
			break;
		if (FK_GROW(d->ids, d->ids_cap, n + 1)) {
			rc = -FK_E_NOMEM;
			break;
		}
		for (size_t k = 0; k < n && !rc; k++) {
			uint32_t id = path[k];
			if (!map[id]) {
				size_t len;
				const char *s = fk_profile_name(src, id, &len);
				if (d->strip_hex && memmem(s, len, "0x", 2)) {
					if ((rc = strip_hex(d, s, len, &len)))
						break;
					s = d->buf;
				}
				int64_t nid = fk_profile_intern(d->dst, s, len);
				if (nid < 0) {
					rc = (int)nid;
					break;
				}
				map[id] = (uint32_t)nid + 1;
			}
			d->ids[k] = map[id] - 1;
		}
		if (rc)
			break;
		int64_t r = fk_profile_add_stack(d->dst, d->ids, n, col, nodes[i].self[0]);
		if (r < 0)
			rc = (int)r;
	}
	free(map);
	free(path);
	return rc;
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
			size_t nn;
			const fk_node *nodes = fk_profile_nodes(d.dst, &nn);
			for (size_t i = 0; i < nn && !rc; i++) {
				double v = nodes[i].self[0];
				if (v == 0)
					continue;
				/* difffolded.pl: int($count1 * $total2 / $total1) */
				double scaled = trunc(v * t2 / t1);
				rc = fk_profile_add_to_node(d.dst, (uint32_t)i, 0, scaled - v, NULL);
				nodes = fk_profile_nodes(d.dst, &nn);
			}
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
	if (fk_profile_columns(d.dst) < 2)
		fk_profile_add_to_node(d.dst, 0, 1, 0, NULL);
	return d.dst;
}

/* pbwire.h - the protocol buffers wire format (varints, tags, length-delimited fields): the
 * few primitives the pprof writer and reader need, written against the published encoding
 * spec (developers.google.com/protocol-buffers/docs/encoding). */
#ifndef FK_PBWIRE_H
#define FK_PBWIRE_H

#include <stdlib.h>
#include "internal.h"

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

/* A growable output buffer; err is sticky (-FK_E_NOMEM), checked once at the end. */
typedef struct pb_buf {
	uint8_t *b;
	size_t n, cap;
	int err;
} pb_buf;

static inline bool pb_room(pb_buf *o, size_t more)
{
	if (FK_LIKELY(o->cap - o->n >= more))
		return true;
	if (o->err || FK_GROW(o->b, o->cap, o->n + more)) {
		o->err = -FK_E_NOMEM;
		return false;
	}
	return true;
}

static inline size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Caller made room for 10 bytes. */
static inline void pb_put_varint_unchecked(pb_buf *o, uint64_t v)
{
	uint8_t *p = o->b + o->n;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	o->n = (size_t)(p - o->b);
}

static inline void pb_varint(pb_buf *o, uint64_t v)
{
	if (pb_room(o, 10))
		pb_put_varint_unchecked(o, v);
}

static inline void pb_tag(pb_buf *o, unsigned field, unsigned wire)
{
	pb_varint(o, (uint64_t)field << 3 | wire);
}

/* A varint field; proto3 leaves zero values out. */
static inline void pb_uint(pb_buf *o, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_tag(o, field, PB_VARINT);
	pb_varint(o, v);
}

static inline void pb_bytes(pb_buf *o, unsigned field, const void *s, size_t len)
{
	pb_tag(o, field, PB_LEN);
	pb_varint(o, len);
	if (pb_room(o, len)) {
		if (len)
			memcpy(o->b + o->n, s, len);
		o->n += len;
	}
}

/* ---- reading: a cursor over [p, end); any overrun sets bad and reads zeros. */
typedef struct pb_in {
	const uint8_t *p, *end;
	bool bad;
} pb_in;

static inline uint64_t pb_get_varint(pb_in *in)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (FK_UNLIKELY(in->p >= in->end)) {
			in->bad = true;
			return 0;
		}
		uint8_t c = *in->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	in->bad = true;
	return 0;
}

/* Next field: 1 with *field and *wire set, 0 at the end (or on damage: check bad). */
static inline int pb_next(pb_in *in, unsigned *field, unsigned *wire)
{
	if (in->p >= in->end || in->bad)
		return 0;
	uint64_t k = pb_get_varint(in);
	*field = (unsigned)(k >> 3);
	*wire = (unsigned)(k & 7);
	if (in->bad || *field == 0 || k >> 32)
		return in->bad = true, 0;
	return 1;
}

/* A length-delimited field's contents as a sub-cursor. */
static inline pb_in pb_get_len(pb_in *in)
{
	uint64_t n = pb_get_varint(in);
	pb_in sub = { in->p, in->p, false };
	if (in->bad || n > (uint64_t)(in->end - in->p)) {
		in->bad = true;
		return sub;
	}
	sub.end = in->p + n;
	in->p += n;
	return sub;
}

/* Skip a field of any wire type (unknown fields are allowed by the format). */
static inline void pb_skip(pb_in *in, unsigned wire)
{
	switch (wire) {
	case PB_VARINT: pb_get_varint(in); break;
	case PB_I64: if (in->end - in->p < 8) in->bad = true; else in->p += 8; break;
	case PB_LEN: pb_get_len(in); break;
	case PB_I32: if (in->end - in->p < 4) in->bad = true; else in->p += 4; break;
	default: in->bad = true;
	}
}

/* A repeated varint field, packed (PB_LEN) or not: calls fn for each value. */
#define PB_FOR_EACH_VARINT(in, wire, v, body)                                  \
	do {                                                                   \
		if ((wire) == PB_LEN) {                                        \
			pb_in sub_ = pb_get_len(in);                           \
			while (sub_.p < sub_.end && !sub_.bad) {               \
				uint64_t v = pb_get_varint(&sub_);             \
				body;                                          \
			}                                                      \
			if (sub_.bad)                                          \
				(in)->bad = true;                              \
		} else if ((wire) == PB_VARINT) {                              \
			uint64_t v = pb_get_varint(in);                        \
			body;                                                  \
		} else {                                                       \
			(in)->bad = true;                                      \
		}                                                              \
	} while (0)

#endif

/* unzip.c - gzip (zlib) and zstd (libzstd) decompression under the line reader, so every
 * format reads compressed input, recognised by its magic bytes, from a file, a pipe or memory.
 * Streaming: one input buffer and the decoder's own window, whatever the file's size.
 * Decoded bytes reach the parser before the member's CRC32/ISIZE or the frame's checksum
 * is checked (holding a whole frame back could take gigabytes): damage found there fails
 * the whole input (-FK_E_DAMAGED), and parse.c drops everything parsed from it. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>
#include "internal.h"

#define IN_CHUNK (256u << 10)
#define ZSTD_FEED (8u << 10)

struct fk_unzip {
	int kind;                 /* FK_UNZIP_GZIP or FK_UNZIP_ZSTD */
	int fd;                   /* compressed bytes come from here, or from mem when -1 */
	const char *name;
	const unsigned char *mem; /* memory input not yet handed to the decoder */
	size_t memlen;
	unsigned char *in;        /* fd input buffer */
	const unsigned char *ip;  /* compressed bytes the decoder has not taken yet */
	size_t ilen;
	bool in_eof;              /* the source has nothing more */
	bool open;                /* inside a gzip member / zstd frame */
	int err;                  /* damage found after bytes were handed out: returned next */
	uint64_t in_total;        /* compressed bytes read from the source */
	uint64_t out_total;       /* bytes decompressed */
	uint64_t member_at;       /* compressed offset where the open member / frame starts */
	char msg[512];            /* the damage, said by the caller (fk_unzip_damage) */
	z_stream zs;
	ZSTD_DStream *zd;
};

int fk_unzip_kind(const void *buf, size_t len)
{
	const unsigned char *b = buf;
	if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return FK_UNZIP_GZIP;
	if (len >= 4 && b[0] == 0x28 && b[1] == 0xb5 && b[2] == 0x2f && b[3] == 0xfd)
		return FK_UNZIP_ZSTD;
	return 0;
}

const char *fk_unzip_name(int kind) { return kind == FK_UNZIP_GZIP ? "gzip" : "zstd"; }

fk_unzip *fk_unzip_new(int kind, int fd, const void *head, size_t headlen, const char *name)
{
	fk_unzip *z = calloc(1, sizeof(*z));
	if (!z)
		return NULL;
	z->kind = kind;
	z->fd = fd;
	z->name = name;
	if (fd >= 0) {
		/* the bytes read to recognise the format are the start of the compressed input */
		z->in = malloc(IN_CHUNK > headlen ? IN_CHUNK : headlen);
		if (!z->in)
			goto fail;
		memcpy(z->in, head, headlen);
		z->ip = z->in;
		z->ilen = headlen;
	} else {
		z->mem = head;
		z->memlen = headlen;
	}
	z->in_total = headlen;
	if (kind == FK_UNZIP_GZIP) {
		if (inflateInit2(&z->zs, 16 + MAX_WBITS) != Z_OK) /* gzip wrapper only */
			goto fail;
	} else {
		z->zd = ZSTD_createDStream();
		if (!z->zd)
			goto fail;
	}
	return z;
fail:
	free(z->in);
	free(z);
	errno = ENOMEM;
	return NULL;
}

void fk_unzip_free(fk_unzip *z)
{
	if (!z)
		return;
	if (z->kind == FK_UNZIP_GZIP)
		inflateEnd(&z->zs);
	ZSTD_freeDStream(z->zd);
	free(z->in);
	free(z);
}

/* More compressed input once the decoder took all it had: 0, or a negative error. */
static int refill(fk_unzip *z)
{
	if (z->fd < 0) {
		z->ip = z->mem;
		z->ilen = z->memlen;
		z->memlen = 0;
		z->in_eof = z->ilen == 0;
		return 0;
	}
	for (;;) {
		ssize_t n = read(z->fd, z->in, IN_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		z->ip = z->in;
		z->ilen = (size_t)n;
		z->in_eof = n == 0;
		z->in_total += (uint64_t)n;
		return 0;
	}
}

/* Compressed bytes the decoder has taken so far. */
static uint64_t taken(const fk_unzip *z) { return z->in_total - z->ilen; }

const char *fk_unzip_damage(const fk_unzip *z) { return z && z->msg[0] ? z->msg : NULL; }

/* Report damage once and refuse the whole input (its data was decoded from damaged
 * bytes, or cannot be checked). seen: the compressed bytes the decoder had been given
 * when it found the damage, so the damage is at or before that byte. */
static int damage(fk_unzip *z, const char *what, const char *why, uint64_t seen)
{
	const char *unit = z->kind == FK_UNZIP_GZIP ? "member" : "frame";
	char at[96] = "";
	if (z->open)
		snprintf(at, sizeof(at), ", in the %s that starts at byte %llu", unit,
			 (unsigned long long)z->member_at);
	snprintf(z->msg, sizeof(z->msg),
		 "%s: %s input %s at compressed byte %llu (%s%s); nothing of this input is used",
		 z->name, fk_unzip_name(z->kind), what, (unsigned long long)seen, why, at);
	z->err = -FK_E_DAMAGED;
	return z->err;
}

/* One decoder step over the current input into [out, out+room): bytes written into
 * *wrote, the input taken off z->ip. 0, or the damage message's error. */
static int step(fk_unzip *z, char *out, size_t room, size_t *wrote)
{
	if (z->kind == FK_UNZIP_GZIP) {
		z->zs.next_in = (unsigned char *)z->ip;
		z->zs.avail_in = z->ilen > UINT_MAX ? UINT_MAX : (unsigned)z->ilen;
		z->zs.next_out = (unsigned char *)out;
		z->zs.avail_out = room > UINT_MAX ? UINT_MAX : (unsigned)room;
		unsigned in0 = z->zs.avail_in, out0 = z->zs.avail_out;
		int zr = inflate(&z->zs, Z_NO_FLUSH);
		z->ip += in0 - z->zs.avail_in;
		z->ilen -= in0 - z->zs.avail_in;
		*wrote = out0 - z->zs.avail_out;
		if (in0 != z->zs.avail_in && !z->open) {
			z->open = true;
			z->member_at = taken(z) - (in0 - z->zs.avail_in);
		}
		if (zr == Z_STREAM_END) {
			/* a member ends; gzip files may hold several (cat a.gz b.gz) */
			z->open = false;
			inflateReset(&z->zs);
			return 0;
		}
		if (zr == Z_OK || zr == Z_BUF_ERROR)
			return 0;
		if (zr == Z_MEM_ERROR)
			return -FK_E_NOMEM;
		/* zlib's "incorrect data check" / "incorrect length check": the member's
		 * CRC32 or ISIZE at its end */
		return damage(z, "is corrupt", z->zs.msg ? z->zs.msg : "inflate error", taken(z));
	}
	if (!z->open && z->ilen) {
		z->member_at = taken(z);
		/* a frame written without its checksum (zstd --no-check) cannot be verified:
		 * damage the decoder does not notice reaches the parser (docs/input-formats.md).
		 * RFC 8878 3.1.1.1.1: bit 2 of the byte after the magic is Content_Checksum_flag */
		if (z->ilen >= 5 && fk_unzip_kind(z->ip, z->ilen) == FK_UNZIP_ZSTD && !(z->ip[4] & 4))
			fk_log(FK_LEVEL_INFO, "%s: zstd frame at byte %llu has no checksum: its data "
			       "cannot be verified", z->name, (unsigned long long)z->member_at);
	}
	/* a small feed: on an error zstd says nothing of how far it read, so the damage is
	 * placed by what it was given (blocks hold at most 128 KiB: little is lost by it) */
	size_t feed = z->ilen < ZSTD_FEED ? z->ilen : ZSTD_FEED;
	ZSTD_inBuffer in = { z->ip, feed, 0 };
	ZSTD_outBuffer ob = { out, room, 0 };
	size_t zr = ZSTD_decompressStream(z->zd, &ob, &in);
	z->ip += in.pos;
	z->ilen -= in.pos;
	*wrote = ob.pos;
	if (in.pos)
		z->open = true;
	if (ZSTD_isError(zr)) {
		uint64_t seen = taken(z) + (feed - in.pos);
		if (ZSTD_getErrorCode(zr) == ZSTD_error_checksum_wrong)
			return damage(z, "is corrupt", "the frame's checksum does not match its data",
				      seen);
		return damage(z, "is corrupt", ZSTD_getErrorName(zr), seen);
	}
	if (zr == 0)
		z->open = false; /* a frame is complete (another may follow) */
	return 0;
}

ssize_t fk_unzip_read(fk_unzip *z, char *out, size_t room)
{
	if (z->err)
		return z->err;
	size_t got = 0;
	while (got < room) {
		if (z->ilen == 0 && !z->in_eof) {
			int rc = refill(z);
			if (rc < 0) {
				if (got)
					break;
				return rc;
			}
		}
		if (z->ilen == 0 && z->in_eof && !z->open)
			break; /* clean end (pending output was taken: a closed member has none) */
		size_t w = 0;
		int rc = step(z, out + got, room - got, &w);
		if (rc < 0)
			return rc; /* what came before is no better: the input is refused whole */
		got += w;
		z->out_total += w;
		if (w == 0 && z->ilen == 0 && z->in_eof)
			/* nothing more comes out and no input is left, inside a member */
			return damage(z, "is truncated", "it ends inside a compressed block", taken(z));
		/* a big read is worth handing on; the next call continues */
		if (got && w == 0)
			break;
	}
	return (ssize_t)got;
}

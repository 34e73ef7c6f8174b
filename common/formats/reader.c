/* reader.c - buffered line reader over a file descriptor or a memory buffer.
 * Hands out (pointer, length) spans; keeps line numbers for messages. */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include "internal.h"

#define READ_CHUNK (1u << 20)
#define PROGRESS_STEP (64ull << 20)

int fk_reader_init_fd(fk_reader *r, int fd, const char *name, const fk_parse_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->fd = r->src_fd = fd;
	r->name = name;
	r->opts = o;
	r->cap = READ_CHUNK + 1;
	r->buf = malloc(r->cap);
	if (!r->buf)
		return -FK_E_NOMEM;
	r->pos = r->end = r->buf;
	r->next_progress = PROGRESS_STEP;
	return 0;
}

int fk_reader_init_mem(fk_reader *r, const char *buf, size_t len, const char *name,
		       const fk_parse_opts *o)
{
	int kind = fk_unzip_kind(buf, len);
	if (kind) {
		/* decompressed into a buffer of our own, like a file */
		int rc = fk_reader_init_fd(r, -1, name, o);
		if (rc)
			return rc;
		r->sniffed = true;
		r->unzip = fk_unzip_new(kind, -1, buf, len, name);
		if (!r->unzip) {
			fk_reader_fini(r);
			return -FK_E_NOMEM;
		}
		return 0;
	}
	memset(r, 0, sizeof(*r));
	r->fd = r->src_fd = -1;
	r->mem = true;
	r->eof = true;
	r->sniffed = true;
	r->name = name;
	r->opts = o;
	r->pos = buf;
	r->end = buf + len;
	return 0;
}

void fk_reader_fini(fk_reader *r)
{
	if (!r->mem)
		free(r->buf);
	r->buf = NULL;
	fk_unzip_free(r->unzip);
	r->unzip = NULL;
}

/* The first read of an fd: at least the 4 bytes that tell compressed input from plain.
 * Compressed: those bytes go to a decoder and the reader hands out what it decodes
 * (r->fd becomes -1: nobody may read the file under it). 0, or a negative error. */
static int sniff(fk_reader *r, size_t most)
{
	r->sniffed = true;
	size_t room = r->cap - 1 - (size_t)(r->end - r->buf);
	for (size_t have; (have = (size_t)(r->end - r->pos)) < 4;) {
		size_t want = most > 4 ? most - have : 4 - have;
		ssize_t n = read(r->src_fd, (char *)r->end, room < want ? room : want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return r->err = -errno;
		if (n == 0) {
			r->eof = true;
			break;
		}
		r->end += n;
		r->bytes += (uint64_t)n;
		room -= (size_t)n;
	}
	int kind = fk_unzip_kind(r->pos, (size_t)(r->end - r->pos));
	if (!kind)
		return 0;
	r->unzip = fk_unzip_new(kind, r->src_fd, r->pos, (size_t)(r->end - r->pos), r->name);
	if (!r->unzip)
		return r->err = -FK_E_NOMEM;
	fk_log(FK_LEVEL_DEBUG, "%s: %s-compressed input", r->name, fk_unzip_name(kind));
	r->fd = -1;
	r->eof = false;
	r->end = r->pos;
	r->bytes = 0;
	return 0;
}

/* Read from the source into dst: bytes, 0 at its end, or a negative error (damage in
 * compressed input is one: -FK_E_DAMAGED, said by the decoder, and the input is refused). */
static ssize_t source_read(fk_reader *r, char *dst, size_t n)
{
	if (!r->unzip) {
		for (;;) {
			ssize_t k = read(r->src_fd, dst, n);
			if (k >= 0 || errno != EINTR)
				return k < 0 ? -errno : k;
		}
	}
	return fk_unzip_read(r->unzip, dst, n);
}

/* The unread bytes moved to the buffer's start, and the buffer doubled when less than a
 * quarter chunk is free, while it holds no more than limit + one chunk. 1 = room to read,
 * 0 = at the limit, or -FK_E_NOMEM. */
static int make_room(fk_reader *r, size_t limit)
{
	size_t unread = (size_t)(r->end - r->pos);
	if (r->pos != r->buf) {
		memmove(r->buf, r->pos, unread);
		r->pos = r->buf;
		r->end = r->buf + unread;
	}
	if (r->cap - 1 - unread < READ_CHUNK / 4) {
		if (r->cap > limit + READ_CHUNK)
			return 0;
		size_t ncap = r->cap * 2;
		char *nb = realloc(r->buf, ncap);
		if (!nb)
			return -FK_E_NOMEM;
		r->buf = nb;
		r->cap = ncap;
		r->pos = nb;
		r->end = nb + unread;
	}
	return 1;
}

/* Read more input after the unread bytes (at most `most`). Grows the buffer when it
 * is full (a long line) up to FK_MAX_LINE + one chunk. 1 = got bytes, 0 = EOF or
 * buffer at its limit, negative = error. */
static int fill_at_most(fk_reader *r, size_t most)
{
	if (r->mem || r->eof)
		return 0;
	if (!r->sniffed) {
		const char *end0 = r->end;
		int rc = sniff(r, most);
		if (rc < 0)
			return rc;
		if (r->end != end0)
			return 1;
		if (r->eof)
			return 0;
	}
	int rc = make_room(r, FK_MAX_LINE);
	if (rc <= 0)
		return rc;
	size_t room = r->cap - 1 - (size_t)(r->end - r->pos);
	for (;;) {
		ssize_t n = source_read(r, (char *)r->end, room < most ? room : most);
		if (n < 0) {
			r->err = (int)n;
			return r->err;
		}
		if (n == 0) {
			r->eof = true;
			return 0;
		}
		r->end += n;
		r->bytes += (uint64_t)n;
		if (r->opts && r->opts->progress && r->bytes >= r->next_progress) {
			r->opts->progress(r->bytes, r->opts->progress_ctx);
			r->next_progress = r->bytes + PROGRESS_STEP;
		}
		return 1;
	}
}

static int fill(fk_reader *r) { return fill_at_most(r, SIZE_MAX); }

int fk_reader_peek(fk_reader *r, size_t want, const char **buf, size_t *len)
{
	/* only what was asked for, or up to a chunk until a line ends in it: a parser that
	 * reads the file itself (the perf parser, with pread) starts where the peek left off */
	for (;;) {
		size_t have = (size_t)(r->end - r->pos);
		if (have >= want && (have >= READ_CHUNK || memchr(r->pos, '\n', have)))
			break;
		int rc = fill_at_most(r, have < want ? want - have : READ_CHUNK - have);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
	}
	*buf = r->pos;
	*len = (size_t)(r->end - r->pos);
	return 0;
}

void fk_reader_long_line(fk_reader *r, uint64_t lineno)
{
	r->long_lines++;
	fk_warn("%s:%llu: line longer than %u MiB skipped", r->name, (unsigned long long)lineno,
		FK_MAX_LINE >> 20);
}

/* Drop the rest of an over-long line (the buffer is full of it). */
static int skip_long_line(fk_reader *r)
{
	fk_reader_long_line(r, ++r->lineno);
	for (;;) {
		const char *nl = memchr(r->pos, '\n', (size_t)(r->end - r->pos));
		if (nl) {
			r->pos = nl + 1;
			return 0;
		}
		r->pos = r->end;
		int rc = fill(r);
		if (rc <= 0)
			return rc;
	}
}

int fk_reader_line(fk_reader *r, const char **line, size_t *len)
{
	for (;;) {
		const char *nl = memchr(r->pos, '\n', (size_t)(r->end - r->pos));
		if (nl) {
			*line = r->pos;
			*len = (size_t)(nl - r->pos);
			r->pos = nl + 1;
			r->lineno++;
			return 1;
		}
		int rc = fill(r);
		if (rc < 0)
			return rc;
		if (rc > 0)
			continue;
		if (!r->eof && !r->mem) {
			if ((rc = skip_long_line(r)) < 0)
				return rc;
			continue;
		}
		if (r->pos == r->end)
			return 0;
		*line = r->pos;
		*len = (size_t)(r->end - r->pos);
		r->pos = r->end;
		r->lineno++;
		return 1;
	}
}

int fk_reader_block(fk_reader *r, const char **buf, size_t *len)
{
	for (;;) {
		size_t avail = (size_t)(r->end - r->pos);
		const char *nl = avail ? memrchr(r->pos, '\n', avail) : NULL;
		/* Hand out a block once it is reasonably big or input is complete. */
		if (nl && (r->eof || r->mem || avail >= READ_CHUNK / 2)) {
			*buf = r->pos;
			*len = (size_t)(nl + 1 - r->pos);
			r->pos = nl + 1;
			return 1;
		}
		int rc = fill(r);
		if (rc < 0)
			return rc;
		if (rc > 0)
			continue;
		if (!r->eof && !r->mem) {
			if (nl) {
				*buf = r->pos;
				*len = (size_t)(nl + 1 - r->pos);
				r->pos = nl + 1;
				return 1;
			}
			if ((rc = skip_long_line(r)) < 0)
				return rc;
			continue;
		}
		if (r->pos == r->end)
			return 0;
		*buf = r->pos;
		*len = (size_t)(r->end - r->pos);
		r->pos = r->end;
		return 1;
	}
}

int fk_reader_all(fk_reader *r, size_t limit, const char **buf, size_t *len)
{
	if (!r->sniffed && !r->mem) {
		int rc = fill_at_most(r, READ_CHUNK);
		if (rc < 0)
			return rc;
	}
	while (!r->mem && !r->eof) {
		int rc = make_room(r, limit);
		if (rc <= 0)
			return rc ? rc : -FK_E_TOOBIG;
		ssize_t n = source_read(r, (char *)r->end, r->cap - 1 - (size_t)(r->end - r->pos));
		if (n < 0)
			return r->err = (int)n;
		if (n == 0)
			r->eof = true;
		r->end += n;
		r->bytes += (uint64_t)n;
	}
	if ((size_t)(r->end - r->pos) > limit)
		return -FK_E_TOOBIG;
	*buf = r->pos;
	*len = (size_t)(r->end - r->pos);
	r->pos = r->end;
	return 0;
}

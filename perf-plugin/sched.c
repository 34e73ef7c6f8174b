/* sched.c - decode sched:sched_switch payloads (perf sample raw data) with
 * libtraceevent, from the event's format description (tracefs or a file). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include "dlfilter.h"

struct fkd_sched {
	struct tep_handle *tep;
	struct tep_event *ev;
	struct tep_format_field *type, *prev_pid, *next_pid, *prev_state, *prev_comm, *next_comm;
};

struct fkd_sched *fkd_sched_new(const char *format_path, char *err, size_t errlen)
{
	/* the text from the file given or tracefs (the core's reader: tracefs says size 0) */
	size_t len = 0;
	char why[512];
	const char *path = format_path ? format_path : "the sched_switch format";
	char *text = fk_tp_format_read("sched:sched_switch", format_path, &len, why, sizeof(why));
	if (!text) {
		snprintf(err, errlen, "%s%s", why, format_path ? "" : "; pass --dlarg sched-format=FILE");
		return NULL;
	}
	struct fkd_sched *s = calloc(1, sizeof(*s));
	if (!s || !(s->tep = tep_alloc())) {
		snprintf(err, errlen, "out of memory");
		free(text);
		free(s);
		return NULL;
	}
	/* perf.data from this machine: host byte order and long size. */
	tep_set_file_bigendian(s->tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN
									    : TEP_LITTLE_ENDIAN);
	tep_set_long_size(s->tep, sizeof(long));
	enum tep_errno te = tep_parse_format(s->tep, &s->ev, text, len, "sched");
	free(text);
	if (te != 0 || !s->ev) {
		char msg[256] = "";
		tep_strerror(s->tep, te, msg, sizeof(msg));
		snprintf(err, errlen, "%s: cannot parse the event format: %s", path, msg);
		fkd_sched_free(s);
		return NULL;
	}
	s->type = tep_find_common_field(s->ev, "common_type");
	s->prev_pid = tep_find_field(s->ev, "prev_pid");
	s->next_pid = tep_find_field(s->ev, "next_pid");
	s->prev_state = tep_find_field(s->ev, "prev_state");
	s->prev_comm = tep_find_field(s->ev, "prev_comm");
	s->next_comm = tep_find_field(s->ev, "next_comm");
	if (!s->type || !s->prev_pid || !s->next_pid || !s->prev_state || !s->prev_comm ||
	    !s->next_comm || strcmp(s->ev->name, "sched_switch") != 0) {
		snprintf(err, errlen, "%s: not a sched_switch format (fields prev_pid, next_pid, "
			 "prev_state, prev_comm, next_comm expected)", path);
		fkd_sched_free(s);
		return NULL;
	}
	return s;
}

void fkd_sched_free(struct fkd_sched *s)
{
	if (!s)
		return;
	if (s->tep)
		tep_free(s->tep);
	free(s);
}

static int field_fits(const struct tep_format_field *f, uint32_t size)
{
	return f->offset >= 0 && f->size > 0 && (uint64_t)f->offset + (uint64_t)f->size <= size;
}

static void read_comm(const struct tep_format_field *f, const char *raw, char out[17])
{
	size_t n = f->size < 16 ? (size_t)f->size : 16;
	memcpy(out, raw + f->offset, n);
	out[n] = 0;
}

int fkd_sched_decode(struct fkd_sched *s, const void *raw, uint32_t size, struct fkd_switch *out,
		     char *err, size_t errlen)
{
	unsigned long long v;
	struct tep_format_field *num[] = { s->type, s->prev_pid, s->next_pid, s->prev_state };
	for (size_t i = 0; i < 4; i++) {
		if (!field_fits(num[i], size)) {
			snprintf(err, errlen, "sched_switch record of %u bytes is too short for "
				 "field %s (format mismatch?)", size, num[i]->name);
			return -1;
		}
	}
	if (!field_fits(s->prev_comm, size) || !field_fits(s->next_comm, size)) {
		snprintf(err, errlen, "sched_switch record of %u bytes is too short", size);
		return -1;
	}
	tep_read_number_field(s->type, raw, &v);
	/* The id ties the format we loaded to the recording: a different kernel
	 * (perf.data from another machine) may lay the record out differently. */
	if ((int)v != s->ev->id) {
		snprintf(err, errlen, "sched_switch record has type id %llu but the loaded "
			 "format has id %d: recorded on another kernel? pass --dlarg "
			 "sched-format=FILE with that kernel's format", v, s->ev->id);
		return -1;
	}
	tep_read_number_field(s->prev_pid, raw, &v);
	out->prev_pid = (int32_t)v;
	tep_read_number_field(s->next_pid, raw, &v);
	out->next_pid = (int32_t)v;
	tep_read_number_field(s->prev_state, raw, &v);
	out->prev_state = (int64_t)v;
	read_comm(s->prev_comm, raw, out->prev_comm);
	read_comm(s->next_comm, raw, out->next_comm);
	return 0;
}

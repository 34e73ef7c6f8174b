/* parse.c - the table of input formats, format detection, and the public
 * fk_parse_* entry points that run one parser over one input. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "internal.h"

/* The one list of input formats, in the order their probes run (a tie goes to
 * the first). Each NAME is the fk_format fk_format_NAME of parse-NAME.c, whose
 * .name is NAME with '-' for '_'. Nothing else lists formats: tests/fuzz/rules.mk
 * reads the names from these lines (one fuzz target each), the rest asks
 * fk_format_names(). */
#define FK_FORMATS(X) \
	X(samples) X(perf) X(perf_report) X(stap) X(gdb) X(dtrace) X(bpftrace) \
	X(eu_stack) X(pprof_raw) X(jstack) X(sample) X(folded) X(pprof) X(cpuprofile)

#define FK_FORMAT_DECL(n) extern const fk_format fk_format_##n FK_HIDDEN;
FK_FORMATS(FK_FORMAT_DECL)
#define FK_FORMAT_REF(n) &fk_format_##n,
static const fk_format *const formats[] = { FK_FORMATS(FK_FORMAT_REF) };
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

void fk_parse_opts_init(fk_parse_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->max_warnings = 5;
	o->sz = sizeof(*o);
}

static const fk_format *find_format(const char *name)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i] && !strcmp(formats[i]->name, name))
			return formats[i];
	return NULL;
}

const char *const *fk_format_names(void)
{
	static const char *names[NFORMATS + 1];
	size_t n = 0;
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i])
			names[n++] = formats[i]->name;
	names[n] = NULL;
	return names;
}

const char *fk_format_description(const char *name)
{
	const fk_format *f = find_format(name);
	return f ? f->desc : NULL;
}

/* Text input has few control bytes; binary garbage has many. */
static bool looks_binary(const char *buf, size_t len)
{
	size_t bad = 0, n = len < 4096 ? len : 4096;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];
		bad += (c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f;
	}
	return n && bad * 10 > n;
}

/* The best probe among the binary formats, or among the text ones. */
static const char *detect(const char *buf, size_t len, bool binary)
{
	int best = 0;
	const char *name = NULL;
	for (size_t i = 0; i < NFORMATS; i++) {
		if (!formats[i] || !formats[i]->probe || formats[i]->binary != binary)
			continue;
		int s = formats[i]->probe(buf, len);
		if (s > best) {
			best = s;
			name = formats[i]->name;
		}
	}
	return name;
}

const char *fk_detect_format(const char *buf, size_t len)
{
	bool bin = looks_binary(buf, len);
	const char *f = detect(buf, len, bin);
	return f || bin ? f : detect(buf, len, true);
}

/* "name:line: msg"; "name: msg" for line 0 (binary formats place it in msg: "at byte N") */
static void vreport(fk_parse_ctx *c, uint64_t lineno, const char *fmt, va_list ap)
{
	char msg[512];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (lineno)
		fk_warn("%s:%llu: %s", c->name, (unsigned long long)lineno, msg);
	else
		fk_warn("%s: %s", c->name, msg);
}

void fk_span_init(fk_span *s, uint64_t from, uint64_t end)
{
	*s = (fk_span){ .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER, .end = end,
			.claimed = from, .late = getenv("FLAMEKIT_LATE_SECOND") != NULL };
}

void fk_span_destroy(fk_span *s)
{
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
}

void fk_span_wait_go(fk_span *s)
{
	pthread_mutex_lock(&s->mu);
	while (s->late && !s->go)
		pthread_cond_wait(&s->cv, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

void fk_span_go_locked(fk_span *s)
{
	s->go = true;
	pthread_cond_signal(&s->cv);
}

bool fk_parse_second_cpu(fk_parse_ctx *c)
{
	if (fk_cpu_free_soon())
		return true;
	fk_profile_one_thread(c->p); /* (another program holds the other CPU) */
	return false;
}

void fk_bad_line(fk_parse_ctx *c, uint64_t lineno, const char *fmt, ...)
{
	c->st->bad_lines++;
	unsigned max = c->o->max_warnings ? c->o->max_warnings : 5;
	if (c->warned++ >= max)
		return;
	va_list ap;
	va_start(ap, fmt);
	vreport(c, lineno, fmt, ap);
	va_end(ap);
}

void fk_note(fk_parse_ctx *c, uint64_t lineno, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(c, lineno, fmt, ap);
	va_end(ap);
}

/* What the profile counts after adding an input that counts unit (NULL = unknown): an
 * empty profile takes it on; a profile of another unit keeps its own and the mix is
 * reported (sums of ns and samples mean nothing). */
static int note_unit(fk_profile *p, double before, const char *unit, int kind, const char *name,
		     const char *format)
{
	const char *have = fk_profile_unit(p);
	if (!unit || (have && !strcmp(have, unit)))
		return 0;
	if (!have && before == 0)
		fk_profile_set_kind(p, kind);
	if (!have) {
		int rc = before == 0 ? fk_profile_set_unit(p, unit) : 0;
		return rc || before != 0 ? rc : fk_profile_set_unit_source(p, name, format);
	}
	const char *from_format, *from = fk_profile_unit_source(p, &from_format);
	fk_warn_mixed_units(name, unit, format, from, have, from_format);
	return 0;
}

int64_t fk_parse_intern(fk_parse_ctx *c, const char *s, size_t len)
{
	if (!fk_name_rules_on(c->o))
		return fk_profile_intern(c->p, s, len);
	size_t room = fk_name_rules_room(len);
	if (FK_GROW(c->name_buf, c->name_cap, room))
		return -FK_E_NOMEM;
	memcpy(c->name_buf, s, len);
	return fk_profile_intern(c->p, c->name_buf, fk_name_rules(c->o, c->name_buf, len, room));
}

static int run_held(fk_profile *p, fk_reader *r, const fk_parse_opts *in, fk_parse_stats *stats,
		    unsigned long said)
{
	fk_parse_opts defaults;
	fk_parse_opts_init(&defaults);
	if (in)
		FK_OPTS_ADOPT(defaults, in);
	in = &defaults;
	fk_parse_stats local;
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	const char *name = in->name ? in->name : "-";
	r->name = name;
	const fk_format *f = NULL;
	if (in->format && *in->format && strcmp(in->format, "auto")) {
		f = find_format(in->format);
		if (!f) {
			fk_warn("%s: unknown format '%s' (see flamekit formats)", name, in->format);
			return -FK_E_INVAL;
		}
		/* whether it is compressed (the parse meets a read error again) */
		const char *buf;
		size_t len;
		(void)fk_reader_peek(r, 4, &buf, &len);
	} else {
		const char *buf;
		size_t len;
		int rc = fk_reader_peek(r, 64 * 1024, &buf, &len);
		if (rc < 0) {
			if (fk_log_warnings() == said)
				fk_warn("%s: %s", name, fk_strerror(rc));
			return rc;
		}
		if (len == 0) {
			fk_warn("%s: empty input", name);
			snprintf(stats->format, sizeof(stats->format), "none");
			return 0;
		}
		const char *fname = NULL;
		if (looks_binary(buf, len)) {
			fname = detect(buf, len, true);
			if (!fname) {
				fk_warn("%s:1: input looks binary, not stack samples (force a format with --format)", name);
				return -FK_E_BINARY;
			}
		} else {
			/* a profile of long names may look like text: binary formats after the text ones */
			fname = detect(buf, len, false);
			if (!fname)
				fname = detect(buf, len, true);
		}
		if (!fname) {
			/* Say what was looked for: the reader can tell at once whether
			 * the input is one of them under another name. */
			char list[512];
			size_t at = 0;
			for (size_t i = 0; i < NFORMATS && at < sizeof(list); i++)
				if (formats[i] && formats[i]->probe)
					at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%s",
							       at ? ", " : "", formats[i]->name);
			fk_warn("%s:1: cannot detect the input format: not one of %s "
				"(force one with --format; see flamekit formats)", name, list);
			return -FK_E_FORMAT;
		}
		f = find_format(fname);
	}
	if (!r->unzip)
		fk_log_release(true); /* plain input: nothing to hold back */
	snprintf(stats->format, sizeof(stats->format), "%s", f->name);
	/* An input adds all its stacks or none: a failed parse (damaged compressed data found
	 * at its end, a profile read whole that fails half-way, out of memory) leaves the
	 * profile as it was. Into a blank profile directly (undone by a reset); into one that
	 * holds stacks, through a scratch profile merged on success, where a late failure can
	 * come: compressed input, the formats read whole (the merge costs a fifth more time
	 * and a third more memory on inputs of unique stacks; plain text fails only on a read
	 * error or out of memory, not worth it there). */
	fk_profile *into = p;
	bool late = r->unzip || f->binary || f == &fk_format_cpuprofile;
	if (!fk_profile_blank(p) && late && !(into = fk_profile_new(fk_profile_flags(p))))
		return -FK_E_NOMEM;
	fk_parse_ctx c = { .p = into, .o = in, .st = stats, .r = r, .name = name };
	fk_profile_use_threads(p, in->threads);
	fk_profile_use_threads(into, in->threads);
	double before = fk_profile_total(p, 0) + fk_profile_total(p, 1);
	int rc = f->parse(&c);
	fk_log(FK_LEVEL_DEBUG, "%s: read as %s", name, f->name);
	free(c.name_buf);
	if (rc == 0 && r->err)
		rc = r->err;
	if (rc >= 0 || rc == -FK_E_SKIPPED || rc == -FK_E_TRUNCATED) {
		int mrc = into != p ? fk_profile_merge(p, into) : 0;
		if (mrc < 0)
			rc = mrc;
		int urc = rc >= 0 || rc == -FK_E_SKIPPED || rc == -FK_E_TRUNCATED ?
			  note_unit(p, before, c.unit[0] ? c.unit : f->unit, c.kind, name, f->name) : 0;
		if (urc < 0)
			rc = urc;
	} else if (into == p && fk_profile_reset(p) < 0) {
		rc = -FK_E_NOMEM;
	}
	if (into != p)
		fk_profile_free(into);
	stats->bytes = r->mem ? (uint64_t)(r->end - r->pos) + r->bytes : r->bytes;
	stats->bad_lines += r->long_lines;
	if (rc < 0 && rc != -FK_E_SKIPPED && rc != -FK_E_TRUNCATED) {
		/* the one message of the failure: the parser's or the reader's own, or this */
		if (fk_log_warnings() == said && r->lineno)
			fk_warn("%s:%llu: %s", name, (unsigned long long)r->lineno, fk_strerror(rc));
		else if (fk_log_warnings() == said)
			fk_warn("%s: %s", name, fk_strerror(rc));
		return rc;
	}
	unsigned max = in->max_warnings ? in->max_warnings : 5;
	if (c.warned > max)
		fk_warn("%s: %llu malformed lines skipped in all (%u shown)", name,
			(unsigned long long)stats->bad_lines, max);
	if (stats->bad_lines || rc == -FK_E_TRUNCATED)
		return rc == -FK_E_TRUNCATED ? rc : -FK_E_SKIPPED;
	return 0;
}

/* A compressed input's messages are held back until it has been read whole: when it turns
 * out damaged, what the parser said about its lines (garbage decoded from damaged bytes) is
 * dropped, and the damage is the one message. */
static int run(fk_profile *p, fk_reader *r, const fk_parse_opts *in, fk_parse_stats *stats)
{
	unsigned long said = fk_log_warnings();
	fk_log_hold();
	int rc = run_held(p, r, in, stats, said);
	const char *damage = rc == -FK_E_DAMAGED ? fk_unzip_damage(r->unzip) : NULL;
	fk_log_release(!damage);
	if (damage)
		fk_warn("%s", damage);
	return rc;
}

int fk_parse_fd(fk_profile *p, int fd, const fk_parse_opts *o, fk_parse_stats *stats)
{
	fk_reader r;
	int rc = fk_reader_init_fd(&r, fd, o && o->name ? o->name : "-", o);
	if (rc)
		return rc;
	rc = run(p, &r, o, stats);
	fk_reader_fini(&r);
	return rc;
}

int fk_parse_buffer(fk_profile *p, const char *buf, size_t len, const fk_parse_opts *o,
		    fk_parse_stats *stats)
{
	fk_reader r;
	int rc = fk_reader_init_mem(&r, buf, len, o && o->name ? o->name : "-", o);
	if (rc)
		return rc;
	rc = run(p, &r, o, stats);
	fk_reader_fini(&r);
	return rc;
}

int fk_parse_file(fk_profile *p, const char *path, const fk_parse_opts *o, fk_parse_stats *stats)
{
	if (!strcmp(path, "-"))
		return fk_parse_fd(p, 0, o, stats);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = -errno;
		fk_warn("%s: %s", path, strerror(errno));
		return err;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		fk_warn("%s: is a directory", path);
		return -EISDIR;
	}
	fk_parse_opts local;
	fk_parse_opts_init(&local);
	if (o)
		FK_OPTS_ADOPT(local, o);
	if (!local.name)
		local.name = path;
	int rc = fk_parse_fd(p, fd, &local, stats);
	close(fd);
	return rc;
}

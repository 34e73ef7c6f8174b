/* cmd-collapse.c - `flamekit collapse` (any input -> folded stacks) and
 * `flamekit merge` (many profiles -> one). */
#include <malloc.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include "cli.h"

enum { EMIT_FOLDED, EMIT_SAMPLES, EMIT_PPROF, EMIT_SPEEDSCOPE,
       EMIT_BY_NAME = -1, EMIT_DRAWING = -2 /* an -o name this command does not write */ };
static const char *const emit_names[] = { "folded", "samples", "pprof", "speedscope" };

/* The command's own options (the input options and -o/--keep/--drop are shared). */
struct collapse_cli {
	int emit;
	bool timestamps;
	const char *label;    /* the last --label; each is handled as it comes */
};

static const fk_option collapse_rows[] = {
	{ "emit", NULL, 0, FK_OPT_CHOICE, 0, offsetof(struct collapse_cli, emit), 0, 0,
	  "folded|samples|pprof|speedscope", "FORMAT",
	  "folded (default); samples: one timestamped line per sample (time pid tid cpu comm "
	  "weight stack; for heatmap); pprof: gzipped profile.proto (go tool pprof, Pyroscope, "
	  "Parca), pid/tid/comm of samples as labels; speedscope: JSON for speedscope.app (the "
	  "stacks, and the samples in time order when timestamped). Default by the -o name "
	  "(any case): .pb.gz, .pb or .pprof -> pprof, .speedscope.json -> speedscope, "
	  ".folded or another name -> folded", NULL },
	{ "timestamps", NULL, 0, FK_OPT_FLAG, 0, offsetof(struct collapse_cli, timestamps), 0, 0,
	  NULL, NULL, "pprof: one sample per timestamped sample, its time and CPU as labels "
	  "(heat maps survive the trip)", NULL },
	{ "label", NULL, 0, FK_OPT_TEXT, 0, offsetof(struct collapse_cli, label), 0, 0, NULL,
	  "KEY=VALUE", "label the inputs after it (host, service...; one given after the last "
	  "input labels all): a root frame 'KEY=VALUE' on their stacks (--keep '^host=db-1;'), "
	  "a label with --emit pprof; repeatable", NULL },
};

static void collapse_sets(fkp_optset sets[3], struct cli_io *io, struct collapse_cli *cc,
			  fk_parse_opts *po)
{
	sets[0] = cli_io_set(io, true);
	sets[1] = (fkp_optset){ collapse_rows, 3, cc, NULL, NULL };
	sets[2] = cli_input_set(po);
}

static void collapse_help(FILE *out)
{
	struct cli_io io;
	struct collapse_cli cc;
	fk_parse_opts po;
	fkp_optset sets[3];
	collapse_sets(sets, &io, &cc, &po);
	fputs("usage: flamekit collapse [options] [FILE...]\n\n"
	      "Reads stack samples (perf script text, perf report -g folded, SystemTap,\n"
	      "GDB backtraces, DTrace, bpftrace, eu-stack, go tool pprof -raw, jstack,\n"
	      "macOS sample, folded stacks, flamekit samples) from\n"
	      "FILEs or standard input (no FILE, or -) and writes folded stacks:\n"
	      "'frame;frame;leaf count', root first, one line per unique stack, sorted.\n\n", out);
	fkp_opt_help(out, &sets[0]);
	fkp_opt_help(out, &sets[1]);
	fputc('\n', out);
	fkp_opt_help(out, &sets[2]);
	fputs("\nExit status: 0 ok; 1 error, nothing written; 2 usage error;\n"
	      "3 output written but some input was malformed and skipped (warnings name\n"
	      "file:line).\n", out);
}

static void merge_help(FILE *out)
{
	fputs("usage: flamekit merge [-o FILE] [--keep RE] [--drop RE] [--label K=V] FILE|NAME=FILE...\n\n"
	      "Merges profiles (folded stacks or any input format, e.g. one file per host)\n"
	      "into one profile: counts of identical stacks are added. The origin of each\n"
	      "input can stay visible: --label host=db-1 labels the files after it (until\n"
	      "another --label of that key), NAME=FILE labels one file host=NAME. Labels\n"
	      "become root frames 'host=db-1' (folded, graphs; --keep '^host=db-1;' selects\n"
	      "one) and pprof labels with --emit pprof. Inputs that count different units\n"
	      "(samples, ns...) are named in a warning.\n"
	      "Takes the same options as `flamekit collapse`.\n", out);
}

/* One input and the labels in force for it (merge --label, NAME=FILE). */
typedef struct input {
	const char *path;
	const char *host;        /* NAME of NAME=FILE, or NULL */
	size_t first, n;         /* its labels: lab[first .. first+n) */
} input;

static bool is_file(const char *path)
{
	struct stat st;
	return !strcmp(path, "-") || stat(path, &st) == 0;
}

/* The value of key in the labels lab[0..n) ("key=value"), or NULL. */
static const char *label_value(const char **lab, size_t n, const char *key, size_t klen)
{
	for (size_t i = n; i-- > 0;)
		if (!strncmp(lab[i], key, klen) && lab[i][klen] == '=')
			return lab[i] + klen + 1;
	return NULL;
}

/* Each input read on its own and merged under its labels' root frames; a warning when the
 * inputs count different units. Returns the profile or NULL with *status set. */
static fk_profile *read_labelled(unsigned flags, input *in, int nin, const char **lab,
				 const char **keys, size_t nkeys, const fk_parse_opts *po,
				 int *status)
{
	fk_profile *dst = fk_profile_new(flags);
	char **frames = calloc(nkeys + 1, sizeof(char *));
	char unit[64] = "", unit_format[32] = "", format[32] = "";
	const char *unit_from = NULL;
	int ok = 0, skipped = 0;
	*status = FK_EXIT_ERROR;
	if (!dst || !frames) {
		cli_err("out of memory");
		goto fail;
	}
	for (int i = 0; i < nin; i++) {
		fk_profile *p = fk_profile_new(flags);
		if (!p) {
			cli_err("out of memory");
			goto fail;
		}
		char *one[] = { (char *)in[i].path };
		int st = cli_load(p, one, 1, po, format);
		if (st == FK_EXIT_ERROR) {
			skipped++;
			fk_profile_free(p);
			continue;
		}
		skipped += st == FK_EXIT_SKIPPED;
		ok++;
		const char *u = fk_profile_unit(p);
		if (u && !unit_from) {
			snprintf(unit, sizeof(unit), "%s", u);
			memcpy(unit_format, format, sizeof(format));
			unit_from = in[i].path;
		} else if (u && strcmp(u, unit)) {
			fk_warn_mixed_units(in[i].path, u, format, unit_from, unit, unit_format);
		}
		for (size_t k = 0; k < nkeys; k++) {
			size_t kl = strlen(keys[k]);
			const char *v = !strcmp(keys[k], "host") && in[i].host ? in[i].host
					: label_value(lab + in[i].first, in[i].n, keys[k], kl);
			size_t vl = v ? strlen(v) : 0;
			free(frames[k]);
			frames[k] = malloc(kl + vl + 2);
			if (!frames[k]) {
				fk_profile_free(p);
				cli_err("out of memory");
				goto fail;
			}
			memcpy(frames[k], keys[k], kl);
			frames[k][kl] = '=';
			memcpy(frames[k] + kl + 1, v ? v : "", vl + 1);
		}
		int rc = fk_profile_merge_under(dst, p, (const char *const *)frames, nkeys);
		if (u && !rc && !fk_profile_unit(dst))
			rc = fk_profile_set_unit(dst, unit);
		fk_profile_free(p);
		if (rc) {
			cli_err("%s", fk_strerror(rc));
			goto fail;
		}
	}
	for (size_t k = 0; k < nkeys; k++)
		free(frames[k]);
	free(frames);
	if (!ok) {
		fk_profile_free(dst);
		return NULL;
	}
	*status = skipped ? FK_EXIT_SKIPPED : FK_EXIT_OK;
	return dst;
fail:
	for (size_t k = 0; frames && k < nkeys; k++)
		free(frames[k]);
	free(frames);
	fk_profile_free(dst);
	return NULL;
}

static int run_common(int argc, char **argv, bool merge)
{
	/* The parsers' big arrays (stacks, names) grow by doubling: from the heap they grow
	 * in place and reuse freed pages, where each fresh mmap costs a fault and a zeroing
	 * per page; and a heap is not trimmed while the program runs (giving pages back
	 * interrupts the other thread's CPU to flush its TLB). Measured in
	 * bench/b-collapse.sh. Only here: the other commands keep less memory with glibc's
	 * defaults (18 MB less for the 250k-stack SVG of bench/b-svg.sh). */
	mallopt(M_MMAP_THRESHOLD, 512 << 20);
	mallopt(M_TRIM_THRESHOLD, 1024 << 20);
	fk_parse_opts po;
	fk_parse_opts_init(&po);
	struct cli_io io = { 0 };
	struct collapse_cli cc = { .emit = EMIT_BY_NAME };
	fkp_optset sets[3];
	collapse_sets(sets, &io, &cc, &po);
	char hint[64];
	snprintf(hint, sizeof(hint), "see flamekit %s --help", argv[0]);
	fkp_parser parser = { .sets = sets, .nsets = 3, .hint = hint };
	/* labels in force, as given (a later one of a key wins); every input keeps a copy of
	 * the list as it was when the input came */
	size_t cap = (size_t)argc * (size_t)argc + 1;
	const char **lab = calloc(cap, sizeof(char *)), **cur = calloc((size_t)argc + 1, sizeof(char *));
	const char **keys = calloc((size_t)argc + 1, sizeof(char *));
	input *in = calloc((size_t)argc + 1, sizeof(input));
	size_t nlab = 0, ncur = 0, nkeys = 0;
	int nin = 0, status = FK_EXIT_USAGE;
	bool opts_done = false, trailing = false;
	if (!lab || !cur || !keys || !in) {
		cli_err("out of memory");
		status = FK_EXIT_ERROR;
		goto out;
	}
	/* options and inputs in order: a --label applies to the inputs after it */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--") && !opts_done) {
			opts_done = true;
			continue;
		}
		if (opts_done || a[0] != '-' || !strcmp(a, "-")) {
			char *f = argv[i];
			input *x = &in[nin++];
			x->path = f;
			const char *eq = strchr(f, '=');
			if (merge && eq && eq != f && !is_file(f) && is_file(eq + 1)) {
				/* NAME=FILE: the file, labelled host=NAME */
				char *name = strndup(f, (size_t)(eq - f));
				if (!name) {
					cli_err("out of memory");
					status = FK_EXIT_ERROR;
					goto out;
				}
				x->host = name;
				x->path = eq + 1;
				bool have = false;
				for (size_t k = 0; k < nkeys; k++)
					have |= !strcmp(keys[k], "host");
				if (!have && !(keys[nkeys++] = strdup("host"))) {
					cli_err("out of memory");
					status = FK_EXIT_ERROR;
					goto out;
				}
			}
			x->first = nlab;
			x->n = ncur;
			memcpy(lab + nlab, cur, ncur * sizeof(char *));
			nlab += ncur;
			trailing = false;
			continue;
		}
		cc.label = NULL;
		int r = fkp_opt_one(&parser, argc, argv, &i);
		if (r < 0)
			goto out;
		if (r == 0) {
			cli_err("unknown option '%s' (%s)", a, hint);
			goto out;
		}
		const char *label = cc.label;
		if (label) {
			const char *eq = strchr(label, '=');
			if (!eq || eq == label) {
				cli_err("--label: expected KEY=VALUE, got '%s'", label);
				goto out;
			}
			size_t kl = (size_t)(eq - label), k = 0;
			while (k < nkeys && (strlen(keys[k]) != kl || strncmp(keys[k], label, kl)))
				k++;
			if (k == nkeys) {
				char *key = strndup(label, kl);
				if (!key) {
					cli_err("out of memory");
					status = FK_EXIT_ERROR;
					goto out;
				}
				keys[nkeys++] = key;
			}
			size_t c = 0;
			while (c < ncur && (strncmp(cur[c], label, kl + 1)))
				c++;
			cur[c] = label;
			if (c == ncur)
				ncur++;
			trailing = true;
		}
	}
	const char *out_path = io.output, *keep = io.keep, *drop = io.drop;
	bool timestamps = cc.timestamps;
	if (trailing) {
		/* labels after the last input: for every input that has none of that key */
		for (int k = 0; k < nin; k++) {
			size_t first = nlab;
			memcpy(lab + nlab, cur, ncur * sizeof(char *));
			nlab += ncur;
			memcpy(lab + nlab, lab + in[k].first, in[k].n * sizeof(char *));
			nlab += in[k].n;
			in[k].first = first;
			in[k].n += ncur;
		}
	}
	/* the -o name picks the output (fk_output_for_path) unless --emit says it; a name
	 * that says another output than --emit, or a drawing, is a mistake */
	static const int emit_of[] = { [FK_OUTPUT_DEFAULT] = EMIT_BY_NAME,
				       [FK_OUTPUT_FOLDED] = EMIT_FOLDED, [FK_OUTPUT_PPROF] = EMIT_PPROF,
				       [FK_OUTPUT_SPEEDSCOPE] = EMIT_SPEEDSCOPE,
				       [FK_OUTPUT_SVG] = EMIT_DRAWING, [FK_OUTPUT_HTML] = EMIT_DRAWING };
	int kind = fk_output_for_path(out_path), by_name = emit_of[kind];
	if (by_name == EMIT_DRAWING) {
		cli_err("%s: %s writes stacks (folded, samples, pprof, speedscope), not %s: draw them "
			"with flamekit %s", out_path, argv[0], kind == FK_OUTPUT_SVG ? "an SVG" : "a page",
			kind == FK_OUTPUT_SVG ? "svg" : "html");
		goto out;
	}
	if (cc.emit == EMIT_BY_NAME)
		cc.emit = by_name == EMIT_BY_NAME ? EMIT_FOLDED : by_name;
	else if (by_name != EMIT_BY_NAME && by_name != cc.emit) {
		cli_err("--emit %s and -o %s (%s) contradict each other", emit_names[cc.emit],
			out_path, fk_output_name(kind));
		goto out;
	}
	if (timestamps && cc.emit != EMIT_PPROF) {
		cli_err("--timestamps: only with pprof output (--emit pprof)");
		goto out;
	}
	if (merge && nin == 0) {
		cli_err("merge: no input files (see flamekit merge --help)");
		goto out;
	}
	bool samples = cc.emit == EMIT_SAMPLES, pprof = cc.emit == EMIT_PPROF;
	bool speedscope = cc.emit == EMIT_SPEEDSCOPE;
	/* pprof labels the samples with their pid/tid/comm, speedscope shows them in time
	 * order: keep the records */
	unsigned flags = samples || pprof || speedscope ? FK_PROFILE_SAMPLES : 0;
	/* files of folded stacks sorted as collapse tools write them (one per host, say) are
	 * summed as they stream through, nothing held; any other input is read whole */
	fkp_out out;
	bool out_open = false, stream = cc.emit == EMIT_FOLDED && !nkeys && !keep && !drop &&
		(!po.format || !strcmp(po.format, "folded")) && !po.rust_names && !po.cxx_names;
	const char **paths = stream ? calloc((size_t)nin + 1, sizeof(char *)) : NULL;
	for (int k = 0; paths && k < nin; k++)
		if (!strcmp((paths[k] = in[k].path), "-"))
			stream = false;
	if (paths && stream) {
		if (fkp_out_open(&out, out_path)) {
			free(paths);
			status = FK_EXIT_ERROR;
			goto out;
		}
		out_open = true;
		int rc = fk_fold_sorted_files(paths, (size_t)nin, out.f);
		if (rc != 1) {
			free(paths);
			if (rc && rc != -FK_E_CHANGED) /* (which the library names the input of) */
				cli_err("%s: %s", out_path ? out_path : "<stdout>", fk_strerror(rc));
			status = fkp_out_close(&out, rc == 0) || rc ? FK_EXIT_ERROR : FK_EXIT_OK;
			goto out;
		}
	}
	free(paths);
	fk_profile *p;
	if (nkeys || merge) {
		p = read_labelled(flags, in, nin, lab, keys, nkeys, &po, &status);
		if (p && cli_filter(&p, keep, drop) != FK_EXIT_OK) {
			status = FK_EXIT_USAGE;
			goto out;
		}
		if (!p && status != FK_EXIT_USAGE)
			status = FK_EXIT_ERROR;
	} else {
		char **files = calloc((size_t)nin + 1, sizeof(char *));
		if (!files) {
			cli_err("out of memory");
			status = FK_EXIT_ERROR;
			goto out;
		}
		for (int k = 0; k < nin; k++)
			files[k] = (char *)in[k].path;
		p = cli_read(flags, files, nin, &po, keep, drop, &status);
		free(files);
	}
	if (!p) {
		if (out_open)
			fkp_out_close(&out, false);
		goto out;
	}
	if (!out_open && fkp_out_open(&out, out_path)) {
		fk_profile_free(p);
		status = FK_EXIT_ERROR;
		goto out;
	}
	int rc;
	if (pprof) {
		fk_pprof_opts pp;
		fk_pprof_opts_init(&pp);
		pp.root_labels = nkeys; /* the labels' root frames go back to being labels */
		pp.timestamps = timestamps;
		rc = fk_write_pprof(p, &pp, out.f);
	} else if (speedscope) {
		fk_speedscope_opts so;
		fk_speedscope_opts_init(&so);
		so.name = nin == 1 ? in[0].path : NULL;
		rc = fk_write_speedscope(p, &so, out.f);
	} else {
		rc = samples ? fk_profile_write_samples(p, out.f) : fk_profile_write_folded(p, out.f);
	}
	fk_profile_free(p);
	if (rc)
		cli_err("%s: %s", out_path ? out_path : "<stdout>", fk_strerror(rc));
	if (fkp_out_close(&out, rc == 0) || rc)
		status = FK_EXIT_ERROR;
out:
	for (int k = 0; in && k < nin; k++)
		free((char *)in[k].host);
	for (size_t k = 0; keys && k < nkeys; k++)
		free((char *)keys[k]);
	free(lab);
	free(cur);
	free(in);
	free(keys);
	return status;
}

static int collapse_run(int argc, char **argv) { return run_common(argc, argv, false); }
static int merge_run(int argc, char **argv) { return run_common(argc, argv, true); }

const struct fk_cmd fk_cmd_collapse = {
	.name = "collapse",
	.summary = "fold stack samples of any supported format into folded stacks",
	.run = collapse_run,
	.help = collapse_help,
};

const struct fk_cmd fk_cmd_merge = {
	.name = "merge",
	.summary = "merge profiles (e.g. one per host) into one folded profile",
	.run = merge_run,
	.help = merge_help,
};

/* cmd-collapse.c - `flamekit collapse` (any input -> folded stacks) and
 * `flamekit merge` (many profiles -> one). */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void collapse_help(FILE *out)
{
	fputs("usage: flamekit collapse [options] [FILE...]\n\n"
	      "Reads stack samples (perf script text, perf report -g folded, SystemTap,\n"
	      "GDB backtraces, DTrace, bpftrace, folded stacks, flamekit samples) from\n"
	      "FILEs or standard input (no FILE, or -) and writes folded stacks:\n"
	      "'frame;frame;leaf count', root first, one line per unique stack, sorted.\n\n"
	      "  -o, --output FILE   write to FILE (replaced only when all went well)\n"
	      "  --keep REGEX        keep only stacks whose folded text matches REGEX (POSIX ERE)\n"
	      "  --drop REGEX        drop stacks whose folded text matches REGEX\n"
	      "  --emit FORMAT       folded (default); samples: one timestamped line per\n"
	      "                      sample (time pid tid cpu comm weight stack; for heatmap);\n"
	      "                      pprof: gzipped profile.proto (go tool pprof, Pyroscope,\n"
	      "                      Parca), pid/tid/comm of samples as labels. Default by\n"
	      "                      the -o name: .pb.gz or .pprof -> pprof, .speedscope.json\n"
	      "                      -> speedscope; speedscope: JSON for speedscope.app (the\n"
	      "                      stacks, and the samples in time order when timestamped)\n"
	      "  --label KEY=VALUE   pprof: a label on every sample (host, service...);\n"
	      "                      repeatable\n\n", out);
	cli_input_help(out);
	fputs("\nExit status: 0 ok; 1 error, nothing written; 2 usage error;\n"
	      "3 output written but some input was malformed and skipped (warnings name\n"
	      "file:line).\n", out);
}

static void merge_help(FILE *out)
{
	fputs("usage: flamekit merge [-o FILE] [--keep RE] [--drop RE] FILE...\n\n"
	      "Merges profiles (folded stacks or any input format, e.g. one file per host)\n"
	      "into one folded profile: counts of identical stacks are added.\n"
	      "Takes the same options as `flamekit collapse`.\n", out);
}

static int run_common(int argc, char **argv, bool need_files)
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
	const char *out_path = NULL, *keep = NULL, *drop = NULL, *emit = NULL;
	const char **labels = calloc((size_t)argc, sizeof(char *));
	size_t nlabels = 0;
	if (!labels) {
		cli_err("out of memory");
		return FK_EXIT_ERROR;
	}
	char **files = argv + 1;
	int nfiles = 0;
	bool opts_done = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (cli_take_file(argv, i, files, &nfiles, &opts_done))
			continue;
		int r = cli_input_option(&po, argc, argv, &i);
		if (r < 0)
			return FK_EXIT_USAGE;
		if (r > 0)
			continue;
		const char **target = NULL;
		if (!strcmp(a, "-o") || !strcmp(a, "--output"))
			target = &out_path;
		else if (!strcmp(a, "--keep"))
			target = &keep;
		else if (!strcmp(a, "--drop"))
			target = &drop;
		else if (!strcmp(a, "--emit"))
			target = &emit;
		else if (!strcmp(a, "--label"))
			target = &labels[nlabels++];
		if (!target) {
			free(labels);
			cli_err("%s: unknown option '%s' (see flamekit %s --help)", argv[0], a, argv[0]);
			return FK_EXIT_USAGE;
		}
		if (i + 1 >= argc) {
			cli_err("%s needs a value", a);
			free(labels);
			return FK_EXIT_USAGE;
		}
		*target = argv[++i];
	}
	int status = FK_EXIT_USAGE;
	if (!emit)
		emit = cli_emit_for_path(out_path);
	if (strcmp(emit, "folded") && strcmp(emit, "samples") && strcmp(emit, "pprof") &&
	    strcmp(emit, "speedscope")) {
		cli_err("--emit: expected folded, samples, pprof or speedscope, got '%s'", emit);
		goto out;
	}
	for (size_t k = 0; k < nlabels; k++)
		if (!strchr(labels[k], '=') || labels[k][0] == '=') {
			cli_err("--label: expected KEY=VALUE, got '%s'", labels[k]);
			goto out;
		}
	if (nlabels && strcmp(emit, "pprof")) {
		cli_err("--label: only pprof output has labels (--emit pprof)");
		goto out;
	}
	if (need_files && nfiles == 0) {
		cli_err("merge: no input files (see flamekit merge --help)");
		goto out;
	}
	bool samples = !strcmp(emit, "samples"), pprof = !strcmp(emit, "pprof");
	bool speedscope = !strcmp(emit, "speedscope");
	/* pprof labels the samples with their pid/tid/comm, speedscope shows them in time
	 * order: keep the records */
	fk_profile *p = cli_read(samples || pprof || speedscope ? FK_PROFILE_SAMPLES : 0, files,
				 nfiles, &po, keep,
				 drop, &status);
	if (!p)
		goto out;
	cli_out out;
	if (cli_out_open(&out, out_path)) {
		fk_profile_free(p);
		status = FK_EXIT_ERROR;
		goto out;
	}
	int rc;
	if (pprof) {
		fk_pprof_opts pp;
		fk_pprof_opts_init(&pp);
		pp.labels = labels;
		pp.nlabels = nlabels;
		rc = fk_write_pprof(p, &pp, out.f);
	} else if (speedscope) {
		fk_speedscope_opts so;
		fk_speedscope_opts_init(&so);
		so.name = nfiles == 1 ? files[0] : NULL;
		rc = fk_write_speedscope(p, &so, out.f);
	} else {
		rc = samples ? fk_profile_write_samples(p, out.f) : fk_profile_write_folded(p, out.f);
	}
	fk_profile_free(p);
	if (rc)
		cli_err("%s: %s", out_path ? out_path : "<stdout>", fk_strerror(rc));
	if (cli_out_close(&out, rc == 0) || rc)
		status = FK_EXIT_ERROR;
out:
	free(labels);
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

/* cmd-heatmap.c - `flamekit heatmap`: timestamped samples -> one offline HTML page
 * (subsecond-offset heat map + range flame graphs), or per-cell counts as TSV. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"

static void heatmap_help(FILE *out)
{
	fputs("usage: flamekit heatmap [options] [FILE...] -o out.html\n\n"
	      "Reads timestamped samples (perf script text, or the samples format written\n"
	      "by `flamekit collapse --emit samples`, the perf plugin and the gdb command)\n"
	      "and writes one self-contained HTML page: a subsecond-offset heat map (x:\n"
	      "seconds, y: offset within the second, colour: the counts). Drag over it (or\n"
	      "click a start cell, then an end cell) to see the flame graph of that time\n"
	      "range; a second range shows a differential flame graph. Works offline.\n\n"
	      "  -o, --output FILE   write to FILE (default: standard output)\n"
	      "  --rows N            rows per second (default 50: 20 ms cells)\n"
	      "  --start SEC         ignore samples before SEC seconds after the first\n"
	      "                      sample's whole second (the page's second numbers)\n"
	      "  --end SEC           ignore samples from SEC on (same origin)\n"
	      "  --range START-END   same as --start START --end END\n"
	      "  --scale linear|rank colour scale (default linear: shows the real load;\n"
	      "                      rank shows subtle variation); switchable in the page\n"
	      "  --isolate COMM      keep only samples of process/thread name COMM;\n"
	      "                      pid:N or tid:N keeps one process or thread\n"
	      "  --highlight A,B     colour cells where comms A, B... have samples (up to 8)\n"
	      "  --keep REGEX        keep only stacks whose folded text matches REGEX (POSIX ERE)\n"
	      "  --drop REGEX        drop stacks whose folded text matches REGEX\n"
	      "  --idle              drop idle stacks (swapper, cpu_idle, do_idle, intel_idle...)\n"
	      "  --periods           weigh perf samples by their period, as every command\n"
	      "                      does (the default; --samples counts samples instead)\n"
	      "  --title TEXT        page title\n"
	      "  --countname NAME    what counts are called (default: the input's unit,\n"
	      "                      e.g. ns for perf cpu-clock periods, else samples)\n"
	      "  --inverted          icicle flame graphs (root at the top)\n"
	      "  --cells             print per-cell counts instead of the page, as TSV:\n"
	      "                      second<TAB>row<TAB>count, non-empty cells only, sorted;\n"
	      "                      row 0 is offset 0 of the second\n\n", out);
	cli_input_help(out);
	fputs("\nExit status: 0 ok; 1 error, nothing written; 2 usage error;\n"
	      "3 output written but some input was malformed and skipped.\n", out);
}

static int parse_range(const char *s, double *a, double *b)
{
	/* START-END; a leading '-' on START would be a negative second */
	const char *dash = strchr(s + (*s == '-'), '-');
	if (!dash) {
		cli_err("--range: expected START-END, got '%s'", s);
		return -1;
	}
	char *first = strndup(s, (size_t)(dash - s));
	if (!first) {
		cli_err("out of memory");
		return -1;
	}
	int rc = cli_number("--range", first, a) || cli_number("--range", dash + 1, b) ? -1 : 0;
	free(first);
	return rc;
}

static int run(int argc, char **argv)
{
	fk_parse_opts po;
	fk_parse_opts_init(&po);
	/* weights as `flamekit svg --range` counts them: one range, one number */
	fk_heatmap_opts ho;
	fk_heatmap_opts_init(&ho);
	const char *out_path = NULL, *keep = NULL, *drop = NULL;
	bool cells = false;
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
		if (!strcmp(a, "--cells")) {
			cells = true;
			continue;
		}
		if (!strcmp(a, "--idle")) {
			ho.idle_filter = true;
			continue;
		}
		if (!strcmp(a, "--periods")) {
			po.samples = false;
			continue;
		}
		if (!strcmp(a, "--inverted")) {
			ho.svg.inverted = true;
			continue;
		}
		static const char *const valued[] = { "-o", "--output", "--rows", "--start", "--end",
			"--range", "--scale", "--isolate", "--highlight", "--title", "--countname",
			"--keep", "--drop" };
		const char *name = NULL, *v = NULL;
		for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]) && !name; k++) {
			size_t n = strlen(valued[k]);
			if (!strcmp(a, valued[k])) {
				name = valued[k];
				if (i + 1 >= argc) {
					cli_err("%s needs a value", a);
					return FK_EXIT_USAGE;
				}
				v = argv[++i];
			} else if (n > 2 && !strncmp(a, valued[k], n) && a[n] == '=') {
				name = valued[k];
				v = a + n + 1;
			}
		}
		if (!name) {
			cli_err("heatmap: unknown option '%s' (see flamekit heatmap --help)", a);
			return FK_EXIT_USAGE;
		}
		double d;
		if (!strcmp(name, "-o") || !strcmp(name, "--output")) {
			out_path = v;
		} else if (!strcmp(name, "--rows")) {
			if (cli_number(name, v, &d))
				return FK_EXIT_USAGE;
			if (d < 1 || d > 1000 || d != floor(d)) {
				cli_err("--rows: expected a whole number from 1 to 1000, got '%s'", v);
				return FK_EXIT_USAGE;
			}
			ho.rows = (unsigned)d;
		} else if (!strcmp(name, "--start")) {
			if (cli_number(name, v, &ho.start))
				return FK_EXIT_USAGE;
		} else if (!strcmp(name, "--end")) {
			if (cli_number(name, v, &ho.end))
				return FK_EXIT_USAGE;
		} else if (!strcmp(name, "--range")) {
			if (parse_range(v, &ho.start, &ho.end))
				return FK_EXIT_USAGE;
		} else if (!strcmp(name, "--scale")) {
			if (strcmp(v, "linear") && strcmp(v, "rank")) {
				cli_err("--scale: expected linear or rank, got '%s'", v);
				return FK_EXIT_USAGE;
			}
			ho.rank = !strcmp(v, "rank");
		} else if (!strcmp(name, "--isolate")) {
			ho.isolate = v;
		} else if (!strcmp(name, "--highlight")) {
			ho.highlight = v;
		} else if (!strcmp(name, "--title")) {
			ho.title = v;
		} else if (!strcmp(name, "--countname")) {
			ho.svg.countname = v;
		} else if (!strcmp(name, "--keep")) {
			keep = v;
		} else if (!strcmp(name, "--drop")) {
			drop = v;
		}
	}
	if ((!isnan(ho.start) && !isfinite(ho.start)) || (!isnan(ho.end) && !isfinite(ho.end))) {
		cli_err("--start/--end: expected finite numbers");
		return FK_EXIT_USAGE;
	}
	if (!isnan(ho.start) && !isnan(ho.end) && ho.end <= ho.start) {
		cli_err("empty time range: --end must be after --start");
		return FK_EXIT_USAGE;
	}

	int status;
	fk_profile *p = cli_read(FK_PROFILE_SAMPLES, files, nfiles, &po, keep, drop, &status);
	if (!p)
		return status;
	cli_out out;
	if (cli_out_open(&out, out_path)) {
		fk_profile_free(p);
		return FK_EXIT_ERROR;
	}
	int rc = cells ? fk_heatmap_cells(p, &ho, out.f) : fk_render_heatmap(p, &ho, out.f);
	fk_profile_free(p);
	/* other errors (no timestamps, empty after filters, span too long) were
	 * explained by the library's own message */
	if (rc == -FK_E_WRITE)
		cli_err("%s: %s", out_path ? out_path : "<stdout>", fk_strerror(rc));
	else if (rc == -FK_E_NOMEM)
		cli_err("heatmap: %s", fk_strerror(rc));
	if (cli_out_close(&out, rc == 0) || rc)
		return rc == -FK_E_INVAL ? FK_EXIT_USAGE : FK_EXIT_ERROR;
	return status;
}

const struct fk_cmd fk_cmd_heatmap = {
	.name = "heatmap",
	.summary = "subsecond-offset heat map with time-range flame graphs (one HTML file)",
	.run = run,
	.help = heatmap_help,
};

/* main.c - the flamekit program: dispatches subcommands from one table. */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

/* Each command lives in cmd-<name>.c. */
#define FK_CMD(n) extern const struct fk_cmd fk_cmd_##n;
FK_CMD(collapse) FK_CMD(merge) FK_CMD(svg) FK_CMD(html) FK_CMD(diff) FK_CMD(heatmap)
FK_CMD(gdb) FK_CMD(stap) FK_CMD(bpftrace) FK_CMD(formats) FK_CMD(options)
#undef FK_CMD

static const struct fk_cmd *const commands[] = {
	&fk_cmd_collapse, &fk_cmd_merge, &fk_cmd_svg, &fk_cmd_html, &fk_cmd_diff, &fk_cmd_heatmap,
	&fk_cmd_gdb, &fk_cmd_stap, &fk_cmd_bpftrace, &fk_cmd_formats, &fk_cmd_options,
};

static void usage(FILE *out)
{
	fprintf(out, "usage: flamekit COMMAND [options] [FILE...]\n"
		     "       flamekit COMMAND --help | flamekit --version\n\n"
		     "Turns sampled stack traces into folded stacks and flame graphs.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out, "\nExit status: 0 ok, 1 error, 2 usage error, 3 output written but some input was skipped.\n");
}

/* A closed standard output (`flamekit collapse big | head -1`) is the reader's choice to
 * stop, not a failure: the job ends at once, quietly, with status 0. SIGPIPE is caught
 * rather than ignored, so a child tool starts with its default again (exec resets a
 * caught signal, not an ignored one). A broken pipe on another descriptor (stderr)
 * comes back from write() as EPIPE and is reported as the error it is. */
static void on_sigpipe(int sig)
{
	(void)sig;
	struct pollfd p = { .fd = 1, .events = POLLOUT };
	if (poll(&p, 1, 0) == 1 && (p.revents & POLLERR))
		_exit(FK_EXIT_OK);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigpipe, .sa_flags = SA_RESTART };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	if (argc < 2) {
		usage(stderr);
		return FK_EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help")) {
		if (argc > 2 && strcmp(name, "help") == 0) {
			for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
				if (!strcmp(commands[i]->name, argv[2])) {
					commands[i]->help(stdout);
					return 0;
				}
		}
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "-V")) {
		printf("flamekit %s\n", FK_VERSION_STRING);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		const struct fk_cmd *c = commands[i];
		if (strcmp(c->name, name))
			continue;
		for (int a = 2; a < argc; a++) {
			if (!strcmp(argv[a], "--"))
				break;
			if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
				c->help(stdout);
				return fflush(stdout) ? FK_EXIT_ERROR : 0;
			}
		}
		return c->run(argc - 1, argv + 1);
	}
	cli_err("unknown command '%s' (see flamekit --help)", name);
	return FK_EXIT_USAGE;
}

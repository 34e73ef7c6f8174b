/* cmd-bpftrace.c - `flamekit bpftrace`: samples stacks with bpftrace for -d
 * seconds or until Ctrl-C, reads the map bpftrace prints as it stops and renders
 * it (or prints the bpftrace command line). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

/* The command's own options; -o, the renderer's and --offsets are the shared rows. */
struct bt_cli {
	int pid, hz, duration, io;
	bool kernel, user, both, folded, print_cmd, offwake;
	const char *tracer;
};

#define OFF(f) offsetof(struct bt_cli, f)
static const fk_option bt_rows[] = {
	{ "pid", NULL, 'p', FK_OPT_INT, 0, OFF(pid), 1, INT_MAX, NULL, "PID",
	  "sample this process only (bpftrace -p: its user symbols resolve)", NULL },
	{ "kernel", NULL, 0, FK_OPT_FLAG, 0, OFF(kernel), 0, 0, NULL, NULL, "kernel stacks only", NULL },
	{ "user", NULL, 0, FK_OPT_FLAG, 0, OFF(user), 0, 0, NULL, NULL, "user stacks only", NULL },
	{ "both", NULL, 0, FK_OPT_FLAG, 0, OFF(both), 0, 0, NULL, NULL,
	  "user stacks with kernel stacks on top (default)", NULL },
	{ "frequency", NULL, 'F', FK_OPT_INT, 0, OFF(hz), 1, 100000, NULL, "HZ",
	  "samples per second per CPU (default 99)", NULL },
	{ "duration", NULL, 'd', FK_OPT_INT, 0, OFF(duration), 1, 1000000000, NULL, "SEC",
	  "stop after SEC seconds (default: at Ctrl-C)", NULL },
	{ "io", NULL, 0, FK_OPT_CHOICE, 0, OFF(io), 0, 0, "read|write", "KIND",
	  "bytes by stack instead of samples: each read(2)/write(2) that returns n > 0 "
	  "adds n (syscalls:sys_exit_read/write; user stacks unless --kernel/--both)", NULL },
	{ "off-wake", NULL, 0, FK_OPT_FLAG, 0, OFF(offwake), 0, 0, NULL, NULL,
	  "blocked time by blocked stack, '--', then the waker's stack leaf first "
	  "(sched_switch paired with sched_waking in the kernel; microseconds)", NULL },
	{ "folded", NULL, 0, FK_OPT_FLAG, 0, OFF(folded), 0, 0, NULL, NULL,
	  "write folded stacks instead of an SVG (as -o NAME.folded does)", NULL },
	{ "print-command", NULL, 0, FK_OPT_FLAG, 0, OFF(print_cmd), 0, 0, NULL, NULL,
	  "print the bpftrace command line and exit", NULL },
	{ "bpftrace", NULL, 0, FK_OPT_TEXT, 0, OFF(tracer), 0, 0, NULL, "PATH",
	  "the bpftrace program (default $BPFTRACE or bpftrace)", NULL },
};
#undef OFF

const fk_option *cli_bpftrace_options(size_t *n)
{
	*n = sizeof(bt_rows) / sizeof(bt_rows[0]);
	return bt_rows;
}

static const char *const offsets_only[] = { "offsets", NULL };

/* The option sets: -o, the command's rows, --offsets of the input rows, the renderer's. */
static void bt_sets(fkp_optset sets[4], struct cli_io *io, struct bt_cli *bc, fk_parse_opts *po,
		    fk_svg_opts *so)
{
	size_t n;
	sets[0] = cli_io_set(io, false);
	sets[1] = (fkp_optset){ bt_rows, sizeof(bt_rows) / sizeof(bt_rows[0]), bc, NULL, NULL };
	sets[2] = (fkp_optset){ fk_parse_options(&n), n, po, NULL, offsets_only };
	sets[3] = (fkp_optset){ fk_svg_options(&n), n, so, "SVG options (as flamekit svg; not "
				"--flamechart or --range: bpftrace's stacks come without times):", NULL };
}

static void bpftrace_help(FILE *out)
{
	struct cli_io io;
	struct bt_cli bc;
	fk_parse_opts po;
	fk_svg_opts so;
	fkp_optset sets[4];
	bt_sets(sets, &io, &bc, &po, &so);
	fputs("usage: flamekit bpftrace [-p PID] [options] [SVG options]\n\n"
	      "Samples stacks with bpftrace's profile probe, kernel and user stacks aggregated\n"
	      "in the kernel, until Ctrl-C or for -d SECONDS; bpftrace then prints its map,\n"
	      "which is drawn as a flame graph (user frames under kernel frames). Without\n"
	      "-p every process is sampled, under a root frame with its name. The -o name\n"
	      "picks the output as for flamekit svg (FILE.html the page, FILE.pb.gz pprof,\n"
	      "FILE.speedscope.json, FILE.folded); every option is checked before bpftrace\n"
	      "starts.\n\n", out);
	for (int i = 0; i < 4; i++) {
		if (i == 3)
			fputc('\n', out);
		fkp_opt_help(out, &sets[i]);
	}
	fputs("\nbpftrace needs root (or CAP_BPF and CAP_PERFMON) and a kernel with BPF and\n"
	      "perf events. Its own messages go to standard error.\n\n"
	      "Exit status: 0 ok; 1 error (bpftrace failed or printed no stacks), nothing\n"
	      "written; 2 usage error; 3 output written but some of bpftrace's output was\n"
	      "malformed.\n", out);
}

/* The bpftrace program: maps aggregated in the kernel, printed as bpftrace stops.
 * Keys list scalars first (root frames), then the stacks (the parser puts user
 * frames under kernel frames). NULL when out of memory. */
static char *build_prog(const struct bt_cli *bc)
{
	/* which stacks: --kernel, --user, --both; I/O defaults to user stacks (the
	 * kernel's at a syscall's exit is always the exit path) */
	bool k = bc->kernel || bc->both || (!bc->user && bc->io < 0),
	     u = bc->user || bc->both || !bc->kernel;
	char filter[48] = "", stop[48] = "", *prog = NULL;
	if (bc->duration)
		snprintf(stop, sizeof(stop), " interval:s:%d { exit(); }", bc->duration);
	int n;
	if (bc->io >= 0) {
		/* bytes by stack: error returns (negative) and EOF add nothing */
		if (bc->pid)
			snprintf(filter, sizeof(filter), " && pid == %d", bc->pid);
		n = asprintf(&prog, "tracepoint:syscalls:sys_exit_%s /args->ret > 0%s/ "
			     "{ @[comm%s%s] = sum(args->ret); }%s",
			     bc->io ? "write" : "read", filter, k ? ", kstack" : "",
			     u ? ", ustack" : "", stop);
	} else if (bc->offwake) {
		/* Off-wake (docs/resource-graphs.md), as bcc's offwaketime pairs them:
		 * the waker's stacks and comm are kept by the wakee's tid at
		 * sched_waking, which fires in the waker's context (sched_wakeup does
		 * not when the kernel completes the wakeup on the wakee's CPU through
		 * its wake list: that is the idle task's interrupt, swapper/N, no
		 * stack). Only for a thread seen blocking, to keep the stack walks
		 * few: a waking that comes while the thread is still on its way into
		 * schedule() (before its switch-out) is missed, and that interval is
		 * left out rather than drawn with a wrong waker. A thread that
		 * switches out blocked (a state other than running or preempted: the
		 * low 7 bits) keeps its stacks and the time; when it switches in
		 * again after a wakeup, its blocked microseconds are summed under
		 * [comm, blocked stacks, "--", the waker's kstack, ustack, comm]:
		 * printed leaf first, the waker's leaf is nearest "--". The helper
		 * maps are cleared at the end so that bpftrace prints only @. */
		if (bc->pid)
			snprintf(filter, sizeof(filter), " && pid == %d", bc->pid);
		const char *bs = k && u ? "@bu[$t], @bk[$t]" : k ? "@bk[$t]" : "@bu[$t]";
		const char *ws = k && u ? "@wk[$t], @wu[$t]" : k ? "@wk[$t]" : "@wu[$t]";
		n = asprintf(&prog,
			     "tracepoint:sched:sched_waking /@ts[args->pid]/ { @wc[args->pid] = comm; "
			     "@wk[args->pid] = kstack; @wu[args->pid] = ustack; } "
			     "tracepoint:sched:sched_switch { "
			     "if ((args->prev_state & 0x7f) != 0%s) { $p = args->prev_pid; "
			     "@ts[$p] = nsecs; @bk[$p] = kstack; @bu[$p] = ustack; delete(@wc[$p]); } "
			     "$t = args->next_pid; $s = @ts[$t]; "
			     "if ($s != 0) { if (@wc[$t] != \"\") { "
			     "@[args->next_comm, %s, \"--\", %s, @wc[$t]] = sum((nsecs - $s) / 1000); } "
			     "delete(@ts[$t]); delete(@bk[$t]); delete(@bu[$t]); delete(@wc[$t]); "
			     "delete(@wk[$t]); delete(@wu[$t]); } }%s "
			     "END { clear(@ts); clear(@bk); clear(@bu); clear(@wc); clear(@wk); clear(@wu); }",
			     filter, bs, ws, stop);
	} else {
		if (bc->pid)
			snprintf(filter, sizeof(filter), " /pid == %d/", bc->pid);
		n = asprintf(&prog, "profile:hz:%d%s { @[%s%s] = count(); }%s", bc->hz, filter,
			     bc->pid ? "" : "comm, ",
			     k && u ? "kstack, ustack" : k ? "kstack" : "ustack", stop);
	}
	return n < 0 ? NULL : prog;
}

static int bpftrace_run(int argc, char **argv)
{
	struct cli_io io = { 0 };
	struct bt_cli bc = { .hz = 99, .io = -1, .tracer = getenv("BPFTRACE") };
	fk_parse_opts po;
	fk_parse_opts_init(&po);
	fk_svg_opts so;
	fk_svg_opts_init(&so);
	struct cli_given given;
	cli_given_init(&given);
	fkp_optset sets[4];
	bt_sets(sets, &io, &bc, &po, &so);
	char **ops = argv + 1;
	int nops = 0;
	/* Every option is checked here, before anything is sampled. */
	if (cli_parse(argc, argv, sets, 4, ops, &nops, &given))
		return FK_EXIT_USAGE;
	if (nops) {
		cli_err("bpftrace: unexpected argument '%s' (see flamekit bpftrace --help)", ops[0]);
		return FK_EXIT_USAGE;
	}
	if (bc.kernel + bc.user + bc.both > 1) {
		cli_err("--kernel, --user and --both exclude each other");
		return FK_EXIT_USAGE;
	}
	int out_kind;
	const char *tracer = bc.tracer && *bc.tracer ? bc.tracer : "bpftrace";
	if (!bc.print_cmd &&
	    cli_tracer_kind(io.output, bc.folded, &so, &given, "bpftrace", &out_kind))
		return FK_EXIT_USAGE;

	if (bc.io >= 0 && bc.offwake) {
		cli_err("--io and --off-wake exclude each other");
		return FK_EXIT_USAGE;
	}
	char *prog = build_prog(&bc);
	if (!prog) {
		cli_err("out of memory");
		return FK_EXIT_ERROR;
	}
	char pidbuf[24];
	snprintf(pidbuf, sizeof(pidbuf), "%d", bc.pid);
	/* -p lets bpftrace resolve the process's user symbols (and stop with it). */
	char *args[] = { (char *)tracer, "-e", prog, bc.pid ? "-p" : NULL, pidbuf, NULL };

	if (bc.print_cmd) {
		for (size_t i = 0; args[i]; i++) {
			if (i)
				fputc(' ', stdout);
			fkp_print_shell_word(stdout, args[i]);
		}
		fputc('\n', stdout);
		free(prog);
		return fflush(stdout) || ferror(stdout) ? FK_EXIT_ERROR : FK_EXIT_OK;
	}

	/* the output is opened (a temp file beside it) before anything is sampled: a path
	 * that cannot be written costs no sampling run */
	fkp_out o;
	if (fkp_out_open(&o, io.output)) {
		free(prog);
		return FK_EXIT_ERROR;
	}
	fk_profile *p = fk_profile_new(0);
	if (!p) {
		cli_err("out of memory");
		free(prog);
		fkp_out_close(&o, false);
		return FK_EXIT_ERROR;
	}
	po.format = "bpftrace";
	po.name = "<bpftrace output>";
	/* bpftrace can miss a SIGINT (its stop flag checked, then epoll_wait): 5 s on, again */
	int ret = cli_tracer_run(args, p, &po, "bpftrace", "install bpftrace, or give --bpftrace PATH", 5);
	/* what the counts are: bytes, or the blocked microseconds */
	if ((ret == FK_EXIT_OK || ret == FK_EXIT_SKIPPED) && (bc.io >= 0 || bc.offwake)) {
		if (fk_profile_set_unit(p, bc.io >= 0 ? "bytes" : "us")) {
			cli_err("out of memory");
			ret = FK_EXIT_ERROR;
		}
		fk_profile_set_kind(p, bc.offwake ? FK_KIND_OFFWAKE : FK_KIND_IO);
	}
	free(prog);
	int rc = 0;
	if (ret == FK_EXIT_OK || ret == FK_EXIT_SKIPPED) {
		rc = fk_write_output(p, out_kind, &so, o.f);
		if (rc)
			cli_err("%s: %s", io.output ? io.output : "<stdout>", fk_strerror(rc));
	}
	if (fkp_out_close(&o, rc == 0 && ret != FK_EXIT_ERROR) || rc)
		ret = FK_EXIT_ERROR;
	fk_profile_free(p);
	return ret;
}

const struct fk_cmd fk_cmd_bpftrace = {
	.name = "bpftrace",
	.summary = "sample stacks with bpftrace until Ctrl-C or -d SECONDS, then draw them",
	.run = bpftrace_run,
	.help = bpftrace_help,
};

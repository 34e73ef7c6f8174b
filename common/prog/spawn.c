/* spawn.c - running a child process with the programs' one signal policy (see
 * prog.h): the first SIGINT, SIGTERM or SIGHUP asks the children to stop and this
 * process lives on to draw what they produced; a second one aborts them. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "prog.h"

static const int policy_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGALRM };
#define NSIG_POLICY (sizeof(policy_signals) / sizeof(policy_signals[0]))
static struct sigaction saved[NSIG_POLICY];
static int running;  /* children between fkp_spawn and fkp_wait */

/* What the handler reads and writes: only sig_atomic_t and a fixed table. */
#define MAX_CHILDREN 16
static volatile sig_atomic_t children[MAX_CHILDREN];
static volatile sig_atomic_t stop_sig, aborted;
static volatile sig_atomic_t drawing;  /* fkp_policy_drawing: a first request reaches no child */
static volatile sig_atomic_t notify_fd = -1;
static volatile sig_atomic_t restop;   /* fkp_policy_restop's seconds (0: never) */
static fkp_sigreq requests;

int fkp_sigreq_note(fkp_sigreq *r, int sig, int code, int pid, double now, int supervisor)
{
	if (supervisor > 0 && code == SI_USER && pid == supervisor) {
		/* it forwards one stop (SIGINT), and decides an abort (SIGTERM) */
		if (sig != SIGTERM)
			return r->n ? FKP_SIG_SAME : FKP_SIG_FIRST;
		r->n++;
		return FKP_SIG_AGAIN;
	}
	if (!r->n) {
		*r = (fkp_sigreq){ sig, code, code == SI_USER ? pid : 0, now, 1 };
		return FKP_SIG_FIRST;
	}
	/* timeout(1) signals the command, then its whole process group: the same
	 * signal from the same sender within a second is one request. A terminal's
	 * (SI_KERNEL) second Ctrl-C is a person's second request. */
	if (sig == r->sig && code == r->code && code != SI_KERNEL &&
	    (code == SI_USER ? pid : 0) == r->pid && now - r->at < 1.0)
		return FKP_SIG_SAME;
	r->n++;
	return FKP_SIG_AGAIN;
}

static void signal_children(int sig)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i] > 0)
			kill((pid_t)children[i], sig);
}

/* a full or closed pipe is no error: the signals went too */
static void notify(const char *what)
{
	if (notify_fd >= 0) {
		ssize_t w = write(notify_fd, what, 1);
		(void)w;
	}
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int e = errno;
	if (sig == SIGALRM) {
		/* the abort's grace period is over, or a stop not yet answered */
		if (aborted) {
			signal_children(SIGKILL);
		} else if (stop_sig && restop && !drawing) {
			signal_children(SIGINT);
			alarm((unsigned)restop);
		}
		errno = e;
		return;
	}
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int code = si ? si->si_code : SI_USER;
	int r = fkp_sigreq_note(&requests, sig, code, si ? si->si_pid : 0,
				(double)ts.tv_sec + (double)ts.tv_nsec * 1e-9, 0);
	if (r == FKP_SIG_FIRST) {
		stop_sig = sig;
		/* A terminal's Ctrl-C (SI_KERNEL) went to the whole foreground group,
		 * the children included; anything else may have reached only us.
		 * SIGINT is every tool's "stop and write what you have". */
		if (code != SI_KERNEL && !drawing)
			signal_children(SIGINT);
		if (restop && !drawing)
			alarm((unsigned)restop);
		notify("s");
	} else if (r == FKP_SIG_AGAIN && !aborted) {
		aborted = 1;
		notify("a");
		signal_children(SIGTERM);
		alarm(2);
	}
	errno = e;
}

static void policy_start(void)
{
	if (running++)
		return;
	stop_sig = aborted = drawing = 0;
	requests = (fkp_sigreq){ 0 };
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;  /* readers of a child's pipe (fgets) go on */
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < NSIG_POLICY; i++) {
		struct sigaction *use = &sa, ign;
		if (policy_signals[i] == SIGQUIT) { /* as before: the child's own */
			memset(&ign, 0, sizeof(ign));
			ign.sa_handler = SIG_IGN;
			use = &ign;
		}
		sigaction(policy_signals[i], use, &saved[i]);
	}
}

static void policy_end(void)
{
	if (running <= 0 || --running)
		return;
	alarm(0);
	restop = 0;
	for (size_t i = 0; i < NSIG_POLICY; i++)
		sigaction(policy_signals[i], &saved[i], NULL);
}

static void child_add(pid_t pid)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i] == 0) {
			children[i] = pid;
			return;
		}
}

static void child_remove(pid_t pid)
{
	for (int i = 0; i < MAX_CHILDREN; i++)
		if (children[i] == pid)
			children[i] = 0;
}

pid_t fkp_spawn(char *const argv[], int out_fd, int *pipe_rd, bool quiet_stderr)
{
	int pfd[2] = { -1, -1 };
	if (out_fd == FKP_PIPE && pipe2(pfd, O_CLOEXEC) < 0) {
		fkp_err("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	/* the policy before the fork: a signal in between finds the child listed */
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	policy_start();
	if (aborted) {
		/* a second request came while no child ran (fkp_policy_begin) */
		policy_end();
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (pfd[0] >= 0)
			close(pfd[0]), close(pfd[1]);
		errno = EINTR;
		return -1;
	}
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		policy_end();
		sigprocmask(SIG_SETMASK, &old, NULL);
		fkp_err("fork: %s", strerror(e));
		if (pfd[0] >= 0)
			close(pfd[0]), close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		for (size_t i = 0; i < NSIG_POLICY; i++)
			sigaction(policy_signals[i], &dfl, NULL);
		alarm(0);
		/* if this program dies (kill -9), the child is asked to stop as by
		 * Ctrl-C: a tracer finishes cleanly and lets its target go */
		prctl(PR_SET_PDEATHSIG, SIGINT);
		if (getppid() != parent)
			_exit(127);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		int fd = out_fd == FKP_PIPE ? pfd[1] : out_fd;
		if (fd >= 0 && dup2(fd, 1) < 0)
			_exit(127);
		if (quiet_stderr) {
			int null = open("/dev/null", O_WRONLY);
			if (null >= 0)
				dup2(null, 2);
		}
		execvp(argv[0], argv);
		int e = errno;
		fprintf(stderr, "%s: cannot run %s: %s\n", fkp_prog, argv[0], strerror(e));
		_exit(127);
	}
	child_add(pid);
	/* a first request that came while no child ran (fkp_policy_begin) reaches
	 * this one too, unless the run draws now */
	if (stop_sig && !drawing)
		kill(pid, SIGINT);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (out_fd == FKP_PIPE) {
		close(pfd[1]);
		*pipe_rd = pfd[0];
	}
	return pid;
}

int fkp_wait(pid_t pid)
{
	int status;
	pid_t r;
	while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	int e = errno;
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	child_remove(pid);
	policy_end();
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (r < 0) {
		fkp_err("waitpid: %s", strerror(e));
		return -1;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

int fkp_run(char *const argv[], int out_fd)
{
	pid_t pid = fkp_spawn(argv, out_fd, NULL, false);
	return pid < 0 ? -1 : fkp_wait(pid);
}

/* fn with every signal held back, so a handler never sees the policy half set */
static void signals_held(void (*fn)(void))
{
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	fn();
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* The policy's handlers hold from begin to end: running counts the session as
 * one more child, so neither the requests nor the handlers end between two. */
void fkp_policy_begin(void)
{
	signals_held(policy_start);
}

void fkp_policy_drawing(void)
{
	drawing = 1;
}

void fkp_policy_end(void)
{
	signals_held(policy_end);
}

void fkp_policy_restop(unsigned seconds)
{
	restop = (sig_atomic_t)seconds;
}

void fkp_spawn_notify(int fd)
{
	notify_fd = fd;
}

int fkp_stop_signal(void)
{
	return stop_sig;
}

bool fkp_aborted(void)
{
	return aborted;
}

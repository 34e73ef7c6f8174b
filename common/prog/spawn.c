/* spawn.c - running a child process with the programs' one signal policy (see
 * prog.h): the child owns Ctrl-C, this process waits and lives on. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "prog.h"

static const int policy_signals[] = { SIGINT, SIGQUIT, SIGTERM };
#define NSIG_POLICY (sizeof(policy_signals) / sizeof(policy_signals[0]))
static struct sigaction saved[NSIG_POLICY];
static int running;  /* children between fkp_spawn and fkp_wait */

static void ignore_signals(void)
{
	if (running++)
		return;
	struct sigaction ign;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	for (size_t i = 0; i < NSIG_POLICY; i++)
		sigaction(policy_signals[i], &ign, &saved[i]);
}

static void restore_signals(void)
{
	if (running <= 0 || --running)
		return;
	for (size_t i = 0; i < NSIG_POLICY; i++)
		sigaction(policy_signals[i], &saved[i], NULL);
}

pid_t fkp_spawn(char *const argv[], int out_fd, int *pipe_rd, bool quiet_stderr)
{
	int pfd[2] = { -1, -1 };
	if (out_fd == FKP_PIPE && pipe2(pfd, O_CLOEXEC) < 0) {
		fkp_err("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		fkp_err("fork: %s", strerror(errno));
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
	if (out_fd == FKP_PIPE) {
		close(pfd[1]);
		*pipe_rd = pfd[0];
	}
	ignore_signals();
	return pid;
}

int fkp_wait(pid_t pid)
{
	int status;
	pid_t r;
	while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	int e = errno;
	restore_signals();
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

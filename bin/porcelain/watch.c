/*
 * argus watch's own plumbing, below its loop (watchloop.c), checks
 * (watchcheck.c), thread samples (watchblock.c) and reports
 * (watchreport.c), which all use it: the log, the state file's dirty
 * mark, and children in process groups of their own.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "porcelain.h"
#include "show.h"
#include "watch.h"

static int	state_dirty;

void
wlog(const struct watch *w, const char *fmt, ...)
{
	char when[16], msg[2048];
	time_t t = time(NULL);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	strftime(when, sizeof(when), "%T", localtime(&t));
	fprintf(stderr, "%s argus watch %s: %s\n", when, show(w->name), msg);
}

void
watch_state_dirty(void)
{
	state_dirty = 1;
}

int
watch_state_taken(void)
{
	int was = state_dirty;

	state_dirty = 0;
	return was;
}

pid_t
child_spawn(const char *sh_cmd, char *const argv[], int in, int out,
    void (*first)(void *), void *arg)
{
	sigset_t none;
	pid_t pid;
	int null;

	if ((pid = fork()) == -1) {
		warnx_("watch: fork: %s", strerror(errno));
		return -1;
	}
	if (pid > 0) {
		/* Both sides: whichever runs first, the group exists. */
		setpgid(pid, pid);
		return pid;
	}
	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	null = open("/dev/null", O_RDWR);
	dup2(in != -1 ? in : null, STDIN_FILENO);
	dup2(out != -1 ? out : null, STDOUT_FILENO);
	dup2(out != -1 ? out : null, STDERR_FILENO);
	if (first != NULL)
		first(arg);
	close_range(3, ~0U, 0);
	if (sh_cmd != NULL)
		execl("/bin/sh", "sh", "-c", sh_cmd, (char *)NULL);
	else
		execvp(argv[0], argv);
	_exit(127);
}

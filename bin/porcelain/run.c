/*
 * Running the plumbing: our own directory first on PATH, so that an
 * uninstalled build runs its own programs; children spawned with argv
 * vectors and joined by pipes, as sh(1) would, without a shell.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "porcelain.h"

extern char **environ;

struct stage {
	char		**argv;
	int		  argc, cap;
};

struct pipeline {
	struct stage	*s;
	int		 n;
	int		 line;		/* a status line, if on a terminal */
	int		 quiet;		/* pipeline_output: its stderr dropped */
	uint64_t	 from, to;	/* the window the first stage reads */
};

static char	 dir[PATH_MAX];

void
find_bindir(void)
{
	char self[PATH_MAX], *slash, *path;
	const char *old = getenv("PATH");
	ssize_t n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) == -1)
		die(EX_OSERR, "/proc/self/exe");
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	snprintf(dir, sizeof(dir), "%s", self);
	if (old == NULL)
		old = "/usr/bin:/bin";
	path = xmalloc(strlen(dir) + strlen(old) + 2);
	sprintf(path, "%s:%s", dir, old);
	setenv("PATH", path, 1);
	free(path);
}

const char *
bindir(void)
{
	return dir;
}

static pid_t
spawn_as(char *const argv[], int in, int out, int err, int group)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	pid_t pid;
	int rc;

	posix_spawnattr_init(&at);
	if (group) {
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP);
		posix_spawnattr_setpgroup(&at, 0);
	}
	posix_spawn_file_actions_init(&fa);
	if (in != -1)
		posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
	if (out != -1)
		posix_spawn_file_actions_adddup2(&fa, out, STDOUT_FILENO);
	if (err != -1)
		posix_spawn_file_actions_adddup2(&fa, err, STDERR_FILENO);
	rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc != 0) {
		errno = rc;
		die(rc == ENOENT ? 127 : EX_OSERR, "%s", argv[0]);
	}
	return pid;
}

/* A child with the given descriptors as its stdin, stdout, stderr (-1: ours). */
pid_t
spawn(char *const argv[], int in, int out, int err)
{
	return spawn_as(argv, in, out, err, 0);
}

pid_t
spawn_group(char *const argv[], int in, int out, int err)
{
	return spawn_as(argv, in, out, err, 1);
}

/* Waiting for argus-capture to trace: its buffers, without the bridge. */
#define READY_TIMEOUT_MS	(120 * 1000)

/*
 * Until argus-capture traces (it writes "ready T" on its --ready-fd) or
 * says why it cannot (a line of its own), or dies: T, or 0 with the why
 * in buf.
 */
uint64_t
capture_ready(int fd, char *buf, size_t size)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	unsigned long long t;
	size_t got = 0;
	ssize_t n;
	int r;

	buf[0] = '\0';
	while (got + 1 < size) {
		if ((r = poll(&pfd, 1, READY_TIMEOUT_MS)) == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(buf, size, "no word from argus-capture in %d s",
			    READY_TIMEOUT_MS / 1000);
			return 0;
		}
		if ((n = read(fd, buf + got, size - 1 - got)) == -1 &&
		    errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
		buf[got] = '\0';
		if (strchr(buf, '\n') != NULL)
			break;
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (sscanf(buf, "ready %llu", &t) == 1 && t > 0)
		return t;
	return 0;
}

int
run_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			die(EX_OSERR, "waitpid %d", (int)pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	    128 + WTERMSIG(status);
}

struct pipeline *
pipeline_new(void)
{
	return xcalloc(1, sizeof(struct pipeline));
}

void
pipeline_arg(struct pipeline *p, const char *arg)
{
	struct stage *s = &p->s[p->n - 1];

	if (s->argc + 2 > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->argv = xrealloc(s->argv, s->cap * sizeof(*s->argv));
	}
	s->argv[s->argc++] = xstrdup(arg);
	s->argv[s->argc] = NULL;
}

void
pipeline_stage(struct pipeline *p, const char *prog)
{
	p->s = xrealloc(p->s, (p->n + 1) * sizeof(*p->s));
	memset(&p->s[p->n++], 0, sizeof(*p->s));
	pipeline_arg(p, prog);
}

void
pipeline_status(struct pipeline *p, uint64_t from, uint64_t to)
{
	p->line = 1;
	p->from = from;
	p->to = to;
}

int
pipeline_run(struct pipeline *p)
{
	pid_t *pids = xcalloc(p->n, sizeof(*pids));
	int *status = xcalloc(p->n, sizeof(*status));
	struct statusline *sl = NULL;
	char **prog = NULL;
	int i, in = -1, fd[2], first = 0, hold = -1;

	if (p->line && p->n > 1 && isatty(STDERR_FILENO)) {
		prog = xcalloc(p->n, sizeof(*prog));
		for (i = 0; i < p->n; i++)
			prog[i] = p->s[i].argv[0];
		sl = statusline_open(prog, p->n, p->from, p->to);
		free(prog);
	}
	for (i = 0; i < p->n; i++) {
		status[i] = -1;
		fd[0] = fd[1] = -1;
		if (i + 1 < p->n && pipe2(fd, O_CLOEXEC) == -1)
			die(EX_OSERR, "pipe");
		pids[i] = spawn(p->s[i].argv, in, fd[1],
		    sl != NULL && i + 1 < p->n ? statusline_stderr(sl) : -1);
		if (in != -1)
			close(in);
		/* The last stage's input ends when the line is done. */
		if (sl != NULL && i == p->n - 2)
			hold = fd[1];
		else if (fd[1] != -1)
			close(fd[1]);
		in = fd[0];
	}
	if (sl != NULL) {
		statusline_run(sl, pids, status);
		close(hold);
	}
	for (i = 0; i < p->n; i++) {
		if (status[i] == -1)
			status[i] = run_wait(pids[i]);
		if (first == 0 && status[i] != 0 && status[i] != 128 + SIGPIPE)
			first = status[i];
		if (i == p->n - 1 && first == 0)
			first = status[i];
	}
	free(status);
	free(pids);
	return first;
}

/* A pipeline of one stage whose output is wanted: NUL-ended, malloc'd. */
char *
pipeline_output(struct pipeline *p, int *status)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	ssize_t n;
	pid_t pid;
	int fd[2], null = -1;

	if (pipe2(fd, O_CLOEXEC) == -1)
		die(EX_OSERR, "pipe");
	if (p->quiet && (null = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1)
		die(EX_OSERR, "/dev/null");
	pid = spawn(p->s[0].argv, -1, fd[1], null);
	close(fd[1]);
	if (null != -1)
		close(null);
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? 2 * cap : 65536;
			buf = xrealloc(buf, cap);
		}
		if ((n = read(fd[0], buf + len, cap - len - 1)) == -1) {
			if (errno == EINTR)
				continue;
			die(EX_OSERR, "reading from %s", p->s[0].argv[0]);
		}
		if (n == 0)
			break;
		len += n;
	}
	close(fd[0]);
	buf[len] = '\0';
	*status = run_wait(pid);
	return buf;
}

void
pipeline_quiet(struct pipeline *p)
{
	p->quiet = 1;
}

void
pipeline_free(struct pipeline *p)
{
	int i, j;

	for (i = 0; i < p->n; i++) {
		for (j = 0; j < p->s[i].argc; j++)
			free(p->s[i].argv[j]);
		free(p->s[i].argv);
	}
	free(p->s);
	free(p);
}

void
pipeline_diagnosis(struct pipeline *p, char *const target[], int ntarget,
    char *const slice_opts[], int nslice)
{
	int i;

	pipeline_stage(p, "argus-segment");
	pipeline_arg(p, "-q");
	pipeline_stage(p, "argus-link");
	pipeline_arg(p, "-q");
	pipeline_stage(p, "argus-spin");
	for (i = 0; i < ntarget; i++)
		pipeline_arg(p, target[i]);
	pipeline_stage(p, "argus-similar");
	pipeline_arg(p, "-q");
	pipeline_stage(p, "argus-slice");
	for (i = 0; i < nslice; i++)
		pipeline_arg(p, slice_opts[i]);
}

void
command_usage(const struct command *c)
{
	const char *nl = strchr(c->usage, '\n');

	/* Only the synopsis line: the rest is for --help. */
	fprintf(stderr, "%.*s\nTry 'argus %s --help' for more.\n",
	    nl ? (int)(nl - c->usage) : (int)strlen(c->usage), c->usage,
	    c->name);
	exit(EX_USAGE);
}

void
command_help(const struct command *c, int argc, char *argv[])
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(c->usage, stdout);
			exit(0);
		}
}

/*
 * One status line for a whole pipeline, while its stderr is a terminal:
 * each stage sends what it has done through a socket (lib/progress.c),
 * and only we draw.  The stages before the last write their messages
 * through us too, so that a warning never lands in the middle of the
 * line.  The last stage, argus-slice, asks its questions on the same
 * terminal: its input ends only when we are done with the line (we hold
 * a copy of the pipe into it), so it cannot speak over us.
 */
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "porcelain.h"

#define REDRAW_NS	(250 * 1000000ULL)

/* What the line says of each stage that reports. */
static const struct {
	const char	*prog, *did;
	int		 counted;	/* records; else only that it works */
} words[] = {
	{ "argus-cat",		"read",			1 },
	{ "argus-segment",	"segmented",		1 },
	{ "argus-link",		"linked",		1 },
	{ "argus-slice",	"loading the graph",	0 },
};

struct stage_status {
	int		 word;		/* in words[], or -1 */
	int		 seen;
	unsigned long long nrec, t;
};

struct statusline {
	int		 sock[2];	/* we read [0]; the stages send on [1] */
	int		 err[2];	/* the stages' stderr, but the last's */
	uint64_t	 from, to;	/* the window read, or NO_TIME */
	struct stage_status *st;
	int		 n;
	int		 drawn;
	char		 buf[4096];	/* a message not yet whole */
	size_t		 len;
};

struct statusline *
statusline_open(char *const prog[], int n, uint64_t from, uint64_t to)
{
	struct statusline *sl = xcalloc(1, sizeof(*sl));
	char fd[16];
	int i, j;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sl->sock) == -1)
		die(EX_OSERR, "socketpair");
	if (pipe2(sl->err, O_CLOEXEC) == -1)
		die(EX_OSERR, "pipe");
	/* Inherited by the stages, and by nothing else we run. */
	fcntl(sl->sock[1], F_SETFD, 0);
	fcntl(sl->sock[0], F_SETFL, O_NONBLOCK);
	fcntl(sl->err[0], F_SETFL, O_NONBLOCK);
	snprintf(fd, sizeof(fd), "%d", sl->sock[1]);
	setenv(PROGRESS_ENV, fd, 1);
	sl->from = from;
	sl->to = to;
	sl->n = n;
	sl->st = xcalloc(n, sizeof(*sl->st));
	for (i = 0; i < n; i++) {
		sl->st[i].word = -1;
		for (j = 0; j < (int)ARRAY_LEN(words); j++)
			if (strcmp(prog[i], words[j].prog) == 0)
				sl->st[i].word = j;
	}
	return sl;
}

int
statusline_stderr(struct statusline *sl)
{
	return sl->err[1];
}

static void
count(char *buf, size_t size, unsigned long long n)
{
	if (n < 10000)
		snprintf(buf, size, "%llu", n);
	else if (n < 1000000)
		snprintf(buf, size, "%.1f k", n / 1e3);
	else
		snprintf(buf, size, "%.1f M", n / 1e6);
}

/* "argus: read 3.1 M (+42 s of 60), segmented 2.9 M, ..., loading the graph" */
static void
draw(struct statusline *sl, int final)
{
	char line[512], num[32];
	const struct stage_status *s;
	size_t len;
	int i, any = 0;

	len = snprintf(line, sizeof(line), "argus:");
	for (i = 0; i < sl->n && len < sizeof(line); i++) {
		s = &sl->st[i];
		/* The last stage goes on after the line: not in the last. */
		if (!s->seen || s->word < 0 || (final && i == sl->n - 1))
			continue;
		count(num, sizeof(num), s->nrec);
		len += snprintf(line + len, sizeof(line) - len, "%s %s%s%s",
		    any++ ? "," : "", words[s->word].did,
		    words[s->word].counted ? " " : "",
		    words[s->word].counted ? num : "");
		if (i != 0 || len >= sizeof(line))
			continue;
		if (final)
			len += snprintf(line + len, sizeof(line) - len,
			    " records");
		if (sl->from == NO_TIME || sl->to <= sl->from ||
		    len >= sizeof(line))
			continue;
		if (final)
			len += snprintf(line + len, sizeof(line) - len,
			    " of %.0f s", (sl->to - sl->from) / 1e9);
		else if (s->t != NO_TIME && s->t >= sl->from)
			len += snprintf(line + len, sizeof(line) - len,
			    " (+%.0f s of %.0f)", (s->t - sl->from) / 1e9,
			    (sl->to - sl->from) / 1e9);
	}
	if (!any) {
		if (sl->drawn)
			tty_line(NULL, 0);
		sl->drawn = 0;
		return;
	}
	tty_line(line, final);
	sl->drawn = !final;
}

/* The reports come in whole datagrams: PROGRESS_FORMAT. */
static int
reports(struct statusline *sl)
{
	char msg[256], prog[64];
	unsigned long long nrec, t;
	ssize_t n;
	int i, changed = 0;

	while ((n = recv(sl->sock[0], msg, sizeof(msg) - 1, 0)) > 0) {
		msg[n] = '\0';
		if (sscanf(msg, "%63s %llu %llu", prog, &nrec, &t) != 3)
			continue;
		for (i = 0; i < sl->n; i++) {
			if (sl->st[i].word < 0 ||
			    strcmp(words[sl->st[i].word].prog, prog) != 0)
				continue;
			sl->st[i].seen = 1;
			sl->st[i].nrec = nrec;
			sl->st[i].t = t;
			changed = 1;
		}
	}
	return changed;
}

/* The stages' messages, each whole line in place of the status line. */
static int
messages(struct statusline *sl, int end)
{
	ssize_t n;
	char *nl;
	size_t k;
	int said = 0;

	while ((n = read(sl->err[0], sl->buf + sl->len,
	    sizeof(sl->buf) - sl->len)) > 0) {
		sl->len += n;
		while ((nl = memchr(sl->buf, '\n', sl->len)) != NULL ||
		    sl->len == sizeof(sl->buf)) {
			k = nl ? (size_t)(nl - sl->buf) + 1 : sl->len;
			if (sl->drawn)
				tty_line(NULL, 0);
			sl->drawn = 0;
			fwrite(sl->buf, 1, k, stderr);
			if (nl == NULL)
				fputc('\n', stderr);
			memmove(sl->buf, sl->buf + k, sl->len - k);
			sl->len -= k;
			said = 1;
		}
	}
	if (end && sl->len > 0) {
		if (sl->drawn)
			tty_line(NULL, 0);
		fwrite(sl->buf, 1, sl->len, stderr);
		fputc('\n', stderr);
		sl->len = 0;
		sl->drawn = 0;
	}
	return said;
}

void
statusline_run(struct statusline *sl, const pid_t *pid, int *status)
{
	struct pollfd pfd[2];
	uint64_t now, next = 0;
	int i, left, changed = 0, quiet = 0, failed = 0, ws;
	pid_t w;

	/* Ours now: the stages have theirs. */
	unsetenv(PROGRESS_ENV);
	close(sl->sock[1]);
	close(sl->err[1]);
	catch_signals();
	for (left = sl->n - 1; left > 0;) {
		pfd[0] = (struct pollfd){ .fd = sl->sock[0], .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = sl->err[0], .events = POLLIN };
		if (poll(pfd, 2, 100) == -1 && errno != EINTR)
			die(EX_OSERR, "poll");
		changed |= reports(sl);
		if (messages(sl, 0))
			changed = 1;
		/* The stages before the last: all done, the line is done. */
		for (i = 0; i < sl->n - 1; i++) {
			if (status[i] != -1)
				continue;
			if ((w = waitpid(pid[i], &ws, WNOHANG)) == pid[i]) {
				status[i] = WIFEXITED(ws) ? WEXITSTATUS(ws) :
				    128 + WTERMSIG(ws);
				failed |= status[i] != 0;
				left--;
			} else if (w == -1 && errno != EINTR)
				die(EX_OSERR, "waitpid %d", (int)pid[i]);
		}
		/*
		 * A signal meant for us alone goes to the stages, which stop
		 * at a record boundary; a line no longer matters.
		 */
		if (interrupted && !quiet) {
			for (i = 0; i < sl->n; i++)
				if (status[i] == -1)	/* not a reaped pid */
					kill(pid[i], interrupted);
			if (sl->drawn)
				tty_line(NULL, 0);
			sl->drawn = 0;
			quiet = 1;
		}
		if (!quiet && changed && (now = now_ns()) >= next) {
			draw(sl, 0);
			changed = 0;
			next = now + REDRAW_NS;
		}
	}
	reports(sl);
	messages(sl, 1);
	/* What failed said why: a summary would only hide it. */
	if (quiet || failed) {
		if (sl->drawn)
			tty_line(NULL, 0);
	} else
		draw(sl, 1);
	close(sl->sock[0]);
	close(sl->err[0]);
	free(sl->st);
	free(sl);
}

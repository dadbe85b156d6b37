/*
 * The runtime providers run: all at once, each in its own process group
 * at the snapshot's priority, fed its waits, its output and stderr read
 * up to their caps, killed with all it started past its time limit
 * (waitfor_provider.c says what a provider is).
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "graph.h"
#include "show.h"
#include "util.h"
#include "waits.h"
#include "waitfor.h"
#include "waitfor_int.h"
#include "waitfor_prov.h"

void
wfp_append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = xrealloc(*buf, *cap);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/* Each provider's stdin: PID TID MODE OBJECT, a line a kept wait. */
static void
start(struct provider *p, uint64_t limit)
{
	int in[2], out[2], err[2], fd;
	char secs[32];
	sigset_t all;

	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1 ||
	    pipe2(err, O_CLOEXEC) == -1)
		die(EX_OSERR, "pipe");
	p->t0 = now_ns();
	if ((p->pid = fork()) == -1)
		die(EX_OSERR, "fork");
	if (p->pid == 0) {
		/* Its own group: the time limit kills all it started. */
		setpgid(0, 0);
		/*
		 * Its limit is of wall time, on a machine that may be busy
		 * with the very hang: ahead of the crowd, as the capture's
		 * reader is (root only; anyone else stays as it was).
		 */
		setpriority(PRIO_PROCESS, 0, PROVIDER_NICE);
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		for (fd = 1; fd < NSIG; fd++)
			if (fd != SIGKILL && fd != SIGSTOP)
				signal(fd, SIG_DFL);
		if (dup2(in[0], 0) == -1 || dup2(out[1], 1) == -1 ||
		    dup2(err[1], 2) == -1)
			_exit(126);
		closefrom(3);
		snprintf(secs, sizeof(secs), "%.3f", limit / 1e9);
		setenv("ARGUS_PROVIDER_TIMEOUT", secs, 1);
		if (chdir("/") == -1)
			_exit(126);
		execl(p->path, p->path, (char *)NULL);
		_exit(127);
	}
	/* Both sides: no race with the group's first kill. */
	setpgid(p->pid, p->pid);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	p->fin = in[1];
	p->fout = out[0];
	p->ferr = err[0];
	fcntl(p->fin, F_SETFL, O_NONBLOCK);
	p->status = -1;
}

static void
closefd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Its group first, while the unreaped leader keeps the group's id ours. */
static void
stop(struct provider *p)
{
	kill(-p->pid, SIGKILL);
	kill(p->pid, SIGKILL);
}

static void
reap(struct provider *p, int block)
{
	siginfo_t si;
	int st;

	if (p->reaped)
		return;
	memset(&si, 0, sizeof(si));
	if (!block && (waitid(P_PID, p->pid, &si, WEXITED | WNOHANG |
	    WNOWAIT) == -1 || si.si_pid == 0))
		return;
	/* Whatever it left behind goes with it. */
	kill(-p->pid, SIGKILL);
	p->reaped = 1;
	p->ns = now_ns() - p->t0;
	/* Killed, it is gone at once, but in an uninterruptible sleep. */
	for (st = 0; st < 20; st++) {
		if (waitpid(p->pid, &p->status, WNOHANG) == p->pid)
			return;
		if (!block)
			break;
		usleep(5000);
	}
}

static void
drain(struct provider *p, int *fd, size_t cap_out)
{
	char buf[65536];
	ssize_t n;
	size_t room;

	if ((n = read(*fd, buf, sizeof(buf))) <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			closefd(fd);
		return;
	}
	if (fd == &p->fout) {
		room = cap_out - p->outlen;
		if ((size_t)n > room) {
			wfp_append(&p->out, &p->outlen, &p->outcap, buf, room);
			p->capped = 1;
			stop(p);
			closefd(fd);
			return;
		}
		wfp_append(&p->out, &p->outlen, &p->outcap, buf, n);
	} else if (p->errlen < STDERR_KEEP) {
		room = STDERR_KEEP - p->errlen;
		if (p->err == NULL)
			p->err = xmalloc(STDERR_KEEP + 1);
		memcpy(p->err + p->errlen, buf, (size_t)n < room ? (size_t)n :
		    room);
		p->errlen += (size_t)n < room ? (size_t)n : room;
		p->err[p->errlen] = '\0';
	}
}

/* All at once, each within the time limit from its start. */
void
wfp_run(struct wf_prov *pv, const struct wf_opts *o)
{
	struct pollfd fds[3 * MAX_PROVIDERS];
	struct provider *by[3 * MAX_PROVIDERS];
	int *which[3 * MAX_PROVIDERS];
	uint64_t limit = o->provider_ns ? o->provider_ns : DEFAULT_NS;
	size_t cap = o->provider_cap ? o->provider_cap : PROVIDER_CAP;
	uint64_t t, end = 0;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	struct provider *p;
	int i, n, active, ms;
	ssize_t w;

	/* A provider that never reads its input is no signal for us. */
	sigaction(SIGPIPE, &ign, &old);
	for (i = 0; i < pv->np; i++) {
		p = &pv->p[i];
		p->fin = p->fout = p->ferr = -1;
		if (p->nwaits == 0)
			continue;
		start(p, limit);
		end = p->t0 + limit;
	}
	for (;;) {
		n = active = 0;
		t = now_ns();
		for (i = 0; i < pv->np; i++) {
			p = &pv->p[i];
			if (p->nwaits == 0 || p->reaped)
				continue;
			if (t >= p->t0 + limit || p->capped) {
				if (!p->capped)
					p->killed = 1;
				stop(p);
				closefd(&p->fin);
				closefd(&p->fout);
				closefd(&p->ferr);
				reap(p, 1);
				continue;
			}
			active++;
			if (p->fin >= 0) {
				w = write(p->fin, p->in + p->inoff,
				    p->inlen - p->inoff);
				if (w > 0)
					p->inoff += w;
				if ((w == -1 && errno != EAGAIN &&
				    errno != EINTR) || p->inoff == p->inlen)
					closefd(&p->fin);
			}
			if (p->fin >= 0) {
				fds[n] = (struct pollfd){ p->fin, POLLOUT, 0 };
				by[n] = p;
				which[n++] = &p->fin;
			}
			if (p->fout >= 0) {
				fds[n] = (struct pollfd){ p->fout, POLLIN, 0 };
				by[n] = p;
				which[n++] = &p->fout;
			}
			if (p->ferr >= 0) {
				fds[n] = (struct pollfd){ p->ferr, POLLIN, 0 };
				by[n] = p;
				which[n++] = &p->ferr;
			}
			if (p->fout < 0 && p->ferr < 0)
				reap(p, 0);
		}
		if (active == 0)
			break;
		/* Its exit, and the time limit, are looked at every 20 ms. */
		ms = end > t ? (int)((end - t) / 1000000) + 1 : 1;
		if (ms > 20)
			ms = n == 0 ? 5 : 20;
		if (poll(fds, n, ms) <= 0)
			continue;
		for (i = 0; i < n; i++)
			if (fds[i].revents != 0 && *which[i] >= 0 &&
			    which[i] != &by[i]->fin)
				drain(by[i], which[i], cap);
	}
	sigaction(SIGPIPE, &old, NULL);
}

/* One CSV line into fields, in place: quotes as argus-stream(5) has them. */

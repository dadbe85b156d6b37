/*
 * argus watch --blocked-for TIME: threads that must never block or spin
 * that long (an event loop, a GUI's main thread), told from /proc once a
 * second, never from the ring: a few small files a thread, whatever the
 * machine records.
 *
 * A thread is blocked when it sleeps (S or D) without running at all
 * since the last look, in anything but the idle wait of an event loop
 * (poll, select, epoll: a loop with nothing to do is not hung); it spins
 * when it ran at least SPIN_SHARE of the time without once giving up the
 * CPU of its own accord (on it or waiting for one: a busy machine shares
 * its CPUs).  Either one for TIME is a hang, reported once
 * until the thread makes progress again.
 */
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "porcelain.h"
#include "syscalls.h"
#include "watch.h"
#include "procopen.h"

#define SCAN_NS		1000000000ULL	/* a look a second */
#define RESOLVE_NS	10000000000ULL	/* --comm's threads found anew */
#define SPIN_SHARE	0.9

/* The idle waits of event loops, by name: numbers differ by machine. */
static const char *const idle_names[] = {
	"poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait",
	"epoll_pwait2",
};
static long idle_nr[ARRAY_LEN(idle_names)];

static int
idle_syscall(long nr)
{
	static int ready;
	size_t i;

	if (!ready) {
		for (i = 0; i < ARRAY_LEN(idle_names); i++)
			idle_nr[i] = syscall_nr(idle_names[i]);
		ready = 1;
	}
	for (i = 0; i < ARRAY_LEN(idle_names); i++)
		if (idle_nr[i] != -1 && idle_nr[i] == nr)
			return 1;
	return 0;
}

struct sample {
	char		 state;
	uint64_t	 run_ns;
	uint64_t	 queued_ns;	/* runnable, waiting for a CPU */
	long		 syscall;	/* -2: running, -1: none */
};

static int
sample(pid_t pid, pid_t tid, struct sample *s)
{
	char path[96], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
	    (int)tid);
	if (proc_slurp(path, buf, sizeof(buf)) <= 0 ||
	    (p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return -1;
	s->state = p[2];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid,
	    (int)tid);
	if (proc_slurp(path, buf, sizeof(buf)) <= 0)
		return -1;
	s->run_ns = strtoull(buf, &p, 10);
	s->queued_ns = strtoull(p, NULL, 10);
	s->syscall = -1;
	if (s->state == 'S' || s->state == 'D') {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall",
		    (int)pid, (int)tid);
		if (proc_slurp(path, buf, sizeof(buf)) > 0)
			s->syscall = strncmp(buf, "running", 7) == 0 ? -2 :
			    strtol(buf, NULL, 10);
	}
	return 0;
}

static uint64_t
vcsw(pid_t pid, pid_t tid)
{
	char path[96], buf[4096], *p;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid,
	    (int)tid);
	if (proc_slurp(path, buf, sizeof(buf)) <= 0 ||
	    (p = strstr(buf, "\nvoluntary_ctxt_switches:")) == NULL)
		return 0;
	return strtoull(p + 25, NULL, 10);
}

/* --comm: the threads of that name, everywhere: (pid, tid) pairs. */
static void
resolve(struct watch *w)
{
	char path[600], comm[64];
	struct dirent *pe, *te;
	DIR *pd, *td;
	size_t len;

	w->npids = 0;
	if ((pd = opendir("/proc")) == NULL)
		return;
	while ((pe = readdir(pd)) != NULL && w->npids < 2 * WATCH_MAX_THREADS) {
		if (pe->d_name[0] < '1' || pe->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", pe->d_name);
		if ((td = opendir(path)) == NULL)
			continue;
		while ((te = readdir(td)) != NULL) {
			if (te->d_name[0] < '1' || te->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm",
			    pe->d_name, te->d_name);
			if (proc_slurp(path, comm, sizeof(comm)) <= 0)
				continue;
			len = strcspn(comm, "\n");
			comm[len] = '\0';
			if (strcmp(comm, w->comm) != 0 ||
			    w->npids >= 2 * WATCH_MAX_THREADS)
				continue;
			w->pids = xrealloc(w->pids, (w->npids + 2) *
			    sizeof(*w->pids));
			w->pids[w->npids++] = atoi(pe->d_name);
			w->pids[w->npids++] = atoi(te->d_name);
		}
		closedir(td);
	}
	closedir(pd);
}

static struct wthread *
thread_of(struct watch *w, pid_t pid, pid_t tid)
{
	int i;

	for (i = 0; i < w->nthr; i++)
		if (w->thr[i].tid == tid && w->thr[i].pid == pid)
			return &w->thr[i];
	if (w->nthr >= WATCH_MAX_THREADS)
		return NULL;
	w->thr = xrealloc(w->thr, (w->nthr + 1) * sizeof(*w->thr));
	memset(&w->thr[w->nthr], 0, sizeof(*w->thr));
	w->thr[w->nthr].pid = pid;
	w->thr[w->nthr].tid = tid;
	w->thr[w->nthr].run_ns = UINT64_MAX;	/* first look */
	return &w->thr[w->nthr++];
}

static void
look(struct watch *w, pid_t pid, pid_t tid, uint64_t now, uint64_t prev)
{
	struct wthread *t;
	struct sample s;
	uint64_t ran, queued, since, v;
	int first;

	if ((t = thread_of(w, pid, tid)) == NULL || sample(pid, tid, &s) == -1)
		return;
	t->seen = 1;
	first = t->run_ns == UINT64_MAX;
	ran = first ? 0 : s.run_ns - t->run_ns;
	queued = first ? 0 : s.queued_ns - t->queued_ns;
	t->run_ns = s.run_ns;
	t->queued_ns = s.queued_ns;
	if (first)
		return;
	/* Blocked: asleep, not idle, and not once on a CPU since. */
	if ((s.state == 'S' || s.state == 'D') && ran == 0 &&
	    !idle_syscall(s.syscall)) {
		if (t->since == 0)
			t->since = prev;
	} else
		t->since = 0;
	/*
	 * Spinning: on a CPU or waiting for one nearly all the time (a busy
	 * machine shares its CPUs), never yielding of its own accord.
	 */
	v = now > prev && ran > 0 && ran + queued >= SPIN_SHARE * (now - prev) ?
	    vcsw(pid, tid) : 0;
	if (v != 0 && v == t->vcsw) {
		if (t->spin_since == 0)
			t->spin_since = prev;
	} else
		t->spin_since = 0;
	t->vcsw = v;
	since = t->since != 0 ? t->since : t->spin_since;
	if (since == 0) {
		if (t->episode)
			wlog(w, "thread %d of %d makes progress again", (int)tid,
			    (int)pid);
		t->episode = 0;
		return;
	}
	if (t->episode || now - since < w->blocked_for || w->diag_pid != 0)
		return;
	t->episode = 1;
	w->hung_spin = t->since == 0;
	if (report_allowed(w))
		report_begin(w, pid, tid, since, now);
}

void
blocked_tick(struct watch *w, uint64_t now)
{
	uint64_t prev = w->next_scan - SCAN_NS;
	int i, j;

	if (now < w->next_scan)
		return;
	if (w->next_scan == 0)
		prev = now;
	w->next_scan = now + SCAN_NS;
	for (i = 0; i < w->nthr; i++)
		w->thr[i].seen = 0;
	if (w->comm[0] != '\0') {
		if (now >= w->next_resolve) {
			resolve(w);
			w->next_resolve = now + RESOLVE_NS;
		}
		for (i = 0; i + 1 < w->npids; i += 2)
			look(w, w->pids[i], w->pids[i + 1], now, prev);
	} else
		/* --pid: its main thread, the one an event loop runs in. */
		look(w, w->pid, w->pid, now, prev);
	/* Threads gone: forgotten. */
	for (i = j = 0; i < w->nthr; i++)
		if (w->thr[i].seen)
			w->thr[j++] = w->thr[i];
	w->nthr = j;
}

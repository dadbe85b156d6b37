/*
 * The wait-for snapshot, in four passes over /proc:
 *
 *   1. threads: every thread's state; for a blocked one its system call
 *      and arguments, wchan and when it last ran;
 *   2. calls: what each blocked call waits on, from its arguments (an fd,
 *      a poll or select set read from its memory, an epoll instance's
 *      watched fds, a child, a futex word) and until when;
 *   3. descriptors: one readlink of every fd of every process, kept only
 *      where it names an object someone waits on or its other end, so
 *      that the cost is one pass however many waits there are;
 *   4. holders: who holds each such object, and how (fdinfo's flags for a
 *      pipe's ends, sock_diag for a socket's peer, /proc/locks and fdinfo
 *      lock lines for a file lock, ppid for children).
 *
 * Then, with roots, the closure: from the roots' waits to the processes
 * that hold their objects' other ends, to those processes' own waits.
 */
#include <sys/types.h>
#include <sys/uio.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uthash.h>

#include "event.h"
#include "util.h"
#include "waits.h"
#include "sockdiag.h"
#include "syscalls.h"
#include "waitfor.h"

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h */
#define MAX_POLL	4096		/* pollfds read from one poll(2) */
#define MAX_SELECT	4096		/* bits read from one select(2) set */
#define KEYLEN		64

/* A process, as its leader's stat shows it. */
struct proc {
	int		 pid, ppid, pgrp;
	char		 comm[16], state;
	uint8_t		 kthread, skip, keep;
	UT_hash_handle	 hh;
};

struct thr {
	int		 pid, tid;
	char		 state[2], comm[16];
	const char	*call;		/* "" outside a system call */
	uint64_t	 a[6];
	int		 nargs;
	char		 wchan[64];
	uint64_t	 since;
	uint8_t		 root, keep;
};

/* What a wait is on: the object's key and what finding its holders takes. */
enum otype { OT_NONE, OT_PIPE, OT_SOCKET, OT_PATH, OT_EVENTFD, OT_EPOLL,
	OT_CHILD, OT_FUTEX, OT_OTHER };

struct obj {
	enum otype	 type;
	const char	*kind;
	char		 key[KEYLEN];
	char		*path;		/* OT_PATH: as readlink gave it */
	uint64_t	 ino, dev;	/* dev: major << 32 | minor */
	uint64_t	 deadline;	/* a timerfd's next expiry */
	uint32_t	 id;		/* an eventfd's id, a child's pid... */
	char		 which;		/* OT_CHILD: 'p' a pid, 'g' a group, 'a' any */
};

struct wt {
	size_t		 thr;
	int		 fd, mode;
	struct obj	 o;
	uint64_t	 timeout, deadline;
	char		 via[KEYLEN];
	uint8_t		 chained;	/* its holders' processes are kept */
};

struct hd {
	char		 obj[KEYLEN];
	int		 rel, pid, tid, fd;
	char		 through[KEYLEN];
	char		 detail[64];
};

/* A readlink text some object's holders are found by, and those holders. */
struct ref {
	int		 pid, fd;
};
struct want {
	char		*link;
	struct ref	*refs;
	size_t		 n, cap;
	UT_hash_handle	 hh;
};

/* Objects whose holders are done: each listed once. */
struct done {
	char		 key[KEYLEN];
	UT_hash_handle	 hh;
};

struct mnt {
	int		 id;
	uint64_t	 dev;
	UT_hash_handle	 hh;
};

struct wf_snap {
	const struct wf_opts *opt;
	uint64_t	 t0, rt_off, boot_off;
	struct proc	*procs;
	struct thr	*thr;
	size_t		 nthr, capthr;
	struct wt	*w;
	size_t		 nw, capw;
	struct hd	*h;
	size_t		 nh, caph;
	struct want	*wants;
	struct done	*done;
	struct mnt	*mnts;
	struct sockdiag	*diag;
	int		 diag_tried;
	char		*locks;		/* /proc/locks */
	struct wf_stats	 st;
};

#define GROW(v, n, cap) do {						\
	if ((n) == (cap)) {						\
		(cap) = (cap) ? 2 * (cap) : 64;				\
		(v) = xrealloc((v), (cap) * sizeof(*(v)));		\
	}								\
} while (0)

/* /proc reading: a file gone (the process exited) is no error. */

static ssize_t
slurp(const char *path, char *buf, size_t size)
{
	size_t want, got = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return -1;
	/*
	 * /proc's seq files fill a read to its size unless they are at their
	 * end: a short read is the whole file, and a second read for the
	 * end would cost a fifth of the snapshot.
	 */
	for (;;) {
		want = size - 1 - got;
		if (want == 0 || (n = read(fd, buf + got, want)) <= 0)
			break;
		got += n;
		if ((size_t)n < want)
			break;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

static ssize_t
procf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static ssize_t
procf(char *buf, size_t size, const char *fmt, ...)
{
	char path[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return slurp(path, buf, size);
}

/* A process's memory, read without stopping it (root, or ptrace access). */
static int
peek(int pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };

	return addr != 0 && process_vm_readv(pid, &local, 1, &remote, 1, 0) ==
	    (ssize_t)len ? 0 : -1;
}

static uint64_t
ts_ns(int64_t sec, int64_t frac, int64_t unit)
{
	if (sec < 0 || frac < 0)
		return 0;
	return (uint64_t)sec * 1000000000ULL + (uint64_t)(frac * unit);
}

/* A struct timespec (unit 1) or timeval (unit 1000) in the process. */
static uint64_t
peek_time(int pid, uint64_t addr, int unit, int *ok)
{
	int64_t t[2];

	*ok = peek(pid, addr, t, sizeof(t)) == 0;
	return *ok ? ts_ns(t[0], t[1], unit) : 0;
}

static uint64_t
clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* An absolute time on a process's clock, on ours; NO_TIME if unknown. */
static uint64_t
to_mono(const struct wf_snap *s, int clock, uint64_t t)
{
	switch (clock) {
	case CLOCK_MONOTONIC:
		return t;
	case CLOCK_REALTIME:
	case CLOCK_TAI:
		return t > s->rt_off ? t - s->rt_off : 0;
	case CLOCK_BOOTTIME:
		return t > s->boot_off ? t - s->boot_off : 0;
	}
	return NO_TIME;
}

/* Pass 1: threads. */

static struct proc *
proc_get(struct wf_snap *s, int pid)
{
	struct proc *p;

	HASH_FIND_INT(s->procs, &pid, p);
	return p;
}

/* "tid (comm) S ppid pgrp session tty tpgid flags ...": comm may hold ')'. */
static int
parse_stat(char *buf, char *comm, char *state, int *ppid, int *pgrp,
    unsigned *flags)
{
	char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	size_t n;

	if (open == NULL || close == NULL || close < open)
		return -1;
	n = close - open - 1;
	if (n > 15)
		n = 15;
	memcpy(comm, open + 1, n);
	comm[n] = '\0';
	return sscanf(close + 1, " %c %d %d %*d %*d %*d %u", state, ppid, pgrp,
	    flags) == 4 ? 0 : -1;
}

static int
in_list(int v, const int *list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (list[i] == v)
			return 1;
	return 0;
}

static int
named(const struct wf_opts *o, const char *comm, const char *pcomm)
{
	int i;

	for (i = 0; i < o->ncomms; i++)
		if (strcmp(comm, o->comms[i]) == 0 ||
		    strcmp(pcomm, o->comms[i]) == 0)
			return 1;
	return 0;
}

/* "se.exec_start : 8095037.493575": ms of the scheduler's clock. */
static uint64_t
exec_start(const char *path)
{
	char buf[4096], *p;
	unsigned long long ms, frac;

	if (procf(buf, sizeof(buf), "%s", path) <= 0 ||
	    (p = strstr(buf, "se.exec_start")) == NULL ||
	    (p = strchr(p, ':')) == NULL ||
	    sscanf(p + 1, " %llu.%6llu", &ms, &frac) != 2)
		return NO_TIME;
	return ms * 1000000ULL + frac;
}

/*
 * The scheduler's task clock leaves out time stolen by the hypervisor
 * and spent in interrupts: on a busy VM it fell 6 s behind
 * CLOCK_MONOTONIC in 38 minutes.  Our own thread runs now, so its
 * exec_start is now on that clock: the difference, once a snapshot,
 * brings the others' to CLOCK_MONOTONIC (within what the CPUs' stolen
 * times differ by: 0.24 s between the two CPUs here after 40 minutes).
 */
static int64_t	sched_skew;

static void
sched_calibrate(void)
{
	uint64_t t = exec_start("/proc/thread-self/sched");

	sched_skew = t == NO_TIME ? 0 : (int64_t)(now_ns() - t);
}

static uint64_t
last_ran(int pid, int tid)
{
	char path[64];
	uint64_t t;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", pid, tid);
	if ((t = exec_start(path)) == NO_TIME)
		return NO_TIME;
	return t + sched_skew;
}

/*
 * "NR A1 .. A6 SP PC", "-1 SP PC" (blocked outside a call), "running".
 * -1 if we may not read it (another user's process, or one the kernel
 * keeps from root too): such a thread says nothing of its wait.
 */
static int
thread_call(struct thr *t)
{
	char buf[256], *p, *end;
	long nr;
	int i;

	t->call = "";
	if (procf(buf, sizeof(buf), "/proc/%d/task/%d/syscall", t->pid,
	    t->tid) <= 0)
		return errno == EACCES || errno == EPERM ? -1 : 0;
	nr = strtol(buf, &end, 10);
	if (end == buf || nr < 0)
		return 0;
	t->call = syscall_name(nr);
	if (*t->call == '\0')
		t->call = "?";
	for (i = 0, p = end; i < 6; i++, p = end) {
		t->a[i] = strtoull(p, &end, 16);
		if (end == p)
			break;
	}
	t->nargs = i;
	return 0;
}

static void
add_thread(struct wf_snap *s, struct proc *p, int tid, char state,
    const char *comm)
{
	const struct wf_opts *o = s->opt;
	struct thr *t;
	char *nl;
	int root;

	root = in_list(p->pid, o->pids, o->npids) ||
	    in_list(tid, o->tids, o->ntids) || named(o, comm, p->comm);
	/* Blocked: S and D; a root is shown whatever it does. */
	if (!root && state != 'S' && state != 'D')
		return;
	GROW(s->thr, s->nthr, s->capthr);
	t = &s->thr[s->nthr++];
	memset(t, 0, sizeof(*t));
	t->pid = p->pid;
	t->tid = tid;
	t->state[0] = state;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->root = root;
	if (thread_call(t) == -1) {
		s->nthr--;
		s->st.unreadable++;
		return;
	}
	if (procf(t->wchan, sizeof(t->wchan), "/proc/%d/task/%d/wchan", p->pid,
	    tid) <= 0 || strcmp(t->wchan, "0") == 0)
		t->wchan[0] = '\0';
	if ((nl = strchr(t->wchan, '\n')) != NULL)
		*nl = '\0';
	t->since = last_ran(p->pid, tid);
}

static void
scan_process(struct wf_snap *s, int pid)
{
	char path[64], buf[1024], comm[16], state;
	struct dirent *de;
	struct proc *p;
	unsigned flags;
	int ppid, pgrp, tid;
	DIR *d;

	if (procf(buf, sizeof(buf), "/proc/%d/stat", pid) <= 0 ||
	    parse_stat(buf, comm, &state, &ppid, &pgrp, &flags) == -1)
		return;
	p = xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->ppid = ppid;
	p->pgrp = pgrp;
	p->state = state;
	memcpy(p->comm, comm, sizeof(p->comm));
	p->kthread = (flags & PF_KTHREAD) != 0;
	p->skip = in_list(pid, s->opt->skip, s->opt->nskip);
	HASH_ADD_INT(s->procs, pid, p);
	if (p->kthread || p->skip)
		return;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if ((tid = atoi(de->d_name)) <= 0)
			continue;
		s->st.threads++;
		if (procf(buf, sizeof(buf), "/proc/%d/task/%d/stat", pid,
		    tid) <= 0 ||
		    parse_stat(buf, comm, &state, &ppid, &pgrp, &flags) == -1)
			continue;
		add_thread(s, p, tid, state, comm);
	}
	closedir(d);
}

static void
scan_threads(struct wf_snap *s)
{
	struct dirent *de;
	DIR *d;
	int pid;

	if ((d = opendir("/proc")) == NULL)
		die(EX_UNAVAILABLE, "/proc");
	while ((de = readdir(d)) != NULL)
		if ((pid = atoi(de->d_name)) > 0)
			scan_process(s, pid);
	closedir(d);
}

/* Pass 2: what a call waits on. */

static uint64_t
mnt_dev(struct wf_snap *s, int pid, int mnt_id)
{
	char path[64], line[1024];
	unsigned maj, min;
	struct mnt *m;
	int id;
	FILE *f;

	HASH_FIND_INT(s->mnts, &mnt_id, m);
	if (m != NULL)
		return m->dev;
	/* Mount ids are global; each namespace shows its own mounts. */
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%d %*d %u:%u", &id, &maj, &min) != 3)
			continue;
		HASH_FIND_INT(s->mnts, &id, m);
		if (m != NULL)
			continue;
		m = xcalloc(1, sizeof(*m));
		m->id = id;
		m->dev = (uint64_t)maj << 32 | min;
		HASH_ADD_INT(s->mnts, id, m);
	}
	fclose(f);
	HASH_FIND_INT(s->mnts, &mnt_id, m);
	return m != NULL ? m->dev : 0;
}

/* A line "KEY:\tVALUE" of an fdinfo file; NULL if absent. */
static const char *
fdinfo_get(const char *info, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	for (p = info; p != NULL && *p; p = strchr(p, '\n'), p = p ? p + 1 : p)
		if (strncmp(p, key, n) == 0 && p[n] == ':')
			return p + n + 1;
	return NULL;
}

static void
file_key(struct obj *o, const char *kind)
{
	o->kind = kind;
	snprintf(o->key, sizeof(o->key), "file:%u:%u:%llu",
	    (unsigned)(o->dev >> 32), (unsigned)o->dev,
	    (unsigned long long)o->ino);
}

/* A terminal by its name: a pseudo-terminal, a console, a serial line. */
static int
is_terminal(const char *path)
{
	return strncmp(path, "/dev/pts/", 9) == 0 ||
	    strncmp(path, "/dev/tty", 8) == 0 ||
	    strcmp(path, "/dev/console") == 0 || strcmp(path, "/dev/ptmx") == 0;
}

/*
 * The object behind a process's fd, from readlink and fdinfo only.
 * 0, or -1 if the fd is gone.
 */
static int
resolve_fd(struct wf_snap *s, int pid, int fd, const char *wchan,
    struct obj *o)
{
	char path[64], link[PATH_MAX], info[4096];
	unsigned long long v;
	const char *p;
	ssize_t n;
	long sec, nsec;

	memset(o, 0, sizeof(*o));
	o->deadline = NO_TIME;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	if ((n = readlink(path, link, sizeof(link) - 1)) <= 0)
		return -1;
	link[n] = '\0';
	s->st.fds++;
	if (sscanf(link, "pipe:[%llu]", &v) == 1) {
		o->type = OT_PIPE;
		o->kind = "pipe";
		o->ino = v;
		snprintf(o->key, sizeof(o->key), "pipe:%llu", v);
		return 0;
	}
	if (sscanf(link, "socket:[%llu]", &v) == 1) {
		o->type = OT_SOCKET;
		o->kind = "socket";	/* which kind: sock_diag says */
		o->ino = v;
		snprintf(o->key, sizeof(o->key), "socket:%llu", v);
		return 0;
	}
	if (procf(info, sizeof(info), "/proc/%d/fdinfo/%d", pid, fd) <= 0)
		info[0] = '\0';
	if (strcmp(link, "anon_inode:[eventfd]") == 0 &&
	    (p = fdinfo_get(info, "eventfd-id")) != NULL) {
		o->type = OT_EVENTFD;
		o->ino = strtoull(fdinfo_get(info, "ino") ?
		    fdinfo_get(info, "ino") : "0", NULL, 10);
		o->kind = "eventfd";
		o->id = strtoul(p, NULL, 10);
		snprintf(o->key, sizeof(o->key), "eventfd:%u", o->id);
		return 0;
	}
	if (strncmp(link, "anon_inode:", 11) == 0) {
		/* No identity of their own: the fd names them. */
		if ((p = fdinfo_get(info, "ino")) != NULL)
			o->ino = strtoull(p, NULL, 10);
		o->type = OT_OTHER;
		o->kind = "anon";
		if (strcmp(link + 11, "[eventpoll]") == 0) {
			o->type = OT_EPOLL;
			o->kind = "epoll";
		} else if (strcmp(link + 11, "[timerfd]") == 0) {
			o->kind = "timerfd";
			/* What is left, whatever the timer's clock. */
			p = fdinfo_get(info, "it_value");
			if (p != NULL && sscanf(p, " (%ld, %ld)", &sec,
			    &nsec) == 2 && (sec || nsec))
				o->deadline = s->t0 + ts_ns(sec, nsec, 1);
		} else if (strcmp(link + 11, "[signalfd]") == 0)
			o->kind = "signalfd";
		else if (strcmp(link + 11, "inotify") == 0)
			o->kind = "inotify";
		else if (strcmp(link + 11, "[pidfd]") == 0) {
			o->kind = "pidfd";
			if ((p = fdinfo_get(info, "Pid")) != NULL)
				o->id = atoi(p);
		}
		snprintf(o->key, sizeof(o->key), "%s:%d:%d", o->kind, pid, fd);
		return 0;
	}
	if (link[0] == '/' && (p = fdinfo_get(info, "ino")) != NULL) {
		o->type = OT_PATH;
		o->ino = strtoull(p, NULL, 10);
		if ((p = fdinfo_get(info, "mnt_id")) != NULL)
			o->dev = mnt_dev(s, pid, atoi(p));
		/*
		 * A FIFO's reader and writer wait in the pipe code; a
		 * terminal's reader waits for a person.
		 */
		file_key(o, strstr(wchan, "pipe") != NULL ||
		    strstr(wchan, "fifo") != NULL ? "fifo" :
		    is_terminal(link) ? WT_TTY : "file");
		o->path = xstrdup(link);
		return 0;
	}
	o->type = OT_OTHER;
	o->kind = "";
	snprintf(o->key, sizeof(o->key), "%.*s", KEYLEN - 1, link);
	return 0;
}

static struct wt *
add_wait(struct wf_snap *s, size_t ti, int fd, int mode)
{
	struct wt *w;

	GROW(s->w, s->nw, s->capw);
	w = &s->w[s->nw++];
	memset(w, 0, sizeof(*w));
	w->thr = ti;
	w->fd = fd;
	w->mode = mode;
	w->timeout = NO_TIME;
	w->deadline = NO_TIME;
	w->o.deadline = NO_TIME;
	return w;
}

/* A wait on one of the thread's fds; -1 and nothing added if it is gone. */
static struct wt *
wait_fd(struct wf_snap *s, size_t ti, int fd, int mode)
{
	struct thr *t = &s->thr[ti];
	struct obj o;
	struct wt *w;

	if (fd < 0 || resolve_fd(s, t->pid, fd, t->wchan, &o) == -1)
		return NULL;
	w = add_wait(s, ti, fd, mode);
	w->o = o;
	if (o.deadline != NO_TIME)
		w->deadline = o.deadline;
	return w;
}

static int
poll_mode(unsigned events)
{
	int in = (events & 0x043) != 0;		/* POLLIN PRI RDNORM */
	int out = (events & 0x104) != 0;	/* POLLOUT WRNORM */

	return in && out ? WM_INOUT : out ? WM_OUT : WM_IN;
}

/*
 * The fds an epoll instance watches, from its fdinfo:
 * "tfd: 3 events: 19 data: 3  pos:0 ino:ee8ff sdev:f".  The fd number is
 * the registering process's and may have been closed since: the inode
 * says whether it still is the same object.
 */
static void
epoll_watched(struct wf_snap *s, size_t ti, struct wt *ep)
{
	struct thr *t = &s->thr[ti];
	char info[16384], via[KEYLEN];
	const char *p;
	unsigned events, sdev;
	unsigned long long ino;
	uint64_t timeout = ep->timeout;
	struct wt *w;
	int tfd;

	/* Adding waits moves s->w: what we need of ep, copied first. */
	if (procf(info, sizeof(info), "/proc/%d/fdinfo/%d", t->pid, ep->fd) <= 0)
		return;
	snprintf(via, sizeof(via), "%s", ep->o.key);
	for (p = info; (p = strstr(p, "tfd:")) != NULL; p++) {
		if (sscanf(p, "tfd: %d events: %x data: %*x pos:%*d ino:%llx "
		    "sdev:%x", &tfd, &events, &ino, &sdev) != 4)
			continue;
		if ((w = wait_fd(s, ti, tfd, poll_mode(events))) != NULL &&
		    w->o.ino != ino) {
			/* Closed and reused: the inode is what is watched. */
			free(w->o.path);
			memset(&w->o, 0, sizeof(w->o));
			w->o.type = OT_OTHER;
			w->o.ino = ino;
			w->o.dev = (uint64_t)(sdev >> 20) << 32 | (sdev & 0xfffff);
			file_key(&w->o, "");
		}
		if (w == NULL)
			continue;
		w->timeout = timeout;
		snprintf(w->via, sizeof(w->via), "%s", via);
	}
}

static void
wait_poll(struct wf_snap *s, size_t ti, uint64_t addr, uint64_t n,
    uint64_t timeout)
{
	struct { int fd; short events, revents; } *pf;
	struct thr *t = &s->thr[ti];
	struct wt *w;
	size_t i;
	int any = 0;

	if (n > MAX_POLL)
		n = MAX_POLL;
	pf = xcalloc(n ? n : 1, sizeof(*pf));
	if (n > 0 && peek(t->pid, addr, pf, n * sizeof(*pf)) == -1)
		n = 0;
	for (i = 0; i < n; i++)
		if (pf[i].fd >= 0 && (w = wait_fd(s, ti, pf[i].fd,
		    poll_mode(pf[i].events))) != NULL) {
			w->timeout = timeout;
			any = 1;
		}
	/* poll(NULL, 0, ms): a sleep. */
	if (!any)
		add_wait(s, ti, NO_FD, WM_SLEEP)->timeout = timeout;
	free(pf);
}

static void
wait_select(struct wf_snap *s, size_t ti, uint64_t timeout)
{
	struct thr *t = &s->thr[ti];
	uint64_t set[2][MAX_SELECT / 64];
	size_t n = t->a[0], words, i;
	int k, got[2], fd, any = 0;
	struct wt *w;

	if (n > MAX_SELECT)
		n = MAX_SELECT;
	words = (n + 63) / 64;
	for (k = 0; k < 2; k++)
		got[k] = words > 0 && peek(t->pid, t->a[1 + k], set[k],
		    words * 8) == 0;
	for (i = 0; i < n; i++) {
		int in = got[0] && (set[0][i / 64] >> (i % 64) & 1);
		int out = got[1] && (set[1][i / 64] >> (i % 64) & 1);

		if (!in && !out)
			continue;
		fd = i;
		if ((w = wait_fd(s, ti, fd, in && out ? WM_INOUT :
		    in ? WM_IN : WM_OUT)) != NULL) {
			w->timeout = timeout;
			any = 1;
		}
	}
	if (!any)
		add_wait(s, ti, NO_FD, WM_SLEEP)->timeout = timeout;
}

/* wait4(pid), waitid(idtype, id): the children a parent waits for. */
static void
wait_child(struct wf_snap *s, size_t ti, int which, int id)
{
	struct thr *t = &s->thr[ti];
	struct proc *p = proc_get(s, t->pid);
	struct wt *w = add_wait(s, ti, NO_FD, WM_CHILD);

	w->o.type = OT_CHILD;
	w->o.kind = "child";
	w->o.which = which;
	switch (which) {
	case 'p':
		w->o.id = id;
		snprintf(w->o.key, sizeof(w->o.key), "pid:%d", id);
		break;
	case 'g':
		w->o.id = id ? id : p != NULL ? p->pgrp : 0;
		snprintf(w->o.key, sizeof(w->o.key), "pgrp:%u", w->o.id);
		break;
	default:
		w->o.id = 0;
		snprintf(w->o.key, sizeof(w->o.key), "children:%d", t->pid);
	}
}

#define FUTEX_CMD(op)		((op) & 0x7f)
#define FUTEX_CLOCK_RT		256
enum { F_WAIT = 0, F_LOCK_PI = 6, F_WAIT_BITSET = 9, F_WAIT_REQUEUE_PI = 11,
	F_LOCK_PI2 = 13 };

static void
wait_futex(struct wf_snap *s, size_t ti)
{
	struct thr *t = &s->thr[ti];
	int op = t->a[1], cmd = FUTEX_CMD(op), rt = op & FUTEX_CLOCK_RT, ok;
	struct wt *w = add_wait(s, ti, NO_FD, WM_FUTEX);
	uint64_t v;

	w->o.type = OT_FUTEX;
	w->o.kind = "futex";
	w->o.id = t->a[2];	/* the value it expects: 2 for a contended lock */
	w->o.ino = t->a[0];
	snprintf(w->o.key, sizeof(w->o.key), "futex:%d:0x%llx", t->pid,
	    (unsigned long long)t->a[0]);
	if (t->a[3] == 0)
		return;
	v = peek_time(t->pid, t->a[3], 1, &ok);
	if (!ok)
		return;
	switch (cmd) {
	case F_WAIT:
		if (rt)
			w->deadline = to_mono(s, CLOCK_REALTIME, v);
		else
			w->timeout = v;
		break;
	case F_LOCK_PI:
		w->deadline = to_mono(s, CLOCK_REALTIME, v);
		break;
	case F_WAIT_BITSET:
	case F_WAIT_REQUEUE_PI:
	case F_LOCK_PI2:
		w->deadline = to_mono(s, rt ? CLOCK_REALTIME : CLOCK_MONOTONIC,
		    v);
		break;
	}
}

enum how { H_IN, H_OUT, H_SPLICE, H_TEE, H_ACCEPT, H_CONNECT, H_POLL,
	H_PPOLL, H_SELECT, H_PSELECT, H_EPOLL, H_EPOLL2, H_FLOCK, H_FCNTL,
	H_WAIT4, H_WAITID, H_FUTEX, H_NANOSLEEP, H_CLOCK_NANOSLEEP, H_PAUSE,
	H_SIGTIMEDWAIT, H_SEMTIMEDOP };

static const struct {
	const char	*name;
	enum how	 how;
} calls[] = {
	{ "read", H_IN }, { "readv", H_IN }, { "pread64", H_IN },
	{ "preadv", H_IN }, { "preadv2", H_IN }, { "recvfrom", H_IN },
	{ "recvmsg", H_IN }, { "recvmmsg", H_IN },
	{ "write", H_OUT }, { "writev", H_OUT }, { "pwrite64", H_OUT },
	{ "pwritev", H_OUT }, { "pwritev2", H_OUT }, { "sendto", H_OUT },
	{ "sendmsg", H_OUT }, { "sendmmsg", H_OUT }, { "sendfile", H_OUT },
	{ "splice", H_SPLICE }, { "tee", H_TEE },
	{ "accept", H_ACCEPT }, { "accept4", H_ACCEPT },
	{ "connect", H_CONNECT },
	{ "poll", H_POLL }, { "ppoll", H_PPOLL }, { "select", H_SELECT },
	{ "pselect6", H_PSELECT }, { "epoll_wait", H_EPOLL },
	{ "epoll_pwait", H_EPOLL }, { "epoll_pwait2", H_EPOLL2 },
	{ "flock", H_FLOCK }, { "fcntl", H_FCNTL },
	{ "wait4", H_WAIT4 }, { "waitid", H_WAITID }, { "futex", H_FUTEX },
	{ "nanosleep", H_NANOSLEEP }, { "clock_nanosleep", H_CLOCK_NANOSLEEP },
	{ "pause", H_PAUSE }, { "rt_sigsuspend", H_PAUSE },
	{ "rt_sigtimedwait", H_SIGTIMEDWAIT }, { "semtimedop", H_SEMTIMEDOP },
};

#define K_F_SETLKW	7	/* the kernel's numbers, as the call passed them */
#define K_F_OFD_SETLKW	38
#define TIMER_ABSTIME	1

/* Milliseconds as poll(2) and epoll_wait(2) take them: negative, none. */
static uint64_t
ms_timeout(uint64_t arg)
{
	int ms = (int)arg;

	return ms < 0 ? NO_TIME : (uint64_t)ms * 1000000;
}

static uint64_t
ptr_timeout(int pid, uint64_t addr, int unit)
{
	uint64_t v;
	int ok;

	if (addr == 0)
		return NO_TIME;
	v = peek_time(pid, addr, unit, &ok);
	return ok ? v : NO_TIME;
}

static void
decode(struct wf_snap *s, size_t ti)
{
	struct thr *t = &s->thr[ti];
	const uint64_t *a = t->a;
	size_t i, n = s->nw;
	struct wt *w;
	uint64_t v;
	int ok;

	for (i = 0; i < ARRAY_LEN(calls); i++)
		if (strcmp(t->call, calls[i].name) == 0)
			break;
	if (i == ARRAY_LEN(calls)) {
		add_wait(s, ti, NO_FD, WM_NONE);
		return;
	}
	switch (calls[i].how) {
	case H_IN:
		wait_fd(s, ti, (int)a[0], WM_IN);
		break;
	case H_OUT:
		wait_fd(s, ti, (int)a[0], WM_OUT);
		break;
	case H_SPLICE:
	case H_TEE:
		wait_fd(s, ti, (int)a[0], WM_IN);
		wait_fd(s, ti, (int)(calls[i].how == H_SPLICE ? a[2] : a[1]),
		    WM_OUT);
		break;
	case H_ACCEPT:
		wait_fd(s, ti, (int)a[0], WM_ACCEPT);
		break;
	case H_CONNECT:
		wait_fd(s, ti, (int)a[0], WM_CONNECT);
		break;
	case H_POLL:
		wait_poll(s, ti, a[0], a[1], ms_timeout(a[2]));
		break;
	case H_PPOLL:
		wait_poll(s, ti, a[0], a[1], ptr_timeout(t->pid, a[2], 1));
		break;
	case H_SELECT:
		wait_select(s, ti, ptr_timeout(t->pid, a[4], 1000));
		break;
	case H_PSELECT:
		wait_select(s, ti, ptr_timeout(t->pid, a[4], 1));
		break;
	case H_EPOLL:
	case H_EPOLL2:
		if ((w = wait_fd(s, ti, (int)a[0], WM_IN)) == NULL)
			break;
		w->timeout = calls[i].how == H_EPOLL ? ms_timeout(a[3]) :
		    ptr_timeout(t->pid, a[3], 1);
		if (w->o.type == OT_EPOLL)
			epoll_watched(s, ti, w);
		break;
	case H_FLOCK:
		wait_fd(s, ti, (int)a[0], WM_LOCK);
		break;
	case H_FCNTL:
		if ((int)a[1] == K_F_SETLKW || (int)a[1] == K_F_OFD_SETLKW)
			wait_fd(s, ti, (int)a[0], WM_LOCK);
		break;
	case H_WAIT4:
		if ((int)a[0] > 0)
			wait_child(s, ti, 'p', (int)a[0]);
		else if ((int)a[0] == -1)
			wait_child(s, ti, 'a', 0);
		else
			wait_child(s, ti, 'g', -(int)a[0]);
		break;
	case H_WAITID:
		if (a[0] == 1)			/* P_PID */
			wait_child(s, ti, 'p', (int)a[1]);
		else if (a[0] == 2)		/* P_PGID */
			wait_child(s, ti, 'g', (int)a[1]);
		else if (a[0] == 3) {		/* P_PIDFD */
			struct obj o;

			if (resolve_fd(s, t->pid, a[1], "", &o) == 0 && o.id > 0)
				wait_child(s, ti, 'p', o.id);
		} else
			wait_child(s, ti, 'a', 0);
		break;
	case H_FUTEX:
		wait_futex(s, ti);
		break;
	case H_NANOSLEEP:
		add_wait(s, ti, NO_FD, WM_SLEEP)->timeout =
		    ptr_timeout(t->pid, a[0], 1);
		break;
	case H_CLOCK_NANOSLEEP:
		w = add_wait(s, ti, NO_FD, WM_SLEEP);
		v = peek_time(t->pid, a[2], 1, &ok);
		if (ok && (a[1] & TIMER_ABSTIME))
			w->deadline = to_mono(s, (int)a[0], v);
		else if (ok)
			w->timeout = v;
		break;
	case H_PAUSE:
		add_wait(s, ti, NO_FD, WM_SIGNAL);
		break;
	case H_SIGTIMEDWAIT:
		add_wait(s, ti, NO_FD, WM_SIGNAL)->timeout =
		    ptr_timeout(t->pid, a[2], 1);
		break;
	case H_SEMTIMEDOP:
		/*
		 * A System V semaphore, whose holder the kernel does not
		 * keep: the timeout says whether it chose to wait that long.
		 */
		add_wait(s, ti, NO_FD, WM_NONE)->timeout =
		    ptr_timeout(t->pid, a[3], 1);
		break;
	}
	/* A thread always has its record, even on an fd gone meanwhile. */
	if (s->nw == n)
		add_wait(s, ti, NO_FD, WM_NONE);
}

/* Pass 3: one readlink of every fd, kept where wanted. */

static void
want(struct wf_snap *s, const char *link)
{
	struct want *x;

	HASH_FIND_STR(s->wants, link, x);
	if (x != NULL)
		return;
	x = xcalloc(1, sizeof(*x));
	x->link = xstrdup(link);
	HASH_ADD_KEYPTR(hh, s->wants, x->link, strlen(x->link), x);
}

static struct want *
wanted(const struct wf_snap *s, const char *link)
{
	struct want *x;

	HASH_FIND_STR(s->wants, link, x);
	return x;
}

static void
want_sock(struct wf_snap *s, uint64_t ino)
{
	char link[KEYLEN];

	snprintf(link, sizeof(link), "socket:[%llu]", (unsigned long long)ino);
	want(s, link);
}

static void
load_diag(struct wf_snap *s)
{
	if (!s->diag_tried) {
		s->diag_tried = 1;
		s->diag = sockdiag_load(1, 1);
	}
}

static void
collect_wants(struct wf_snap *s)
{
	const struct sockinfo *si;
	char link[KEYLEN];
	size_t i;
	struct wt *w;

	for (i = 0; i < s->nw; i++) {
		w = &s->w[i];
		switch (w->o.type) {
		case OT_PIPE:
			snprintf(link, sizeof(link), "pipe:[%llu]",
			    (unsigned long long)w->o.ino);
			want(s, link);
			break;
		case OT_SOCKET:
			load_diag(s);
			if ((si = sockdiag_find(s->diag, w->o.ino)) == NULL)
				break;
			w->o.kind = sock_kind_name(si->kind);
			/*
			 * A listener is ready when a connection comes: its
			 * poller serves clients, whoever they will be.
			 */
			if (si->listening && w->mode == WM_IN)
				w->mode = WM_ACCEPT;
			if (si->peer != 0)
				want_sock(s, si->peer);
			else if (si->listener != 0)
				want_sock(s, si->listener);
			if ((si = sockdiag_find(s->diag, si->peer)) != NULL &&
			    si->listener != 0)
				want_sock(s, si->listener);
			break;
		case OT_EVENTFD:
			want(s, "anon_inode:[eventfd]");
			break;
		case OT_PATH:
			want(s, w->o.path);
			break;
		default:
			break;
		}
	}
}

static void
scan_fds(struct wf_snap *s)
{
	char path[64], link[PATH_MAX];
	struct proc *p, *tmp;
	struct dirent *de;
	struct want *x;
	ssize_t n;
	DIR *d;
	int fd;

	if (s->wants == NULL)
		return;
	HASH_ITER(hh, s->procs, p, tmp) {
		if (p->kthread)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", p->pid);
		if ((d = opendir(path)) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			if (de->d_name[0] == '.')
				continue;
			n = readlinkat(dirfd(d), de->d_name, link,
			    sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			s->st.fds++;
			if ((x = wanted(s, link)) == NULL)
				continue;
			fd = atoi(de->d_name);
			GROW(x->refs, x->n, x->cap);
			x->refs[x->n].pid = p->pid;
			x->refs[x->n++].fd = fd;
		}
		closedir(d);
	}
}

/* Pass 4: holders. */

static struct hd *
add_holder(struct wf_snap *s, const char *obj, int rel, int pid, int tid,
    int fd)
{
	struct hd *h;

	GROW(s->h, s->nh, s->caph);
	h = &s->h[s->nh++];
	memset(h, 0, sizeof(*h));
	snprintf(h->obj, sizeof(h->obj), "%s", obj);
	h->rel = rel;
	h->pid = pid;
	h->tid = tid;
	h->fd = fd;
	return h;
}

static int
fdinfo_read(int pid, int fd, char *buf, size_t size)
{
	return procf(buf, size, "/proc/%d/fdinfo/%d", pid, fd) > 0 ? 0 : -1;
}

/* reader, writer or rdwr, from fdinfo's octal flags. */
static int
access_rel(const char *info)
{
	const char *p = fdinfo_get(info, "flags");
	unsigned long fl;

	if (p == NULL)
		return -1;
	fl = strtoul(p, NULL, 8) & 3;
	return fl == 0 ? WR_READER : fl == 1 ? WR_WRITER : WR_RDWR;
}

static void
holders_pipe(struct wf_snap *s, const struct wt *w)
{
	char link[KEYLEN], info[4096];
	struct want *x;
	size_t i;
	int rel;

	snprintf(link, sizeof(link), "pipe:[%llu]", (unsigned long long)w->o.ino);
	if ((x = wanted(s, link)) == NULL)
		return;
	for (i = 0; i < x->n; i++)
		if (fdinfo_read(x->refs[i].pid, x->refs[i].fd, info,
		    sizeof(info)) == 0 && (rel = access_rel(info)) >= 0)
			add_holder(s, w->o.key, rel, x->refs[i].pid, 0,
			    x->refs[i].fd);
}

/* The holders of a socket, as relation rel to the waited one. */
static int
holders_sock(struct wf_snap *s, const struct wt *w, uint32_t ino, int rel,
    const char *kind)
{
	char link[KEYLEN], through[KEYLEN];
	struct want *x;
	struct hd *h;
	size_t i;

	snprintf(link, sizeof(link), "socket:[%u]", ino);
	snprintf(through, sizeof(through), "socket:%u", ino);
	if ((x = wanted(s, link)) == NULL)
		return 0;
	for (i = 0; i < x->n; i++) {
		h = add_holder(s, w->o.key, rel, x->refs[i].pid, 0,
		    x->refs[i].fd);
		snprintf(h->through, sizeof(h->through), "%s", through);
		snprintf(h->detail, sizeof(h->detail), "%s", kind);
	}
	return x->n > 0;
}

static void
holders_socket(struct wf_snap *s, const struct wt *w)
{
	const struct sockinfo *si, *pi;

	if ((si = sockdiag_find(s->diag, w->o.ino)) == NULL)
		return;
	if (si->peer == 0) {
		/* A TCP connection in a listener's queue. */
		if (si->listener != 0)
			holders_sock(s, w, si->listener, WR_LISTENER,
			    sock_kind_name(si->kind));
		return;
	}
	if (holders_sock(s, w, si->peer, WR_PEER, sock_kind_name(si->kind)))
		return;
	/* Not accepted yet: whoever holds the listener should accept it. */
	if ((pi = sockdiag_find(s->diag, si->peer)) != NULL && pi->listener)
		holders_sock(s, w, pi->listener, WR_LISTENER,
		    sock_kind_name(si->kind));
}

static void
holders_eventfd(struct wf_snap *s, const struct wt *w)
{
	struct want *x = wanted(s, "anon_inode:[eventfd]");
	char info[4096];
	const char *p;
	size_t i;

	for (i = 0; x != NULL && i < x->n; i++)
		if (fdinfo_read(x->refs[i].pid, x->refs[i].fd, info,
		    sizeof(info)) == 0 &&
		    (p = fdinfo_get(info, "eventfd-id")) != NULL &&
		    strtoul(p, NULL, 10) == w->o.id)
			add_holder(s, w->o.key, WR_HOLDER, x->refs[i].pid, 0,
			    x->refs[i].fd);
}

/* The same file, as its fdinfo says: a path may name another since. */
static int
same_file(struct wf_snap *s, int pid, const char *info, const struct obj *o)
{
	const char *p = fdinfo_get(info, "ino"), *m = fdinfo_get(info, "mnt_id");

	return p != NULL && strtoull(p, NULL, 10) == o->ino &&
	    (m == NULL || mnt_dev(s, pid, atoi(m)) == o->dev);
}

/*
 * The fds of the file whose fdinfo lists a lock of class cls on it: a
 * flock or OFD lock belongs to an open file, shared by every fd (and
 * process, after a fork) that refers to it.
 */
static int
holders_fdlock(struct wf_snap *s, const struct wt *w, const char *cls,
    const char *detail)
{
	char info[8192], needle[32];
	struct want *x = wanted(s, w->o.path);
	struct hd *h;
	size_t i;
	int n = 0;

	snprintf(needle, sizeof(needle), " %s ", cls);
	for (i = 0; x != NULL && i < x->n; i++) {
		if (fdinfo_read(x->refs[i].pid, x->refs[i].fd, info,
		    sizeof(info)) == -1 || strstr(info, needle) == NULL ||
		    !same_file(s, x->refs[i].pid, info, &w->o))
			continue;
		h = add_holder(s, w->o.key, WR_LOCK_HOLDER, x->refs[i].pid, 0,
		    x->refs[i].fd);
		snprintf(h->detail, sizeof(h->detail), "%s", detail);
		n++;
	}
	return n;
}

/*
 * /proc/locks: "1: FLOCK  ADVISORY  WRITE 4425 fe:00:10952851 0 EOF", and
 * its waiters "1: -> FLOCK ...".  Devices in hex, inode in decimal.  The
 * pid is who took the lock (-1 for an OFD lock); the holders now are the
 * fds that still refer to it.
 */
static void
holders_lock(struct wf_snap *s, const struct wt *w)
{
	char *line, *save = NULL, *copy, cls[16], type[16], end[24], detail[64];
	unsigned maj, min;
	unsigned long long ino, start;
	struct hd *h;
	int pid, waiter, n, fds_done = 0;

	if (s->locks == NULL) {
		s->locks = xmalloc(1 << 20);
		if (slurp("/proc/locks", s->locks, 1 << 20) < 0)
			s->locks[0] = '\0';
	}
	copy = xstrdup(s->locks);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		waiter = strstr(line, "->") != NULL;
		if ((line = strchr(line, ':')) == NULL)
			continue;
		line++;
		if (waiter)
			line = strstr(line, "->") + 2;
		n = sscanf(line, " %15s %*s %15s %d %x:%x:%llu %llu %23s", cls,
		    type, &pid, &maj, &min, &ino, &start, end);
		if (n != 8 || ino != w->o.ino ||
		    ((uint64_t)maj << 32 | min) != w->o.dev)
			continue;
		snprintf(detail, sizeof(detail), "%s %s %llu-%s", cls, type,
		    start, end);
		if (waiter) {
			if (pid > 0)
				snprintf(add_holder(s, w->o.key,
				    WR_LOCK_WAITER, pid, 0, NO_FD)->detail,
				    sizeof(h->detail), "%s", detail);
			continue;
		}
		if (strcmp(cls, "POSIX") != 0 && !fds_done++ &&
		    holders_fdlock(s, w, cls, detail) > 0)
			continue;
		/* A POSIX lock is its process's, whatever fd took it. */
		if (pid > 0) {
			h = add_holder(s, w->o.key, WR_LOCK_HOLDER, pid, 0,
			    NO_FD);
			snprintf(h->detail, sizeof(h->detail), "%s", detail);
		}
	}
	free(copy);
}

/* A FIFO's (or file's) other openers, by the path and then the inode. */
static void
holders_path(struct wf_snap *s, const struct wt *w)
{
	struct want *x = wanted(s, w->o.path);
	char info[4096];
	size_t i;
	int rel;

	for (i = 0; x != NULL && i < x->n; i++)
		if (fdinfo_read(x->refs[i].pid, x->refs[i].fd, info,
		    sizeof(info)) == 0 && same_file(s, x->refs[i].pid, info,
		    &w->o) && (rel = access_rel(info)) >= 0)
			add_holder(s, w->o.key, rel, x->refs[i].pid, 0,
			    x->refs[i].fd);
}

static void
holders_child(struct wf_snap *s, const struct wt *w)
{
	struct thr *t = &s->thr[w->thr];
	struct proc *p, *tmp;
	struct hd *h;

	HASH_ITER(hh, s->procs, p, tmp) {
		if (p->ppid != t->pid)
			continue;
		if ((w->o.which == 'p' && p->pid != (int)w->o.id) ||
		    (w->o.which == 'g' && p->pgrp != (int)w->o.id))
			continue;
		h = add_holder(s, w->o.key, WR_CHILD, p->pid, 0, NO_FD);
		h->detail[0] = p->state;
	}
}

/*
 * A futex has no holder the kernel knows, except a PI lock's word, which
 * holds its owner's tid.  A glibc mutex (the wait for value 2, "locked,
 * contended") keeps its owner's tid after the word, in __owner: read, and
 * believed only if that thread is one of the process's.
 */
#define FUTEX_TID_MASK	0x3fffffff
#define GLIBC_OWNER_OFF	8

static void
holders_futex(struct wf_snap *s, const struct wt *w)
{
	struct thr *t = &s->thr[w->thr];
	int cmd = FUTEX_CMD((int)t->a[1]), word, owner;
	char path[64];
	struct hd *h;
	const char *how;

	if (cmd == F_LOCK_PI || cmd == F_LOCK_PI2) {
		if (peek(t->pid, w->o.ino, &word, sizeof(word)) == -1)
			return;
		owner = word & FUTEX_TID_MASK;
		how = "pi";
	} else if ((cmd == F_WAIT || cmd == F_WAIT_BITSET) && w->o.id == 2) {
		if (peek(t->pid, w->o.ino + GLIBC_OWNER_OFF, &owner,
		    sizeof(owner)) == -1)
			return;
		how = "mutex";
	} else
		return;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", t->pid, owner);
	if (owner <= 0 || owner == t->tid || access(path, F_OK) == -1)
		return;
	h = add_holder(s, w->o.key, WR_OWNER, t->pid, owner, NO_FD);
	snprintf(h->detail, sizeof(h->detail), "%s", how);
}

static int
done(struct wf_snap *s, const char *key)
{
	struct done *d;

	HASH_FIND_STR(s->done, key, d);
	if (d != NULL)
		return 1;
	d = xcalloc(1, sizeof(*d));
	snprintf(d->key, sizeof(d->key), "%s", key);
	HASH_ADD_STR(s->done, key, d);
	return 0;
}

static void
find_holders(struct wf_snap *s)
{
	struct wt *w;
	size_t i;

	for (i = 0; i < s->nw; i++) {
		w = &s->w[i];
		if (w->o.key[0] == '\0' || done(s, w->o.key))
			continue;
		switch (w->o.type) {
		case OT_PIPE:
			holders_pipe(s, w);
			break;
		case OT_SOCKET:
			holders_socket(s, w);
			break;
		case OT_EVENTFD:
			holders_eventfd(s, w);
			break;
		case OT_PATH:
			if (w->mode == WM_LOCK)
				holders_lock(s, w);
			else if (w->mode != WM_NONE)
				holders_path(s, w);
			break;
		case OT_CHILD:
			holders_child(s, w);
			break;
		case OT_FUTEX:
			holders_futex(s, w);
			break;
		default:
			break;
		}
	}
}

/*
 * The closure: roots, then every blocked thread of a process that holds
 * what a kept thread waits for, as long as that grows.
 */
static void
closure(struct wf_snap *s)
{
	const struct wf_opts *o = s->opt;
	struct done *d, *tmp;
	struct proc *p;
	struct wt *w;
	size_t i, j;
	int grew = 1;

	if (o->npids == 0 && o->ntids == 0 && o->ncomms == 0) {
		for (i = 0; i < s->nthr; i++)
			s->thr[i].keep = 1;
		return;
	}
	for (i = 0; i < s->nthr; i++)
		s->thr[i].keep = s->thr[i].root;
	/* Holders by object, found again from the done table's keys. */
	while (grew) {
		grew = 0;
		for (i = 0; i < s->nw; i++) {
			w = &s->w[i];
			if (!s->thr[w->thr].keep || w->chained)
				continue;
			w->chained = 1;
			for (j = 0; j < s->nh; j++)
				if (strcmp(s->h[j].obj, w->o.key) == 0 &&
				    wrel_ends(s->h[j].rel, w->mode) &&
				    (p = proc_get(s, s->h[j].pid)) != NULL &&
				    !p->keep) {
					p->keep = 1;
					grew = 1;
				}
		}
		for (i = 0; i < s->nthr; i++)
			if (!s->thr[i].keep && (p = proc_get(s,
			    s->thr[i].pid)) != NULL && p->keep) {
				s->thr[i].keep = 1;
				grew = 1;
			}
	}
	HASH_ITER(hh, s->done, d, tmp) {
		HASH_DEL(s->done, d);
		free(d);
	}
}

static int
cmp_thr(const void *a, const void *b)
{
	const struct thr *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

struct wf_snap *
wf_take(const struct wf_opts *o)
{
	struct wf_snap *s = xcalloc(1, sizeof(*s));
	uint64_t end;
	size_t i;

	s->opt = o;
	s->t0 = now_ns();
	s->rt_off = clock_ns(CLOCK_REALTIME) - s->t0;
	s->boot_off = clock_ns(CLOCK_BOOTTIME) - s->t0;
	s->st.time = s->t0;
	sched_calibrate();
	scan_threads(s);
	qsort(s->thr, s->nthr, sizeof(*s->thr), cmp_thr);
	for (i = 0; i < s->nthr; i++)
		decode(s, i);
	collect_wants(s);
	scan_fds(s);
	find_holders(s);
	closure(s);
	end = now_ns();
	s->st.ns = end - s->t0;
	return s;
}

/* Records of kept threads, and the holders of what they wait on. */
/*
 * The TCP and UDP sockets of each process with a thread in the snapshot,
 * with their address pairs: a wait on one whose peer is on another host,
 * and a process there that holds that peer, meet by them (argus-cat(1)).
 */
static void
write_socks(struct writer *wr, struct wf_snap *s)
{
	char path[64], link[64];
	const struct sockinfo *si;
	struct sock_rec r;
	struct done *seen = NULL, *d, *tmp;
	struct dirent *de;
	struct proc *p;
	unsigned long ino;
	ssize_t n;
	size_t i;
	DIR *dir;

	for (i = 0; i < s->nthr; i++) {
		if (!s->thr[i].keep)
			continue;
		snprintf(path, sizeof(path), "%d", s->thr[i].pid);
		HASH_FIND_STR(seen, path, d);
		if (d != NULL)
			continue;
		d = xcalloc(1, sizeof(*d));
		snprintf(d->key, sizeof(d->key), "%s", path);
		HASH_ADD_STR(seen, key, d);
		snprintf(path, sizeof(path), "/proc/%d/fd", s->thr[i].pid);
		if ((dir = opendir(path)) == NULL)
			continue;
		while ((de = readdir(dir)) != NULL) {
			n = readlinkat(dirfd(dir), de->d_name, link,
			    sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			if (sscanf(link, "socket:[%lu]", &ino) != 1)
				continue;
			load_diag(s);
			si = sockdiag_find(s->diag, ino);
			if (si == NULL || si->local[0] == '\0' ||
			    si->listening)
				continue;
			p = proc_get(s, s->thr[i].pid);
			snprintf(link, sizeof(link), "socket:%lu", ino);
			memset(&r, 0, sizeof(r));
			r.time = s->t0;
			r.pid = s->thr[i].pid;
			r.object = link;
			r.fd = atoi(de->d_name);
			r.proto = sock_kind_name(si->kind);
			r.local = si->local;
			r.remote = si->remote;
			r.state = tcp_state_name(si->state);
			r.comm = p != NULL ? p->comm : "";
			sock_write(wr, &r);
		}
		closedir(dir);
	}
	HASH_ITER(hh, seen, d, tmp) {
		HASH_DEL(seen, d);
		free(d);
	}
}

void
wf_write(struct writer *wr, const struct wf_snap *s)
{
	struct wait_rec r;
	struct holder_rec h;
	struct done *seen = NULL, *d, *tmp;
	struct thr *t;
	struct proc *p;
	const struct wt *w;
	size_t i, j;

	for (i = 0; i < s->nw; i++) {
		w = &s->w[i];
		t = &s->thr[w->thr];
		if (!t->keep)
			continue;
		memset(&r, 0, sizeof(r));
		r.time = s->t0;
		r.pid = t->pid;
		r.tid = t->tid;
		r.state = t->state;
		r.call = t->call;
		r.fd = w->fd;
		r.type = w->o.kind ? w->o.kind : "";
		r.object = w->o.key;
		r.mode = w->mode;
		r.timeout = w->timeout;
		r.deadline = w->deadline;
		r.since = t->since;
		r.via = w->via;
		r.wchan = t->wchan;
		r.comm = t->comm;
		r.args = t->a;
		r.nargs = t->nargs;
		wait_write(wr, &r);
	}
	/* Each object's holders once, in the order its waits came. */
	for (i = 0; i < s->nw; i++) {
		w = &s->w[i];
		if (!s->thr[w->thr].keep || w->o.key[0] == '\0')
			continue;
		HASH_FIND_STR(seen, w->o.key, d);
		if (d != NULL)
			continue;
		d = xcalloc(1, sizeof(*d));
		snprintf(d->key, sizeof(d->key), "%s", w->o.key);
		HASH_ADD_STR(seen, key, d);
		for (j = 0; j < s->nh; j++) {
			if (strcmp(s->h[j].obj, w->o.key) != 0)
				continue;
			p = proc_get((struct wf_snap *)s, s->h[j].pid);
			memset(&h, 0, sizeof(h));
			h.time = s->t0;
			h.pid = s->h[j].pid;
			h.tid = s->h[j].tid;
			h.object = s->h[j].obj;
			h.rel = s->h[j].rel;
			h.fd = s->h[j].fd;
			h.through = s->h[j].through;
			h.detail = s->h[j].detail;
			h.comm = p != NULL ? p->comm : "";
			holder_write(wr, &h);
		}
	}
	HASH_ITER(hh, seen, d, tmp) {
		HASH_DEL(seen, d);
		free(d);
	}
	write_socks(wr, (struct wf_snap *)s);
}

void
wf_stats(const struct wf_snap *s, struct wf_stats *st)
{
	size_t i, j;

	*st = s->st;
	st->waits = st->holders = 0;
	for (i = 0; i < s->nw; i++)
		if (s->thr[s->w[i].thr].keep)
			st->waits++;
	for (j = 0; j < s->nh; j++)
		for (i = 0; i < s->nw; i++)
			if (s->thr[s->w[i].thr].keep &&
			    strcmp(s->h[j].obj, s->w[i].o.key) == 0) {
				st->holders++;
				break;
			}
}

void
wf_free(struct wf_snap *s)
{
	struct proc *p, *ptmp;
	struct want *x, *xtmp;
	struct mnt *m, *mtmp;
	struct done *d, *dtmp;
	size_t i;

	if (s == NULL)
		return;
	HASH_ITER(hh, s->procs, p, ptmp) {
		HASH_DEL(s->procs, p);
		free(p);
	}
	HASH_ITER(hh, s->wants, x, xtmp) {
		HASH_DEL(s->wants, x);
		free(x->link);
		free(x->refs);
		free(x);
	}
	HASH_ITER(hh, s->mnts, m, mtmp) {
		HASH_DEL(s->mnts, m);
		free(m);
	}
	HASH_ITER(hh, s->done, d, dtmp) {
		HASH_DEL(s->done, d);
		free(d);
	}
	for (i = 0; i < s->nw; i++)
		free(s->w[i].o.path);
	sockdiag_free(s->diag);
	free(s->thr);
	free(s->w);
	free(s->h);
	free(s->locks);
	free(s);
}

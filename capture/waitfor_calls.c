/*
 * Pass 2 of the wait-for snapshot (waitfor.c): what each blocked call
 * waits on, decoded from its system call's arguments (an fd, a poll or
 * select set read from its memory, an epoll instance's watched fds, a
 * child, a futex word) and until when.  Its own file: the table of calls
 * and their decoders is most of the snapshot's knowledge of the kernel.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <uthash.h>

#include "util.h"
#include "sockdiag.h"
#include "waits.h"
#include "waitfor.h"
#include "waitfor_int.h"

#define MAX_POLL	4096		/* pollfds read from one poll(2) */
#define MAX_SELECT	4096		/* bits read from one select(2) set */

/* Pass 2: what a call waits on. */

uint64_t
wf_mnt_dev(struct wf_snap *s, int pid, int mnt_id)
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
const char *
wf_fdinfo_get(const char *info, const char *key)
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
 * The devpts instance a master fd's terminals are on: the mount of
 * /dev/pts/ptmx itself, or for /dev/ptmx (a device node in /dev) the
 * devpts on "pts" beside it, the topmost if several are stacked there,
 * which is where the kernel looks.  From mountinfo, not a stat through
 * the process's root: a path a user chose could be a FUSE mount that
 * never answers.  0 if not found.
 */
#define MAX_STACKED	64	/* mounts on /dev/pts kept: more is no machine's */

uint64_t
wf_devpts(struct wf_snap *s, int pid, const char *link, const char *info)
{
	struct { int id, parent, pts; uint64_t dev; } mt[MAX_STACKED];
	char path[64], line[1024], point[512], type[64];
	const char *m = wf_fdinfo_get(info, "mnt_id"), *sep;
	size_t n = 0, i;
	unsigned maj, min;
	uint64_t dev = 0;
	int cur, off, moved, hops;
	FILE *f;

	if (m == NULL)
		return 0;
	if (strcmp(link, "/dev/pts/ptmx") == 0)
		return wf_mnt_dev(s, pid, atoi(m));
	snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (n < MAX_STACKED && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%d %d %u:%u %*s %511s %n", &mt[n].id,
		    &mt[n].parent, &maj, &min, point, &off) == 5 &&
		    strcmp(point, "/dev/pts") == 0) {
			sep = strstr(line + off, " - ");
			mt[n].pts = sep != NULL &&
			    sscanf(sep + 3, "%63s", type) == 1 &&
			    strcmp(type, "devpts") == 0;
			mt[n++].dev = (uint64_t)maj << 32 | min;
		}
	fclose(f);
	/* Each step one mount up the stack: at most n of them. */
	for (cur = atoi(m), moved = 1, hops = 0; moved && hops++ <= (int)n; )
		for (i = 0, moved = 0; i < n && !moved; i++)
			if (mt[i].parent == cur) {
				cur = mt[i].id;
				dev = mt[i].pts ? mt[i].dev : 0;
				moved = 1;
			}
	return dev;
}

/*
 * /dev/tty as what it is, the reader's controlling terminal: on a
 * pseudo-terminal, its slave (tty_nr in the process's stat: the pty slave
 * major, its minor the index), on the devpts beside /dev/tty's own node,
 * named as /dev/pts/N itself is (devpts numbers a slave's inode its index
 * plus 3), so that every reader of one terminal waits on one object and
 * no two terminals share /dev/tty's.  0 if it is no pseudo-terminal.
 */
#define PTY_SLAVE_MAJOR	136	/* UNIX98_PTY_SLAVE_MAJOR; the minor: index */
#define DEVPTS_INO(n)	((n) + 3)

static int
controlling(struct wf_snap *s, int pid, const char *info, struct obj *o)
{
	char buf[4096], path[32], *p;
	unsigned long nr;
	unsigned index;
	uint64_t dev;

	if (wf_procf(buf, sizeof(buf), "/proc/%d/stat", pid) <= 0 ||
	    (p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %*c %*d %*d %*d %lu", &nr) != 1 ||
	    (nr >> 8 & 0xfff) != PTY_SLAVE_MAJOR ||
	    (dev = wf_devpts(s, pid, "/dev/tty", info)) == 0)
		return 0;
	/* tty_nr as the kernel's new_encode_dev() packs it. */
	index = (nr & 0xff) | (nr >> 12 & 0xfff00);
	o->dev = dev;
	o->ino = DEVPTS_INO(index);
	snprintf(path, sizeof(path), "/dev/pts/%u", index);
	o->path = xstrdup(path);
	return 1;
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
	if (wf_procf(info, sizeof(info), "/proc/%d/fdinfo/%d", pid, fd) <= 0)
		info[0] = '\0';
	if (strcmp(link, "anon_inode:[eventfd]") == 0 &&
	    (p = wf_fdinfo_get(info, "eventfd-id")) != NULL) {
		o->type = OT_EVENTFD;
		o->ino = strtoull(wf_fdinfo_get(info, "ino") ?
		    wf_fdinfo_get(info, "ino") : "0", NULL, 10);
		o->kind = "eventfd";
		o->id = strtoul(p, NULL, 10);
		snprintf(o->key, sizeof(o->key), "eventfd:%u", o->id);
		return 0;
	}
	if (strncmp(link, "anon_inode:", 11) == 0) {
		/* No identity of their own: the fd names them. */
		if ((p = wf_fdinfo_get(info, "ino")) != NULL)
			o->ino = strtoull(p, NULL, 10);
		o->type = OT_OTHER;
		o->kind = "anon";
		if (strcmp(link + 11, "[eventpoll]") == 0) {
			o->type = OT_EPOLL;
			o->kind = "epoll";
		} else if (strcmp(link + 11, "[timerfd]") == 0) {
			o->kind = WT_TIMERFD;
			/* What is left, whatever the timer's clock. */
			p = wf_fdinfo_get(info, "it_value");
			if (p != NULL && sscanf(p, " (%ld, %ld)", &sec,
			    &nsec) == 2 && (sec || nsec))
				o->deadline = s->t0 + wf_ts_ns(sec, nsec, 1);
		} else if (strcmp(link + 11, "[signalfd]") == 0)
			o->kind = "signalfd";
		else if (strcmp(link + 11, "inotify") == 0)
			o->kind = "inotify";
		else if (strcmp(link + 11, "[pidfd]") == 0) {
			o->kind = "pidfd";
			/*
			 * A process, by its id in our namespace (0: not in
			 * it; -1: gone), whose exit makes it readable.
			 */
			if ((p = wf_fdinfo_get(info, "Pid")) != NULL &&
			    atoi(p) > 0) {
				o->type = OT_PIDFD;
				o->id = atoi(p);
				snprintf(o->key, sizeof(o->key), "pidfd:%u",
				    o->id);
				return 0;
			}
		}
		snprintf(o->key, sizeof(o->key), "%s:%d:%d", o->kind, pid, fd);
		return 0;
	}
	if (strcmp(link, FUSE_LINK) == 0) {
		/*
		 * A FUSE daemon's wait for requests: on its connection, by
		 * the file system's device, where the kernel says (fdinfo's
		 * fuse_connection, MAJOR << 20 | MINOR).  No other opener
		 * of /dev/fuse feeds it: its callers do, which the calls
		 * that wait for it name (wait_fuse()).
		 */
		o->type = OT_OTHER;
		o->kind = WT_FUSE;
		if ((p = wf_fdinfo_get(info, "fuse_connection")) != NULL) {
			v = strtoull(p, NULL, 10);
			o->dev = (v >> 20) << 32 | (v & 0xfffff);
			snprintf(o->key, sizeof(o->key), "%s:%u:%u", WT_FUSE,
			    (unsigned)(v >> 20), (unsigned)(v & 0xfffff));
		} else
			snprintf(o->key, sizeof(o->key), "%s", WT_FUSE);
		return 0;
	}
	if (link[0] == '/' && (p = wf_fdinfo_get(info, "ino")) != NULL) {
		o->type = OT_PATH;
		o->ino = strtoull(p, NULL, 10);
		if ((p = wf_fdinfo_get(info, "mnt_id")) != NULL)
			o->dev = wf_mnt_dev(s, pid, atoi(p));
		/*
		 * A FIFO's reader and writer wait in the pipe code; a
		 * terminal's reader waits for a person.
		 */
		if (strcmp(link, "/dev/tty") == 0 &&
		    controlling(s, pid, info, o)) {
			file_key(o, WT_TTY);
			return 0;
		}
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

struct wt *
wf_add_wait(struct wf_snap *s, size_t ti, int fd, int mode)
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
	w = wf_add_wait(s, ti, fd, mode);
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
	if (wf_procf(info, sizeof(info), "/proc/%d/fdinfo/%d", t->pid, ep->fd) <= 0)
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
	if (n > 0 && wf_peek(t->pid, addr, pf, n * sizeof(*pf)) == -1)
		n = 0;
	for (i = 0; i < n; i++)
		if (pf[i].fd >= 0 && (w = wait_fd(s, ti, pf[i].fd,
		    poll_mode(pf[i].events))) != NULL) {
			w->timeout = timeout;
			any = 1;
		}
	/* poll(NULL, 0, ms): a sleep. */
	if (!any)
		wf_add_wait(s, ti, NO_FD, WM_SLEEP)->timeout = timeout;
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
		got[k] = words > 0 && wf_peek(t->pid, t->a[1 + k], set[k],
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
		wf_add_wait(s, ti, NO_FD, WM_SLEEP)->timeout = timeout;
}

/*
 * A connect(2) to a unix listener whose queue is full waits for room
 * before its socket is anyone's peer: the address it passed names the
 * listener, by the path or abstract name it was bound to, and the
 * listener's holders are the ones to accept.  A relative path is also
 * tried from the caller's working directory, by readlink: no path of
 * the caller's is looked up (a stat could wait on the caller's own FUSE
 * server).  The wait's id keeps the listener.
 */
static void
connect_target(struct wf_snap *s, size_t ti, struct wt *w, uint64_t addr,
    uint64_t len)
{
	struct thr *t = &s->thr[ti];
	struct { sa_family_t family; char path[108]; } sa;
	char link[32], cwd[PATH_MAX], full[PATH_MAX + sizeof(sa.path) + 1];
	size_t n = len < sizeof(sa) ? len : sizeof(sa);
	ssize_t m;

	memset(&sa, 0, sizeof(sa));
	if (n <= sizeof(sa.family) || wf_peek(t->pid, addr, &sa, n) == -1 ||
	    sa.family != AF_UNIX)
		return;
	n -= sizeof(sa.family);
	wf_load_diag(s);
	if (sa.path[0] != '\0')
		n = strnlen(sa.path, n);
	if ((w->o.id = sockdiag_unix_listener(s->diag, sa.path, n)) != 0 ||
	    sa.path[0] == '/' || sa.path[0] == '\0')
		return;
	snprintf(link, sizeof(link), "/proc/%d/cwd", t->pid);
	if ((m = readlink(link, cwd, sizeof(cwd) - 1)) <= 0)
		return;
	cwd[m] = '\0';
	m = snprintf(full, sizeof(full), "%s/%.*s", strcmp(cwd, "/") == 0 ?
	    "" : cwd, (int)n, sa.path);
	if (m > 0 && (size_t)m < sizeof(full))
		w->o.id = sockdiag_unix_listener(s->diag, full, m);
}

/* wait4(pid), waitid(idtype, id): the children a parent waits for. */
static void
wait_child(struct wf_snap *s, size_t ti, int which, int id)
{
	struct thr *t = &s->thr[ti];
	struct proc *p = wf_proc_get(s, t->pid);
	struct wt *w = wf_add_wait(s, ti, NO_FD, WM_CHILD);

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

/*
 * A parent that made a child with CLONE_VFORK (vfork, posix_spawn,
 * system) sleeps in kernel_clone until that child execs or exits: a wait
 * for its newest child.  Whatever the child then waits for (a file action
 * opening a FIFO, an exec from a slow file system) holds the parent too.
 */
#define K_CLONE_VFORK	0x4000

static void
wait_vfork(struct wf_snap *s, size_t ti)
{
	struct thr *t = &s->thr[ti];
	uint64_t flags = t->a[0], born, newest = 0;
	struct proc *p, *tmp;
	char buf[1024];
	int child = 0;

	if (strstr(t->wchan, "kernel_clone") == NULL &&
	    strstr(t->wchan, "vfork") == NULL)
		return;
	if (strcmp(t->call, "clone3") == 0 &&
	    wf_peek(t->pid, t->a[0], &flags, sizeof(flags)) == -1)
		return;
	if (strcmp(t->call, "vfork") != 0 && !(flags & K_CLONE_VFORK))
		return;
	HASH_ITER(hh, s->procs, p, tmp) {
		if (p->ppid != t->pid || wf_procf(buf, sizeof(buf),
		    "/proc/%d/stat", p->pid) <= 0 ||
		    (born = wf_stat_born(s, buf)) == NO_TIME || born < newest)
			continue;
		newest = born;
		child = p->pid;
	}
	if (child != 0)
		wait_child(s, ti, 'p', child);
}

static void
wait_futex(struct wf_snap *s, size_t ti)
{
	struct thr *t = &s->thr[ti];
	int op = t->a[1], cmd = FUTEX_CMD(op), rt = op & FUTEX_CLOCK_RT, ok;
	struct wt *w = wf_add_wait(s, ti, NO_FD, WM_FUTEX);
	uint64_t v;

	w->o.type = OT_FUTEX;
	w->o.kind = "futex";
	w->o.id = t->a[2];	/* the value it expects: 2 for a contended lock */
	w->o.ino = t->a[0];
	snprintf(w->o.key, sizeof(w->o.key), "futex:%d:0x%llx", t->pid,
	    (unsigned long long)t->a[0]);
	if (t->a[3] == 0)
		return;
	v = wf_peek_time(t->pid, t->a[3], 1, &ok);
	if (!ok)
		return;
	switch (cmd) {
	case F_WAIT:
		if (rt)
			w->deadline = wf_to_mono(s, CLOCK_REALTIME, v);
		else
			w->timeout = v;
		break;
	case F_LOCK_PI:
		w->deadline = wf_to_mono(s, CLOCK_REALTIME, v);
		break;
	case F_WAIT_BITSET:
	case F_WAIT_REQUEUE_PI:
	case F_LOCK_PI2:
		w->deadline = wf_to_mono(s, rt ? CLOCK_REALTIME : CLOCK_MONOTONIC,
		    v);
		break;
	}
}

enum how { H_IN, H_OUT, H_SPLICE, H_TEE, H_ACCEPT, H_CONNECT, H_POLL,
	H_PPOLL, H_SELECT, H_PSELECT, H_EPOLL, H_EPOLL2, H_FLOCK, H_FCNTL,
	H_WAIT4, H_WAITID, H_FUTEX, H_NANOSLEEP, H_CLOCK_NANOSLEEP, H_PAUSE,
	H_SIGTIMEDWAIT, H_SEMTIMEDOP, H_VFORK, H_MQ_RECEIVE, H_MQ_SEND };

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
	{ "vfork", H_VFORK }, { "clone", H_VFORK }, { "clone3", H_VFORK },
	{ "mq_timedreceive", H_MQ_RECEIVE }, { "mq_timedsend", H_MQ_SEND },
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
	v = wf_peek_time(pid, addr, unit, &ok);
	return ok ? v : NO_TIME;
}

/*
 * A System V semaphore operation waits on the first of its operations
 * that can wait (a decrement, or a wait for zero): taken as a lock, whose
 * holder the kernel does not keep (holders_sem()).  The timeout says
 * whether it chose to wait that long.
 */
#define MAX_SOPS	64

static void
wait_sem(struct wf_snap *s, size_t ti)
{
	struct thr *t = &s->thr[ti];
	struct { uint16_t num; int16_t op, flg; } ops[MAX_SOPS]; /* sembuf */
	size_t n = t->a[2] < MAX_SOPS ? t->a[2] : MAX_SOPS, i;
	struct wt *w = wf_add_wait(s, ti, NO_FD, WM_NONE);

	w->timeout = ptr_timeout(t->pid, t->a[3], 1);
	if (n == 0 || (int)t->a[0] < 0 ||
	    wf_peek(t->pid, t->a[1], ops, n * sizeof(ops[0])) == -1)
		return;
	for (i = 0; i < n && ops[i].op > 0; i++)
		;
	if (i == n)
		return;
	w->mode = WM_LOCK;
	w->o.type = OT_SEM;
	w->o.kind = WT_SEM;
	w->o.id = (uint32_t)t->a[0];
	w->o.num = ops[i].num;
	snprintf(w->o.key, sizeof(w->o.key), "sem:%u:%u", w->o.id, w->o.num);
}

/*
 * An open (or truncate) that breaks a lease waits in __break_lease, in
 * whatever call, until the lease's holder gives it up: /proc/locks has
 * the breaker under the lease, "1: -> LEASE  BREAKER  WRITE 4471 <none>:0
 * 0 EOF", by its process, below "1: LEASE  BREAKING  UNLCK 4425
 * fe:00:10952851 0 EOF".  A wait for a lock on that file: its holders are
 * holders_lock()'s.  0 if the kernel lists no lease it breaks.
 */
static int
wait_lease(struct wf_snap *s, size_t ti)
{
	const struct thr *t = &s->thr[ti];
	const char *p, *q, *locks = wf_locks(s);
	unsigned long long ino;
	unsigned maj, min;
	char head[24];
	struct wt *w;
	int pid, n;

	for (p = locks; *p != '\0'; p = *q ? q + 1 : q) {
		q = p + strcspn(p, "\n");
		if (sscanf(p, "%*d: -> LEASE BREAKER %*s %d", &pid) == 1 &&
		    pid == t->pid)
			break;
	}
	if (*p == '\0' || (n = (int)strcspn(p, ":")) >= (int)sizeof(head) - 1)
		return 0;
	snprintf(head, sizeof(head), "%.*s: LEASE ", n, p);
	for (p = locks; *p != '\0'; p = *q ? q + 1 : q) {
		q = p + strcspn(p, "\n");
		if (strncmp(p, head, strlen(head)) == 0 &&
		    sscanf(p + strlen(head), "%*s %*s %*d %x:%x:%llu", &maj,
		    &min, &ino) == 3)
			break;
	}
	if (*p == '\0')
		return 0;
	w = wf_add_wait(s, ti, NO_FD, WM_LOCK);
	w->o.type = OT_PATH;
	w->o.dev = (uint64_t)maj << 32 | min;
	w->o.ino = ino;
	file_key(&w->o, "file");
	return 1;
}

/*
 * Waits that the wchan tells whatever the call, for another process's
 * answer: an access (an open, an exec, a read) held for a fanotify
 * permission event until a listener allows it (not the listener's own
 * wait for events, fanotify_read); a call held for a seccomp user
 * notification until the filter's supervisor answers; an access that
 * faulted on memory registered with a userfaultfd, in a call or outside
 * one, until the descriptor's reader resolves the fault.
 */
static const struct answered {
	const char	*wchan;
	int		 type;
	const char	*kind;
	int		 mode;
} answered[] = {
	{ "fanotify_handle_event", OT_FANOTIFY, WT_FANOTIFY, WM_VERDICT },
	{ "fanotify_get_response", OT_FANOTIFY, WT_FANOTIFY, WM_VERDICT },
	{ "seccomp_do_user_notification", OT_SECCOMP, WT_SECCOMP, WM_ANSWER },
	{ "handle_userfault", OT_USERFAULT, WT_USERFAULTFD, WM_ANSWER },
};

static int
wait_answered(struct wf_snap *s, size_t ti)
{
	const struct thr *t = &s->thr[ti];
	const struct answered *a;
	struct wt *w;
	size_t i;

	for (i = 0; i < ARRAY_LEN(answered); i++)
		if (strstr(t->wchan, answered[i].wchan) != NULL)
			break;
	if (i == ARRAY_LEN(answered))
		return 0;
	a = &answered[i];
	w = wf_add_wait(s, ti, NO_FD, a->mode);
	w->o.type = a->type;
	w->o.kind = a->kind;
	snprintf(w->o.key, sizeof(w->o.key), "%s", a->kind);
	return 1;
}

/*
 * Calls whose first argument is the descriptor they act on, besides
 * calls[]' reads and writes: where one waits for a FUSE daemon, the
 * descriptor's file system is the daemon's.
 */
static const char *const fd_first[] = {
	"close", "fadvise64", "fallocate", "fchmod", "fchown", "fdatasync",
	"fgetxattr", "flistxattr", "fremovexattr", "fsetxattr", "fstat",
	"fstatfs", "fsync", "ftruncate", "getdents", "getdents64", "ioctl",
	"lseek", "readahead", "sync_file_range", "syncfs", "copy_file_range",
};

/*
 * A call that waits for a FUSE daemon to answer the request the kernel
 * made of it (a read, a lookup, a flush at close), whatever the call.
 * Its file system is its descriptor's, where its first argument is one:
 * else any daemon may be the one.  Never a stat through the descriptor:
 * that would be one more request to the daemon that does not answer.
 */
static int
wait_fuse(struct wf_snap *s, size_t ti, int how)
{
	const struct thr *t = &s->thr[ti];
	int fd = NO_FD;
	struct wt *w;
	struct obj o;
	size_t i;

	if (strstr(t->wchan, "request_wait_answer") == NULL)
		return 0;
	for (i = 0; how < 0 && i < ARRAY_LEN(fd_first); i++)
		if (strcmp(t->call, fd_first[i]) == 0)
			how = H_IN;
	o.dev = 0;
	if ((how == H_IN || how == H_OUT || how == H_FLOCK ||
	    how == H_FCNTL) && (int)t->a[0] >= 0 &&
	    resolve_fd(s, t->pid, (int)t->a[0], "", &o) == 0) {
		free(o.path);
		if (o.type == OT_PATH && o.dev != 0)
			fd = (int)t->a[0];
		else
			o.dev = 0;
	}
	w = wf_add_wait(s, ti, fd, WM_ANSWER);
	w->o.type = OT_FUSE;
	w->o.kind = WT_FUSE;
	w->o.dev = o.dev;
	if (o.dev != 0)
		snprintf(w->o.key, sizeof(w->o.key), "%s:%u:%u", WT_FUSE,
		    (unsigned)(o.dev >> 32), (unsigned)o.dev);
	else
		snprintf(w->o.key, sizeof(w->o.key), "%s", WT_FUSE);
	return 1;
}

/*
 * A message queue's file is on its IPC namespace's own mount of the
 * mqueue file system, which no mountinfo lists: it is named by that
 * mount's id, which is the system's, and its inode.
 */
static void
mq_key(int pid, int fd, struct obj *o)
{
	char info[4096];
	const char *m;

	o->kind = WT_MQUEUE;
	if (wf_procf(info, sizeof(info), "/proc/%d/fdinfo/%d", pid, fd) <= 0 ||
	    (m = wf_fdinfo_get(info, "mnt_id")) == NULL)
		return;
	snprintf(o->key, sizeof(o->key), "%s:%d:%llu", WT_MQUEUE, atoi(m),
	    (unsigned long long)o->ino);
}

void
wf_decode(struct wf_snap *s, size_t ti)
{
	struct thr *t = &s->thr[ti];
	const uint64_t *a = t->a;
	size_t i, n = s->nw;
	struct wt *w;
	struct obj o;
	uint64_t v;
	int ok, m;

	/* Running: no wait but, maybe, pass 5's. */
	if (t->running)
		return;
	memset(&o, 0, sizeof(o));
	o.deadline = NO_TIME;
	if ((m = wf_not_running(s, t, &o)) != WM_NONE) {
		wf_add_wait(s, ti, NO_FD, m)->o = o;
		return;
	}
	if ((strstr(t->wchan, "break_lease") != NULL && wait_lease(s, ti)) ||
	    wait_answered(s, ti))
		return;
	for (i = 0; i < ARRAY_LEN(calls); i++)
		if (strcmp(t->call, calls[i].name) == 0)
			break;
	if (wait_fuse(s, ti, i < ARRAY_LEN(calls) ? (int)calls[i].how : -1))
		return;
	if (i == ARRAY_LEN(calls)) {
		wf_add_wait(s, ti, NO_FD, WM_NONE);
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
		if ((w = wait_fd(s, ti, (int)a[0], WM_CONNECT)) != NULL &&
		    w->o.type == OT_SOCKET)
			connect_target(s, ti, w, a[1], a[2]);
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
		wf_add_wait(s, ti, NO_FD, WM_SLEEP)->timeout =
		    ptr_timeout(t->pid, a[0], 1);
		break;
	case H_CLOCK_NANOSLEEP:
		w = wf_add_wait(s, ti, NO_FD, WM_SLEEP);
		v = wf_peek_time(t->pid, a[2], 1, &ok);
		if (ok && (a[1] & TIMER_ABSTIME))
			w->deadline = wf_to_mono(s, (int)a[0], v);
		else if (ok)
			w->timeout = v;
		break;
	case H_PAUSE:
		wf_add_wait(s, ti, NO_FD, WM_SIGNAL);
		break;
	case H_SIGTIMEDWAIT:
		wf_add_wait(s, ti, NO_FD, WM_SIGNAL)->timeout =
		    ptr_timeout(t->pid, a[2], 1);
		break;
	case H_SEMTIMEDOP:
		wait_sem(s, ti);
		break;
	case H_VFORK:
		wait_vfork(s, ti);
		break;
	case H_MQ_RECEIVE:
	case H_MQ_SEND:
		/*
		 * On the queue's file, whose other openers are its senders
		 * and receivers (holders_path()); an absolute deadline on
		 * CLOCK_REALTIME, if any.
		 */
		if ((w = wait_fd(s, ti, (int)a[0], calls[i].how ==
		    H_MQ_RECEIVE ? WM_IN : WM_OUT)) == NULL ||
		    w->o.type != OT_PATH)
			break;
		mq_key(t->pid, (int)a[0], &w->o);
		if (a[4] == 0)
			break;
		v = wf_peek_time(t->pid, a[4], 1, &ok);
		if (ok)
			w->deadline = wf_to_mono(s, CLOCK_REALTIME, v);
		break;
	}
	/* A thread always has its record, even on an fd gone meanwhile. */
	if (s->nw == n)
		wf_add_wait(s, ti, NO_FD, WM_NONE);
}


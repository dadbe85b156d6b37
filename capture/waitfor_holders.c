/*
 * Pass 4 of the wait-for snapshot (waitfor.c): who holds each object a
 * thread waits on, and how (fdinfo's flags for a pipe's ends, sock_diag
 * for a socket's peer, /proc/locks and fdinfo lock lines for a file lock,
 * ppid for children).
 */
#include <sys/types.h>
#include <sys/ipc.h>
#include <sys/sem.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uthash.h>

#include "util.h"
#include "waits.h"
#include "sockdiag.h"
#include "waitfor.h"
#include "procopen.h"
#include "waitfor_int.h"

/* Pass 4: holders. */

struct hd *
wf_add_holder(struct wf_snap *s, const char *obj, int rel, int pid, int tid,
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
	return wf_procf(buf, size, "/proc/%d/fdinfo/%d", pid, fd) > 0 ? 0 : -1;
}

/* reader, writer or rdwr, from fdinfo's octal flags. */
static int
access_rel(const char *info)
{
	const char *p = wf_fdinfo_get(info, "flags");
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
	if ((x = wf_wanted(s, link)) == NULL)
		return;
	for (i = 0; i < x->n; i++)
		if (fdinfo_read(x->refs[i].pid, x->refs[i].fd, info,
		    sizeof(info)) == 0 && (rel = access_rel(info)) >= 0)
			wf_add_holder(s, w->o.key, rel, x->refs[i].pid, 0,
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
	if ((x = wf_wanted(s, link)) == NULL)
		return 0;
	for (i = 0; i < x->n; i++) {
		h = wf_add_holder(s, w->o.key, rel, x->refs[i].pid, 0,
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
		/*
		 * A TCP connection in a listener's queue, or a connect
		 * waiting for room in one.
		 */
		if (si->listener != 0 || w->o.id != 0)
			holders_sock(s, w, si->listener != 0 ? si->listener :
			    w->o.id, WR_LISTENER, sock_kind_name(si->kind));
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
	struct want *x = wf_wanted(s, "anon_inode:[eventfd]");
	char info[4096];
	const char *p;
	size_t i;

	for (i = 0; x != NULL && i < x->n; i++)
		if (fdinfo_read(x->refs[i].pid, x->refs[i].fd, info,
		    sizeof(info)) == 0 &&
		    (p = wf_fdinfo_get(info, "eventfd-id")) != NULL &&
		    strtoul(p, NULL, 10) == w->o.id)
			wf_add_holder(s, w->o.key, WR_HOLDER, x->refs[i].pid, 0,
			    x->refs[i].fd);
}

/* The same file, as its fdinfo says: a path may name another since. */
static int
same_file(struct wf_snap *s, int pid, const char *info, const struct obj *o)
{
	const char *p = wf_fdinfo_get(info, "ino"), *m = wf_fdinfo_get(info, "mnt_id");

	return p != NULL && strtoull(p, NULL, 10) == o->ino &&
	    (m == NULL || wf_mnt_dev(s, pid, atoi(m)) == o->dev);
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
	/* No path (a lease's breaker, from /proc/locks): its taker's pid. */
	struct want *x = w->o.path != NULL ? wf_wanted(s, w->o.path) : NULL;
	struct hd *h;
	size_t i;
	int n = 0;

	snprintf(needle, sizeof(needle), " %s ", cls);
	for (i = 0; x != NULL && i < x->n; i++) {
		if (fdinfo_read(x->refs[i].pid, x->refs[i].fd, info,
		    sizeof(info)) == -1 || strstr(info, needle) == NULL ||
		    !same_file(s, x->refs[i].pid, info, &w->o))
			continue;
		h = wf_add_holder(s, w->o.key, WR_LOCK_HOLDER, x->refs[i].pid, 0,
		    x->refs[i].fd);
		snprintf(h->detail, sizeof(h->detail), "%s", detail);
		n++;
	}
	return n;
}

const char *
wf_locks(struct wf_snap *s)
{
	if (s->locks == NULL) {
		s->locks = xmalloc(1 << 20);
		if (proc_slurp("/proc/locks", s->locks, 1 << 20) < 0)
			s->locks[0] = '\0';
	}
	return s->locks;
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

	copy = xstrdup(wf_locks(s));
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
				snprintf(wf_add_holder(s, w->o.key,
				    WR_LOCK_WAITER, pid, 0, NO_FD)->detail,
				    sizeof(h->detail), "%s", detail);
			continue;
		}
		if (strcmp(cls, "POSIX") != 0 && !fds_done++ &&
		    holders_fdlock(s, w, cls, detail) > 0)
			continue;
		/* A POSIX lock is its process's, whatever fd took it. */
		if (pid > 0) {
			h = wf_add_holder(s, w->o.key, WR_LOCK_HOLDER, pid, 0,
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
	struct want *x = wf_wanted(s, w->o.path);
	char info[4096];
	size_t i;
	int rel;

	for (i = 0; x != NULL && i < x->n; i++)
		if (fdinfo_read(x->refs[i].pid, x->refs[i].fd, info,
		    sizeof(info)) == 0 && same_file(s, x->refs[i].pid, info,
		    &w->o) && (rel = access_rel(info)) >= 0)
			wf_add_holder(s, w->o.key, rel, x->refs[i].pid, 0,
			    x->refs[i].fd);
}

/*
 * A terminal's reader waits for someone to type, its writer for its
 * output to be taken (or let go again after ^S): on a pseudo-terminal,
 * the process that holds its master side (a terminal emulator, sshd,
 * tmux, expect), which fdinfo names by tty-index.  The terminal's other
 * openers (its session's processes) neither type nor take the output.
 * /dev/tty is its reader's controlling terminal's slave by now
 * (controlling()).
 */
static void
holders_terminal(struct wf_snap *s, const struct wt *w)
{
	static const char *const masters[] = { "/dev/ptmx", "/dev/pts/ptmx" };
	char info[4096], end;
	const char *p;
	struct want *x;
	unsigned index;
	size_t i, k;

	if (sscanf(w->o.path, "/dev/pts/%u%c", &index, &end) != 1)
		return;
	for (k = 0; k < sizeof(masters) / sizeof(masters[0]); k++)
		for (i = 0, x = wf_wanted(s, masters[k]); x != NULL &&
		    i < x->n; i++)
			if (fdinfo_read(x->refs[i].pid, x->refs[i].fd, info,
			    sizeof(info)) == 0 &&
			    (p = wf_fdinfo_get(info, "tty-index")) != NULL &&
			    strtoul(p, NULL, 10) == index &&
			    wf_devpts(s, x->refs[i].pid, masters[k], info) ==
			    w->o.dev)
				wf_add_holder(s, w->o.key, WR_TERMINAL,
				    x->refs[i].pid, 0, x->refs[i].fd);
}

/* Whether process pid is in our namespace of kind ns ("pid", "ipc"). */
static int
our_ns(int pid, const char *ns)
{
	char path[64], self[64], theirs[64], ours[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, ns);
	snprintf(self, sizeof(self), "/proc/self/ns/%s", ns);
	return (n = readlink(path, theirs, sizeof(theirs))) > 0 &&
	    readlink(self, ours, sizeof(ours)) == n &&
	    memcmp(theirs, ours, n) == 0;
}

/*
 * A System V semaphore keeps no holder, but the kernel keeps who operated
 * on it last (semctl GETPID, as ipcs -i shows it): where a process took
 * it and has not given it back, that one, alive or not.  Not the waiter
 * itself; only where the waiter's IPC namespace is ours, in which the id
 * is the same set.  Said to have exited where it is a zombie, or where
 * a process by that id was born after the set's last operation (the id
 * reused).
 */
static void
holders_sem(struct wf_snap *s, const struct wt *w)
{
	const struct thr *t = &s->thr[w->thr];
	char buf[4096], state, *p;
	struct semid_ds ds;
	uint64_t born, last;
	struct hd *h;
	int pid, gone;

	if (!our_ns(t->pid, "ipc"))
		return;
	if ((pid = semctl((int)w->o.id, w->o.num, GETPID)) <= 0 ||
	    pid == t->pid || semctl((int)w->o.id, 0, IPC_STAT, &ds) == -1)
		return;
	/* A zombie has exited too: a parent stuck on it has not reaped it. */
	gone = wf_procf(buf, sizeof(buf), "/proc/%d/stat", pid) <= 0 ||
	    (p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 1, " %c", &state) != 1 || state == 'Z' || state == 'X';
	last = (uint64_t)ds.sem_otime * 1000000000ULL;
	last = last > s->rt_off ? last - s->rt_off : 0;
	if (!gone && (born = wf_stat_born(s, buf)) != NO_TIME &&
	    born > last + 1000000000ULL)	/* sem_otime: whole seconds */
		gone = 1;
	h = wf_add_holder(s, w->o.key, WR_LAST_OP, pid, 0, NO_FD);
	if (gone)
		snprintf(h->detail, sizeof(h->detail), "exited");
}

/* A pidfd's process, any process: its exit ends a poll of the pidfd. */
static void
holders_pidfd(struct wf_snap *s, const struct wt *w)
{
	int id = (int)w->o.id;
	struct proc *p;
	struct hd *h;

	h = wf_add_holder(s, w->o.key, WR_PROCESS, id, 0, NO_FD);
	HASH_FIND_INT(s->procs, &id, p);
	if (p != NULL)
		h->detail[0] = p->state;
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
		h = wf_add_holder(s, w->o.key, WR_CHILD, p->pid, 0, NO_FD);
		h->detail[0] = p->state;
	}
}

/*
 * Each line of process pid's maps to fn, until it returns non-zero: its
 * value, or 0.  Read a line at a time: a big process's maps fill
 * megabytes.
 */
int
wf_maps_each(int pid, int (*fn)(const char *line, void *arg), void *arg)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	int fd, r = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return 0;
	if ((f = fdopen(fd, "r")) == NULL) {
		close(fd);
		return 0;
	}
	while (r == 0 && getline(&line, &cap, f) > 0)
		r = fn(line, arg);
	free(line);
	fclose(f);
	return r;
}

/* A mapping, as a maps line gives it. */
struct mapping {
	uint64_t		 addr;	/* in: an address it must hold */
	unsigned long long	 lo, hi, ino;
	unsigned		 maj, min;
	char			 perm[5];
};

static int
map_holding(const char *line, void *arg)
{
	struct mapping *m = arg;

	return sscanf(line, "%llx-%llx %4s %*x %x:%x %llu", &m->lo, &m->hi,
	    m->perm, &m->maj, &m->min, &m->ino) == 6 && m->addr >= m->lo &&
	    m->addr < m->hi ? 1 : 0;
}

/* A line that maps the file of *arg (its device and inode). */
static int
map_of_file(const char *line, void *arg)
{
	const struct mapping *want = arg;
	unsigned long long ino;
	unsigned maj, min;

	return sscanf(line, "%*x-%*x %*s %*x %x:%x %llu", &maj, &min,
	    &ino) == 3 && ino == want->ino && maj == want->maj &&
	    min == want->min;
}

/* Whether addresses a and b lie in one mapping of process pid. */
static int
same_mapping(int pid, uint64_t a, uint64_t b)
{
	struct mapping m = { .addr = a };

	return wf_maps_each(pid, map_holding, &m) && b >= m.lo && b < m.hi;
}

/*
 * The thread a futex wait joins, or 0.  glibc's pthread_join (and so
 * C++'s and Rust's) waits on the thread's id in its descriptor, for the
 * value of that id, which the kernel clears and wakes at the thread's
 * exit (CLONE_CHILD_CLEARTID).  A wait for the id of another of the
 * process's threads is believed where that thread's stack, if it is
 * blocked, is in the mapping of the word: the descriptor sits at the top
 * of the thread's stack, and a counter that came to equal an id would be
 * elsewhere.
 */
static int
joined(const struct wf_snap *s, const struct thr *t, const struct wt *w)
{
	int tid = (int)w->o.id;
	char path[64];
	size_t i;

	if (tid <= 0 || tid == t->tid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", t->pid, tid);
	if (access(path, F_OK) == -1)
		return 0;
	for (i = 0; i < s->nthr; i++)
		if (s->thr[i].tid == tid && s->thr[i].sp != 0)
			return same_mapping(t->pid, w->o.ino, s->thr[i].sp) ?
			    tid : 0;
	return tid;
}

/*
 * A lock word in a shared mapping of a file (a process-shared mutex in
 * /dev/shm, a memfd) may be owned by a thread of another process: the
 * owner's process, where it maps the same file and the waiter's pid
 * namespace is ours (the id is the waiter's to give); else 0.
 */
static int
shared_owner(const struct thr *t, uint64_t addr, int owner)
{
	char buf[4096], *p;
	struct mapping m = { .addr = addr };
	int tgid;

	if (!our_ns(t->pid, "pid") ||
	    !wf_maps_each(t->pid, map_holding, &m) || m.perm[3] != 's' ||
	    m.ino == 0 ||
	    wf_procf(buf, sizeof(buf), "/proc/%d/status", owner) <= 0 ||
	    (p = strstr(buf, "\nTgid:")) == NULL || (tgid = atoi(p + 6)) <= 0 ||
	    tgid == t->pid || !wf_maps_each(tgid, map_of_file, &m))
		return 0;
	return tgid;
}

/*
 * A lock word in a private mapping whose owner is no thread at all now:
 * a thread of the waiter's process that exited holding it (a worker's
 * error path that returned without unlocking).  Only where the waiter's
 * pid namespace is ours, and the id no thread's anywhere (a fork's copy
 * of a lock a thread of the parent held names that thread, alive).
 * argus-slice believes it only where the trace saw that thread exit.
 */
static int
exited_owner(const struct thr *t, uint64_t addr, int owner)
{
	char path[64];
	struct mapping m = { .addr = addr };

	if (!our_ns(t->pid, "pid") ||
	    !wf_maps_each(t->pid, map_holding, &m) || m.perm[3] != 'p')
		return 0;
	snprintf(path, sizeof(path), "/proc/%d", owner);
	return access(path, F_OK) == -1;
}

/*
 * A futex has no holder the kernel knows, except a PI lock's word, which
 * holds its owner's tid.  A glibc mutex (the wait for value 2, "locked,
 * contended") keeps its owner's tid after the word, in __owner: read, and
 * believed only if that thread is one of the process's.  So does a glibc
 * rwlock held for writing, in __cur_writer: its waiters wait for value 3
 * ("write phase, contended"), a reader on __wrphase_futex, a writer on
 * __writers_futex, 16 and 12 bytes before it (x86-64's layout; the other
 * offset then holds a pad or a flag, no thread's id).
 */
#define FUTEX_TID_MASK	0x3fffffff
#define GLIBC_OWNER_OFF	8
static const int glibc_writer_off[] = { 16, 12 };

/*
 * The process of tid, a thread of the waiter's process or of a process
 * that maps the word's file too (shared_owner()); 0 if neither.
 */
static int
owner_process(const struct thr *t, uint64_t addr, int tid)
{
	char path[64];

	if (tid <= 0 || tid == t->tid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", t->pid, tid);
	return access(path, F_OK) == 0 ? t->pid : shared_owner(t, addr, tid);
}

static void
holders_futex(struct wf_snap *s, const struct wt *w)
{
	struct thr *t = &s->thr[w->thr];
	int cmd = FUTEX_CMD((int)t->a[1]), word, owner, pid;
	struct hd *h;
	const char *how;
	size_t i;

	if (cmd == F_LOCK_PI || cmd == F_LOCK_PI2) {
		if (wf_peek(t->pid, w->o.ino, &word, sizeof(word)) == -1)
			return;
		owner = word & FUTEX_TID_MASK;
		how = "pi";
	} else if ((cmd == F_WAIT || cmd == F_WAIT_BITSET) && w->o.id == 2) {
		if (wf_peek(t->pid, w->o.ino + GLIBC_OWNER_OFF, &owner,
		    sizeof(owner)) == -1)
			return;
		how = "mutex";
	} else if ((cmd == F_WAIT || cmd == F_WAIT_BITSET) && w->o.id == 3) {
		for (i = 0; i < ARRAY_LEN(glibc_writer_off); i++)
			if (wf_peek(t->pid, w->o.ino + glibc_writer_off[i],
			    &owner, sizeof(owner)) == 0 &&
			    (pid = owner_process(t, w->o.ino, owner)) != 0)
				break;
		if (i == ARRAY_LEN(glibc_writer_off))
			return;
		how = "rwlock";
	} else {
		if ((cmd == F_WAIT || cmd == F_WAIT_BITSET) &&
		    (owner = joined(s, t, w)) != 0)
			wf_add_holder(s, w->o.key, WR_THREAD, t->pid, owner,
			    NO_FD);
		return;
	}
	if (owner <= 0 || owner == t->tid)
		return;
	if ((pid = owner_process(t, w->o.ino, owner)) == 0) {
		if (!exited_owner(t, w->o.ino, owner))
			return;
		h = wf_add_holder(s, w->o.key, WR_OWNER, t->pid, owner, NO_FD);
		snprintf(h->detail, sizeof(h->detail), "exited");
		return;
	}
	h = wf_add_holder(s, w->o.key, WR_OWNER, pid, owner, NO_FD);
	snprintf(h->detail, sizeof(h->detail), "%s%s",
	    pid != t->pid ? "shared " : "", how);
}

/*
 * A thread in a tracing stop (a debugger's breakpoint, strace at each
 * call) runs again when its tracer resumes it: the kernel names that
 * thread (TracerPid), whose process is its Tgid.
 */
static void
holders_tracer(struct wf_snap *s, const struct wt *w)
{
	char buf[4096], *p;
	int tgid;

	if (wf_procf(buf, sizeof(buf), "/proc/%u/status", w->o.id) <= 0 ||
	    (p = strstr(buf, "\nTgid:")) == NULL || (tgid = atoi(p + 6)) <= 0)
		return;
	wf_add_holder(s, w->o.key, WR_TRACER, tgid, (int)w->o.id, NO_FD);
}

/*
 * Each process that holds a descriptor named link, as a holder of w's
 * object in relation rel, one record a process whatever its clones of
 * the descriptor; only those whose fdinfo keep() takes where any is, or
 * at all where all_else is 0.
 */
static void
holders_each(struct wf_snap *s, const struct wt *w, const char *link,
    int rel, int (*keep)(const char *, const void *), const void *arg,
    int all_else)
{
	char info[8192];
	struct want *x;
	size_t i, j, start = s->nh;
	int pass;

	if ((x = wf_wanted(s, link)) == NULL)
		return;
	for (pass = keep == NULL; pass < 1 + all_else && s->nh == start;
	    pass++)
		for (i = 0; i < x->n; i++) {
			if (pass == 0 && (fdinfo_read(x->refs[i].pid,
			    x->refs[i].fd, info, sizeof(info)) != 0 ||
			    !keep(info, arg)))
				continue;
			for (j = start; j < s->nh; j++)
				if (s->h[j].pid == x->refs[i].pid)
					break;
			if (j == s->nh)
				wf_add_holder(s, w->o.key, rel,
				    x->refs[i].pid, 0, x->refs[i].fd);
		}
}

/*
 * A fanotify group that takes permission events: a mark of its fdinfo
 * ("fanotify ino:... mask:10000 ...") asks for one.  FAN_OPEN_PERM,
 * FAN_ACCESS_PERM, FAN_OPEN_EXEC_PERM and FAN_PRE_ACCESS (6.14).
 */
#define FAN_PERM_EVENTS	0x170000UL

static int
decides(const char *info, const void *arg)
{
	const char *p, *eol, *m;

	(void)arg;
	for (p = info; (p = strstr(p, "fanotify ")) != NULL; p = eol) {
		eol = p + strcspn(p, "\n");
		if ((m = strstr(p, " mask:")) != NULL && m < eol &&
		    strtoul(m + 6, NULL, 16) & FAN_PERM_EVENTS)
			return 1;
	}
	return 0;
}

/*
 * The FUSE connection a daemon's descriptor serves, from its fdinfo
 * ("fuse_connection:\t40", where the kernel shows it): its file system's
 * device as the kernel numbers it, MAJOR << 20 | MINOR.
 */
static int
serves(const char *info, const void *want)
{
	const char *p = wf_fdinfo_get(info, "fuse_connection");

	return p != NULL && strtoll(p, NULL, 10) == *(const long long *)want;
}

/*
 * A userfaultfd with a fault outstanding: its fdinfo's "total" counts
 * the faults not yet resolved, read by the handler or not.
 */
static int
faulted(const char *info, const void *arg)
{
	const char *p = wf_fdinfo_get(info, "total");

	(void)arg;
	return p != NULL && strtoul(p, NULL, 10) > 0;
}

/*
 * The kernel names none of these answerers; each process that may be the
 * one is a holder.  An access held for a permission event: each that
 * holds a group taking such events (most machines have one), by the
 * descriptor it reads them from.  A call that waits for a FUSE daemon:
 * the daemon of its file system, by the connection its descriptor
 * serves; where that is unknown (a call with no descriptor, a kernel that
 * does not say, a descriptor not on the file system), each that serves
 * one.  A call held for a seccomp notification: each that holds a
 * filter's listener.  An access faulting on registered memory: each that
 * holds a userfaultfd with a fault outstanding, else each that holds one.
 */
static void
holders_answer(struct wf_snap *s, const struct wt *w)
{
	long long want;

	switch (w->o.type) {
	case OT_FANOTIFY:
		holders_each(s, w, FANOTIFY_LINK, WR_ARBITER, decides, NULL,
		    0);
		break;
	case OT_FUSE:
		want = (long long)(w->o.dev >> 32) << 20 |
		    (w->o.dev & 0xfffff);
		holders_each(s, w, FUSE_LINK, WR_SERVER, w->o.dev != 0 ?
		    serves : NULL, &want, 1);
		break;
	case OT_SECCOMP:
		holders_each(s, w, SECCOMP_LINK, WR_SUPERVISOR, NULL, NULL, 1);
		break;
	case OT_USERFAULT:
		holders_each(s, w, USERFAULT_LINK, WR_HANDLER, faulted, NULL,
		    1);
		break;
	default:
		break;
	}
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

void
wf_find_holders(struct wf_snap *s)
{
	struct wt *w;
	size_t i;

	for (i = 0; i < s->nw; i++) {
		w = &s->w[i];
		/*
		 * An object of no holders does not count as done: a FUSE
		 * daemon's wait for requests is on the connection that its
		 * callers' waits are on too.
		 */
		if (w->o.key[0] == '\0' || w->o.type == OT_OTHER ||
		    done(s, w->o.key))
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
			else if (strcmp(w->o.kind, WT_TTY) == 0)
				holders_terminal(s, w);
			else if (w->mode != WM_NONE)
				holders_path(s, w);
			break;
		case OT_CHILD:
			holders_child(s, w);
			break;
		case OT_PIDFD:
			holders_pidfd(s, w);
			break;
		case OT_SEM:
			holders_sem(s, w);
			break;
		case OT_FUTEX:
			holders_futex(s, w);
			break;
		case OT_TRACEE:
			holders_tracer(s, w);
			break;
		case OT_FANOTIFY:
		case OT_FUSE:
		case OT_SECCOMP:
		case OT_USERFAULT:
			holders_answer(s, w);
			break;
		default:
			break;
		}
	}
}


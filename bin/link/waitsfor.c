/*
 * What the kernel knew when the capture was cut: a thread still waits on an
 * object (a wait record), and another process holds the end of it that
 * can end that wait (a holder record): the holder's vertex -> the waiting
 * vertex.  A hang in progress has no wake-up yet; this is the edge that
 * says who should make it.  Strong where the kernel names one party (the
 * lock's holder, the child, the socket's peer, the futex's owner), weak
 * where several processes hold the same end of a pipe or an eventfd and
 * any of them might be the one.
 *
 * A holder is a process; its thread is the one that last sent or received
 * on the descriptor it holds the object by, else its main thread.  A
 * snapshot is joined when the stream moves past it, so a snapshot taken
 * mid-stream (argus mark) links the vertices that were current then.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "link.h"
#include "waits.h"

struct fduse {
	uint64_t	 key;		/* pid << 32 | fd */
	uint64_t	 time;		/* of its last use */
	uint32_t	 tid;
	UT_hash_handle	 hh;
};

struct swait {
	uint32_t	 pid, tid;
	uint64_t	 since;		/* its thread was forked; 0 before */
	int		 mode;
	char		*object;
};

struct sholder {
	uint32_t	 pid, tid;
	int		 rel, fd;
	char		*object;
};

struct state {
	uint64_t	 born;		/* forked, if the trace saw it; 0 before */
	struct fduse	*last;		/* the descriptor it used last */
};

static struct fduse	*fds;
static struct swait	*waits;
static struct sholder	*holders;
static size_t		 nwaits, nholders;
static uint64_t		 snap_time = NO_TIME;

/* A thread often uses one descriptor call after call: that, without the table. */
static void
use_fd(struct state *st, uint32_t pid, int64_t fd, uint32_t tid,
    uint64_t time)
{
	uint64_t key = (uint64_t)pid << 32 | (uint32_t)fd;
	struct fduse *u = st->last;

	if (fd < 0 || fd > INT32_MAX)
		return;
	if (u == NULL || u->key != key)
		HASH_FIND(hh, fds, &key, sizeof(key), u);
	if (u == NULL) {
		u = xcalloc(1, sizeof(*u));
		u->key = key;
		HASH_ADD(hh, fds, key, sizeof(u->key), u);
	}
	u->tid = tid;
	u->time = time;
	st->last = u;
}

/*
 * The one thread of process hpid that waits on process wpid alone (every
 * end that can end its wait is wpid's: a write to a child's full stdin),
 * or 0: where wpid waits on hpid in turn, that is the thread of hpid that
 * deals with wpid, the one that will read what wpid writes (a parent
 * that writes a child's stdin before it reads its stdout).  None where
 * hpid holds such an end too (shared by a fork, it waits on itself as
 * much), where several threads of it wait on wpid, or where another of
 * its threads waits for input (git's sideband demultiplexer thread, on
 * the server's socket, is the one that writes index-pack's stdin): only
 * threads on their own futexes or timers are left, which pass nothing on.
 */
static uint32_t
peer_thread(uint32_t hpid, uint32_t wpid)
{
	uint32_t tid = 0;
	size_t i, j;
	int peer, other, relay = 0;

	for (i = 0; i < nwaits; i++) {
		if (waits[i].pid != hpid)
			continue;
		/* A relay: its input, when it comes, may go anywhere. */
		if (waits[i].mode == WM_IN || waits[i].mode == WM_INOUT ||
		    waits[i].mode == WM_ACCEPT)
			relay++;
		peer = other = 0;
		for (j = 0; j < nholders; j++)
			if (strcmp(holders[j].object, waits[i].object) == 0 &&
			    wrel_ends(holders[j].rel, waits[i].mode)) {
				if (holders[j].pid == wpid)
					peer = 1;
				else
					other = 1;
			}
		if (!peer || other || waits[i].tid == tid)
			continue;
		if (tid != 0)
			return 0;
		tid = waits[i].tid;
		relay -= waits[i].mode == WM_IN || waits[i].mode == WM_INOUT ||
		    waits[i].mode == WM_ACCEPT;
	}
	return relay == 0 ? tid : 0;
}

/*
 * The thread of a holder process that plays its part, or NULL; *known
 * is 0 when it is only a guess: the main thread, no thread having been
 * seen to use the descriptor since the waiting thread was forked, and
 * none of its threads waiting on the waiter's process alone.  A use
 * before the waiter existed was of another object the number was given
 * before (a close, and the pipe that took its number, are not traced: a
 * parent's fd reused for the pipe to the child it forks next), so the one
 * that wrote or read this end last is known only from then on.
 */
static struct lthread *
holder_thread(const struct sholder *h, const struct swait *w, int *known)
{
	uint64_t key = (uint64_t)h->pid << 32 | (uint32_t)h->fd;
	struct lthread *t;
	struct fduse *u = NULL;
	uint32_t tid;

	*known = 1;
	if (h->tid != 0)
		return lthread_get(h->tid, h->pid);
	if (h->fd != NO_FD)
		HASH_FIND(hh, fds, &key, sizeof(key), u);
	if (u != NULL && u->time < w->since)
		u = NULL;
	*known = u != NULL;
	if (u == NULL && h->pid != w->pid && (tid = peer_thread(h->pid,
	    w->pid)) != 0) {
		*known = 1;
		t = lthread_get(tid, h->pid);
		return t->vertex != 0 ? t : NULL;
	}
	t = lthread_get(u != NULL ? u->tid : h->pid, h->pid);
	return t->vertex != 0 ? t : NULL;
}

/*
 * Whether process pid waits on the object itself: after a fork parent and
 * child hold the same ends, and one that waits to read a pipe is not the
 * one that will write it.
 */
static int
waits_on(uint32_t pid, const char *object)
{
	size_t i;

	for (i = 0; i < nwaits; i++)
		if (waits[i].pid == pid && strcmp(waits[i].object, object) == 0)
			return 1;
	return 0;
}

/*
 * How many processes hold the object in a relation that ends the wait,
 * leaving out those that wait on it themselves: the only one left is the
 * one that will act.
 */
static int
parties(const struct swait *w)
{
	uint32_t last = 0;
	size_t i;
	int n = 0;

	for (i = 0; i < nholders; i++)
		if (strcmp(holders[i].object, w->object) == 0 &&
		    wrel_ends(holders[i].rel, w->mode) &&
		    holders[i].pid != w->pid && holders[i].pid != last &&
		    !waits_on(holders[i].pid, w->object)) {
			last = holders[i].pid;
			n++;
		}
	return n;
}

static void
join(struct link_rule *self)
{
	struct lthread *waiter, *ht;
	struct state *st;
	struct cause c;
	size_t i, j, k;
	int n, known;

	for (i = 0; i < nwaits; i++) {
		waiter = lthread_get(waits[i].tid, waits[i].pid);
		if (waiter->vertex == 0)
			continue;
		st = link_thread(self, waiter);
		waits[i].since = st->born;
		n = parties(&waits[i]);
		for (j = 0; j < nholders; j++) {
			if (strcmp(holders[j].object, waits[i].object) != 0 ||
			    !wrel_ends(holders[j].rel, waits[i].mode) ||
			    (ht = holder_thread(&holders[j], &waits[i], &known)) ==
			    NULL ||
			    ht->tid == waiter->tid)
				continue;
			/* A poll on two fds of one pipe, a holder by two fds. */
			for (k = 0; k < i; k++)
				if (waits[k].tid == waits[i].tid &&
				    strcmp(waits[k].object, waits[i].object) == 0)
					break;
			if (k < i)
				continue;
			for (k = 0; k < j; k++)
				if (holders[k].pid == holders[j].pid &&
				    holders[k].tid == holders[j].tid &&
				    holders[k].rel == holders[j].rel &&
				    strcmp(holders[k].object, holders[j].object) == 0)
					break;
			if (k < j)
				continue;
			memset(&c, 0, sizeof(c));
			c.vertex = ht->vertex;
			c.pid = ht->pid;
			c.tid = ht->tid;
			c.time = snap_time;
			cause_name(&c, self);
			/*
			 * Weak where any of several processes may end the
			 * wait, and where the thread is a guess: no thread
			 * was seen to use the descriptor, or the waiter's own
			 * process holds it, and which of its threads will use
			 * it the kernel cannot say.
			 */
			c.weak = (n != 1 && holders[j].pid != waits[i].pid) ||
			    (holders[j].tid == 0 &&
			    holders[j].pid == waits[i].pid) || !known ||
			    waits_on(holders[j].pid, waits[i].object);
			snprintf(c.label, sizeof(c.label), "%s %s",
			    wrels[holders[j].rel].name, waits[i].object);
			link_emit(snap_time, waiter->pid, waiter->tid,
			    waiter->vertex, &c);
		}
	}
	for (i = 0; i < nwaits; i++)
		free(waits[i].object);
	for (i = 0; i < nholders; i++)
		free(holders[i].object);
	nwaits = nholders = 0;
	snap_time = NO_TIME;
}

static void
next(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	(void)ev, (void)t;
	if (snap_time != NO_TIME)
		join(self);
}

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct state *st;

	if (ev->type == E_FORK) {
		st = link_thread(self, lthread_get(event_u64(ev,
		    ECOL(E_FORK, TTID)), event_pid(ev, ECOL(E_FORK, TPID))));
		st->born = ev->time;
		return;
	}
	if (ev->type != E_SYS_ENTER || ev->ctx != '-')
		return;
	if (event_call(ev) & (CALL_SEND | CALL_RECV))
		use_fd(link_thread(self, t), t->pid,
		    event_i64(ev, SYSCALL_ARG(0)), t->tid, ev->time);
}

static void
record(struct link_rule *self, const struct record *rec)
{
	struct wait_rec w;
	struct holder_rec h;

	if (wait_parse(rec, &w)) {
		if (snap_time != NO_TIME && w.time != snap_time)
			join(self);
		if (observer_comm(w.comm) || *w.object == '\0')
			return;
		snap_time = w.time;
		link_next(self);
		waits = xrealloc(waits, (nwaits + 1) * sizeof(*waits));
		waits[nwaits++] = (struct swait){ w.pid, w.tid, NO_TIME,
		    w.mode, xstrdup(w.object) };
	} else if (holder_parse(rec, &h)) {
		if (snap_time != NO_TIME && h.time != snap_time)
			join(self);
		/* A runtime's word is the runtime rule's (runtime.c). */
		if (observer_comm(h.comm) || h.rel == WR_RUNTIME)
			return;
		snap_time = h.time;
		link_next(self);
		holders = xrealloc(holders, (nholders + 1) * sizeof(*holders));
		holders[nholders++] = (struct sholder){ h.pid, h.tid, h.rel,
		    h.fd, xstrdup(h.object) };
	}
}

static void
finish(struct link_rule *self, uint64_t end)
{
	(void)end;
	if (snap_time != NO_TIME)
		join(self);
}

LINK_RULE(waitsfor) = {
	.name = "waitsfor",
	.types = EV(E_FORK) | EV(E_SYS_ENTER),
	.see = see,
	.next = next,
	.record = record,
	.finish = finish,
	.thread_size = sizeof(struct state),
};

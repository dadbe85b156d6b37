/*
 * What the kernel knew when the capture was cut: a thread still waits on an
 * object (a wait record), and another process holds the end of it that
 * can end that wait (a holder record): the holder's vertex -> the waiting
 * vertex.  A hang in progress has no wake-up yet; this is the edge that
 * says who should make it.  Strong where the kernel names one party (the
 * lock's holder, the child, the socket's peer, the futex's owner, the
 * thread a join waits for), weak where several processes hold the same
 * end of a pipe or an eventfd and any of them might be the one.
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
	uint64_t	 word;		/* a FD field that names fd, as a word; 0 */
	UT_hash_handle	 hh;
};

struct state {
	uint64_t	 born;		/* forked, if the trace saw it; 0 before */
	/* The descriptors it used last: a read of one, a write of another. */
	struct fduse	*last[2];
};

static void	join(struct link_rule *, struct snap_wait *, struct lthread *);

static struct fduse	*fds;
static struct snapshot	 snap = { .join = join, .time = NO_TIME };

/*
 * A thread often uses one descriptor or two (a read's, a write's) call
 * after call: those, without the table.
 */
static struct fduse *
use_fd(struct state *st, uint32_t pid, int64_t fd, uint32_t tid,
    uint64_t time)
{
	uint64_t key = (uint64_t)pid << 32 | (uint32_t)fd;
	struct fduse *u = st->last[0];

	if (fd < 0 || fd > INT32_MAX)
		return NULL;
	if (u == NULL || u->key != key) {
		if ((u = st->last[1]) == NULL || u->key != key)
			HASH_FIND(hh, fds, &key, sizeof(key), u);
		st->last[1] = st->last[0];
	}
	if (u == NULL) {
		u = xcalloc(1, sizeof(*u));
		u->key = key;
		HASH_ADD(hh, fds, key, sizeof(u->key), u);
	}
	u->tid = tid;
	u->time = time;
	st->last[0] = u;
	return u;
}

/*
 * The same, by the call's FD field as a word (field_word()), where one of
 * the two used last was named so: a thread reads one descriptor and
 * writes another call after call (800 K calls in bench/graph's capture),
 * and two words compared cost less than the number read.  0 if neither.
 */
static int
use_fd_word(struct state *st, uint32_t pid, uint64_t w, uint32_t tid,
    uint64_t time)
{
	struct fduse *u;

	if (w == 0)
		return 0;
	if ((u = st->last[0]) == NULL || u->word != w || u->key >> 32 != pid) {
		if ((u = st->last[1]) == NULL || u->word != w ||
		    u->key >> 32 != pid)
			return 0;
		st->last[1] = st->last[0];
		st->last[0] = u;
	}
	u->tid = tid;
	u->time = time;
	return 1;
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
	const struct snap_wait *w;
	const struct snap_holder *h;
	uint32_t tid = 0;
	size_t i, j;
	int peer, other, relay = 0;

	for (i = 0; i < snap.nwaits; i++) {
		w = &snap.waits[i];
		if (w->pid != hpid)
			continue;
		/* A relay: its input, when it comes, may go anywhere. */
		if (w->mode == WM_IN || w->mode == WM_INOUT ||
		    w->mode == WM_ACCEPT)
			relay++;
		peer = other = 0;
		for (j = 0; j < snap.nholders; j++) {
			h = &snap.holders[j];
			if (strcmp(h->object, w->object) == 0 &&
			    wrel_ends(h->rel, w->mode)) {
				if (h->pid == wpid)
					peer = 1;
				else
					other = 1;
			}
		}
		if (!peer || other || w->tid == tid)
			continue;
		if (tid != 0)
			return 0;
		tid = w->tid;
		relay -= w->mode == WM_IN || w->mode == WM_INOUT ||
		    w->mode == WM_ACCEPT;
	}
	return relay == 0 ? tid : 0;
}

/* Whether a process other than pid holds an end that can end wait s. */
static int
fed_from_outside(const struct snap_wait *s, uint32_t pid)
{
	const struct snap_holder *h;
	size_t i;

	for (i = 0; i < snap.nholders; i++) {
		h = &snap.holders[i];
		if (h->pid != pid && wrel_ends(h->rel, s->mode) &&
		    strcmp(h->object, s->object) == 0)
			return 1;
	}
	return 0;
}

/*
 * Of the waiter's own process, which holds the end that can end w (a pipe
 * between two of its threads): the one other thread that waits for
 * input another process gives, on another object, or 0.  What it reads,
 * it passes on (git fetch's sideband demultiplexer reads the server's
 * socket and writes the pipe its main thread reads).  Threads on their
 * own futexes, timers or mailboxes pass nothing on; where two wait for
 * such input, either might.
 */
static uint32_t
relay_thread(const struct snap_wait *w)
{
	const struct snap_wait *s;
	uint32_t tid = 0;
	size_t i;

	for (i = 0; i < snap.nwaits; i++) {
		s = &snap.waits[i];
		if (s->pid != w->pid || s->tid == w->tid ||
		    strcmp(s->object, w->object) == 0 || (s->mode != WM_IN &&
		    s->mode != WM_INOUT && s->mode != WM_ACCEPT) ||
		    !fed_from_outside(s, w->pid))
			continue;
		if (tid != 0 && tid != s->tid)
			return 0;
		tid = s->tid;
	}
	return tid;
}

/*
 * The thread of a holder process that plays its part, or NULL; *known
 * is 0 when it is only a guess: the main thread, no thread having been
 * seen to use the descriptor since the waiting thread was forked, and
 * none of its threads waiting on the waiter's process alone; 2 when the
 * holder is the waiter's own process and the thread its one relay.  A use
 * before the waiter existed was of another object the number was given
 * before (a close, and the pipe that took its number, are not traced: a
 * parent's fd reused for the pipe to the child it forks next), so the one
 * that wrote or read this end last is known only from then on.
 */
static struct lthread *
holder_thread(const struct snap_holder *h, const struct snap_wait *w,
    int *known)
{
	uint64_t key = (uint64_t)h->pid << 32 | (uint32_t)h->fd;
	struct lthread *t;
	struct fduse *u = NULL;
	uint32_t tid;

	*known = 1;
	/*
	 * A thread the trace last saw in another process is not this
	 * one's: the snapshot guessed its process (an owner that exited,
	 * whose id a fork's copy of a lock may name, its parent's thread).
	 */
	if (h->tid != 0) {
		t = lthread_get(h->tid, 0);
		return t->vertex != 0 && t->pid != h->pid ? NULL :
		    lthread_get(h->tid, h->pid);
	}
	/*
	 * A child's end is its process's, as is the last operation on a
	 * semaphore (the kernel keeps its process): its main thread stands
	 * for it as well as any (most have no other).
	 */
	if (h->rel == WR_CHILD || h->rel == WR_LAST_OP) {
		t = lthread_get(h->pid, h->pid);
		return t->vertex != 0 ? t : NULL;
	}
	if (h->fd != NO_FD)
		HASH_FIND(hh, fds, &key, sizeof(key), u);
	/* Nor is the waiter's own use a word on who will end its wait. */
	if (u != NULL && (u->time < w->since || u->tid == w->tid))
		u = NULL;
	*known = u != NULL;
	if (u == NULL && h->pid != w->pid && (tid = peer_thread(h->pid,
	    w->pid)) != 0) {
		*known = 1;
		t = lthread_get(tid, h->pid);
		return t->vertex != 0 ? t : NULL;
	}
	if (u == NULL && h->pid == w->pid && (tid = relay_thread(w)) != 0) {
		*known = 2;
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

	for (i = 0; i < snap.nwaits; i++)
		if (snap.waits[i].pid == pid &&
		    strcmp(snap.waits[i].object, object) == 0)
			return 1;
	return 0;
}

/*
 * Whether the holder waits on the object itself: a holder the kernel
 * names by its thread (a lock's owner, a thread joined) by that thread,
 * whose process waits on the object in the waiter at least.
 */
static int
holder_waits_on(const struct snap_holder *h, const char *object)
{
	size_t i;

	if (h->tid == 0)
		return waits_on(h->pid, object);
	for (i = 0; i < snap.nwaits; i++)
		if (snap.waits[i].tid == h->tid &&
		    strcmp(snap.waits[i].object, object) == 0)
			return 1;
	return 0;
}

/*
 * How many processes hold the object in a relation that ends the wait,
 * leaving out those that wait on it themselves: the only one left is the
 * one that will act.
 */
static int
parties(const struct snap_wait *w)
{
	const struct snap_holder *h;
	uint32_t last = 0;
	size_t i;
	int n = 0;

	for (i = 0; i < snap.nholders; i++) {
		h = &snap.holders[i];
		if (strcmp(h->object, w->object) == 0 &&
		    wrel_ends(h->rel, w->mode) &&
		    h->pid != w->pid && h->pid != last &&
		    !waits_on(h->pid, w->object)) {
			last = h->pid;
			n++;
		}
	}
	return n;
}

/* The holders of an end that can end w -> w's vertex. */
static void
join(struct link_rule *self, struct snap_wait *w, struct lthread *waiter)
{
	const struct snap_holder *h;
	struct lthread *ht;
	struct state *st;
	struct cause c;
	size_t i = w - snap.waits, j, k;
	int n, known;

	st = link_thread(self, waiter);
	w->since = st->born;
	n = parties(w);
	for (j = 0; j < snap.nholders; j++) {
		h = &snap.holders[j];
		if (strcmp(h->object, w->object) != 0 ||
		    !wrel_ends(h->rel, w->mode) ||
		    (ht = holder_thread(h, w, &known)) == NULL ||
		    ht->tid == waiter->tid)
			continue;
		/* A poll on two fds of one pipe, a holder by two fds. */
		for (k = 0; k < i; k++)
			if (snap.waits[k].tid == w->tid &&
			    strcmp(snap.waits[k].object, w->object) == 0)
				break;
		if (k < i)
			continue;
		for (k = 0; k < j; k++)
			if (snap.holders[k].pid == h->pid &&
			    snap.holders[k].tid == h->tid &&
			    snap.holders[k].rel == h->rel &&
			    strcmp(snap.holders[k].object, h->object) == 0)
				break;
		if (k < j)
			continue;
		cause_in(&c, ht, snap.time, self);
		/*
		 * Weak where any of several processes may end the wait, and
		 * where the thread is a guess: no thread was seen to use the
		 * descriptor, or the waiter's own process holds it, and which
		 * of its threads will use it the kernel cannot say: but for
		 * its one relay, where no other process holds that end.
		 */
		c.weak = !(known == 2 && n == 0) &&
		    ((n != 1 && h->pid != w->pid) ||
		    (h->tid == 0 && h->pid == w->pid) || !known ||
		    holder_waits_on(h, w->object));
		snprintf(c.label, sizeof(c.label), "%s %s",
		    wrels[h->rel].name, w->object);
		link_emit(snap.time, waiter->pid, waiter->tid, waiter->vertex,
		    &c);
	}
}

static void
next(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	(void)ev, (void)t;
	snap_past(&snap, self, NO_TIME);
}

/*
 * A fork, or a descriptor not used last: out of line, the table's code
 * and its registers kept out of the calls that are most of see()'s.
 */
static void __attribute__((noinline))
see_any(struct link_rule *self, const struct event *ev, struct lthread *t,
    uint64_t w)
{
	struct state *st;
	struct fduse *u;

	if (ev->type == E_FORK) {
		st = link_thread(self, lthread_get(event_u64(ev,
		    ECOL(E_FORK, TTID)), event_pid(ev, ECOL(E_FORK, TPID))));
		st->born = ev->time;
		return;
	}
	st = link_thread(self, t);
	if ((u = use_fd(st, t->pid, event_i64(ev, SYSCALL_ARG(0)), t->tid,
	    ev->time)) != NULL)
		u->word = w;
}

/*
 * A sys_enter is of a send or a receive (.calls): most are of one of the
 * two descriptors the thread used last, noted in line.
 */
static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	uint64_t w = 0;

	if (ev->type != E_SYS_ENTER) {
		see_any(self, ev, t, 0);
		return;
	}
	if (ev->ctx != '-')
		return;
	if (!field_word(ev->rec, EC_ARG + SYSCALL_ARG(0), &w) ||
	    !use_fd_word(link_thread(self, t), t->pid, w, t->tid, ev->time))
		see_any(self, ev, t, w);
}

static void
record(struct link_rule *self, const struct record *rec)
{
	struct wait_rec w;
	struct holder_rec h;

	if (wait_parse(rec, &w)) {
		snap_past(&snap, self, w.time);
		if (!observer_comm(w.comm) && *w.object != '\0')
			snap_wait(&snap, self, &w);
	} else if (holder_parse(rec, &h)) {
		snap_past(&snap, self, h.time);
		/*
		 * A runtime's word is the runtime rule's (runtime.c); the
		 * mappers of a poller's memory are suspects, not holders,
		 * which argus-slice weighs itself.
		 */
		if (!observer_comm(h.comm) && h.rel != WR_RUNTIME &&
		    h.rel != WR_MAPPER)
			snap_holder(&snap, self, &h);
	}
}

static void
finish(struct link_rule *self, uint64_t end)
{
	(void)end;
	snap_past(&snap, self, NO_TIME);
}

LINK_RULE(waitsfor) = {
	.name = WAITSFOR_RULE,
	.types = EV(E_FORK) | EV(E_SYS_ENTER),
	.calls = CALL_SEND | CALL_RECV,
	.see = see,
	.next = next,
	.record = record,
	.kinds = { KIND_WAIT, KIND_HOLDER },
	.finish = finish,
	.thread_size = sizeof(struct state),
};

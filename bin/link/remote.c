/*
 * A receive on one host of bytes that another host sent: the sender's
 * vertex -> the receiver's, in a stream of several hosts (argus-cat(1)
 * HOSTS).  Both ends of a TCP connection are known by their address pairs
 * (sock_state events: LOCAL>REMOTE on one host is REMOTE>LOCAL on the
 * other), and each end counts the bytes it sent and received since the
 * connection opened, so a receive is matched to the send that carried its
 * first byte without payload: strong, labelled with the sender's pair.
 * A receive on the sender's own host is the softirq rule's (loopback).
 *
 * A send's event comes at its end, when the peer may have its bytes
 * already: a receive before the send that carried its first byte waits
 * for it (a few per connection), and is linked when it comes.
 *
 * The bytes wake their receiver from the network's softirq, in whatever
 * thread it ran on (idle, ksoftirqd, anyone's system call): the softirq
 * rule's link, weak or, if that thread was sending, wrongly strong, would
 * be the wake-up a slice follows after the hang.  So a softirq wake-up
 * of a thread that talks to another host is held (link_release) until the
 * thread shows what it was: its next receive, matched to a send on the
 * other host, makes the send the wake-up's cause; anything else (another
 * wait, a receive of nothing matched, a receive call's end, but not a
 * preemption) lets the softirq's go as it was.  A receive before its
 * send's event (which comes at the send's end, microseconds after the
 * bytes left) keeps it held for that send, until the thread waits again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hosts.h"
#include "link.h"

#define MSG_PEEK_FLAG	2

struct send {
	uint64_t	 pos, len;
	struct cause	 by;
};

/* A receive whose send's event has not come yet. */
struct early {
	uint64_t	 first;		/* its first byte */
	uint64_t	 vertex;
	uint32_t	 pid, tid;
};

#define MAX_EARLY	8

struct conn {
	char		 key[144];	/* HOST|LOCAL>REMOTE */
	const char	*pair;		/* in key: LOCAL>REMOTE */
	int		 host;
	struct early	 early[MAX_EARLY];	/* receives on this end */
	int		 nearly;
	uint64_t	 sent, rcvd;
	struct send	*sends;		/* not yet received, oldest first */
	size_t		 head, n, cap;
	uint64_t	 last_from, last_to;	/* the last link made */
	UT_hash_handle	 hh;
};

struct sk {
	uint64_t	 addr;
	struct conn	*c;
	UT_hash_handle	 hh;
};

static struct conn	*conns;
static struct sk	*sks;
_Static_assert(ECOL_SAME(E_SOCK_STATE, E_SOCK_SEND, SKADDR) &&
    ECOL_SAME(E_SOCK_STATE, E_SOCK_RECV, SKADDR),
    "the socket events name their socket in one column");

struct cpu {
	int		 in;		/* a softirq runs, of this vector: */
	int		 vec;
};

struct tstate {
	int		 peered;	/* has sent or received to another host */
	/*
	 * The connection it last sent on whose other end was not known
	 * then: a client sends as soon as its end is established, before
	 * the handshake's last ACK establishes the server's, on any network
	 * slower than its turn from connect to send.
	 */
	struct conn	*unpeered;
	int		 holding;	/* its wake-up, held (link_release) */
	int		 receiving;	/* in a receive, whose exit may be
					 * unrecorded (syscall_exit_read) */
	int		 early;		/* held for an early receive's send */
};

/* Threads whose wake-up is held, for the end of the input. */
static struct lthread	**held;
static size_t		  nheld, heldcap;

/*
 * A thread's calls and switches end the wake-up it holds, and are not
 * given to see() while no thread holds one (link_types()): most streams,
 * one host's, never do, and each of their millions of calls and switches
 * cost a call to see() for nothing.
 */
#define SOCK_TYPES	(EV(E_SOCK_STATE) | EV(E_SOCK_SEND) | \
			    EV(E_SOCK_RECV) | EV(E_SOFTIRQ_ENTRY) | \
			    EV(E_SOFTIRQ_EXIT))
#define HELD_TYPES	(EV(E_SWITCH) | EV(E_SYS_EXIT) | EV(E_SYS_ENTER))

static struct conn *
conn_get(int host, const char *pair)
{
	struct conn *c;
	char key[144];

	snprintf(key, sizeof(key), "%d|%s", host, pair);
	HASH_FIND_STR(conns, key, c);
	if (c == NULL) {
		c = xcalloc(1, sizeof(*c));
		snprintf(c->key, sizeof(c->key), "%s", key);
		c->pair = strchr(c->key, '|') + 1;
		c->host = host;
		HASH_ADD_STR(conns, key, c);
	}
	return c;
}

static void
opened(const struct event *ev, uint64_t addr, struct sk *s)
{
	struct conn *c;
	char key[128];

	snprintf(key, sizeof(key), "%s>%s",
	    event_str(ev, ECOL(E_SOCK_STATE, LOCAL)),
	    event_str(ev, ECOL(E_SOCK_STATE, REMOTE)));
	/* Both ends may be in one host's recording: the CPU says whose. */
	c = conn_get(host_of_cpu(ev->cpu), key);
	c->sent = c->rcvd = 0;		/* a new connection of the same pair */
	c->head = c->n = 0;
	c->nearly = 0;
	if (s == NULL) {
		s = xcalloc(1, sizeof(*s));
		s->addr = addr;
		HASH_ADD(hh, sks, addr, sizeof(s->addr), s);
	}
	s->c = c;
}

static void
link_one(struct link_rule *self, struct conn *peer, const struct send *s,
    uint64_t time, uint32_t pid, uint32_t tid, uint64_t vertex)
{
	struct cause cause;

	if (s->by.vertex == NO_VERTEX || vertex == NO_VERTEX ||
	    vertex == UNSEGMENTED)
		return;
	if (peer->last_from == s->by.vertex && peer->last_to == vertex)
		return;
	peer->last_from = s->by.vertex;
	peer->last_to = vertex;
	cause = s->by;
	cause_name(&cause, self);
	link_emit(time, pid, tid, vertex, &cause);
}

/* The mirrored end of c on another host, if it is known. */
static struct conn *
mirror_of(const struct conn *c)
{
	struct conn *peer;
	char mirror[144];
	const char *gt;
	int k;

	if ((gt = strchr(c->pair, '>')) == NULL)
		return NULL;
	for (k = 0; k < host_count(); k++) {
		if (k == c->host)
			continue;
		snprintf(mirror, sizeof(mirror), "%d|%s>%.*s", k, gt + 1,
		    (int)(gt - c->pair), c->pair);
		HASH_FIND_STR(conns, mirror, peer);
		if (peer != NULL)
			return peer;
	}
	return NULL;
}

static void	release(struct link_rule *, const struct event *,
		    struct lthread *, const struct send *);

/*
 * The send of early receive e has come: the wake-up its thread holds for
 * it, if it still does, is the send's; else the send is linked alone.
 */
static void
early_sent(struct link_rule *self, struct conn *c, const struct send *s,
    const struct event *ev, const struct early *e)
{
	struct lthread *t = lthread_get(e->tid, e->pid);
	struct tstate *ts = link_thread(self, t);

	if (ts->early && t->woken && t->waker.held &&
	    s->by.vertex != NO_VERTEX) {
		release(self, ev, t, s);
		c->last_from = s->by.vertex;
		c->last_to = e->vertex;
		return;
	}
	link_one(self, c, s, ev->time, e->pid, e->tid, e->vertex);
}

/* A send of c has come: the receives on the other end that waited for it. */
static void
sent(struct link_rule *self, struct conn *c, const struct send *s,
    const struct event *ev)
{
	struct conn *peer = mirror_of(c);
	int i, j;

	if (peer == NULL)
		return;
	for (i = j = 0; i < peer->nearly; i++) {
		const struct early *e = &peer->early[i];

		if (e->first >= s->pos && e->first < s->pos + s->len)
			early_sent(self, c, s, ev, e);
		else if (e->first >= s->pos + s->len)
			peer->early[j++] = *e;	/* for a later send */
	}
	peer->nearly = j;
}

/* Lets t's held wake-up go: as the softirq said, or as the send s. */
static void
release(struct link_rule *self, const struct event *ev, struct lthread *t,
    const struct send *s)
{
	struct tstate *ts = link_thread(self, t);
	size_t i;

	if (!ts->holding)
		return;
	ts->holding = ts->early = 0;
	for (i = 0; i < nheld && held[i] != t; i++)
		;
	if (i < nheld)
		held[i] = held[--nheld];
	if (nheld == 0)
		link_types(self, SOCK_TYPES);
	if (!t->woken || !t->waker.held)
		return;
	if (s != NULL && s->by.vertex != NO_VERTEX) {
		t->waker = s->by;
		cause_name(&t->waker, self);
	}
	link_release(ev, t);
}

static void
received(struct link_rule *self, const struct event *ev, struct lthread *t,
    struct conn *c, uint64_t len)
{
	struct tstate *ts = link_thread(self, t);
	struct conn *peer;
	struct send *s;
	uint64_t first = c->rcvd;

	c->rcvd += len;
	if ((peer = mirror_of(c)) == NULL) {
		release(self, ev, t, NULL);
		return;
	}
	ts->peered = 1;
	/* Sends wholly received are done with. */
	while (peer->head < peer->n && peer->sends[peer->head].pos +
	    peer->sends[peer->head].len <= first)
		peer->head++;
	if (peer->head == peer->n || peer->sends[peer->head].pos > first) {
		if (c->nearly < MAX_EARLY && ev->vertex != NO_VERTEX &&
		    ev->vertex != UNSEGMENTED) {
			c->early[c->nearly++] = (struct early){ first,
			    ev->vertex, t->pid, t->tid };
			/* Its wake-up, held for that send. */
			if (ts->holding && t->woken && t->waker.held) {
				ts->early = 1;
				return;
			}
		}
		release(self, ev, t, NULL);
		return;
	}
	s = &peer->sends[peer->head];
	if (ts->holding && t->woken && t->waker.held) {
		/* The wake-up is the send's: one link, into the vertex after the wait. */
		release(self, ev, t, s);
		peer->last_from = s->by.vertex;
		peer->last_to = ev->vertex;
		return;
	}
	link_one(self, peer, s, ev->time, t->pid, t->tid, ev->vertex);
}

static void	see_sock(struct link_rule *, const struct event *,
		    struct lthread *);

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct tstate *ts;
	struct cpu *cpu;

	switch (ev->type) {
	case E_SOFTIRQ_ENTRY:
		cpu = link_cpu(self, ev->cpu);
		cpu->in = 1;
		cpu->vec = event_u64(ev, ECOL(E_SOFTIRQ_ENTRY, VEC));
		return;
	case E_SOFTIRQ_EXIT:
		((struct cpu *)link_cpu(self, ev->cpu))->in = 0;
		return;
	case E_SWITCH:
		/*
		 * Its thread off the CPU to wait for something else; not one
		 * preempted on its way to the receive (a busy machine's).
		 * Most threads hold no wake-up (release()'s first test): that
		 * first, before the state.
		 */
		ts = link_thread(self, t);
		if (ts->holding && ev->ctx == '-' &&
		    state_is_wait(event_str(ev, ECOL(E_SWITCH, STATE))))
			release(self, ev, t, NULL);
		return;
	case E_SYS_EXIT:
		ts = link_thread(self, t);
		ts->receiving = 0;
		if ((event_call(ev) & CALL_RECV) && !ts->early)
			release(self, ev, t, NULL);
		return;
	case E_SYS_ENTER:
		ts = link_thread(self, t);
		/* A receive without its exit ended where this call begins. */
		if (ts->receiving && !ts->early)
			release(self, ev, t, NULL);
		ts->receiving = (event_call(ev) & CALL_RECV) != 0;
		return;
	default:
		see_sock(self, ev, t);
		return;
	}
}

/*
 * A socket's event: out of line, its registers and its frame kept out of
 * the calls and switches that are most of what see() is given.
 */
static void __attribute__((noinline))
see_sock(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct tstate *ts;
	struct sk *s;
	struct conn *c;
	uint64_t addr;
	int64_t len;
	int state;

	addr = event_u64(ev, ECOL(E_SOCK_STATE, SKADDR));
	HASH_FIND(hh, sks, &addr, sizeof(addr), s);
	if (ev->type == E_SOCK_STATE) {
		state = tcp_state_of(event_str(ev, ECOL(E_SOCK_STATE, NEW)));
		if (state == TCP_S_ESTABLISHED && tcp_state_of(event_str(ev,
		    ECOL(E_SOCK_STATE, OLD))) != TCP_S_ESTABLISHED)
			opened(ev, addr, s);
		else if (state == TCP_S_CLOSE && s != NULL) {
			HASH_DEL(sks, s);
			free(s);
		}
		return;
	}
	if (s == NULL || (len = event_i64(ev, ev->type == E_SOCK_SEND ?
	    ECOL(E_SOCK_SEND, LENGTH) : ECOL(E_SOCK_RECV, LENGTH))) <= 0)
		return;
	c = s->c;
	if (ev->type == E_SOCK_RECV) {
		if (!(event_u64(ev, ECOL(E_SOCK_RECV, FLAGS)) & MSG_PEEK_FLAG))
			received(self, ev, t, c, len);
		return;
	}
	if (c->head == c->n)
		c->head = c->n = 0;
	if (c->n == c->cap)
		c->sends = xrealloc(c->sends, (c->cap = c->cap ? c->cap * 2 :
		    8) * sizeof(*c->sends));
	c->sends[c->n].pos = c->sent;
	c->sends[c->n].len = len;
	/* Counted even when no vertex sent it: the bytes after it are. */
	if (!link_cause(ev, &c->sends[c->n].by))
		c->sends[c->n].by.vertex = NO_VERTEX;
	c->sends[c->n].by.weak = 0;
	ts = link_thread(self, t);
	if (mirror_of(c) != NULL)
		ts->peered = 1;
	else
		ts->unpeered = c;
	snprintf(c->sends[c->n].by.label, sizeof(c->sends[c->n].by.label),
	    "%.63s", c->pair);
	c->n++;
	c->sent += len;
	sent(self, c, &c->sends[c->n - 1], ev);
}

/* Whether t talks to another host, as far as the stream knows by now. */
static int
peered(struct tstate *ts)
{
	if (!ts->peered && ts->unpeered != NULL &&
	    mirror_of(ts->unpeered) != NULL)
		ts->peered = 1;
	return ts->peered;
}

/*
 * A wake-up from the network's softirq (its vector, or one not seen) of a
 * thread that talks to another host: held for its receive.
 */
static int
classify(struct link_rule *self, const struct event *ev, struct lthread *waker,
    struct lthread *wakee, struct cause *c)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);
	struct tstate *ts = link_thread(self, wakee);

	(void)waker;
	if (ev->ctx != 's' || (cpu->in && cpu->vec != SOFTIRQ_NET_RX) ||
	    wakee->woken || ts->holding || host_count() < 2 || !peered(ts))
		return 0;
	c->held = 1;
	ts->holding = 1;
	/* Its calls are not followed while none is held: the one it is in. */
	ts->receiving = (wakee->call & CALL_RECV) != 0;
	if (nheld == 0)
		link_types(self, SOCK_TYPES | HELD_TYPES);
	if (nheld == heldcap)
		held = xrealloc(held, (heldcap = heldcap ? heldcap * 2 : 8) *
		    sizeof(*held));
	held[nheld++] = wakee;
	return 0;
}

/* Wake-ups still held at the end go as the softirq said. */
static void
finish(struct link_rule *self, uint64_t end)
{
	struct event ev;

	memset(&ev, 0, sizeof(ev));
	ev.time = end;
	while (nheld > 0)
		release(self, &ev, held[nheld - 1], NULL);
	free(held);
}

LINK_RULE(remote) = {
	.name = REMOTE_RULE,
	.types = SOCK_TYPES,
	.see = see,
	.classify = classify,
	.finish = finish,
	.thread_size = sizeof(struct tstate),
	.cpu_size = sizeof(struct cpu),
};

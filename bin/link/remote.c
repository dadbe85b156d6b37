/*
 * A receive on one host of bytes that another host sent: the sender's
 * vertex -> the receiver's, in a stream of several hosts (argus-cat(1)
 * HOSTS).  Both ends of a TCP connection are known by their address pairs
 * (sock_state events: LOCAL>REMOTE on one host is REMOTE>LOCAL on the
 * other), and each end counts the bytes it sent and received since the
 * connection opened, so a receive is matched to the send that carried its
 * first byte without payload: strong, labelled with the sender's pair.
 * A receive on the sender's own host is the softirq rule's (loopback).
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

struct conn {
	char		 key[128];	/* LOCAL>REMOTE */
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

static struct conn *
conn_get(const char *key)
{
	struct conn *c;

	HASH_FIND_STR(conns, key, c);
	if (c == NULL) {
		c = xcalloc(1, sizeof(*c));
		snprintf(c->key, sizeof(c->key), "%s", key);
		HASH_ADD_STR(conns, key, c);
	}
	return c;
}

static void
opened(const struct event *ev, uint64_t addr, struct sk *s)
{
	struct conn *c;
	char key[128];

	snprintf(key, sizeof(key), "%s>%s", event_str(ev, 4),
	    event_str(ev, 5));
	c = conn_get(key);
	c->sent = c->rcvd = 0;		/* a new connection of the same pair */
	c->head = c->n = 0;
	if (s == NULL) {
		s = xcalloc(1, sizeof(*s));
		s->addr = addr;
		HASH_ADD(hh, sks, addr, sizeof(s->addr), s);
	}
	s->c = c;
}

static void
received(struct link_rule *self, const struct event *ev, struct lthread *t,
    struct conn *c, uint64_t len)
{
	struct conn *peer;
	struct send *s;
	char mirror[128], *gt;
	uint64_t first = c->rcvd;
	struct cause cause;

	c->rcvd += len;
	if ((gt = strchr(c->key, '>')) == NULL)
		return;
	snprintf(mirror, sizeof(mirror), "%s>%.*s", gt + 1,
	    (int)(gt - c->key), c->key);
	HASH_FIND_STR(conns, mirror, peer);
	if (peer == NULL)
		return;
	/* Sends wholly received are done with. */
	while (peer->head < peer->n && peer->sends[peer->head].pos +
	    peer->sends[peer->head].len <= first)
		peer->head++;
	if (peer->head == peer->n)
		return;
	s = &peer->sends[peer->head];
	if (s->pos > first || s->by.vertex == NO_VERTEX ||
	    HOST_OF(s->by.tid) == HOST_OF(t->tid) ||
	    ev->vertex == NO_VERTEX || ev->vertex == UNSEGMENTED)
		return;
	if (peer->last_from == s->by.vertex && peer->last_to == ev->vertex)
		return;
	peer->last_from = s->by.vertex;
	peer->last_to = ev->vertex;
	cause = s->by;
	cause_name(&cause, self);
	link_emit(ev->time, t->pid, t->tid, ev->vertex, &cause);
}

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct sk *s;
	struct conn *c;
	uint64_t addr = event_u64(ev, 0);
	int64_t len;
	int state;

	HASH_FIND(hh, sks, &addr, sizeof(addr), s);
	if (ev->type == E_SOCK_STATE) {
		state = tcp_state_of(event_str(ev, 2));
		if (state == TCP_S_ESTABLISHED &&
		    tcp_state_of(event_str(ev, 1)) != TCP_S_ESTABLISHED)
			opened(ev, addr, s);
		else if (state == TCP_S_CLOSE && s != NULL) {
			HASH_DEL(sks, s);
			free(s);
		}
		return;
	}
	if (s == NULL || (len = event_i64(ev, 1)) <= 0)
		return;
	c = s->c;
	if (ev->type == E_SOCK_RECV) {
		if (!(event_u64(ev, 2) & MSG_PEEK_FLAG))
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
	snprintf(c->sends[c->n].by.label, sizeof(c->sends[c->n].by.label),
	    "%.63s", c->key);
	c->n++;
	c->sent += len;
}

LINK_RULE(remote) = {
	.name = "remote",
	.types = EV(E_SOCK_STATE) | EV(E_SOCK_SEND) | EV(E_SOCK_RECV),
	.see = see,
};

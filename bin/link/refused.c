/*
 * A client that retries connect(2) until its server listens waits on no
 * object: each try is refused (a reset: SYN_SENT to CLOSE), it naps and
 * tries again, and nobody wakes it.  What ends the loop is the listen on
 * the address: the vertex that put a socket in LISTEN there is linked to
 * the connector's first try after it, once its tries to that address
 * were refused before it.  A polling loop's cause, as a data flag's
 * write is.  And while no one listens, the first refused try of a run is
 * linked weakly from the listen of the last that did, gone since: whose
 * place the loop waits for someone to take.
 */
#include <string.h>

#include "link.h"

/*
 * Listening sockets by their address, and those closed since; connects by
 * socket, to their thread.
 */
static struct pending	*listeners, *gone, *connects;

/* A thread's tries refused: where to, the last one when. */
struct state {
	char		 to[64];
	uint64_t	 refused;
};

/* A try of thread t ended, in its softirq or another's. */
static void
tried(struct link_rule *self, const struct event *ev, struct lthread *t,
    int to, const char *remote)
{
	struct state *st = link_thread(self, t);
	struct cause c, *l;

	if (to != TCP_S_CLOSE) {
		st->refused = 0;
		return;
	}
	if ((st->refused == 0 || strcmp(st->to, remote) != 0) &&
	    pending_find_addr(&listeners, remote) == NULL &&
	    (l = pending_find_addr(&gone, remote)) != NULL) {
		c = *l;
		c.weak = 1;
		link_emit(ev->time, t->pid, t->tid, t->vertex, &c);
	}
	memcpy(st->to, remote, strlen(remote) + 1);
	st->refused = ev->time;
}

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	const char *local, *remote;
	struct state *st;
	struct cause c, *l;
	uint64_t sk;
	int from, to;

	from = tcp_state_of(event_str(ev, ECOL(E_SOCK_STATE, OLD)));
	to = tcp_state_of(event_str(ev, ECOL(E_SOCK_STATE, NEW)));
	local = event_str(ev, ECOL(E_SOCK_STATE, LOCAL));
	remote = event_str(ev, ECOL(E_SOCK_STATE, REMOTE));
	sk = event_u64(ev, ECOL(E_SOCK_STATE, SKADDR));
	if (strlen(local) >= PENDING_KEY || strlen(remote) >= PENDING_KEY)
		return;
	if (to == TCP_S_LISTEN && ev->ctx == '-') {
		cause_in(&c, t, ev->time, self);
		cause_label(&c, local);
		pending_put_addr(&listeners, local, &c);
	} else if (from == TCP_S_LISTEN && to == TCP_S_CLOSE) {
		if ((l = pending_find_addr(&listeners, local)) != NULL &&
		    strcmp(l->label, local) == 0) {
			pending_put_addr(&gone, local, l);
			pending_take_addr(&listeners, local);
		}
	} else if (to == TCP_S_SYN_SENT && ev->ctx == '-') {
		st = link_thread(self, t);
		if (st->refused != 0 && strcmp(st->to, remote) == 0 &&
		    (l = pending_find_addr(&listeners, remote)) != NULL &&
		    l->time > st->refused) {
			link_emit(ev->time, t->pid, t->tid, ev->vertex, l);
			st->refused = 0;
		}
		cause_in(&c, t, ev->time, self);
		pending_put(&connects, &sk, sizeof(sk), &c);
	} else if (from == TCP_S_SYN_SENT &&
	    pending_take(&connects, &sk, sizeof(sk), &c))
		tried(self, ev, lthread_get(c.tid, c.pid), to, remote);
}

LINK_RULE(refused) = {
	.name = REFUSED_RULE,
	.types = EV(E_SOCK_STATE),
	.see = see,
	.thread_size = sizeof(struct state),
};

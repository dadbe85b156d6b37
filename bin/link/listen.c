/*
 * A connect(2) to a listener on this host completes in the connector's
 * own softirq when the listener's queue has room: it never waits.  One
 * that waited had its SYN dropped, the queue full of connections the
 * listener's owner did not accept, and the handshake a retried SYN made
 * once it did.  The wake-up comes from a softirq of whatever thread the
 * CPU had: linked weakly to the thread that listens on the address the
 * connect went to, labelled with it.  A listener elsewhere is no one's
 * here (the remote rule's, across hosts).
 */
#include <stdio.h>
#include <string.h>

#include "link.h"

/* Listening sockets by their address, its text; connects by socket. */
static struct pending	*listeners, *connects;

struct cpu {
	uint32_t	 tid;		/* a connector whose handshake ended */
	char		 to[64];	/* in this softirq; where it went */
};

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);
	const char *local, *remote;
	uint64_t sk;
	struct cause c;
	int from, to;

	if (ev->type == E_SOFTIRQ_EXIT) {
		cpu->tid = 0;
		return;
	}
	from = tcp_state_of(event_str(ev, ECOL(E_SOCK_STATE, OLD)));
	to = tcp_state_of(event_str(ev, ECOL(E_SOCK_STATE, NEW)));
	local = event_str(ev, ECOL(E_SOCK_STATE, LOCAL));
	remote = event_str(ev, ECOL(E_SOCK_STATE, REMOTE));
	sk = event_u64(ev, ECOL(E_SOCK_STATE, SKADDR));
	if (strlen(local) >= PENDING_KEY || strlen(remote) >= sizeof(c.label))
		return;
	if (to == TCP_S_LISTEN && ev->ctx == '-') {
		cause_in(&c, t, ev->time, self);
		pending_put_addr(&listeners, local, &c);
	} else if (from == TCP_S_LISTEN && to == TCP_S_CLOSE)
		/* Not to SYN_RECV: a connection's socket, copied from it. */
		pending_take_addr(&listeners, local);
	else if (to == TCP_S_SYN_SENT && ev->ctx == '-') {
		cause_in(&c, t, ev->time, self);
		cause_label(&c, remote);
		pending_put(&connects, &sk, sizeof(sk), &c);
	} else if (from == TCP_S_SYN_SENT &&
	    pending_take(&connects, &sk, sizeof(sk), &c) &&
	    to == TCP_S_ESTABLISHED && ev->ctx != '-') {
		cpu->tid = c.tid;
		memcpy(cpu->to, c.label, sizeof(cpu->to));
	}
}

/* The connector's wake-up, in the softirq its handshake ended in. */
static int
attribute(struct link_rule *self, const struct event *ev, struct cause *c)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);
	struct cause *l;
	struct lthread *owner;

	if (cpu->tid == 0 || ev->type != E_WAKING ||
	    event_u64(ev, WAKE_COL(TTID)) != cpu->tid)
		return 0;
	cpu->tid = 0;
	if ((l = pending_find_addr(&listeners, cpu->to)) == NULL)
		return 0;
	owner = lthread_get(l->tid, l->pid);
	cause_in(c, owner, ev->time, self);
	cause_label(c, cpu->to);
	return 1;
}

LINK_RULE(listen) = {
	.name = LISTEN_RULE,
	.types = EV(E_SOCK_STATE) | EV(E_SOFTIRQ_EXIT),
	.see = see,
	.attribute = attribute,
	.cpu_size = sizeof(struct cpu),
};

/*
 * Softirqs are attributed, not dropped.  Loopback networking runs the
 * receive softirq in the sender's own context right after its send, so a
 * local server's reply wakes its client from softirq context: that
 * wake-up belongs to the sender's vertex, as a connect's wakes the
 * listener.  Other vectors, and softirqs run
 * by ksoftirqd, cannot be pinned on the thread they happen in: weak edges
 * labelled with the vector.  (Timer and block softirqs have rules of their
 * own, asked first.)
 */
#include <string.h>

#include "link.h"

struct cpu {
	int		 in;		/* a softirq runs, of this vector: */
	int		 vec;
};

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);

	(void)t;
	cpu->in = ev->type == E_SOFTIRQ_ENTRY;
	if (cpu->in)
		cpu->vec = event_u64(ev, ECOL(E_SOFTIRQ_ENTRY, VEC));
}

static int
attribute(struct link_rule *self, const struct event *ev, struct cause *c)
{
	struct cpu *cpu = link_cpu(self, ev->cpu);
	struct lthread *t;
	int net;

	if (ev->ctx != 's')
		return 0;
	t = lthread_get(ev->tid, 0);
	net = cpu->in && (cpu->vec == SOFTIRQ_NET_RX ||
	    cpu->vec == SOFTIRQ_NET_TX);
	cause_name(c, self);
	c->vertex = ev->tid == 0 ? NO_VERTEX : t->vertex;
	/*
	 * A connect on loopback completes the handshake in the connector's
	 * softirq: the listener it wakes (a server idle in accept or its
	 * event loop) is woken by that connect as surely as by a send.
	 */
	c->weak = !(net && (t->call & (CALL_SEND | CALL_CONNECT)));
	cause_label(c, !cpu->in ? "softirq" :
	    *softirq_name(cpu->vec) ? softirq_name(cpu->vec) : "?");
	return 1;
}

LINK_RULE(softirq) = {
	.name = SOFTIRQ_RULE,
	.types = EV(E_SOFTIRQ_ENTRY) | EV(E_SOFTIRQ_EXIT),
	.see = see,
	.attribute = attribute,
	.cpu_size = sizeof(struct cpu),
};

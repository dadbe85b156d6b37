/*
 * Softirqs are attributed, not dropped.  Loopback networking runs the
 * receive softirq in the sender's own context right after its send, so a
 * local server's reply wakes its client from softirq context: that
 * wake-up belongs to the sender's vertex.  Other vectors, and softirqs run
 * by ksoftirqd, cannot be pinned on the thread they happen in: weak edges
 * labelled with the vector.  (Timer and block softirqs have rules of their
 * own, asked first.)
 */
#include <stdio.h>

#include "link.h"

static const char *const vectors[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

#define NET_TX	2
#define NET_RX	3

static void
see(const struct event *ev, struct lthread *t)
{
	(void)t;
	if (ev->type == E_SOFTIRQ_ENTRY)
		cpu_get(ev->cpu)->softirq = event_u64(ev, 0);
	else if (ev->type == E_SOFTIRQ_EXIT)
		cpu_get(ev->cpu)->softirq = -1;
}

int
softirq_cause(const struct event *ev, struct cause *c)
{
	struct lthread *t;
	int vec = cpu_get(ev->cpu)->softirq;

	if (softirq.off || ev->ctx != 's' || vec < 0)
		return 0;
	t = lthread_get(ev->tid, 0);
	c->by = &softirq;
	c->rule = "softirq";
	c->vertex = ev->tid == 0 ? NO_VERTEX : t->vertex;
	c->weak = !((vec == NET_RX || vec == NET_TX) && t->in_send);
	snprintf(c->label, sizeof(c->label), "%s",
	    vec < (int)ARRAY_LEN(vectors) ? vectors[vec] : "?");
	return 1;
}

struct rule softirq = {
	"softirq", "loopback receive softirq -> the sender's vertex; others weak",
	see, 0, 0, 0,
};

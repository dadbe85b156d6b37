/*
 * A wake-up links the waker's vertex to the wakee's first vertex after the
 * wait (strong), once the wakee runs: the rule that knows more (a message,
 * a timer, a lock...) names it.  And the wait links back to its waker
 * (weak: the waker may have done its work because the waiter asked, or
 * not).  Only the first wake-up of a wait counts; the kernel reports no
 * others for a task not asleep.
 */
#include "link.h"

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct lthread *w;
	struct cause c;

	/* Culled in a task: housekeeping, no one's cause. */
	if (ev->ctx == '-' && ev->vertex == NO_VERTEX)
		return;
	w = link_wakee(ev);
	if (!link_cause(ev, &c))
		return;
	link_classify(ev, t, w, &c);
	if (c.rule == NULL)
		cause_name(&c, self);
	link_wake(w, &c);
}

LINK_RULE(wakeup) = {
	.name = WAKEUP_RULE,
	.types = EV(E_WAKING),
	.see = see,
};

/* The wait the wakee was in, back to the vertex that ended it. */
static void
woken(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct cause c;

	if (t->wait_vertex == NO_VERTEX || t->waker.vertex == NO_VERTEX ||
	    t->waker.tid == t->tid)
		return;
	cause_clear(&c);
	cause_name(&c, self);
	c.vertex = t->wait_vertex;
	c.pid = t->pid;
	c.tid = t->tid;
	c.time = ev->time;
	link_emit(ev->time, t->waker.pid, t->waker.tid, t->waker.vertex, &c);
}

LINK_RULE(wait) = {
	.name = WAIT_RULE,
	.woken = woken,
};

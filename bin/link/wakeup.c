/*
 * A wake-up links the waker's vertex to the wakee's first vertex after the
 * wait (strong), and the wait back to the waker (weak: the waker may have
 * done its work because the waiter asked, or not).  Only the first wake-up
 * of a wait counts; the kernel reports no others for a task not asleep.
 */
#include <string.h>

#include "link.h"

void
wake(struct lthread *w, const struct cause *c)
{
	if (w->woken)
		return;
	w->woken = 1;
	w->waker = *c;
	w->wait_vertex = w->vertex;
}

static void
see(const struct event *ev, struct lthread *t)
{
	struct lthread *w;
	struct cause c;

	if (ev->type == E_WAKING) {
		/* Culled in a task: housekeeping, no one's cause. */
		if (ev->ctx == '-' && ev->vertex == NO_VERTEX)
			return;
		w = lthread_get(event_u64(ev, 1), event_pid(ev, 0));
		cause_of(ev, &c);
		/* Its own timer ended the wait: a timeout, not a peer. */
		if (strcmp(c.rule, "timer") == 0 && c.tid == w->tid)
			c.rule = "timeout";
		if (c.by == &wakeup && ev->ctx == '-' && t->in_send &&
		    !message.off) {
			c.rule = "message";
			c.by = &message;
		}
		if (c.by == &wakeup && ev->ctx == '-' && t->signal.in &&
		    !cond_signal.off) {
			c.rule = "cond";
			c.by = &cond_signal;
			inside_label(&t->signal, &c);
		}
		if (c.by == &wakeup && !lock_handoff.off && (w->lock_wait ||
		    w->lock.in || (ev->ctx == '-' && t->unlock.in))) {
			c.rule = "lock";
			c.by = &lock_handoff;
			c.weak = 1;	/* mutual exclusion is not intent */
			inside_label(ev->ctx == '-' && t->unlock.in ?
			    &t->unlock : &w->lock, &c);
		}
		wake(w, &c);
		return;
	}
	if (!t->woken || ev->ctx != '-' || ev->vertex == NO_VERTEX)
		return;
	t->woken = 0;
	link_emit(ev->time, t->pid, t->tid, t->vertex, &t->waker);
	if (t->wait_vertex == NO_VERTEX || t->waker.vertex == NO_VERTEX ||
	    t->waker.tid == t->tid)
		return;
	memset(&c, 0, sizeof(c));
	c.by = &wakeup;
	c.vertex = t->wait_vertex;
	c.pid = t->pid;
	c.tid = t->tid;
	c.time = ev->time;
	c.rule = "wait";
	c.weak = 1;
	link_emit(ev->time, t->waker.pid, t->waker.tid, t->waker.vertex, &c);
}

struct rule wakeup = {
	"wakeup", "waker -> wakee after its wait (strong), wait -> waker (weak)",
	see, 0, 0, 0,
};

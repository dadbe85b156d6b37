/*
 * A signal that wakes its target: strong, the sender's vertex to what the
 * signalled thread does next, labelled with the signal.  The kernel traces
 * signal_generate after the wake-up the signal makes, so the wake-up is
 * named when its signal is seen: the sender's last wake-up, made since
 * its system call began, of the thread (or, sent to a process, of a
 * thread of the process) that the signal was delivered to.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "link.h"

#define DELIVERED	0	/* signal_generate's RESULT */

struct state {
	struct lthread	*woke;		/* since its system call began */
	uint64_t	 at;
};

/*
 * A signal sent: out of line, its registers and its snprintf() kept out
 * of the calls and wake-ups that are most of what see() is given.
 */
static void __attribute__((noinline))
generated(struct link_rule *self, const struct event *ev, struct lthread *t,
    struct state *s)
{
	struct lthread *w = s->woke;
	int group;

	s->woke = NULL;
	if (w == NULL || event_i64(ev, ECOL(E_SIGNAL_GENERATE, RESULT)) !=
	    DELIVERED)
		return;
	group = event_i64(ev, ECOL(E_SIGNAL_GENERATE, GROUP)) != 0;
	if (group ? w->pid != event_pid(ev, ECOL(E_SIGNAL_GENERATE, TPID)) :
	    w->tid != event_u64(ev, ECOL(E_SIGNAL_GENERATE, TTID)))
		return;
	/* Its wake-up, still waiting for the thread to run. */
	if (!w->woken || w->waker.tid != t->tid || w->waker.time != s->at)
		return;
	cause_name(&w->waker, self);
	w->waker.weak = 0;
	signal_label(w->waker.label, sizeof(w->waker.label),
	    event_i64(ev, ECOL(E_SIGNAL_GENERATE, SIG)));
}

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct state *s = link_thread(self, t);

	switch (ev->type) {
	case E_WAKING:
		if (ev->ctx == '-') {
			s->woke = link_wakee(ev);
			s->at = ev->time;
		}
		return;
	case E_SIGNAL_GENERATE:
		generated(self, ev, t, s);
		return;
	default:
		s->woke = NULL;
		return;
	}
}

LINK_RULE(signal) = {
	.name = SIGNAL_RULE,
	.types = EV(E_WAKING) | EV(E_SIGNAL_GENERATE) | EV(E_SYS_ENTER),
	.see = see,
	.thread_size = sizeof(struct state),
};

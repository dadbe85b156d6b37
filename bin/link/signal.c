/*
 * A signal that wakes its target: strong, the sender's vertex to what the
 * signalled thread does next, labelled with the signal.  The kernel traces
 * signal_generate after the wake-up the signal makes, so the wake-up is
 * named when its signal is seen: the sender's wake-ups, made since its
 * system call began, of the thread (or, sent to a process, of the
 * threads of the process) that the signal was delivered to.  SIGKILL
 * sent to a process wakes each of its threads.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "link.h"

#define DELIVERED	0	/* signal_generate's RESULT */
#define WOKEN		8	/* a process's threads a SIGKILL wakes, kept */

struct state {
	/* Its wake-ups in its call (lthread.calls), and when. */
	uint64_t	 call;
	struct lthread	*woke[WOKEN];
	uint64_t	 at[WOKEN];
	int		 n;
};

/* What s keeps, of t's call now: those of a call before are forgotten. */
static struct state *
state(struct link_rule *self, struct lthread *t)
{
	struct state *s = link_thread(self, t);

	if (s->call != t->calls) {
		s->call = t->calls;
		s->n = 0;
	}
	return s;
}

/*
 * A signal sent: out of line, its registers and its snprintf() kept out
 * of the calls and wake-ups that are most of what see() is given.
 */
static void __attribute__((noinline))
generated(struct link_rule *self, const struct event *ev, struct lthread *t,
    struct state *s)
{
	struct lthread *w;
	int group, i, n = s->n;

	s->n = 0;
	if (n == 0 || event_i64(ev, ECOL(E_SIGNAL_GENERATE, RESULT)) !=
	    DELIVERED)
		return;
	group = event_i64(ev, ECOL(E_SIGNAL_GENERATE, GROUP)) != 0;
	for (i = 0; i < n; i++) {
		w = s->woke[i];
		if (group ? w->pid != event_pid(ev,
		    ECOL(E_SIGNAL_GENERATE, TPID)) : w->tid != event_u64(ev,
		    ECOL(E_SIGNAL_GENERATE, TTID)))
			continue;
		/* Its wake-up, still waiting for the thread to run. */
		if (!w->woken || w->waker.tid != t->tid ||
		    w->waker.time != s->at[i])
			continue;
		cause_name(&w->waker, self);
		w->waker.weak = 0;
		signal_label(w->waker.label, sizeof(w->waker.label),
		    event_i64(ev, ECOL(E_SIGNAL_GENERATE, SIG)));
	}
}

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	struct state *s = state(self, t);

	if (ev->type == E_SIGNAL_GENERATE)
		generated(self, ev, t, s);
	else if (ev->ctx == '-' && s->n < WOKEN) {
		s->woke[s->n] = link_wakee(ev);
		s->at[s->n++] = ev->time;
	}
}

LINK_RULE(signal) = {
	.name = SIGNAL_RULE,
	.types = EV(E_WAKING) | EV(E_SIGNAL_GENERATE),
	.see = see,
	.thread_size = sizeof(struct state),
};

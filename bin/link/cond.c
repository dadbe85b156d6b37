/*
 * A wake-up made inside pthread_cond_signal or pthread_cond_broadcast is
 * the signaller handing work on: strong, labelled with the condition
 * variable.  A condition variable's futex looks like any other, so
 * without the probes of patchers/pthread.probes such a wake-up is a plain
 * wakeup link; with them it says what it was.
 */
#include "link.h"

static void
see(struct link_rule *self, const struct event *ev, struct lthread *t)
{
	inside_see(link_thread(self, t), ev, E_COND_SIGNAL, E_COND_SIGNAL_END);
}

static int
classify(struct link_rule *self, const struct event *ev, struct lthread *waker,
    struct lthread *wakee, struct cause *c)
{
	struct inside *signal = link_thread(self, waker);

	(void)wakee;
	if (c->rule != NULL || ev->ctx != '-' || !signal->in)
		return 0;
	cause_name(c, self);
	inside_label(signal, c);
	return 1;
}

LINK_RULE(cond) = {
	.name = COND_RULE,
	.types = EV(E_COND_SIGNAL) | EV(E_COND_SIGNAL_END),
	.see = see,
	.classify = classify,
	.thread_size = sizeof(struct inside),
};
